"""A room played over several rounds, pure: its format, the rounds it has played, the
standings, and the rematch offer that opens each next round.

Every race room is a series. By default an open one (rounds for as long as the players
like, each round's winner counted); made at ``create`` it is a **match**, first to
``target`` wins (1 to 4), or an **arena**, ``rounds`` rounds (3 to 10) each on a new deal,
scored by place with :data:`ROUND_POINTS`. A series is complete when a player reaches the
match's target or the arena's last round is over; the next rematch then starts a new series
of the same format.

A round's **winner** is a player in first place who finished the deal (a solo round won
counts; a race nobody finished has no winner). Each round is folded into the series'
running totals (:attr:`Series.totals`; the room's meta stays the same size however many
rounds an open series plays) when the next one opens; while a round is over and the next not yet open, the views add it
(``current``), so the standings are always those of every round over.

The next round opens by an **offer**: a player proposes (a new deal, a chosen deal, or the
round's ghosts), everyone else still in the room answers; it opens once every one of them
has accepted (or is away, see :func:`waiting_for`), with nobody's page pulled away before
their own yes. One "no" withdraws the offer, and the room says who declined.

>>> s = Series(format=Format.MATCH, target=2)
>>> r1 = Played(round=1, rows=[Placed("s1", "Ann", 1, True), Placed("s2", "Bob", 2, False)])
>>> [(row["name"], row["wins"]) for row in standings(s, r1)]
[('Ann', 1), ('Bob', 0)]
>>> complete(s, r1), complete(fold(s, r1), r1)
(False, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any

import msgspec

#: Arena points by place in a round: 1st 10, 2nd 7, 3rd 5, 4th 3, 5th 2, 6th 1, then 0. A
#: shared place scores as that place (two 2nds score 7 each).
ROUND_POINTS = (10, 7, 5, 3, 2, 1)
MATCH_TARGETS = (1, 2, 3, 4)
ARENA_ROUNDS = range(3, 11)


class Format(StrEnum):
    OPEN = "open"
    MATCH = "match"
    ARENA = "arena"


class Placed(msgspec.Struct, array_like=True):
    """One seat's result in a round over: its place, and whether it won (see the module)."""

    seat: str
    name: str
    place: int
    won: bool
    device: str = ""  # (never shown: the record lists the arena under it)


class Played(msgspec.Struct, kw_only=True):
    """A round over: the room's round number and each seat's result (ghosts are no seats)."""

    round: int
    rows: list[Placed]


class Offer(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A rematch offered: by whom, on what (``deal``: a chosen deal; ``ghosts``: the round's
    deal against its games; else a new deal), and who has said yes (the proposer first)."""

    by: str
    deal: int | None = None
    ghosts: bool = False
    yes: list[str] = msgspec.field(default_factory=list)

    def same_terms(self, deal: int | None, ghosts: bool) -> bool:
        return (self.deal, self.ghosts) == (deal, ghosts)


class Total(msgspec.Struct, array_like=True):
    """One player's running total over the rounds folded into a series."""

    seat: str
    name: str
    wins: int = 0
    points: int = 0
    rounds: int = 0
    device: str = ""  # (never shown)


class Series(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The room's series: format, target or rounds, the room round it began at, how many
    rounds are folded into its ``totals`` and the ``last`` of them, the offer standing, and
    the seat whose "no" withdrew the last offer."""

    format: Format = Format.OPEN
    target: int = 0
    rounds: int = 0
    first: int = 1
    folded: int = 0
    totals: list[Total] = msgspec.field(default_factory=list)
    last: Played | None = None
    offer: Offer | None = None
    declined: str | None = None


def points(place: int) -> int:
    """An arena round's points for ``place`` (:data:`ROUND_POINTS`)."""
    return ROUND_POINTS[place - 1] if 0 < place <= len(ROUND_POINTS) else 0


def round_over(number: int, ranking: Iterable[dict[str, Any]], devices: dict[str, str]) -> Played:
    """A round over from its ranking (:func:`race.rooms.standing.ranking`; ghosts left out)."""
    rows = [
        Placed(
            r["seat"],
            r["name"],
            r["place"],
            r["place"] == 1 and r["finished_ms"] is not None,
            devices.get(r["seat"], ""),
        )
        for r in ranking
        if not r.get("ghost")
    ]
    return Played(round=number, rows=rows)


def rounds_over(series: Series, current: Played | None) -> int:
    """How many rounds of the series are over: those folded, and ``current`` (just over)."""
    return series.folded + (current is not None)


def fold(series: Series, current: Played) -> Series:
    """``series`` with the round ``current`` folded into its totals (and its ``last``)."""
    totals = {t.seat: msgspec.structs.replace(t) for t in series.totals}
    for p in current.rows:
        t = totals.setdefault(p.seat, Total(p.seat, p.name))
        t.name, t.wins, t.points, t.rounds = p.name, t.wins + p.won, t.points + points(p.place), t.rounds + 1
        t.device = p.device or t.device
    return msgspec.structs.replace(series, folded=series.folded + 1, totals=list(totals.values()), last=current)


def standings(series: Series, current: Played | None, seated: Sequence[tuple[str, str]] = ()) -> list[dict[str, Any]]:
    """Each player's total over the series' rounds: wins, points (an arena's), rounds
    played, with a place (equal totals share it). ``seated``: the room's seats (seat, name),
    listed with nothing yet when they have played no round (a late joiner). A match and an
    open series order by wins, then points; an arena by points, then wins; then seat order."""
    rows: dict[str, dict[str, Any]] = {}
    for t in (fold(series, current) if current is not None else series).totals:
        rows[t.seat] = {"seat": t.seat, "name": t.name, "wins": t.wins, "points": t.points, "rounds": t.rounds}
    for sid, name in seated:
        row = rows.setdefault(sid, {"seat": sid, "name": name, "wins": 0, "points": 0, "rounds": 0})
        row["name"] = name

    def key(row: dict[str, Any]) -> tuple[int, int]:
        if series.format is Format.ARENA:
            return (-row["points"], -row["wins"])
        return (-row["wins"], -row["points"])

    order = sorted(rows.values(), key=lambda r: (key(r), len(r["seat"]), r["seat"]))
    for i, row in enumerate(order):
        row["place"] = order[i - 1]["place"] if i and key(order[i - 1]) == key(row) else i + 1
    return order


def complete(series: Series, current: Played | None) -> bool:
    """Whether the series is over with ``current``: a match once a player has its target of
    wins, an arena after its rounds; an open series never."""
    if series.format is Format.MATCH:
        return any(r["wins"] >= series.target for r in standings(series, current))
    if series.format is Format.ARENA:
        return rounds_over(series, current) >= series.rounds
    return False


def winners(series: Series, current: Played | None) -> list[str]:
    """The seats that won the series, once it is complete: those with the most wins (a
    match) or points (an arena); none before, nor for an open series."""
    if not complete(series, current):
        return []
    return [r["seat"] for r in standings(series, current) if r["place"] == 1]


def next_round(series: Series, current: Played) -> Series:
    """The series once the round ``current`` is folded in and the next one opens: the same
    series, or a new one of the same format when this one is complete."""
    if complete(series, current):
        return Series(format=series.format, target=series.target, rounds=series.rounds, first=current.round + 1)
    return msgspec.structs.replace(fold(series, current), offer=None, declined=None)


def waiting_for(offer: Offer, seats: Iterable[str], away: Iterable[str]) -> list[str]:
    """The seats whose answer the offer still waits for: everyone in the room (``seats``:
    those who have not left) who has not said yes, but those ``away`` (gone long enough
    that the room does not wait for them: they come into the next round's lobby, where
    they are not ready)."""
    gone = set(away)
    return [sid for sid in seats if sid not in offer.yes and sid not in gone]


def view(series: Series, current: Played | None, room_round: int, seated: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """What the room's views say of the series (see ``docs/protocol.md``, ``series``)."""
    out: dict[str, Any] = {
        "format": series.format,
        "round": room_round - series.first + 1,
        "rounds_over": rounds_over(series, current),
        "standings": standings(series, current, seated),
        "complete": complete(series, current),
        "winners": winners(series, current),
    }
    if series.format is Format.MATCH:
        out["target"] = series.target
    if series.format is Format.ARENA:
        out["rounds"] = series.rounds
        out["points"] = list(ROUND_POINTS)
        last = current or series.last
        out["last"] = [
            {"seat": p.seat, "place": p.place, "points": points(p.place)} for p in (last.rows if last else [])
        ]
    if series.offer is not None:
        o = series.offer
        out["offer"] = {"by": o.by, "deal": o.deal, "ghosts": o.ghosts, "yes": list(o.yes)}
    if series.declined is not None:
        out["declined"] = series.declined
    return out


class Standing(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A player's line in a series over, as the record keeps it (``device``: never shown)."""

    seat: str
    name: str
    place: int
    wins: int
    points: int
    rounds: int
    device: str = ""


class SeriesResult(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A match or an arena over, on the record: where and when, its format, its rounds (the
    room's rounds ``first`` to ``last``) and its standings; listed under each player's device."""

    room: str
    format: Format
    target: int = 0
    rounds: int = 0
    first: int
    last: int
    ended: int
    standings: list[Standing]
    winners: list[str]
    series: int = 1  # the shape of this record (its stored form's version)


SERIES_RESULT = msgspec.json.Decoder(SeriesResult)


def series_result(series: Series, current: Played, room: str, ended: int) -> SeriesResult | None:
    """The match or arena that round ``current`` completes, for the record; ``None`` when it
    does not complete one."""
    if series.format is Format.OPEN or not complete(series, current):
        return None
    devices = {t.seat: t.device for t in fold(series, current).totals}
    lines = [
        Standing(
            **{k: r[k] for k in ("seat", "name", "place", "wins", "points", "rounds")},
            device=devices.get(r["seat"], ""),
        )
        for r in standings(series, current)
    ]
    return SeriesResult(
        room=room,
        format=series.format,
        target=series.target,
        rounds=series.rounds,
        first=series.first,
        last=current.round,
        ended=ended,
        standings=lines,
        winners=winners(series, current),
    )


def result_view(result: SeriesResult, device: str) -> dict[str, Any]:
    """A series over as ``/api/me`` shows it to ``device``: the standings without devices,
    and which seat was that device's (``me``)."""
    me = next((s.seat for s in result.standings if device and s.device == device), None)
    rows = [{f: getattr(s, f) for f in ("seat", "name", "place", "wins", "points", "rounds")} for s in result.standings]
    out: dict[str, Any] = {"room": result.room, "format": result.format, "ended": result.ended, "me": me}
    out |= {"target": result.target} if result.format is Format.MATCH else {"rounds": result.rounds}
    return out | {"round_from": result.first, "round_to": result.last, "standings": rows, "winners": result.winners}
