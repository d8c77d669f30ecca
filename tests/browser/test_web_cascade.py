"""The win cascade in real headless Chromium: a won game's foundations bounce off across the
screen, card by card, for a couple of seconds; a press anywhere skips it; under
prefers-reduced-motion there is none at all.

The game is won from the page by typing the moves of a checked-in winning line in the
engine's notation (":" opens the field, Enter plays)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import ViewportSize, expect

from tests.support.rooms import solo_race
from tests.support.web import OUTPUT, Browsing, Tab
from tests.support.winning_lines import winning_line

pytestmark = pytest.mark.browser

DEAL, DIFFICULTY = 8, "easy"  # a deal with a checked-in winning line
SIZES: dict[str, ViewportSize] = {
    "1366x768": {"width": 1366, "height": 768},
    "390x844": {"width": 390, "height": 844},
    "844x390": {"width": 844, "height": 390},
}
RUNNING = "() => document.getAnimations().filter((a) => a.id === 'cascade' && a.playState !== 'finished').length"
STARTED = "() => document.getAnimations().some((a) => a.id === 'cascade' && a.currentTime > 600)"


def win_by_typing(tab: Tab) -> dict[str, Any]:
    """Play the whole winning line from the keyboard; the won board."""
    page = tab.page
    state = tab.settled()
    for move in winning_line(DEAL, DIFFICULTY):
        page.keyboard.press(":")
        field = page.get_by_test_id("notation-input")
        field.fill(move)
        field.press("Enter")
        state = tab.settled(state["version"] + 1)
    return state


def race_at(browsing: Browsing, name: str, size: str, *, still: bool) -> Tab:
    tab = browsing.open(name, "/", still=still)
    tab.page.set_viewport_size(SIZES[size])
    solo_race(tab, DIFFICULTY, DEAL)
    return tab


@pytest.mark.parametrize("size", list(SIZES))
def test_a_won_game_cascades_and_a_press_skips_it(browsing: Browsing, size: str) -> None:
    tab = race_at(browsing, "winner", size, still=False)
    page = tab.page
    win_by_typing(tab)
    expect(page.get_by_test_id("won-banner")).to_be_visible()
    cascade = page.get_by_test_id("cascade")
    expect(cascade).to_have_count(1)
    # The suits completed at the end are toasted one at a time, never piled over the cards.
    assert page.get_by_test_id("moment-toast").count() <= 1
    expect(cascade.locator(".cascade-card")).to_have_count(8 * 13)  # every card of the eight foundations
    assert page.evaluate(RUNNING) > 0
    page.wait_for_function(STARTED)
    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"cascade-{size}.png"))
    if size == "390x844":
        expect(cascade).to_have_count(0, timeout=10_000)  # left alone, it ends by itself
    else:
        page.mouse.click(5, SIZES[size]["height"] - 5)
        expect(cascade).to_have_count(0)
    assert page.evaluate(RUNNING) == 0
    page.screenshot(path=str(folder / f"won-{size}.png"))


def test_no_cascade_under_reduced_motion(browsing: Browsing) -> None:
    tab = race_at(browsing, "still", "1366x768", still=True)
    page = tab.page
    win_by_typing(tab)
    expect(page.get_by_test_id("won-banner")).to_be_visible()  # (drawn in the same turn as a cascade)
    expect(page.get_by_test_id("cascade")).to_have_count(0)
    assert page.evaluate(RUNNING) == 0
