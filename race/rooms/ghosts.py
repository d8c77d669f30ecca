"""Ghosts: past games on the record raced again (no I/O). A ghost is a rival whose every
action is already known: its cards home and moves at each time from the race's start, and
how its game ended. The room keeps its ghosts in a ``ghosts`` document; clients get their
timelines once, in the ``room`` snapshot, and show each ghost's progress at the server's
time, so a ghost moves as a live rival would with no message per move.

>>> from race.rooms.record import Record, Result
>>> rec = Record(id="r1", deal=5, difficulty="easy", name="Ann", started=0,
...              acts=("p5>dC", "undo"), gaps=(900, 400), result=Result(home=8, moves=1))
>>> g = ghost_of(rec, "g1")
>>> g.at, g.home, g.moves, at_time(g, 1000), at_time(g, 2000)
([900, 1300], [9, 8], [1, 1], (9, 1), (8, 1))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from race.engine import Game
from race.rooms.record import RESTART, UNDO, Record, RecordError, steps
from race.rooms.standing import penalised

MAX_GHOSTS = 7  # a room of 8: one player and up to seven ghosts


class GhostError(ValueError):
    """Games that cannot be raced together (or at all)."""


class Ghost(msgspec.Struct, kw_only=True):
    """One game to race again: who played it, its record id, each action's time (ms from
    the start) and the cards home and moves played after it (undo and restart are no
    moves, as the ranking counts them), and its result."""

    seat: str
    name: str
    record: str
    at: list[int]
    home: list[int]
    start_home: int
    finished_ms: int | None = None
    resigned: bool = False
    hints: int = 0
    penalty_ms: int = 0  # what its hints added to its finish time, as its race ranked it
    moves: list[int] | None = None  # (None: a ghost kept before they were, counted by actions)

    def moves_after(self, n: int) -> int:
        """The moves played in the ghost's first ``n`` actions."""
        if not n:
            return 0
        return self.moves[n - 1] if self.moves is not None else n


GHOSTS = msgspec.json.Decoder(list[Ghost])
_enc = msgspec.json.Encoder()


def ghost_of(record: Record, seat: str) -> Ghost:
    """``record`` as ghost ``seat`` (replayed through the engine: raises RecordError if it
    does not replay)."""
    at: list[int] = []
    home: list[int] = []
    moves: list[int] = []
    for step in steps(record):
        at.append(step.at)
        home.append(step.game.cards_on_foundations)
        moves.append((moves[-1] if moves else 0) + (step.act not in (UNDO, RESTART)))
    start = Game.deal(record.deal, record.difficulty).cards_on_foundations
    r = record.result
    return Ghost(
        seat=seat,
        name=record.name,
        record=record.id,
        at=at,
        home=home,
        start_home=start,
        finished_ms=r.finished_ms,
        resigned=r.resigned,
        moves=moves,
        hints=record.hints,
        penalty_ms=record.penalty_ms,
    )


def ghosts_of(records: Sequence[Record]) -> tuple[int | str, str, list[Ghost]]:
    """The deal, difficulty and ghosts (``g1``, ``g2``…) of games to race together: all of
    one deal and difficulty. Raises :class:`GhostError` saying why not."""
    if not records:
        raise GhostError("name at least one game to race")
    if len(records) > MAX_GHOSTS:
        raise GhostError(f"at most {MAX_GHOSTS} ghosts may race in a room")
    first = records[0]
    if any((r.deal, r.difficulty) != (first.deal, first.difficulty) for r in records):
        raise GhostError("ghosts race together only on one deal and difficulty")
    try:
        return first.deal, first.difficulty, [ghost_of(r, f"g{i}") for i, r in enumerate(records, 1)]
    except RecordError as exc:
        raise GhostError(f"a game on the record does not replay: {exc}") from None


def encode_ghosts(ghosts: list[Ghost]) -> str:
    return _enc.encode(ghosts).decode()


def at_time(ghost: Ghost, elapsed: int) -> tuple[int, int]:
    """The ghost's cards home and moves ``elapsed`` ms after the start."""
    n = 0
    while n < len(ghost.at) and ghost.at[n] <= elapsed:
        n += 1
    return (ghost.home[n - 1] if n else ghost.start_home), ghost.moves_after(n)


def ghost_view(ghost: Ghost) -> dict[str, Any]:
    """What a client gets of a ghost: its timeline and result, to show it at any time."""
    return {
        "seat": ghost.seat,
        "name": ghost.name,
        "record": ghost.record,
        "at": ghost.at,
        "home": ghost.home,
        "start_home": ghost.start_home,
        "finished_ms": ghost.finished_ms,
        "resigned": ghost.resigned,
        "moves": [ghost.moves_after(n) for n in range(1, len(ghost.at) + 1)],
        "hints": ghost.hints,
        "penalty_ms": ghost.penalty_ms,
    }


def ghost_results(ghosts: Sequence[Ghost]) -> list[dict[str, Any]]:
    """The ghosts as the ranking counts them: each by its whole game (the mark to beat is
    its finish time with its hints' penalty, as its race ranked it; one that did not
    finish, by the cards it ended with)."""
    return [
        {
            "seat": g.seat,
            "name": g.name,
            "finished_ms": g.finished_ms,
            "finished": g.finished_ms is not None,
            "cards": g.home[-1] if g.home else g.start_home,
            "moves": g.moves_after(len(g.at)),
            "resigned": g.resigned,
            "ghost": True,
            **penalised(g.finished_ms, g.hints, g.penalty_ms),
        }
        for g in ghosts
    ]
