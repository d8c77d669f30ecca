"""The solver's view on the replay page, in real headless Chromium: a constructed game that
lost its win on a known move shows the bar over the timeline (won, then lost) with the slip
marked and said in words; "Go to the slip" goes there; the solver's line from that step is
drawn on the board move by move, each board the engine's. Screenshots at phone and laptop size."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from race.engine import Game
from race.rooms.standing import board
from tests.support.processes import Client
from tests.support.slips import lost_game
from tests.support.web import BOARD_JS, OUTPUT, Browsing
from tests.support.winning_lines import winning_line

pytestmark = pytest.mark.browser
SERVER_ENV = {"SOLVER_NODE_LIMIT": "0", "ANALYSIS_NODE_LIMIT": "1000000"}
DEAL, DIFFICULTY = 5, "medium"


async def race(ws_url: str, acts: tuple[str, ...]) -> str:
    """Ann plays ``acts`` and resigns, Bob wins: the room's code."""
    ann, bob = await Client.connect(ws_url), await Client.connect(ws_url)
    created = await ann.request({"type": "create", "name": "Ann", "difficulty": DIFFICULTY, "deal": DEAL}, "joined")
    code = str(created["room"]["code"])
    await bob.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    await ann.send({"type": "start"})
    await ann.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    for client, moves in ((ann, acts), (bob, tuple(winning_line(DEAL, DIFFICULTY)))):
        state = await client.started()
        for move in moves:
            state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
            assert state["type"] == "state", state
        if client is ann:
            await ann.send({"type": "resign"})
    await bob.expect("room", where=lambda m: m["room"]["phase"] == "over")
    for c in (ann, bob):
        await c.close()
    return code


def engine_board(acts: list[str]) -> dict[str, Any]:
    game = Game.deal(DEAL, DIFFICULTY)
    for act in acts:
        game.play(act)
    b = board(game)
    return {"piles": b["piles"], "foundations": {k: [f["count"], f["top"]] for k, f in b["foundations"].items()}}


def shown(page: Page) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(BOARD_JS, page.get_by_test_id("replay-game").element_handle())
    return {"piles": state["piles"], "foundations": state["foundations"]}


def test_the_replay_shows_the_solvers_bar_the_slip_and_its_line_from_a_step(browsing: Browsing, server: Any) -> None:
    acts, slip = lost_game(DEAL, DIFFICULTY)
    with ThreadPoolExecutor(1) as pool:  # (the test's own loop is the browser's)
        code = pool.submit(asyncio.run, race(server.ws_url, acts)).result(timeout=120)
    listed = httpx.get(f"{server.url}/api/rooms/{code}/replays").json()["replays"]
    rid = next(g["id"] for g in listed if g["name"] == "Ann")
    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)

    tab = browsing.open("ann", f"/replay/{rid}", still=True)
    page = tab.page
    coach = page.get_by_test_id("coach")
    expect(coach).to_have_attribute("data-ready", "true", timeout=120_000)
    bar = page.get_by_test_id("coach-bar")
    expect(bar.locator(".coach-run")).to_have_count(2)
    expect(bar.locator(".coach-run").nth(0)).to_have_attribute("data-verdict", "win")
    expect(bar.locator(".coach-run").nth(1)).to_have_attribute("data-verdict", "lost")
    expect(page.get_by_test_id("coach-slip")).to_have_attribute("data-step", str(slip))
    expect(page.get_by_test_id("coach-summary")).to_contain_text(f"The win was lost at move {slip + 1}:")
    expect(page.get_by_test_id("coach-summary")).to_contain_text("instead of")

    page.get_by_test_id("coach-goto-slip").click()
    expect(page.get_by_test_id("replay")).to_have_attribute("data-step", str(slip))
    expect(coach).to_have_attribute("data-verdict", "win")
    page.get_by_test_id("coach-show-line").click()
    expect(coach).to_have_attribute("data-line-step", str(slip))
    line = httpx.get(f"{server.url}/api/replays/{rid}/line/{slip}").json()["moves"]
    assert shown(page) == engine_board(list(acts[:slip]))
    for at in (1, 2):
        page.get_by_test_id("coach-line-forward").click()
        expect(coach).to_have_attribute("data-line-at", str(at))
        assert shown(page) == engine_board([*acts[:slip], *line[:at]])
    page.screenshot(path=str(folder / "coach-line-laptop.png"), full_page=True)
    page.get_by_test_id("coach-line-end").click()
    expect(page.get_by_test_id("coach-line-next")).to_contain_text("won")
    assert shown(page) == engine_board([*acts[:slip], *line])
    page.get_by_test_id("coach-line-close").click()
    expect(page.get_by_test_id("coach-line")).to_be_hidden()
    assert shown(page) == engine_board(list(acts[:slip]))
    # A lost step offers no line.
    page.get_by_test_id("replay-forward").click()
    expect(coach).to_have_attribute("data-verdict", "lost")
    expect(page.get_by_test_id("coach-show-line")).to_be_hidden()
    page.screenshot(path=str(folder / "coach-laptop.png"), full_page=True)

    phone = browsing.open("phone", f"/replay/{rid}", phone=True, still=True)
    expect(phone.page.get_by_test_id("coach")).to_have_attribute("data-ready", "true", timeout=60_000)
    phone.page.get_by_test_id("coach-goto-slip").click()
    phone.page.get_by_test_id("coach-show-line").click()
    phone.page.get_by_test_id("coach-line-forward").click()
    phone.page.screenshot(path=str(folder / "coach-phone.png"), full_page=True)
