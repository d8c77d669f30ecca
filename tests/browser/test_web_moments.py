"""The race's moments and its sounds in real headless Chromium: the Web Audio graph is made
at the first gesture, the mute toggle silences it (gain 0, context suspended, no sound
made) and is remembered; a rival finishing is toasted with time and place; race over puts
the podium over the board, and the watch page names the winner at the top.

The graph is inspected through the page's own sound module, never listened to."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.support.players import bob_wins
from tests.support.processes import Server
from tests.support.rooms import create_from_home, solo_race
from tests.support.web import OUTPUT, Browsing

pytestmark = pytest.mark.browser

DEAL, DIFFICULTY = 8, "easy"  # a deal with a checked-in winning line
# The page mirrors its sound module's state() on <html data-sound> (one module instance,
# whether the client is served flattened or one module at a time).
SOUND = "() => JSON.parse(document.documentElement.dataset.sound)"


def until(page: Page, condition: str) -> None:
    """Wait until ``condition`` (JavaScript over the graph's state ``s``) holds."""
    read = "const s = JSON.parse(document.documentElement.dataset.sound);"
    page.wait_for_function(f"() => {{ {read} return {condition}; }}")


def sound(page: Page) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(SOUND)
    return state


def test_the_mute_toggle_silences_the_audio_graph_and_is_remembered(browsing: Browsing) -> None:
    tab = browsing.open("player", "/", still=True)
    page = tab.page
    assert sound(page)["context"] == "none"  # no gesture yet: no audio at all
    solo_race(tab, DIFFICULTY, DEAL)
    board = tab.settled()
    on = sound(page)
    assert on["context"] == "running" and on["gain"] > 0 and not on["muted"], on
    page.get_by_test_id("shuffle").click()
    board = tab.settled(board["version"] + 1)
    assert sound(page)["voices"] > on["voices"]  # the shuffle sounded

    mute = page.get_by_test_id("mute")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    until(page, "s.context === 'suspended'")
    off = sound(page)
    assert off["muted"] and off["gain"] == 0, off
    page.get_by_test_id("shuffle").click()
    tab.settled(board["version"] + 1)
    assert sound(page)["voices"] == off["voices"]  # nothing was made

    page.reload()  # remembered
    expect(page.get_by_test_id("mute")).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("board").click(position={"x": 2, "y": 2})  # a gesture
    until(page, "s.context !== 'none'")
    again = sound(page)
    assert again["muted"] and again["gain"] == 0 and again["context"] == "suspended", again

    page.get_by_test_id("mute").click()
    expect(page.get_by_test_id("mute")).to_have_attribute("aria-pressed", "false")
    until(page, "s.context === 'running' && s.gain > 0")


def test_a_card_with_no_move_is_refused_with_a_sound(browsing: Browsing) -> None:
    tab = browsing.open("player", "/", still=True)
    page = tab.page
    solo_race(tab, DIFFICULTY, DEAL)
    board = tab.settled()
    sources = {move.split(">")[0] for move in board["legal"] if ">" in move}
    stuck = next(i for i, pile in enumerate(board["piles"]) if pile and f"p{i}" not in sources)
    before = sound(page)["voices"]
    page.locator(f'[data-testid=board] [data-pile="{stuck}"] .card[data-top]').click()
    expect(page.locator(f'[data-testid=board] [data-pile="{stuck}"]')).to_have_class(re.compile(r"\bnope\b"))
    until(page, f"s.voices === {before + 1}")
    assert tab.sent_types("move") == []  # nothing was sent


def test_a_rival_finishing_is_toasted_and_race_over_shows_the_podium_and_the_winner(
    browsing: Browsing, server: Server
) -> None:
    alice = browsing.open("alice", "/", still=True)
    page = alice.page
    code = create_from_home(page, "Alice", difficulty=DIFFICULTY, deal=DEAL)
    watcher = browsing.open("watcher", f"/watch/{code}", phone=True)
    with ThreadPoolExecutor(1) as pool:
        bob = pool.submit(asyncio.run, bob_wins(server.ws_url, code))
        expect(page.locator("[data-testid=lobby-player][data-seat=s2]")).to_have_attribute("data-ready", "true")
        page.get_by_test_id("start").click()
        finished_ms = bob.result(timeout=60)
    # (among the race's other moments: Bob taking the lead, his last cards)
    toast = page.get_by_test_id("moment-toast").filter(has_text="Bob finished")
    expect(toast).to_contain_text("Bob finished")
    expect(toast).to_contain_text("1st")
    seconds = finished_ms // 1000
    expect(toast).to_contain_text(f"{seconds // 60}:{seconds % 60:02d}")

    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    podium = page.get_by_test_id("podium-over")
    expect(podium).to_be_visible()
    expect(podium).to_contain_text("Bob wins!")
    expect(podium.locator("[data-testid=podium-step][data-place='1']")).to_contain_text("Bob")
    expect(podium.locator("[data-testid=podium-step][data-place='2']")).to_contain_text("Alice")
    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "podium-laptop.png"))

    # The watch page on a phone: the winner at the top, on the first screen.
    winner = watcher.page.get_by_test_id("winner")
    expect(winner).to_have_text("Bob wins!")
    box = winner.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844, box
    watcher.page.screenshot(path=str(folder / "watch-phone.png"))

    # One race-over panel: the podium is the ranking's head, and the result is told nowhere else.
    panel = page.get_by_test_id("race-over")
    expect(panel).to_have_count(1)
    expect(panel.get_by_test_id("podium-over")).to_be_visible()
    expect(panel.get_by_test_id("ranking")).to_be_visible()
    expect(page.get_by_test_id("podium")).to_have_count(1)
    expect(page.get_by_test_id("ranking")).to_have_count(1)
    expect(page.get_by_test_id("won-banner")).to_have_count(0)
    expect(page.get_by_test_id("over-banner")).to_have_count(1)
    # Bob's time: on his podium step and in his ranking row, both in the panel, and nowhere else.
    time_text = panel.locator("[data-testid=ranking-row][data-place='1'] [data-testid=result]").inner_text()
    assert page.get_by_test_id("race").inner_text().count(time_text) == 2
