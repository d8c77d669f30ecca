"""A whole race over real websockets against a real server on a real Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import Client, Server
from tests.web_helpers import winning_line


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[Server]:
    # A bot plays a whole winning line far faster than people can: lift the rate limit.
    s = Server(redis_url, COUNTDOWN_SECONDS="0.3", RATE_LIMIT_PER_SECOND="1000", RATE_LIMIT_BURST="1000")
    yield s
    s.stop()


async def test_a_whole_race_two_players_and_a_spectator(server: Server) -> None:
    line = winning_line()
    ann = await Client.connect(server.ws_url)
    created = await ann.request(
        {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"]}, "joined"
    )
    code = created["room"]["code"]
    bob = await Client.connect(server.ws_url)
    joined = await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    spectator = await Client.connect(server.ws_url)
    watching = await spectator.request({"type": "watch", "room": code}, "watching")

    # Everyone has the same deal.
    assert created["state"]["board"] == joined["state"]["board"] == watching["room"]["players"][0]["board"]
    assert watching["room"]["phase"] == "lobby" and [p["name"] for p in watching["room"]["players"]] == ["Ann", "Bob"]

    # Both ready: the countdown starts at one server timestamp for everyone.
    await ann.send({"type": "ready"})
    await bob.send({"type": "ready"})
    countdowns = [
        (await c.expect("room", where=lambda m: m["room"]["phase"] == "countdown"))["room"]
        for c in (ann, bob, spectator)
    ]
    assert len({r["start_at"] for r in countdowns}) == 1
    assert countdowns[0]["start_at"] - countdowns[0]["server_time"] == 300
    early = await ann.request({"type": "move", "move": line["moves"][0], "version": 1}, "state")
    assert early["type"] == "error" and early["code"] == "not_started"

    # The race begins at start_at: the server announces it to everyone.
    for c in (ann, bob, spectator):
        racing = await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")
        assert racing["room"]["server_time"] >= countdowns[0]["start_at"]

    # Ann plays the winning line.
    state = created["state"]
    for move in line["moves"]:
        reply = await ann.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert reply["type"] == "state", reply
        state = reply
    assert state["won"] and state["cards"] == 104 and state["legal_moves"] == []
    assert state["moves"] == len(line["moves"])
    finished_ms = state["finished_ms"]
    assert finished_ms > 0

    # Illegal moves are rejected and change nothing.
    bad = await bob.request({"type": "move", "move": "p0>p0", "version": 1}, "state")
    assert bad["code"] == "illegal_move"
    moved = await bob.request({"type": "move", "move": joined["state"]["legal_moves"][0], "version": 1}, "state")
    assert moved["version"] == 2 and moved["moves"] == 1

    # Bob and the spectator saw Ann's progress, ending with her finish.
    for c in (bob, spectator):
        last = await c.expect("player", where=lambda m: m["player"]["won"])
        assert last["player"]["finished_ms"] == finished_ms and last["player"]["cards"] == 104

    # Bob is stuck behind; he resigns and the race ends with the ranking for everyone.
    await bob.send({"type": "resign"})
    for c in (ann, bob, spectator):
        over = await c.expect("room", where=lambda m: m["room"]["phase"] == "over")
        ranking = over["room"]["ranking"]
        assert [(r["place"], r["name"], r["finished_ms"]) for r in ranking] == [
            (1, "Ann", finished_ms),
            (2, "Bob", None),
        ]
        assert ranking[1]["resigned"] is True
    after = await ann.request({"type": "move", "move": "shuffle", "version": state["version"]}, "state")
    assert after["code"] == "race_over"
    for c in (ann, bob, spectator):
        await c.close()
