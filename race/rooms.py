"""Room logic without I/O: the stored shapes of a room and a seat, phases, progress, ranking.

A room is stored as documents: ``meta`` (a :class:`Meta`), one ``p:SEAT`` per player (a
:class:`Seat`, holding that player's whole game), and ``t:HASH`` token look-ups. The service
(:mod:`race.service`) reads them, applies the rules here and the engine's, and commits.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import msgspec

from race.engine import CARDS, FOUNDATIONS, Game

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: easy to read and type
CODE_LENGTH = 7
MAX_PLAYERS = 8
MAX_DEAL = 999_999_999


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
    status: str = "lobby"
    round: int = 1
    start_at: int | None = None
    ended_at: int | None = None
    seats: list[str] = msgspec.field(default_factory=list)
    ready: list[str] = msgspec.field(default_factory=list)
    kind: str = "race"  # or "daily": a solo attempt at a daily deal
    daily_date: str | None = None
    player: str | None = None  # the daily player's public id


class Seat(msgspec.Struct, kw_only=True):
    """One player's seat: name, game (the engine's saved form) and race record."""

    seat: str
    name: str
    game: dict[str, Any]
    moves: int = 0
    finished_ms: int | None = None
    resigned: bool = False
    last_id: str | None = None


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text: str) -> str:
    return text.strip().upper()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_key(token: str) -> str:
    """The document name under which a token's seat is found; the token itself is not kept."""
    return "t:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def random_deal() -> int:
    return secrets.randbelow(MAX_DEAL) + 1


def seat_key(seat: str) -> str:
    return "p:" + seat


def phase(meta: Meta, now: int) -> str:
    """lobby, countdown, racing or over, at server time ``now`` (ms). A daily attempt is
    started with no ``start_at``: its clock starts at the first move."""
    if meta.status == "started":
        if meta.start_at is None:
            return "racing"
        if now < meta.start_at:
            return "countdown"
        if meta.time_limit is not None and now >= meta.start_at + meta.time_limit * 1000:
            return "over"
        return "racing"
    return meta.status


def deadline(meta: Meta) -> int | None:
    """When a started race with a time limit ends (server ms)."""
    if meta.status != "started" or meta.time_limit is None or meta.start_at is None:
        return None
    return meta.start_at + meta.time_limit * 1000


def is_done(seat: Seat) -> bool:
    return seat.finished_ms is not None or seat.resigned


_CARD_TEXT = tuple(str(c) for c in CARDS)
# For each foundation: its key, and the text of its top card when it holds n cards (index n).
_FOUNDATION_TOPS = tuple(
    (key, ("", *(_CARD_TEXT[(f & 3) * 13 + (n - 1 if f < 4 else 13 - n)] for n in range(1, 14))))
    for f, key in enumerate(FOUNDATIONS)
)


def board(game: Game, piles: list[list[str]] | None = None) -> dict[str, Any]:
    """What a client draws: piles bottom to top, each foundation's top card and count.
    ``piles``: the piles as texts when already at hand (``game.to_dict()["piles"]``)."""
    text = _CARD_TEXT
    return {
        "piles": piles if piles is not None else [[text[c] for c in pile] for pile in game._piles],
        "foundations": {
            key: {"top": tops[n], "count": n} for (key, tops), n in zip(_FOUNDATION_TOPS, game._fnd, strict=True)
        },
        "shuffles_left": game.shuffles_left,
    }


def progress(seat: Seat, game: Game) -> dict[str, Any]:
    """What everyone in the room sees of a player."""
    return {
        "seat": seat.seat,
        "name": seat.name,
        "cards": game.cards_on_foundations,
        "moves": seat.moves,
        "shuffles_left": game.shuffles_left,
        "won": game.is_won,
        "stuck": game.is_stuck,
        "resigned": seat.resigned,
        "finished_ms": seat.finished_ms,
    }


def ranking(seats: list[tuple[Seat, Game]]) -> list[dict[str, Any]]:
    """Finishers by time (then moves, then seat order); then everyone else by cards on the
    foundations (more is better; then fewer moves)."""
    order = {s.seat: i for i, (s, _) in enumerate(seats)}

    def key(item: tuple[Seat, Game]) -> tuple[Any, ...]:
        s, g = item
        if s.finished_ms is not None:
            return (0, s.finished_ms, s.moves, order[s.seat])
        return (1, -g.cards_on_foundations, s.moves, order[s.seat])

    ranked = sorted(seats, key=key)
    return [
        {
            "place": i + 1,
            "seat": s.seat,
            "name": s.name,
            "finished_ms": s.finished_ms,
            "cards": g.cards_on_foundations,
            "moves": s.moves,
            "resigned": s.resigned,
        }
        for i, (s, g) in enumerate(ranked)
    ]
