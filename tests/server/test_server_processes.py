"""Several real server processes on one real Redis: shared rooms, restarts, kills."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import Client, RedisServer, Server


async def create(server: Server, **fields: Any) -> tuple[Client, dict[str, Any]]:
    client = await Client.connect(server.ws_url)
    joined = await client.request(
        {"type": "create", "name": "Ann", "difficulty": "easy", "deal": 3, **fields}, "joined"
    )
    assert joined["type"] == "joined", joined
    return client, joined


def first_move(state: dict[str, Any]) -> dict[str, Any]:
    return {"type": "move", "move": state["legal_moves"][0], "version": state["version"]}


def get_json(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


async def test_players_on_two_processes_race_and_see_each_other(redis_url: str) -> None:
    a, b = Server(redis_url), Server(redis_url)
    try:
        ann, joined = await create(a)
        code = joined["room"]["code"]
        bob = await Client.connect(b.ws_url)
        await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
        assert [p["name"] for p in (await ann.expect("room"))["room"]["players"]] == ["Ann", "Bob"]
        spectator = await Client.connect(b.ws_url)
        await spectator.request({"type": "watch", "room": code}, "watching")

        await ann.send({"type": "start"})
        started = await bob.expect("room", where=lambda m: m["room"]["phase"] != "lobby")
        assert started["room"]["phase"] == "racing"  # started on A, seen on B
        bob_start = await bob.started()
        assert bob_start["board"] == (await ann.started())["board"]  # the same deal

        move = bob_start["legal_moves"][0]
        mine = await bob.request({"type": "move", "move": move, "version": 1}, "state")
        seen_by_ann = await ann.expect("player", where=lambda m: m["player"]["seat"] == "s2")
        # A rival sees Bob's progress, neither his board nor his move's text; a spectator sees
        # both.
        assert seen_by_ann["action"] == "move" and "board" not in seen_by_ann["player"]
        assert seen_by_ann["player"]["cards"] == mine["cards"] and seen_by_ann["player"]["moves"] == 1
        watched = await spectator.expect("player", where=lambda m: m["player"]["seat"] == "s2")
        assert watched["action"] == move and watched["player"]["board"] == mine["board"]

        theirs = await ann.request({"type": "move", "move": "shuffle", "version": 1}, "state")
        seen_by_bob = await bob.expect("player", where=lambda m: m["player"]["seat"] == "s1")
        assert seen_by_bob["player"]["version"] == theirs["version"] == 2
        seen = await spectator.expect("player", where=lambda m: m["player"]["seat"] == "s1")
        assert seen["player"]["shuffles_left"] == 8
    finally:
        a.stop()
        b.stop()


async def test_a_server_restart_mid_race_loses_nothing(redis_url: str) -> None:
    server = Server(redis_url)
    port = server.port
    ann, joined = await create(server)
    code, token = joined["room"]["code"], joined["token"]
    await ann.send({"type": "start"})
    await ann.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    state = await ann.started()
    for _ in range(3):
        state = await ann.request(
            {"type": "move", "move": state["legal_moves"][0], "version": state["version"]}, "state"
        )
    server.kill()  # kill -9 mid-race
    server = Server(redis_url, port=port)
    try:
        again = await Client.connect(server.ws_url)
        resumed = await again.request({"type": "resume", "room": code, "token": token, "version": 1}, "joined")
        assert resumed["state"] == state
        assert [m["version"] for m in resumed["missed"]] == [2, 3, 4]
        nxt = await again.request(
            {"type": "move", "move": state["legal_moves"][0], "version": state["version"]}, "state"
        )
        assert nxt["version"] == state["version"] + 1 and nxt["moves"] == 4
    finally:
        server.stop()


async def test_a_second_connection_with_the_same_token_replaces_the_first(redis_url: str) -> None:
    a, b = Server(redis_url), Server(redis_url)
    try:
        first, joined = await create(a)
        second = await Client.connect(b.ws_url)
        await second.request({"type": "resume", "room": joined["room"]["code"], "token": joined["token"]}, "joined")
        await first.ws.wait_closed()
        assert first.ws.close_code == 4001
        assert (await second.request({"type": "ping"}, "pong"))["type"] == "pong"
    finally:
        a.stop()
        b.stop()


async def test_health_and_live_rooms_endpoints(redis_url: str) -> None:
    server = Server(redis_url)
    try:
        assert get_json(server.url + "/healthz") == (200, {"status": "ok"})
        _, listed = await create(server)
        _, hidden = await create(server, listed=False)
        status, body = get_json(server.url + "/api/rooms")
        codes = [r["code"] for r in body["rooms"]]
        assert status == 200 and listed["room"]["code"] in codes and hidden["room"]["code"] not in codes
        assert next(r for r in body["rooms"] if r["code"] == listed["room"]["code"])["names"] == ["Ann"]
        # One room, listed or not, for a page about to offer its join form.
        code = hidden["room"]["code"]
        status, info = get_json(f"{server.url}/api/rooms/{code.lower()}")
        assert status == 200, info
        assert (info["names"], info["host_name"], info["round"]) == (["Ann"], "Ann", 1)  # who invites you
        assert (info["code"], info["kind"], info["phase"], info["players"], info["max_players"]) == (
            code,
            "race",
            "lobby",
            1,
            8,
        )
        status, missing = get_json(server.url + "/api/rooms/NOSUCH1")
        assert status == 404 and "no room NOSUCH1" in missing["error"]
        assert get_json(server.url + "/api/rooms/a-b")[0] == 400
        # The client's files are revalidated on each visit, so a deploy reaches every browser.
        # (a 304, with no body, when the copy is current).
        for path in ("/app.js", "/style.css", "/r/ABCDEFG", "/watch/ABCDEFG", "/daily"):
            with urllib.request.urlopen(server.url + path, timeout=10) as r:
                assert r.headers["Cache-Control"] == "no-cache", path
                etag = r.headers["ETag"]
            again = urllib.request.Request(server.url + path, headers={"If-None-Match": etag})
            with pytest.raises(urllib.error.HTTPError) as unchanged:
                urllib.request.urlopen(again, timeout=10)
            assert unchanged.value.code == 304 and unchanged.value.read() == b"", path
        assert get_json(server.url + "/api/daily?token=secret")[0] == 400  # never in an address
        # Bad parameters get a 400 that says which (a last newline is no way round the checks).
        for query, named in [
            ("top=abc", "top"),
            ("top=1_0", "top"),
            ("top=0", "top"),
            ("top=500", "top"),
            ("top=" + "9" * 5000, "top"),
            ("difficulty=hard%0A", "difficulty"),
            ("date=2026-11-29%0A", "YYYY-MM-DD"),
        ]:
            status, body = get_json(f"{server.url}/api/daily?{query}")
            assert status == 400 and named in body["error"], (query, body)
            assert "int()" not in body["error"] and "regex" not in body["error"], (query, body)
        # Other methods: refused, in JSON like the API's other errors.
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(server.url + "/api/daily", method="POST"), timeout=10)
        assert refused.value.code == 405 and "GET" in refused.value.headers["Allow"]
        assert json.loads(refused.value.read()) == {"error": "Method Not Allowed"}
        # Unknown addresses: a page a person can use, and JSON for the API.
        assert get_json(server.url + "/api/nope") == (404, {"error": "Not Found"})
        for path in ("/nope/x", "/r/", "/watch/", "/r/abc-def", "/watch/a%20b"):
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(server.url + path, timeout=10)
            page = info.value.read()
            assert info.value.code == 404 and info.value.headers.get_content_type() == "text/html", path
            assert b"No such page" in page and b'href="/"' in page, path
    finally:
        server.stop()


async def test_health_reports_an_unreachable_redis() -> None:
    redis = RedisServer()
    server = Server(redis.url)
    try:
        redis.stop()
        status, body = get_json(server.url + "/healthz")
        assert status == 503 and body["status"] == "unavailable"
    finally:
        server.stop()


async def test_the_server_runs_on_the_embedded_store_without_redis(tmp_path: Path) -> None:
    server = Server("", DATA_DIR=str(tmp_path))
    try:
        kept = server.process.wait_for("Your games are kept in")
        assert f"{tmp_path / 'race.db'} (they survive restarts" in kept
        _, joined = await create(server)
        assert joined["state"]["version"] == 1
        assert get_json(server.url + "/healthz") == (200, {"status": "ok"})
    finally:
        server.stop()
