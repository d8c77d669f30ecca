"""A room that no longer exists (it expired, or the embedded store went down with its server)
ends the pages that showed it: the player's page and the spectator's page both say "No such
race" with the way home, and show no board, no clock and no control that pretends to work."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.processes import Server
from tests.support.rooms import start_solo
from tests.support.web import Browsing, page_server

pytestmark = pytest.mark.browser


SERVER_ENV = {"COUNTDOWN_SECONDS": "0"}


def serve(port: int | None = None) -> Server:
    # The embedded store: a restarted server has forgotten every room.
    return page_server(port=port, **SERVER_ENV)


def test_pages_of_a_room_lost_with_its_server_say_it_is_gone_and_stop(browsing: Browsing, server: Server) -> None:
    solo = start_solo(browsing, "easy", 3)
    page = solo.page
    room = page.get_by_test_id("room")
    code = room.get_attribute("data-code")
    assert code
    token_key = f"crescent-race.token.{code}"
    assert page.evaluate("(key) => localStorage.getItem(key)", token_key)
    solo.play_by_drag(next(m for m in solo.settled()["legal"] if m != "shuffle"))
    page.locator('[data-testid=board] [data-pile="3"]').focus()  # someone playing by keyboard
    expect(page.get_by_test_id("shuffle")).to_be_enabled()

    watcher = browsing.open("watcher", f"/watch/{code}")
    wp = watcher.page
    expect(wp.get_by_test_id("watch-player")).to_have_count(1)
    expect(wp.get_by_test_id("watch-status")).to_contain_text("Racing")

    server.kill()  # kill -9, and a new process with an empty embedded store on the same port
    for p in (page, wp):
        expect(p.get_by_test_id("connection")).to_have_attribute("data-state", "offline")
    replacement = serve(server.port)
    try:
        # The player's page: resumed, was told the room is gone, and shows only that.
        expect(page.get_by_test_id("room-gone")).to_be_visible()
        assert solo.sent_types("resume")
        expect(room).to_have_attribute("data-phase", "gone")
        expect(page.get_by_test_id("race")).to_be_hidden()  # the board, the clock, the tools
        expect(page.get_by_test_id("timer")).to_be_hidden()
        expect(page.get_by_test_id("shuffle")).to_be_hidden()
        expect(page.get_by_test_id("lobby")).to_be_hidden()
        connection = page.get_by_test_id("connection")
        expect(connection).to_have_attribute("data-state", "idle")
        expect(connection).to_have_text("")
        # The focus was on the board: it goes on to the way home.
        expect(page.get_by_role("link", name="Back home")).to_be_focused()
        # The shortcuts do nothing now, and say nothing of reconnecting.
        page.keyboard.press("s")
        page.keyboard.press("h")
        expect(page.get_by_test_id("toast")).to_have_count(0)
        # The seat's token is forgotten: a reload tries no resume, and the page, looking the
        # room up before offering a seat, says at once that there is none.
        assert page.evaluate("(key) => localStorage.getItem(key)", token_key) is None
        resumes = len(solo.sent_types("resume"))
        page.reload()
        expect(page.get_by_test_id("room-gone")).to_contain_text(f"There is no room {code}")
        expect(page.get_by_test_id("join-name")).to_have_count(0)
        expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "idle")
        assert len(solo.sent_types("resume")) == resumes

        # The spectator's page: the same, and its clock does not write over it.
        watch = wp.get_by_test_id("watch")
        expect(watch).to_have_attribute("data-phase", "gone")
        expect(wp.get_by_test_id("room-gone")).to_be_visible()
        expect(wp.get_by_test_id("watch-status")).not_to_contain_text("Racing")
        expect(wp.get_by_test_id("watch-boards")).to_be_hidden()
        expect(wp.get_by_test_id("watch-player")).to_have_count(0)
        expect(wp.get_by_test_id("connection")).to_have_attribute("data-state", "idle")
    finally:
        replacement.stop()
        # Chromium logs every refused websocket connection as a console error: the pages'
        # tries while no server was listening. They are the outage, not a fault of the pages.
        # And the room look-up's 404 (the answer the page asked for) is logged likewise.
        for tab in (solo, watcher):
            tab.errors[:] = [e for e in tab.errors if "ERR_CONNECTION_REFUSED" not in e and "status of 404" not in e]
