"""Playing on from a step of a game on the record, over real websockets on the embedded store
(SQLite) and Redis: the practice room starts at exactly the engine's position after that many
actions, its restart comes back there (and no undo goes further back), nobody joins it (anyone
may watch), its game goes on the record as practice, listed so, no best and no rating; bad
replay ids, steps out of range, a daily game of today and a practice game as a ghost are
refused, saying why."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from race.engine import Game
from race.rooms.standing import board
from tests.support.processes import Client, Server
from tests.support.races import ann_wins_bob_resigns


@pytest.fixture(scope="module", params=["embedded", "redis"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data: Path = tmp_path_factory.mktemp("practice")
    url = "" if request.param == "embedded" else request.getfixturevalue("redis_url")
    s = Server(
        url,
        DATA_DIR=str(data),
        COUNTDOWN_SECONDS="0.2",
        RATE_LIMIT_PER_SECOND="1000",
        RATE_LIMIT_BURST="1000",
        DAILY_NODE_LIMIT="200000",
    )
    yield s
    s.stop()


def engine_after(line: dict[str, Any], n: int) -> Game:
    """The engine's game after the line's first ``n`` moves."""
    game = Game.deal(line["deal"], line["difficulty"])
    for move in line["moves"][:n]:
        game.play(move)
    return game


async def me(http: httpx.AsyncClient, key: str) -> dict[str, Any]:
    body: dict[str, Any] = (await http.get("/api/me", headers={"X-Device-Key": key})).json()
    return body


async def test_practice_starts_at_the_engines_position_restarts_there_and_is_kept_as_practice(served: Server) -> None:
    ann_key, bob_key = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    raced = await ann_wins_bob_resigns(served, ann={"device": ann_key}, bob={"device": bob_key})
    await raced.close()
    line, n = raced.line, 40
    async with httpx.AsyncClient(base_url=served.url) as http:
        games = (await http.get(f"/api/rooms/{raced.code}/replays")).json()["replays"]
        rid = next(g["id"] for g in games if g["name"] == "Ann")
        before = await me(http, ann_key)

    ann = await Client.connect(served.ws_url)
    create = {"type": "create", "name": "Ann", "device": ann_key, "from": {"replay": rid, "step": n}}
    joined = await ann.request(create, "joined")
    assert joined["type"] == "joined", joined
    room, state = joined["room"], joined["state"]
    code = room["code"]
    assert (room["kind"], room["phase"], room["listed"]) == ("practice", "racing", False)
    assert room["practice"] == {"replay": rid, "step": n, "name": "Ann"}
    assert (room["deal"], room["difficulty"]) == (line["deal"], line["difficulty"])
    at_n = engine_after(line, n)
    assert state["board"] == board(at_n)  # the engine's own board after n actions
    assert state["legal_moves"] == [str(m) for m in at_n.legal_moves()] and not state["can_undo"]

    # Solo: a join is refused, saying why; watching is allowed.
    bob = await Client.connect(served.ws_url)
    refused = await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    assert (refused["type"], refused["code"]) == ("error", "practice_room"), refused
    assert "practice" in refused["message"]
    watching = await bob.request({"type": "watch", "room": code}, "watching")
    assert watching["room"]["practice"]["step"] == n
    await bob.close()

    # Two moves, then restart: back at step n, not the deal; no undo past it.
    for move in line["moves"][n : n + 2]:
        state = await ann.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert state["type"] == "state", state
    assert state["board"] == board(engine_after(line, n + 2))
    state = await ann.request({"type": "undo", "version": state["version"]}, "state")
    assert state["type"] == "state" and state["board"] == board(engine_after(line, n + 1)), state
    state = await ann.request({"type": "restart", "version": state["version"]}, "state")
    assert state["type"] == "state", state
    assert state["board"] == board(at_n) and not state["can_undo"]
    refused = await ann.request({"type": "undo", "version": state["version"]}, "state")
    assert (refused["type"], refused["code"]) == ("error", "illegal_move"), refused

    # Played on to a win: on the record as practice, replaying from step n.
    for move in line["moves"][n:]:
        state = await ann.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert state["type"] == "state", state
    assert state["won"]
    await ann.expect("room", where=lambda m: m["room"]["phase"] == "over")
    await ann.close()
    async with httpx.AsyncClient(base_url=served.url) as http:
        (kept,) = (await http.get(f"/api/rooms/{code}/replays")).json()["replays"]
        replay = (await http.get(f"/api/replays/{kept['id']}")).json()
        assert replay["kind"] == "practice" and replay["practice"] == {"replay": rid, "step": n, "name": "Ann"}
        assert {k: replay["board"][k] for k in ("piles", "foundations")} == {
            k: board(at_n)[k] for k in ("piles", "foundations")
        }
        acts = [*line["moves"][n : n + 2], "undo", "restart", *line["moves"][n:]]
        assert [s["act"] for s in replay["steps"]] == acts
        assert replay["steps"][-1]["home"] == 104
        rated = (await http.get(f"/api/rooms/{code}/ratings")).json()
        assert rated["rated"] is False  # a practice never counts
        after = await me(http, ann_key)
        listed = next(g for g in after["games"] if g["id"] == kept["id"])
        assert listed["kind"] == "practice" and listed["practice"]["replay"] == rid
        assert after["rating"] == before["rating"]
        assert after["best"] == before["best"]  # a practice game is no best, however quick
        analysis = (await http.get(f"/api/replays/{kept['id']}/analysis")).json()
        assert analysis["status"] == "off"

    # A practice game is not raced again as a ghost.
    dot = await Client.connect(served.ws_url)
    refused = await dot.request({"type": "create", "name": "Dot", "ghosts": [kept["id"]]}, "joined")
    assert (refused["type"], refused["code"]) == ("error", "bad_ghosts"), refused
    # From step 0 of the practice game: its own start, not the deal.
    again = await dot.request({"type": "create", "name": "Dot", "from": {"replay": kept["id"], "step": 0}}, "joined")
    assert again["type"] == "joined" and again["state"]["board"] == board(at_n), again
    await dot.close()


async def test_bad_practice_requests_are_refused_saying_why(served: Server) -> None:
    raced = await ann_wins_bob_resigns(served)
    await raced.close()
    async with httpx.AsyncClient(base_url=served.url) as http:
        games = (await http.get(f"/api/rooms/{raced.code}/replays")).json()["replays"]
    rid = next(g["id"] for g in games if g["name"] == "Ann")
    steps = len(raced.line["moves"])

    # A daily game of today: kept back until the day is over.
    key = secrets.token_urlsafe(24)
    eve = await Client.connect(served.ws_url)
    daily = await eve.request({"type": "daily", "name": "Eve", "difficulty": "easy", "device": key}, "joined")
    assert daily["type"] == "joined", daily
    state = daily["state"]
    state = await eve.request({"type": "move", "move": state["legal_moves"][0], "version": state["version"]}, "state")
    await eve.send({"type": "resign"})
    await eve.expect("room", where=lambda m: m["room"]["phase"] == "over")
    await eve.close()
    async with httpx.AsyncClient(base_url=served.url) as http:
        (today,) = (await me(http, key))["games"]
    assert today["kept_back"]

    client = await Client.connect(served.ws_url)
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"from": {"replay": "AAAAAAAAAAAA", "step": 1}}, "unknown_replay", "no game AAAAAAAAAAAA"),
        ({"from": {"replay": "short", "step": 1}}, "bad_message", "replay id"),
        ({"from": {"replay": rid, "step": steps + 1}}, "bad_step", f"0 to {steps}"),
        ({"from": {"replay": rid, "step": steps}}, "bad_step", "won at step"),
        ({"from": {"replay": rid, "step": -1}}, "bad_message", ">= 0"),
        ({"from": {"replay": rid}}, "bad_message", "step"),
        ({"from": {"replay": rid, "step": 3}, "deal": 5}, "bad_practice", "no deal"),
        ({"from": {"replay": rid, "step": 3}, "ghosts": [rid]}, "bad_practice", "ghosts"),
        ({"from": {"replay": today["id"], "step": 1}}, "kept_back", "once its day is over"),
    ]
    for extra, code, words in cases:
        reply = await client.request({"type": "create", "name": "Dot", **extra}, "joined")
        assert (reply["type"], reply["code"]) == ("error", code), (extra, reply)
        assert words in reply["message"], (extra, reply)
    # Nothing was made: the connection can still play on from the step before the win.
    ok = await client.request({"type": "create", "name": "Dot", "from": {"replay": rid, "step": steps - 1}}, "joined")
    assert ok["type"] == "joined" and ok["state"]["legal_moves"], ok
    assert ok["state"]["cards"] < 104 and raced.line["moves"][-1] in ok["state"]["legal_moves"]
    await client.close()
