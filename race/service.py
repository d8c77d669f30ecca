"""The room service: every player and spectator action, as read -> validate -> commit.

Each action reads the documents it needs, checks them with :mod:`race.rooms` and the engine,
and commits through :meth:`Store.commit` naming the versions it read, so a concurrent change
(another tab, another process) can never be overwritten: the action is retried on the fresh
state, or refused as stale when the player's own game moved on. Broadcasts are published by
the same commit. Errors are :class:`ProtocolError`; nothing is written when one is raised.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from race import protocol as p
from race.engine import Game, IllegalMove, InvalidMove
from race.hub import not_to
from race.protocol import ProtocolError
from race.rooms import (
    MAX_PLAYERS,
    Meta,
    Seat,
    board,
    deadline,
    is_done,
    new_code,
    new_token,
    normalise_code,
    phase,
    progress,
    random_deal,
    seat_key,
    token_key,
)
from race.store import Doc, Store
from race.views import META, SEAT, player_view, room_view, seats_of, state_view

log = logging.getLogger(__name__)
LISTING = "rooms"
RETRIES = 20
_enc = msgspec.json.Encoder()


def now_ms() -> int:
    return int(time.time() * 1000)


class DailyHandler(Protocol):
    def today(self) -> str: ...

    async def handle(self, session: Session, msg: p.Daily | p.Leaderboard) -> list[dict[str, Any]]: ...


@dataclass
class Session:
    """What one connection is: nobody yet, a player in a seat, or a spectator."""

    conn_id: str
    room: str | None = None
    seat: str | None = None
    role: str | None = None  # "player" or "spectator"
    #: What this connection's last move committed: the next move starts from it instead of
    #: reading the store (the commit checks the versions, and anything but a plain move is
    #: decided on a fresh read).
    last_move: LastMove | None = None


@dataclass
class LastMove:
    """The room's meta and a seat's documents as one move committed them, and that seat's
    record and game, decoded (each used by at most one later move)."""

    meta_doc: Doc
    seat_doc: Doc
    seat: Seat
    game: Game


def _dump(obj: Any) -> str:
    return _enc.encode(obj).decode()


def _conflict() -> ProtocolError:
    return ProtocolError("busy", "the room is changing too fast to apply this; try again")


class RaceService:
    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], int] = now_ms,
        countdown_ms: int = 3000,
        on_deadline: Callable[[str, int, Callable[[str], Awaitable[object]]], None] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.countdown_ms = countdown_ms
        self.on_deadline = on_deadline
        #: Called with a daily attempt's meta and seat when it is won (set by race.daily).
        self.on_daily_finish: Callable[[Meta, Seat], Awaitable[None]] | None = None
        #: Handles daily-challenge messages (set by race.daily).
        self.daily: DailyHandler | None = None

    async def handle(self, session: Session, msg: p.ClientMessage) -> list[dict[str, Any]]:
        """Carry out one decoded client message; return the replies for its sender."""
        match msg:
            case p.Ping():
                return [{"type": "pong", "server_time": self.clock()}]
            case p.Create():
                return await self.create(session, msg)
            case p.Join():
                return await self.join(session, msg)
            case p.Resume():
                return await self.resume(session, msg)
            case p.Watch():
                return await self.watch(session, msg)
            case p.Daily() | p.Leaderboard():
                if self.daily is None:
                    raise ProtocolError("unavailable", "the daily challenge is not available on this server")
                return await self.daily.handle(session, msg)
        if session.role is None:
            raise ProtocolError("not_in_room", f"join or watch a room before sending {msg.__struct_config__.tag!r}")
        if isinstance(msg, p.Sync):
            return await self.sync(session)
        if session.role != "player":
            raise ProtocolError("spectator", "spectators cannot act in the race")
        match msg:
            case p.Ready():
                return await self.ready(session, msg.ready)
            case p.Start():
                return await self.start(session)
            case p.Play() | p.Undo() | p.Restart():
                return await self.act(session, msg)
            case p.Hint():
                return await self.hint(session)
            case p.Resign():
                return await self.resign(session)
            case p.Rematch():
                return await self.rematch(session, msg.deal)
        raise ProtocolError("unknown_type", "unhandled message")  # pragma: no cover

    # -- entering a room ------------------------------------------------------------

    async def create(self, session: Session, msg: p.Create) -> list[dict[str, Any]]:
        self._not_seated(session)
        name = p.clean_name(msg.name)
        deal = msg.deal if msg.deal is not None else random_deal()
        now = self.clock()
        token = new_token()

        def meta_for(code: str) -> Meta:
            return Meta(
                code=code,
                difficulty=msg.difficulty,
                deal=deal,
                host="s1",
                created=now,
                listed=msg.listed,
                time_limit=msg.time_limit,
                seats=["s1"],
            )

        code = (await self.open_room(session, meta_for, name, token)).code
        log.info("room %s created (%s, deal %s)", code, msg.difficulty, deal)
        docs = await self.store.read_all(code)
        return [self.joined(docs, "s1", token)]

    async def open_room(self, session: Session, meta_for: Callable[[str], Meta], name: str, token: str) -> Meta:
        """Commit a new room, under a fresh code, whose first seat ``s1`` is ``name``'s and is
        found by ``token``; list it, and seat ``session`` there."""
        for _ in range(RETRIES):
            meta = meta_for(new_code())
            seat = Seat(seat="s1", name=name, game=Game.deal(meta.deal, meta.difficulty).to_dict())
            ok = await self.store.commit(
                meta.code,
                expect={"meta": 0},
                write={"meta": _dump(meta), seat_key("s1"): _dump(seat), token_key(token): "s1"},
            )
            if ok:
                break
        else:
            raise _conflict()
        session.room, session.seat, session.role = meta.code, "s1", "player"
        await self.list_room(meta)
        return meta

    async def join(self, session: Session, msg: p.Join) -> list[dict[str, Any]]:
        self._not_seated(session)
        code = normalise_code(msg.room)
        name = p.clean_name(msg.name)
        token = new_token()
        for _ in range(RETRIES):
            docs = await self._room(code)
            meta = META.decode(docs["meta"].data)
            if phase(meta, self.clock()) != "lobby":
                raise ProtocolError("already_started", "this race has already started; you can watch it")
            if len(meta.seats) >= MAX_PLAYERS:
                raise ProtocolError("room_full", f"this room already has {MAX_PLAYERS} players")
            seats = seats_of(docs, meta)
            if any(s.name.casefold() == name.casefold() for s, _ in seats):
                raise ProtocolError("name_taken", f"someone in this room is already called {name!r}")
            sid = f"s{len(meta.seats) + 1}"
            meta.seats.append(sid)
            seat = Seat(seat=sid, name=name, game=Game.deal(meta.deal, meta.difficulty).to_dict())
            docs_after = {
                **docs,
                "meta": Doc(docs["meta"].version + 1, _dump(meta)),
                seat_key(sid): Doc(1, _dump(seat)),
            }
            ok = await self.store.commit(
                code,
                expect={"meta": docs["meta"].version, seat_key(sid): 0},
                write={"meta": _dump(meta), seat_key(sid): _dump(seat), token_key(token): sid},
                publish=_dump({"type": "room", "room": room_view(docs_after, self.clock())}),
            )
            if ok:
                break
        else:
            raise _conflict()
        session.room, session.seat, session.role = code, sid, "player"
        log.info("room %s: %s joined", code, sid)
        docs = await self.store.read_all(code)
        return [self.joined(docs, sid, token)]

    async def resume(self, session: Session, msg: p.Resume) -> list[dict[str, Any]]:
        self._not_seated(session)
        code = normalise_code(msg.room)
        docs = await self._room(code)
        tok = docs.get(token_key(msg.token))
        if tok is None:
            raise ProtocolError("bad_token", "that token does not belong to a seat in this room")
        sid = tok.data
        session.room, session.seat, session.role = code, sid, "player"
        reply = self.joined(docs, sid, None)
        own = docs[seat_key(sid)]
        if msg.version is not None and msg.version <= own.version:
            missed = await self.store.log_since(code, seat_key(sid), msg.version)
            if missed is not None:
                reply["missed"] = [msgspec.json.decode(e.data) for e in missed]
        await self.store.publish(code, _dump({"type": "_replace", "seat": sid, "conn": session.conn_id}))
        return [reply]

    async def watch(self, session: Session, msg: p.Watch) -> list[dict[str, Any]]:
        self._not_seated(session)
        code = normalise_code(msg.room)
        docs = await self._room(code)
        session.room, session.role = code, "spectator"
        self._schedule(docs)
        return [{"type": "watching", "room": room_view(docs, self.clock())}]

    # -- the lobby -----------------------------------------------------------------

    async def ready(self, session: Session, ready: bool) -> list[dict[str, Any]]:
        sid = session.seat
        assert sid is not None

        def change(meta: Meta, now: int) -> None:
            if phase(meta, now) != "lobby":
                raise ProtocolError("already_started", "the race has already started")
            if ready and sid not in meta.ready:
                meta.ready.append(sid)
            if not ready and sid in meta.ready:
                meta.ready.remove(sid)
            if len(meta.seats) >= 2 and set(meta.ready) >= set(meta.seats):
                self._begin(meta, now)

        await self._change_meta(session, change)
        return []

    async def start(self, session: Session) -> list[dict[str, Any]]:
        def change(meta: Meta, now: int) -> None:
            if meta.host != session.seat:
                raise ProtocolError("not_host", "only the host can start the race")
            if phase(meta, now) != "lobby":
                raise ProtocolError("already_started", "the race has already started")
            self._begin(meta, now)

        await self._change_meta(session, change)
        return []

    def _begin(self, meta: Meta, now: int) -> None:
        meta.status = "started"
        meta.start_at = now + self.countdown_ms
        meta.ready = []

    async def rematch(self, session: Session, deal: int | None) -> list[dict[str, Any]]:
        new_deal = deal if deal is not None else random_deal()

        def change(meta: Meta, now: int) -> None:
            if meta.host != session.seat:
                raise ProtocolError("not_host", "only the host can start a rematch")
            if phase(meta, now) != "over":
                raise ProtocolError("not_over", "a rematch can start only when the race is over")
            meta.status, meta.round, meta.deal = "lobby", meta.round + 1, new_deal
            meta.start_at = meta.ended_at = None
            meta.ready = []

        def reset(meta: Meta, seat: Seat) -> None:
            seat.game = Game.deal(meta.deal, meta.difficulty).to_dict()
            seat.moves, seat.finished_ms, seat.resigned, seat.last_id = 0, None, False, None

        meta = await self._change_meta(session, change, reset)
        await self.list_room(meta)
        return []

    # -- the race ------------------------------------------------------------------

    async def act(self, session: Session, msg: p.Play | p.Undo | p.Restart) -> list[dict[str, Any]]:
        code, sid = session.room, session.seat
        assert code is not None and sid is not None
        key = seat_key(sid)
        guess, session.last_move = session.last_move, None
        for _ in range(RETRIES):
            if guess is not None:
                meta_doc, seat_doc = guess.meta_doc, guess.seat_doc
            else:
                meta_doc, seat_doc = await self.store.read(code, ["meta", key])
            if meta_doc is None or seat_doc is None:
                raise ProtocolError("unknown_room", "this room no longer exists")
            meta = META.decode(meta_doc.data)
            now = self.clock()
            ph = phase(meta, now)
            if guess is not None and ph != "racing":
                guess = None
                continue  # refusals are decided on a fresh read, never on the guess
            if ph in ("lobby", "countdown"):
                raise ProtocolError("not_started", "the race has not started yet")
            if ph == "over":
                await self.end_if_done(code)
                raise ProtocolError("race_over", "the race is over")
            if guess is not None:
                seat, game, guess = guess.seat, guess.game, None
                if (msg.id is not None and msg.id == seat.last_id) or is_done(seat) or msg.version != seat_doc.version:
                    continue  # likewise a duplicate, a finished seat or a stale version
            else:
                seat = SEAT.decode(seat_doc.data)
                game = Game.from_trusted_dict(seat.game)
            if msg.id is not None and msg.id == seat.last_id:
                return [state_view(seat, game, seat_doc.version, duplicate=True)]
            if seat.finished_ms is not None:
                raise ProtocolError("finished", "you have finished this race")
            if seat.resigned:
                raise ProtocolError("resigned", "you resigned from this race")
            if msg.version != seat_doc.version:
                raise ProtocolError(
                    "stale",
                    f"your state is version {msg.version}, the server's is {seat_doc.version}; "
                    "the current state is attached",
                    state=state_view(seat, game, seat_doc.version),
                )
            text = self._apply(game, msg)
            if isinstance(msg, p.Play):
                seat.moves += 1
            seat.last_id = msg.id
            write: dict[str, str] = {}
            clock_starts = meta.start_at is None  # a daily attempt: the clock starts now
            if clock_starts:
                meta.start_at = now
                write["meta"] = _dump(meta)
            if game.is_won:
                assert meta.start_at is not None
                seat.finished_ms = now - meta.start_at
            seat.game = game.to_dict_after(seat.game)
            write[key] = _dump(seat)
            version = seat_doc.version + 1
            shown = progress(seat, game), board(game, seat.game["piles"])  # the piles just saved
            event = {"type": "player", "player": player_view(seat, game, version, shown), "action": text}
            ok = await self.store.commit(
                code,
                expect={"meta": meta_doc.version, key: seat_doc.version},
                write=write,
                log=(key, _dump({"version": version, "action": text})),
                publish=not_to(session.conn_id, _dump(event)),  # the mover's reply is its state
            )
            if ok:
                new_meta = Doc(meta_doc.version + 1, write["meta"]) if "meta" in write else meta_doc
                session.last_move = LastMove(new_meta, Doc(version, write[key]), seat, game)
                break
        else:
            raise _conflict()
        if clock_starts:
            docs = await self.store.read_all(code)
            await self.store.publish(code, _dump({"type": "room", "room": room_view(docs, self.clock())}))
        if seat.finished_ms is not None:
            log.info("room %s: %s finished in %d ms", code, sid, seat.finished_ms)
            if meta.kind == "daily" and self.on_daily_finish is not None:
                await self.on_daily_finish(meta, seat)
            await self.end_if_done(code)
        return [state_view(seat, game, version, shown=shown)]

    @staticmethod
    def _apply(game: Game, msg: p.Play | p.Undo | p.Restart) -> str:
        try:
            if isinstance(msg, p.Play):
                return str(game.play(msg.move))
            if isinstance(msg, p.Undo):
                return f"undo {game.undo()}"
            game.restart()
            return "restart"
        except InvalidMove as exc:
            raise ProtocolError("invalid_move", str(exc)) from None
        except IllegalMove as exc:
            raise ProtocolError("illegal_move", str(exc)) from None

    async def sync(self, session: Session) -> list[dict[str, Any]]:
        """The room as it is now, and for a player also their own state (e.g. after a
        rematch, which deals every seat a new game, or after a ``resync``)."""
        assert session.room is not None
        docs = await self._room(session.room)
        replies = [{"type": "room", "room": room_view(docs, self.clock())}]
        if session.seat is not None:
            key = seat_key(session.seat)
            seat = SEAT.decode(docs[key].data)
            replies.append(state_view(seat, Game.from_trusted_dict(seat.game), docs[key].version))
        return replies

    async def hint(self, session: Session) -> list[dict[str, Any]]:
        assert session.room is not None and session.seat is not None
        meta_doc, seat_doc = await self.store.read(session.room, ["meta", seat_key(session.seat)])
        if meta_doc is None or seat_doc is None:
            raise ProtocolError("unknown_room", "this room no longer exists")
        if phase(META.decode(meta_doc.data), self.clock()) != "racing":
            raise ProtocolError("not_racing", "hints are available while the race runs")
        hint = Game.from_trusted_dict(SEAT.decode(seat_doc.data).game).hint()
        return [{"type": "hint", "move": None if hint is None else str(hint), "version": seat_doc.version}]

    async def resign(self, session: Session) -> list[dict[str, Any]]:
        code, sid = session.room, session.seat
        assert code is not None and sid is not None
        key = seat_key(sid)
        for _ in range(RETRIES):
            meta_doc, seat_doc = await self.store.read(code, ["meta", key])
            if meta_doc is None or seat_doc is None:
                raise ProtocolError("unknown_room", "this room no longer exists")
            if phase(META.decode(meta_doc.data), self.clock()) not in ("racing", "countdown"):
                raise ProtocolError("not_racing", "you can resign only while the race runs")
            seat = SEAT.decode(seat_doc.data)
            if is_done(seat):
                raise ProtocolError("finished", "you are already out of this race")
            seat.resigned = True
            game = Game.from_trusted_dict(seat.game)
            version = seat_doc.version + 1
            event = {"type": "player", "player": player_view(seat, game, version), "action": "resign"}
            ok = await self.store.commit(
                code,
                expect={"meta": meta_doc.version, key: seat_doc.version},
                write={key: _dump(seat)},
                log=(key, _dump({"version": version, "action": "resign"})),
                publish=not_to(session.conn_id, _dump(event)),
            )
            if ok:
                break
        else:
            raise _conflict()
        await self.end_if_done(code)
        return [state_view(seat, game, version)]

    async def end_if_done(self, code: str) -> bool:
        """End a started race when every player is done or its time is up; True if it ended
        now. Safe to call from any process at any time: only one commit can end a race."""
        for _ in range(RETRIES):
            docs = await self.store.read_all(code)
            if "meta" not in docs:
                return False
            meta = META.decode(docs["meta"].data)
            if meta.status != "started":
                return False
            seats = seats_of(docs, meta)
            if not (phase(meta, self.clock()) == "over" or all(is_done(s) for s, _ in seats)):
                return False
            meta.status, meta.ended_at = "over", self.clock()
            expect = {name: doc.version for name, doc in docs.items() if name == "meta" or name.startswith("p:")}
            after = {**docs, "meta": Doc(docs["meta"].version + 1, _dump(meta))}
            ok = await self.store.commit(
                code,
                expect=expect,
                write={"meta": _dump(meta)},
                publish=_dump({"type": "room", "room": room_view(after, self.clock())}),
            )
            if ok:
                log.info("room %s: race over", code)
                await self.store.list_remove(LISTING, code)
                return True
        raise _conflict()

    # -- listings ------------------------------------------------------------------

    async def live_rooms(self, limit: int = 50) -> list[dict[str, Any]]:
        """Listed rooms in the lobby or racing, for spectators to pick from."""
        out = []
        for code in await self.store.list_members(LISTING, time.time(), limit):
            (doc,) = await self.store.read(code, ["meta"])
            if doc is None:
                continue
            meta = META.decode(doc.data)
            ph = phase(meta, self.clock())
            if meta.listed and ph != "over":
                out.append(
                    {
                        "code": code,
                        "kind": meta.kind,
                        "difficulty": meta.difficulty,
                        "deal": meta.deal,
                        "phase": ph,
                        "players": len(meta.seats),
                    }
                )
        return out

    async def list_room(self, meta: Meta) -> None:
        if meta.listed:
            await self.store.list_add(LISTING, meta.code, time.time() + self.store.ttl)

    # -- helpers -------------------------------------------------------------------

    def _not_seated(self, session: Session) -> None:
        if session.role is not None:
            raise ProtocolError("already_in_room", "this connection is already in a room; open a new one")

    async def _room(self, code: str) -> dict[str, Doc]:
        docs = await self.store.read_all(code)
        if "meta" not in docs:
            raise ProtocolError("unknown_room", f"there is no room {code!r} (it may have expired)")
        return docs

    async def _change_meta(
        self,
        session: Session,
        change: Callable[[Meta, int], None],
        reset: Callable[[Meta, Seat], None] | None = None,
    ) -> Meta:
        """Apply ``change`` to the room's meta at one server instant (and ``reset`` to every
        seat) and commit, publishing the snapshot at that same instant; retried on concurrent
        changes."""
        assert session.room is not None
        code = session.room
        for _ in range(RETRIES):
            docs = await self._room(code)
            meta = META.decode(docs["meta"].data)
            now = self.clock()
            change(meta, now)
            write = {"meta": _dump(meta)}
            expect = {"meta": docs["meta"].version}
            after = dict(docs)
            after["meta"] = Doc(docs["meta"].version + 1, write["meta"])
            if reset is not None:
                for sid in meta.seats:
                    key = seat_key(sid)
                    seat = SEAT.decode(docs[key].data)
                    reset(meta, seat)
                    write[key] = _dump(seat)
                    expect[key] = docs[key].version
                    after[key] = Doc(docs[key].version + 1, write[key])
            ok = await self.store.commit(
                code,
                expect=expect,
                write=write,
                publish=_dump({"type": "room", "room": room_view(after, now)}),
            )
            if ok:
                self._schedule(after)
                return meta
        raise _conflict()

    def _schedule(self, docs: dict[str, Doc]) -> None:
        """Ask for the room's timed events: the start of the race (announced to everyone)
        and the end of its time limit."""
        if self.on_deadline is None or "meta" not in docs:
            return
        meta = META.decode(docs["meta"].data)
        if phase(meta, self.clock()) == "countdown":
            assert meta.start_at is not None
            self.on_deadline(meta.code, meta.start_at, self.announce)
        end = deadline(meta)
        if end is not None:
            self.on_deadline(meta.code, end, self.end_if_done)

    async def announce(self, code: str) -> None:
        """Publish the room's snapshot (e.g. when its countdown ends and the race begins)."""
        docs = await self.store.read_all(code)
        if "meta" in docs:
            await self.store.publish(code, _dump({"type": "room", "room": room_view(docs, self.clock())}))

    def joined(self, docs: dict[str, Doc], sid: str, token: str | None) -> dict[str, Any]:
        seat = SEAT.decode(docs[seat_key(sid)].data)
        game = Game.from_trusted_dict(seat.game)
        msg: dict[str, Any] = {"type": "joined", "seat": sid}
        if token is not None:
            msg["token"] = token
        msg["room"] = room_view(docs, self.clock())
        msg["state"] = state_view(seat, game, docs[seat_key(sid)].version)
        self._schedule(docs)
        return msg
