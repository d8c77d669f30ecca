"""The daily challenge: one proven-winnable deal per UTC date and difficulty, solo
attempts timed by the server from the first move, and a leaderboard per day.

The deal for a date is the first of the text seeds ``daily:DATE:DIFFICULTY:0``,
``...:1``, ... that the solver proves winnable within a fixed node budget (so every process
makes the same choice); the choice and its winning line are cached in the store. An attempt
is a one-seat room of kind ``daily``, so it is played, resumed and watched like a race. When
the server sees it won, it posts the time and move count to the day's leaderboard; only a
player's first finished attempt of a day and difficulty is ranked.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import msgspec

from race import protocol as p
from race.engine import DIFFICULTIES, Game
from race.envelope import encode, news
from race.players import KEPT_RUNS as KEPT_RUNS
from race.players import Profile as Profile
from race.players import add_finished_day as add_finished_day
from race.players import board_group as board_group
from race.players import counted as counted
from race.players import profile_group
from race.protocol import ProtocolError
from race.record import utc_date
from race.rooms import Kind, Meta, Seat, Status, device_id
from race.service import RaceService, Session
from race.store import DailyStore, StoreUnavailable
from race.workers import stop_pool, worker_pool

log = logging.getLogger(__name__)
CANDIDATES = 64
PROFILE_TTL = 400 * 86400


class Entry(msgspec.Struct, kw_only=True):
    player: str
    name: str
    time_ms: int
    moves: int
    finished_at: int
    room: str


_enc = msgspec.json.Encoder()
_profile = msgspec.json.Decoder(Profile)
_entry = msgspec.json.Decoder(Entry)


def candidate_seed(date: str, difficulty: str, k: int) -> str:
    return f"daily:{date}:{difficulty}:{k}"


def choose_deal(date: str, difficulty: str, node_limit: int) -> tuple[str, list[str]]:
    """The first candidate the solver proves winnable, with its winning line. Pure and
    deterministic (a node budget, no time limit); CPU-heavy, so run it off the event loop."""
    from race.solver import solve

    for k in range(CANDIDATES):
        seed = candidate_seed(date, difficulty, k)
        solution = solve(Game.deal(seed, difficulty), time_limit=None, node_limit=node_limit)
        if solution.status == "won":
            return seed, list(solution.moves)
    raise RuntimeError(f"no winnable daily deal for {date} {difficulty} in {CANDIDATES} candidates")


def day_before(date: str) -> str:
    return (dt.date.fromisoformat(date) - dt.timedelta(days=1)).isoformat()


def next_day(date: str) -> str:
    return (dt.date.fromisoformat(date) + dt.timedelta(days=1)).isoformat()


def sort_key(e: Entry) -> str:
    """Time, then moves, then who finished first: fixed-width text sorts like the tuple."""
    return f"{e.time_ms:012d}.{e.moves:08d}.{e.finished_at:015d}"


class DailyChallenge:
    def __init__(
        self,
        store: DailyStore,
        service: RaceService,
        *,
        keep_days: int = 30,
        node_limit: int = 200_000,
        clock: Callable[[], int] | None = None,
        executor: Executor | None = None,
        players_per_day: int | None = None,
    ) -> None:
        self.store, self.service = store, service
        self.keep_days, self.node_limit = keep_days, node_limit
        #: New daily players one address may make a day (None: no bound).
        self.players_per_day = players_per_day
        self.clock = clock or service.clock
        self._executor = executor
        self._closed = False
        self._computing: dict[str, asyncio.Future[tuple[str, list[str]]]] = {}

    def today(self) -> str:
        return utc_date(self.clock())

    def ttl(self, date: str) -> int:
        """Seconds until ``keep_days`` days after the end of ``date`` (UTC)."""
        end = dt.datetime.combine(dt.date.fromisoformat(date), dt.time(), dt.UTC) + dt.timedelta(days=1)
        return max(int(end.timestamp() - self.clock() / 1000) + self.keep_days * 86400, 1)

    async def handle(self, session: Session, msg: p.Daily | p.Leaderboard) -> list[dict[str, Any]]:
        if isinstance(msg, p.Daily):
            return await self.start(session, msg)
        return [await self.leaderboard(msg.difficulty, msg.date, msg.top, msg.token)]

    # -- the deal --------------------------------------------------------------------

    async def deal(self, date: str, difficulty: str) -> dict[str, Any]:
        """``{"seed", "line"}`` for the day: from the store, or computed once and stored."""
        group = board_group(date, difficulty)
        (doc,) = await self.store.read(group, ["deal"])
        if doc is not None:
            return msgspec.json.decode(doc.data, type=dict[str, Any])
        future = self._computing.get(group)
        if future is None:
            future = self._computing[group] = asyncio.ensure_future(self._choose(date, difficulty))

            def done(f: asyncio.Future[tuple[str, list[str]]]) -> None:
                self._computing.pop(group, None)
                if not f.cancelled():
                    f.exception()  # its callers have it (or all went away): not "never retrieved"

            future.add_done_callback(done)
        seed, line = await asyncio.shield(future)  # a caller that goes away leaves it to the others
        data = {"seed": seed, "line": line}
        # Several processes may compute at once; they agree, and the first write stands.
        await self.store.commit(group, expect={"deal": 0}, write={"deal": _dump(data)}, ttl=self.ttl(date))
        (doc,) = await self.store.read(group, ["deal"])
        assert doc is not None
        return msgspec.json.decode(doc.data, type=dict[str, Any])

    async def _choose(self, date: str, difficulty: str) -> tuple[str, list[str]]:
        """Run the solver in the worker process. A worker that dies (the system killed it for
        its memory, say) breaks its pool for good, so the pool is replaced and the day's
        choice asked of a fresh worker once more before the player is told to come back."""
        for _ in range(2):
            pool = self._pool()
            try:
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(pool, choose_deal, date, difficulty, self.node_limit)
            except BrokenProcessPool:
                if self._closed:
                    raise  # the server is stopping, and stopped the worker: no other is started
                log.error("the daily solver's worker process died choosing %s %s; starting another", date, difficulty)
                if self._executor is pool:
                    self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
        raise ProtocolError("unavailable", "today's deal could not be prepared just now; try again in a minute")

    def _pool(self) -> Executor:
        if self._closed:
            raise ProtocolError("unavailable", "the server is stopping; try again in a moment")
        if self._executor is None:
            self._executor = worker_pool()
        return self._executor

    def close(self) -> None:
        self._closed = True
        for choosing in list(self._computing.values()):
            choosing.cancel()
        if self._executor is not None:
            stop_pool(self._executor)

    async def warm(self) -> None:
        """Choose today's and tomorrow's deals before anyone asks, then again after each
        UTC midnight, so that no player waits for the solver. Runs until cancelled."""
        while True:
            today = self.today()
            for date in (today, next_day(today)):
                for difficulty in DIFFICULTIES:
                    try:
                        deal = await self.deal(date, difficulty)
                        log.info("daily deal for %s %s ready: %s", date, difficulty, deal["seed"])
                    except StoreUnavailable:
                        log.warning("daily warm-up: store unavailable; trying again later")
                    except Exception:
                        log.exception("daily warm-up failed for %s %s", date, difficulty)
            midnight = dt.datetime.combine(dt.date.fromisoformat(today), dt.time(), dt.UTC) + dt.timedelta(days=1)
            await asyncio.sleep(max(midnight.timestamp() - self.clock() / 1000, 0) + 60)

    # -- players -----------------------------------------------------------------------

    async def profile(self, token: str) -> tuple[Profile, int] | None:
        (doc,) = await self.store.read(profile_group(token), ["profile"])
        return None if doc is None else (_profile.decode(doc.data), doc.version)

    async def start(self, session: Session, msg: p.Daily) -> list[dict[str, Any]]:
        """A new attempt at today's deal for the player of ``msg.token`` (or a new player)."""
        if session.role is not None:
            raise ProtocolError("already_in_room", "this connection is already in a room; open a new one")
        name = p.clean_name(msg.name)
        token = msg.token
        known = await self.profile(token) if token else None
        if token and known is None:
            raise ProtocolError("bad_token", "that token is not a daily player; start without one to get a new one")
        await self.service.admit_new_room(session)
        if known is None:
            await self._admit_new_player(session)
            token = secrets.token_urlsafe(24)
            profile = Profile(id=secrets.token_hex(6), name=name)
            version = 0
        else:
            profile, version = known
            profile.name = name
        assert token is not None
        ok = await self.store.commit(
            profile_group(token), expect={"profile": version}, write={"profile": _dump(profile)}, ttl=PROFILE_TTL
        )
        if not ok:
            raise ProtocolError("busy", "your profile changed meanwhile; try again")
        date = self.today()
        deal = await self.deal(date, msg.difficulty)
        ranked = await self.store.board_rank(board_group(date, msg.difficulty), profile.id) is None

        def meta_for(code: str) -> Meta:
            return Meta(
                code=code,
                difficulty=msg.difficulty,
                deal=deal["seed"],
                host="s1",
                created=self.clock(),
                status=Status.STARTED,
                seats=["s1"],
                kind=Kind.DAILY,
                daily_date=date,
                player=profile.id,
            )

        meta, docs = await self.service.open_room(session, meta_for, name, token, device=device_id(msg.device))
        code = meta.code
        reply = self.service.joined(docs, "s1", token)
        reply["daily"] = {
            "date": date,
            "difficulty": msg.difficulty,
            "ranked": ranked,
            "player": profile.id,
            "streak": current_streak(profile, date),
        }
        log.info("daily %s %s: attempt %s", date, msg.difficulty, code)
        return [reply]

    async def _admit_new_player(self, session: Session) -> None:
        """Spend one of the new daily players ``session``'s address may make a day, or refuse
        with ``too_many_players``: one ranked attempt a day per player is worth something
        only if new players cannot be had without end (a fresh browser profile each time).
        The allowance is a token bucket in the store, shared by every process."""
        per = self.players_per_day
        if per is None:
            return
        if not await self.store.spend(f"players:{session.address}", per / 86400, max(1, per), self.clock() / 1000):
            raise ProtocolError(
                "too_many_players",
                f"your address has made {per} new daily players today; play on as the one you have, "
                "or come back tomorrow",
            )

    # -- results -----------------------------------------------------------------------

    async def record(self, meta: Meta, seat: Seat) -> None:
        """Post a won daily attempt (validated move by move by the server) to its board."""
        assert meta.daily_date and meta.player and seat.finished_ms is not None
        entry = Entry(
            player=meta.player,
            name=seat.name,
            time_ms=seat.finished_ms,
            moves=seat.moves,
            finished_at=self.clock(),
            room=meta.code,
        )
        group = board_group(meta.daily_date, meta.difficulty)
        ttl = self.ttl(meta.daily_date)
        ranked = await self.store.board_add(group, meta.player, sort_key(entry), _dump(entry), ttl)
        await self._extend_streak(meta)  # also when this is a retry after a failure past board_add
        if not ranked:
            return
        board = await self.leaderboard(meta.difficulty, meta.daily_date, 20, None)
        await self.store.publish(group, encode(news(_dump(board))))

    async def _extend_streak(self, meta: Meta) -> None:
        docs = await self.store.read_all(meta.code)
        token_doc = next((k for k in docs if k.startswith("t:")), None)
        if token_doc is None:
            return
        group = "player:" + token_doc[2:]
        for _ in range(10):
            (doc,) = await self.store.read(group, ["profile"])
            if doc is None:
                return
            profile = _profile.decode(doc.data)
            date = meta.daily_date
            assert date is not None
            if counted(profile, date):
                return
            add_finished_day(profile, date)
            ok = await self.store.commit(
                group, expect={"profile": doc.version}, write={"profile": _dump(profile)}, ttl=PROFILE_TTL
            )
            if ok:
                return

    async def leaderboard(self, difficulty: str, date: str | None, top: int, token: str | None) -> dict[str, Any]:
        today = self.today()
        date = date or today
        try:
            day = dt.date.fromisoformat(date)
        except ValueError:
            raise ProtocolError("bad_message", f"not a date: {date!r}") from None
        if day > dt.date.fromisoformat(today):
            raise ProtocolError("bad_date", "that day has not come yet")
        group = board_group(date, difficulty)
        entries = [
            {"rank": i + 1, **_public(_entry.decode(data))}
            for i, (_, data) in enumerate(await self.store.board_range(group, 0, top))
        ]
        me = None
        streak = None
        if token:
            known = await self.profile(token)
            if known is not None:
                profile = known[0]
                streak = current_streak(profile, today)
                rank = await self.store.board_rank(group, profile.id)
                if rank is not None:
                    me = {"rank": rank[0] + 1, **_public(_entry.decode(rank[1]))}
        # The solver's line for the day's deal (found when the deal was chosen): its length.
        (deal_doc,) = await self.store.read(group, ["deal"])
        solver = len(msgspec.json.decode(deal_doc.data, type=dict[str, Any])["line"]) if deal_doc else None
        return {
            "type": "leaderboard",
            "date": date,
            "difficulty": difficulty,
            "today": today,
            "solver_moves": solver,
            "entries": entries,
            "me": me,
            "streak": streak,
        }


def current_streak(profile: Profile, today: str) -> int:
    """Consecutive finished days up to today (or up to yesterday, if today is not done)."""
    if profile.last_date in (today, day_before(today)):
        return profile.streak
    return 0


def _public(e: Entry) -> dict[str, Any]:
    return {"name": e.name, "time_ms": e.time_ms, "moves": e.moves, "player": e.player, "room": e.room}


def _dump(obj: Any) -> str:
    return _enc.encode(obj).decode()
