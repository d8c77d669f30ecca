"""How a race ends (:class:`Ending`): when every player is out of it (finished or resigned),
when its time is up, or when the host, or a player who is out of it, ends it for those who
went away."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from race.rooms.errors import Refused
from race.rooms.events import RaceOver
from race.rooms.model import META, Status, end_from, is_done, phase
from race.rooms.views import presence_view, room_message, seats_of, with_end_from
from race.service.repo import Change, Room, Rooms, dump
from race.service.session import Session
from race.store import Doc
from race.wire import protocol as p
from race.wire.envelope import news

log = logging.getLogger("race.service")


class Ending:
    """The end of a race, whoever and whatever brings it."""

    def __init__(self, rooms: Rooms, *, clock: Callable[[], int], host_away_ms: int) -> None:
        self.rooms, self.clock = rooms, clock
        #: How long a player must have been away before the others may end the race
        #: without them (see :func:`race.rooms.model.end_from`).
        self.host_away_ms = host_away_ms

    async def end_if_done(self, code: str, *, now: bool = False) -> bool:
        """End a started race when every player is done or its time is up (or at once, with
        ``now``: the host ends it); True if it ended now. Safe to call from any process at
        any time: only one commit can end a race."""

        def action(room: Room) -> Change[bool]:
            meta = room.meta
            if meta.status is not Status.STARTED:
                return Change()
            seats = seats_of(room.docs, meta)
            if not (now or phase(meta, self.clock()) == "over" or all(is_done(s) for s, _ in seats)):
                return Change()
            meta.status, meta.ended_at = Status.OVER, self.clock()
            expect = {name: doc.version for name, doc in room.docs.items() if name == "meta" or name.startswith("p:")}
            after = {**room.docs, "meta": Doc(room.version + 1, dump(meta))}
            return Change(
                expect=expect,
                write={"meta": after["meta"].data},
                publish=room_message(after, self.clock()),
                value=True,
                events=(RaceOver(code, meta, seats),),
            )

        ended = await self.rooms.transact(code, action, missing_ok=True)
        if ended:
            log.info("room %s: race over", code)
        return bool(ended)

    async def end(self, session: Session, msg: p.End) -> list[dict[str, Any]]:
        """End the race now, for players who went away without resigning: everyone gets the
        final ``room``, the unfinished ranked by their cards home. The host may, at any time;
        so may a player who is out of the race (finished or resigned) when at most one of
        the players still in it is here, a player who has been away (no connection open) for
        ``host_away_ms`` not counting. So nobody who vanished, the host included, can keep
        the race from ending."""
        code = session.room
        assert code is not None
        docs = await self.rooms.read(code)
        meta = META.decode(docs["meta"].data)
        if phase(meta, self.clock()) not in ("racing", "countdown"):
            raise Refused("not_racing", "the race is not running")
        if meta.host != session.seat:
            seats = seats_of(docs, meta)
            me = next((s for s, _ in seats if s.seat == session.seat), None)
            if me is None or not is_done(me):
                raise Refused("not_host", "only the host can end the race, or a player who is out of it")
            racing = [s.seat for s, _ in seats if not is_done(s)]
            if len(racing) > 1:
                await self._may_end_without(code, racing)
        if await self.end_if_done(code, now=True):
            log.info("room %s: ended by %s", code, session.seat)
        return []

    async def _may_end_without(self, code: str, racing: list[str]) -> None:
        """Refuse to end the race for a player who is out of it before :func:`end_from`."""
        here, since = await self.rooms.here(code, self.clock()) or (set(racing), {})
        at, now = end_from(racing, here, since, self.host_away_ms), self.clock()
        if at is None:
            raise Refused("not_host", "only the host can end the race while two players still in it are here")
        if at > now:
            soon = f"try again in {(at - now + 999) // 1000} s"
            raise Refused("not_host", f"a player still racing has only just gone and may be back: {soon}")

    async def out(self, code: str) -> None:
        """A player went out of the race: end it if everyone is out, else tell the room its
        presence again, since its ``end_from`` may have changed."""
        if await self.end_if_done(code):
            return
        store = self.rooms.store
        roll = await store.presence(code, self.clock() / 1000)
        if roll.version:
            view = presence_view(roll.version, roll.listed, roll.counted, roll.gone_at)
            with_end_from(view, await store.read_all(code), self.clock(), self.host_away_ms)
            await self.rooms.publish(code, news(dump(view)))
