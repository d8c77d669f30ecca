"""The server's default, the durable store in ``DATA_DIR``, over real processes: a server
killed with SIGKILL mid-race and mid-daily-attempt comes back with everything; a second
server on the same data is refused; the data moves to Redis through export and import."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import secrets
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from race.daily import choose_deal
from race.engine import Game
from race.rooms.standing import board as board_of
from tests.support.processes import ROOT, Client, RedisServer, Server
from tests.support.races import ann_wins_bob_resigns

NODE_LIMIT = "200000"
ANN, FAY = secrets.token_urlsafe(16), secrets.token_urlsafe(16)


def server_on(data: Path, store_url: str = "", analysis_nodes: str = "") -> Server:
    """A server on the durable store in ``data`` (or on ``store_url``) that makes its own
    daily secret, kept with its data (none from the tests); ``analysis_nodes``: each game's
    analysis budget (``""``: the default, ``"0"``: none computed)."""
    return Server(
        store_url,
        DATA_DIR=str(data),
        DAILY_SECRET="",
        DAILY_NODE_LIMIT=NODE_LIMIT,
        RATE_LIMIT_PER_SECOND="1000",
        RATE_LIMIT_BURST="1000",
        ANALYSIS_NODE_LIMIT=analysis_nodes,
    )


def get(url: str, **headers: str) -> Any:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
        return json.loads(r.read())


def day_line(data: Path, date: str) -> list[str]:
    """The day's easy deal's winning line, from the secret the server keeps in its file."""
    with contextlib.closing(sqlite3.connect(f"file:{data / 'race.db'}?mode=ro", uri=True)) as db:
        (secret,) = db.execute("SELECT data FROM docs WHERE room = 'daily-secret' AND name = 'secret'").fetchone()
    return choose_deal(date, "easy", int(NODE_LIMIT), secret)[1]


async def analysed(server: Server, rid: str) -> Any:
    """The game's analysis once it is done (a worker process's search: nothing to wait on but
    its result, which the API says is ``computing`` until then)."""
    async with asyncio.timeout(120):
        while (view := get(f"{server.url}/api/replays/{rid}/analysis"))["status"] == "computing":
            await asyncio.sleep(0.1)
    return view


async def play(client: Client, moves: list[str], state: dict[str, Any]) -> dict[str, Any]:
    for move in moves:
        state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert state["type"] == "state", state
    return state


async def daily_win(server: Server, data: Path, name: str, device: str) -> tuple[Client, dict[str, Any], list[str]]:
    """``name`` plays today's easy daily deal to a win: the client, its joined and the line."""
    client = await Client.connect(server.ws_url)
    joined = await client.request({"type": "daily", "name": name, "difficulty": "easy", "device": device}, "joined")
    line = day_line(data, joined["daily"]["date"])
    assert (await play(client, line, joined["state"]))["won"]
    return client, joined, line


def history(server: Server, code: str, fay: str) -> dict[str, Any]:
    """What the pages read of the record: Ann's /me, the race's rounds and each of its games,
    the day's board as Fay (ranked on it) and as anyone."""
    replays = get(f"{server.url}/api/rooms/{code}/replays")
    return {
        "me": get(f"{server.url}/api/me", **{"X-Device-Key": ANN}),
        "fay": get(f"{server.url}/api/me", **{"X-Device-Key": FAY}),
        "replays": replays,
        "games": [get(f"{server.url}/api/replays/{g['id']}", **{"X-Player-Token": fay}) for g in replays["replays"]],
        "board": get(f"{server.url}/api/daily?difficulty=easy", **{"X-Player-Token": fay}),
        "public": get(f"{server.url}/api/daily?difficulty=easy"),
    }


async def test_a_server_killed_mid_race_and_mid_daily_attempt_comes_back_with_everything(tmp_path: Path) -> None:
    server = server_on(tmp_path)
    try:
        assert str(tmp_path / "race.db") in server.process.wait_for("Your games are kept in")
        raced = await ann_wins_bob_resigns(server, ann={"device": ANN})
        await raced.close()
        fay, fay_joined, line = await daily_win(server, tmp_path, "Fay", FAY)
        await fay.close()

        # Mid-race: Cat and Dan have moved; mid-daily-attempt: Eve has played half the line.
        cat, dan, eve = [await Client.connect(server.ws_url) for _ in range(3)]
        created = await cat.request({"type": "create", "name": "Cat", "difficulty": "easy", "deal": 7}, "joined")
        code = created["room"]["code"]
        dan_joined = await dan.request({"type": "join", "room": code, "name": "Dan"}, "joined")
        await cat.send({"type": "start"})
        cat_state, dan_state = await cat.started(), await dan.started()
        cat_state = await play(cat, [m for m in cat_state["legal_moves"] if m != "shuffle"][:1], cat_state)
        dan_state = await play(dan, [m for m in dan_state["legal_moves"] if m != "shuffle"][:2], dan_state)
        eve_joined = await eve.request({"type": "daily", "name": "Eve", "difficulty": "easy"}, "joined")
        eve_state = await play(eve, line[: len(line) // 2], eve_joined["state"])
        before = history(server, raced.code, fay_joined["token"])
        assert len(before["replays"]["replays"]) == 2 and before["board"]["me"]["rank"] == 1
        # Dan's next move is in flight when the server dies: applied or not, never twice.
        in_flight = {"type": "move", "move": dan_state["legal_moves"][0], "version": dan_state["version"], "id": "d-9"}
        await dan.send(in_flight)
        server.kill()
    finally:
        server.stop()

    server = server_on(tmp_path)  # the same data, a new process
    try:
        assert "2 races in progress: their deadlines are armed again" in server.process.wait_for("races in progress")
        again: dict[str, Client] = {}
        for name, joined, state in (("cat", created, cat_state), ("eve", eve_joined, eve_state)):
            again[name] = client = await Client.connect(server.ws_url)
            resume = {"type": "resume", "room": joined["room"]["code"], "token": joined["token"], "version": 1}
            back = await client.request(resume, "joined")
            assert back["state"] == state  # exactly what it was told last
        again["dan"] = dan = await Client.connect(server.ws_url)
        resume = {"type": "resume", "room": code, "token": dan_joined["token"], "version": dan_state["version"]}
        back = await dan.request(resume, "joined")
        assert back["state"]["version"] in (dan_state["version"], dan_state["version"] + 1)
        retried = await dan.request(in_flight, "state")  # the retry applies once
        assert retried["version"] == dan_state["version"] + 1 and retried["moves"] == dan_state["moves"] + 1
        assert (await again["cat"].request({"type": "sync"}, "room"))["room"]["phase"] == "racing"

        # The record, /me, the board, and the day's deal: as they were.
        assert history(server, raced.code, fay_joined["token"]) == before
        gus = await Client.connect(server.ws_url)
        gus_joined = await gus.request({"type": "daily", "name": "Gus", "difficulty": "easy"}, "joined")
        assert gus_joined["daily"]["date"] == fay_joined["daily"]["date"]
        assert gus_joined["state"]["board"] == fay_joined["state"]["board"]
        assert day_line(tmp_path, gus_joined["daily"]["date"]) == line

        # Eve finishes her attempt on the same line, and is ranked after Fay.
        won = await play(again["eve"], line[len(line) // 2 :], eve_state)
        assert won["won"]
        board = get(f"{server.url}/api/daily?difficulty=easy", **{"X-Player-Token": eve_joined["token"]})
        assert [e["name"] for e in board["entries"]] == ["Fay", "Eve"] and board["me"]["rank"] == 2
        for client in (*again.values(), gus):
            await client.close()
    finally:
        server.stop()


def test_a_second_server_on_the_same_data_is_refused(tmp_path: Path) -> None:
    server = Server("", DATA_DIR=str(tmp_path))
    try:
        env = {"DATA_DIR": str(tmp_path), "REDIS_URL": "", "PATH": "/usr/bin:/bin"}
        second = subprocess.run(
            [sys.executable, "-m", "race", "serve", "--port", "0"], env=env, cwd=ROOT, capture_output=True, timeout=60
        )
        assert second.returncode == 1
        error = second.stderr.decode()
        assert f"error: the data file {tmp_path / 'race.db'} is in use by another server process" in error
        assert f"(pid {server.process.proc.pid})" in error and "use Redis" in error and "Traceback" not in error
        assert get(f"{server.url}/healthz") == {"status": "ok"}  # the first goes on
    finally:
        server.stop()


async def test_export_from_the_durable_store_and_import_into_redis_keeps_the_history(tmp_path: Path) -> None:
    data, dump = tmp_path / "data", tmp_path / "race.jsonl.gz"
    server = server_on(data, analysis_nodes="200000")
    try:
        raced = await ann_wins_bob_resigns(server, ann={"device": ANN})
        await raced.close()
        fay, fay_joined, _ = await daily_win(server, data, "Fay", FAY)
        before = history(server, raced.code, fay_joined["token"])
        games = [g["id"] for g in before["replays"]["replays"]]
        analyses = {rid: await analysed(server, rid) for rid in games}  # (Fay's waits for her day's end)
        assert [a["status"] for a in analyses.values()] == ["done", "done"]
        ask = {"type": "leaderboard", "difficulty": "easy", "token": fay_joined["token"]}
        mine = await fay.request(ask, "leaderboard")
        await fay.close()
        # Exported beside the running server, as a backup is.
        env = {"DATA_DIR": str(data), "REDIS_URL": "", "PATH": "/usr/bin:/bin"}
        done = subprocess.run(
            [sys.executable, "-m", "race", "export", str(dump)], env=env, cwd=ROOT, capture_output=True
        )
        assert done.returncode == 0, done.stderr
        assert "3 records, 2 analyses" in done.stderr.decode()  # Ann's, Bob's and Fay's games; the race's two
    finally:
        server.stop()
    redis = RedisServer()
    try:
        args = [sys.executable, "-m", "race", "import", str(dump), "--to", redis.url]
        done = subprocess.run(args, cwd=ROOT, capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "3 records, 2 analyses" in done.stderr.decode()
        server = server_on(tmp_path / "unused", redis.url, analysis_nodes="0")  # computes none itself
        try:
            assert history(server, raced.code, fay_joined["token"]) == before
            assert {rid: get(f"{server.url}/api/replays/{rid}/analysis") for rid in games} == analyses
            fay = await Client.connect(server.ws_url)
            again = await fay.request(ask, "leaderboard")
            assert (again["me"], again["streak"], again["entries"]) == (mine["me"], mine["streak"], mine["entries"])
            # The day's deal moved with the data: a new attempt deals the same cards.
            gus = await Client.connect(server.ws_url)
            gus_joined = await gus.request({"type": "daily", "name": "Gus", "difficulty": "easy"}, "joined")
            assert gus_joined["state"]["board"] == fay_joined["state"]["board"]
            seed, _ = choose_deal(fay_joined["daily"]["date"], "easy", int(NODE_LIMIT), _secret_of(dump))
            assert gus_joined["state"]["board"] == board_of(Game.deal(seed, "easy"))
            for client in (fay, gus):
                await client.close()
        finally:
            server.stop()
    finally:
        redis.stop()


def _secret_of(dump: Path) -> str:
    with gzip.open(dump, "rt") as lines:
        for line in lines:
            kept = json.loads(line)
            if kept.get("room") == "daily-secret":
                return str(kept["docs"][0][2])
    raise AssertionError("no daily secret in the export")
