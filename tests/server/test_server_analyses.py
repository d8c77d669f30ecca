"""A finished race's games get their analysis, computed in a worker process and kept with the
record, and the read API serves it: the slip lands on the move that lost a constructed game, and
the solver's line from a step replays to a win. On the embedded store and on Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from race.engine import Game
from tests.support.processes import Client, Server
from tests.support.slips import lost_game
from tests.support.winning_lines import first_winning_line


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[Server, str]]:
    url = "memory://" if request.param == "memory" else request.getfixturevalue("redis_url")
    s = Server(
        url,
        COUNTDOWN_SECONDS="0.3",
        RATE_LIMIT_PER_SECOND="1000",
        RATE_LIMIT_BURST="1000",
        SOLVER_NODE_LIMIT="0",
        ANALYSIS_NODE_LIMIT="1000000",
    )
    yield s, url
    s.stop()


async def play(client: Client, acts: list[str] | tuple[str, ...]) -> dict[str, Any]:
    state = await client.started()
    for act in acts:
        msg = {"type": "move", "move": act, "version": state["version"]}
        state = await client.request(msg, "state")
        assert state["type"] == "state", state
    return state


async def analysed(http: httpx.AsyncClient, rid: str) -> dict[str, Any]:
    """The game's analysis once it is done (a worker process's search: nothing to wait on but its
    result, which the API says is ``computing`` until then)."""
    async with asyncio.timeout(120):
        while (view := (await http.get(f"/api/replays/{rid}/analysis")).json())["status"] == "computing":
            await asyncio.sleep(0.1)
    assert isinstance(view, dict)
    return view


async def test_a_finished_races_games_are_analysed_and_the_slip_is_the_losing_move(
    served: tuple[Server, str],
) -> None:
    server, store_url = served
    line = first_winning_line()
    acts, slip = lost_game(line["deal"], line["difficulty"])
    ann = await Client.connect(server.ws_url)
    created = await ann.request(
        {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"]}, "joined"
    )
    code = created["room"]["code"]
    bob = await Client.connect(server.ws_url)
    await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    await ann.send({"type": "start"})
    await ann.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    await play(ann, acts)
    await ann.send({"type": "resign"})
    assert (await play(bob, line["moves"]))["won"]
    await bob.expect("room", where=lambda m: m["room"]["phase"] == "over")

    async with httpx.AsyncClient(base_url=server.url) as http:
        listed = (await http.get(f"/api/rooms/{code}/replays")).json()["replays"]
        ids = {g["name"]: g["id"] for g in listed}
        first = (await http.get(f"/api/replays/{ids['Ann']}/analysis")).json()
        assert first["status"] in ("computing", "done")
        ann_view, bob_view = await analysed(http, ids["Ann"]), await analysed(http, ids["Bob"])

        assert ann_view["status"] == "done" and not ann_view["won"]
        said = {k: ann_view["slip"][k] for k in ("step", "act", "proven")}
        assert said == {"step": slip, "act": acts[slip], "proven": True}
        game = Game.deal(line["deal"], line["difficulty"])
        for move in acts[:slip]:
            game.play(move)
        assert ann_view["slip"]["played"]["to"] == (acts[slip] if acts[slip] == "shuffle" else acts[slip].split(">")[1])
        assert ann_view["slip"]["better"]["to"] and ann_view["slip"]["better"] != ann_view["slip"]["played"]
        verdicts = [s["v"] for s in ann_view["steps"]]
        assert verdicts == ["win"] * (slip + 1) + ["lost"] * (len(acts) - slip)
        assert ann_view["decided"] == len(acts) + 1 and ann_view["solver_moves"] > 0
        assert bob_view["won"] and bob_view["slip"] is None
        assert {s["v"] for s in bob_view["steps"]} == {"win"}

        # The solver's line from a step: each move with what it changes, and it wins.
        k = slip // 2
        shown = (await http.get(f"/api/replays/{ids['Ann']}/line/{k}")).json()
        assert shown["step"] == k and len(shown["moves"]) == ann_view["steps"][k]["n"]
        assert [c["act"] for c in shown["changes"]] == shown["moves"]
        game = Game.deal(line["deal"], line["difficulty"])
        for move in [*acts[:k], *shown["moves"]]:
            game.play(move)
        assert game.is_won and shown["changes"][-1]["home"] == 104
        assert (await http.get(f"/api/replays/{ids['Ann']}/line/{slip + 1}")).status_code == 404  # lost there
        assert (await http.get(f"/api/replays/{ids['Ann']}/line/{len(acts) + 1}")).status_code == 404
        assert (await http.get(f"/api/replays/{ids['Ann']}/line/x")).status_code == 400
        assert (await http.get("/api/replays/nonexistent0/analysis")).status_code == 404
        # Computed once: read again, the same analysis (the same searches), cached by browsers.
        again = await http.get(f"/api/replays/{ids['Ann']}/analysis")
        assert again.json() == ann_view and "max-age" in again.headers["cache-control"]

    if not store_url.startswith("memory"):  # kept with the record, no longer than it
        redis = Redis.from_url(store_url)
        try:
            record_ms = await redis.pttl(f"record:{ids['Ann']}")
            assert 0 < await redis.pttl(f"analysis:{ids['Ann']}") <= record_ms
        finally:
            await redis.aclose()
    for c in (ann, bob):
        await c.close()
