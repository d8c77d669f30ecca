"""The tutorial in real Chromium against a real server: a newcomer taps through its lessons on
the real board (the server's engine checks every move) to a first win, by pointer input
alone; a player's first game offers it once. Screenshots at phone and laptop sizes under
test-output/tutorial/.

Real server, real websockets, real headless Chromium.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.rooms import create_from_home, create_room
from tests.support.web import OUTPUT, Browsing, Tab

pytestmark = pytest.mark.browser

SIZES = {"phone": (390, 844), "laptop": (1366, 768)}
LIT = re.compile(r"\btarget\b")  # a lit target of the card picked up
HINTED = re.compile(r"\bhint\b")  # the card the server's hint names


def shoot(tab: Tab, label: str) -> None:
    """Screenshots of ``tab`` at phone and laptop sizes, under test-output/tutorial/."""
    folder = OUTPUT / "tutorial"
    folder.mkdir(parents=True, exist_ok=True)
    before = tab.page.viewport_size
    for size, (width, height) in SIZES.items():
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.page.screenshot(path=str(folder / f"{label}-{size}.png"), full_page=True)
    if before:
        tab.page.set_viewport_size(before)


def step_of(tab: Tab) -> int:
    return int(tab.page.get_by_test_id("lesson").get_attribute("data-step") or 0)


def play_by_taps(tab: Tab, board: dict[str, Any]) -> None:
    """Make the board's one offered move as a person would: tap the card (a foundation's
    top card for a give-back), then where it goes unless a tap plays it home; the shuffle
    by its button."""
    (move,) = board["legal"]
    if move == "shuffle":
        tab.page.get_by_test_id("shuffle").tap()
        return
    source, target = move.split(">")
    tab.tap(source)
    if target.startswith("p") or source.startswith(("u", "d")):
        expect(tab.page.get_by_test_id("board")).to_have_attribute("data-selected", source)
        tab.tap(target)


def test_a_newcomer_taps_through_the_tutorial_to_a_first_win(browsing: Browsing) -> None:
    tab = browsing.open("newcomer", "/", phone=True, still=True)
    page = tab.page
    expect(page.get_by_test_id("welcome")).to_be_visible()
    page.get_by_test_id("welcome-tutorial").tap()
    expect(page).to_have_url(f"{browsing.base_url}/learn")
    expect(page).to_have_title("Learn to play · Crescent Race")
    lesson = page.get_by_test_id("lesson")
    expect(lesson).to_have_attribute("data-step", "1")
    expect(page.get_by_test_id("lesson-title")).to_have_text("Play a card home")
    expect(page.get_by_test_id("lesson-progress")).to_have_text("Step 1 of 6")
    board = tab.settled()
    assert board["legal"] == ["p1>uH"], "the first lesson offers its one move"
    assert sum(len(p) for p in board["piles"]) == 10
    # The lesson's card is lit, and where it goes (the server's hint).
    expect(page.locator("[data-testid=board] [data-pile='1']")).to_have_class(HINTED)
    expect(page.locator("[data-testid=board] [data-foundation='uH']")).to_have_class(re.compile(r"\bhint-target\b"))
    shoot(tab, "1-foundation")

    # A card the lesson does not move is refused on the page (nothing is sent).
    tab.tap("p3")
    expect(page.get_by_test_id("board")).to_have_attribute("data-selected", "")
    assert not tab.sent_types("move")

    titles = ["Move a card onto a pile", "The A-K wrap", "Give a card back", "Shuffle", "Win the game"]
    for k, title in enumerate(titles, start=2):
        play_by_taps(tab, board)
        expect(lesson).to_have_attribute("data-step", str(k))
        expect(page.get_by_test_id("lesson-title")).to_have_text(title)
        expect(page.get_by_test_id("lesson-done")).to_contain_text(": done.")
        board = tab.settled()
        if title == "Give a card back":
            tab.tap("dD")  # picked up: its one target lit, as the lesson says
            expect(page.locator("[data-testid=board] [data-pile='10']")).to_have_class(LIT)
            shoot(tab, "4-give-back")
            tab.tap("dD")  # put down again
            expect(page.get_by_test_id("board")).to_have_attribute("data-selected", "")
        if title == "Shuffle":
            shoot(tab, "5-shuffle")
    assert [m["move"] for m in tab.sent_types("move")] == ["p1>uH", "p3>p4", "p13>p12", "dD>p10", "shuffle"]
    expect(page.get_by_test_id("lesson-left")).to_have_text("10 cards to go")
    shoot(tab, "6-free")

    # The last lesson is free: every legal move is offered; tapping cards home wins.
    while not page.get_by_test_id("won-banner").is_visible():
        home = [m for m in board["legal"] if m.startswith("p") and m.split(">")[1][0] in "ud"]
        assert home, f"no card goes home: {board['legal']}"
        tab.tap(home[0].split(">")[0])
        board = tab.settled(board["version"] + 1)
        if board["legal"] == []:
            break
    expect(page.get_by_test_id("won-banner")).to_contain_text("You won!")
    expect(lesson).to_have_attribute("data-won", "true")
    expect(page.get_by_test_id("lesson-title")).to_have_text("Your first win")
    expect(page.get_by_test_id("card-count")).to_have_text("104/104")
    expect(page.get_by_test_id("lesson-steps").locator("[data-status=done]")).to_have_count(6)
    expect(page.get_by_test_id("lesson-race")).to_have_attribute("href", "/")
    shoot(tab, "7-won")

    # Played again: a new tutorial from the start; given up, it offers to start again.
    page.get_by_test_id("lesson-again").tap()
    expect(lesson).to_have_attribute("data-step", "1")
    assert tab.settled()["legal"] == ["p1>uH"]
    code = page.get_by_test_id("room").get_attribute("data-code")
    give_up = page.get_by_test_id("resign")
    give_up.tap()
    give_up.tap()
    expect(page.get_by_test_id("resigned-banner")).to_be_visible()
    page.get_by_test_id("lesson-again").tap()
    expect(lesson).to_have_attribute("data-step", "1")
    expect(page.get_by_test_id("room")).not_to_have_attribute("data-code", code or "")

    # Someone else opening a tutorial's room is told what it is, with no seat to take.
    other = browsing.open("other", f"/r/{code}")
    expect(other.page.get_by_test_id("join-closed")).to_contain_text("A tutorial")


def test_the_tutorial_is_linked_from_home_and_how_to_play_and_a_first_game_offers_it_once(
    browsing: Browsing,
) -> None:
    host, _ = create_room(browsing, "Ann", difficulty="easy", deal=7)
    page = host.page
    offer = page.get_by_test_id("tutorial-offer")
    expect(offer).to_be_visible()
    expect(page.get_by_test_id("tutorial-offer-open")).to_have_attribute("href", "/learn")
    expect(page.get_by_test_id("tutorial-offer-open")).to_have_attribute("target", "_blank")
    shoot(host, "first-game-offer")
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(offer).to_have_count(0)  # the race has the page

    # Offered once: the next game does not.
    page.goto("/")
    expect(page.get_by_test_id("tutorial-link")).to_have_attribute("href", "/learn")
    create_from_home(page, "Ann")
    expect(page.get_by_test_id("tutorial-offer")).to_have_count(0)

    # How to play links it.
    page.goto("/how")
    page.get_by_test_id("howto-tutorial").click()
    expect(page.get_by_test_id("tutorial")).to_be_visible()
    expect(page.get_by_test_id("lesson")).to_have_attribute("data-step", "1")
