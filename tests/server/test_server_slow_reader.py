"""A client that stops reading for a while and then catches up: the broadcasts that could
not be written at once (its socket was full) wait, and then all reach it, in order."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from tests.support.processes import Client, Server


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[Server]:
    # A long send queue: the kernel's buffers take a few hundred of these snapshots before
    # the server must wait for the socket, and the queue must hold what comes after.
    s = Server(redis_url, RATE_LIMIT_PER_SECOND="5000", RATE_LIMIT_BURST="5000", SEND_QUEUE="4096")
    yield s
    s.stop()


async def seat(server: Server, kind: str, code: str | None, name: str) -> tuple[Client, dict[str, Any]]:
    client = await Client.connect(server.ws_url, max_queue=None)
    msg: dict[str, Any] = {"type": kind, "name": name}
    msg |= {"difficulty": "medium", "deal": 7} if kind == "create" else {"room": code}
    joined = await client.request(msg, "joined")
    assert joined["type"] == "joined", joined
    return client, joined


async def test_a_spectator_that_reads_again_gets_every_broadcast_in_order(server: Server) -> None:
    ann, joined = await seat(server, "create", None, "Ann")
    code = joined["room"]["code"]
    players = [(await seat(server, "join", code, f"Player {i}"))[0] for i in range(2, 9)]  # a full room
    bob = players[0]
    # The room's news of the joins has gone out (this process's broadcasts of them are done),
    # so none of it can reach the spectator after its snapshot.
    await ann.expect("room", where=lambda m: len(m["room"]["players"]) == 8)
    # A spectator that does not read for now: a tiny receive buffer, no compression, and its
    # library takes one message and then stops reading. Each lobby change sends everyone a
    # ~10 KB snapshot of the eight boards, so its socket fills after a few dozen.
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    slow = await websockets.connect(server.ws_url, sock=sock, max_queue=1, max_size=2**22, compression=None)
    await slow.send(json.dumps({"type": "watch", "room": code}))
    toggles = 1000  # more than the socket's buffers take, fewer than the queue holds
    for i in range(toggles):
        await bob.send({"type": "ready", "ready": i % 2 == 0})
        await ann.expect("room", where=lambda m, r=i % 2 == 0: m["room"]["players"][1]["ready"] == r)
    # Now it reads: every change, in the order it happened.
    seen: list[bool] = []
    async with asyncio.timeout(30):
        while len(seen) < toggles:
            msg = json.loads(await slow.recv())
            if msg["type"] == "room":
                seen.append(msg["room"]["players"][1]["ready"])
    assert seen == [i % 2 == 0 for i in range(toggles)]
    assert (await bob.request({"type": "ping"}, "pong"))["type"] == "pong"
    await slow.close()
    for c in (ann, *players):
        await c.close()
