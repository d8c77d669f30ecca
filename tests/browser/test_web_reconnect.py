"""A page whose server goes away (a crash, a deploy) reconnects by itself: the player keeps
the seat and the exact board, on a server process that never saw this page before."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.support.processes import Server
from tests.support.rooms import start_solo
from tests.support.web import Browsing, page_server

pytestmark = pytest.mark.browser


def serve(redis_url: str, port: int | None = None) -> Server:
    return page_server(redis_url, port=port, COUNTDOWN_SECONDS="0")


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[Server]:
    s = serve(redis_url)
    yield s
    s.stop()


def test_a_racing_page_reconnects_and_resumes_its_board_when_its_server_is_replaced(
    browsing: Browsing, server: Server, redis_url: str
) -> None:
    solo = start_solo(browsing, "easy", 3)
    page = solo.page
    first = solo.play_by_drag(next(m for m in solo.settled()["legal"] if m != "shuffle"))

    server.kill()  # kill -9: the socket drops with no goodbye
    # Loud within 2 s: a notice over the board, input refused, the clock marked as waiting.
    notice = page.get_by_test_id("connection-lost")
    expect(notice).to_be_visible(timeout=2000)
    assert page.evaluate("document.getElementById('app').inert")
    box, board = notice.bounding_box(), page.get_by_test_id("board").bounding_box()
    assert box and board and board["y"] < box["y"] + box["height"] / 2 < board["y"] + board["height"]
    waiting = page.evaluate("getComputedStyle(document.querySelector('[data-testid=timer]'), '::after').content")
    assert "waiting" in waiting, waiting
    moves_before = len(solo.sent_types("move"))
    solo.page.locator("[data-testid=board] .card[data-top]").first.click(force=True)
    assert len(solo.sent_types("move")) == moves_before
    browsing.snap("lost")
    connection = page.get_by_test_id("connection")
    expect(connection).to_have_attribute("data-state", "offline")
    expect(connection).to_have_text("reconnecting…")
    replacement = serve(redis_url, server.port)
    try:
        expect(connection).to_have_attribute("data-state", "online")
        expect(notice).to_be_hidden()
        assert not page.evaluate("document.getElementById('app').inert")
        resumed = solo.settled(first["version"])
        assert resumed["piles"] == first["piles"] and resumed["foundations"] == first["foundations"]
        resume = solo.sent_types("resume")[-1]
        assert resume["version"] == first["version"] and resume["token"]
        # The race goes on, on the new process.
        second = solo.play_by_drag(next(m for m in resumed["legal"] if m != "shuffle"), resumed)
        assert second["version"] == first["version"] + 1
        # The new process answered the resume with the very game the page held (the move's
        # reply came after it, on the same socket, so it is here by now).
        rejoined = solo.received_types("joined")[-1]["state"]
        assert rejoined["version"] == first["version"]
        assert rejoined["board"]["piles"] == first["piles"]
    finally:
        replacement.stop()
    # Chromium logs every refused websocket connection as a console error: the page's tries
    # while no server was listening. They are the outage, not a fault of the page.
    solo.errors[:] = [e for e in solo.errors if "ERR_CONNECTION_REFUSED" not in e]
