"""Who a lobby reaches: on a server that listens on loopback only, with no address other
devices can open, the lobby says friends cannot open its link and how to fix it, instead of
a QR code of 127.0.0.1; and a spectator of a lobby sees it at once (the spectators' delay
starts with the race), then a countdown to the race reaching them.

Real server, real websockets, real headless Chromium.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.processes import Server
from tests.support.rooms import create_room, join_room
from tests.support.web import Browsing

pytestmark = pytest.mark.browser

# The spectators' delay as served (15 s), counted in shorter seconds so the test waits little.
SERVER_ENV = {"SPECTATOR_DELAY_SECONDS": "15", "SPECTATOR_SECOND_MS": "200"}


def test_a_lobby_on_loopback_says_friends_cannot_open_its_link_and_how_to_fix_it(
    browsing: Browsing, server: Server
) -> None:
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=3)
    page = host.page
    expect(page.get_by_test_id("share-loopback")).to_be_visible()
    expect(page.get_by_test_id("loopback-fix")).to_have_text(".ci/serve --host 0.0.0.0")
    expect(page.get_by_test_id("room-qr")).to_have_count(0)
    # The link still works on this computer (a second window, say): it is shown and copied.
    expect(page.get_by_test_id("share-url")).to_have_value(f"{server.url}/r/{code}")
    browsing.snap("loopback")


def test_a_spectator_of_a_lobby_sees_it_at_once_then_a_countdown_to_the_race(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=3)
    join_room(browsing, code, "Bob", tab_name="bob")
    fan = browsing.open("fan", f"/watch/{code}")
    fp = fan.page
    # The roster at once (the delay has not begun: nothing in a lobby is secret).
    expect(fp.get_by_test_id("watch-player")).to_have_count(2, timeout=2000)
    expect(fp.get_by_test_id("watch-side")).to_contain_text("Bob", timeout=2000)
    expect(fp.get_by_test_id("delayed")).to_be_hidden()
    browsing.snap("lobby")
    host.page.get_by_test_id("start").click()
    note = fp.get_by_test_id("delayed")
    expect(note).to_be_visible(timeout=2000)
    expect(note).to_contain_text("The race reaches you 3 s late")
    left = int(note.get_attribute("data-left") or 0)
    assert 1 <= left <= 3
    # Then the race reaches the page, and the note goes.
    expect(fp.get_by_test_id("watch")).not_to_have_attribute("data-phase", "lobby")
    expect(note).to_be_hidden()
