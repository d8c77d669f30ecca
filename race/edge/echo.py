"""The benchmark's transport baseline (``python -m race bench``): a bare websocket echo, at
``/bench/echo`` only when the server runs with ``BENCH_ECHO=1``."""

from __future__ import annotations

import contextlib

from starlette.websockets import WebSocket

_ECHO_GROUPS: dict[str, set[WebSocket]] = {}
_ECHO_HEAD, _FAN_HEAD = '{"type":"echo"', '{"type":"fan"'


async def echo(ws: WebSocket) -> None:
    """Send every text message back unchanged (``python -m race bench`` compares to this).
    With ``?group=NAME`` each message is also sent, its type ``echo`` renamed ``fan``, to
    every other connection of that group: the race's pattern of a reply to the mover and a
    broadcast to the rest of the room, without the room."""
    await ws.accept()
    group = ws.query_params.get("group")
    members = _ECHO_GROUPS.setdefault(group, set()) if group else None
    if members is not None:
        members.add(ws)
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text") or ""
            await ws.send_text(text)
            if members:
                copy = _FAN_HEAD + text[len(_ECHO_HEAD) :] if text.startswith(_ECHO_HEAD) else text
                for member in [m for m in members if m is not ws]:
                    with contextlib.suppress(Exception):  # a member that just left
                        await member.send_text(copy)
    finally:
        if members is not None:
            members.discard(ws)
            if not members:
                _ECHO_GROUPS.pop(group or "", None)
