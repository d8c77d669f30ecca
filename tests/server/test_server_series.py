"""Rooms played over several rounds, over real websockets on the embedded store and Redis:
the rematch is an offer (declined, then accepted: nobody's page pulled away, the host
unchanged), a match to 2 wins with its score, an open series counting every round (a solo
win too), and an arena of 3 rounds with a late joiner ending with the right standings."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.processes import Client, Server
from tests.support.races import ann_wins_bob_resigns
from tests.support.winning_lines import first_winning_line


@pytest.fixture(scope="module", params=["embedded", "redis"])
def served(request: pytest.FixtureRequest) -> Iterator[Server]:
    url = "" if request.param == "embedded" else request.getfixturevalue("redis_url")
    s = Server(
        url, COUNTDOWN_SECONDS="0.2", RATE_LIMIT_PER_SECOND="1000", RATE_LIMIT_BURST="1000", HOST_AWAY_SECONDS="2"
    )
    yield s
    s.stop()


def phase_is(ph: str, rnd: int) -> Any:
    """A room message in phase ``ph`` of round ``rnd``."""
    return lambda m: m["room"]["phase"] == ph and m["room"]["round"] == rnd


def offered(rnd: int) -> Any:
    """A room message with an offer standing after round ``rnd``."""
    return lambda m: m["room"]["round"] == rnd and "offer" in m["room"]["series"]


async def start(rnd: int, host: Client, *others: Client) -> dict[str, Any]:
    """The host starts the race; every player's first state once it runs (the host's returned)."""
    await host.send({"type": "start"})
    for c in (host, *others):
        await c.expect("room", where=phase_is("racing", rnd))
    for c in others:
        await fresh(c)
    return await fresh(host)


async def fresh(client: Client) -> dict[str, Any]:
    """The player's state at the start of a round (the states of rounds before passed over)."""
    client.inbox = [m for m in client.inbox if m.get("type") != "state"]
    await client.send({"type": "sync"})
    return await client.expect("state", where=lambda m: m["legal_moves"] and m["moves"] == 0)


async def win(client: Client, state: dict[str, Any], line: dict[str, Any]) -> None:
    for move in line["moves"]:
        state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert state["type"] == "state", state


async def shuffle_and_resign(client: Client, shuffles: int, state: dict[str, Any] | None = None) -> None:
    """``shuffles`` shuffles (moves that bring no card home: fewer of them rank higher among
    equal cards), then resign."""
    state = state or await fresh(client)
    for _ in range(shuffles):
        state = await client.request({"type": "move", "move": "shuffle", "version": state["version"]}, "state")
        assert state["type"] == "state", state
    await client.send({"type": "resign"})


async def test_the_rematch_is_an_offer_declined_then_accepted(served: Server) -> None:
    raced = await ann_wins_bob_resigns(served)
    ann, bob, line = raced.ann, raced.bob, raced.line
    assert raced.over["room"]["host"] == "s1"

    # Bob offers a new deal: both pages still show the race over, with the offer.
    await bob.send({"type": "rematch"})
    for c in (ann, bob):
        room = (await c.expect("room", where=offered(1)))["room"]
        assert room["phase"] == "over" and room["round"] == 1 and room["host"] == "s1"
        assert room["series"]["offer"] == {"by": "s2", "deal": None, "ghosts": False, "yes": ["s2"]}
        assert room["ranking"][0]["name"] == "Ann"  # the results stay
    # Ann says no: the offer is withdrawn, the room says who declined, and nothing moved.
    await ann.send({"type": "answer", "accept": False})
    room = (await bob.expect("room", where=lambda m: m["room"]["round"] == 1 and "declined" in m["room"]["series"]))[
        "room"
    ]
    assert room["phase"] == "over" and room["series"]["declined"] == "s1" and room["host"] == "s1"
    # Nothing to accept now.
    refused = await bob.request({"type": "answer", "accept": True}, "error")
    assert refused["code"] == "no_offer"

    # Ann offers the same deal; Bob accepts: round 2's lobby, on that deal, Ann still hosts.
    await ann.send({"type": "rematch", "deal": line["deal"]})
    room = (await bob.expect("room", where=offered(1)))["room"]
    assert room["series"]["offer"]["deal"] == line["deal"] and "declined" not in room["series"]
    assert room["phase"] == "over"
    await bob.send({"type": "answer", "accept": True})
    for c in (ann, bob):
        room = (await c.expect("room", where=phase_is("lobby", 2)))["room"]
        assert room["round"] == 2 and room["host"] == "s1" and room["deal"] == line["deal"]
        series = room["series"]
        assert "offer" not in series and series["rounds_over"] == 1 and series["round"] == 2
        assert [(r["name"], r["wins"]) for r in series["standings"]] == [("Ann", 1), ("Bob", 0)]
    await raced.close()


async def test_an_offer_goes_on_without_a_player_gone_long_enough_not_before(served: Server) -> None:
    raced = await ann_wins_bob_resigns(served)
    ann, bob = raced.ann, raced.bob
    await ann.send({"type": "rematch"})
    await ann.expect("room", where=offered(1))
    refused = await ann.request({"type": "rematch"}, "error")  # again: Bob is here, and has not answered
    assert refused["code"] == "waiting" and "Bob" in refused["message"]
    await bob.close()
    await ann.expect("presence", where=lambda m: m["here"] == ["s1"])
    refused = await ann.request({"type": "rematch"}, "error")  # Bob has only just gone
    assert refused["code"] == "not_yet" and "try again in" in refused["message"]
    for _ in range(40):  # (until he has been gone the server's 2 s, a setting: paced, not flooded)
        await ann.send({"type": "rematch"})
        reply = await ann.expect("error", "room", where=lambda m: m["type"] == "error" or phase_is("lobby", 2)(m))
        if reply["type"] == "room":
            ann.inbox.insert(0, reply)
            break
        assert reply["code"] == "not_yet", reply
        await asyncio.sleep(0.2)
    lobby = (await ann.expect("room", where=phase_is("lobby", 2)))["room"]
    # Bob comes into the new round's lobby, not ready; Ann still hosts.
    assert [(p["name"], p["ready"]) for p in lobby["players"]] == [("Ann", False), ("Bob", False)]
    assert lobby["host"] == "s1"
    await ann.close()


async def test_a_match_to_two_wins_keeps_the_score_and_names_its_winner(served: Server) -> None:
    raced = await ann_wins_bob_resigns(served, ann={"match": 2})
    ann, bob, line = raced.ann, raced.bob, raced.line
    series = raced.over["room"]["series"]
    assert (series["format"], series["target"], series["round"]) == ("match", 2, 1)
    assert [(r["name"], r["wins"]) for r in series["standings"]] == [("Ann", 1), ("Bob", 0)]
    assert not series["complete"] and series["winners"] == []

    await ann.send({"type": "rematch", "deal": line["deal"]})
    await bob.expect("room", where=offered(1))
    await bob.send({"type": "rematch", "deal": line["deal"]})  # the same offer: a yes
    await ann.expect("room", where=phase_is("lobby", 2))
    await bob.expect("room", where=phase_is("lobby", 2))
    state = await start(2, ann, bob)
    await win(ann, state, line)
    await bob.send({"type": "resign"})
    over = (await bob.expect("room", where=phase_is("over", 2)))["room"]
    series = over["series"]
    assert series["round"] == 2 and series["rounds_over"] == 2
    assert [(r["name"], r["wins"], r["place"]) for r in series["standings"]] == [("Ann", 2, 1), ("Bob", 0, 2)]
    assert series["complete"] and series["winners"] == ["s1"]

    # The next rematch starts a new match, first to 2 again.
    await bob.send({"type": "rematch"})
    await ann.expect("room", where=offered(2))
    await ann.send({"type": "answer", "accept": True})
    room = (await ann.expect("room", where=phase_is("lobby", 3)))["room"]
    series = room["series"]
    assert (series["format"], series["target"], series["round"], series["rounds_over"]) == ("match", 2, 1, 0)
    assert [r["wins"] for r in series["standings"]] == [0, 0] and not series["complete"]
    await raced.close()


async def test_an_open_series_counts_every_round_a_solo_win_too(served: Server) -> None:
    line = first_winning_line()
    ann = await Client.connect(served.ws_url)
    await ann.request(
        {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"]}, "joined"
    )
    for n in (1, 2, 3):
        await win(ann, await start(n, ann), line)
        over = (await ann.expect("room", where=phase_is("over", n)))["room"]
        series = over["series"]
        assert (series["format"], series["round"], series["rounds_over"]) == ("open", n, n)
        assert [(r["name"], r["wins"], r["rounds"]) for r in series["standings"]] == [("Ann", n, n)]
        await ann.send({"type": "rematch", "deal": line["deal"]})  # alone: it opens at once
        await ann.expect("room", where=phase_is("lobby", n + 1))
    await ann.close()
    # Every round's game is on the record (each replays to its result: the server's stop checks).
    async with httpx.AsyncClient(base_url=served.url) as http:
        code = over["code"]
        games = (await http.get(f"/api/rooms/{code}/replays")).json()["replays"]
    assert sorted(g["round"] for g in games) == [1, 2, 3]


async def test_an_arena_of_three_rounds_with_a_late_joiner(served: Server) -> None:
    clients: dict[str, Client] = {}
    for name in ("Ann", "Bob", "Cy", "Dee"):
        clients[name] = await Client.connect(served.ws_url)
    ann, bob, cy, dee = clients.values()
    keys = {name: secrets.token_urlsafe(24) for name in clients}
    create = {"type": "create", "name": "Ann", "difficulty": "easy", "arena": 3, "device": keys["Ann"]}
    created = await ann.request(create, "joined")
    code = created["room"]["code"]
    assert created["room"]["series"]["rounds"] == 3 and created["room"]["series"]["points"][:3] == [10, 7, 5]
    for c, name in ((bob, "Bob"), (cy, "Cy")):
        await c.request({"type": "join", "room": code, "name": name, "device": keys[name]}, "joined")
    refused = await ann.request({"type": "join", "room": code, "name": "X"}, "error")
    assert refused["code"] == "already_in_room"
    players = [ann, bob, cy]
    deals = []

    async def next_round(rnd: int, players: list[Client]) -> dict[str, Any]:
        refused = await ann.request({"type": "rematch", "deal": 5}, "error")
        assert refused["code"] == "bad_rematch"  # an arena deals anew each round
        await ann.send({"type": "rematch"})
        for c in players[1:]:
            await c.expect("room", where=offered(rnd))
            await c.send({"type": "answer", "accept": True})
        lobby: dict[str, Any] = (await ann.expect("room", where=phase_is("lobby", rnd + 1)))["room"]
        return lobby

    async def play(rnd: int, order: list[Client], everyone: list[Client]) -> dict[str, Any]:
        """Round ``rnd``, in which the players of ``order`` place in that order."""
        state = await start(rnd, ann, *[c for c in everyone if c is not ann])
        for i, c in enumerate(order):
            await shuffle_and_resign(c, i, state if c is ann else None)
        room: dict[str, Any] = (await ann.expect("room", where=phase_is("over", rnd)))["room"]
        deals.append(room["deal"])
        return room

    over = await play(1, [ann, bob, cy], players)
    series = over["series"]
    assert [(r["name"], r["points"]) for r in series["standings"]] == [("Ann", 10), ("Bob", 7), ("Cy", 5)]
    assert [row["points"] for row in series["last"]] == [10, 7, 5]

    lobby = await next_round(1, players)
    # Dee joins late, for the rounds left: listed with nothing yet.
    joined = await dee.request({"type": "join", "room": code, "name": "Dee", "device": keys["Dee"]}, "joined")
    assert joined["room"]["series"]["round"] == 2
    assert [(r["name"], r["points"], r["rounds"]) for r in joined["room"]["series"]["standings"]][-1] == ("Dee", 0, 0)
    assert lobby["series"]["round"] == 2
    players.append(dee)
    await play(2, [dee, cy, bob, ann], players)
    await next_round(2, players)
    over = await play(3, [bob, dee, ann, cy], players)
    series = over["series"]
    assert series["rounds_over"] == 3 and series["complete"] and series["winners"] == ["s2"]
    standings = [(r["place"], r["name"], r["points"], r["rounds"]) for r in series["standings"]]
    assert standings == [(1, "Bob", 22, 3), (2, "Ann", 18, 3), (3, "Dee", 17, 2), (4, "Cy", 15, 3)]
    assert len(set(deals)) == 3  # a new deal each round
    # On the record: each player's /api/me lists the arena, with their own seat.
    async with httpx.AsyncClient(base_url=served.url) as http:
        for name, seat in (("Bob", "s2"), ("Dee", "s4")):
            me = (await http.get("/api/me", headers={"X-Device-Key": keys[name]})).json()
            (arena,) = me["series"]
            assert (arena["room"], arena["format"], arena["rounds"], arena["me"]) == (code, "arena", 3, seat)
            assert [(r["name"], r["points"]) for r in arena["standings"]] == [(n, p) for _, n, p, _ in standings]
            assert arena["winners"] == ["s2"]
    for c in players:
        await c.close()
