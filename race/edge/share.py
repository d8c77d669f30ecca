"""What a shared link needs: the origin a friend's device can open, a QR code of a room's
link, and the page's preview tags (Open Graph, Twitter card) for a chat to show.

Pure functions of their inputs; :mod:`race.edge.routes` hands them the request's parts.
"""

from __future__ import annotations

import html
import io
import ipaddress
from typing import Any

import segno

LOOPBACK_NAMES = frozenset({"localhost"})
IMAGE = "/og.png"  # 1200 x 630, shipped with the client
IMAGE_SIZE = (1200, 630)
SITE = "Crescent Race"
_HEAD_END = "</head>"
PITCH = "Race friends at Crescent solitaire: one deal for everyone, first to clear it wins."


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a Host header's name, without its port) is this machine only.

    >>> [is_loopback(h) for h in ("127.0.0.1", "localhost", "[::1]", "192.168.1.5", "race.example")]
    [True, True, True, False, False]
    """
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def share_base(own_origin: str, host: str, share_origin: str | None) -> str:
    """The origin a shared link starts with: ``share_origin`` for a page opened at a
    loopback address (a friend's device cannot open 127.0.0.1), else the page's own, as the
    page itself builds its links (see web/views/share.js).

    >>> share_base("http://127.0.0.1:8000", "127.0.0.1", "http://192.168.1.5:8000")
    'http://192.168.1.5:8000'
    >>> share_base("https://race.example", "race.example", "http://192.168.1.5:8000")
    'https://race.example'
    """
    return share_origin if share_origin and is_loopback(host) else own_origin


def qr_svg(text: str) -> str:
    """A QR code of ``text`` as an SVG document that scales to its box (a viewBox, no size),
    dark on white with the quiet zone the standard asks for, so phone cameras read it on any
    page colour."""
    code = segno.make(text, error="m")
    out = io.BytesIO()
    code.save(out, kind="svg", border=4, dark="#0f3d2e", light="#ffffff", omitsize=True, xmldecl=False, title=text)
    return out.getvalue().decode()


def room_preview(info: dict[str, Any] | None, code: str) -> tuple[str, str]:
    """The title and description a chat shows for a room's link; ``info`` is the room's
    look-up (``None``: there is no such room, or the store could not say).

    >>> room_preview({"kind": "race", "difficulty": "hard", "players": 2, "phase": "lobby"}, "K7M2QXA")[1]
    'Room K7M2QXA: 2 players waiting to start. Same deal for everyone: first to clear it wins.'
    """
    if info is None:
        return f"{SITE}: room {code}", PITCH
    if info.get("kind") == "daily":
        return f"{SITE}: a daily challenge attempt", f"Watch room {code} play today's {info['difficulty']} deal."
    players = info["players"]
    doing = {"lobby": "waiting to start", "countdown": "about to start"}.get(info["phase"], "racing")
    who = f"{players} player{'' if players == 1 else 's'} {doing}"
    return (
        f"Join my {SITE} ({info['difficulty']})",
        f"Room {code}: {who}. Same deal for everyone: first to clear it wins.",
    )


DAILY_PREVIEW = (
    f"{SITE}: today's daily challenge",
    "One Crescent solitaire deal a day, the same for everyone and proven winnable. How fast can you clear it?",
)


def with_preview(page: str, *, title: str, description: str, url: str, base: str) -> str:
    """``page`` (the client's index.html) with its title and preview tags: Open Graph and
    Twitter's card, whose image is the one the client ships. Text is escaped."""
    t, d, u = (html.escape(x, quote=True) for x in (title, description, url))
    image = html.escape(base + IMAGE, quote=True)
    width, height = IMAGE_SIZE
    tags = "\n".join(
        [
            f'  <meta name="description" content="{d}">',
            f'  <meta property="og:site_name" content="{SITE}">',
            '  <meta property="og:type" content="website">',
            f'  <meta property="og:title" content="{t}">',
            f'  <meta property="og:description" content="{d}">',
            f'  <meta property="og:url" content="{u}">',
            f'  <meta property="og:image" content="{image}">',
            f'  <meta property="og:image:width" content="{width}">',
            f'  <meta property="og:image:height" content="{height}">',
            '  <meta name="twitter:card" content="summary_large_image">',
            f'  <meta name="twitter:title" content="{t}">',
            f'  <meta name="twitter:description" content="{d}">',
            f'  <meta name="twitter:image" content="{image}">',
        ]
    )
    page = page.replace(f"<title>{SITE}</title>", f"<title>{t}</title>", 1)
    return page.replace(_HEAD_END, tags + "\n" + _HEAD_END, 1)
