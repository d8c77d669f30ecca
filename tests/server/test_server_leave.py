"""Leaving a room once its race is over: the seat stays in that race's results, marked as
left, its token opens the room no more, and the next round deals it no seat; over real
websockets, on the embedded store and on Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.processes import Client, Server


@pytest.fixture(scope="module", params=["memory", "redis"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    url = "memory://" if request.param == "memory" else request.getfixturevalue("redis_url")
    s = Server(url)
    yield s
    s.stop()


async def test_a_player_leaves_after_the_race_and_the_next_round_has_no_seat_for_them(server: Server) -> None:
    ann = await Client.connect(server.ws_url)
    created = await ann.request({"type": "create", "name": "Ann", "difficulty": "easy"}, "joined")
    code = created["room"]["code"]
    bob, cy = await Client.connect(server.ws_url), await Client.connect(server.ws_url)
    bob_joined = await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    await cy.request({"type": "join", "room": code, "name": "Cy"}, "joined")
    await ann.send({"type": "start"})
    for c in (ann, bob, cy):
        await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")
        await c.send({"type": "resign"})
    over = await ann.expect("room", where=lambda m: m["room"]["phase"] == "over")
    assert [r["name"] for r in over["room"]["ranking"]] == ["Ann", "Bob", "Cy"]

    # Bob leaves: he is told so, and the others see him left, still in the results.
    assert await bob.request({"type": "leave"}, "left") == {"type": "left"}
    seen = await cy.expect("room", where=lambda m: any(p.get("left") for p in m["room"]["players"]))
    assert [(p["name"], p.get("left", False)) for p in seen["room"]["players"]] == [
        ("Ann", False),
        ("Bob", True),
        ("Cy", False),
    ]
    assert [r["name"] for r in seen["room"]["ranking"]] == ["Ann", "Bob", "Cy"]
    # His token opens the room no more.
    again = await Client.connect(server.ws_url)
    refused = await again.request({"type": "resume", "room": code, "token": bob_joined["token"]}, "error")
    assert refused["code"] == "bad_token"

    # The host leaves too: the role passes to Cy, who starts the next round, without them.
    await ann.request({"type": "leave"}, "left")
    handed = await cy.expect("room", where=lambda m: m["room"]["host"] != created["seat"])
    assert handed["room"]["host"] == "s3"
    await cy.send({"type": "rematch"})
    lobby = await cy.expect("room", where=lambda m: m["room"]["round"] == 2)
    assert [p["name"] for p in lobby["room"]["players"]] == ["Cy"] and lobby["room"]["phase"] == "lobby"
    # A newcomer takes a new seat (seat numbers are never handed out twice).
    dee = await Client.connect(server.ws_url)
    joined = await dee.request({"type": "join", "room": code, "name": "Dee"}, "joined")
    assert joined["seat"] == "s4"
    for c in (ann, bob, cy, again, dee):
        await c.close()


async def test_leaving_during_the_race_is_still_refused(server: Server) -> None:
    ann = await Client.connect(server.ws_url)
    created = await ann.request({"type": "create", "name": "Ann", "difficulty": "easy"}, "joined")
    bob = await Client.connect(server.ws_url)
    await bob.request({"type": "join", "room": created["room"]["code"], "name": "Bob"}, "joined")
    await ann.send({"type": "start"})
    await bob.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    refused = await bob.request({"type": "leave"}, "error")
    assert refused["code"] == "already_started"  # resign first: the race has your seat in it
    for c in (ann, bob):
        await c.close()
