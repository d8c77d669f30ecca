"""The daily challenge's actions: start an attempt at today's deal, post a won attempt to
its day's board (ranked only when played at a person's pace), keep streaks, and read a
day's board. An attempt is a one-seat room of kind ``daily``, so it is played, resumed and
watched like a race; only a player's first finished attempt of a day and difficulty counts.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

import msgspec

from race.daily import board
from race.daily.deal import DailyDeals, day_before, next_day
from race.engine import DIFFICULTIES
from race.rooms import pace as human
from race.rooms.errors import Refused
from race.rooms.model import Kind, Meta, Seat, Status, actions_of, acts_keys, device_id
from race.rooms.pace import Pace
from race.rooms.record import utc_date
from race.service import RaceService, Session
from race.service.players import Profile, add_finished_day, board_group, counted, profile_group
from race.store import DailyStore, StoreUnavailable
from race.wire import protocol as p
from race.wire.envelope import encode, news

log = logging.getLogger(__name__)
PROFILE_TTL = 400 * 86400

_enc = msgspec.json.Encoder()
_profile = msgspec.json.Decoder(Profile)


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
        secret: str | None = None,
        pace: Pace = human.ANY_PACE,
    ) -> None:
        self.store, self.service = store, service
        self.keep_days = keep_days
        #: New daily players one address may make a day (None: no bound).
        self.players_per_day = players_per_day
        #: The rules of human pace a result must keep to be ranked.
        self.pace = pace
        self.clock = clock or service.clock
        self.deals = DailyDeals(store, node_limit=node_limit, ttl=self.ttl, secret=secret, executor=executor)

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

    async def deal(self, date: str, difficulty: str) -> dict[str, Any]:
        """``{"seed", "line"}`` for the day: from the store, or computed once and stored."""
        return await self.deals.deal(date, difficulty)

    def close(self) -> None:
        self.deals.close()

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
        session.not_seated()
        name = p.clean_name(msg.name)
        token = msg.token
        known = await self.profile(token) if token else None
        if token and known is None:
            raise Refused("bad_token", "that token is not a daily player; start without one to get a new one")
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
            raise Refused("busy", "your profile changed meanwhile; try again")
        date = self.today()
        deal = await self.deal(date, msg.difficulty)
        ranked = not await board.on_board(self.store, date, msg.difficulty, profile.id)

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
            raise Refused(
                "too_many_players",
                f"your address has made {per} new daily players today; play on as the one you have, "
                "or come back tomorrow",
            )

    # -- results -----------------------------------------------------------------------

    async def record(self, meta: Meta, seat: Seat) -> None:
        """Post a won daily attempt (validated move by move by the server) to its board:
        ranked when its actions came at a person's pace, else unverified, with the reason."""
        assert meta.daily_date and meta.player and seat.finished_ms is not None
        keys = acts_keys(seat)
        chunks = await self.store.read(meta.code, keys) if keys else []
        times = [at for _, at in actions_of(seat, [d.data if d else None for d in chunks])]
        why = human.unverified(times, seat.finished_ms, meta.difficulty, self.pace)
        entry = board.Entry(
            player=meta.player,
            name=seat.name,
            time_ms=seat.finished_ms,
            moves=seat.moves,
            finished_at=self.clock(),
            room=meta.code,
            unverified=why,
        )
        posted = await board.post(self.store, meta.daily_date, meta.difficulty, entry, self.ttl(meta.daily_date))
        await self._extend_streak(meta)  # also when this is a retry after a failure past the post
        if not posted:
            return
        if why:
            log.info("daily %s %s: %s unverified: %s", meta.daily_date, meta.difficulty, meta.code, why)
        shown = await self.leaderboard(meta.difficulty, meta.daily_date, 20, None)
        await self.store.publish(board_group(meta.daily_date, meta.difficulty), encode(news(_dump(shown))))

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
            raise Refused("bad_message", f"not a date: {date!r}") from None
        if day > dt.date.fromisoformat(today):
            raise Refused("bad_date", "that day has not come yet")
        group = board_group(date, difficulty)
        streak = None
        player = None
        if token:
            known = await self.profile(token)
            if known is not None:
                streak = current_streak(known[0], today)
                player = known[0].id
        shown = await board.read(self.store, date, difficulty, top, player)
        # The solver's line for the day's deal (found when the deal was chosen): its length.
        (deal_doc,) = await self.store.read(group, ["deal"])
        solver = len(msgspec.json.decode(deal_doc.data, type=dict[str, Any])["line"]) if deal_doc else None
        return {
            "type": "leaderboard",
            "date": date,
            "difficulty": difficulty,
            "today": today,
            "solver_moves": solver,
            **shown,
            "streak": streak,
        }


def current_streak(profile: Profile, today: str) -> int:
    """Consecutive finished days up to today (or up to yesterday, if today is not done)."""
    if profile.last_date in (today, day_before(today)):
        return profile.streak
    return 0


def _dump(obj: Any) -> str:
    return _enc.encode(obj).decode()
