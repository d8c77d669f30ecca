"""The presence service against both stores: what it tells a room, and when."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

from race.presence import Presence, member_id
from race.store import Store


async def told(store: Store) -> dict[str, Any]:
    async with asyncio.timeout(5):
        async for _, message in store.messages():
            return dict(json.loads(message))
    raise AssertionError("unreachable")


async def test_spectators_are_told_once_for_many_arrivals_players_at_once(store: Store) -> None:
    room = "P" + secrets.token_hex(4).upper()
    presence = Presence(store, watchers_every=0.05)
    await store.subscribe(room)
    try:
        first = await presence.arrive(room, member_id("c0", "s1"))
        assert first is not None and first["here"] == ["s1"] and first["watching"] == 0
        assert await told(store) == first  # a player's arrival: at once
        for i in range(1, 6):
            view = await presence.arrive(room, member_id(f"c{i}", None))
            assert view is not None and view["watching"] == i  # each arrival learns the count
        assert (await told(store))["watching"] == 5  # one message for the five of them
        await presence.arrive(room, member_id("c9", "s2"))
        after = await told(store)  # nothing else was queued between
        assert (after["here"], after["watching"]) == (["s1", "s2"], 5)
        await presence.depart(room, member_id("c9", "s2"), announce=False)  # a replaced window
        await presence.depart(room, member_id("c0", "s1"))
        gone = await told(store)
        assert (gone["here"], gone["version"]) == ([], after["version"] + 2)
    finally:
        await presence.stop()
        await store.unsubscribe(room)


async def test_a_refresh_keeps_this_process_here_and_tells_who_ran_out(store: Store) -> None:
    """Another process's member whose time ran out is dropped by this process's refresh."""
    room = "P" + secrets.token_hex(4).upper()
    clock = [1000.0]
    ours = Presence(store, ttl=30, clock=lambda: clock[0])
    theirs = Presence(store, ttl=30, clock=lambda: clock[0])
    await store.subscribe(room)
    try:
        await ours.arrive(room, member_id("a", "s1"))
        await theirs.arrive(room, member_id("b", "s2"))
        assert (await told(store))["here"] == ["s1"]
        assert (await told(store))["here"] == ["s1", "s2"]
        clock[0] += 20
        await ours.refresh()  # nothing changed: nothing told
        clock[0] += 20  # s2's process died: its time ran out at 1030, s1's runs to 1050
        await ours.refresh()
        assert (await told(store))["here"] == ["s1"]
    finally:
        await ours.stop()
        await theirs.stop()
        await store.unsubscribe(room)
