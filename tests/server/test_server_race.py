"""A whole race over real websockets against a real server on a real Redis."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from tests.support.processes import Client, Server
from tests.support.winning_lines import first_winning_line


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[Server]:
    # A bot plays a whole winning line far faster than people can: lift the rate limit.
    s = Server(redis_url, COUNTDOWN_SECONDS="0.3", RATE_LIMIT_PER_SECOND="1000", RATE_LIMIT_BURST="1000")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def slow_start(redis_url: str) -> Iterator[Server]:
    """A server whose countdown is long enough that a move sent during it arrives before the
    start, however slow the machine."""
    s = Server(redis_url, COUNTDOWN_SECONDS="2", RATE_LIMIT_PER_SECOND="1000", RATE_LIMIT_BURST="1000")
    yield s
    s.stop()


async def test_a_whole_race_two_players_and_a_spectator(slow_start: Server) -> None:
    server = slow_start
    line = first_winning_line()
    ann = await Client.connect(server.ws_url)
    created = await ann.request(
        {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"]}, "joined"
    )
    code = created["room"]["code"]
    bob = await Client.connect(server.ws_url)
    joined = await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    spectator = await Client.connect(server.ws_url)
    watching = await spectator.request({"type": "watch", "room": code}, "watching")

    # No one sees the deal before the start: every card is face down.
    hidden = [created["state"]["board"], joined["state"]["board"], watching["room"]["players"][0]["board"]]
    assert all(card == "??" for b in hidden for pile in b["piles"] for card in pile)
    assert watching["room"]["phase"] == "lobby" and [p["name"] for p in watching["room"]["players"]] == ["Ann", "Bob"]

    # Both ready: the countdown starts at one server timestamp for everyone.
    await ann.send({"type": "ready"})
    await bob.send({"type": "ready"})
    countdowns = [
        (await c.expect("room", where=lambda m: m["room"]["phase"] == "countdown"))["room"]
        for c in (ann, bob, spectator)
    ]
    assert len({r["start_at"] for r in countdowns}) == 1
    assert countdowns[0]["start_at"] - countdowns[0]["server_time"] == 2000
    early = await ann.request({"type": "move", "move": line["moves"][0], "version": 1}, "state")
    assert early["type"] == "error" and early["code"] == "not_started"

    # The race begins at start_at: the server announces it to everyone.
    for c in (ann, bob, spectator):
        racing = await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")
        assert racing["room"]["server_time"] >= countdowns[0]["start_at"]
        if c is spectator:
            watched = racing["room"]["players"][0]["board"]

    # Everyone has the same deal, from the start.
    state, bob_start = await ann.started(), await bob.started()
    assert state["board"] == bob_start["board"] == watched

    # Ann plays the winning line.
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
    moved = await bob.request({"type": "move", "move": bob_start["legal_moves"][0], "version": 1}, "state")
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


async def racing_pair(server: Server, deal: int) -> tuple[Client, Client, Client, dict[str, Any], dict[str, Any]]:
    """Ann and Bob racing on an easy deal with a spectator watching; with Ann's and Bob's
    ``joined`` replies, their ``state`` those of the start (no board is sent before)."""
    ann = await Client.connect(server.ws_url)
    created = await ann.request({"type": "create", "name": "Ann", "difficulty": "easy", "deal": deal}, "joined")
    code = created["room"]["code"]
    bob = await Client.connect(server.ws_url)
    joined = await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    spectator = await Client.connect(server.ws_url)
    await spectator.request({"type": "watch", "room": code}, "watching")
    await ann.send({"type": "start"})
    for c in (ann, bob, spectator):
        await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    created, joined = {**created, "state": await ann.started()}, {**joined, "state": await bob.started()}
    return ann, bob, spectator, created, joined


async def test_the_mover_gets_its_state_and_no_player_echo_the_others_get_player(server: Server) -> None:
    """A move's ``state`` reply already says what its ``player`` broadcast says, so only the
    other players and the spectators get the broadcast. Broadcasts reach a connection in the
    order they were published: once a later move's broadcast has arrived, an echo of an
    earlier one would have arrived before it."""
    ann, bob, spectator, created, joined = await racing_pair(server, deal=7)

    def players(c: Client) -> list[dict[str, Any]]:
        return [m for m in c.inbox if m["type"] == "player"]

    # Ann moves: her reply is the state; Bob and the spectator get her player update.
    mine = await ann.request({"type": "move", "move": created["state"]["legal_moves"][0], "version": 1}, "state")
    assert mine["type"] == "state" and mine["version"] == 2, mine
    for c, action in ((bob, "move"), (spectator, created["state"]["legal_moves"][0])):
        seen = await c.expect("player", where=lambda m: m["player"]["seat"] == "s1")
        assert seen["action"] == action  # a rival is not told the move: it would draw Ann's board
        assert seen["player"] == {k: mine[k] for k in seen["player"]}  # the same as Ann's state says
    # Bob moves next: Ann gets his update, with no echo of her own before it.
    theirs = await bob.request({"type": "move", "move": joined["state"]["legal_moves"][0], "version": 1}, "state")
    assert theirs["type"] == "state", theirs
    assert (await ann.expect("player"))["player"]["seat"] == "s2"
    assert (await spectator.expect("player"))["player"]["seat"] == "s2"
    assert not players(bob)

    # A resignation likewise: the resigner's reply is its state, the others get player.
    gone = await bob.request({"type": "resign"}, "state")
    assert gone["type"] == "state" and gone["resigned"], gone
    for c in (ann, spectator):
        seen = await c.expect("player")
        assert seen["action"] == "resign" and seen["player"]["seat"] == "s2" and seen["player"]["resigned"]
    again = await ann.request({"type": "move", "move": mine["legal_moves"][0], "version": 2}, "state")
    assert again["type"] == "state", again
    assert (await bob.expect("player"))["player"]["seat"] == "s1"
    assert not players(bob) and not players(ann)
    for c in (ann, bob, spectator):
        await c.close()


async def test_replies_and_broadcasts_reach_each_connection_in_order(server: Server) -> None:
    """Both players move as fast as they can at once, so each one's replies (written by the
    task that read the move) and the other's broadcasts (written by the connection's sender)
    compete for the same socket. Every frame still arrives whole and in order: each player
    sees its own states and the other's updates at consecutive versions, and the spectator
    sees both players' updates so."""
    ann, bob, spectator, created, joined = await racing_pair(server, deal=11)
    moves = 40

    async def play(c: Client, state: dict[str, Any]) -> list[dict[str, Any]]:
        """Send a move, undoing when stuck, as soon as the previous one's state arrives;
        return every message in arrival order."""
        stream: list[dict[str, Any]] = []
        for _ in range(moves):
            legal = [m for m in state["legal_moves"] if m != "shuffle"]
            move = {"type": "move", "move": legal[0]} if legal else {"type": "undo"}
            await c.send({**move, "version": state["version"]})
            while (m := json.loads(await c.ws.recv()))["type"] not in ("state", "error"):
                stream.append(m)
            assert m["type"] == "state", m
            stream.append(m)
            state = m
        return stream

    ann_stream, bob_stream = await asyncio.gather(play(ann, created["state"]), play(bob, joined["state"]))

    for stream in (ann_stream, bob_stream):
        assert [m["version"] for m in stream if m["type"] == "state"] == list(range(2, moves + 2))
    for c, stream, other in ((ann, ann_stream, "s2"), (bob, bob_stream, "s1")):
        seen = [m["player"]["version"] for m in stream if m["type"] == "player"]
        assert {m["player"]["seat"] for m in stream if m["type"] == "player"} <= {other}
        while len(seen) < moves:  # the other's updates that came after this player's last move
            seen.append((await c.expect("player"))["player"]["version"])
        assert seen == list(range(2, moves + 2))
    spectated: dict[str, list[int]] = {"s1": [], "s2": []}
    while len(spectated["s1"]) < moves or len(spectated["s2"]) < moves:
        update = await spectator.expect("player")
        spectated[update["player"]["seat"]].append(update["player"]["version"])
    assert spectated == {"s1": list(range(2, moves + 2)), "s2": list(range(2, moves + 2))}
    for c in (ann, bob, spectator):
        await c.close()


async def test_the_reply_to_a_message_comes_before_the_broadcasts_it_caused(server: Server) -> None:
    """On Redis a join's ``room`` broadcast comes back through pub/sub while the join is
    still being answered; the joiner still reads ``joined`` first (a bot reads the reply to
    what it sent), and a resignation that ends the race is answered before the race's end."""
    host = await Client.connect(server.ws_url)
    created = await host.request({"type": "create", "name": "Ann", "deal": 3}, "joined")
    code = created["room"]["code"]
    guests = []
    for name in ("Bob", "Cy", "Di", "Ed", "Flo"):
        guest = await Client.connect(server.ws_url)
        await guest.send({"type": "join", "room": code, "name": name})
        # The replies (``joined``, then who is here, with the joiner), then the room's news
        # (among them, the presence of those who came before, perhaps late: older versions).
        joined, here = json.loads(await guest.ws.recv()), json.loads(await guest.ws.recv())
        assert (joined["type"], here["type"], here["here"][-1]) == ("joined", "presence", joined["seat"]), name
        while (news := json.loads(await guest.ws.recv()))["type"] == "presence":
            assert news["version"] <= here["version"] or joined["seat"] in news["here"]
        assert news["type"] == "room", name
        guests.append(guest)
    await host.send({"type": "start"})
    await host.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    for c in guests:
        await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    for c in guests:
        c.inbox.clear()
        await c.send({"type": "resign"})
        while (first := json.loads(await c.ws.recv()))["type"] in ("player", "presence"):
            pass  # the resignations of the guests before, the arrivals of those after
        assert first["type"] == "state" and first["resigned"] is True
    host.inbox.clear()
    await host.send({"type": "resign"})
    while (first := json.loads(await host.ws.recv()))["type"] in ("player", "presence"):
        pass
    assert first["type"] == "state" and first["resigned"] is True
    over = await host.expect("room")
    assert over["room"]["phase"] == "over"
    for c in (host, *guests):
        await c.close()


async def test_leaving_and_being_removed_over_websockets(server: Server) -> None:
    """A player who leaves hears nothing more of the room; one the host removes is
    disconnected (code 4002) and cannot come back with its token."""
    host = await Client.connect(server.ws_url)
    code = (await host.request({"type": "create", "name": "Ann", "deal": 3}, "joined"))["room"]["code"]
    leaver, removed = await Client.connect(server.ws_url), await Client.connect(server.ws_url)
    await leaver.request({"type": "join", "room": code, "name": "Lee"}, "joined")
    token = (await removed.request({"type": "join", "room": code, "name": "Rex"}, "joined"))["token"]
    assert (await leaver.request({"type": "leave"}, "left"))["type"] == "left"
    await host.expect("room", where=lambda m: [pl["name"] for pl in m["room"]["players"]] == ["Ann", "Rex"])

    await host.send({"type": "remove", "seat": "s3"})
    with pytest.raises(websockets.ConnectionClosed) as info:
        await removed.expect("__never__")
    assert info.value.rcvd is not None and info.value.rcvd.code == 4002
    await host.expect("room", where=lambda m: [pl["name"] for pl in m["room"]["players"]] == ["Ann"])
    back = await Client.connect(server.ws_url)
    assert (await back.request({"type": "resume", "room": code, "token": token}, "joined"))["code"] == "bad_token"

    # The one who left is in no room: it may join again (a new seat), and hears the room again.
    leaver.inbox.clear()
    await host.send({"type": "ready"})
    await host.expect("room", where=lambda m: m["room"]["players"][0]["ready"])
    rejoined = await leaver.request({"type": "join", "room": code, "name": "Lee"}, "joined")
    assert rejoined["seat"] == "s4" and not [m for m in leaver.inbox if m["type"] == "room"]
    for c in (host, leaver, back):
        await c.close()
