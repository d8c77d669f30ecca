"""Ratings among friends on the page: beside each name in the lobby, with each change in the
race's ranking (a player's and a spectator's), on /me as a chart of its history, and the friends' board; on a phone
(390x844) and a laptop (1366x768), with a screenshot of each view kept under
test-output/<test>/."""

from __future__ import annotations

import asyncio
import json
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from playwright.sync_api import ViewportSize
from websockets.sync.client import ClientConnection, connect

from tests.support.processes import TIMEOUT, Server
from tests.support.races import ann_wins_bob_resigns
from tests.support.rooms import more_options
from tests.support.web import OUTPUT, Browsing, Tab, expect
from tests.support.winning_lines import first_winning_line

SIZES: dict[str, ViewportSize] = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768}}
DEVICE = "crescent-race.device"  # web/device.js


def seed(server: Server, ann_key: str, bob_key: str, races: int) -> None:
    """``races`` races between Ann and Bob over websockets, Ann winning each, rated."""

    async def run() -> None:
        for _ in range(races):
            raced = await ann_wins_bob_resigns(server, ann={"device": ann_key}, bob={"device": bob_key})
            await raced.close()

    with ThreadPoolExecutor(1) as pool:  # (the browser's sync API owns this thread's loop)
        pool.submit(asyncio.run, run()).result()


class Bob:
    """Bob on a plain websocket, with his device key: joins a room, and wins its race."""

    def __init__(self, ws: ClientConnection, code: str, key: str) -> None:
        self.ws = ws
        self.expect("hello")
        ws.send(json.dumps({"type": "join", "room": code, "name": "Bob", "device": key}))
        self.state: dict[str, Any] = self.expect("joined")["state"]

    def expect(self, kind: str, phase: str | None = None) -> dict[str, Any]:
        while True:
            m: dict[str, Any] = json.loads(self.ws.recv(timeout=TIMEOUT))
            assert m.get("type") != "error", m
            if m.get("type") == kind and (phase is None or m["room"]["phase"] == phase):
                return m

    def win(self, moves: list[str]) -> None:
        self.expect("room", phase="racing")
        self.ws.send(json.dumps({"type": "sync"}))  # (no board reaches anyone before the start)
        self.state = self.expect("state")
        for n, move in enumerate(moves):
            self.ws.send(json.dumps({"type": "move", "move": move, "version": self.state["version"], "id": f"b{n}"}))
            self.state = self.expect("state")
        assert self.state["won"]


def with_key(browsing: Browsing, name: str, key: str, size: str, path: str = "/") -> Tab:
    """A tab of this device (its key in the page's storage) at ``size``."""
    tab = browsing.open(name, "/", phone=size == "phone", still=True)
    tab.page.set_viewport_size(SIZES[size])
    tab.page.evaluate("([k, v]) => localStorage.setItem(k, v)", [DEVICE, key])
    tab.page.goto(path)
    return tab


def shot(browsing: Browsing, tab: Tab, size: str, view: str) -> None:
    """Keep the page as it looks (the whole page) under test-output/<test>/."""
    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(folder / f"{size}-{view}.png"), full_page=True)


@pytest.mark.parametrize("size", list(SIZES))
def test_ratings_in_the_lobby_the_ranking_me_and_the_friends_board(
    browsing: Browsing, server: Server, size: str
) -> None:
    ann_key, bob_key = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    seed(server, ann_key, bob_key, races=2)
    line = first_winning_line()

    # The lobby: each name with its rating, provisional ("?") after two races.
    ann = with_key(browsing, "ann", ann_key, size)
    page = ann.page
    page.get_by_test_id("create-name").fill("Ann")
    more_options(page)
    page.get_by_test_id("create-difficulty").select_option(line["difficulty"])
    page.get_by_test_id("create-deal").fill(str(line["deal"]))
    page.get_by_test_id("create-submit").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    code = page.get_by_test_id("room-code").inner_text()
    with connect(server.ws_url, max_size=2**22, max_queue=None) as ws:
        bob = Bob(ws, code, bob_key)
        chips = page.get_by_test_id("lobby-player").get_by_test_id("rating")
        expect(chips).to_have_count(2)
        ann_chip = page.locator("[data-testid=lobby-player][data-seat=s1] [data-testid=rating]")
        bob_chip = page.locator("[data-testid=lobby-player][data-seat=s2] [data-testid=rating]")
        ann_rating, bob_rating = (
            int(ann_chip.get_attribute("data-rating") or 0),
            int(bob_chip.get_attribute("data-rating") or 0),
        )
        assert ann_rating > 1500 > bob_rating
        expect(ann_chip).to_have_text(f"{ann_rating}?")
        expect(bob_chip).to_have_text(f"{bob_rating}?")
        shot(browsing, ann, size, "lobby")

        # The race: Bob wins it, Ann resigns; the ranking shows each rating and its change.
        page.get_by_test_id("start").click()
        bob.win(line["moves"])
        page.get_by_test_id("resign").click()
        page.get_by_test_id("resign").click()
        ranking = page.get_by_test_id("ranking")
        expect(ranking.get_by_test_id("rating-change")).to_have_count(2)
        bob_row = ranking.locator("[data-testid=ranking-row][data-place='1']")
        ann_row = ranking.locator("[data-testid=ranking-row][data-place='2']")
        expect(bob_row).to_contain_text("Bob")
        bob_change = int(bob_row.get_by_test_id("rating-change").get_attribute("data-change") or 0)
        ann_change = int(ann_row.get_by_test_id("rating-change").get_attribute("data-change") or 0)
        assert bob_change > 0 > ann_change
        expect(bob_row.get_by_test_id("rating-change")).to_have_text(f"▲{bob_change}")
        expect(ann_row.get_by_test_id("rating-change")).to_have_text(f"▼{-ann_change}")
        expect(ann_row.get_by_test_id("rating")).to_have_text(f"{ann_rating + ann_change}?")
        if size == "phone":
            page.get_by_test_id("ranking-title").scroll_into_view_if_needed()
        shot(browsing, ann, size, "ranking")

    # A spectator sees the same changes under the race's ranking.
    watcher = with_key(browsing, "watcher", secrets.token_urlsafe(24), size, f"/watch/{code}")
    watched = watcher.page.get_by_test_id("ranking")
    expect(watched.get_by_test_id("rating-change")).to_have_count(2)
    expect(watched.locator("[data-testid=ranking-row][data-place='1'] [data-testid=rating-change]")).to_have_text(
        f"▲{bob_change}"
    )

    # /me: the rating with its chart (the start and three races), and the friends' board.
    page.goto("/me")
    panel = page.get_by_test_id("me-rating")
    expect(panel.get_by_test_id("rating")).to_have_text(f"{ann_rating + ann_change}?")
    chart = panel.get_by_test_id("rating-chart")
    expect(chart).to_have_attribute("data-points", "4")
    box = chart.bounding_box()
    assert box is not None and 0 < box["width"] <= SIZES[size]["width"] and box["height"] > 40
    expect(chart.locator("circle")).to_have_count(3)
    shot(browsing, ann, size, "me")
    page.get_by_test_id("friends-link").click()
    board = page.get_by_test_id("friends-board")
    expect(board).to_be_in_viewport()
    friend = board.get_by_test_id("friend")
    expect(friend).to_have_count(1)
    expect(friend).to_contain_text("Bob")
    expect(friend.get_by_test_id("friend-wins")).to_have_text("2")
    expect(friend.get_by_test_id("friend-losses")).to_have_text("1")
    expect(friend.get_by_test_id("rating")).to_have_text(f"{bob_rating + bob_change}?")
    expect(board.get_by_test_id("friends-me")).to_contain_text("Ann")
    shot(browsing, ann, size, "friends")
