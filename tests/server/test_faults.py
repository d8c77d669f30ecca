"""Faults with real processes: a server killed mid-race, Redis crashing (with AOF) and
coming back, Redis away for a while or demoted by a failover, retried moves, and a client
that stops reading; and one fault no real Redis fails on cue (the server in this process,
on an embedded store that fails once).

Every wait is on an event (a message, a closed socket, a log line), bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import signal
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any, cast

import msgspec
import pytest
import redis.asyncio as aioredis
import uvicorn
import websockets

from race.app import create_app
from race.daily import board_group, next_day
from race.engine import Game
from race.rooms.model import Meta, Seat, history_keys, history_of
from race.rooms.standing import board
from race.settings import Settings
from race.store import StoreUnavailable, open_store
from race.store.memory import MemoryStore
from tests.support.processes import Client, RedisServer, Server
from tests.support.winning_lines import winning_line

DEAL, DIFFICULTY = 3, "easy"
LINE = tuple(winning_line(DEAL, DIFFICULTY))  # checked in: the race is won without the solver


def fast_server(store_url: str) -> Server:
    """A server process whose rate limit lets a test play as fast as it can."""
    return Server(store_url, RATE_LIMIT_PER_SECOND="5000", RATE_LIMIT_BURST="5000")


@functools.cache
def board_after(moves: tuple[str, ...] | list[str]) -> dict[str, Any]:
    game = Game.deal(DEAL, DIFFICULTY)
    for m in moves:
        game.play(m)
    return board(game)


def get_json(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def no_tracebacks(*servers: Server) -> None:
    for s in servers:
        bad = [line for line in s.process.lines if "Traceback" in line or " ERROR " in line]
        assert not bad, "\n".join(s.process.lines[-60:])


async def connect(server: Server) -> Client:
    """A client whose library keeps reading (and answering pings) while a test is busy
    elsewhere: messages wait in its buffer, not in the server's send queue."""
    return await Client.connect(server.ws_url, max_queue=None)


async def seat(server: Server, kind: str, code: str | None, name: str) -> tuple[Client, dict[str, Any]]:
    client = await connect(server)
    msg: dict[str, Any] = {"type": kind, "name": name}
    msg |= {"difficulty": DIFFICULTY, "deal": DEAL} if kind == "create" else {"room": code}
    joined = await client.request(msg, "joined")
    assert joined["type"] == "joined", joined
    return client, joined


async def racing(*clients: Client) -> None:
    for c in clients:
        await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")


async def race_of_two(server: Server) -> tuple[Client, Client, dict[str, Any]]:
    """Ann and Bob racing on ``server``; Ann's ``joined``."""
    ann, joined = await seat(server, "create", None, "Ann")
    bob, _ = await seat(server, "join", joined["room"]["code"], "Bob")
    await ann.send({"type": "start"})
    await racing(ann, bob)
    return ann, bob, joined


async def play(
    client: Client, who: str, moves: list[str] | tuple[str, ...], state: dict[str, Any], start: int = 0
) -> dict[str, Any]:
    """Play ``moves`` one by one (each with an ``id``), checking every reply."""
    for i, move in enumerate(moves, start):
        reply = await client.request(
            {"type": "move", "move": move, "version": state["version"], "id": f"{who}-{i}"}, "state"
        )
        assert reply["type"] == "state" and reply["version"] == state["version"] + 1, reply
        state = reply
    return state


async def stored_games(redis_url: str, code: str) -> dict[str, tuple[int, Seat]]:
    """Every seat of a room as Redis holds it, its game with the history from the seat's
    history documents, checked: each game loads with the engine (which verifies its cards
    and undo history), and each seat's log ends at its version."""
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        h = cast(dict[str, str], await raw.hgetall(f"room:{{{code}}}"))
        aside = cast(dict[str, str], await raw.hgetall(f"room:{{{code}}}:aside"))
        meta = msgspec.json.decode(h["d:meta"], type=Meta)
        out = {}
        for sid in meta.seats:
            s = msgspec.json.decode(h[f"d:p:{sid}"], type=Seat)
            s.game["history"] = history_of(s, [aside.get(f"d:{k}") for k in history_keys(s)])
            game = Game.from_dict(s.game)
            assert s.seat == sid and game.cards_on_foundations >= 8, s
            version = int(h[f"v:p:{sid}"])
            log = cast(list[str], await raw.lrange(f"room:{{{code}}}:log:p:{sid}", -1, -1))
            if version > 1:
                assert log and int(log[0].partition("|")[0]) == version, (sid, version, log)
            out[sid] = (version, s)
        return out
    finally:
        await raw.aclose()


async def test_kill_9_one_of_two_processes_mid_race_loses_nothing(redis_url: str) -> None:
    line = LINE
    a, b = fast_server(redis_url), fast_server(redis_url)
    try:
        ann, joined = await seat(a, "create", None, "Ann")
        code, ann_token = joined["room"]["code"], joined["token"]
        cy, cy_joined = await seat(a, "join", code, "Cy")
        bob, _ = await seat(b, "join", code, "Bob")
        spectator = await connect(b)
        await spectator.request({"type": "watch", "room": code}, "watching")
        await ann.send({"type": "start"})
        await racing(ann, cy, bob, spectator)

        ann_state = await play(ann, "ann", line[:40], joined["state"])
        cy_state = await play(cy, "cy", line[:10], cy_joined["state"])
        bob_state = await play(bob, "bob", line[:30], joined["state"])
        assert ann_state["board"] == board_after(line[:40])

        # Ann's next move is in flight when her process dies: applied or not, she cannot know.
        in_flight = {"type": "move", "move": line[40], "version": ann_state["version"], "id": "ann-40"}
        await ann.send(in_flight)
        a.kill()
        for client in (ann, cy):
            await client.ws.wait_closed()

        # Both reconnect to the surviving process and resume with token + last version.
        ann = await connect(b)
        resumed = await ann.request(
            {"type": "resume", "room": code, "token": ann_token, "version": ann_state["version"]}, "joined"
        )
        assert resumed["type"] == "joined", resumed
        assert resumed["state"]["board"] in (ann_state["board"], board_after(line[:41]))
        applied_before = resumed["state"]["version"] == ann_state["version"] + 1
        assert [m["version"] for m in resumed["missed"]] == ([ann_state["version"] + 1] if applied_before else [])
        retried = await ann.request(in_flight, "state")  # the retry after the "timeout"
        assert retried["type"] == "state", retried
        assert retried.get("duplicate", False) == applied_before
        assert retried["version"] == ann_state["version"] + 1 and retried["moves"] == 41
        assert retried["board"] == board_after(line[:41])

        cy = await connect(b)
        cy_resumed = await cy.request(
            {"type": "resume", "room": code, "token": cy_joined["token"], "version": cy_state["version"]}, "joined"
        )
        assert cy_resumed["state"] == cy_state and cy_resumed["missed"] == []  # the exact board, nothing lost

        # The race goes on: Ann wins, then Bob; Cy resigns. Everyone sees it live.
        ann_final = await play(ann, "ann", line[41:], retried, start=41)
        assert ann_final["won"] and ann_final["moves"] == len(line)
        seen = await bob.expect("player", where=lambda m: m["player"]["seat"] == "s1" and m["player"]["won"])
        assert seen["player"]["version"] == ann_final["version"]
        bob_final = await play(bob, "bob", line[30:], bob_state, start=30)
        assert bob_final["won"]
        assert (await cy.request({"type": "resign"}, "state"))["resigned"]

        overs = [
            await c.expect("room", where=lambda m: m["room"]["phase"] == "over") for c in (ann, bob, cy, spectator)
        ]
        ranking = overs[0]["room"]["ranking"]
        assert all(o["room"]["ranking"] == ranking for o in overs)
        assert [(r["name"], r["moves"], r["cards"]) for r in ranking] == [
            ("Ann", len(line), 104),
            ("Bob", len(line), 104),
            ("Cy", 10, cy_state["cards"]),
        ]
        assert 0 < ranking[0]["finished_ms"] <= ranking[1]["finished_ms"] and ranking[2]["resigned"]
        stored = await stored_games(redis_url, code)
        assert {sid: (v, s.moves) for sid, (v, s) in stored.items()} == {
            "s1": (ann_final["version"], len(line)),
            "s2": (cy_state["version"] + 1, 10),
            "s3": (bob_final["version"], len(line)),
        }
        no_tracebacks(b)
    finally:
        a.stop()
        b.stop()


async def win_a_daily(server: Server, redis_url: str) -> dict[str, Any]:
    """Finish the server's daily challenge of the day and return its leaderboard. The day is
    the server's (its clock, not this process's, says when midnight UTC passes): its deal
    is put in the store's cache first (the test deal and its line), and the next day's as
    well, in case midnight passes before the attempt starts, so no solving is needed."""
    status, now = get_json(f"{server.url}/api/daily?difficulty={DIFFICULTY}")
    assert status == 200, now
    days = (now["today"], next_day(now["today"]))
    store = open_store(redis_url, ttl=3600)
    await store.connect()
    try:
        deal = json.dumps({"seed": DEAL, "line": list(LINE)})
        for day in days:
            assert await store.commit(
                board_group(day, DIFFICULTY), expect={"deal": 0}, write={"deal": deal}, ttl=3600
            ), f"a deal for {day} was cached already"
    finally:
        await store.close()
    dee = await connect(server)
    joined = await dee.request({"type": "daily", "name": "Dee", "difficulty": DIFFICULTY}, "joined")
    assert joined["type"] == "joined" and joined["daily"]["ranked"], joined
    date = joined["daily"]["date"]  # the day the server dealt the attempt for
    assert date in days, (date, days)
    state = await play(dee, "dee", LINE, joined["state"])
    assert state["won"]
    await dee.close()
    status, board = get_json(f"{server.url}/api/daily?difficulty={DIFFICULTY}&date={date}")
    assert status == 200 and [(e["name"], e["moves"]) for e in board["entries"]] == [("Dee", len(LINE))]
    assert isinstance(board, dict) and board["date"] == date
    return board


async def test_redis_crash_with_aof_keeps_rooms_boards_and_leaderboards(tmp_path: Any) -> None:
    aof = ("--appendonly", "yes", "--appendfsync", "always")
    redis = RedisServer(*aof, directory=str(tmp_path))
    server = fast_server(redis.url)
    try:
        leaderboard = await win_a_daily(server, redis.url)
        ann, joined = await seat(server, "create", None, "Ann")
        code = joined["room"]["code"]
        bob, bob_joined = await seat(server, "join", code, "Bob")
        await ann.send({"type": "start"})
        await racing(ann, bob)
        ann_state = await play(ann, "ann", LINE[:12], joined["state"])
        bob_state = await play(bob, "bob", LINE[:5], bob_joined["state"])

        redis.kill()  # kill -9: with appendfsync always, every acknowledged write is on disk
        redis = RedisServer(*aof, port=redis.port, directory=str(tmp_path))

        # The server reconnects by itself; a fresh resume sees the exact boards.
        again = await connect(server)
        resumed = await again.request({"type": "resume", "room": code, "token": joined["token"]}, "joined")
        assert resumed.get("state") == ann_state, resumed
        assert [p["version"] for p in resumed["room"]["players"]] == [ann_state["version"], bob_state["version"]]
        # Broadcasts sent before this process's pub/sub was back may be lost: it says so.
        assert (await bob.expect("resync"))["type"] == "resync"
        # ... and the race goes on on the old connection, with broadcasts.
        nxt = await bob.request({"type": "move", "move": LINE[5], "version": bob_state["version"]}, "state")
        assert nxt["type"] == "state" and nxt["board"] == board_after(LINE[:6])
        seen = await again.expect("player", where=lambda m: m["player"]["version"] == nxt["version"])
        assert seen["player"]["seat"] == "s2"
        stored = await stored_games(redis.url, code)
        assert {sid: v for sid, (v, _) in stored.items()} == {"s1": ann_state["version"], "s2": nxt["version"]}
        date = leaderboard["date"]
        status, board = get_json(f"{server.url}/api/daily?difficulty={DIFFICULTY}&date={date}")
        assert status == 200 and board["entries"] == leaderboard["entries"]
        no_tracebacks(server)
    finally:
        server.stop()
        redis.stop()


async def test_redis_away_for_a_while(tmp_path: Any) -> None:
    aof = ("--appendonly", "yes", "--appendfsync", "always")
    redis = RedisServer(*aof, directory=str(tmp_path))
    a, b = fast_server(redis.url), fast_server(redis.url)
    try:
        ann, joined = await seat(a, "create", None, "Ann")
        code = joined["room"]["code"]
        bob, _ = await seat(b, "join", code, "Bob")
        spectator = await connect(a)
        await spectator.request({"type": "watch", "room": code}, "watching")
        await ann.send({"type": "start"})
        await racing(ann, bob, spectator)
        state = await play(ann, "ann", LINE[:3], joined["state"])
        await bob.expect("player", where=lambda m: m["player"]["version"] == state["version"])
        before = await stored_games(redis.url, code)

        redis.stop()
        move = {"type": "move", "move": LINE[3], "version": state["version"], "id": "ann-3"}
        newcomer = await connect(b)
        attempts: list[tuple[Client, dict[str, Any]]] = [
            (ann, move),
            (ann, {"type": "hint"}),
            (ann, {"type": "undo", "version": state["version"]}),
            (bob, {"type": "resign"}),
            (newcomer, {"type": "create", "name": "Dee"}),
            (newcomer, {"type": "join", "room": code, "name": "Dee"}),
            (newcomer, {"type": "watch", "room": code}),
            (newcomer, {"type": "resume", "room": code, "token": joined["token"]}),
        ]
        for client, msg in attempts:
            reply = await client.request(msg, "__none__")
            assert reply["code"] == "unavailable" and "temporarily unavailable" in reply["message"], (msg, reply)
        assert (await newcomer.request({"type": "ping"}, "pong"))["type"] == "pong"  # the handler lives on
        assert get_json(a.url + "/healthz")[0] == 503 and get_json(b.url + "/healthz")[0] == 503

        redis = RedisServer(*aof, port=redis.port, directory=str(tmp_path))
        # Nothing half-written: every game as it was before the outage.
        after = await stored_games(redis.url, code)
        assert {k: (v, s.game) for k, (v, s) in after.items()} == {k: (v, s.game) for k, (v, s) in before.items()}
        # Service resumes by itself: broadcasts were possibly lost, so everyone is told to resync ...
        for client in (ann, bob, spectator):
            assert (await client.expect("resync"))["type"] == "resync"
        # ... and the same connections work again, with broadcasts across processes.
        retried = await ann.request(move, "state")
        assert retried["type"] == "state" and retried["version"] == state["version"] + 1, retried
        for client in (bob, spectator):
            await client.expect("player", where=lambda m: m["player"]["version"] == retried["version"])
        joined_late = await newcomer.request({"type": "watch", "room": code}, "watching")
        assert joined_late["room"]["players"][0]["version"] == retried["version"]
        assert get_json(a.url + "/healthz") == (200, {"status": "ok"})
        no_tracebacks(a, b)
    finally:
        a.stop()
        b.stop()
        redis.stop()


async def test_a_hung_redis_gives_a_timely_error_and_holds_up_no_one() -> None:
    """Redis frozen (SIGSTOP) rather than gone: a request waiting on it gets ``unavailable``
    after the store's timeout, while everything that does not need Redis carries on."""
    redis = RedisServer()
    server = fast_server(redis.url)
    try:
        ann, bob, _ = await race_of_two(server)
        move = {"type": "move", "move": LINE[0], "version": 1, "id": "ann-0"}

        os.kill(redis.process.proc.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            await ann.send(move)
            assert (await bob.request({"type": "ping"}, "pong"))["type"] == "pong"  # not held up
            newcomer = await connect(server)
            assert newcomer.hello["type"] == "hello"
            assert time.monotonic() - started < 4
            reply = await ann.expect("state", "error", timeout=15)
            assert reply["type"] == "error" and reply["code"] == "unavailable", reply
        finally:
            os.kill(redis.process.proc.pid, signal.SIGCONT)
        again = await ann.request(move, "state")  # the retry, with the same id: applied once
        assert again["type"] == "state" and again["version"] == 2 and again["moves"] == 1, again
        seen = await bob.expect("player", where=lambda m: m["player"]["seat"] == "s1")
        assert seen["player"]["version"] == 2
        no_tracebacks(server)
    finally:
        server.stop()
        redis.stop()


async def test_a_failover_that_demotes_redis_to_a_replica() -> None:
    """The primary a server talks to is demoted to a read-only replica (a failover, seen
    from the old primary): every write gets ``unavailable`` rather than an internal error,
    reads go on (a spectator still gets the room), nothing is written, and once it is a
    primary again the retried move applies once."""
    redis = RedisServer()
    server = fast_server(redis.url)
    admin = aioredis.Redis.from_url(redis.url, decode_responses=True)
    try:
        ann, bob, joined = await race_of_two(server)
        code = joined["room"]["code"]
        state = await play(ann, "ann", LINE[:3], joined["state"])
        before = await stored_games(redis.url, code)

        # A replica of a primary that is not there: it keeps its data, serves reads and
        # refuses every write with READONLY, as an old primary does after a failover.
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            nowhere = s.getsockname()[1]
        await admin.replicaof("127.0.0.1", nowhere)
        move = {"type": "move", "move": LINE[3], "version": state["version"], "id": "ann-3"}
        newcomer = await connect(server)
        attempts: list[tuple[Client, dict[str, Any]]] = [
            (ann, move),
            (ann, {"type": "undo", "version": state["version"]}),
            (bob, {"type": "resign"}),
            (newcomer, {"type": "create", "name": "Dee"}),
        ]
        for client, msg in attempts:
            reply = await client.request(msg, "__none__")
            assert reply["code"] == "unavailable" and "temporarily unavailable" in reply["message"], (msg, reply)
        watching = await newcomer.request({"type": "watch", "room": code}, "watching")
        assert watching["type"] == "watching" and watching["room"]["players"][0]["version"] == state["version"]
        assert get_json(server.url + "/api/rooms")[0] in (200, 503)
        assert (await stored_games(redis.url, code)) == before

        await admin.replicaof("NO", "ONE")
        retried = await ann.request(move, "state")
        assert retried["type"] == "state" and retried["version"] == state["version"] + 1, retried
        seen = await bob.expect("player", where=lambda m: m["player"]["version"] == retried["version"])
        assert seen["player"]["moves"] == 4
        assert server.process.wait_for("store unavailable while handling a message: Redis is unavailable: READONLY")
        no_tracebacks(server)
    finally:
        await admin.aclose()
        server.stop()
        redis.stop()


class FailingSubscribe(MemoryStore):
    """The embedded store, whose next subscription fails once when ``armed``."""

    armed = False

    async def subscribe(self, room: str) -> None:
        if self.armed:
            self.armed = False
            raise StoreUnavailable("gone for a moment")
        await super().subscribe(room)


async def test_a_room_made_while_its_news_cannot_be_followed_keeps_its_token() -> None:
    """The store fails between committing a new room and subscribing to it: the creator
    still gets ``joined`` with its token, then the connection closes (1013), and the client
    comes back with ``resume`` to a room it now follows."""
    store = FailingSubscribe(ttl=3600)
    app = create_app(Settings(countdown_seconds=0, daily_warm=False), store)
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    url = f"ws://127.0.0.1:{listening.getsockname()[1]}/ws"
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning"))
    serving = asyncio.create_task(server.serve(sockets=[listening]))
    try:
        ann = await Client.connect(url)
        store.armed = True
        joined = await ann.request({"type": "create", "name": "Ann"}, "joined")
        assert joined["type"] == "joined" and joined["token"], joined
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ann.expect("__none__")
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
        assert not store.armed  # it was the subscription that failed

        code = joined["room"]["code"]
        again = await Client.connect(url)
        resumed = await again.request({"type": "resume", "room": code, "token": joined["token"]}, "joined")
        assert resumed["type"] == "joined" and resumed["seat"] == joined["seat"], resumed
        bob = await Client.connect(url)
        assert (await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined"))["type"] == "joined"
        seen = await again.expect("room", where=lambda m: len(m["room"]["players"]) == 2)
        assert [p["name"] for p in seen["room"]["players"]] == ["Ann", "Bob"]
        for client in (again, bob):
            await client.close()
    finally:
        server.should_exit = True
        await serving


@pytest.fixture(scope="module")
def pair(redis_url: str) -> Iterator[tuple[Server, Server]]:
    a, b = fast_server(redis_url), fast_server(redis_url)
    yield a, b
    a.stop()
    b.stop()


async def test_a_resent_move_applies_once_over_websockets(pair: tuple[Server, Server]) -> None:
    a, b = pair
    ann, joined = await seat(a, "create", None, "Ann")
    code = joined["room"]["code"]
    bob, _ = await seat(b, "join", code, "Bob")
    await ann.send({"type": "start"})
    await racing(ann, bob)
    v = joined["state"]["version"]
    line = LINE
    move = {"type": "move", "move": line[0], "version": v, "id": "click-1"}
    first = await ann.request(move, "state")
    again = await ann.request(move, "state")  # the same message again: a retry after a timeout
    assert again["duplicate"] is True and again == {**first, "duplicate": True}

    # A retry from a new connection, on the other process, after the first one dropped
    # without reading its reply.
    nxt = {"type": "move", "move": line[1], "version": first["version"], "id": "click-2"}
    await ann.send(nxt)
    await ann.close()
    ann = await connect(b)
    await ann.request({"type": "resume", "room": code, "token": joined["token"]}, "joined")
    retried = await ann.request(nxt, "state")
    assert retried["version"] == v + 2 and retried["moves"] == 2 and retried["board"] == board_after(line[:2])
    last = await ann.request({"type": "move", "move": line[2], "version": v + 2, "id": "click-3"}, "state")

    # Bob saw each move exactly once, in order (a rival is told "move", not the move's text).
    seen = [(await bob.expect("player", where=lambda m: m["player"]["seat"] == "s1")) for _ in range(3)]
    assert [(m["player"]["version"], m["action"], m["player"]["moves"]) for m in seen] == [
        (v + 1, "move", 1),
        (v + 2, "move", 2),
        (v + 3, "move", 3),
    ]
    assert last["moves"] == 3
    await ann.close()
    await bob.close()


async def stall_a_spectator(a: Server) -> tuple[Client, list[Client], Any]:
    """A full room, and a spectator of it that stops reading until the server gives up on
    it; returns the host, the other players and the spectator's socket."""
    ann, joined = await seat(a, "create", None, "Ann")
    code = joined["room"]["code"]
    players = [(await seat(a, "join", code, f"Player {i}"))[0] for i in range(2, 9)]  # a full room
    bob = players[0]
    # A spectator that stops reading: a tiny receive buffer, no compression, and it never
    # reads again. Each lobby change sends everyone a ~10 KB snapshot of the eight boards.
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", a.port))
    stalled = await websockets.connect(a.ws_url, sock=sock, max_queue=1, max_size=2**22, compression=None)
    await stalled.send(json.dumps({"type": "watch", "room": code}))
    mark = len(a.process.lines)

    kicked = False
    for i in range(8000):  # until the server gives up on the stalled client (about 600 here)
        ready = i % 2 == 0
        await bob.send({"type": "ready", "ready": ready})
        # Everyone else gets every broadcast promptly, however far behind the stalled one is.
        update = await ann.expect("room", where=lambda m, r=ready: m["room"]["players"][1]["ready"] == r, timeout=5)
        assert update["room"]["phase"] == "lobby"
        # Given up on: its queue overflowed, or (a short WRITE_TIMEOUT_SECONDS) a write waited too long.
        if any("is not reading" in line or "takes nothing it is sent" in line for line in a.process.lines[mark:]):
            kicked = True
            break
    assert kicked, "the stalled client was never disconnected"
    assert (await bob.request({"type": "ping"}, "pong"))["type"] == "pong"
    return ann, players, stalled


async def test_a_stalled_client_cannot_hold_up_the_room(pair: tuple[Server, Server]) -> None:
    a, _ = pair
    ann, players, stalled = await stall_a_spectator(a)
    # When it reads again, it finds what was buffered, then the close (1013: reconnect and resync).
    with pytest.raises(websockets.ConnectionClosed) as info:
        async with asyncio.timeout(30):
            while True:
                await stalled.recv()
    assert info.value.rcvd is not None and info.value.rcvd.code == 1013
    for client in (ann, *players):
        await client.close()


async def test_a_client_that_never_reads_again_is_dropped(redis_url: str) -> None:
    """Not even the close reaches a client that takes nothing it is sent: the server drops
    it after WRITE_TIMEOUT_SECONDS, so it holds no presence (nor its address's slot)."""
    a = Server(redis_url, RATE_LIMIT_PER_SECOND="5000", RATE_LIMIT_BURST="5000", WRITE_TIMEOUT_SECONDS="1")
    try:
        ann, players, stalled = await stall_a_spectator(a)
        watched = await ann.expect("presence", where=lambda m: m["watching"] == 1)
        gone = await ann.expect("presence", where=lambda m: m["version"] > watched["version"], timeout=15)
        assert gone["watching"] == 0
        assert any("takes nothing it is sent" in line for line in a.process.lines), "\n".join(a.process.lines[-20:])
        stalled.transport.abort()
        for client in (ann, *players):
            await client.close()
    finally:
        a.stop()
