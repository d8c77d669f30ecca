"""The README's screenshot: a race in progress between two players, at laptop size.

The test plays the race on every run and keeps its picture under test-output/. To remake
the README's copy after the page changes:

    README_SCREENSHOT=1 .venv/bin/python -m pytest tests/browser/test_web_screenshot.py

which writes docs/race.png, cut to 256 colours to keep it small (tests/support/png.py).
"""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from tests.support import png
from tests.support.processes import ROOT
from tests.support.rooms import create_from_home
from tests.support.web import OUTPUT, Browsing, Tab
from tests.support.winning_lines import winning_line

pytestmark = pytest.mark.browser

README_PICTURE = ROOT / "docs" / "race.png"
DEAL, DIFFICULTY = 5, "medium"
ALICE_MOVES, BOB_MOVES = 26, 14  # far enough into the deal that both boards have moved on


def test_a_race_in_progress_between_two_players_at_laptop_size(browsing: Browsing) -> None:
    line = winning_line(DEAL, DIFFICULTY)
    alice = browsing.open("alice", "/", still=True)
    page = alice.page
    code = create_from_home(page, "Alice", difficulty=DIFFICULTY, deal=DEAL)

    bob = browsing.open("bob", f"/r/{code}", still=True)
    bob.page.get_by_test_id("join-name").fill("Bob")
    bob.page.get_by_test_id("join-room").click()
    bob.page.get_by_test_id("ready").click()
    expect(page.locator("[data-testid=lobby-player][data-seat=s2]")).to_have_attribute("data-ready", "true")
    page.get_by_test_id("start").click()
    for tab in (alice, bob):
        expect(tab.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")

    play(bob, line[:BOB_MOVES])
    play(alice, line[:ALICE_MOVES])
    cards = {tab.name: home(tab) for tab in (alice, bob)}
    assert cards["alice"] > cards["bob"] > 8, cards  # both have played cards home, Alice more
    expect(page.get_by_test_id("progress-s2")).to_have_attribute("data-cards", str(cards["bob"]))
    expect(page.get_by_test_id("progress-s1")).to_have_attribute("data-cards", str(cards["alice"]))
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    alice.assert_board_fits()
    page.mouse.move(0, 0)  # no card under the pointer: nothing hovered in the picture

    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)
    picture = page.screenshot(path=str(folder / "race.png"))
    assert picture[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("README_SCREENSHOT"):
        README_PICTURE.write_bytes(png.small(picture))


def play(tab: Tab, moves: list[str]) -> None:
    """Play ``moves`` through the page by drag and drop (the shuffle by its button)."""
    board = tab.settled()
    for move in moves:
        board = tab.play_by_drag(move, board)


def home(tab: Tab) -> int:
    """The cards on the foundations of the tab's board (the eight bases included)."""
    return sum(count for count, _ in tab.settled()["foundations"].values())
