"""The board's motion in real headless Chromium: the deal flies out at the start, a shuffle
carries each pile's bottom card to its top, a move flies its card, and under
prefers-reduced-motion nothing moves at all.

Every animation the board starts has the id "fly" (web/board/motion.js); the page is made to
count them as they start, so a short animation cannot end before it is seen."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.rooms import solo_race
from tests.support.web import Browsing, Tab, zone

pytestmark = pytest.mark.browser

DEAL, DIFFICULTY = 8, "easy"

# Counts the board's animations as they start: all of them, and those going round their pile
# (three keyframes: a shuffle's card).
COUNT_FLIGHTS = """
window.flights = { all: 0, round: 0 };
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  if (options && options.id === "fly") {
    window.flights.all += 1;
    if (Array.isArray(frames) && frames.length === 3) window.flights.round += 1;
  }
  return animate.call(this, frames, options);
};
"""
RESET = "() => { window.flights = { all: 0, round: 0 }; }"
FLIGHTS = "() => window.flights"
SETTLED = "() => document.getAnimations().every((a) => a.id !== 'fly' || a.playState === 'finished')"


def race(browsing: Browsing, *, still: bool) -> Tab:
    tab = browsing.open("mover" if not still else "still", "/", still=still)
    tab.page.add_init_script(COUNT_FLIGHTS)
    tab.page.reload()
    solo_race(tab, DIFFICULTY, DEAL)
    return tab


def piles_that_turn(board: dict[str, Any]) -> int:
    """Piles whose bottom card a shuffle carries to the top, seen as such: two cards or more,
    the bottom one's twin not in the pile too (then either copy may be the one that moved)."""
    return sum(1 for pile in board["piles"] if len(pile) > 1 and pile.count(pile[0]) == 1)


def test_the_deal_a_shuffle_and_a_move_fly(browsing: Browsing) -> None:
    tab = race(browsing, still=False)
    page = tab.page
    board = tab.settled()
    dealt = sum(len(pile) for pile in board["piles"])
    page.wait_for_function("(n) => window.flights.all >= n", arg=dealt)  # the deal: every pile's card flies out
    page.wait_for_function(SETTLED)

    page.evaluate(RESET)
    page.get_by_test_id("shuffle").click()
    assert page.evaluate("() => document.getAnimations().some((a) => a.id === 'fly')")
    after = tab.settled(board["version"] + 1)
    flights = page.evaluate(FLIGHTS)
    assert flights["round"] == piles_that_turn(board), flights  # each pile's bottom card goes round to its top
    assert flights["all"] > flights["round"]  # and the cards above it move down one step
    for before_pile, pile in zip(board["piles"], after["piles"], strict=True):
        assert pile == before_pile[1:] + before_pile[:1]
    page.wait_for_function(SETTLED)

    page.evaluate(RESET)
    move = next(m for m in after["legal"] if m.startswith("p") and ">p" not in m)  # a card home by a tap
    page.locator(f"{zone(move.split('>')[0])} .card[data-top]").click()
    tab.settled(after["version"] + 1)
    assert page.evaluate(FLIGHTS)["all"] >= 1
    assert page.evaluate(FLIGHTS)["round"] == 0


def test_nothing_moves_under_reduced_motion(browsing: Browsing) -> None:
    tab = race(browsing, still=True)
    page = tab.page
    board = tab.settled()
    page.get_by_test_id("shuffle").click()
    after = tab.settled(board["version"] + 1)
    move = next(m for m in after["legal"] if m.startswith("p") and ">p" not in m)
    page.locator(f"{zone(move.split('>')[0])} .card[data-top]").click()
    tab.settled(after["version"] + 1)
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    assert page.evaluate(FLIGHTS) == {"all": 0, "round": 0}
    assert page.evaluate("() => document.getAnimations().filter((a) => a.id === 'fly').length") == 0
