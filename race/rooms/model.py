"""Room logic without I/O: the stored shapes of a room and a seat, phases, and the rules of a
move's bookkeeping (what a game shows and how a race ranks: :mod:`race.rooms.standing`).

A room is stored as documents: ``meta`` (a :class:`Meta`), one ``p:SEAT`` per player (a
:class:`Seat`: that player's race record and game position), the game's undo history in
``h:SEAT:N`` documents of :data:`HISTORY_CHUNK` moves each, the game's record (every action
the server accepted, with its time: see :func:`note_action`) in ``h:SEAT:aN`` documents of
:data:`ACTS_CHUNK` actions each, and ``t:HASH`` token look-ups.
The service (:mod:`race.service`) reads them, applies the rules here and the engine's, and
commits.

The history is kept apart so that a move's cost does not grow with the game: a move writes
the seat and the one history document its move went into (at most :data:`HISTORY_CHUNK`
moves), an undo or a restart only the seat, whose ``history`` count says how many of the
stored moves are the game's (the rest of a document, left over from moves since undone,
is ignored and overwritten by later moves). The store keeps the history documents aside
(:data:`race.store.base.ASIDE`), so reading a room for its views does not read them.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

import msgspec

from race.engine import Game
from race.rooms.errors import Refused
from race.rooms.record import Record, Result, Start, gaps_of, plays
from race.rooms.series import Series
from race.store.base import ASIDE

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: easy to read and type
CODE_LENGTH = 7
MAX_PLAYERS = 8
MAX_DEAL = 999_999_999
HISTORY_CHUNK = 50  # moves per history document
ACTS_CHUNK = 8  # actions per acts document (the seat holds the latest, fewer, itself: it stays small)
_HISTORY = msgspec.json.Decoder(list[str])
_ACTS = msgspec.json.Decoder(list[tuple[str, int]])
_enc = msgspec.json.Encoder()


class Status(StrEnum):
    """A room's lifecycle: its lobby, a race started (counting down, then running), over."""

    LOBBY = "lobby"
    STARTED = "started"
    OVER = "over"


class Ended(StrEnum):
    """How a race ended: every player finished or resigned (``done``), its time limit ran
    out (``time``), a player ended it while every other player still racing was away
    (``end``), or every player still racing who was here asked to end it (``vote``)."""

    DONE = "done"
    TIME = "time"
    END = "end"
    VOTE = "vote"


class Kind(StrEnum):
    """A room is a race, one player's attempt at a daily deal, one player's tutorial
    (:mod:`race.rooms.tutorial`: never on the record, nor listed), or one player's practice
    from a step of a game on the record (:mod:`race.rooms.practice`)."""

    RACE = "race"
    DAILY = "daily"
    TUTORIAL = "tutorial"
    PRACTICE = "practice"


class Meta(msgspec.Struct, kw_only=True):
    """The room: its settings, lifecycle and seats. ``status`` is lobby, started or over;
    while started, the phase is a countdown until ``start_at`` (server ms)."""

    code: str
    difficulty: str
    deal: int | str
    host: str
    created: int
    listed: bool = True
    time_limit: int | None = None
    status: Status = Status.LOBBY
    round: int = 1
    start_at: int | None = None
    ended_at: int | None = None
    seats: list[str] = msgspec.field(default_factory=list)
    last_seat: int = 0  # the highest seat number handed out: a seat given up is never reused
    ready: list[str] = msgspec.field(default_factory=list)
    kind: Kind = Kind.RACE
    daily_date: str | None = None
    player: str | None = None  # the daily player's public id
    known_deal: bool = False  # the deal was chosen (a number, a game raced again), not drawn
    spectator_delay: int = 0  # seconds the spectators' view runs behind the race
    #: Hints in this room (:mod:`race.rooms.hints`): off, a time penalty per hint, or free.
    hints: str = "penalty"
    hint_penalty_ms: int = 15_000  # added to a finish time per hint shown, when hints cost
    series: Series = msgspec.field(default_factory=Series)  # its rounds (race.rooms.series)
    #: How the race ended (:class:`Ended`), once it is over; None before (and for a race
    #: whose time ran out before anything wrote its end: see :func:`ended_by`).
    ended_by: str | None = None
    #: A practice room's start (kind ``practice``): the game and step it plays on from, and
    #: the position there, to which its restart comes back.
    practice: Start | None = None


class Seat(msgspec.Struct, kw_only=True):
    """One player's seat: name, game position (the engine's saved form, without its
    history), the length of the game's history (see :func:`history_keys`), race result, the
    actions for its record (``acts``, the latest ones, with ``logged`` more in documents: see
    :func:`note_action`)."""

    seat: str
    name: str
    game: dict[str, Any]
    history: int = 0
    moves: int = 0
    finished_ms: int | None = None
    resigned: bool = False
    last_id: str | None = None
    acts: list[tuple[str, int]] = msgspec.field(default_factory=list)
    logged: int = 0
    device: str = ""  # the player's device (:func:`device_id`): their games are listed under it
    #: The player left the room after its race was over: the seat stays in that race's
    #: results, its token opens the room no more, and the next round has no such seat.
    left: bool = False
    #: Hints shown (counted by the server: :mod:`race.rooms.hints`); the actions taken when
    #: the last one was (asked again before another action, it is shown free); and the
    #: seat's version it was asked at (a move sent on that version is not stale).
    hints: int = 0
    hint_act: int = -1
    hint_version: int = -1
    #: The player, still racing, asks to end the race (``vote_end``): withdrawn by their
    #: next move, undo or restart, and by going out of the race. See :func:`vote_carries`.
    end_vote: bool = False
    #: When the player's last accepted action was (a move, an undo, a restart), in ms from
    #: the start as ``finished_ms`` and the acts; None before the first. See :func:`race.rooms.away.idle_at`.
    last_at: int | None = None
    #: The most cards the player has had home this round (past the deal's 8 bases), and when
    #: that last rose (ms from the start; None before): moving cards to and fro adds nothing.
    best: int = 0
    best_at: int | None = None


#: The stored documents' decoders: a room's ``meta`` and a ``p:SEAT`` document.
META = msgspec.json.Decoder(Meta)
SEAT = msgspec.json.Decoder(Seat)


def last_seat(meta: Meta) -> int:
    """The highest seat number the room has handed out (rooms from before ``last_seat``
    was kept: the highest seated)."""
    return max(meta.last_seat, *(int(sid[1:]) for sid in meta.seats), 0)


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text: str) -> str:
    return text.strip().upper()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def device_id(key: str | None) -> str:
    """What the server keeps of a page's device key: a hash, so the store never holds the
    key that reads the player's games ("" for none)."""
    return hashlib.sha256(key.encode()).hexdigest()[:32] if key else ""


def token_key(token: str) -> str:
    """The document name under which a token's seat is found; the token itself is not kept."""
    return "t:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def random_deal() -> int:
    return secrets.randbelow(MAX_DEAL) + 1


def seat_key(seat: str) -> str:
    return "p:" + seat


def history_key(seat: str, chunk: int) -> str:
    """The document holding a seat's history from move ``chunk * HISTORY_CHUNK`` on (kept
    aside by the store: read by name only)."""
    return f"{ASIDE}{seat}:{chunk}"


def history_keys(seat: Seat) -> list[str]:
    """The documents that hold ``seat``'s history, oldest first (none for no history)."""
    return [history_key(seat.seat, k) for k in range(-(-seat.history // HISTORY_CHUNK))]


def history_of(seat: Seat, chunks: Sequence[str | None]) -> list[str]:
    """``seat``'s history (move texts, oldest first) from the data of the documents named by
    :func:`history_keys`, in that order. Raises ``ValueError`` when some are missing."""
    history: list[str] = []
    for data in chunks:
        if data is None:
            raise ValueError(f"seat {seat.seat}: a history document is missing")
        history += _HISTORY.decode(data)
    if len(history) < seat.history:
        raise ValueError(f"seat {seat.seat}: {seat.history} moves of history, {len(history)} stored")
    del history[seat.history :]
    return history


def save_game(seat: Seat, game: Game, played: bool) -> dict[str, str]:
    """Put ``game`` (the seat's game, with its whole history) in ``seat``, and return the
    history document to write with it: the one holding the last move when ``played`` (the
    game's last action was a play), else none."""
    seat.game = game.to_dict(history=False)
    n = seat.history = len(game.move_stack)
    if not played:
        return {}
    k = (n - 1) // HISTORY_CHUNK
    return {history_key(seat.seat, k): _enc.encode(game.history_texts(k * HISTORY_CHUNK)).decode()}


def acts_key(seat: str, chunk: int) -> str:
    """The document holding a seat's actions from action ``chunk * ACTS_CHUNK`` on (aside)."""
    return f"{ASIDE}{seat}:a{chunk}"


def acts_keys(seat: Seat) -> list[str]:
    """The documents holding ``seat``'s earlier actions, oldest first."""
    return [acts_key(seat.seat, k) for k in range(seat.logged // ACTS_CHUNK)]


def note_action(seat: Seat, action: str, at: int) -> dict[str, str]:
    """Note in ``seat`` an action the server accepted (a move's text, ``undo`` or ``restart``)
    at ``at`` ms from the start, and return the document to write with it: the seat keeps
    the latest actions itself and, every :data:`ACTS_CHUNK` of them, hands them over to a
    document of their own, so that an action costs the same however long the game."""
    seat.acts.append((action, at))
    if len(seat.acts) < ACTS_CHUNK:
        return {}
    chunk, seat.acts = seat.acts, []
    seat.logged += len(chunk)
    return {acts_key(seat.seat, seat.logged // ACTS_CHUNK - 1): _enc.encode(chunk).decode()}


def actions_of(seat: Seat, chunks: Sequence[str | None]) -> list[tuple[str, int]]:
    """Every action of ``seat`` with its time (ms from the start), oldest first, from the
    data of the documents named by :func:`acts_keys` (in that order) and the seat. Raises
    ``ValueError`` when some are missing."""
    acts: list[tuple[str, int]] = []
    for data in chunks:
        if data is None:
            raise ValueError(f"seat {seat.seat}: an acts document is missing")
        acts += _ACTS.decode(data)
    return acts + seat.acts


def record_of(meta: Meta, seat: Seat, game: Game, chunks: Sequence[str | None], rid: str) -> Record:
    """``seat``'s game on the record, from the data of the documents named by
    :func:`acts_keys` (in that order) and the seat; ``game`` is the game as it stands.
    Raises ``ValueError`` when some are missing."""
    acts = actions_of(seat, chunks)
    result = Result(
        home=game.cards_on_foundations,
        moves=plays([a for a, _ in acts]),
        finished_ms=seat.finished_ms,
        resigned=seat.resigned,
    )
    return Record(
        id=rid,
        deal=meta.deal,
        difficulty=meta.difficulty,
        name=seat.name,
        started=meta.start_at or 0,
        acts=tuple(a for a, _ in acts),
        gaps=gaps_of([t for _, t in acts]),
        result=result,
        kind=meta.kind,
        room=meta.code,
        round=meta.round,
        seat=seat.seat,
        device=seat.device,
        daily_date=meta.daily_date,
        known_deal=meta.known_deal,
        hints=seat.hints,
        penalty_ms=seat.hints * hint_penalty(meta),
        start=meta.practice,
    )


def hint_penalty(meta: Meta) -> int:
    """What one hint adds to a finish time (ms) in ``meta``'s room: its penalty when hints
    cost there (:mod:`race.rooms.hints`), else 0."""
    return meta.hint_penalty_ms if meta.hints == "penalty" else 0


def phase(meta: Meta, now: int) -> str:
    """lobby, countdown, racing or over, at server time ``now`` (ms). A daily attempt is
    started with no ``start_at``: its clock starts at the first move."""
    if meta.status is Status.STARTED:
        if meta.start_at is None:
            return "racing"
        if now < meta.start_at:
            return "countdown"
        if meta.time_limit is not None and now >= meta.start_at + meta.time_limit * 1000:
            return Status.OVER
        return "racing"
    return meta.status


def ended_by(meta: Meta, now: int) -> str | None:
    """How the race ended (:class:`Ended`) at server time ``now``; None while it has not."""
    if meta.ended_by is not None:
        return meta.ended_by
    return Ended.TIME if meta.status is Status.STARTED and phase(meta, now) == Status.OVER else None


def is_done(seat: Seat) -> bool:
    return seat.finished_ms is not None or seat.resigned


FINISHED = "you have finished this race"


def not_out(seat: Seat) -> None:
    """Refuse a race action of a player who has finished or resigned."""
    if seat.finished_ms is not None:
        raise Refused("finished", FINISHED)
    if seat.resigned:
        raise Refused("resigned", "you resigned from this race")


def take_move(
    meta: Meta, seat: Seat, game: Game, action: str, now: int, *, played: bool, move_id: str | None
) -> tuple[dict[str, str], bool]:
    """Bring ``seat`` up to what the engine just did to its ``game`` at server time ``now``:
    ``action``, a move's text (``played``), ``undo`` or ``restart``. A move is counted; the
    action's id is kept (a retry of it is answered, not played again); a daily attempt's
    clock starts at its first action (``meta.start_at``); a win takes its time; the action
    is noted for the record, its time as the seat's ``last_at`` (and ``best_at`` when it
    brought more cards home than ever this round), and the game saved. Returns
    the documents to write with the seat (see :func:`note_action` and :func:`save_game`), and
    whether the clock started."""
    if played:
        seat.moves += 1
    seat.last_id = move_id
    seat.end_vote = False  # playing on: no longer asking to end the race
    clock_starts = meta.start_at is None
    if meta.start_at is None:
        meta.start_at = now
    if game.is_won:
        seat.finished_ms = now - meta.start_at
    seat.last_at = now - meta.start_at
    if game.cards_on_foundations > max(seat.best, 8):  # (the 8 bases are home at the deal)
        seat.best, seat.best_at = game.cards_on_foundations, seat.last_at
    write = note_action(seat, action, seat.last_at)
    write.update(save_game(seat, game, played=played))
    return write, clock_starts
