"""The home page a group of friends meets first: a returning player starts a race in one
click (the nickname remembered, the settings behind "More options"); on a phone, the race,
today's deal and joining a friend's room are all on the first screen; a picture of the game.

Real server, real websockets, real headless Chromium.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.web import OUTPUT, Browsing

pytestmark = pytest.mark.browser


def test_a_returning_player_starts_a_race_in_one_click(browsing: Browsing) -> None:
    tab = browsing.open("ann", "/")
    page = tab.page
    page.evaluate("localStorage.setItem('crescent-race.name', 'Ann')")  # (a race before)
    page.reload()
    expect(page.get_by_test_id("create-difficulty")).to_be_hidden()  # behind "More options"
    expect(page.get_by_test_id("create-name")).to_have_value("Ann")
    page.get_by_test_id("create-submit").click()  # the one click
    expect(page.get_by_test_id("lobby")).to_be_visible()
    create = tab.sent_types("create")[-1]
    assert create["name"] == "Ann" and create["difficulty"] == "medium"
    page.goto("/")
    page.get_by_test_id("create-more-toggle").click()
    expect(page.get_by_test_id("create-difficulty")).to_be_visible()


def test_on_a_phone_the_race_the_daily_and_join_are_on_the_first_screen(browsing: Browsing) -> None:
    tab = browsing.open("phone", "/", phone=True)
    page = tab.page
    page.get_by_test_id("welcome-dismiss").tap()
    for testid in ("create-submit", "daily-link", "join-code", "join-submit"):
        box = page.get_by_test_id(testid).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844, f"{testid} is below the first screen: {box}"
    expect(page.get_by_test_id("home-picture").locator(".card").first).to_be_visible()
    folder = OUTPUT / "home"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "phone.png"))
    page.set_viewport_size({"width": 1366, "height": 768})
    page.screenshot(path=str(folder / "laptop.png"))
