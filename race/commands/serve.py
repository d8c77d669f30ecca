"""``python -m race serve``: run the server (configuration from the environment).

Once it listens it prints the address to open on this computer and, when it listens on all
interfaces (``--host 0.0.0.0``), the address friends on the same network can open. Pages get
that second address in ``hello`` as ``share_origin``, so a page opened at 127.0.0.1 can still
offer a link a friend's device can open. Then where its data is kept: with no ``REDIS_URL``,
in ``DATA_DIR`` (``data/`` of the checkout), where it survives restarts; a second server on
the same data is refused at once.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import ipaddress
import logging
import os
import socket
import struct
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import uvicorn

ALL_INTERFACES = ("0.0.0.0", "::", "")
# Any address outside this machine: a UDP socket "connected" to it only looks up the route (no
# packet is sent), and its local address is then the one the machine's network knows it by.
_ROUTE_PROBE = ("203.0.113.1", 9)  # TEST-NET-3, documentation only: never a real host
_SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the web server", description=__doc__)
    p.add_argument(
        "--host",
        default=os.environ.get("HOST", "127.0.0.1"),
        help="address to listen on: 127.0.0.1 (the default) for this computer only, 0.0.0.0 for every network",
    )
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    p.set_defaults(func=run)


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses that other devices on its networks may reach, the one
    its outgoing traffic uses first. Found locally: nothing is sent on the network."""
    found: list[str] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(_ROUTE_PROBE)
        found.append(probe.getsockname()[0])
    found += _interface_addresses()
    usable = []
    for address in dict.fromkeys(found):
        ip = ipaddress.IPv4Address(address)
        if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast):
            usable.append(address)
    return usable


def _interface_addresses() -> list[str]:
    """Every interface's IPv4 address, where the system tells it (Linux); else none."""
    try:
        import fcntl
    except ImportError:  # not a Unix
        return []
    found = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            try:
                reply = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, request)
            except OSError:  # no IPv4 address, or not Linux
                continue
            found.append(socket.inet_ntoa(reply[20:24]))
    return found


def origin(host: str, port: int) -> str:
    """``http://host:port``, with an IPv6 address in brackets."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def local_url(host: str, port: int) -> str:
    """Where to open the server on this computer."""
    return origin("127.0.0.1" if host in ALL_INTERFACES else host, port)


def share_origins(host: str, port: int, addresses: Callable[[], list[str]] = lan_addresses) -> list[str]:
    """The origins other devices can open, best first: none when the server listens on a
    loopback address only (or on a port not known yet)."""
    if port == 0:
        return []
    if host in ALL_INTERFACES:
        return [origin(a, port) for a in addresses()]
    try:
        if ipaddress.ip_address(host).is_loopback:
            return []
    except ValueError:  # a name
        if host == "localhost":
            return []
    return [origin(host, port)]


def greeting(host: str, port: int, shared: list[str], configured: str | None) -> list[str]:
    """The lines printed once the server listens on ``port``."""
    lines = [f"Crescent Race is up: open {local_url(host, port)} in your browser."]
    if configured:
        lines.append(f"Friends open {configured} (SHARE_ORIGIN).")
    elif shared:
        others = f" (or {', '.join(shared[1:])})" if shared[1:] else ""
        lines.append(f"Friends on your network open {shared[0]}{others}.")
    elif host in ALL_INTERFACES:
        lines.append(f"No network address of this computer was found: friends open its address, port {port}.")
    else:
        lines.append("Only this computer can reach it. To race friends on your network: .ci/serve --host 0.0.0.0")
    return lines


def store_line(url: str) -> str:
    """Where the server keeps its data, for the start-up lines (no password shown)."""
    if url.startswith("sqlite:"):
        from race.store.sqlite_file import parse_url

        path = parse_url(url)[0].resolve()
        return f"Your games are kept in {path} (they survive restarts; `python -m race export` backs them up)."
    if url.startswith("memory://"):
        return "Your games are kept in memory only (REDIS_URL=memory://): they are lost when the server stops."
    parts = urlsplit(url)
    return f"Your games are kept in {parts._replace(netloc=parts.netloc.rpartition('@')[2]).geturl()}."


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from race.app import create_app
    from race.edge.transport import Contexts, protocol
    from race.settings import Settings

    settings = Settings.from_env()
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if settings.store_url.startswith("sqlite:"):  # one process per data file: say so in one line
        from race.store.sqlite_file import in_use, parse_url

        path = parse_url(settings.store_url)[0]
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            busy: Exception | None = in_use(path)
        except OSError as exc:  # a folder it may not make or write in
            busy = OSError(f"cannot keep data in {path.parent}: {exc.strerror or exc}")
        if busy is not None:
            print(f"error: {busy}", file=sys.stderr)
            return 1
    shared = share_origins(args.host, args.port)
    configured = settings.share_origin
    if configured is None and shared:
        settings = dataclasses.replace(settings, share_origin=shared[0])
    contexts = Contexts(settings.ws_deflate_idle)  # the transport's, rested by the app
    config = uvicorn.Config(
        create_app(settings, contexts=contexts),
        host=args.host,
        port=args.port,
        ws_max_size=64 * 1024,
        ws=protocol(contexts),
        ws_per_message_deflate=settings.ws_compression == "deflate",
        log_level=settings.log_level.lower(),
        proxy_headers=True,
        # A client that takes nothing it is sent cannot hold the shutdown up for longer.
        timeout_graceful_shutdown=int(settings.write_timeout) + 5,
    )
    logging.getLogger("uvicorn.error").addFilter(_quiet_bad_text)
    stored = store_line(settings.store_url)
    started = _serve(config, lambda port: [*greeting(args.host, port, shared, configured), stored])
    return 0 if started else 3  # uvicorn's exit code for a server that could not start


_BAD_TEXT = "Invalid UTF-8 sequence received from client."


def _quiet_bad_text(record: logging.LogRecord) -> bool:
    """A client's text frame that is not UTF-8 is the client's fault, not the server's: one
    warning line (the websocket layer closes it with 1007), not an error with a traceback
    that any client could write into the log."""
    if record.getMessage() == _BAD_TEXT:
        record.msg, record.args = "a client sent a text frame that is not UTF-8; closed it (1007)", ()
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info = record.exc_text = None
    return True


def _serve(config: uvicorn.Config, announce: Callable[[int], list[str]]) -> bool:
    """Run uvicorn until it stops; print ``announce(port)`` once it listens."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                port = self.servers[0].sockets[0].getsockname()[1]
                print("\n".join(announce(port)), flush=True)

    server = Server(config)
    server.run()
    return server.started
