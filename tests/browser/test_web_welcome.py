"""A newcomer's way in: names counted as a reader sees them, the same in the page and on
the server.

Real server, real websockets, real headless Chromium.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

from tests.browser.test_web_client import create_room
from tests.support.processes import Server
from tests.support.web import OUTPUT, Browsing, Tab, page_server

pytestmark = pytest.mark.browser

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one character: four people joined
SIZES = {"phone": (390, 844), "laptop": (1366, 768)}


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = page_server()
    yield s
    s.stop()


def shoot(tab: Tab, label: str) -> None:
    """Screenshots of ``tab`` at phone and laptop sizes, under test-output/welcome/."""
    folder = OUTPUT / "welcome"
    folder.mkdir(parents=True, exist_ok=True)
    before = tab.page.viewport_size
    for size, (width, height) in SIZES.items():
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.page.screenshot(path=str(folder / f"{label}-{size}.png"), full_page=True)
    if before:
        tab.page.set_viewport_size(before)


def server_says(server: Server, message: dict[str, object]) -> dict[str, object]:
    with connect(server.ws_url) as ws:
        assert json.loads(ws.recv())["type"] == "hello"
        ws.send(json.dumps(message))
        reply: dict[str, object] = json.loads(ws.recv())
        return reply


def test_a_name_is_counted_in_characters_as_read_by_the_page_and_the_server(browsing: Browsing, server: Server) -> None:
    _, code = create_room(browsing, "Ann", difficulty="easy", deal=3)
    guest = browsing.open("guest", f"/r/{code}", phone=True)
    gp = guest.page
    field = gp.get_by_test_id("join-name")
    too_long = FAMILY * 21  # 21 characters (147 code points)
    field.fill(too_long)
    assert "21" in field.evaluate("(e) => e.validationMessage")
    gp.get_by_test_id("join-room").tap()
    expect(gp.get_by_test_id("lobby")).to_be_hidden()
    assert not guest.sent_types("join"), "the page sent a name it counts as too long"
    refused = server_says(server, {"type": "join", "room": code, "name": too_long})
    assert refused["code"] == "bad_name" and "at most 20" in str(refused["message"])
    just_right = FAMILY * 20
    field.fill(just_right)
    assert field.evaluate("(e) => e.validationMessage") == ""

    name = f"{FAMILY} Famille Dupont"  # 16 characters, 22 code points
    field.fill(name)
    assert field.evaluate("(e) => e.validationMessage") == ""
    gp.get_by_test_id("join-room").tap()
    expect(gp.get_by_test_id("lobby")).to_be_visible()
    expect(gp.get_by_test_id("lobby-player").nth(1)).to_contain_text(name)
    shoot(guest, "lobby-family-name")
