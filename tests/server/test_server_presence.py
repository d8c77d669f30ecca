"""Who is connected: players who went away show as away, across server processes."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.processes import Client, Server, running


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[Server]:
    s = Server(redis_url, COUNTDOWN_SECONDS="0.3")
    yield s
    s.stop()


def here_is(*seats: str, watching: int = 0) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["here"] == list(seats) and m["watching"] == watching


async def test_players_and_spectators_come_and_go(server: Server) -> None:
    ann = await Client.connect(server.ws_url)
    await ann.request({"type": "create", "name": "Ann"}, "joined")
    first = await ann.expect("presence", where=here_is("s1"))  # what she learns on arriving
    code = (await ann.request({"type": "sync"}, "room"))["room"]["code"]

    bob = await Client.connect(server.ws_url)
    joined = await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    token = joined["token"]
    # The reply comes first, then the room's news: Bob's own arrival.
    assert all(m["type"] != "presence" for m in bob.inbox)
    await bob.expect("presence", where=here_is("s1", "s2"))
    both = await ann.expect("presence", where=here_is("s1", "s2"))
    assert both["version"] > first["version"]

    eve = await Client.connect(server.ws_url)
    await eve.request({"type": "watch", "room": code}, "watching")
    await eve.expect("presence", where=here_is("s1", "s2", watching=1))
    await ann.expect("presence", where=here_is("s1", "s2", watching=1))

    await bob.close()  # the tab is closed
    away = await ann.expect("presence", where=here_is("s1", watching=1))
    await eve.expect("presence", where=here_is("s1", watching=1))

    back = await Client.connect(server.ws_url)
    await back.request({"type": "resume", "room": code, "token": token}, "joined")
    again = await ann.expect("presence", where=here_is("s1", "s2", watching=1))
    assert again["version"] > away["version"]
    await back.expect("presence", where=here_is("s1", "s2", watching=1))

    await eve.close()
    await ann.expect("presence", where=here_is("s1", "s2"))
    # Leaving the lobby takes the seat out at once, the connection still open.
    await back.request({"type": "leave"}, "left")
    await ann.expect("presence", where=here_is("s1"))
    for c in (ann, back):
        await c.close()


async def test_a_second_window_on_a_seat_keeps_it_here(server: Server) -> None:
    """A seat opened in another window replaces the first: the seat never shows as away."""
    ann = await Client.connect(server.ws_url)
    created = await ann.request({"type": "create", "name": "Ann"}, "joined")
    code, token = created["room"]["code"], created["token"]
    eve = await Client.connect(server.ws_url)
    await eve.request({"type": "watch", "room": code}, "watching")
    await eve.expect("presence", where=here_is("s1", watching=1))

    again = await Client.connect(server.ws_url)
    await again.request({"type": "resume", "room": code, "token": token}, "joined")
    await again.expect("presence", where=here_is("s1", watching=1))
    await ann.ws.wait_closed()  # the server closed the old window
    assert ann.ws.close_code == 4001
    # Whatever came to the spectator since, it never said that s1 was away.
    await eve.request({"type": "sync"}, "room")
    assert all(m["here"] == ["s1"] for m in eve.inbox if m["type"] == "presence"), eve.inbox
    for c in (again, eve):
        await c.close()


async def test_players_of_a_dead_server_show_as_away(redis_url: str) -> None:
    """A server killed with kill -9 says nothing: its players' time runs out, and a server
    with players of the same room tells them."""
    first = Server(redis_url, PRESENCE_TTL_SECONDS="1")
    second = Server(redis_url, PRESENCE_TTL_SECONDS="1")
    with running(first, second):
        ann = await Client.connect(first.ws_url)
        created = await ann.request({"type": "create", "name": "Ann"}, "joined")
        code = created["room"]["code"]
        bob = await Client.connect(second.ws_url)
        token = (await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined"))["token"]
        await ann.expect("presence", where=here_is("s1", "s2"))
        second.kill()
        await ann.expect("presence", where=here_is("s1"))
        # Bob comes back through the first server: here again.
        back = await Client.connect(first.ws_url)
        await back.request({"type": "resume", "room": code, "token": token}, "joined")
        await ann.expect("presence", where=here_is("s1", "s2"))
        await ann.close()
        await back.close()


def resigned(m: dict[str, Any]) -> bool:
    return m["type"] == "error" or m["resigned"] is True


async def test_presence_says_from_when_each_player_may_end_the_race() -> None:
    """``end_from``: for each player, the server time from which they may end the race
    alone. Never while another player still racing is here; once the others have gone, when
    their grace is up; at once when nobody else is racing (told again as each player goes
    out). The host is no one special."""
    server = Server(HOST_AWAY_SECONDS="30")
    with running(server):
        ann, bob, cy = [await Client.connect(server.ws_url) for _ in range(3)]
        code = (await ann.request({"type": "create", "name": "Ann"}, "joined"))["room"]["code"]
        for client, name in ((bob, "Bob"), (cy, "Cy")):
            await client.request({"type": "join", "room": code, "name": name}, "joined")
        lobby = await cy.expect("presence", where=here_is("s1", "s2", "s3"))
        assert lobby["end_from"] is None  # no race yet
        await ann.request({"type": "start"}, "room")
        # Ann and Bob are here: nobody may end it. (The race's first state may come before
        # the resignation's.)
        await cy.send({"type": "resign"})
        assert (await cy.expect("state", "error", where=resigned))["type"] == "state"
        out = await cy.expect("presence", where=lambda m: m["end_from"] is not None)
        assert out["end_from"] == {"s1": None, "s2": None, "s3": None}

        closed = time.monotonic()
        await bob.close()
        gone = await cy.expect("presence", where=here_is("s1", "s3"))
        away = gone["away_since"]["s2"] + 30_000  # Bob may be reloading
        assert gone["end_from"] == {"s1": away, "s2": None, "s3": None}  # Ann is here
        refused = await ann.request({"type": "end"})
        assert refused["code"] == "rival_racing", refused
        # The seconds left of Bob's grace, rounded up: 30, or less by what this took.
        wait = re.search(r"try again in (\d+) s", refused["message"])
        assert wait and 30 - (time.monotonic() - closed) <= int(wait[1]) <= 30, refused

        await ann.send({"type": "resign"})  # Bob alone is still racing, and away
        assert (await ann.expect("state", "error", where=resigned))["type"] == "state"
        told = await cy.expect("presence", where=lambda m: m["end_from"] == {"s1": away, "s2": 0, "s3": away})
        assert told["here"] == ["s1", "s3"]
        for client in (ann, cy):
            await client.close()


async def test_presence_says_from_when_a_player_may_stand_in_for_the_host() -> None:
    """``host_from``: in the lobby, the server time from which a player here may act as the
    host who went (start, remove), which makes them host; ``None`` while the host is here.
    (No grace here: the one the server waits is in ``test_service``'s lobby tests.)"""
    server = Server(HOST_AWAY_SECONDS="0")
    with running(server):
        ann, bob = [await Client.connect(server.ws_url) for _ in range(2)]
        code = (await ann.request({"type": "create", "name": "Ann"}, "joined"))["room"]["code"]
        await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
        both = await bob.expect("presence", where=here_is("s1", "s2"))
        assert both["host_from"] is None  # the host is here

        await ann.close()
        gone = await bob.expect("presence", where=here_is("s2"))
        assert gone["host_from"] == gone["away_since"]["s1"]
        await bob.send({"type": "start"})
        started = await bob.expect("room", where=lambda m: m["room"]["phase"] != "lobby")
        assert started["room"]["host"] == "s2"
        await bob.close()


@pytest.mark.parametrize("backend", ["memory", "redis"])
async def test_the_pages_of_a_room_that_expires_are_told_at_once(backend: str, request: pytest.FixtureRequest) -> None:
    """A room unused for the store's ttl expires; its players and spectators hear so from the
    next presence refresh (a third of the presence ttl), not only at their next message."""
    url = "memory://" if backend == "memory" else request.getfixturevalue("redis_url")
    with running(s := Server(url, ROOM_TTL_SECONDS="1", PRESENCE_TTL_SECONDS="0.6")):
        ann = await Client.connect(s.ws_url)
        await ann.request({"type": "create", "name": "Ann"}, "joined")
        code = (await ann.request({"type": "sync"}, "room"))["room"]["code"]
        eve = await Client.connect(s.ws_url)
        await eve.request({"type": "watch", "room": code}, "watching")
        for c in (ann, eve):
            told = await c.expect("error", timeout=15)
            assert told["code"] == "unknown_room" and "expired" in told["message"], told
        # And so is whoever asks after it.
        gone = await ann.request({"type": "sync"}, "room")
        assert gone["type"] == "error" and gone["code"] == "unknown_room", gone
        for c in (ann, eve):
            await c.close()
