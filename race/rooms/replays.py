"""A game on the record as the replay page draws it (no I/O): the deal's board, then for each
action only what it changed, so the page steps forward and back by applying what it is told
and never needs the rules.

>>> from race.rooms.record import Record, Result
>>> rec = Record(id="x", deal=5, difficulty="easy", name="Ann", started=0,
...              acts=("p5>dC",), gaps=(900,), result=Result(home=9, moves=1))
>>> view = replay_view(rec)
>>> view["steps"][0]["piles"], view["steps"][0]["home"], view["steps"][0]["at"]
({'5': ['QH', '3D', '3S', '5D', 'TD']}, 9, 900)
"""

from __future__ import annotations

from typing import Any

from race.engine import Game
from race.rooms.practice import view as practice_view
from race.rooms.record import Record, daily_day, first_game, plays, steps
from race.rooms.standing import board


def replay_view(record: Record) -> dict[str, Any]:
    """The record for the page: who played what and how it ended, the board at the start,
    and each step's time (ms from the start), action, cards home, moves so far, and the
    piles (by index), foundations and shuffles left that changed. Raises
    :class:`race.rooms.record.RecordError` if the record does not replay."""
    before = board(first_game(record))
    start = {**before, "home": sum(f["count"] for f in before["foundations"].values())}
    out: list[dict[str, Any]] = []
    for step in steps(record):
        now = board(step.game)
        out.append({"at": step.at, **changed(before, now, step.act, step.game.cards_on_foundations)})
        before = now
    return {
        "id": record.id,
        "kind": record.kind,
        "deal": shown_deal(record),
        "difficulty": record.difficulty,
        "name": record.name,
        "room": record.room,
        "round": record.round,
        "seat": record.seat,
        "daily_date": daily_day(record),
        "known_deal": record.known_deal,
        **({"practice": practice_view(record.start)} if record.start is not None else {}),
        "started": record.started,
        "result": replay_result(record),
        "board": start,
        "steps": out,
    }


def changed(before: dict[str, Any], now: dict[str, Any], act: str, home: int) -> dict[str, Any]:
    """One step as the page applies it: its action, the cards home after it, and the piles (by
    index), foundations and shuffles left that it changed from board ``before`` to ``now``."""
    change: dict[str, Any] = {"act": act, "home": home}
    piles = {str(i): p for i, (p, q) in enumerate(zip(now["piles"], before["piles"], strict=True)) if p != q}
    if piles:
        change["piles"] = piles
    fnd = {k: v for k, v in now["foundations"].items() if v != before["foundations"][k]}
    if fnd:
        change["foundations"] = fnd
    if now["shuffles_left"] != before["shuffles_left"]:
        change["shuffles_left"] = now["shuffles_left"]
    return change


def line_view(game: Game, moves: list[str]) -> list[dict[str, Any]]:
    """A line of moves from ``game``'s position (not changed) as the page draws it: each move
    as :func:`changed` says, in order."""
    probe = game.copy()
    before = board(probe)
    out: list[dict[str, Any]] = []
    for move in moves:
        probe.play(move)
        now = board(probe)
        out.append(changed(before, now, move, probe.cards_on_foundations))
        before = now
    return out


def move_parts(game: Game, move: str) -> dict[str, str]:
    """What ``move`` does in ``game``'s position, for words: the card that moves (``card``) and
    where to (``to``: a foundation key, or a pile's key ``p3`` with the card it goes onto in
    ``onto``); ``{"to": "shuffle"}`` for the shuffle."""
    if move == "shuffle":
        return {"to": "shuffle"}
    source, target = move.split(">")
    b = board(game)
    card = b["piles"][int(source[1:])][-1] if source[0] == "p" else b["foundations"][source]["top"]
    parts = {"card": card, "to": target}
    if target[0] == "p":
        parts["onto"] = b["piles"][int(target[1:])][-1]
    return parts


def replay_result(record: Record) -> dict[str, Any]:
    """How the game on the record ended: its ``moves`` as the ranking counted them (the
    moves played, undone or not; counted from its actions, for a record kept when its
    result counted every action)."""
    r = record.result
    return {
        "home": r.home,
        "moves": plays(record.acts),
        "finished_ms": r.finished_ms,
        "resigned": r.resigned,
        "won": r.won,
        "hints": record.hints,
        "penalty_ms": record.penalty_ms,
    }


def shown_deal(record: Record) -> int | str | None:
    """The deal of a game on the record as it is shown: a daily deal's seed never (its
    ``daily_date`` names it), so no one deals that day's deal ahead."""
    return None if daily_day(record) is not None else record.deal
