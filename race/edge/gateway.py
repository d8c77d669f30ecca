"""Where a websocket comes in (:class:`Gateway`, the app's ``/ws``): a page of another origin
is turned away, so is an address with too many connections open; the client that is let in
is greeted (``hello``) and handed to a :class:`race.edge.connection.Connection` for the rest
of its life. The gateway also knows every outbox open, for the stall watch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from starlette.websockets import WebSocket

from race.edge.connection import Connection
from race.edge.handler import Handler
from race.edge.limits import Addresses, MessageLimit, SeatBuckets
from race.edge.outbox import Outbox, watch_for_stalls
from race.live.hub import Hub
from race.live.presence import Presence
from race.settings import Settings
from race.wire import protocol as p


class Gateway:
    """The websocket endpoint: :meth:`websocket` for each client."""

    def __init__(
        self, settings: Settings, hub: Hub, handler: Handler, presence: Presence, *, clock: Callable[[], int]
    ) -> None:
        self.settings, self.hub, self.handler, self.presence, self.clock = settings, hub, handler, presence, clock
        self.addresses = Addresses(settings.max_connections_per_ip)
        self.seat_buckets = SeatBuckets()  # the rate limits of the seats, whichever connection has them
        self.live: set[Outbox] = set()  # for the stall watch

    async def websocket(self, ws: WebSocket) -> None:
        ip = ws.client.host if ws.client else "?"
        await ws.accept()
        if not self.origin_ok(ws):
            await ws.send_text(p.encode(p.error("bad_origin", "connections from this page's origin are not allowed")))
            await ws.close(code=1008)
            return
        if not self.addresses.admit(ip):
            await ws.send_text(p.encode(p.error("too_many_connections", "too many connections from your address")))
            await ws.close(code=1008)
            return
        try:
            settings = self.settings
            limit = MessageLimit(settings.rate_per_second, settings.rate_burst, self.seat_buckets)
            connection = Connection(ws, self.hub, self.handler, self.presence, limit, settings, ip)
            self.live.add(connection.outbox)
            try:
                await connection.run(self.hello())
            finally:
                self.live.discard(connection.outbox)
        finally:
            self.addresses.release(ip)

    def origin_ok(self, ws: WebSocket) -> bool:
        """Whether the page (if it is one) may connect: from an origin allowed, or by default
        from this server's own."""
        origin = ws.headers.get("origin")
        if origin is None:
            return True  # not a browser: bots and tools
        if self.settings.allowed_origins:
            return origin in self.settings.allowed_origins
        return urlsplit(origin).netloc == ws.headers.get("host")

    def hello(self) -> dict[str, Any]:
        """The first message a client gets: the protocol's version, the server's time and
        limits, and the origin friends' devices open."""
        return {
            "type": "hello",
            "protocol": p.PROTOCOL_VERSION,
            "server_time": self.clock(),
            "max_message_bytes": p.MAX_MESSAGE_BYTES,
            "host_away_ms": int(self.settings.host_away_seconds * 1000),
            "reply_wait_ms": int(self.settings.reply_wait_seconds * 1000),
            "share_origin": self.settings.share_origin,
        }

    async def watch_for_stalls(self) -> None:
        """Close the connections whose client stopped reading (see
        :func:`race.edge.outbox.watch_for_stalls`); runs until cancelled."""
        await watch_for_stalls(self.live, self.settings.write_timeout)
