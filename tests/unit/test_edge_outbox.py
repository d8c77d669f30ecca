"""One client's outbox on a fake socket: order, holding while a message is handled, the
spectator delay, a client that stops reading (overflow) and one whose socket is stuck."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import cast

from starlette.websockets import WebSocket

from race.edge.outbox import Outbox, State


class Socket:
    """What the outbox writes to: it records every frame; shut ``gate`` to make writes wait
    as a full socket buffer does."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.gate = asyncio.Event()
        self.gate.set()
        self.changed = asyncio.Event()

    async def send_text(self, text: str) -> None:
        await self.gate.wait()
        self.sent.append(text)
        self.changed.set()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)
        self.changed.set()

    async def until(self, done: Callable[[], bool], timeout: float = 5) -> None:
        """Wait until ``done()`` holds, woken by each write."""
        async with asyncio.timeout(timeout):
            while not done():
                self.changed.clear()
                await self.changed.wait()


def outbox(socket: Socket, size: int = 4, write_timeout: float = 10) -> Outbox:
    return Outbox(cast(WebSocket, socket), "test", size=size, write_timeout=write_timeout)


async def test_broadcasts_go_out_in_order_at_the_next_turn() -> None:
    socket = Socket()
    box = outbox(socket)
    for n in range(3):
        box.deliver(f"news {n}")
    assert socket.sent == []  # not written by the caller's own turn
    await socket.until(lambda: len(socket.sent) == 3)
    assert socket.sent == ["news 0", "news 1", "news 2"]


async def test_what_arrives_while_a_message_is_handled_waits_behind_its_reply() -> None:
    socket = Socket()
    box = outbox(socket)
    box.hold()
    box.deliver("the move, as the room hears it", room="ROOM")
    box.deliver("news of a room left meanwhile", room="OLD")
    await asyncio.sleep(0)  # a turn of the loop: still held
    assert socket.sent == []
    await box.reply("the move's state")
    box.release(keep=lambda room: room != "OLD")
    await socket.until(lambda: len(socket.sent) == 2)
    assert socket.sent == ["the move's state", "the move, as the room hears it"]


async def test_a_spectator_delay_sends_everything_that_much_later_in_order() -> None:
    socket = Socket()
    box = outbox(socket)
    loop = asyncio.get_running_loop()
    box.delay(60)
    began = loop.time()
    box.deliver("first")
    await box.reply("its own reply, also late")
    box.deliver("second")
    await socket.until(lambda: len(socket.sent) == 3)
    assert loop.time() - began >= 0.06
    assert socket.sent == ["first", "its own reply, also late", "second"]
    box.delay(0)  # at once again
    box.deliver("third")
    await socket.until(lambda: len(socket.sent) == 4)


async def test_a_client_that_stops_reading_is_cut_off_not_waited_for() -> None:
    socket = Socket()
    box = outbox(socket, size=4)
    socket.gate.clear()  # the client reads nothing: the first write waits for ever
    for n in range(4 + 2):
        box.deliver(f"news {n}")
        await asyncio.sleep(0)  # (each at its own turn, as broadcasts come)
    assert box.state is State.CLOSING and box.close_code == 1013
    box.deliver("after the kick")  # taken no more
    socket.gate.set()
    await socket.until(lambda: socket.closed is not None)
    assert socket.closed == (1013, "too many unread messages; reconnect to resync")
    assert "after the kick" not in socket.sent
    await box.finish()


async def test_a_write_stuck_past_the_timeout_drops_the_client() -> None:
    socket = Socket()
    box = outbox(socket, write_timeout=10)
    socket.gate.clear()
    box.deliver("never taken")
    await asyncio.sleep(0)
    box.deliver("behind it")
    await asyncio.sleep(0)
    assert not box.stalled(time.monotonic())  # waiting, but not for long yet
    assert box.stalled(time.monotonic() + 11)
    assert box.state is State.DROPPED
    assert not box.stalled(time.monotonic() + 20)  # dropped once
    await box.finish()
    assert socket.sent == []


async def test_a_kick_sends_its_close_and_nothing_queued_before_it() -> None:
    socket = Socket()
    box = outbox(socket)
    socket.gate.clear()
    box.deliver("a")
    await asyncio.sleep(0)
    box.deliver("b")  # queued behind the stuck write
    box.kick(4001, "this seat was opened in another window")
    socket.gate.set()
    await socket.until(lambda: socket.closed is not None)
    assert socket.closed == (4001, "this seat was opened in another window")
    assert "b" not in socket.sent
    await box.finish()
