"""A game on the record: every action the server accepted, with the server's time, and its
check by replay. Pure: no I/O; the service writes records and the store keeps them.

An action is a move's text (``p3>uH``, ``p3>p12``, ``dH>p5``, ``shuffle``), ``undo`` or
``restart``; ``gaps[i]`` is the milliseconds from the action before it (from the start for the
first). A record is kept only if replaying its actions through the engine from its deal gives
the result it claims (:func:`check`).

>>> rec = Record(id="x", deal=5, difficulty="easy", name="Ann", started=0,
...              acts=("p5>dC", "undo"), gaps=(900, 400), result=Result(home=8, moves=1))
>>> check(rec).cards_on_foundations
8
>>> check(msgspec.structs.replace(rec, acts=("p0>p1", "undo")))
Traceback (most recent call last):
  ...
race.rooms.record.RecordError: action 1 (p0>p1): illegal move p0>p1: 9D does not fit on JS (same suit, one rank apart)
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import msgspec

from race.engine import Game, IllegalMove, InvalidMove

FORMAT = 1
UNDO, RESTART = "undo", "restart"


class RecordError(ValueError):
    """A record that its own actions do not bear out."""


class Result(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """How the game ended (or stood when the record was written): cards on the foundations,
    moves played (undone or not, as the ranking counts them: :func:`plays`), the finish
    time (ms from the start) when won, and whether the player resigned."""

    home: int
    moves: int
    finished_ms: int | None = None
    resigned: bool = False

    @property
    def won(self) -> bool:
        return self.finished_ms is not None


class Start(msgspec.Struct, kw_only=True, frozen=True):
    """Where a practice game starts (:mod:`race.rooms.practice`): step ``step`` of game
    ``replay`` on the record, played by ``name``; ``position`` is the engine's saved form of
    the game there (without its history), which the server worked out itself by replaying
    that game. A practice game's restart comes back here, not to the deal."""

    replay: str
    step: int
    name: str
    position: dict[str, Any]

    def game(self) -> Game:
        """A new game at this position, with no history (so no undo goes back past it). The
        position is the server's own (the engine's saved form of a game it replayed), read
        as such: a history of none is no account of the shuffles already spent."""
        return Game.from_trusted_dict(self.position)


class Record(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """One player's game: the deal, who played it, where, and every action with its time.

    ``started`` is the server's clock (epoch ms) at the race's start; ``room``, ``round`` and
    ``seat`` say which race and player it was (a daily attempt's room too); ``kind`` is
    ``race``, ``daily`` or ``practice`` (a solo game from a step of another game: ``start``
    says which, and its actions are replayed from there)."""

    id: str
    deal: int | str
    difficulty: str
    name: str
    started: int
    acts: tuple[str, ...]
    gaps: tuple[int, ...]
    result: Result
    kind: str = "race"
    room: str = ""
    round: int = 1
    seat: str = ""
    daily_date: str | None = None
    known_deal: bool = False  # the deal was chosen (or raced again), not drawn at random
    #: Who played it, for their own history (a hash of their device key; never shown), and
    #: how the race came out for them: place, of how many, and the players they finished
    #: ahead of (``beat``) and behind (``behind``).
    device: str = ""
    place: int = 0
    field: int = 0
    beat: tuple[str, ...] = ()
    behind: tuple[str, ...] = ()
    #: Hints the player was shown, and what they added to the finish time the race ranked.
    hints: int = 0
    penalty_ms: int = 0
    start: Start | None = None
    format: int = FORMAT

    @property
    def times(self) -> list[int]:
        """Each action's time, in ms from the start."""
        out, t = [], 0
        for gap in self.gaps:
            t += gap
            out.append(t)
        return out


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(Record)


def encode(record: Record) -> bytes:
    """The stored form: compact JSON (a game of 150 actions is about 2.2 KB: `python -m race bench-records`)."""
    return _ENCODER.encode(record)


def decode(data: bytes | str) -> Record:
    """A stored record; ``RecordError`` for data of another shape."""
    try:
        return _DECODER.decode(data)
    except msgspec.DecodeError as exc:
        raise RecordError(f"not a game record: {exc}") from None


def utc_date(ms: int) -> str:
    """The UTC date (YYYY-MM-DD) of server time ``ms``: the daily challenge's day."""
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).date().isoformat()


def daily_day(record: Record) -> str | None:
    """The day of the daily deal ``record`` was played on (an attempt, or a race on that
    deal: its seed names the day), or None."""
    if record.daily_date:
        return record.daily_date
    if isinstance(record.deal, str) and record.deal.startswith("daily:"):
        return record.deal.split(":")[1]
    return None


def kept_back(record: Record, today: str) -> bool:
    """Whether ``record`` is a game of a daily deal whose day is not over yet (``today``: the
    UTC date): such a game shows the deal's line, so no one may watch or race it (but a
    player already on that day's board: see :func:`race.service.players.ranked_on`)."""
    day = daily_day(record)
    return day is not None and day >= today


def new_id() -> str:
    """A record's id: 12 URL-safe characters, hard to guess."""
    return secrets.token_urlsafe(9)


def gaps_of(times: list[int]) -> tuple[int, ...]:
    """Gaps between action times (ms from the start, non-decreasing)."""
    return tuple(b - a for a, b in zip([0, *times], times, strict=False))


class Step(NamedTuple):
    """The game after an action: its number (1 is the first), time (ms from the start),
    the action, and the game (the same object, advanced: copy it to keep it)."""

    number: int
    at: int
    act: str
    game: Game


def steps(record: Record) -> Iterator[Step]:
    """The game after each action, in order. Raises :class:`RecordError` at the first action
    the engine refuses."""
    if record.format != FORMAT:
        raise RecordError(f"not a game record of format {FORMAT}")
    if len(record.acts) != len(record.gaps):
        raise RecordError(f"{len(record.acts)} actions but {len(record.gaps)} times")
    if any(gap < 0 for gap in record.gaps):
        raise RecordError("action times must not go back")
    game = first_game(record)
    at = 0
    for i, (act, gap) in enumerate(zip(record.acts, record.gaps, strict=True), 1):
        at += gap
        try:
            if act == UNDO:
                game.undo()
            elif act == RESTART:
                game = first_game(record)
            else:
                game.play(act)
        except (IllegalMove, InvalidMove) as exc:
            raise RecordError(f"action {i} ({act}): {exc}") from None
        yield Step(i, at, act, game)


def first_game(record: Record) -> Game:
    """The game as the record's player found it: the deal, or a practice game's start."""
    try:
        if record.start is not None:
            return record.start.game()
        return Game.deal(record.deal, record.difficulty)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise RecordError(f"bad deal or start: {exc!r}") from None


def replay(record: Record) -> Game:
    """The game at the end of the record."""
    game = None
    for step in steps(record):
        game = step.game
    return game if game is not None else first_game(record)


def plays(acts: Sequence[str]) -> int:
    """The moves among ``acts``, undone or not: what the ranking counts (``undo`` and
    ``restart`` are no moves).

    >>> plays(["p5>dC", "undo", "p5>dC", "restart", "shuffle"])
    3
    """
    return sum(1 for act in acts if act != UNDO and act != RESTART)


def check(record: Record) -> Game:
    """Replay the record and check that it gives the result it claims; return the final game.
    Raises :class:`RecordError` otherwise."""
    game = replay(record)
    result = record.result
    if result.moves != plays(record.acts):
        raise RecordError(f"the result says {result.moves} moves, the record holds {plays(record.acts)}")
    if result.home != game.cards_on_foundations:
        raise RecordError(f"the result says {result.home} cards home, the replay has {game.cards_on_foundations}")
    if result.won != game.is_won:
        raise RecordError("the result and the replay disagree on the win")
    if result.won and (result.finished_ms != sum(record.gaps) or result.resigned):
        raise RecordError("a won game finishes at its last action, unresigned")
    return game
