"""Hints over real websockets, on the durable store and on Redis: the room's rule, the count
the server keeps, the penalty the ranking adds, the record's count, a daily win with a hint
kept apart, and a hint that never goes round in circles."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from race.daily import choose_deal
from race.engine import Game
from race.engine.hints import position_hash
from tests.support.processes import DAILY_SECRET, Client, Server
from tests.support.winning_lines import first_winning_line as winning_line

PENALTY_S = 20
NODE_LIMIT = "200000"
DEVICE = "hint-test-device-key-0001"


@pytest.fixture(scope="module", params=["sqlite", "redis"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    url = "" if request.param == "sqlite" else request.getfixturevalue("redis_url")
    s = Server(
        url,
        COUNTDOWN_SECONDS="0.2",
        RATE_LIMIT_PER_SECOND="1000",
        RATE_LIMIT_BURST="1000",
        HINT_PENALTY_SECONDS=str(PENALTY_S),
        DAILY_NODE_LIMIT=NODE_LIMIT,
    )
    yield s
    s.stop()


async def race_of_two(server: Server, **create: Any) -> tuple[Client, Client, dict[str, Any], dict[str, Any]]:
    """Ann makes a room on the checked-in line's deal (``create``: more fields), Bob joins,
    Ann starts it: both clients and their states at the start."""
    line = winning_line()
    ann = await Client.connect(server.ws_url)
    msg = {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"], **create}
    created = await ann.request(msg, "joined")
    assert created["type"] == "joined", created
    bob = await Client.connect(server.ws_url)
    await bob.request({"type": "join", "room": created["room"]["code"], "name": "Bob"}, "joined")
    await ann.send({"type": "start"})
    await ann.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    return ann, bob, await ann.started(), await bob.started()


async def room_of(client: Client) -> dict[str, Any]:
    """The room's snapshot, asked for with ``sync`` (its ``state`` taken too)."""
    room: dict[str, Any] = (await client.request({"type": "sync"}, "room"))["room"]
    await client.expect("state")
    return room


async def play(client: Client, state: dict[str, Any], moves: list[str]) -> dict[str, Any]:
    for move in moves:
        state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert state["type"] == "state", state
    return state


async def test_a_hinted_race_ranks_with_the_penalty(server: Server) -> None:
    line = winning_line()["moves"]
    ann, bob, a, b = await race_of_two(server, device=DEVICE)
    room = await room_of(ann)
    assert (room["hints"], room["hint_penalty_ms"]) == ("penalty", PENALTY_S * 1000)

    # Ann asks for a hint: it is counted (her state's version moves on), and Bob is told.
    await ann.send({"type": "hint"})
    counted = await ann.expect("state")
    hint = await ann.expect("hint")
    assert counted["hints"] == hint["hints"] == 1 and counted["version"] == a["version"] + 1 == hint["version"]
    assert hint["move"] in a["legal_moves"] and hint["progress"] is True and hint["way_out"] is None
    told = await bob.expect("player", where=lambda m: m["player"]["seat"] == "s1")
    assert (told["action"], told["player"]["hints"]) == ("hint", 1)
    # Asked again before a move: the same hint, free.
    again = await ann.request({"type": "hint"}, "hint")
    assert (again["move"], again["hints"], again["version"]) == (hint["move"], 1, counted["version"])
    # A move sent on the state before the hint is not stale: the hint changed no card.
    a = await play(ann, a, line[:1])
    assert a["hints"] == 1
    # Another hint after that move is counted: two.
    await ann.send({"type": "hint"})
    assert (await ann.expect("state"))["hints"] == 2
    a = await ann.expect("hint")  # (its version is the state's now)
    a = await play(ann, {"version": a["version"]}, line[1:])
    assert a["won"] and a["hints"] == 2

    # Bob wins later, with no hint: his time beats Ann's and her 40 s.
    b = await play(bob, b, line)
    over = await bob.expect("room", where=lambda m: m["room"]["phase"] == "over")
    rows = {r["name"]: r for r in over["room"]["ranking"]}
    assert b["finished_ms"] > a["finished_ms"] and b["finished_ms"] < a["finished_ms"] + 2 * PENALTY_S * 1000
    assert (rows["Bob"]["place"], rows["Ann"]["place"]) == (1, 2)
    assert rows["Ann"]["hints"] == 2 and rows["Ann"]["penalty_ms"] == 2 * PENALTY_S * 1000
    assert rows["Ann"]["time_ms"] == a["finished_ms"] + 2 * PENALTY_S * 1000
    assert (rows["Bob"]["hints"], rows["Bob"]["penalty_ms"], rows["Bob"]["time_ms"]) == (0, 0, b["finished_ms"])
    assert {p["name"]: p["hints"] for p in over["room"]["players"]} == {"Ann": 2, "Bob": 0}

    # The record keeps the count and the penalty; the player's own list too.
    async with httpx.AsyncClient(base_url=server.url) as http:
        code = over["room"]["code"]
        for _ in range(100):
            listed = (await http.get(f"/api/rooms/{code}/replays")).json()["replays"]
            if len(listed) == 2:
                break
        games = {g["name"]: g for g in listed}
        assert games["Ann"]["hints"] == 2 and games["Ann"]["place"] == 2
        assert (games["Ann"]["result"]["hints"], games["Ann"]["result"]["penalty_ms"]) == (2, 2 * PENALTY_S * 1000)
        replay = (await http.get(f"/api/replays/{games['Ann']['id']}")).json()
        assert replay["result"]["hints"] == 2 and "hint" not in [s["act"] for s in replay["steps"]]
        mine = (await http.get("/api/me", headers={"X-Device-Key": DEVICE})).json()
        assert [(g["hints"], g["room"]) for g in mine["games"]][:1] == [(2, code)]
        assert mine["best"][winning_line()["difficulty"]]["hints"] == 2
    for c in (ann, bob):
        await c.close()


async def test_a_room_without_hints_refuses_them_and_a_free_room_counts_them(server: Server) -> None:
    ann, bob, _, _ = await race_of_two(server, hints="off")
    refused = await ann.request({"type": "hint"}, "hint")
    assert (refused["type"], refused["code"]) == ("error", "hints_off")
    assert "hints are off in this room" in refused["message"]
    room = await room_of(ann)
    assert (room["hints"], room["hint_penalty_ms"]) == ("off", 0)
    for c in (ann, bob):
        await c.close()

    ann, bob, _, _ = await race_of_two(server, hints="free")
    await ann.send({"type": "hint"})
    assert (await ann.expect("state"))["hints"] == 1
    room = await room_of(ann)
    assert (room["hints"], room["hint_penalty_ms"]) == ("free", 0)
    assert room["ranking"][0]["penalty_ms"] == 0
    bad = await ann.request({"type": "create", "name": "Ann", "hints": "sometimes"}, "joined")
    assert bad["type"] == "error" and bad["code"] == "bad_message"
    for c in (ann, bob):
        await c.close()


async def test_a_hint_only_player_never_sees_a_position_twice(server: Server) -> None:
    """Medium deal 1: the rule book's hint alone goes round in circles there after 88 moves
    (a club home and back); following the hint and its ways out, no position comes twice."""
    game = Game.deal(1, "medium")
    seen = {position_hash(game)}
    for _ in range(200):  # (the rule book's hint: where it loops)
        rule_books = game.hint()
        assert rule_books is not None
        game.play(rule_books)
        if position_hash(game) in seen:
            break
        seen.add(position_hash(game))
    else:
        pytest.fail("the rule book's hint no longer loops on medium deal 1")

    ann = await Client.connect(server.ws_url)
    created = await ann.request({"type": "create", "name": "Ann", "difficulty": "medium", "deal": 1}, "joined")
    await ann.send({"type": "start"})
    await ann.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    state = await ann.started()
    boards = {json.dumps(state["board"], sort_keys=True)}
    ways_out: list[str | None] = []
    for hints in range(1, 141):
        await ann.send({"type": "hint"})
        state = await ann.expect("state")
        hint = await ann.expect("hint")
        assert state["hints"] == hints and hint["version"] == state["version"]
        if not hint["progress"]:
            ways_out.append(hint["way_out"])
        if hint["move"] is not None:
            state = await play(ann, state, [hint["move"]])
            shown = json.dumps(state["board"], sort_keys=True)
            assert shown not in boards, f"the hint {hint['move']} led back to a position reached before"
            boards.add(shown)
        else:
            assert hint["way_out"] == "undo", hint
            state = await ann.request({"type": "undo", "version": state["version"]}, "state")
            assert state["type"] == "state", state
    assert "undo" in ways_out  # (it came to a dead end, and backed out of it)
    assert created["room"]["hints"] == "penalty"
    await ann.close()


async def test_an_assisted_daily_win_is_kept_apart_never_ranked(server: Server) -> None:
    ann = await Client.connect(server.ws_url)
    joined = await ann.request({"type": "daily", "name": "Hinter", "difficulty": "easy"}, "joined")
    assert joined["type"] == "joined", joined
    assert joined["room"]["hints"] == "penalty"
    date = joined["daily"]["date"]
    _, line = choose_deal(date, "easy", int(NODE_LIMIT), DAILY_SECRET)
    state = await play(ann, joined["state"], line[:1])  # (a daily attempt's clock starts at its first move)
    await ann.send({"type": "hint"})
    state = await ann.expect("state")
    await ann.expect("hint")
    state = await play(ann, state, line[1:])
    assert state["won"] and state["hints"] == 1

    bob = await Client.connect(server.ws_url)
    other = await bob.request({"type": "daily", "name": "Plain", "difficulty": "easy"}, "joined")
    done = await play(bob, other["state"], line)
    assert done["won"] and done["hints"] == 0

    board = await ann.request({"type": "leaderboard", "difficulty": "easy", "token": joined["token"]}, "leaderboard")
    ranked = [(e["rank"], e["name"]) for e in board["entries"]]
    assert ("Plain" in [n for _, n in ranked]) and "Hinter" not in [n for _, n in ranked]
    mine = [e for e in board["assisted"] if e["name"] == "Hinter"]
    assert len(mine) == 1 and mine[0]["rank"] is None and mine[0]["hints"] == 1 and mine[0]["assisted"] is True
    assert board["me"]["rank"] is None and board["me"]["assisted"] is True
    bobs = await bob.request({"type": "leaderboard", "difficulty": "easy", "token": other["token"]}, "leaderboard")
    assert bobs["me"]["rank"] is not None and bobs["me"]["hints"] == 0 and "assisted" not in bobs["me"]
    for c in (ann, bob):
        await c.close()
