"""Hints in real headless Chromium: the room's rule in the lobby, the Hint button's cost
before it is pressed, the count beside the player, and the words when no move leads
anywhere new (with the way out lit). Screenshots of each view at phone (390x844) and laptop
(1366x768) sizes under test-output/hints/."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

from race.engine import Game
from race.engine.hints import UNDO_OUT, advise, position_hash
from tests.support.processes import Client, Server
from tests.support.web import OUTPUT, Browsing, Tab

pytestmark = pytest.mark.browser

SERVER_ENV = {"HINT_PENALTY_SECONDS": "15"}
SIZES = {"phone": (390, 844), "laptop": (1366, 768)}
DEAL, DIFFICULTY = 1, "medium"  # where the rule book's hint alone goes round in circles


def shoot(tab: Tab, label: str) -> None:
    folder = OUTPUT / "hints"
    folder.mkdir(parents=True, exist_ok=True)
    before = tab.page.viewport_size
    for size, (width, height) in SIZES.items():
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.page.screenshot(path=str(folder / f"{label}-{size}.png"), full_page=True)
    if before:
        tab.page.set_viewport_size(before)


def create(tabs: Browsing, hints: str | None = None) -> tuple[Tab, str]:
    """Ann makes a room on medium deal 1 on the home page (``hints``: the form's choice)."""
    tab = tabs.open("ann", "/", still=True)
    page = tab.page
    page.get_by_test_id("create-name").fill("Ann")
    page.get_by_test_id("create-difficulty").select_option(DIFFICULTY)
    page.get_by_test_id("create-deal").fill(str(DEAL))
    if hints is not None:
        page.get_by_test_id("create-hints").select_option(hints)
    page.get_by_test_id("create-submit").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    code = page.get_by_test_id("room").get_attribute("data-code")
    assert code
    return tab, code


def dead_end() -> list[str]:
    """The actions, following the hint and its way out, up to the first position where no
    move leads anywhere new (the way out is undo)."""
    game = Game.deal(DEAL, DIFFICULTY)
    seen = {position_hash(game)}
    actions: list[str] = []
    while True:
        advice = advise(game, seen)
        if advice.way_out == UNDO_OUT:
            return actions
        assert advice.move is not None
        actions.append(str(game.play(advice.move)))
        seen.add(position_hash(game))


async def play_elsewhere(ws_url: str, code: str, token: str, actions: list[str]) -> None:
    """Play ``actions`` on the seat of ``token`` from another connection (the page is told
    its seat was opened elsewhere)."""
    client = await Client.connect(ws_url)
    try:
        joined = await client.request({"type": "resume", "room": code, "token": token}, "joined")
        assert joined["type"] == "joined", joined
        state = joined["state"]
        for move in actions:
            state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
            assert state["type"] == "state", state
    finally:
        await client.close()


def test_the_hint_button_says_its_cost_and_a_dead_end_is_said_in_words(browsing: Browsing, server: Server) -> None:
    tab, code = create(browsing)
    page = tab.page
    lobby_rule = page.get_by_test_id("lobby-hints")
    expect(lobby_rule).to_have_text("Each hint adds 15 s to the finish time the ranking uses.")
    shoot(tab, "lobby")
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    hint = page.get_by_test_id("hint")
    expect(hint).to_have_text("Hint +15 s")  # before it is pressed
    expect(hint).to_have_attribute("title", "Hint (H): each hint adds 15 s to your finish time")
    expect(hint).to_be_enabled()
    hint.click()
    expect(page.get_by_test_id("hint-text")).to_have_text(re.compile(r"^Hint: "))
    expect(page.get_by_test_id("hint-text")).to_have_attribute("data-way-out", "")
    expect(page.locator("[data-testid=progress-s1] [data-testid=hints]")).to_have_text("1 hint")
    shoot(tab, "race-hint")

    # The game brought to a dead end from another connection of the seat; the page plays here again.
    token = page.evaluate(f"localStorage.getItem('crescent-race.token.{code}')")
    actions = dead_end()
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, play_elsewhere(server.ws_url, code, token, actions)).result()
    expect(page.get_by_test_id("kicked-banner")).to_be_visible()
    page.get_by_test_id("kicked-banner").get_by_role("button").click()
    expect(page.get_by_test_id("move-count")).to_have_text(str(len(actions)))
    page.keyboard.press("h")
    words = page.get_by_test_id("hint-text")
    expect(words).to_have_text("No move leads anywhere new: undo your last move.")
    expect(words).to_have_attribute("data-way-out", "undo")
    expect(page.get_by_test_id("undo")).to_have_class(re.compile(r"\bhint\b"))  # the way out, lit
    expect(page.locator("[data-testid=progress-s1] [data-testid=hints]")).to_have_text("2 hints")
    shoot(tab, "no-progress")
    page.get_by_test_id("undo").click()
    expect(words).to_have_text("")  # (the board moved on: the old hint goes)
    page.keyboard.press("h")
    expect(words).not_to_have_text("")
    expect(words).not_to_have_attribute("data-move", actions[-1])  # not the move just backed out of


def test_a_room_without_hints_has_no_hint_button(browsing: Browsing) -> None:
    tab, _ = create(browsing, "off")
    page = tab.page
    expect(page.get_by_test_id("lobby-hints")).to_have_text("Hints are off in this race.")
    expect(page.get_by_text(re.compile(r"medium · known deal 1 · no hints"))).to_be_visible()
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(page.get_by_test_id("hint")).to_be_hidden()
    page.keyboard.press("h")  # (the key asks nothing either)
    expect(page.get_by_test_id("hint-text")).to_have_text("")
    shoot(tab, "no-hints")
