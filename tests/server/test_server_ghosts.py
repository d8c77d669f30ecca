"""Racing ghosts over real websockets, on the embedded store and Redis: a room made with
games on the record gets their deal, difficulty and timelines; the ghosts rank by their
whole games when the race is over; bad ghost lists are refused, saying why; a rematch (a
new deal) has none."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.processes import Client, Server
from tests.support.races import ann_wins_bob_resigns
from tests.support.winning_lines import first_winning_line


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request: pytest.FixtureRequest) -> Iterator[Server]:
    url = "memory://" if request.param == "memory" else request.getfixturevalue("redis_url")
    s = Server(url, COUNTDOWN_SECONDS="0.2", RATE_LIMIT_PER_SECOND="1000", RATE_LIMIT_BURST="1000")
    yield s
    s.stop()


async def won_game(server: Server, name: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """``name`` wins the checked-in line in a solo race; the game's record id, the line,
    and the last state."""
    line = first_winning_line()
    client = await Client.connect(server.ws_url)
    created = await client.request(
        {"type": "create", "name": name, "difficulty": line["difficulty"], "deal": line["deal"]}, "joined"
    )
    code = created["room"]["code"]
    await client.send({"type": "start"})
    await client.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    state = created["state"]
    for move in line["moves"]:
        state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert state["type"] == "state", state
    await client.close()
    async with httpx.AsyncClient(base_url=server.url) as http:
        (game,) = (await http.get(f"/api/rooms/{code}/replays")).json()["replays"]
    return game["id"], line, state


async def test_a_ghost_races_on_its_deal_and_ranks_by_its_whole_game(served: Server) -> None:
    rid, line, won = await won_game(served, "Ann")
    cat = await Client.connect(served.ws_url)
    joined = await cat.request({"type": "create", "name": "Cat", "ghosts": [rid]}, "joined")
    assert joined["type"] == "joined", joined
    room = joined["room"]
    assert (room["deal"], room["difficulty"]) == (line["deal"], line["difficulty"])  # the ghost's
    (ghost,) = room["ghosts"]
    assert (ghost["seat"], ghost["name"], ghost["record"]) == ("g1", "Ann", rid)
    assert len(ghost["at"]) == len(ghost["home"]) == len(line["moves"])
    assert ghost["at"] == sorted(ghost["at"]) and ghost["home"][-1] == 104
    assert ghost["finished_ms"] == won["finished_ms"] and ghost["start_home"] == joined["state"]["cards"]
    assert [p["seat"] for p in room["players"]] == ["s1"]  # a ghost is no player: it takes no seat

    await cat.send({"type": "start"})
    await cat.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    state = await cat.started()
    state = await cat.request({"type": "move", "move": state["legal_moves"][0], "version": state["version"]}, "state")
    await cat.send({"type": "resign"})
    over = await cat.expect("room", where=lambda m: m["room"]["phase"] == "over")
    ranking = over["room"]["ranking"]
    assert [(r["place"], r["name"], r.get("ghost", False)) for r in ranking] == [(1, "Ann", True), (2, "Cat", False)]
    assert ranking[0]["finished_ms"] == won["finished_ms"] and ranking[0]["moves"] == len(line["moves"])

    # The rematch is a new deal: the ghosts stay with theirs.
    await cat.send({"type": "rematch"})
    lobby = await cat.expect("room", where=lambda m: m["room"]["phase"] == "lobby")
    assert "ghosts" not in lobby["room"] and [r["name"] for r in lobby["room"]["ranking"]] == ["Cat"]
    await cat.close()


async def test_a_bad_ghost_list_is_refused_saying_why(served: Server) -> None:
    rid, line, _ = await won_game(served, "Bea")
    client = await Client.connect(served.ws_url)
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"ghosts": ["AAAAAAAAAAAA"]}, "unknown_replay", "no game AAAAAAAAAAAA"),
        ({"ghosts": ["short"]}, "bad_message", "replay id"),
        ({"ghosts": [rid] * 8}, "bad_message", "7"),
        ({"ghosts": [rid], "deal": line["deal"] + 1}, "bad_ghosts", "leave the deal out"),
    ]
    for extra, code, words in cases:
        reply = await client.request({"type": "create", "name": "Dot", **extra}, "joined")
        assert (reply["type"], reply["code"]) == ("error", code), (extra, reply)
        assert words in reply["message"], reply
    # Nothing was made: the connection can still create a room of its own.
    ok = await client.request({"type": "create", "name": "Dot", "ghosts": [rid, rid]}, "joined")
    assert ok["type"] == "joined" and len(ok["room"]["ghosts"]) == 1  # the same game once
    await client.close()


async def test_a_rematch_against_the_ghosts_is_the_same_deal_with_the_round_raced_again(served: Server) -> None:
    async def too_soon(ann: Client) -> None:
        refused = await ann.request({"type": "rematch", "ghosts": True})
        assert (refused["type"], refused["code"]) == ("error", "not_over"), refused

    raced = await ann_wins_bob_resigns(served, in_lobby=too_soon)
    ann, bob, line, state = raced.ann, raced.bob, raced.line, raced.won

    refused = await ann.request({"type": "rematch", "ghosts": True, "deal": 3})
    assert (refused["type"], refused["code"]) == ("error", "bad_ghosts"), refused
    await bob.send({"type": "rematch", "ghosts": True})
    await ann.expect("room", where=lambda m: "offer" in m["room"]["series"])
    await ann.send({"type": "answer", "accept": True})
    lobby = await ann.expect("room", where=lambda m: m["room"]["round"] == 2)
    room = lobby["room"]
    assert (room["deal"], room["round"]) == (line["deal"], 2)
    assert [(g["seat"], g["name"], len(g["at"])) for g in room["ghosts"]] == [
        ("g1", "Ann", len(line["moves"])),
        ("g2", "Bob", 1),
    ]
    assert room["ghosts"][0]["finished_ms"] == state["finished_ms"] and room["ghosts"][1]["resigned"]
    ranking = [(r["name"], r.get("ghost", False)) for r in room["ranking"]]
    assert ranking[0] == ("Ann", True) and sorted(ranking) == [
        ("Ann", False),
        ("Ann", True),
        ("Bob", False),
        ("Bob", True),
    ]
    for c in (ann, bob):
        await c.close()
