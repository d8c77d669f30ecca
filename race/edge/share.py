"""What a shared link needs: the origin a friend's device can open, a QR code of a room's
link, and the page's preview tags (Open Graph, Twitter card) for a chat to show, in the
language the chat's request asks for (``Accept-Language``: English or Spanish).

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
LANGS = ("en", "es")  # the client's catalogues (web/i18n/)
_LOCALE = {"en": "en_GB", "es": "es_ES"}

#: A preview's words per language. ``room.*`` take ``code``, ``difficulty``, ``who``.
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "pitch": PITCH,
        "room.unknown": "Crescent Race: room {code}",
        "daily.attempt.title": "Crescent Race: a daily challenge attempt",
        "daily.attempt": "Watch room {code} play today's {difficulty} deal.",
        "room.title": "Join my Crescent Race ({difficulty})",
        "room.text": "Room {code}: {who}. Same deal for everyone: first to clear it wins.",
        "player": "{n} player",
        "players": "{n} players",
        "lobby": "waiting to start",
        "countdown": "about to start",
        "racing": "racing",
        "easy": "easy",
        "medium": "medium",
        "hard": "hard",
        "daily.title": "Crescent Race: today's daily challenge",
        "daily.text": "One Crescent solitaire deal a day, the same for everyone and proven winnable. "
        "How fast can you clear it?",
        "loading": "Loading…",
        "noscript": "Crescent Race needs JavaScript to play.",
        "language": "Language",
    },
    "es": {
        "pitch": "Échale una carrera a tus amigos al solitario Crescent: el mismo reparto para todos, "
        "gana el primero en completarlo.",
        "room.unknown": "Crescent Race: sala {code}",
        "daily.attempt.title": "Crescent Race: un intento del reto diario",
        "daily.attempt": "Mira cómo se juega en la sala {code} el reparto de hoy ({difficulty}).",
        "room.title": "Únete a mi Crescent Race ({difficulty})",
        "room.text": "Sala {code}: {who}. El mismo reparto para todos: gana el primero en completarlo.",
        "player": "{n} jugador",
        "players": "{n} jugadores",
        "lobby": "esperando para empezar",
        "countdown": "a punto de empezar",
        "racing": "en plena carrera",
        "easy": "fácil",
        "medium": "media",
        "hard": "difícil",
        "daily.title": "Crescent Race: el reto diario de hoy",
        "daily.text": "Un reparto de solitario Crescent al día, el mismo para todos y con solución "
        "comprobada. ¿Cuánto tardas en completarlo?",
        "loading": "Cargando…",
        "noscript": "Para jugar a Crescent Race hace falta JavaScript.",
        "language": "Idioma",
    },
}


def preview_lang(accept_language: str | None) -> str:
    """The language of ``accept_language`` (an ``Accept-Language`` header) that we have, by
    its weights; English when it names none of ours.

    >>> [preview_lang(h) for h in ("es-ES,es;q=0.9,en;q=0.8", "en-US,en;q=0.9,es;q=0.8", "fr, es;q=0.5", "fr", None)]
    ['es', 'en', 'es', 'en', 'en']
    >>> preview_lang("es;q=0, en;q=0.1")
    'en'
    """
    best, best_q = "en", 0.0
    for i, item in enumerate((accept_language or "").split(",")):
        tag, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        lang = tag.strip().lower().split("-")[0]
        if lang in LANGS and q > best_q:
            best, best_q = lang, q - i * 1e-6  # of equal weights, the first named wins
    return best


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


def room_preview(info: dict[str, Any] | None, code: str, lang: str = "en") -> tuple[str, str]:
    """The title and description a chat shows for a room's link, in ``lang``; ``info`` is
    the room's look-up (``None``: there is no such room, or the store could not say).

    >>> room_preview({"kind": "race", "difficulty": "hard", "players": 2, "phase": "lobby"}, "K7M2QXA")[1]
    'Room K7M2QXA: 2 players waiting to start. Same deal for everyone: first to clear it wins.'
    >>> title, text = room_preview({"kind": "race", "difficulty": "hard", "players": 1, "phase": "racing"}, "K7", "es")
    >>> title, text[:36]
    ('Únete a mi Crescent Race (difícil)', 'Sala K7: 1 jugador en plena carrera.')
    """
    w = WORDS.get(lang, WORDS["en"])
    if info is None:
        return w["room.unknown"].format(code=code), w["pitch"]
    difficulty = w.get(str(info.get("difficulty")), str(info.get("difficulty")))
    if info.get("kind") == "daily":
        return w["daily.attempt.title"], w["daily.attempt"].format(code=code, difficulty=difficulty)
    players = info["players"]
    doing = w[info["phase"] if info["phase"] in ("lobby", "countdown") else "racing"]
    who = (w["player"] if players == 1 else w["players"]).format(n=players) + " " + doing
    return w["room.title"].format(difficulty=difficulty), w["room.text"].format(code=code, who=who)


def daily_preview(lang: str = "en") -> tuple[str, str]:
    """The title and description of the daily challenge's link, in ``lang``."""
    w = WORDS.get(lang, WORDS["en"])
    return w["daily.title"], w["daily.text"]


DAILY_PREVIEW = daily_preview("en")


def in_language(page: str, lang: str) -> str:
    """``page`` (the client's index.html) with the words it shows before its script runs (the
    loading line, the note for a browser without JavaScript, the language switch's label) and
    its ``lang`` in ``lang``.

    >>> in_language('<html lang="en"><p class="loading">Loading…</p>', "es")
    '<html lang="es"><p class="loading">Cargando…</p>'
    """
    if lang not in LANGS or lang == "en":
        return page
    words, english = WORDS[lang], WORDS["en"]
    for key in ("loading", "noscript"):
        page = page.replace(f">{english[key]}<", f">{words[key]}<", 1)
    page = page.replace(
        f'<span class="sr-only">{english["language"]}</span>', f'<span class="sr-only">{words["language"]}</span>', 1
    )
    return page.replace('<html lang="en">', f'<html lang="{lang}">', 1)


def with_preview(page: str, *, title: str, description: str, url: str, base: str, lang: str = "en") -> str:
    """``page`` (the client's index.html) with its title and preview tags: Open Graph and
    Twitter's card, whose image is the one the client ships, and its ``lang``. Text is
    escaped."""
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
            f'  <meta property="og:locale" content="{_LOCALE.get(lang, "en_GB")}">',
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
    page = page.replace('<html lang="en">', f'<html lang="{lang if lang in LANGS else "en"}">', 1)
    return page.replace(_HEAD_END, tags + "\n" + _HEAD_END, 1)
