"""The tutorial over real websockets against a real server on a real Redis: its position is
the engine's (an illegal move is refused by the engine, a move the lesson does not teach by
the lesson), its lessons follow the server's state, and a win stays off the record."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from race.rooms import tutorial
from race.rooms.standing import board as board_of
from tests.support.processes import Client, Server

DEVICE = "tutorial-device-key-0123456789"


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[Server]:
    s = Server(redis_url, RATE_LIMIT_PER_SECOND="1000", RATE_LIMIT_BURST="1000")
    yield s
    s.stop()


def get(server: Server, path: str, **headers: str) -> Any:
    with urllib.request.urlopen(urllib.request.Request(f"{server.url}{path}", headers=headers), timeout=10) as r:
        return json.loads(r.read())


async def test_a_tutorial_is_validated_by_the_engine_and_won_off_the_record(server: Server, redis_url: str) -> None:
    ann = await Client.connect(server.ws_url)
    joined = await ann.request({"type": "tutorial", "name": "Ann", "device": DEVICE}, "joined")
    assert joined["type"] == "joined", joined
    room, state = joined["room"], joined["state"]
    code = room["code"]
    assert room["kind"] == "tutorial" and room["phase"] == "racing" and not room["listed"]
    assert room["deal"] is None and "daily_date" not in room
    assert state["board"] == board_of(tutorial.start())
    assert state["legal_moves"] == ["p1>uH"]  # the lesson's move only
    assert state["lesson"]["step"] == 1 and state["lesson"]["title"] == "Play a card home"

    # The engine refuses what the rules refuse, with its own reasons; nothing changes.
    refused = await ann.request({"type": "move", "move": "p3>uC", "version": state["version"]}, "state")
    assert refused["code"] == "illegal_move" and "uC needs JC, pile 3 shows KC" in refused["message"]
    refused = await ann.request({"type": "move", "move": "p0>p1", "version": state["version"]}, "state")
    assert refused["code"] == "illegal_move" and "pile 0 is empty" in refused["message"]
    refused = await ann.request({"type": "move", "move": "p1>pX", "version": state["version"]}, "state")
    assert refused["code"] == "invalid_move"
    # A legal move this lesson does not teach is the lesson's to refuse.
    refused = await ann.request({"type": "move", "move": "p3>p4", "version": state["version"]}, "state")
    assert refused["code"] == "not_in_lesson" and "p1>uH" in refused["message"]
    hint = await ann.request({"type": "hint"}, "hint")
    assert hint["move"] == "p1>uH"

    # Each lesson's move moves the lesson on; undo takes it back; restart goes back to the start.
    for k, move in enumerate(tutorial.LINE):
        state = await ann.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert state["type"] == "state", state
        assert state["lesson"]["step"] == k + 2
    assert len(state["legal_moves"]) > 1 and state["lesson"]["title"] == "Win the game"
    state = await ann.request({"type": "undo", "version": state["version"]}, "state")
    assert state["lesson"]["step"] == len(tutorial.LINE) and state["legal_moves"] == ["shuffle"]
    state = await ann.request({"type": "restart", "version": state["version"]}, "state")
    assert state["board"] == board_of(tutorial.start()) and state["lesson"]["step"] == 1 and not state["can_undo"]

    # Played again and won: the room is over, and the game is in no listing or record.
    game = tutorial.start()
    for move in tutorial.LINE:
        game.play(move)
        state = await ann.request({"type": "move", "move": move, "version": state["version"]}, "state")
    while not state["won"]:
        hint = await ann.request({"type": "hint"}, "hint")
        state = await ann.request({"type": "move", "move": hint["move"], "version": state["version"]}, "state")
        assert state["type"] == "state", state
    assert state["lesson"]["won"] and state["cards"] == 104 and state["finished_ms"] is not None
    over = await ann.expect("room", where=lambda m: m["room"]["phase"] == "over")
    assert over["room"]["kind"] == "tutorial"
    assert code not in json.dumps(get(server, "/api/rooms"))
    assert get(server, f"/api/rooms/{code}/replays")["replays"] == []
    assert get(server, "/api/me", **{"X-Device-Key": DEVICE})["games"] == []
    store = aioredis.from_url(redis_url, decode_responses=True)
    try:
        assert await store.llen(f"records:{{room:{code}}}") == 0
    finally:
        await store.aclose()
    await ann.send({"type": "rematch"})
    assert (await ann.expect("error"))["code"] == "no_rematch"
    await ann.close()
