"""Ratings among friends through a real server: two races between Ann and Bob move their
ratings the right way (the room's ratings, ``/api/me``, the friends' board), and
``python -m race ratings --recompute`` gives the same numbers: on the embedded store and on
Redis."""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.processes import ROOT, Server
from tests.support.races import ann_wins_bob_resigns


async def rated(http: httpx.AsyncClient, code: str) -> dict[str, Any]:
    """The room's ratings once its race is rated (just after its games go on the record)."""
    for _ in range(200):
        body: dict[str, Any] = (await http.get(f"/api/rooms/{code}/ratings")).json()
        if body["rated"] is not None:
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"room {code}'s race was never rated: {body}")


async def mine(http: httpx.AsyncClient, key: str) -> dict[str, Any]:
    me: dict[str, Any] = (await http.get("/api/me", headers={"X-Device-Key": key})).json()
    rating: dict[str, Any] = me["rating"]
    return rating


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
async def test_two_races_move_ann_up_and_bob_down_and_a_recompute_agrees(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url = request.getfixturevalue("redis_url") if backend == "redis" else ""
    command_url = url or f"sqlite://{tmp_path}/race.db"
    ann_key, bob_key = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    server = Server(url, DATA_DIR=str(tmp_path), COUNTDOWN_SECONDS="0.2", RATE_LIMIT_BURST="1000")
    try:
        changes = []
        async with httpx.AsyncClient(base_url=server.url) as http:
            for _ in range(2):
                raced = await ann_wins_bob_resigns(server, ann={"device": ann_key}, bob={"device": bob_key})
                body = await rated(http, raced.code)
                await raced.close()
                assert body["rated"] is True and body["round"] == 1
                by_name = {p["name"]: p for p in body["players"]}
                assert by_name["Ann"]["change"] > 0 > by_name["Bob"]["change"]
                assert by_name["Ann"]["provisional"] and by_name["Bob"]["provisional"]
                changes.append((by_name["Ann"], by_name["Bob"]))
            ann, bob = await mine(http, ann_key), await mine(http, bob_key)
            assert ann["races"] == bob["races"] == 2
            assert [p["rating"] for p in ann["history"]] == [changes[0][0]["rating"], ann["rating"]]
            assert 1500 < changes[0][0]["rating"] < ann["rating"]
            assert 1500 > changes[0][1]["rating"] > bob["rating"]
            assert [p["change"] for p in bob["history"]] == [c[1]["change"] for c in changes]
            assert [(p["place"], p["field"]) for p in ann["history"]] == [(1, 2), (1, 2)]
            board = (await http.get("/api/me/friends", headers={"X-Device-Key": ann_key})).json()
            (friend,) = board["friends"]
            assert (friend["name"], friend["together"], friend["wins"], friend["losses"]) == ("Bob", 2, 2, 0)
            assert friend["rating"] == bob["rating"] and board["me"]["rating"] == ann["rating"]
            assert (await http.get("/api/me/friends")).status_code == 400
            assert (await http.get("/api/rooms/NOSUCH2/ratings")).status_code == 404
    finally:
        server.stop()

    done = subprocess.run(
        [sys.executable, "-m", "race", "ratings", "--recompute", "--store", command_url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "recomputed" in done.stdout
    listed = subprocess.run(
        [sys.executable, "-m", "race", "ratings", "--store", command_url, "--top", "100000"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert f"{ann['rating']}?  Ann (2 races)" in listed.stdout
    assert f"{bob['rating']}?  Bob (2 races)" in listed.stdout

    server = Server(url, DATA_DIR=str(tmp_path), COUNTDOWN_SECONDS="0.2", RATE_LIMIT_BURST="1000")
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            assert await mine(http, ann_key) == ann
            assert await mine(http, bob_key) == bob
    finally:
        server.stop()
