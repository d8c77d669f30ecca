"""Ratings among friends, pure: which races count, and what each does to its players' ratings.

A race counts (:func:`rated_race`) when its games on the record (:mod:`race.rooms.record`) are
a race's (not a daily attempt's, a tutorial's, nor a ghost: ghosts are never on the record)
played from at least two devices. Its players are ranked by their places in the race: finishers
by time, everyone else by cards home (:func:`race.rooms.standing.ranking`), equal places as ties;
a device that held two seats counts once, by its better one. :func:`apply` rates it with
OpenSkill's Plackett-Luce model, each player a team of one, and notes the race in each
player's :class:`Standing`: its rating history and its friends (everyone it has raced).

The rating shown is ``1500 + 48 * (mu - 25)``, rounded: everyone starts at 1500, and 48 points
a unit of ``mu`` put one ``beta`` (25/6, the model's spread of one race's performance) at 200
points, as on the Elo scale (about three wins in four). It is the mean, not ``mu - 3 sigma``:
with that, a newcomer would climb for every race, lost or won, while ``sigma`` shrinks. The
uncertainty shows as a "?" for the first :data:`PROVISIONAL` races instead.

>>> ann, bob = Standing(), Standing()
>>> race = RatedRace(key="x", at=1, room="K7M2QXA", round=1,
...                  entrants=(Entrant("a", "Ann", "s1", 1), Entrant("b", "Bob", "s2", 2)))
>>> after, outcome = apply({"a": ann, "b": bob}, race)
>>> [(o.device, o.before, o.after) for o in outcome]
[('a', 1500, 1626), ('b', 1500, 1374)]
>>> after["a"].friends["b"].wins, after["b"].friends["a"].losses, shown(after["a"])
(1, 1, '1626?')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
from openskill.models import PlackettLuce

from race.rooms.record import Record

MODEL = PlackettLuce()  # the library's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
BASE, SCALE = 1500, 48  #: the rating shown: BASE + SCALE * (mu - 25)
PROVISIONAL = 10  #: races after which a rating is no longer provisional
HISTORY = 200  #: the points of a player's rating history kept (the newest)
FRIENDS = 500  #: the friends a player's standing keeps (the latest raced)


def points(mu: float) -> int:
    """The rating shown for a skill of mean ``mu``."""
    return round(BASE + SCALE * (mu - MODEL.mu))


class Point(msgspec.Struct, array_like=True, frozen=True):
    """One rated race in a player's history: when it started (server ms), the rating after
    it and its change, which race (room, round) and how it went (place, of how many)."""

    at: int
    rating: int
    change: int
    room: str
    round: int
    place: int
    field: int


class Friend(msgspec.Struct, kw_only=True):
    """Someone a player has raced: the name they last raced under, the races together, the
    wins against them (finished ahead) and losses (behind), and when they last raced (ms)."""

    name: str
    races: int = 0
    wins: int = 0
    losses: int = 0
    last: int = 0
    room: str = ""


class Standing(msgspec.Struct, kw_only=True):
    """A device's rating: the model's ``mu`` and ``sigma``, its rated races, the name it last
    raced under, its history (oldest first) and its friends (by device)."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    races: int = 0
    name: str = ""
    history: list[Point] = msgspec.field(default_factory=list)
    friends: dict[str, Friend] = msgspec.field(default_factory=dict)

    @property
    def rating(self) -> int:
        return points(self.mu)

    @property
    def provisional(self) -> bool:
        return self.races < PROVISIONAL


def shown(s: Standing) -> str:
    """The rating as a player reads it: ``1532``, or ``1532?`` while provisional."""
    return f"{s.rating}{'?' if s.provisional else ''}"


def summary(s: Standing | None) -> dict[str, Any]:
    """A rating as the API gives it (a device never rated has the starting one)."""
    s = s or Standing()
    return {"rating": s.rating, "provisional": s.provisional, "races": s.races}


def rating_view(standing: Standing | None) -> dict[str, Any]:
    """A device's rating and its history (oldest first), as ``/api/me`` carries it."""
    history = standing.history if standing else []
    return {
        **summary(standing),
        "history": [
            {"at": p.at, "rating": p.rating, "change": p.change, "room": p.room, "place": p.place, "field": p.field}
            for p in history
        ],
    }


class Entrant(msgspec.Struct, array_like=True, frozen=True):
    """A player of a rated race: their device, name, seat and place (1 is first; equal
    places are ties)."""

    device: str
    name: str
    seat: str
    place: int


class Outcome(msgspec.Struct, array_like=True, frozen=True):
    """What a rated race did to a device's rating (as shown) and its count of races."""

    device: str
    before: int
    after: int
    races: int


class RatedRace(msgspec.Struct, kw_only=True, frozen=True):
    """A race that counts, as its games on the record give it; ``key`` names it once
    (:func:`race_key`), ``at`` is its start (server ms). ``outcome``: once rated."""

    key: str
    at: int
    room: str
    round: int
    entrants: tuple[Entrant, ...]
    outcome: tuple[Outcome, ...] = ()


def race_key(room: str, round_: int, started: int) -> str:
    """The one name of a race: its room, round and start."""
    return f"{room}:{round_}:{started}"


def rated_race(records: Iterable[Record]) -> RatedRace | None:
    """The race that the games ``records`` (all of one race) make, if it counts: a race (not
    a daily attempt) played from two devices at least; each device once, by its best place."""
    best: dict[str, Record] = {}
    first: Record | None = None
    for r in records:
        if r.kind != "race" or not r.device or r.field < 2:
            continue
        first = first or r
        if r.device not in best or r.place < best[r.device].place:
            best[r.device] = r
    if first is None or len(best) < 2:
        return None
    entrants = sorted((Entrant(r.device, r.name, r.seat, r.place) for r in best.values()), key=_seat_order)
    return RatedRace(
        key=race_key(first.room, first.round, first.started),
        at=first.started,
        room=first.room,
        round=first.round,
        entrants=tuple(entrants),
    )


def _seat_order(e: Entrant) -> tuple[int, int, str]:
    return (e.place, int(e.seat[1:]) if e.seat[1:].isdigit() else 0, e.device)


def apply(standings: Mapping[str, Standing | None], race: RatedRace) -> tuple[dict[str, Standing], tuple[Outcome, ...]]:
    """Rate ``race``: the entrants' new standings (from ``standings``, by device: ``None`` or
    missing for a device never rated) and what it did to each."""
    before = {e.device: standings.get(e.device) or Standing() for e in race.entrants}
    teams = [[MODEL.rating(mu=before[e.device].mu, sigma=before[e.device].sigma)] for e in race.entrants]
    rated = MODEL.rate(teams, ranks=[float(e.place) for e in race.entrants])
    field = len(race.entrants)
    after: dict[str, Standing] = {}
    outcome = []
    for e, (new,) in zip(race.entrants, rated, strict=True):
        old = before[e.device]
        friends = dict(old.friends)
        for o in race.entrants:
            if o.device == e.device:
                continue
            f = friends.get(o.device) or Friend(name=o.name)
            friends[o.device] = Friend(
                name=o.name,
                races=f.races + 1,
                wins=f.wins + (e.place < o.place),
                losses=f.losses + (e.place > o.place),
                last=race.at,
                room=race.room,
            )
        if len(friends) > FRIENDS:
            friends = dict(sorted(friends.items(), key=lambda kv: -kv[1].last)[:FRIENDS])
        rating = points(new.mu)
        point = Point(race.at, rating, rating - old.rating, race.room, race.round, e.place, field)
        after[e.device] = Standing(
            mu=new.mu,
            sigma=new.sigma,
            races=old.races + 1,
            name=e.name,
            history=[*old.history, point][-HISTORY:],
            friends=friends,
        )
        outcome.append(Outcome(e.device, old.rating, rating, old.races + 1))
    return after, tuple(outcome)


def order(race: RatedRace) -> tuple[int, str, int]:
    """The order races are rated in from scratch: by their start. (Live, a race is rated when
    its games are on the record; the two agree for every player, whose races follow one
    another, unless one device raced in two rooms at once.)"""
    return (race.at, race.room, race.round)


STANDING = msgspec.json.Decoder(Standing)
RATED = msgspec.json.Decoder(RatedRace)
_enc = msgspec.json.Encoder()


def encode(obj: Standing | RatedRace) -> str:
    return _enc.encode(obj).decode()
