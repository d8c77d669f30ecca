"""The server's permessage-deflate: a context made when needed and dropped when idle, with
every message still read by a client that keeps its own context throughout."""

from __future__ import annotations

import json
import time
import zlib

from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

from race.edge.transport import MEM_LEVEL, WINDOW_BITS, Contexts, RestingDeflate

TAIL = b"\x00\x00\xff\xff"


def extension() -> RestingDeflate:
    # As negotiated with a browser: the server keeps its context, the client does not.
    inner = PerMessageDeflate(True, False, WINDOW_BITS, WINDOW_BITS, {"memLevel": MEM_LEVEL})
    return RestingDeflate(inner)


def boards(n: int) -> list[bytes]:
    """Messages like a room's broadcasts: each differs from the last by a card or two."""
    piles = [[f"{r}{s}" for r in "A23456789TJQK"[i % 13 :] for s in "SH"][:6] for i in range(16)]
    out = []
    for i in range(n):
        piles[i % 16].append(piles[(i + 5) % 16].pop(0) if piles[(i + 5) % 16] else "KS")
        out.append(json.dumps({"type": "player", "n": i, "board": {"piles": piles}}).encode())
    return out


def test_a_client_keeping_its_context_reads_every_message_across_rests() -> None:
    ext = extension()
    client = zlib.decompressobj(wbits=-WINDOW_BITS)  # the client's context, never reset
    sizes = []
    for i, message in enumerate(boards(40)):
        if i in (10, 11, 25):
            assert ext.rest(time.monotonic())  # idle since before now: dropped
        frame = ext.encode(Frame(Opcode.TEXT, message))
        assert frame.rsv1
        assert client.decompress(bytes(frame.data) + TAIL) == message
        sizes.append(len(frame.data))
    # Right after a rest a message is compressed on its own; with the context, it is a
    # fraction of that.
    assert sizes[10] > 3 * sizes[12] and sizes[25] > 3 * sizes[24]
    assert not ext.rest(time.monotonic() - 60)  # used since: kept


def test_contexts_drop_only_the_idle_ones() -> None:
    contexts = Contexts(idle=5.0)
    busy, idle = extension(), extension()
    contexts.live.update((busy, idle))
    for ext in (busy, idle):
        ext.encode(Frame(Opcode.TEXT, b'{"type":"hello"}'))
    idle.last -= 10  # sent its last message ten seconds ago
    assert contexts.rest() == 1
    assert idle.encoder is None and busy.encoder is not None
    assert contexts.rest() == 0
