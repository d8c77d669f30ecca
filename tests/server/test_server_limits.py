"""Limits over real websockets to a real server: connections and rooms created per address,
and the origin check for browsers. (Message size and rate limits: test_server_input.py.)"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from race.rooms.pace import Pace
from race.settings import Settings
from tests.support.processes import Client, Server


@pytest.fixture(scope="module")
def limited() -> Iterator[Server]:
    s = Server(
        "",
        MAX_CONNECTIONS_PER_IP="3",
        ROOMS_PER_MINUTE_PER_IP="2",
        ALLOWED_ORIGINS="https://race.example, https://www.race.example",
    )
    yield s
    s.stop()


async def refused(url: str, **kwargs: Any) -> tuple[dict[str, Any], int]:
    """Connect, expecting an error and then the close: returns both."""
    async with websockets.connect(url, **kwargs) as ws:
        error = json.loads(await ws.recv())
        with pytest.raises(websockets.ConnectionClosed) as info:
            await ws.recv()
    assert info.value.rcvd is not None
    return error, info.value.rcvd.code


async def test_connections_per_address_are_limited(limited: Server) -> None:
    held = [await Client.connect(limited.ws_url) for _ in range(3)]
    error, code = await refused(limited.ws_url)
    assert (error["type"], error["code"], code) == ("error", "too_many_connections", 1008)
    assert (await held[0].request({"type": "ping"}, "pong"))["type"] == "pong"  # the others are unharmed

    # Behind a trusted proxy (here: this machine) the limit is per forwarded client address.
    other = {"additional_headers": {"X-Forwarded-For": "203.0.113.7"}}
    proxied = [await Client.connect(limited.ws_url, **other) for _ in range(3)]
    assert (await refused(limited.ws_url, **other))[1] == 1008

    # A closed connection frees its slot (the server notices the close a moment later).
    await held.pop().close()
    for _ in range(100):
        async with websockets.connect(limited.ws_url) as ws:
            if json.loads(await ws.recv())["type"] == "hello":
                break
    else:
        raise AssertionError("the closed connection's slot was never freed")
    for c in held + proxied:
        await c.close()


async def test_a_client_that_closes_before_its_replies_frees_its_slot(limited: Server) -> None:
    """Replies that can no longer be written (the client closed first) end the connection:
    it must not linger, holding its address's slot (and the server's shutdown) for ever."""
    forwarded = {"X-Forwarded-For": "203.0.113.10"}
    for _ in range(3):  # the address's whole allowance
        # (max_queue=None: this client keeps reading, so it sees the server's close frame
        # behind the replies it never takes.)
        async with websockets.connect(limited.ws_url, additional_headers=forwarded, max_queue=None) as ws:
            for _ in range(30):
                await ws.send(json.dumps({"type": "ping"}))
    for _ in range(100):  # the server notices each close a moment later
        async with websockets.connect(limited.ws_url, additional_headers=forwarded) as ws:
            if json.loads(await ws.recv())["type"] == "hello":
                break
    else:
        raise AssertionError("connections closed before their replies never freed their slots")


async def test_rooms_created_per_address_are_limited(limited: Server) -> None:
    """A room is kept a day: one address may not fill the store by leaving and creating."""
    # (Addresses of their own, behind this machine as a trusted proxy: the other tests'
    # connections from 127.0.0.1 count against its 3.)
    client = await Client.connect(limited.ws_url, additional_headers={"X-Forwarded-For": "203.0.113.8"})
    # What is refused starts no room, so it spends none of the allowance.
    for _ in range(3):
        bad = await client.request({"type": "create", "name": " "}, "joined")
        assert (bad["type"], bad["code"]) == ("error", "bad_name")
        unknown = await client.request({"type": "daily", "name": "Ann", "token": "x" * 32}, "joined")
        assert (unknown["type"], unknown["code"]) == ("error", "bad_token")
    for _ in range(2):
        assert (await client.request({"type": "create", "name": "Ann"}, "joined"))["type"] == "joined"
        assert (await client.request({"type": "leave"}, "left"))["type"] == "left"
    third = await client.request({"type": "create", "name": "Ann"}, "joined")
    assert (third["type"], third["code"]) == ("error", "too_many_rooms")
    # The connection is unharmed; another address is not held back.
    assert (await client.request({"type": "ping"}, "pong"))["type"] == "pong"
    other = await Client.connect(limited.ws_url, additional_headers={"X-Forwarded-For": "203.0.113.9"})
    assert (await other.request({"type": "create", "name": "Bo"}, "joined"))["type"] == "joined"
    for c in (client, other):
        await c.close()


async def test_rooms_created_per_address_are_counted_across_processes(redis_url: str) -> None:
    """Behind a load balancer an address may reach every process: the count is in Redis."""
    a, b = (Server(redis_url, ROOMS_PER_MINUTE_PER_IP="3") for _ in range(2))
    try:
        forwarded = {"additional_headers": {"X-Forwarded-For": "198.51.100.23"}}
        on_a, on_b = [await Client.connect(s.ws_url, **forwarded) for s in (a, b)]
        for client in (on_a, on_b, on_a):
            assert (await client.request({"type": "create", "name": "Ann"}, "joined"))["type"] == "joined"
            assert (await client.request({"type": "leave"}, "left"))["type"] == "left"
        fourth = await on_b.request({"type": "daily", "name": "Ann"}, "joined")
        assert (fourth["type"], fourth["code"]) == ("error", "too_many_rooms")
        for client in (on_a, on_b):
            await client.close()
    finally:
        a.stop()
        b.stop()


@pytest.mark.parametrize("origin", ["https://evil.example", "https://race.example.evil.example", "null"])
async def test_pages_from_other_origins_are_refused(limited: Server, origin: str) -> None:
    error, code = await refused(limited.ws_url, origin=origin)
    assert (error["code"], code) == ("bad_origin", 1008)
    assert "Traceback" not in error["message"]


@pytest.mark.parametrize("origin", ["https://race.example", "https://www.race.example", None])
async def test_allowed_origins_and_non_browsers_are_served(limited: Server, origin: str | None) -> None:
    client = await Client.connect(limited.ws_url, origin=origin)
    assert client.hello["protocol"] == 2
    await client.close()


async def test_without_allowed_origins_only_the_server_own_host_is_allowed() -> None:
    server = Server()
    try:
        same = await Client.connect(server.ws_url, origin=f"http://127.0.0.1:{server.port}")
        assert same.hello["type"] == "hello"
        await same.close()
        error, code = await refused(server.ws_url, origin="http://evil.example")
        assert (error["code"], code) == ("bad_origin", 1008)
    finally:
        server.stop()


def test_timings_the_page_waits_on_are_settings() -> None:
    settings = Settings.from_env({"HOST_AWAY_SECONDS": "0.5", "LIVE_POLL_SECONDS": "1", "ROOM_POLL_SECONDS": "0.25"})
    assert (settings.host_away_seconds, settings.live_poll_seconds, settings.room_poll_seconds) == (0.5, 1.0, 0.25)
    assert Settings.from_env({}).host_away_seconds == 15.0
    with pytest.raises(ValueError, match="LIVE_POLL_SECONDS must be positive"):
        Settings.from_env({"LIVE_POLL_SECONDS": "0"})


def test_new_daily_players_per_address_is_a_setting() -> None:
    assert Settings.from_env({}).daily_players_per_day_per_ip == 5
    assert Settings.from_env({"DAILY_PLAYERS_PER_DAY_PER_IP": "0"}).daily_players_per_day_per_ip is None  # no bound
    with pytest.raises(ValueError, match="DAILY_PLAYERS_PER_DAY_PER_IP must not be negative"):
        Settings.from_env({"DAILY_PLAYERS_PER_DAY_PER_IP": "-1"})


def test_the_daily_secret_and_the_rules_of_a_persons_pace_are_settings() -> None:
    default = Settings.from_env({})
    assert default.daily_secret is None  # one made at random, kept in the store
    assert default.daily_pace == Pace()
    assert (default.daily_pace.median_ms, default.daily_pace.run, default.daily_pace.run_ms) == (250, 10, 1500)
    assert default.daily_pace.floor_ms == {"easy": 40_000, "medium": 45_000, "hard": 50_000}
    env = {"DAILY_SECRET": "s3", "DAILY_PACE_MEDIAN_MS": "300", "DAILY_PACE_RUN": "8", "DAILY_PACE_RUN_MS": "0"}
    chosen = Settings.from_env({**env, "DAILY_PACE_FLOOR_SECONDS": "easy=30"})
    assert chosen.daily_secret == "s3"
    assert chosen.daily_pace == Pace(median_ms=300, run=8, run_ms=0, floor_ms={"easy": 30_000})
    assert Settings.from_env({"DAILY_PACE_FLOOR_SECONDS": "0"}).daily_pace.floor_ms == {}
    with pytest.raises(ValueError, match="easy=40,medium=45,hard=50"):
        Settings.from_env({"DAILY_PACE_FLOOR_SECONDS": "fast"})


def test_how_long_games_stay_on_the_record_is_a_setting() -> None:
    assert Settings.from_env({}).record_keep_days == 30
    assert Settings.from_env({"RECORD_KEEP_DAYS": "0.5"}).record_keep_days == 0.5
    with pytest.raises(ValueError, match="RECORD_KEEP_DAYS must be positive"):
        Settings.from_env({"RECORD_KEEP_DAYS": "0"})


async def test_the_server_tells_pages_the_timings_it_decides() -> None:
    server = Server(HOST_AWAY_SECONDS="2", LIVE_POLL_SECONDS="0.5", ROOM_POLL_SECONDS="0.25")
    try:
        client = await Client.connect(server.ws_url)
        assert client.hello["host_away_ms"] == 2000
        joined = await client.request({"type": "create", "name": "Ann"}, "joined")
        await client.close()
        with urllib.request.urlopen(server.url + "/api/rooms", timeout=10) as r:
            assert json.loads(r.read())["poll_ms"] == 500
        with urllib.request.urlopen(f"{server.url}/api/rooms/{joined['room']['code']}", timeout=10) as r:
            assert json.loads(r.read())["poll_ms"] == 250
    finally:
        server.stop()
