"""Rooms made through the pages, as a player would: create, join, a solo race. The one
place that knows the home page's and the lobby's controls."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.support.web import Browsing, Tab


def create_from_home(
    page: Page,
    name: str,
    *,
    difficulty: str | None = None,
    deal: int | None = None,
    time_limit: int | None = None,
    phone: bool = False,
) -> str:
    """Fill the home page's create form on ``page`` and submit it (tapped on a phone); once the
    lobby shows, the room's code. Settings left ``None`` keep the form's defaults."""
    submit_create_form(page, name, difficulty=difficulty, deal=deal, time_limit=time_limit, phone=phone)
    expect(page.get_by_test_id("lobby")).to_be_visible()
    code = page.get_by_test_id("room").get_attribute("data-code")
    assert code
    return code


def submit_create_form(
    page: Page,
    name: str,
    *,
    difficulty: str | None = None,
    deal: int | None = None,
    time_limit: int | None = None,
    phone: bool = False,
) -> None:
    """Fill the home page's create form and submit it, without waiting for a lobby (for a form
    the page may refuse)."""
    page.get_by_test_id("create-name").fill(name)
    if (difficulty, deal, time_limit) != (None, None, None):  # the settings: behind "More options"
        more_options(page)
    if difficulty is not None:
        page.get_by_test_id("create-difficulty").select_option(difficulty)
    if deal is not None:
        page.get_by_test_id("create-deal").fill(str(deal))
    if time_limit is not None:
        page.get_by_test_id("create-time-limit").select_option(str(time_limit))
    submit = page.get_by_test_id("create-submit")
    submit.tap() if phone else submit.click()


def more_options(page: Page) -> None:
    """Open the home page's "More options" (the create form's settings), if closed."""
    more = page.get_by_test_id("create-more")
    if more.get_attribute("open") is None:
        page.get_by_test_id("create-more-toggle").click()


def create_room(
    tabs: Browsing,
    name: str,
    *,
    difficulty: str,
    deal: int,
    tab_name: str = "host",
    still: bool = False,
    time_limit: int | None = None,
) -> tuple[Tab, str]:
    host = tabs.open(tab_name, "/", still=still)
    page = host.page
    code = create_from_home(page, name, difficulty=difficulty, deal=deal, time_limit=time_limit)
    expect(page).to_have_url(re.compile(rf"/r/{code}$"))
    return host, code


def join_room(tabs: Browsing, code: str, name: str, *, tab_name: str, phone: bool = False) -> Tab:
    tab = tabs.open(tab_name, f"/r/{code}", phone=phone)
    tab.page.get_by_test_id("join-name").fill(name)
    submit = tab.page.get_by_test_id("join-room")
    submit.tap() if phone else submit.click()
    expect(tab.page.get_by_test_id("lobby")).to_be_visible()
    return tab


def start_solo(tabs: Browsing, difficulty: str, deal: int, *, phone: bool = False) -> Tab:
    """A one-player race, created and started through the home page by "Solo"."""
    tab = tabs.open("solo", "/", phone=phone, still=True)
    solo_race(tab, difficulty, deal, phone=phone)
    return tab


def solo_race(tab: Tab, difficulty: str, deal: int, *, phone: bool = False) -> None:
    """Create a one-player race from ``tab``'s home page, and start it."""
    page = tab.page
    create_from_home(page, "Solo", difficulty=difficulty, deal=deal, phone=phone)
    start = page.get_by_test_id("start")
    start.tap() if phone else start.click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
