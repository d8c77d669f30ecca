"""What clients are shown: the messages built from stored room documents (no I/O).

``player_view`` is one player as the room sees them, ``state_view`` a player's own game
with its legal moves, ``room_view`` the whole room, ``presence_view`` who is connected to it.

What is secret, and until when (see ``docs/protocol.md``): before the race starts, no board
and no deal number reaches anyone (a board's cards are :data:`HIDDEN`); while it runs, the
players see each other's progress but not their boards, and the spectators see the boards
(of a race, not of a daily attempt, whose deal everyone plays that day), and whoever does
not see a board does not see the moves that drew it either (:func:`action_kind`); once it
is over, everyone sees everything. A deal number is shown before the end only when it was chosen
(``known_deal``), never a daily deal's seed. :func:`room_message` and :func:`player_message`
are the published envelopes, with one text for players and one for spectators (:mod:`race.wire.envelope`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from race.engine import Game
from race.rooms import hints, practice, series, tutorial
from race.rooms.away import ends_from, host_from, idle_seats
from race.rooms.ghosts import GHOSTS, ghost_results, ghost_view
from race.rooms.model import META, SEAT, Kind, Meta, Seat, ended_by, is_done, phase, seat_key
from race.rooms.standing import board, progress, ranking
from race.store import Doc
from race.wire import envelope
from race.wire.envelope import Envelope, Timers

Shown = tuple[dict[str, Any], dict[str, Any]]
HIDDEN = "??"  # a card not shown yet (before the start)
SECRET = ("lobby", "countdown")  # the phases in which every board is hidden
_enc = msgspec.json.Encoder()


def hidden_board(game: Game) -> dict[str, Any]:
    """``game``'s board before the start: every pile's cards face down. (The foundations
    start alike in every deal, with the aces and kings, so they show.)"""
    shown = board(game)
    shown["piles"] = [[HIDDEN] * len(pile) for pile in shown["piles"]]
    return shown


def shown_deal(meta: Meta, ph: str) -> int | str | None:
    """The deal number the room's views show in phase ``ph``: a chosen one at once, a random
    one once the race is over, a daily deal's seed never."""
    if meta.kind is Kind.DAILY or isinstance(meta.deal, str):  # (a race on a daily deal too)
        return None
    return meta.deal if meta.known_deal or ph == "over" else None


def boards_shown(meta: Meta, ph: str, spectator: bool) -> bool:
    """Whether the room's views show its players' boards (outside the secret phases, in
    which every board is hidden) to a player, or to a ``spectator``."""
    return ph == "over" or (spectator and meta.kind is Kind.RACE)


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


def player_message(
    meta: Meta, seat: Seat, game: Game, version: int, action: str, shown: Shown, ph: str = "racing"
) -> Envelope:
    """The ``player`` broadcast of an action during the race (phase ``ph``; a resignation
    may come in the countdown): the player's progress, and for those who see boards
    (:func:`boards_shown`: the spectators of a race, never anyone but the player during a
    daily attempt; nobody before the start) its board and the action's text; the others get
    only what kind of action it was (:func:`action_kind`), since a rival's moves from the
    opening would draw their board."""
    view = player_view(seat, game, version, shown)
    full = _enc.encode({"type": "player", "player": view, "action": action})
    del view["board"]
    blind = _enc.encode({"type": "player", "player": view, "action": action_kind(action)})
    secret = ph in SECRET
    players = full if not secret and boards_shown(meta, ph, spectator=False) else blind
    return envelope.news(players, full if not secret and boards_shown(meta, ph, spectator=True) else blind)


def action_kind(action: str) -> str:
    """What an action is, without what it played: ``move`` for a move's text, ``undo`` for
    ``undo MOVE``, and the others as they are (``restart``, ``resign``, ``vote_end``...).

    >>> action_kind("p3>uH"), action_kind("shuffle"), action_kind("undo p3>uH"), action_kind("restart")
    ('move', 'move', 'undo', 'restart')
    """
    if action.startswith("undo"):
        return "undo"
    return "move" if ">" in action or action == "shuffle" else action


def state_view(
    seat: Seat,
    game: Game,
    version: int,
    duplicate: bool = False,
    shown: Shown | None = None,
    *,
    hidden: bool = False,
) -> dict[str, Any]:
    """The full state of a player's own game, with the moves the server allows; ``hidden``
    (before the start): its cards face down and no move allowed. A tutorial's game says
    where it stands in the lessons (``lesson``), and offers only what they allow."""
    if hidden:
        prog, brd = progress(seat, game), hidden_board(game)
    else:
        prog, brd = shown or (progress(seat, game), board(game))
    closed = hidden or is_done(seat)
    lessons = tutorial.is_tutorial(game)
    legal = tutorial.offered(game, seat.history) if lessons else [str(m) for m in game.legal_moves()]
    msg = {
        "type": "state",
        "version": version,
        **prog,
        "board": brd,
        "legal_moves": [] if closed else legal,
        "can_undo": seat.history > 0 and not closed,
    }
    if lessons:
        msg["lesson"] = tutorial.lesson(game, seat.history)
    if duplicate:
        msg["duplicate"] = True
    return msg


def room_view(docs: dict[str, Doc], now: int, *, spectator: bool = False) -> dict[str, Any]:
    """The room's snapshot at server time ``now``, as a player or a ``spectator`` sees it."""
    meta = META.decode(docs["meta"].data)
    ph = phase(meta, now)
    secret, boards = ph in SECRET, boards_shown(meta, ph, spectator)
    seats = seats_of(docs, meta)
    players = []
    for seat, game in seats:
        player = {**progress(seat, game), "version": docs[seat_key(seat.seat)].version}
        if secret:
            player["board"] = hidden_board(game)
        elif boards:
            player["board"] = board(game)
        player["ready"] = seat.seat in meta.ready
        players.append(player)
    ghosts = GHOSTS.decode(docs["ghosts"].data) if "ghosts" in docs else []
    view: dict[str, Any] = {
        "code": meta.code,
        "kind": meta.kind,
        "difficulty": meta.difficulty,
        "deal": shown_deal(meta, ph),
        "known_deal": meta.known_deal,
        "round": meta.round,
        "phase": ph,
        "host": meta.host,
        "listed": meta.listed,
        "time_limit": meta.time_limit,
        "spectator_delay": meta.spectator_delay,
        **hints.rule_view(meta),
        "start_at": meta.start_at,
        "ended_at": meta.ended_at,
        "ended_by": ended_by(meta, now),
        "server_time": now,
        "players": players,
        "ranking": ranking(seats, ghost_results(ghosts), hint_penalty_ms=hints.penalty_ms(meta)),
    }
    daily_deal = meta.deal if isinstance(meta.deal, str) and meta.deal.startswith("daily:") else None
    day = meta.daily_date or (daily_deal.split(":")[1] if daily_deal else None)
    if day is not None:  # (a daily deal: its day, not its seed)
        view["daily_date"] = day
    if meta.practice is not None:
        view["practice"] = practice.view(meta.practice)
    if ghosts:  # (only then: a room without ghosts reads as it always has)
        view["ghosts"] = [ghost_view(g) for g in ghosts]
    if meta.kind is Kind.RACE:
        current = series.round_over(meta.round, view["ranking"], {}) if ph == "over" else None
        seated = [(s.seat, s.name) for s, _ in seats if not s.left]
        view["series"] = series.view(meta.series, current, meta.round, seated)
    return view


def opening(meta: Meta) -> dict[str, Any]:
    """The deal as every seat starts it: its board and legal moves (the same for everyone)."""
    game = Game.deal(meta.deal, meta.difficulty)
    return {"board": board(game), "legal_moves": [str(m) for m in game.legal_moves()]}


def timers(meta: Meta, now: int, idle_ms: int = 0) -> Timers:
    """The room's timed events at server time ``now``: during the countdown the start to
    announce, during the race (and its countdown) the end of its time limit, if it has one;
    none once it is over or back in its lobby (``moot``). With ``idle_ms``, a race of two
    players or more also wakes when the first may turn idle: ``idle_ms`` after its start
    (see :func:`race.rooms.away.next_idle`; each wake asks for the next)."""
    ph = phase(meta, now)
    if ph in ("over", "lobby"):
        return Timers(moot=True)
    if meta.start_at is None:  # a daily attempt before its first move: no clock yet
        return Timers()
    start = meta.start_at if ph == "countdown" else None
    end = meta.start_at + meta.time_limit * 1000 if meta.time_limit is not None else None
    idle = meta.start_at + idle_ms if idle_ms > 0 and len(meta.seats) > 1 else None
    return Timers(start, end, idle=idle)


def room_message(docs: dict[str, Doc], now: int) -> Envelope:
    """The ``room`` broadcast of the room at ``now``, with its :func:`timers`: each of
    players and spectators gets its own snapshot when they differ. While a race runs, the
    players' carries the ``opening``, so that a player still without a move has its board at
    once at the start."""
    players: dict[str, Any] = {"type": "room", "room": room_view(docs, now)}
    meta = META.decode(docs["meta"].data)
    ph = phase(meta, now)
    if ph in SECRET or boards_shown(meta, ph, spectator=False) == boards_shown(meta, ph, spectator=True):
        return envelope.snapshot(_enc.encode(players), None, timers(meta, now))
    players["opening"] = opening(meta)
    spectators = {"type": "room", "room": room_view(docs, now, spectator=True)}
    return envelope.snapshot(_enc.encode(players), _enc.encode(spectators), timers(meta, now))


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


def with_end_from(view: dict[str, Any], docs: dict[str, Doc], now: int, away_ms: int, idle_ms: int) -> bool:
    """Add to a room's ``presence`` message (:func:`presence_view`) its ``end_from``: for each
    player, from when they may end the race alone (:func:`race.rooms.away.end_from`, with
    the players idle by ``now``, for ``idle_ms``), or ``None`` outside a race; its ``idle``:
    those players (the seats); and its ``host_from``: in the lobby, from when a player here
    may act as the host who went (:func:`race.rooms.away.host_from`), else ``None``. ``docs``
    are the room's documents at server time ``now``. False when there is no such room (it
    expired, unused for the store's ttl)."""
    meta = META.decode(docs["meta"].data) if "meta" in docs else None
    in_lobby = meta is not None and phase(meta, now) == "lobby"
    here, since = set(view["here"]), view["away_since"]
    view["host_from"] = host_from(meta.host, here, since, away_ms) if meta is not None and in_lobby else None
    view["idle"] = []
    if meta is None or phase(meta, now) not in ("racing", "countdown"):
        view["end_from"] = None
        return meta is not None
    seats = [SEAT.decode(docs[seat_key(sid)].data) for sid in meta.seats]
    racing = [s.seat for s in seats if not is_done(s)]
    idle = idle_seats(seats, meta.start_at, idle_ms, now) if len(seats) > 1 else {}  # (alone: nobody to end it)
    view["idle"] = list(idle)
    view["end_from"] = ends_from(meta.seats, racing, here, since, away_ms, idle)
    return True
