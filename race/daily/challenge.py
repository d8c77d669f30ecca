"""The daily challenge's actions (:class:`DailyChallenge`): start an attempt at today's deal,
read a day's board (its results, the players' streaks: :mod:`race.daily.results`), and the
day's deals chosen ahead. An attempt is a one-seat room of kind ``daily``, so it is played,
resumed and watched like a race; only a player's first finished attempt of a day and
difficulty counts.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import secrets
from concurrent.futures import Executor
from typing import Any

from race.daily import board
from race.daily.deal import DailyDeals, next_day
from race.daily.results import PROFILE_TTL, Results, current_streak, dump
from race.engine import DIFFICULTIES
from race.rooms.errors import Refused
from race.rooms.model import Kind, Meta, Status, device_id
from race.service.entry import Entry
from race.service.players import Profile, profile_group
from race.service.session import Session
from race.store import DailyStore, StoreUnavailable
from race.wire import protocol as p

log = logging.getLogger(__name__)


class DailyChallenge:
    """The daily challenge: attempts opened by ``entry`` as rooms of kind ``daily``, their
    results in ``results``, whose clock counts the days."""

    def __init__(
        self,
        store: DailyStore,
        results: Results,
        entry: Entry,
        *,
        node_limit: int = 200_000,
        executor: Executor | None = None,
        players_per_day: int | None = None,
        secret: str | None = None,
    ) -> None:
        self.store, self.results, self.entry = store, results, entry
        #: New daily players one address may make a day (None: no bound).
        self.players_per_day = players_per_day
        self.deals = DailyDeals(store, node_limit=node_limit, ttl=results.ttl, secret=secret, executor=executor)

    def today(self) -> str:
        return self.results.today()

    async def board(self, session: Session, msg: p.Leaderboard) -> list[dict[str, Any]]:
        """A day's board, as ``leaderboard`` asks for it."""
        return [await self.leaderboard(msg.difficulty, msg.date, msg.top, msg.token)]

    async def leaderboard(self, difficulty: str, date: str | None, top: int, token: str | None) -> dict[str, Any]:
        """The top ``top`` of a day's board (today's when ``date`` is None), with the place
        and streak of the player of ``token``."""
        return await self.results.leaderboard(difficulty, date, top, token)

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
            await asyncio.sleep(max(midnight.timestamp() - self.results.clock() / 1000, 0) + 60)

    async def start(self, session: Session, msg: p.Daily) -> list[dict[str, Any]]:
        """A new attempt at today's deal for the player of ``msg.token`` (or a new player)."""
        session.not_seated()
        name = p.clean_name(msg.name)
        token = msg.token
        known = await self.results.profile(token) if token else None
        if token and known is None:
            raise Refused("bad_token", "that token is not a daily player; start without one to get a new one")
        await self.entry.admit_new_room(session)
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
            profile_group(token), expect={"profile": version}, write={"profile": dump(profile)}, ttl=PROFILE_TTL
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
                created=self.results.clock(),
                status=Status.STARTED,
                seats=["s1"],
                kind=Kind.DAILY,
                daily_date=date,
                player=profile.id,
                # Its spectators see the player's progress move by move: as far behind as a race's.
                spectator_delay=self.entry.spectator_delay,
                hint_penalty_ms=self.entry.hint_penalty_ms,
            )

        meta, docs = await self.entry.open_room(session, meta_for, name, token, device=device_id(msg.device))
        code = meta.code
        reply = await self.entry.joined(docs, "s1", token)
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
        if not await self.store.spend(
            f"players:{session.address}", per / 86400, max(1, per), self.results.clock() / 1000
        ):
            raise Refused(
                "too_many_players",
                f"your address has made {per} new daily players today; play on as the one you have, "
                "or come back tomorrow",
            )
