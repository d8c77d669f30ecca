"""The websocket protocol uvicorn runs for us: its sans-I/O one, with permessage-deflate
sized for many idle connections.

- **Sans-I/O.** uvicorn's default websocket protocol (the legacy one of the websockets
  library) runs three tasks per connection; the sans-I/O one runs none, so an idle
  connection costs less and a message passes fewer hands.
- **Deflate.** A room's broadcasts repeat the previous ones almost byte for byte, so what
  deflate needs is a window holding the last message of each player in the room: 16 KiB
  holds a full room's (8 players, about 1.1 KB each); ``memLevel`` 5 keeps the hash table
  small. Clients are asked not to keep their compression context between messages
  (``client_no_context_takeover``): their messages are a few bytes, and the server then
  keeps no decompressor between them.
- **Contexts only while they pay.** The server's compression context (about 40 KiB) is made
  with a connection's first message after a rest, and :class:`Contexts` drops the context
  of a connection that has sent nothing for ``idle`` seconds, then hands the memory back to
  the system. The client keeps its own context: a raw deflate stream may start afresh at
  any message (its first message after a rest is compressed without the earlier ones, about
  400 bytes instead of 20).

The figures behind these choices are in ``docs/performance.md``.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import time
import weakref
import zlib
from collections.abc import Sequence
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.base import Extension, ServerExtensionFactory
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import CONT, CTRL_OPCODES, Frame
from websockets.server import ServerProtocol
from websockets.typing import ExtensionParameter

#: The server's compression window (2**bits bytes) and zlib's memory level.
WINDOW_BITS, MEM_LEVEL = 14, 5
_TAIL = b"\x00\x00\xff\xff"  # what a sync flush ends with; permessage-deflate leaves it off


class RestingDeflate(PerMessageDeflate):
    """permessage-deflate whose server context is made when a message needs it and can be
    dropped between messages (:meth:`rest`)."""

    def __init__(self, inner: PerMessageDeflate) -> None:
        # Taken over from the negotiated extension, without the context it made.
        super().__init__(
            inner.remote_no_context_takeover,
            True,  # no context made here; ``keep`` says whether one is kept
            inner.remote_max_window_bits,
            inner.local_max_window_bits,
            inner.compress_settings,
        )
        self.keep = not inner.local_no_context_takeover
        self.encoder: Any = None
        self.last = time.monotonic()

    def encode(self, frame: Frame) -> Frame:
        if frame.opcode in CTRL_OPCODES:
            return frame
        if self.encoder is None or (not self.keep and frame.opcode is not CONT):
            self.encoder = zlib.compressobj(wbits=-self.local_max_window_bits, **self.compress_settings)
        data = self.encoder.compress(frame.data) + self.encoder.flush(zlib.Z_SYNC_FLUSH)
        if frame.fin:
            assert data.endswith(_TAIL)
            data = data[:-4]
            if not self.keep:
                self.encoder = None
        self.last = time.monotonic()
        return Frame(frame.opcode, data, frame.fin, frame.opcode is not CONT, frame.rsv2, frame.rsv3)

    def rest(self, since: float) -> bool:
        """Drop the context if nothing was sent since ``since`` (the monotonic clock); True if
        it was dropped. Only between messages: a message's frames all go in one call."""
        if self.encoder is None or self.last > since:
            return False
        self.encoder = None
        return True


class Contexts:
    """The compression contexts of this process's connections: every ``idle / 2`` seconds
    (:meth:`run`) the ones unused for ``idle`` seconds are dropped, and the memory they held
    goes back to the system."""

    def __init__(self, idle: float) -> None:
        self.idle = idle
        self.live: weakref.WeakSet[RestingDeflate] = weakref.WeakSet()
        libc = ctypes.util.find_library("c")
        trim = getattr(ctypes.CDLL(libc), "malloc_trim", None) if libc else None
        self._trim = trim  # glibc's: freed memory in the heap's middle goes back to the system

    def rest(self) -> int:
        """Drop the contexts unused for ``idle`` seconds; how many were dropped."""
        since = time.monotonic() - self.idle
        dropped = sum(1 for d in list(self.live) if d.rest(since))
        if dropped and self._trim is not None:
            self._trim(0)
        return dropped

    async def run(self) -> None:
        while True:
            await asyncio.sleep(max(self.idle / 2, 0.05))
            self.rest()


class Factory(ServerPerMessageDeflateFactory):
    """The server's side of permessage-deflate, each connection's extension kept in ``contexts``."""

    def __init__(self, contexts: Contexts | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contexts = contexts

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, inner = super().process_request_params(params, accepted_extensions)
        ext = RestingDeflate(inner)
        if self.contexts is not None:
            self.contexts.live.add(ext)
        return response, ext


def deflate(contexts: Contexts | None = None) -> ServerExtensionFactory:
    """permessage-deflate as the server accepts it."""
    return Factory(
        contexts,
        client_no_context_takeover=True,
        server_max_window_bits=WINDOW_BITS,
        client_max_window_bits=WINDOW_BITS,
        compress_settings={"memLevel": MEM_LEVEL},
    )


def protocol(contexts: Contexts | None) -> type[WebSocketsSansIOProtocol]:
    """uvicorn's sans-I/O websocket protocol, with :func:`deflate` when compression is on."""

    class WebSocketProtocol(WebSocketsSansIOProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if self.config.ws_per_message_deflate:
                self.conn = ServerProtocol(
                    extensions=[deflate(contexts)], max_size=self.config.ws_max_size, logger=self.conn.logger
                )

    return WebSocketProtocol


#: Without contexts to rest (each connection keeps its context for good).
WebSocketProtocol = protocol(None)
