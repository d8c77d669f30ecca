"""A race you can trust, over real websockets on the embedded store and Redis: nobody (the
host no more than anyone) ends a race while a rival plays, but a player may once the rivals
have gone, and every player still racing may by a vote; a race ended with players
unfinished names no winner. A daily attempt's spectator gets no board and no move's text
while it runs. The record agrees with the race: its moves are the ranking's, a ghost race's
place and field are the ranking's, and no daily deal's seed is on any response."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from race.daily import choose_deal
from tests.support.processes import DAILY_SECRET, Client, Server
from tests.support.winning_lines import first_winning_line as winning_line

NODE_LIMIT = "200000"
DEVICE = "trust-end-device-key-0001"


@pytest.fixture(scope="module", params=["embedded", "redis"])
def served(request: pytest.FixtureRequest) -> Iterator[Server]:
    """A server on the embedded store (SQLite, the default) or on Redis. A player away is
    away at once (the grace of a reload is the service tests'); a second of spectator delay
    is 20 ms."""
    url = "" if request.param == "embedded" else request.getfixturevalue("redis_url")
    s = Server(
        url,
        RATE_LIMIT_PER_SECOND="1000",
        RATE_LIMIT_BURST="1000",
        HOST_AWAY_SECONDS="0",
        SPECTATOR_DELAY_SECONDS="15",
        SPECTATOR_SECOND_MS="20",
        DAILY_NODE_LIMIT=NODE_LIMIT,
    )
    yield s
    s.stop()


async def two_racing(server: Server) -> tuple[Client, Client, str, dict[str, Any], dict[str, Any]]:
    """Ann (the host) and Bob race on the checked-in line's deal: their clients, the room's
    code and their states at the start."""
    line = winning_line()
    ann, bob = await Client.connect(server.ws_url), await Client.connect(server.ws_url)
    create = {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"]}
    code = (await ann.request(create, "joined"))["room"]["code"]
    await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    await ann.send({"type": "start"})
    for c in (ann, bob):
        await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    return ann, bob, code, await ann.started(), await bob.started()


async def test_the_host_cannot_end_the_race_while_the_rival_plays(served: Server) -> None:
    """Alice, a card ahead, presses End: refused while Bob plays, and presence says she may
    not. Once Bob has gone she may, and the race over names no winner: nobody finished."""
    ann, bob, _, state, bob_state = await two_racing(served)
    line = winning_line()["moves"]
    for move in line[:3]:
        state = await ann.request({"type": "move", "move": move, "version": state["version"]}, "state")
    await bob.request({"type": "move", "move": bob_state["legal_moves"][0], "version": bob_state["version"]}, "state")
    await ann.send({"type": "sync"})  # (then who is here, and from when each may end the race)
    told = await ann.expect("presence", where=lambda m: m["here"] == ["s1", "s2"] and m["end_from"] is not None)
    assert told["end_from"] == {"s1": None, "s2": None}
    refused = await ann.request({"type": "end"})  # (an error, or no reply and the room over)
    assert (refused["type"], refused["code"]) == ("error", "rival_racing") and "Bob" in refused["message"]
    assert (await bob.request({"type": "end"}))["code"] == "rival_racing"

    await bob.close()
    gone = await ann.expect("presence", where=lambda m: m["here"] == ["s1"] and "s2" in m["away_since"])
    assert gone["end_from"] == {"s1": gone["away_since"]["s2"], "s2": None}
    await ann.send({"type": "end"})
    over = await ann.expect("room", where=lambda m: m["room"]["phase"] == "over")
    room = over["room"]
    assert room["ended_by"] == "end"
    ranked = [(r["place"], r["name"], r["finished"], r["finished_ms"]) for r in room["ranking"]]
    assert ranked == [(1, "Ann", False, None), (2, "Bob", False, None)]
    await ann.close()


async def test_a_race_ends_by_a_vote_the_other_player_sees(served: Server) -> None:
    """Ann asks to end the race: Bob sees it on her entry; her next move withdraws it, which
    Bob sees too. Both ask: the race is over, by vote."""
    ann, bob, _, state, _ = await two_racing(served)
    asked = await ann.request({"type": "vote_end"}, "state")
    assert asked["end_vote"] is True and asked["version"] == state["version"] + 1
    seen = await bob.expect("player", where=lambda m: m["player"]["seat"] == "s1")
    assert (seen["action"], seen["player"]["end_vote"], seen["player"]["version"]) == (
        "vote_end",
        True,
        asked["version"],
    )
    moved = await ann.request({"type": "move", "move": asked["legal_moves"][0], "version": asked["version"]}, "state")
    assert moved["end_vote"] is False
    seen = await bob.expect("player", where=lambda m: m["player"]["seat"] == "s1")
    assert (seen["action"], seen["player"]["end_vote"]) == ("move", False)  # (a move's text is Ann's)
    await ann.request({"type": "vote_end", "vote": True}, "state")
    await bob.expect("player", where=lambda m: m["player"]["end_vote"])
    assert (await bob.request({"type": "vote_end"}, "state"))["end_vote"] is True
    for c in (ann, bob):
        over = await c.expect("room", where=lambda m: m["room"]["phase"] == "over")
        assert over["room"]["ended_by"] == "vote" and not any(r["finished"] for r in over["room"]["ranking"])
    refused = await ann.request({"type": "vote_end"}, "state")
    assert (refused["type"], refused["code"]) == ("error", "not_racing")
    for c in (ann, bob):
        await c.close()


def boards_or_moves(message: dict[str, Any]) -> list[str]:
    """What of a board, or of the moves that drew one, ``message`` carries."""
    found = [path for path, _ in walk(message) if path.endswith(".board") or path.endswith(".opening")]
    action = message.get("action")
    if isinstance(action, str) and action not in ("move", "undo", "restart", "resign", "vote_end", "vote_end off"):
        found.append(f"action {action}")
    return found


def walk(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}", item
            yield from walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from walk(item, f"{path}[{i}]")


async def test_a_daily_attempt_and_its_record_keep_the_deal_to_the_player(served: Server) -> None:
    """A spectator of a daily attempt, from its first message to the one that says it is
    over, gets no board and no move's text (every message counted), and gets them as far
    behind as a race's spectators. The game on the record counts its moves as the ranking
    did (undo and restart are no moves), and no response names the day's seed."""
    ann = await Client.connect(served.ws_url)
    daily = {"type": "daily", "name": "Ann", "difficulty": "easy", "device": DEVICE}
    joined = await ann.request(daily, "joined")
    assert joined["type"] == "joined", joined
    date, code, token = joined["daily"]["date"], joined["room"]["code"], joined["token"]
    seed, line = choose_deal(date, "easy", int(NODE_LIMIT), DAILY_SECRET)
    eve = await Client.connect(served.ws_url)
    await eve.send({"type": "watch", "room": code})
    seen = [await eve.expect("delayed"), await eve.expect("watching")]  # watching before Ann plays

    state = joined["state"]
    acts = [line[0], "undo", line[0], line[1], "restart", *line]
    for act in acts:
        msg = {"type": act} if act in ("undo", "restart") else {"type": "move", "move": act}
        state = await ann.request({**msg, "version": state["version"]}, "state")
        assert state["type"] == "state", state
    assert state["won"] and state["moves"] == len(line) + 3

    while not (seen[-1]["type"] == "room" and seen[-1]["room"]["phase"] == "over"):
        seen.append(await eve.expect("delayed", "watching", "presence", "player", "room"))
    during = seen[:-1]
    assert seen[0] == {"type": "delayed", "ms": 15 * 20}  # a daily attempt's spectators run behind too
    assert [m["type"] for m in during].count("player") == len(acts)  # each of Ann's actions, told
    assert {m["action"] for m in during if m["type"] == "player"} == {"move", "undo", "restart"}
    leaks = [(m["type"], found) for m in during if (found := boards_or_moves(m))]
    assert not leaks, f"{len(leaks)} of {len(during)} messages show the board: {leaks[:3]}"
    ranking = seen[-1]["room"]["ranking"]
    assert ranking[0]["moves"] == state["moves"] and ranking[0]["finished"]

    async with httpx.AsyncClient(base_url=served.url) as http:
        listed = (await http.get(f"/api/rooms/{code}/replays", headers={"X-Player-Token": token})).json()
        (game,) = listed["replays"]
        assert game["result"]["moves"] == state["moves"]
        replay = await http.get(f"/api/replays/{game['id']}", headers={"X-Player-Token": token})
        mine = await http.get("/api/me", headers={"X-Device-Key": DEVICE})
    view, me = replay.json(), mine.json()
    assert (view["deal"], view["daily_date"], view["result"]["moves"]) == (None, date, state["moves"])
    (entry,) = [g for g in me["games"] if g["id"] == game["id"]]
    assert (entry["deal"], entry["daily_date"], entry["result"]["moves"]) == (None, date, state["moves"])
    assert me["best"]["easy"]["moves"] == state["moves"]
    for text in (replay.text, mine.text, json.dumps(joined), json.dumps(seen)):
        assert seed not in text and "daily:" not in text
    for c in (ann, eve):
        await c.close()


async def test_a_race_against_a_ghost_puts_the_rankings_place_on_the_record(served: Server) -> None:
    """Ann wins a solo race; Cat races her ghost and resigns after undoing and restarting:
    the ranking puts Cat 2nd of 2, the ghost counted, and so does the record (room's list,
    /api/me); its moves are the ranking's."""
    line = winning_line()
    ann = await Client.connect(served.ws_url)
    create = {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"]}
    created = await ann.request(create, "joined")
    await ann.send({"type": "start"})
    state = await ann.started()
    for move in line["moves"]:
        state = await ann.request({"type": "move", "move": move, "version": state["version"]}, "state")
    assert state["won"]
    async with httpx.AsyncClient(base_url=served.url) as http:
        (ann_game,) = (await http.get(f"/api/rooms/{created['room']['code']}/replays")).json()["replays"]
    assert (ann_game["place"], ann_game["field"]) == (1, 1)

    cat = await Client.connect(served.ws_url)
    device = "trust-end-device-key-cat1"
    joined = await cat.request(
        {"type": "create", "name": "Cat", "ghosts": [ann_game["id"]], "device": device}, "joined"
    )
    code = joined["room"]["code"]
    await cat.send({"type": "start"})
    mine = await cat.started()
    for act in (mine["legal_moves"][0], "undo", mine["legal_moves"][0], "restart"):
        msg = {"type": act} if act in ("undo", "restart") else {"type": "move", "move": act}
        mine = await cat.request({**msg, "version": mine["version"]}, "state")
    await cat.request({"type": "resign"}, "state")  # (its reply comes once the games are kept)
    over = await cat.expect("room", where=lambda m: m["room"]["phase"] == "over")
    ranked = {r["name"]: r for r in over["room"]["ranking"]}
    assert (ranked["Ann"]["place"], ranked["Ann"]["ghost"], ranked["Cat"]["place"]) == (1, True, 2)
    assert ranked["Cat"]["moves"] == 2 and not ranked["Cat"]["finished"]
    assert ranked["Ann"]["moves"] == len(line["moves"])

    async with httpx.AsyncClient(base_url=served.url) as http:
        (game,) = (await http.get(f"/api/rooms/{code}/replays")).json()["replays"]
        me = (await http.get("/api/me", headers={"X-Device-Key": device})).json()
    assert (game["name"], game["place"], game["field"], game["result"]["moves"]) == ("Cat", 2, 2, 2)
    assert [(g["place"], g["field"]) for g in me["games"]] == [(2, 2)]
    assert me["rivals"] == []  # a ghost is a game raced again, not a rival
    for c in (ann, cat):
        await c.close()
