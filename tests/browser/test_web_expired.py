"""A room that expires while its pages are open (nobody did anything in it for the store's
ttl): the player's and the spectator's pages say so at once, from the server's next presence
refresh, instead of at their next message."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.rooms import start_solo
from tests.support.web import Browsing

pytestmark = pytest.mark.browser

# A room kept 5 s after its last change (time for a loaded machine to open the watcher's page
# before it goes); presence refreshed every 0.2 s.
SERVER_ENV = {"COUNTDOWN_SECONDS": "0", "ROOM_TTL_SECONDS": "5", "PRESENCE_TTL_SECONDS": "0.6"}
GONE_MS = 15_000  # the ttl, the next presence refresh, and a loaded machine


def test_the_pages_of_a_room_that_expires_say_so_without_being_asked(browsing: Browsing) -> None:
    solo = start_solo(browsing, "easy", 3)
    page = solo.page
    code = page.get_by_test_id("room").get_attribute("data-code")
    watcher = browsing.open("watcher", f"/watch/{code}")
    wp = watcher.page
    expect(wp.get_by_test_id("watch-player")).to_have_count(1)
    sent = len(solo.sent)

    expect(page.get_by_test_id("room-gone")).to_contain_text("expired", timeout=GONE_MS)
    expect(page.get_by_test_id("race")).to_be_hidden()
    expect(wp.get_by_test_id("watch")).to_have_attribute("data-phase", "gone", timeout=GONE_MS)
    expect(wp.get_by_test_id("room-gone")).to_contain_text("expired")
    # Told, not found out: the player's page sent nothing to learn it (pings aside).
    assert [m for m in solo.sent[sent:] if m.get("type") != "ping"] == []
