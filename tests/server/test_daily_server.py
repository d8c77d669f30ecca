"""The daily challenge over real websockets: two server processes on one Redis."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest
import redis.asyncio as aioredis

from race.daily import choose_deal
from race.engine import Game
from race.rooms.standing import board as board_of
from tests.support.processes import DAILY_SECRET, Client, Server

NODE_LIMIT = "200000"


async def test_a_daily_attempt_is_watched_live_and_its_finish_reaches_the_leaderboard(empty_redis_url: str) -> None:
    redis_url = empty_redis_url
    a = Server(redis_url, DAILY_NODE_LIMIT=NODE_LIMIT, RATE_LIMIT_PER_SECOND="1000", RATE_LIMIT_BURST="1000")
    b = Server(redis_url, DAILY_NODE_LIMIT=NODE_LIMIT)
    try:
        ann = await Client.connect(a.ws_url)
        joined = await ann.request({"type": "daily", "name": "Ann", "difficulty": "easy"}, "joined")
        assert joined["type"] == "joined", joined
        date, code = joined["daily"]["date"], joined["room"]["code"]
        seed, line = choose_deal(date, "easy", int(NODE_LIMIT), DAILY_SECRET)  # what any process chooses
        assert joined["state"]["board"] == board_of(Game.deal(seed, "easy")) and joined["daily"]["ranked"] is True
        assert joined["room"]["deal"] is None and seed not in json.dumps(joined)  # the seed stays the server's

        # The same deal from another process (read from the store, not chosen again).
        bob = await Client.connect(b.ws_url)
        other = await bob.request({"type": "daily", "name": "Bob", "difficulty": "easy"}, "joined")
        assert other["state"]["board"] == joined["state"]["board"]

        # A spectator on the other process watches Ann; a fan follows the leaderboard there.
        spectator = await Client.connect(b.ws_url)
        watching = await spectator.request({"type": "watch", "room": code}, "watching")
        assert watching["room"]["players"][0]["name"] == "Ann"
        fan = await Client.connect(b.ws_url)
        board = await fan.request({"type": "leaderboard", "difficulty": "easy"}, "leaderboard")
        assert board["date"] == date and board["entries"] == []
        assert board["solver_moves"] == len(line)  # the solver's line for the deal, its length

        state = joined["state"]
        for move in line:
            state = await ann.request({"type": "move", "move": move, "version": state["version"]}, "state")
            assert state["type"] == "state", state
        assert state["won"] and state["finished_ms"] >= 0
        seen = await spectator.expect("player", where=lambda m: m["player"]["won"])
        assert seen["player"]["finished_ms"] == state["finished_ms"]
        update = await fan.expect("leaderboard")
        assert [(e["rank"], e["name"], e["moves"]) for e in update["entries"]] == [(1, "Ann", len(line))]

        mine = await ann.request({"type": "leaderboard", "difficulty": "easy", "token": joined["token"]}, "leaderboard")
        assert mine["me"]["rank"] == 1 and mine["streak"] == 1
        with urllib.request.urlopen(f"{a.url}/api/daily?difficulty=easy", timeout=10) as r:
            public = json.loads(r.read())
        assert public["entries"][0]["name"] == "Ann" and public["me"] is None
        assert joined["token"] not in json.dumps([public, update, seen, watching])

        # The game is on the record, but no one may watch it while its day lasts: it shows the line.
        with urllib.request.urlopen(f"{a.url}/api/rooms/{code}/replays", timeout=10) as r:
            assert json.loads(r.read())["replays"] == []
        store = aioredis.from_url(redis_url, decode_responses=True)
        try:
            (rid,) = [str(i) for i in await store.lrange(f"records:{{room:{code}}}", 0, -1)]
        finally:
            await store.aclose()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{b.url}/api/replays/{rid}", timeout=10)
        assert refused.value.code == 403 and "once its day is over" in json.loads(refused.value.read())["error"]
        refused.value.close()

        # A player on that day's board may watch it, and race it as a ghost; one who is not, may not.
        mine = {"X-Player-Token": joined["token"]}
        with urllib.request.urlopen(urllib.request.Request(f"{a.url}/api/rooms/{code}/replays", headers=mine)) as r:
            assert [g["id"] for g in json.loads(r.read())["replays"]] == [rid]
        with urllib.request.urlopen(urllib.request.Request(f"{b.url}/api/replays/{rid}", headers=mine)) as r:
            text = r.read().decode()
        assert (json.loads(text)["deal"], json.loads(text)["daily_date"]) == (None, date) and seed not in text
        theirs = {"X-Player-Token": other["token"]}  # Bob has an attempt, but no result
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(f"{b.url}/api/replays/{rid}", headers=theirs))
        assert refused.value.code == 403
        refused.value.close()
        cat = await Client.connect(b.ws_url)
        denied = await cat.request(
            {"type": "create", "name": "Cat", "ghosts": [rid], "token": other["token"]}, "joined"
        )
        assert (denied["type"], denied["code"]) == ("error", "kept_back"), denied
        race = await cat.request({"type": "create", "name": "Cat", "ghosts": [rid], "token": joined["token"]}, "joined")
        assert race["type"] == "joined" and race["room"]["kind"] == "race" and race["room"]["known_deal"]
        assert (race["room"]["daily_date"], race["room"]["deal"]) == (date, None)  # the day's deal, no seed
        assert race["room"]["ghosts"][0]["finished_ms"] == state["finished_ms"]
        await cat.close()
    finally:
        a.stop()
        b.stop()


async def test_the_server_chooses_the_days_deals_before_anyone_asks(redis_url: str) -> None:
    server = Server(redis_url, DAILY_NODE_LIMIT=NODE_LIMIT, DAILY_WARM="1")
    try:
        line = server.process.wait_for("daily deal for ", timeout=60)
        date, difficulty = line.split("daily deal for ")[1].split()[:2]
        assert difficulty == "easy"
        # Chosen and stored: a player gets it at once, from any process.
        client = await Client.connect(server.ws_url)
        joined = await client.request({"type": "daily", "name": "Early", "difficulty": "easy"}, "joined")
        assert joined["daily"]["date"] == date
        assert joined["state"]["board"] == board_of(
            Game.deal(choose_deal(date, "easy", int(NODE_LIMIT), DAILY_SECRET)[0], "easy")
        )
    finally:
        server.stop()  # mid-solve of the next deal: the worker is stopped, not waited for
    assert server.process.proc.returncode is not None


async def test_a_connection_follows_few_leaderboards_and_refused_requests_none(redis_url: str) -> None:
    """Following a leaderboard is a subscription held in Redis: a refused request (a day to
    come) must not leave one behind, and one connection cannot pile them up."""
    server = Server(redis_url)
    r = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        fan = await Client.connect(server.ws_url)

        async def followed(year: str) -> set[str]:
            return {str(c) for c in await r.pubsub_channels(f"room:{{daily:{year}-*") if str(c).endswith(":easy}")}

        def ask(date: str) -> dict[str, str]:
            return {"type": "leaderboard", "difficulty": "easy", "date": date}

        for day in range(1, 4):
            reply = await fan.request(ask(f"2999-01-0{day}"), "leaderboard")
            assert reply["code"] == "bad_date"
        assert await followed("2999") == set()
        for day in range(1, 10):  # nine past days: the first one asked for is let go
            reply = await fan.request(ask(f"1999-01-0{day}"), "leaderboard")
            assert reply["type"] == "leaderboard" and reply["entries"] == []
        async with asyncio.timeout(10):
            while len(await followed("1999")) > 8:  # until Redis has unsubscribed
                await asyncio.sleep(0.01)
        assert await followed("1999") == {f"room:{{daily:1999-01-0{day}:easy}}" for day in range(2, 10)}
        await fan.close()
    finally:
        await r.aclose()
        server.stop()
