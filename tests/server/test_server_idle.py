"""The idle rule over real websockets: a player who keeps their page open and does nothing
for RACE_IDLE_SECONDS is raced past, and the pages learn it from ``presence`` without anyone
acting (the room's timers wake the server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.processes import Client, Server


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    """A server whose players turn idle after a second, and whose presence is refreshed
    only every 20 s: a ``presence`` sooner is the idle timer's."""
    s = Server(RACE_IDLE_SECONDS="1", PRESENCE_TTL_SECONDS="60")
    yield s
    s.stop()


async def test_a_page_learns_that_an_idle_rival_may_be_raced_past(served: Server) -> None:
    """Ann and Bob, both connected, start and sit still: a second later both pages are told
    who is idle and from when each may end the race. Bob's move makes him here again, and
    the pages are told that too; once idle again, Ann ends the race."""
    ann, bob = await Client.connect(served.ws_url), await Client.connect(served.ws_url)
    code = (await ann.request({"type": "create", "name": "Ann", "deal": 5}, "joined"))["room"]["code"]
    await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    await ann.send({"type": "start"})
    for c in (ann, bob):
        await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    bob_state = await bob.started()
    for c in (ann, bob):
        told = await c.expect("presence", timeout=8, where=lambda m: m.get("idle") == ["s1", "s2"])
        assert told["here"] == ["s1", "s2"]
        assert isinstance(told["end_from"]["s1"], int) and isinstance(told["end_from"]["s2"], int)

    ann.inbox.clear()  # (what came before: the lobby's presence)
    move = {"type": "move", "move": bob_state["legal_moves"][0], "version": bob_state["version"]}
    await bob.request(move, "state")
    back = await ann.expect("presence", timeout=8, where=lambda m: "s2" not in m["idle"])
    assert back["end_from"]["s1"] is None  # Bob is here and has just moved
    again = await ann.expect("presence", timeout=8, where=lambda m: "s2" in m["idle"])
    assert isinstance(again["end_from"]["s1"], int)
    bob.inbox.clear()  # (what came before: Ann idle all along)
    await ann.send({"type": "end"})
    over = await ann.expect("room", where=lambda m: m["room"]["phase"] == "over")
    assert over["room"]["ended_by"] == "end"
    await bob.expect("presence", timeout=8, where=lambda m: m["idle"] == [])  # over: nobody is idle
    await ann.close()
    await bob.close()
