""" "Play on from here" on the replay page, in real headless Chromium: at a chosen step of a
game on the record it opens a practice room whose board is the engine's after that many
actions; the room (and its watch page) says it is practice from that move of whose game; a
move and a restart come back to that position. Screenshots of the replay and the practice
room at phone (390x844) and laptop (1366x768) size."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from playwright.sync_api import ViewportSize, expect

from race.engine import Game
from race.rooms.standing import board
from tests.support.processes import Server
from tests.support.races import ann_wins_bob_resigns
from tests.support.web import OUTPUT, Browsing

pytestmark = pytest.mark.browser
SERVER_ENV = {"COUNTDOWN_SECONDS": "0.2", "SOLVER_NODE_LIMIT": "0", "ANALYSIS_NODE_LIMIT": "0"}
STEP = 30
LAPTOP: ViewportSize = {"width": 1366, "height": 768}


async def raced(server: Server) -> tuple[str, dict[str, Any]]:
    r = await ann_wins_bob_resigns(server)
    await r.close()
    return r.code, r.line


def engine_board(line: dict[str, Any], n: int) -> dict[str, Any]:
    game = Game.deal(line["deal"], line["difficulty"])
    for move in line["moves"][:n]:
        game.play(move)
    b = board(game)
    return {"piles": b["piles"], "foundations": {k: [f["count"], f["top"]] for k, f in b["foundations"].items()}}


def test_play_on_from_a_step_opens_a_practice_room_on_that_position(browsing: Browsing, server: Server) -> None:
    with ThreadPoolExecutor(1) as pool:  # (the test's own loop is the browser's)
        code, line = pool.submit(asyncio.run, raced(server)).result(timeout=120)
    listed = httpx.get(f"{server.url}/api/rooms/{code}/replays").json()["replays"]
    rid = next(g["id"] for g in listed if g["name"] == "Ann")
    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)

    for size, phone in (("laptop", False), ("phone", True)):
        tab = browsing.open(size, f"/replay/{rid}", phone=phone, still=True)
        page = tab.page
        if not phone:
            page.set_viewport_size(LAPTOP)
        replay = page.get_by_test_id("replay")
        expect(replay).to_have_attribute("data-step", "0")
        # Forward, a step at a time, to STEP.
        shown = 0
        while shown < STEP:
            page.get_by_test_id("replay-forward").click()
            expect(replay).not_to_have_attribute("data-step", str(shown))
            shown = int(replay.get_attribute("data-step") or 0)
        step = shown
        expected = engine_board(line, step)
        play_on = page.get_by_test_id("play-on")
        expect(play_on).to_have_text("Play on from here")
        expect(play_on).to_have_attribute("title", re.compile(f"move {step}"))
        page.get_by_test_id("ghost-name").fill("Cat")
        page.screenshot(path=str(folder / f"replay-{size}.png"), full_page=True)

        play_on.click()
        expect(page).to_have_url(re.compile(r"/r/[A-Z0-9]+$"))
        note = page.get_by_test_id("practice-note")
        expect(note).to_contain_text(f"Practice from move {step} of Ann\u2019s game.")
        expect(page.get_by_test_id("practice-game")).to_have_attribute("href", f"/replay/{rid}")
        if not phone:  # one player's room: no race to name, no host to mark
            expect(page.get_by_test_id("side-title")).to_have_text("Practice")
            expect(page.locator(".tag", has_text="host")).to_have_count(0)
        state = tab.settled()
        assert {"piles": state["piles"], "foundations": state["foundations"]} == expected
        create = tab.sent_types("create")[-1]
        assert create["from"] == {"replay": rid, "step": step} and "piles" not in create  # the server's position
        page.screenshot(path=str(folder / f"practice-{size}.png"), full_page=True)

        if not phone:  # a spectator's page says it too
            code = page.url.rsplit("/", 1)[1]
            watcher = browsing.open("watcher", f"/watch/{code}", still=True)
            expect(watcher.page.get_by_test_id("practice-note")).to_contain_text(f"Practice from move {step} of Ann")
            watcher.page.close()
        if not phone:  # a move, then restart: back at that move, not the deal
            moved = tab.play_by_drag(line["moves"][step], state)
            assert moved["piles"] != state["piles"] or moved["foundations"] != state["foundations"]
            page.get_by_test_id("restart").click()
            expect(page.get_by_test_id("restart")).to_have_text("Really restart?")
            page.get_by_test_id("restart").click()
            back = tab.settled(moved["version"] + 1)
            assert {"piles": back["piles"], "foundations": back["foundations"]} == expected
            # Resigned, its replay says it is practice from that move and offers no ghost race.
            page.get_by_test_id("resign").click()
            page.get_by_test_id("resign").click()
            expect(page.get_by_test_id("resigned-banner")).to_be_visible()
            code = page.url.rsplit("/", 1)[1]
            (kept,) = httpx.get(f"{server.url}/api/rooms/{code}/replays").json()["replays"]
            page.goto(f"{server.url}/replay/{kept['id']}")
            expect(page.get_by_test_id("replay")).to_contain_text(f"practice from move {step} of Ann")
            expect(page.get_by_test_id("race-ghost")).to_have_count(0)
            expect(page.get_by_test_id("play-on")).to_be_visible()
        assert not tab.errors, tab.errors
