"""Rooms over several rounds in real headless Chromium: an arena made on the home page, its
standings after a round, the rematch offer seen on the rival's page with the results still
there, and accepted; a match's winner named over the board. Screenshots of each view at
phone (390x844, 844x390) and laptop (1366x768) sizes under test-output/series/."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Page, expect

from tests.support.processes import Client
from tests.support.rooms import more_options
from tests.support.web import OUTPUT, Browsing, Tab
from tests.support.winning_lines import winning_line

pytestmark = pytest.mark.browser

SIZES = {"phone": (390, 844), "sideways": (844, 390), "laptop": (1366, 768)}
DEAL, DIFFICULTY = 8, "easy"  # a deal with a checked-in winning line


def shoot(tab: Tab, label: str) -> None:
    folder = OUTPUT / "series"
    folder.mkdir(parents=True, exist_ok=True)
    before = tab.page.viewport_size
    for size, (width, height) in SIZES.items():
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.page.screenshot(path=str(folder / f"{label}-{size}.png"), full_page=True)
    if before:
        tab.page.set_viewport_size(before)


def create(tabs: Browsing, name: str, fmt: str, *, deal: int | None = None) -> tuple[Tab, str]:
    """``name`` makes a room on the home page, played as ``fmt`` ("arena:3", "match:1")."""
    tab = tabs.open("host", "/", still=True)
    page = tab.page
    page.get_by_test_id("create-name").fill(name)
    more_options(page)
    page.get_by_test_id("create-difficulty").select_option(DIFFICULTY)
    if deal is not None:
        page.get_by_test_id("create-deal").fill(str(deal))
    page.get_by_test_id("create-format").select_option(fmt)
    page.get_by_test_id("create-submit").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    code = page.get_by_test_id("room").get_attribute("data-code")
    assert code
    return tab, code


def resign(page: Page) -> None:
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()


def test_an_arena_shows_its_standings_and_the_offer_is_seen_and_accepted(browsing: Browsing) -> None:
    host, code = create(browsing, "Ann", "arena:3")
    ap = host.page
    expect(ap.get_by_test_id("series-title")).to_have_text("Arena, round 1 of 3")
    expect(ap.get_by_test_id("standings")).to_have_count(0)  # nothing to stand on yet
    expect(ap.get_by_test_id("host-line")).to_have_text("You host this room.")
    bob = browsing.open("bob", f"/r/{code}", phone=True)
    bp = bob.page
    bp.get_by_test_id("join-name").fill("Bob")
    bp.get_by_test_id("join-room").tap()
    expect(bp.get_by_test_id("host-line")).to_have_text("Ann hosts this room.")
    watcher = browsing.open("watcher", f"/watch/{code}")
    ap.get_by_test_id("start").click()
    expect(bp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    # Bob shuffles once (a move: among equal cards, fewer moves rank higher); both resign.
    bob.settled()
    bp.keyboard.press("s")
    expect(bp.get_by_test_id("move-count")).to_have_text("1")
    resign(bp)
    resign(ap)
    expect(ap.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    for page in (ap, bp):
        side = page.get_by_test_id("race-side")
        expect(side.get_by_test_id("series-title")).to_have_text("Arena, round 1 of 3")
        rows = side.locator("[data-testid=standings] [data-testid=standing]")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_have_attribute("data-points", "10")
        expect(rows.nth(0)).to_contain_text("Ann")
        expect(rows.nth(1)).to_have_attribute("data-points", "7")
        expect(side.get_by_test_id("arena-points")).to_contain_text("10 / 7 / 5 / 3 / 2 / 1")
    shoot(host, "arena-standings")
    # A spectator sees the standings too.
    watched = watcher.page.get_by_test_id("series")
    expect(watched.get_by_test_id("series-title")).to_have_text("Arena, round 1 of 3")
    expect(watched.locator("[data-testid=standing][data-place='1']")).to_contain_text("Ann")

    # Ann offers the next round: Bob sees it on his results, which stay, until he says yes.
    ap.get_by_test_id("rematch").click()
    expect(ap.get_by_test_id("offer-text")).to_have_text("You offered the next round.")
    expect(ap.get_by_test_id("offer-waiting")).to_have_text("Waiting for Bob to answer.")
    expect(bp.get_by_test_id("offer-text")).to_have_text("Ann offers the next round.")
    expect(bp.get_by_test_id("toast").last).to_have_text("Ann offers the next round.")  # (above the board)
    expect(bp.get_by_test_id("ranking")).to_be_visible()
    expect(bp.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    shoot(bob, "offer-seen")
    shoot(host, "offer-made")
    bp.get_by_test_id("offer-accept").tap()
    for page in (ap, bp):
        expect(page.get_by_test_id("lobby")).to_be_visible()
        expect(page.get_by_test_id("lobby").get_by_test_id("series-title")).to_have_text("Arena, round 2 of 3")
        expect(page.locator("[data-testid=lobby] [data-testid=standing]")).to_have_count(2)
    expect(bp.get_by_test_id("lobby").get_by_test_id("host-line")).to_have_text("Ann hosts this room.")
    shoot(bob, "arena-lobby")


async def bob_wins(ws_url: str, code: str) -> None:
    """Bob joins ``code`` over a websocket, gets ready, and wins the checked-in line."""
    client = await Client.connect(ws_url)
    try:
        joined = await client.request({"type": "join", "room": code, "name": "Bob"}, "joined")
        assert joined["type"] == "joined", joined
        await client.send({"type": "ready", "ready": True})
        await client.expect("room", where=lambda m: m["room"]["phase"] == "racing", timeout=30)
        state = joined["state"]
        for move in winning_line(DEAL, DIFFICULTY):
            state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
            assert state["type"] == "state", state
        assert state["won"], state
        await client.expect("room", where=lambda m: m["room"]["phase"] == "over", timeout=30)
    finally:
        await client.close()


def test_a_match_names_its_winner_over_the_board(browsing: Browsing) -> None:
    host, code = create(browsing, "Ann", "match:1", deal=DEAL)
    ap = host.page
    with ThreadPoolExecutor(1) as pool:
        bob = pool.submit(asyncio.run, bob_wins(browsing_ws(browsing), code))
        expect(ap.locator("[data-testid=lobby-player][data-seat=s2]")).to_have_attribute("data-ready", "true")
        expect(ap.get_by_test_id("series-title")).to_have_text("Match, first to 1 win · round 1")
        ap.get_by_test_id("start").click()
        expect(ap.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
        resign(ap)
        bob.result(timeout=60)
    expect(ap.get_by_test_id("series-champion")).to_have_text("Bob wins the match!")
    expect(ap.locator("[data-testid=podium-over] [data-testid=podium-step][data-place='1']")).to_contain_text("1 win")
    shoot(host, "match-won")
    expect(ap.get_by_test_id("race-side").get_by_test_id("series-winner")).to_have_text("Bob wins the match!")
    expect(ap.get_by_test_id("rematch")).to_have_text("Offer a new match")

    # On /me, the match on the record: what it was, Ann's place, everyone's wins.
    mine = browsing.another(host, "me", "/me")
    item = mine.page.get_by_test_id("me-series")
    expect(item).to_have_attribute("data-room", code)
    expect(item).to_contain_text("Match, first to 1 win")
    expect(item).to_contain_text("you placed 2nd of 2")
    expect(item).to_contain_text("Bob 1 win · Ann 0 wins")
    shoot(mine, "me-series")


def browsing_ws(browsing: Browsing) -> str:
    return browsing.base_url.replace("http://", "ws://") + "/ws"


def test_how_to_play_says_the_match_and_arena_rules(browsing: Browsing) -> None:
    tab = browsing.open("how", "/how", phone=True)
    rules = tab.page.get_by_test_id("howto-series")
    expect(rules).to_contain_text("first to 1, 2, 3 or 4 wins")
    expect(rules).to_contain_text("10, 7, 5, 3, 2 and 1 points")
    rules.scroll_into_view_if_needed()
    folder = OUTPUT / "series"
    folder.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(folder / "howto-phone.png"))
