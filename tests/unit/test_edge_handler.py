"""The handler on a fake service and fake channels: what a message follows, unfollows and
answers, and every kind of failure turned into an ``error`` reply."""

from __future__ import annotations

import json
from typing import Any

from race.edge.handler import MAX_FOLLOWED, Handler
from race.rooms.errors import Refused
from race.service import Session
from race.service.session import Role
from race.store import StoreUnavailable
from race.wire import protocol as p


class Service:
    """Answers each message with ``answer`` (or raises it); seats a join or a watch."""

    def __init__(self, answer: list[dict[str, Any]] | BaseException | None = None) -> None:
        self.answer = answer
        self.got: list[p.ClientMessage] = []

    async def handle(self, session: Session, msg: p.ClientMessage) -> list[dict[str, Any]]:
        self.got.append(msg)
        if isinstance(self.answer, BaseException):
            raise self.answer
        if isinstance(msg, p.Join | p.Watch):
            session.room = msg.room.upper()
            session.role = Role.PLAYER if isinstance(msg, p.Join) else Role.SPECTATOR
        if isinstance(msg, p.Leave):
            session.room = session.role = None
        return self.answer if self.answer is not None else [{"type": "ok"}]


class Channels:
    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []

    async def follow(self, channel: str) -> None:
        self.log.append(("follow", channel))

    async def unfollow(self, channel: str) -> None:
        self.log.append(("unfollow", channel))


def raw(**message: Any) -> str:
    return json.dumps(message)


async def test_a_join_follows_its_room_before_the_service_reads_it() -> None:
    service, channels, session = Service(), Channels(), Session("c1")
    outcome = await Handler(service, None).handle(session, raw(type="join", room="abc", name="Ann"), channels)
    assert channels.log == [("follow", "ABC")]
    assert outcome.arrived and outcome.replies == [{"type": "ok"}]


async def test_a_refused_join_follows_nothing() -> None:
    service, channels = Service(Refused("room_not_found", "no room ABC")), Channels()
    outcome = await Handler(service, None).handle(Session("c1"), raw(type="join", room="ABC", name="Ann"), channels)
    assert channels.log == [("follow", "ABC"), ("unfollow", "ABC")]
    assert outcome.replies == [p.error("room_not_found", "no room ABC")]
    assert not outcome.arrived


async def test_bad_input_is_an_error_reply_and_reaches_no_service() -> None:
    service, channels = Service(), Channels()
    handler = Handler(service, None)
    for text in ("{not json", raw(type="teleport"), raw(type="join", room="", name="Ann"), "[]"):
        outcome = await handler.handle(Session("c1"), text, channels)
        assert [r["type"] for r in outcome.replies] == ["error"], text
        assert outcome.replies[0]["code"] and outcome.replies[0]["message"]
    assert service.got == [] and channels.log == []


async def test_the_store_away_and_a_bug_are_errors_that_say_so() -> None:
    channels = Channels()
    away = await Handler(Service(StoreUnavailable("down")), None).handle(Session("c1"), raw(type="ping"), channels)
    assert away.replies[0]["code"] == "unavailable"
    bug = await Handler(Service(ZeroDivisionError()), None).handle(Session("c1"), raw(type="ping"), channels)
    assert bug.replies[0]["code"] == "internal"


async def test_leaving_unfollows_the_room_and_ends_a_spectator_delay() -> None:
    service, channels, session = Service(), Channels(), Session("c1")
    handler = Handler(service, None)
    await handler.handle(session, raw(type="join", room="ABC", name="Ann"), channels)
    outcome = await handler.handle(session, raw(type="leave"), channels)
    assert outcome.unfollow == ["ABC"] and outcome.delay_ms == 0


async def test_a_watch_with_a_delay_says_so_at_once() -> None:
    class Delaying(Service):
        async def handle(self, session: Session, msg: p.ClientMessage) -> list[dict[str, Any]]:
            replies = await super().handle(session, msg)
            session.delay_ms = 15000
            return replies

    outcome = await Handler(Delaying(), None).handle(Session("c1"), raw(type="watch", room="ABC"), Channels())
    assert outcome.at_once == [{"type": "delayed", "ms": 15000}] and outcome.delay_ms == 15000


async def test_a_connection_follows_at_most_a_few_leaderboards_the_oldest_dropped() -> None:
    service, channels, session = Service(), Channels(), Session("c1")
    handler = Handler(service, lambda: "2026-12-06")
    days = [f"2026-11-{d:02d}" for d in range(1, MAX_FOLLOWED + 2)]
    outcomes = [await handler.handle(session, raw(type="leaderboard", date=d), channels) for d in days]
    assert [list(o.unfollow) for o in outcomes[:MAX_FOLLOWED]] == [[]] * MAX_FOLLOWED
    assert len(outcomes[-1].unfollow) == 1 and days[0] in outcomes[-1].unfollow[0]
    assert len(session.boards) == MAX_FOLLOWED
