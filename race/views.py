"""What clients are shown: the messages built from stored room documents (no I/O).

``player_view`` is one player as everyone sees them, ``state_view`` a player's own game
with its legal moves, ``room_view`` the whole room (every player's board included),
``presence_view`` who is connected to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from race.engine import Game
from race.ghosts import GHOSTS, ghost_results, ghost_view
from race.rooms import Meta, Seat, board, is_done, phase, progress, ranking, seat_key
from race.store import Doc

META = msgspec.json.Decoder(Meta)
SEAT = msgspec.json.Decoder(Seat)
Shown = tuple[dict[str, Any], dict[str, Any]]


def seats_of(docs: dict[str, Doc], meta: Meta) -> list[tuple[Seat, Game]]:
    """Each seat of the room, in seat order, with its game."""
    out = []
    for sid in meta.seats:
        seat = SEAT.decode(docs[seat_key(sid)].data)
        out.append((seat, Game.from_trusted_dict(seat.game)))
    return out


def player_view(seat: Seat, game: Game, version: int, shown: Shown | None = None) -> dict[str, Any]:
    """A player's progress and board (``shown``: ``progress()`` and ``board()`` of it, when
    already computed)."""
    prog, brd = shown or (progress(seat, game), board(game))
    return {**prog, "version": version, "board": brd}


def state_view(
    seat: Seat, game: Game, version: int, duplicate: bool = False, shown: Shown | None = None
) -> dict[str, Any]:
    """The full state of a player's own game, with the moves the server allows."""
    prog, brd = shown or (progress(seat, game), board(game))
    msg = {
        "type": "state",
        "version": version,
        **prog,
        "board": brd,
        "legal_moves": [str(m) for m in game.legal_moves()] if not is_done(seat) else [],
        "can_undo": seat.history > 0 and not is_done(seat),
    }
    if duplicate:
        msg["duplicate"] = True
    return msg


def room_view(docs: dict[str, Doc], now: int) -> dict[str, Any]:
    """The room's snapshot at server time ``now``."""
    meta = META.decode(docs["meta"].data)
    seats = seats_of(docs, meta)
    players = []
    for seat, game in seats:
        player = player_view(seat, game, docs[seat_key(seat.seat)].version)
        player["ready"] = seat.seat in meta.ready
        players.append(player)
    ghosts = GHOSTS.decode(docs["ghosts"].data) if "ghosts" in docs else []
    view = {
        "code": meta.code,
        "kind": meta.kind,
        "difficulty": meta.difficulty,
        "deal": meta.deal,
        "round": meta.round,
        "phase": phase(meta, now),
        "host": meta.host,
        "listed": meta.listed,
        "time_limit": meta.time_limit,
        "start_at": meta.start_at,
        "ended_at": meta.ended_at,
        "server_time": now,
        "players": players,
        "ranking": ranking(seats, ghost_results(ghosts)),
    }
    if ghosts:  # (only then: a room without ghosts reads as it always has)
        view["ghosts"] = [ghost_view(g) for g in ghosts]
    return view


def presence_view(
    version: int, listed: Iterable[str], watching: int, gone_at: Iterable[tuple[str, float]] = ()
) -> dict[str, Any]:
    """The ``presence`` message for a room's presence record: the seats with at least one
    open connection (from the members listed, ``"SEAT CONN"``), how many spectators, and
    since when (server milliseconds) each seat that went is away.

    >>> presence_view(4, ["s1 a", "s1 b", "s10 c", "s3 d"], 2, [("s2", 1795952760.5)])
    {'type': 'presence', 'version': 4, 'here': ['s1', 's3', 's10'], 'watching': 2, 'away_since': {'s2': 1795952760500}}
    """
    here = sorted({m.partition(" ")[0] for m in listed}, key=lambda s: (len(s), s))
    away = {seat: round(at * 1000) for seat, at in gone_at}
    return {"type": "presence", "version": version, "here": here, "watching": watching, "away_since": away}
