"""The daily challenge's results (:class:`Results`): a won attempt posted to its day's board
(ranked only when played at a person's pace), the players' streaks, and a day's board read.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Any

import msgspec

from race.daily import board
from race.daily.deal import day_before
from race.rooms import pace as human
from race.rooms.errors import Refused
from race.rooms.events import DailyWon
from race.rooms.model import Meta, actions_of, acts_keys
from race.rooms.pace import Pace
from race.rooms.record import utc_date
from race.service.players import Profile, add_finished_day, board_group, counted, profile_group
from race.store import DailyStore
from race.wire.envelope import encode, news

log = logging.getLogger(__name__)
PROFILE_TTL = 400 * 86400

_enc = msgspec.json.Encoder()
_profile = msgspec.json.Decoder(Profile)


class Results:
    """The days' boards and the players' profiles in ``store``: a day's board is kept
    ``keep_days`` after its day (UTC) is over, on the days of ``clock``."""

    def __init__(
        self, store: DailyStore, *, clock: Callable[[], int], keep_days: int = 30, pace: Pace = human.ANY_PACE
    ) -> None:
        self.store, self.clock, self.keep_days = store, clock, keep_days
        #: The rules of human pace a result must keep to be ranked.
        self.pace = pace

    def today(self) -> str:
        return utc_date(self.clock())

    def ttl(self, date: str) -> int:
        """Seconds until ``keep_days`` days after the end of ``date`` (UTC)."""
        end = dt.datetime.combine(dt.date.fromisoformat(date), dt.time(), dt.UTC) + dt.timedelta(days=1)
        return max(int(end.timestamp() - self.clock() / 1000) + self.keep_days * 86400, 1)

    async def profile(self, token: str) -> tuple[Profile, int] | None:
        """The daily player of ``token``, and its profile's version; None for none."""
        (doc,) = await self.store.read(profile_group(token), ["profile"])
        return None if doc is None else (_profile.decode(doc.data), doc.version)

    async def post(self, event: DailyWon) -> None:
        """Post a won daily attempt (validated move by move by the server) to its board:
        ranked when its actions came at a person's pace and it took no hint; else
        unverified, with the reason, or assisted."""
        meta, seat = event.meta, event.seat
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
            unverified=human.reason(why) if why else None,
            pace=why,
            hints=seat.hints,
        )
        posted = await board.post(self.store, meta.daily_date, meta.difficulty, entry, self.ttl(meta.daily_date))
        await self._extend_streak(meta)  # also when this is a retry after a failure past the post
        if not posted:
            return
        if why:
            log.info("daily %s %s: %s unverified: %s", meta.daily_date, meta.difficulty, meta.code, entry.unverified)
        elif seat.hints:
            log.info("daily %s %s: %s assisted: %d hints", meta.daily_date, meta.difficulty, meta.code, seat.hints)
        shown = await self.leaderboard(meta.difficulty, meta.daily_date, 20, None)
        await self.store.publish(board_group(meta.daily_date, meta.difficulty), encode(news(dump(shown))))

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
                group, expect={"profile": doc.version}, write={"profile": dump(profile)}, ttl=PROFILE_TTL
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


def dump(obj: Any) -> str:
    return _enc.encode(obj).decode()
