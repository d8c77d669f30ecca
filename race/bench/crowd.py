"""The crowd of ``python -m race bench``: many spectators of one room, and the same number of
listeners of one fan-out echo group, each sent one message a second.

A crowd's clients are lean: a websocket handshake by hand, then an :class:`asyncio.Protocol`
that only splits frames, inflates them (permessage-deflate, when offered) and notes when
each message of the awaited type arrived. A full websocket client per spectator would make
the bench client, not the server, decide when the last of a thousand frames is read.

A :class:`Crowd` phase reports the server's CPU per recipient of a message (the process's
CPU over the phase, divided by messages times recipients) and the time from sending a
message to the last recipient's frame.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import cast
from urllib.parse import urlsplit

import msgspec

from .load import REPLY_TIMEOUT, Conn, choose, seat_players, start_races
from .processes import CONNECT_TIMEOUT, cpu_ns


def encode(message: dict[str, object]) -> str:
    return msgspec.json.encode(message).decode()


_OP_TEXT, _OP_CONT, _OP_CLOSE = 0x1, 0x0, 0x8
_TAIL = b"\x00\x00\xff\xff"  # what permessage-deflate strips from the end of each message


def _frame(text: str) -> bytes:
    """A client's text frame: final, masked (the mask is zeros, so the payload is as is)."""
    data = text.encode()
    n = len(data)
    head = bytes([0x80 | _OP_TEXT])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    return head + b"\x00\x00\x00\x00" + data


class Listener(asyncio.Protocol):
    """One lean websocket client: the arrival time of each message that starts with
    ``prefix``, in order (``times``)."""

    def __init__(self, prefix: bytes, deflate: bool, keep: bool = False) -> None:
        self.prefix = prefix
        self.times: list[float] = []
        self.keep = keep
        self.kept: list[bytes] = []  # with ``keep``, the awaited messages themselves
        self.inflate = zlib.decompressobj(wbits=-15) if deflate else None
        self.buf = bytearray()
        self.upgraded = asyncio.get_running_loop().create_future()
        self.arrived = asyncio.Event()  # set at each awaited message
        #: Futures of messages awaited once (see :meth:`expect`), by the start of their text.
        self.once: dict[bytes, asyncio.Future[bytes]] = {}
        self.transport: asyncio.Transport | None = None
        self._parts: list[bytes] = []
        self._compressed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError("closed during the handshake"))

    def send(self, text: str) -> None:
        assert self.transport is not None
        self.transport.write(_frame(text))

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        self.buf += data
        if not self.upgraded.done():
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buf[:end]).decode("latin-1")
            del self.buf[: end + 4]
            if not head.startswith("HTTP/1.1 101"):
                self.upgraded.set_exception(ConnectionError(head.splitlines()[0]))
                return
            if self.inflate is not None and "permessage-deflate" not in head.lower():
                self.inflate = None
            self.upgraded.set_result(None)
        while (message := self._take()) is not None:
            for start, fut in list(self.once.items()):
                if message.startswith(start) or message.startswith(b'{"type":"error"'):
                    del self.once[start]
                    fut.set_result(message)
            if message.startswith(self.prefix):
                self.times.append(now)
                if self.keep:
                    self.kept.append(message)
                self.arrived.set()

    def _take(self) -> bytes | None:
        """The next whole message in the buffer, inflated; None when there is none yet."""
        while True:
            buf = self.buf
            if len(buf) < 2:
                return None
            n, at = buf[1] & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    return None
                n, at = struct.unpack_from("!H", buf, 2)[0], 4
            elif n == 127:
                if len(buf) < 10:
                    return None
                n, at = struct.unpack_from("!Q", buf, 2)[0], 10
            if len(buf) < at + n:
                return None
            fin, rsv1, op = buf[0] & 0x80, buf[0] & 0x40, buf[0] & 0x0F
            payload = bytes(buf[at : at + n])
            del buf[: at + n]
            if op >= _OP_CLOSE:  # control frames: a close ends it, pings are not sent by the server
                continue
            if op != _OP_CONT:
                self._parts, self._compressed = [], bool(rsv1)
            self._parts.append(payload)
            if not fin:
                continue
            data = b"".join(self._parts)
            if self._compressed and self.inflate is not None:
                data = self.inflate.decompress(data + _TAIL)
            return data

    async def expect(self, head: bytes) -> bytes:
        """The next message that starts with ``head`` (or an error)."""
        fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.once[head] = fut
        async with asyncio.timeout(CONNECT_TIMEOUT):
            return await fut

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def listen(url: str, prefix: bytes, deflate: bool, keep: bool = False) -> Listener:
    """A :class:`Listener` connected to the websocket at ``url`` (``ws://host:port/path?query``)."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    loop = asyncio.get_running_loop()
    transport, proto = await loop.create_connection(lambda: Listener(prefix, deflate, keep), host, port)
    proto.transport = transport
    key = base64.b64encode(os.urandom(16)).decode()
    offer = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" if deflate else ""
    transport.write(
        (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{offer}\r\n"
        ).encode()
    )
    async with asyncio.timeout(CONNECT_TIMEOUT):
        await proto.upgraded
    return proto


@dataclass
class Crowd:
    """One crowd phase: ``size`` recipients of ``sent`` messages."""

    name: str
    size: int = 0
    sent: int = 0
    lost: int = 0  # frames that never reached a recipient
    seconds: float = 0.0
    server_ns: int | None = None
    last_ms: list[float] = field(default_factory=list)  # per message: send to the last recipient's frame

    @property
    def us_per_recipient(self) -> float | None:
        if self.server_ns is None or not self.sent or not self.size:
            return None
        return self.server_ns / 1000 / (self.sent * self.size)

    def pct(self, q: float) -> float:
        if not self.last_ms:
            return float("nan")
        ordered = sorted(self.last_ms)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def gather_in(count: int, make: Callable[[int], Awaitable[Listener]], at_once: int = 100) -> list[Listener]:
    """``count`` listeners made ``at_once`` at a time."""
    sem = asyncio.Semaphore(at_once)

    async def one(i: int) -> Listener:
        async with sem:
            return await make(i)

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def run_crowd(
    crowd: Crowd,
    listeners: list[Listener],
    send: Callable[[int], Awaitable[None]],
    messages: int,
    interval: float,
    pid: int | None,
    timeout: float = 10.0,
) -> None:
    """Send ``messages`` messages, one every ``interval`` seconds (``send(n)``, n from 1), and
    wait for each to reach every listener; fill in ``crowd``."""
    crowd.size = len(listeners)
    base = [len(x.times) for x in listeners]
    cpu0, start = cpu_ns(pid), time.perf_counter()
    for n in range(1, messages + 1):
        due = start + (n - 1) * interval
        if (wait := due - time.perf_counter()) > 0:
            await asyncio.sleep(wait)
        sent_at = time.perf_counter()
        await send(n)
        crowd.sent += 1
        deadline = sent_at + timeout
        for x, b in zip(listeners, base, strict=True):
            while len(x.times) < b + n and time.perf_counter() < deadline:
                x.arrived.clear()
                try:
                    async with asyncio.timeout(max(0.0, deadline - time.perf_counter())):
                        await x.arrived.wait()
                except TimeoutError:
                    break
        got = [x.times[b + n - 1] for x, b in zip(listeners, base, strict=True) if len(x.times) >= b + n]
        crowd.lost += len(listeners) - len(got)
        if got:
            crowd.last_ms.append((max(got) - sent_at) * 1000)
    cpu1 = cpu_ns(pid)
    crowd.seconds = time.perf_counter() - start
    if cpu0 is not None and cpu1 is not None:
        crowd.server_ns = cpu1 - cpu0


_PLAYER, _FAN, _WATCHING = b'{"type":"player"', b'{"type":"fan"', b'{"type":"watching"'


async def crowd_phases(
    label: str,
    ws_url: str,
    echo_url: str | None,
    pid: int | None,
    size: int,
    moves: int,
    interval: float,
    seed: int,
    compression: str | None,
) -> tuple[Crowd, Crowd | None]:
    """``size`` spectators of one room whose player makes ``moves`` moves, one every
    ``interval`` seconds; then, with ``echo_url``, as many listeners of one fan-out echo
    group sent the spectators' messages at the same pace (the transport's cost per recipient)."""
    deflate = compression is not None
    room = Crowd(f"room ({label})")
    players, codes = await seat_players(ws_url, 1, 1, "medium", seed, compression)
    mover = players[0]
    listeners: list[Listener] = []
    try:
        await start_races(players)

        async def watcher(i: int) -> Listener:
            x = await listen(ws_url, _PLAYER, deflate, keep=i == 0)
            x.send(encode({"type": "watch", "room": codes[0]}))
            if not (await x.expect(_WATCHING)).startswith(_WATCHING):
                raise RuntimeError("a crowd spectator could not watch the room")
            return x

        listeners = await gather_in(size, watcher)

        async def move(n: int) -> None:
            await mover.conn.send(choose(mover.state, mover.rng))
            reply = await mover.conn.expect("state")
            if reply["type"] != "state":
                raise RuntimeError(f"the crowd's player was refused: {reply}")
            mover.state = reply

        await run_crowd(Crowd("warm-up"), listeners, move, 2, interval, None)
        await run_crowd(room, listeners, move, moves, interval, pid)
    finally:
        await mover.conn.close()
        for x in listeners:
            x.close()
    if echo_url is None:
        return room, None
    texts = [m.decode().removeprefix('{"type":"player",') for m in listeners[0].kept] or ['"pad":"' + "x" * 900 + '"}']
    echo = Crowd(f"fan-out echo ({label})")
    group = f"{echo_url}?group=crowd-{label}"
    sender = await Conn.open(group, compression)
    listeners = []
    try:
        listeners = await gather_in(size, lambda i: listen(group, _FAN, deflate))

        async def shout(n: int) -> None:
            await sender.ws.send(f'{{"type":"echo","n":{n},' + texts[(n - 1) % len(texts)])
            async with asyncio.timeout(REPLY_TIMEOUT):
                while not (await sender.ws.recv()).startswith('{"type":"echo"'):
                    pass

        await run_crowd(Crowd("warm-up"), listeners, shout, 2, interval, None)
        await run_crowd(echo, listeners, shout, moves, interval, pid)
    finally:
        await sender.close()
        for x in listeners:
            x.close()
    return room, echo
