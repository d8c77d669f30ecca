"""The presence service against both stores: what it tells a room, and when."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from race.live.presence import Presence, member_id
from race.rooms.events import Events, PlayerBack, route
from race.store import Roll, Store
from race.store.memory import MemoryStore
from race.wire.envelope import decode, texts


async def told(store: Store) -> tuple[str | None, dict[str, Any]]:
    """The next message published on a subscribed room: whom it skips, and the message."""
    async with asyncio.timeout(5):
        async for _, message in store.messages():
            envelope = decode(message)
            skip, (text, _) = envelope.skip, texts(envelope)
            return skip, dict(json.loads(text))
    raise AssertionError("unreachable")


@pytest.fixture
async def room(store: Store) -> AsyncIterator[str]:
    code = "P" + secrets.token_hex(4).upper()
    await store.subscribe(code)
    yield code
    await store.unsubscribe(code)


async def test_spectators_are_told_once_for_many_arrivals_players_at_once(store: Store, room: str) -> None:
    presence = Presence(store, watchers_every=0.05)
    try:
        first = await presence.arrive(room, member_id("c0", "s1"), "c0")
        assert first is not None and first["here"] == ["s1"] and first["watching"] == 0
        # A player's arrival: at once, to everyone but the one who arrived (it has the reply).
        assert await told(store) == ("c0", first)
        for i in range(1, 6):
            view = await presence.arrive(room, member_id(f"c{i}", None), f"c{i}")
            assert view is not None and view["watching"] == i  # each arrival learns the count
        skip, five = await told(store)
        assert skip is None and five["watching"] == 5  # one message for the five of them
        await presence.arrive(room, member_id("c9", "s2"), "c9")
        _, after = await told(store)  # nothing else was queued between
        assert (after["here"], after["watching"]) == (["s1", "s2"], 5)
    finally:
        await presence.stop()


async def test_a_replaced_window_is_told_soon_and_whatever_is_current_is_said(store: Store, room: str) -> None:
    """A seat reopened elsewhere: if the new window has gone too, the room still learns it."""
    presence = Presence(store, watchers_every=0.05)
    try:
        await presence.arrive(room, member_id("old", "s1"), "old")
        await told(store)
        await presence.depart(room, member_id("old", "s1"), replaced=True)
        skip, said = await told(store)
        now = await store.presence(room, 0)
        assert skip is None and said["version"] == now.version and said["here"] == []
        assert set(said["away_since"]) == {"s1"}
    finally:
        await presence.stop()


async def test_a_refresh_tells_its_own_connections_again_and_the_room_who_ran_out(store: Store, room: str) -> None:
    """Each refresh repeats the room's presence to this process's connections (a message
    lost earlier is made good, one copy per connection however many processes there are),
    and tells the whole room when another process's member's time ran out."""
    clock = [1000.0]
    mine: list[tuple[str, dict[str, Any]]] = []
    back: asyncio.Queue[str] = asyncio.Queue()

    async def on_player(event: PlayerBack) -> None:
        back.put_nowait(event.room)

    ours = Presence(
        store,
        ttl=30,
        watchers_every=3600,  # the spectator's arrival is told only when this stops
        clock=lambda: clock[0],
        local_deliver=lambda code, text: mine.append((code, json.loads(text))),
        events=Events(route(PlayerBack, on_player)),
    )
    theirs = Presence(store, ttl=30, clock=lambda: clock[0])
    try:
        await ours.arrive(room, member_id("a", "s1"), "a")
        await ours.arrive(room, member_id("w", None), "w")
        assert await asyncio.wait_for(back.get(), 5) == room  # the player's arrival
        await theirs.arrive(room, member_id("b", "s2"), "b")
        assert (await told(store))[1]["here"] == ["s1"]
        both = (await told(store))[1]
        clock[0] += 20
        await ours.refresh()
        assert mine == [(room, {**both, "watching": 1})]  # the same again, to its own only
        clock[0] += 20  # s2's process died: its time ran out at 1030, s1's runs to 1050
        await ours.refresh()
        gone = (await told(store))[1]  # a change: the whole room hears it
        assert gone["here"] == ["s1"] and gone["version"] > both["version"] and len(mine) == 1
        clock[0] += 100  # this process could not reach the store for longer than the ttl
        await theirs.refresh()  # another process finds its members' time ran out
        await ours.refresh()  # and they are back: the room is live again
        assert await asyncio.wait_for(back.get(), 5) == room
    finally:
        await ours.stop()
        await theirs.stop()
    assert back.empty()  # not for the spectator, nor for the refreshes that found them here


async def test_stopping_tells_what_was_to_be_told_soon(store: Store, room: str) -> None:
    """A process shutting down (a deploy) closes its spectators' connections: the room must
    not go on counting them."""
    presence = Presence(store, watchers_every=3600)
    await presence.arrive(room, member_id("w", None), "w")
    await presence.depart(room, member_id("w", None))
    await presence.stop()
    assert (await told(store))[1]["watching"] == 0


class BrokenPresence(MemoryStore):
    async def presence(
        self, room: str, now: float, *, here: Sequence[str] = (), gone: Sequence[str] = (), until: float = 0
    ) -> Roll:
        raise RuntimeError("read-only replica")


async def test_no_store_failure_escapes_presence() -> None:
    """Presence is best effort: whatever the store raises (a failover's read-only replica
    too), no connection's handling or clean-up is cut short."""
    presence = Presence(BrokenPresence(ttl=60))
    assert await presence.arrive("R", member_id("c", "s1"), "c") is None
    await presence.depart("R", member_id("c", "s1"))
    await presence.refresh()
    assert presence.local == {}
    with pytest.raises(ValueError):
        Presence(MemoryStore(ttl=60), ttl=0)
