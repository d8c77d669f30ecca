"""What a page shows of a race it must not know yet: the deal face down until "Go!", no
rival's board, a spectator behind the race, and a racing device's watch page without boards.

Real server, real websockets, real headless Chromium; screenshots under test-output/fair-play/.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.rooms import create_room, join_room
from tests.support.web import OUTPUT, Browsing, Tab

pytestmark = pytest.mark.browser

# A countdown long enough to look at; a spectator second of 40 ms (the 15 s delay: 0.6 s).
SERVER_ENV = {"COUNTDOWN_SECONDS": "3", "SPECTATOR_DELAY_SECONDS": "15", "SPECTATOR_SECOND_MS": "40"}
SIZES = {"phone": (390, 844), "laptop": (1366, 768)}
PILE_CARDS = "[data-testid=board] .pile .card"


def shoot(tab: Tab, label: str) -> None:
    folder = OUTPUT / "fair-play"
    folder.mkdir(parents=True, exist_ok=True)
    before = tab.page.viewport_size
    for size, (width, height) in SIZES.items():
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.page.screenshot(path=str(folder / f"{label}-{size}.png"))
    if before:
        tab.page.set_viewport_size(before)


def test_the_deal_is_face_down_until_go_and_rivals_show_no_board(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=5)
    bob = join_room(browsing, code, "Bob", tab_name="bob")
    hp, bp = host.page, bob.page
    expect(hp.locator("[data-testid=lobby-player][data-seat=s2]")).to_have_count(1)
    hp.get_by_test_id("start").click()
    expect(hp.get_by_test_id("room")).to_have_attribute("data-phase", "countdown")
    # The countdown: 96 cards face down, nothing to play, no deal number anywhere.
    expect(hp.locator(PILE_CARDS)).to_have_count(96)
    expect(hp.locator(f"{PILE_CARDS}.back")).to_have_count(96)
    expect(hp.get_by_test_id("board")).to_have_attribute("data-legal", "")
    assert "known deal 5" in hp.get_by_test_id("room").inner_text()
    shoot(host, "countdown")
    # Go: the deal, with its moves, for both.
    for page in (hp, bp):
        expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
        expect(page.locator(f"{PILE_CARDS}.back")).to_have_count(0)
        expect(page.get_by_test_id("board")).not_to_have_attribute("data-legal", "")
    assert hp.locator(PILE_CARDS).evaluate_all("cs => cs.map(c => c.dataset.card)") == bp.locator(
        PILE_CARDS
    ).evaluate_all("cs => cs.map(c => c.dataset.card)")
    shoot(host, "racing")


def test_a_spectator_watches_behind_the_race_and_a_racing_device_sees_no_boards(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=5)
    hp = host.page
    # Another browser watches: the 15 s delay (0.6 s here) is said at once, then the race shows.
    watcher = browsing.open("watcher", f"/watch/{code}")
    wp = watcher.page
    expect(wp.get_by_test_id("watch-player")).to_have_count(1)
    assert "spectators 15 s behind" in wp.get_by_test_id("watch").inner_text()
    hp.get_by_test_id("start").click()
    expect(hp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(wp.get_by_test_id("watch")).to_have_attribute("data-phase", "racing")
    expect(wp.locator("[data-testid=watch-player] .card.back")).to_have_count(0)
    expect(wp.locator("[data-testid=watch-player] .pile .card")).to_have_count(96)
    # The host's own browser opens the watch page: no boards until Ann's game is done.
    own = host.page.context.new_page()
    own.goto(f"/watch/{code}")
    expect(own.get_by_test_id("no-boards")).to_contain_text("You are racing in this room")
    expect(own.locator("[data-testid=watch-player] .board")).to_be_hidden()
    hp.get_by_test_id("resign").click()
    expect(hp.get_by_test_id("resign")).to_have_text("Really resign?")
    hp.get_by_test_id("resign").click()
    expect(own.get_by_test_id("no-boards")).to_be_hidden()
    expect(own.locator("[data-testid=watch-player] .board")).to_be_visible()
    own.close()
