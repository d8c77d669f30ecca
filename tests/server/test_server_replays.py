"""Every game of a race goes on the record when the race is over, checked by replaying it,
and reads back over HTTP as a replay: on the embedded store and on Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from race.engine import Game
from race.rooms.record import check, decode
from race.rooms.standing import board
from race.service.solver_lines import line_length
from race.store import open_store
from tests.support.processes import Client, Server
from tests.support.winning_lines import first_winning_line


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Server, str]]:
    """A server, and the URL of its store."""
    url = "memory://" if request.param == "memory" else request.getfixturevalue("redis_url")
    s = Server(
        url,
        COUNTDOWN_SECONDS="0.3",
        RATE_LIMIT_PER_SECOND="1000",
        RATE_LIMIT_BURST="1000",
        RECORD_KEEP_DAYS="2",
        SOLVER_NODE_LIMIT="200000",
    )
    yield s, url
    s.stop()


def applied(view: dict[str, Any], upto: int) -> dict[str, Any]:
    """The board after ``upto`` steps, as the replay page builds it from what it is told."""
    shown = {**view["board"], "piles": list(view["board"]["piles"]), "foundations": dict(view["board"]["foundations"])}
    for step in view["steps"][:upto]:
        for i, pile in step.get("piles", {}).items():
            shown["piles"][int(i)] = pile
        shown["foundations"].update(step.get("foundations", {}))
        shown["shuffles_left"] = step.get("shuffles_left", shown["shuffles_left"])
    return {k: shown[k] for k in ("piles", "foundations", "shuffles_left")}


async def test_a_finished_race_leaves_a_checked_replay_of_every_game(served: tuple[Server, str]) -> None:
    server, store_url = served
    line = first_winning_line()
    ann = await Client.connect(server.ws_url)
    created = await ann.request(
        {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"]}, "joined"
    )
    code = created["room"]["code"]
    bob = await Client.connect(server.ws_url)
    joined = await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    await ann.send({"type": "start"})
    for c in (ann, bob):
        await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")

    state = created["state"]
    sent = [line["moves"][0], "undo", "restart", *line["moves"]]
    for act in sent:
        msg: dict[str, Any] = {"type": act, "version": state["version"]} if act in ("undo", "restart") else {}
        msg = msg or {"type": "move", "move": act, "version": state["version"]}
        state = await ann.request(msg, "state")
        assert state["type"] == "state", state
    assert state["won"]
    bob_move = (await bob.started())["legal_moves"][0]
    assert (await bob.request({"type": "move", "move": bob_move, "version": 1}, "state"))["type"] == "state"
    await bob.request({"type": "resign"}, "state")  # (its reply comes once the games are kept)
    over = await ann.expect("room", where=lambda m: m["room"]["phase"] == "over")
    ranked = {r["name"]: r["moves"] for r in over["room"]["ranking"]}
    assert ranked == {"Ann": len(line["moves"]) + 1, "Bob": 1}  # an undo, a restart: no moves

    async with httpx.AsyncClient(base_url=server.url) as http:
        listed = (await http.get(f"/api/rooms/{code.lower()}/replays")).json()
        by_name = {g["name"]: g for g in listed["replays"]}
        assert sorted(by_name) == ["Ann", "Bob"]
        assert (by_name["Ann"]["seat"], by_name["Bob"]["seat"]) == (created["seat"], joined["seat"])
        assert by_name["Ann"]["result"] == {
            "home": 104,
            "moves": ranked["Ann"],  # the ranking's count
            "finished_ms": state["finished_ms"],
            "resigned": False,
            "won": True,
            "hints": 0,
            "penalty_ms": 0,
        }
        assert by_name["Bob"]["result"]["resigned"] and by_name["Bob"]["result"]["moves"] == 1
        view = (await http.get(f"/api/replays/{by_name['Ann']['id']}")).json()
        assert (view["name"], view["room"], view["deal"], view["round"]) == ("Ann", code, line["deal"], 1)
        assert view["seat"] == created["seat"] and view["known_deal"] is True  # (its deal was chosen)
        assert [s["act"] for s in view["steps"]][:3] == [line["moves"][0], "undo", "restart"]
        times = [s["at"] for s in view["steps"]]
        assert times == sorted(times) and times[-1] == state["finished_ms"]
        # A step chosen in the middle: the board the page builds is the engine's after those actions.
        game = Game.deal(line["deal"], line["difficulty"])
        for move in line["moves"][:50]:
            game.play(move)
        assert applied(view, 53) == board(game)
        # The solver's line for the deal, looked for in a worker once the race was over.
        expected = line_length(line["deal"], line["difficulty"], 200_000)
        assert expected is not None
        async with asyncio.timeout(60):
            while (await http.get(f"/api/replays/{by_name['Ann']['id']}")).json()["solver_moves"] is None:
                await asyncio.sleep(0.1)  # (a worker process's search: nothing to wait on but its result)
        listed = (await http.get(f"/api/rooms/{code}/replays")).json()["replays"]
        assert [g["solver_moves"] for g in listed] == [expected, expected]
        assert (await http.get("/api/replays/nonexistent0")).status_code == 404
        assert (await http.get("/api/replays/..%2f..%2fx")).status_code in (400, 404)

    if not store_url.startswith("memory"):  # the stored form itself replays
        store = open_store(store_url, ttl=60)
        await store.connect()
        try:
            data = await store.record_get(by_name["Ann"]["id"])
            assert data is not None and check(decode(data)).is_won
        finally:
            await store.close()
        # Kept as long as RECORD_KEEP_DAYS says.
        redis = Redis.from_url(store_url)
        try:
            assert 86400 < await redis.ttl(f"record:{by_name['Ann']['id']}") <= 2 * 86400
        finally:
            await redis.aclose()
    for c in (ann, bob):
        await c.close()
