"""The daily page shows a result played faster than a person plays apart from the ranking,
greyed, with the reason (in English and in Spanish), and tells its player so; real server
(with the default rules of a person's pace), real websockets, real headless Chromium.
Screenshots: test-output/daily-pace/."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from race.rooms.pace import Pace
from tests.support.players import win_the_daily
from tests.support.processes import Server
from tests.support.web import OUTPUT, Browsing, Tab

pytestmark = pytest.mark.browser

RULES = Pace()
SERVER_ENV = {
    "DAILY_NODE_LIMIT": "200000",
    "RATE_LIMIT_PER_SECOND": "1000",
    "RATE_LIMIT_BURST": "1000",
    "DAILY_PACE_MEDIAN_MS": str(RULES.median_ms),
    "DAILY_PACE_RUN_MS": str(RULES.run_ms),
    "DAILY_PACE_FLOOR_SECONDS": ",".join(f"{k}={v / 1000:g}" for k, v in RULES.floor_ms.items()),
}
SIZES = {"phone": (390, 844), "laptop": (1366, 768)}


def shoot(tab: Tab, label: str) -> None:
    folder = OUTPUT / "daily-pace"
    folder.mkdir(parents=True, exist_ok=True)
    for size, (width, height) in SIZES.items():
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.page.screenshot(path=str(folder / f"{label}-{size}.png"), full_page=True)


def test_a_bots_result_is_shown_unverified_with_the_reason(browsing: Browsing, server: Server) -> None:
    # A script plays the day's line as fast as the server takes it.
    with ThreadPoolExecutor(1) as pool:
        joined = pool.submit(asyncio.run, win_the_daily(server.ws_url, "Speedy")).result()

    viewer = browsing.open("viewer", "/daily")
    page = viewer.page
    board = page.get_by_test_id("today-board")
    expect(board).to_have_attribute("data-state", "ready")
    expect(board.get_by_test_id("board-empty")).to_be_visible()  # no one ranked
    expect(board.get_by_test_id("ranking-row")).to_have_count(0)
    listed = board.get_by_test_id("unverified")
    expect(listed).to_contain_text("Not ranked: 1 result faster than a person plays")
    listed.locator("summary").click()
    entry = listed.get_by_test_id("unverified-entry")
    expect(entry).to_have_count(1)
    expect(entry.locator(".name")).to_have_text("Speedy")
    expect(entry.locator(".why")).to_contain_text("between moves (people take 250 ms or more)")
    shoot(viewer, "viewer")

    # Its player, on their own page, is told why they are not ranked.
    mine = browsing.open("player", "/daily")
    mine.page.evaluate("t => localStorage.setItem('crescent.daily.token', t)", joined["token"])
    mine.page.reload()
    expect(mine.page.get_by_test_id("my-rank")).to_contain_text("not ranked (too fast for a person)")
    expect(mine.page.get_by_test_id("my-rank")).to_have_attribute(
        "title", "Not ranked: " + entry.locator(".why").inner_text()
    )
    shoot(mine, "player")

    # In Spanish, the reason is said from the server's code and numbers.
    page.evaluate("() => localStorage.setItem('crescent.lang', 'es')")
    page.reload()
    expect(board).to_have_attribute("data-state", "ready")
    listed.locator("summary").click()
    expect(entry.locator(".why")).to_contain_text("entre movimientos (una persona tarda 250 ms o más)")
    shoot(viewer, "viewer-es")
