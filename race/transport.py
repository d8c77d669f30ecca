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

The figures behind these choices are in ``docs/performance.md``.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

#: The server's compression window (2**bits bytes) and zlib's memory level.
WINDOW_BITS, MEM_LEVEL = 14, 5


def deflate() -> ServerPerMessageDeflateFactory:
    """permessage-deflate as the server accepts it."""
    return ServerPerMessageDeflateFactory(
        client_no_context_takeover=True,
        server_max_window_bits=WINDOW_BITS,
        client_max_window_bits=WINDOW_BITS,
        compress_settings={"memLevel": MEM_LEVEL},
    )


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websocket protocol, with :func:`deflate` when compression is on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            self.conn = ServerProtocol(
                extensions=[deflate()], max_size=self.config.ws_max_size, logger=self.conn.logger
            )
