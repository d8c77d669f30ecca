"""Hints in real headless Chromium: the room's rule in the lobby, the Hint button's cost
before it is pressed, the count beside the player, and the words when no move leads
anywhere new (with the way out lit). Screenshots of each view at phone (390x844) and laptop
(1366x768) sizes under test-output/hints/."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from playwright.sync_api import expect

from race.daily import choose_deal
from race.engine import Game
from race.engine.hints import UNDO_OUT, advise, position_hash
from tests.support.processes import DAILY_SECRET, Client, Server
from tests.support.rooms import more_options
from tests.support.web import OUTPUT, Browsing, Tab
from tests.support.winning_lines import first_winning_line

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
    more_options(page)
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


async def hinted_race(ws_url: str, line: dict[str, Any]) -> str:
    """Ann (two hints) and Bob (none) race the line over websockets; Ann finishes first.
    The room's code."""
    ann, bob = await Client.connect(ws_url), await Client.connect(ws_url)
    try:
        create = {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"]}
        created = await ann.request(create, "joined")
        code = created["room"]["code"]
        await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
        await ann.send({"type": "start"})
        await ann.expect("room", where=lambda m: m["room"]["phase"] == "racing")
        for player, hints in ((ann, 2), (bob, 0)):
            state = await player.started()
            for i, move in enumerate(line["moves"]):
                if i < hints:
                    await player.send({"type": "hint"})
                    state = await player.expect("state")
                    await player.expect("hint")
                state = await player.request({"type": "move", "move": move, "version": state["version"]}, "state")
                assert state["type"] == "state", state
        await bob.expect("room", where=lambda m: m["room"]["phase"] == "over")
        return str(code)
    finally:
        for c in (ann, bob):
            await c.close()


async def assisted_daily(ws_url: str) -> dict[str, Any]:
    """Today's easy deal won over a websocket after one hint; the `joined` reply."""
    client = await Client.connect(ws_url)
    try:
        joined = await client.request({"type": "daily", "name": "Helped", "difficulty": "easy"}, "joined")
        assert joined["type"] == "joined", joined
        _, line = choose_deal(joined["daily"]["date"], "easy", 200_000, DAILY_SECRET)
        state = joined["state"]
        for i, move in enumerate(line):
            if i == 1:
                await client.send({"type": "hint"})
                state = await client.expect("state")
                await client.expect("hint")
            state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
            assert state["type"] == "state", state
        assert state["won"] and state["hints"] == 1
        return joined
    finally:
        await client.close()


def test_the_ranking_shows_the_penalty_beside_the_time(browsing: Browsing, server: Server) -> None:
    line = first_winning_line()
    with ThreadPoolExecutor(1) as pool:
        code = pool.submit(asyncio.run, hinted_race(server.ws_url, line)).result()
    tab = browsing.open("watcher", f"/watch/{code}")
    page = tab.page
    rows = page.get_by_test_id("ranking").get_by_test_id("ranking-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Bob")
    expect(rows.nth(1)).to_contain_text("Ann")
    note = rows.nth(1).get_by_test_id("result-hints")
    expect(note).to_have_text(re.compile(r"^\s*\+30 s, 2 hints$"))
    expect(note).to_have_attribute("title", re.compile(r"^ranked as \d+:\d\d\.\d$"))
    expect(rows.nth(0).get_by_test_id("result-hints")).to_have_count(0)
    # The podium gives the time the ranking used (the hints in its title).
    ann = page.locator("[data-testid=podium-step][data-seat=s1] .result")
    expect(ann).to_have_attribute("title", "+30 s, 2 hints")
    expect(ann).to_have_text(re.compile(r"^0:3\d\.\d$"))
    shoot(tab, "ranking")


def test_an_assisted_daily_win_is_shown_apart(browsing: Browsing, server: Server) -> None:
    with ThreadPoolExecutor(1) as pool:
        joined = pool.submit(asyncio.run, assisted_daily(server.ws_url)).result()
    tab = browsing.open("player", "/daily")
    page = tab.page
    page.evaluate("t => localStorage.setItem('crescent.daily.token', t)", joined["token"])
    page.reload()
    board = page.get_by_test_id("today-board")
    expect(board).to_have_attribute("data-state", "ready")
    expect(board.get_by_test_id("ranking-row")).to_have_count(0)  # not ranked
    listed = board.get_by_test_id("assisted")
    expect(listed).to_contain_text("Not ranked: 1 win with hints")
    listed.locator("summary").click()
    entry = listed.get_by_test_id("assisted-entry")
    expect(entry.locator(".name")).to_have_text("Helped")
    expect(entry.locator(".why")).to_have_text("won with 1 hint")
    expect(page.get_by_test_id("my-rank")).to_contain_text("not ranked (won with 1 hint)")
    shoot(tab, "daily-assisted")

    # An attempt's Hint button says what a hint costs on the daily: the win is not ranked.
    page.get_by_test_id("daily-name").fill("Helped")
    page.get_by_test_id("daily-play").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(page.get_by_test_id("hint")).to_have_text("Hint (unranked)")
    expect(page.get_by_test_id("hint")).to_have_attribute("title", re.compile("shown apart from the ranked results"))
    shoot(tab, "daily-attempt")


def test_how_to_play_says_the_hint_rules(browsing: Browsing) -> None:
    tab = browsing.open("how", "/how", phone=True)
    rules = tab.page.get_by_test_id("howto-hints")
    expect(rules).to_contain_text("never takes you back to a position you have already had")
    expect(rules).to_contain_text("a shuffle if one is left, else undo")
    expect(rules).to_contain_text("a win with a hint is shown apart, unranked")
    expect(tab.page.get_by_text("counting what its hints added")).to_be_visible()
    rules.scroll_into_view_if_needed()
    folder = OUTPUT / "hints"
    folder.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(folder / "howto-phone.png"))
