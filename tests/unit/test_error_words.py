"""Every refusal the server can send has the page's words: each ``code`` of an error raised
or built in ``race/`` (``Refused``, ``ProtocolError``, ``error(...)``) has an ``error.CODE``
entry in the client's English catalogue (and so, by the node test of the catalogues, in every
other language). A page never shows the server's English ``message`` for a code it knows."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RAISED = re.compile(r"""\b(?:Refused|ProtocolError|error)\(\s*["']([a-z_]+)["']""")
KEY = re.compile(r"""^\s*"error\.([a-z_]+)":""", re.M)


def codes_sent() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "race").rglob("*.py"):
        found |= set(RAISED.findall(path.read_text()))
    return found


def test_every_error_code_the_server_sends_has_words_in_the_catalogue() -> None:
    sent = codes_sent()
    assert {"not_host", "illegal_move", "bad_name", "rate_limited"} <= sent  # the scan finds them
    words = set(KEY.findall((ROOT / "web" / "i18n" / "en.js").read_text()))
    assert not sent - words, f"codes with no words in web/i18n/en.js: {sorted(sent - words)}"
