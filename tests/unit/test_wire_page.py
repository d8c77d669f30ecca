"""web/wire.js is the server's wire constants, generated: the page and the server cannot
drift apart on a close code, a pattern or a limit."""

from __future__ import annotations

import re

from race.wire import page
from race.wire import protocol as p


def test_web_wire_js_is_what_the_server_generates() -> None:
    assert page.PATH.read_text() == page.javascript(), "run `python -m race.wire.page` to write web/wire.js again"


def test_the_patterns_sent_to_the_page_match_what_the_server_takes() -> None:
    device = page.constants()["DEVICE_KEY"]
    assert isinstance(device, str)
    for key in ("A" * 22, "a-b_c" * 10, "x" * 64):
        assert re.match(device, key) and re.match(p.DEVICE_KEY, key)
    for key in ("A" * 21, "x" * 65, "A" * 22 + "\n", "bad key with spaces!!!"):
        assert not re.fullmatch(device, key) and not re.match(p.DEVICE_KEY, key)
    assert re.fullmatch(p.ROOM_CODE_TEXT, "K7M2QXA") and not re.fullmatch(p.ROOM_CODE_TEXT, "K7-M2")
