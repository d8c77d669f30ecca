"""The pages' layout in real headless Chromium, measured: nothing wider than a phone's
screen, nothing cut off, the whole board on a laptop's screen whatever banner is shown.

Phones are emulated at 390x844 and 320x640 (the narrowest phones in use). A mobile
Chromium widens its layout viewport to fit content that sticks out (``innerWidth`` then
grows with the page), so widths are checked against the width the page was given.
"""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from playwright.sync_api import ViewportSize, expect

from race.engine import Game
from tests.support.players import win_the_daily
from tests.support.processes import Server
from tests.support.rooms import create_from_home, start_solo
from tests.support.web import Browsing, Tab

pytestmark = pytest.mark.browser

NODE_LIMIT = 200_000
LONG = "W" * 20  # the longest name the server takes, in the widest letter
OTHER = "M" * 20
PHONES: dict[int, ViewportSize] = {320: {"width": 320, "height": 640}, 390: {"width": 390, "height": 844}}


SERVER_ENV = {"DAILY_NODE_LIMIT": str(NODE_LIMIT)}  # the memory store: its daily boards are its own


def phone(tabs: Browsing, name: str, path: str, width: int) -> Tab:
    """A touch phone ``width`` pixels wide (320 or 390)."""
    tab = tabs.open(name, path, phone=True)
    tab.page.set_viewport_size(PHONES[width])
    return tab


# Everything that sticks out of the page's width, and every player name cut off by its box
# (the one-line rivals summary ellipsizes names on purpose: not counted here).
OVERFLOW_JS = """(width) => {
  const seen = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const outside = [...document.querySelectorAll("body *")].filter((e) => {
    if (!seen(e) || e.closest(".sr-only, .card.ghost")) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.left < -0.5 || r.right > width + 0.5);
  });
  const boxed = (e) => getComputedStyle(e).display !== "inline"; // an inline box has no scrollWidth
  const cut = [...document.querySelectorAll(".name")].filter(
    (e) => seen(e) && boxed(e) && !e.closest(".rivals") && e.scrollWidth > e.clientWidth + 0.5);
  const what = (e) => `${e.tagName.toLowerCase()}.${[...e.classList].join(".")} ${e.textContent.slice(0, 24)}`;
  const scrollWidth = document.documentElement.scrollWidth;
  return { scrollWidth, outside: outside.slice(0, 8).map(what), cut: cut.map(what) };
}"""


def assert_fits_width(tab: Tab, where: str) -> None:
    size = tab.page.viewport_size
    assert size is not None
    found: dict[str, Any] = tab.page.evaluate(OVERFLOW_JS, size["width"])
    assert found["scrollWidth"] <= size["width"], f"{tab.name} ({where}): the page is {found['scrollWidth']} px wide"
    assert not found["outside"], f"{tab.name} ({where}): sticking out: {found['outside']}"
    assert not found["cut"], f"{tab.name} ({where}): names cut off: {found['cut']}"


# Each rival's line above the board on a phone: where its figures ("8/104") are, against
# the list's visible box (it shows two lines and scrolls the rest).
RIVALS_JS = """() => {
  const list = document.querySelector("[data-testid=rivals]");
  const box = list.getBoundingClientRect();
  return [...list.children].map((li) => {
    const text = [...li.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && /\\d+\\/104/.test(n.textContent));
    const range = document.createRange();
    range.selectNodeContents(text);
    const r = range.getBoundingClientRect();
    return { figures: text.textContent.trim(), inside: r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5
      && r.left >= box.left - 0.5 && r.right <= Math.min(box.right, innerWidth) + 0.5 };
  });
}"""


def test_the_longest_names_fit_a_phone_in_the_lobby_the_race_the_ranking_and_the_watch_page(
    browsing: Browsing,
) -> None:
    # The one on the narrowest phone has both long names among its rivals.
    host = phone(browsing, "host-390", "/", 390)
    hp = host.page
    code = create_from_home(hp, LONG, deal=7, phone=True)
    players = [host]
    for name, width in [(OTHER, 390), ("Sam", 320)]:
        tab = phone(browsing, f"{name[:3].lower()}-{width}", f"/r/{code}", width)
        tab.page.get_by_test_id("join-name").fill(name)
        tab.page.get_by_test_id("join-room").tap()
        players.append(tab)
    watchers = [phone(browsing, f"watch-{w}", f"/watch/{code}", w) for w in PHONES]

    for tab in players:
        expect(tab.page.get_by_test_id("lobby-player")).to_have_count(3)
        expect(tab.page.locator("[data-testid=lobby-player] .name").first).to_have_text(LONG)
        assert_fits_width(tab, "lobby")
    for tab in watchers:
        expect(tab.page.get_by_test_id("watch-player")).to_have_count(3)
        assert_fits_width(tab, "watching the lobby")
    browsing.snap("lobby")

    hp.get_by_test_id("start").tap()
    for tab in players:
        expect(tab.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
        tab.settled()
        expect(tab.page.get_by_test_id("rivals")).to_contain_text("8/104")
        assert_fits_width(tab, "racing")
        # The line above the board: the rival's figures are in view, however long the name.
        assert tab.page.evaluate(RIVALS_JS) == [{"figures": "8/104", "inside": True}] * 2, tab.name
    for tab in watchers:
        expect(tab.page.get_by_test_id("progress-list").locator("li")).to_have_count(3)
        assert_fits_width(tab, "watching the race")
    browsing.snap("racing")

    for tab in players[1:]:  # the others resign: the host, alone still racing, ends it
        tab.page.get_by_test_id("resign").tap()
        tab.page.get_by_test_id("resign").tap()
    end = hp.get_by_test_id("end-race")
    end.tap()
    expect(end).to_have_text(re.compile("Really"))
    end.tap()
    for tab in [*players, *watchers]:
        expect(tab.page.locator("[data-testid=ranking] [data-testid=ranking-row]")).to_have_count(3)
        assert_fits_width(tab, "the ranking")
    browsing.snap("over")


# Hard deal 45: three shuffles and these three moves leave no legal move and no shuffle.
STUCK_DEAL = 45
STUCK_LINE = ["shuffle", "shuffle", "shuffle", "p9>p4", "p14>p6", "p8>p5"]

# With the page scrolled to its top: how far down the board's cards and slots reach, and
# where the banners are (each one's box, and whether it overlaps a card).
BOARD_AND_BANNERS_JS = """() => {
  window.scrollTo(0, 0);
  const board = document.querySelector("[data-testid=board]");
  const parts = [board, ...board.querySelectorAll(".card, .pile, .foundation")].map((e) => e.getBoundingClientRect());
  const cards = [...board.querySelectorAll(".card")].map((e) => e.getBoundingClientRect());
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const banners = [...document.querySelectorAll(".play .banner, .race-aside .banner")].map((e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, live: e.closest("[aria-live]")?.getAttribute("aria-live") ?? null,
             covers: cards.some((c) => meet(r, c)) };
  });
  return { bottom: Math.max(...parts.map((r) => r.bottom)), height: innerHeight, banners };
}"""


def assert_board_and_banners_fit(tab: Tab, count: int) -> None:
    """The whole board and ``count`` banners above it are in the window, unscrolled; each
    banner is announced (in a live region) and covers no card."""
    found: dict[str, Any] = tab.page.evaluate(BOARD_AND_BANNERS_JS)
    assert found["bottom"] <= found["height"], f"the board reaches {found['bottom']:.0f} px of {found['height']}"
    assert len(found["banners"]) == count, found["banners"]
    for banner in found["banners"]:
        assert banner["top"] >= 0 and banner["bottom"] <= found["height"], banner
        assert banner["live"] == "polite", banner
        assert not banner["covers"], banner


def test_a_stuck_player_on_a_laptop_sees_the_banner_and_the_whole_board(browsing: Browsing) -> None:
    game = Game.deal(STUCK_DEAL, "hard")
    for move in STUCK_LINE:
        game.play(move)
    assert game.is_stuck

    solo = start_solo(browsing, "hard", STUCK_DEAL)  # a laptop's 1280x800 window
    page = solo.page
    state = solo.settled()
    assert_board_and_banners_fit(solo, 0)
    for move in STUCK_LINE:
        state = solo.play_by_drag(move, state)
    assert state["legal"] == []
    expect(page.get_by_test_id("stuck-banner")).to_be_visible()
    assert_board_and_banners_fit(solo, 1)
    browsing.snap("stuck")

    # An undo: no banner, the board as before.
    page.get_by_test_id("undo").click()
    state = solo.settled(state["version"] + 1)
    expect(page.get_by_test_id("stuck-banner")).to_have_count(0)
    assert_board_and_banners_fit(solo, 0)

    # Resigned, and the race is over: two banners.
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("over-banner")).to_be_visible()
    expect(page.get_by_test_id("resigned-banner")).to_be_visible()
    assert_board_and_banners_fit(solo, 2)
    browsing.snap("over")


# The daily page's parts that could be cut off on a narrow phone: the standing's chips (and
# the standing itself, were it to scroll them) and the difficulty menu, which must be as
# wide as it is at its natural size (its longest choice, and the arrow).
DAILY_CUT_JS = """() => {
  const seen = (e) => e.getClientRects().length > 0;
  const cut = [...document.querySelectorAll("[data-testid=standing], .stat-chip")].filter(
    (e) => seen(e) && e.scrollWidth > e.clientWidth + 0.5).map((e) => e.textContent);
  const select = document.querySelector("[data-testid=daily-difficulty]");
  if (seen(select)) {
    const natural = select.cloneNode(true);
    natural.removeAttribute("id");
    natural.style.cssText = "position: absolute; visibility: hidden; width: auto; max-width: none;";
    select.parentElement.append(natural);
    const need = natural.getBoundingClientRect().width;
    natural.remove();
    const have = select.getBoundingClientRect().width;
    if (have < need - 0.5) cut.push(`the menu: ${have} px of ${need}`);
  }
  return cut;
}"""


def assert_daily_uncut(tab: Tab, where: str) -> None:
    assert_fits_width(tab, where)
    cut: list[str] = tab.page.evaluate(DAILY_CUT_JS)
    assert not cut, f"{tab.name} ({where}): cut off: {cut}"


def test_the_daily_page_on_phones_cuts_nothing_off_and_fits_a_long_name(browsing: Browsing, server: Server) -> None:
    # (in a thread of its own: Playwright's synchronous API runs an event loop in this one)
    with ThreadPoolExecutor(1) as pool:
        joined = pool.submit(asyncio.run, win_the_daily(server.ws_url, LONG)).result()

    for width in PHONES:
        tab = phone(browsing, f"daily-{width}", "/daily", width)
        page = tab.page
        rows = page.locator("[data-testid=today-board] [data-testid=ranking-row]")
        expect(rows).to_have_count(1)
        expect(rows.locator(".name")).to_have_text(LONG)
        expect(page.get_by_test_id("my-rank")).to_contain_text("not ranked today yet")
        assert_daily_uncut(tab, "before playing")
        page.get_by_test_id("daily-name").fill("Sam")
        page.get_by_test_id("daily-play").tap()
        expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
        tab.settled()
        assert_daily_uncut(tab, "playing")
        # An attempt is given up, in the button's words as in the banner's.
        give_up = page.get_by_test_id("resign")
        expect(give_up).to_have_text("Give up")
        expect(give_up).to_have_attribute("title", re.compile(r"^Give up this attempt"))
        give_up.tap()
        expect(give_up).to_have_text("Really give up?")
        tab.assert_buttons_fit()
        give_up.tap()
        expect(page.get_by_test_id("resigned-banner")).to_contain_text("You gave up this attempt.")
        assert_daily_uncut(tab, "given up")
    browsing.snap("others")

    # The winner's own page: the rank chip says the most.
    winner = phone(browsing, "winner-320", "/daily", 320)
    page = winner.page
    page.evaluate(
        "([token, player]) => { localStorage.setItem('crescent.daily.token', token);"
        " localStorage.setItem('crescent.daily.player', player); }",
        [joined["token"], joined["daily"]["player"]],
    )
    page.reload()
    expect(page.get_by_test_id("my-rank")).to_have_attribute("data-rank", "1")
    expect(page.get_by_test_id("my-rank")).to_contain_text("moves")
    assert_daily_uncut(winner, "ranked")
    browsing.snap("winner")


# Whether a ranking row's "you" tag is on the line of its name's last line (the name is its
# cell's first text).
TAG_ON_NAME_LINE_JS = """(row) => {
  const cell = row.querySelector(".name");
  const range = document.createRange();
  range.selectNodeContents([...cell.childNodes].find((n) => n.nodeType === Node.TEXT_NODE));
  const line = [...range.getClientRects()].at(-1);
  const tag = cell.querySelector(".tag").getBoundingClientRect();
  const middle = (tag.top + tag.bottom) / 2;
  return middle > line.top && middle < line.bottom;
}"""


def test_the_race_over_banner_takes_a_phone_player_to_the_ranking_and_you_stays_by_the_name(browsing: Browsing) -> None:
    # Bob hosts on a laptop (the ranking beside the board); Ann plays on a phone, where the
    # ranking and the Rematch button are far below, under the board.
    bob = browsing.open("bob-laptop", "/")
    bp = bob.page
    code = create_from_home(bp, "Bob", deal=7)
    ann = phone(browsing, "ann-390", f"/r/{code}", 390)
    ap = ann.page
    ap.get_by_test_id("join-name").fill("Ann")
    ap.get_by_test_id("join-room").tap()
    expect(bp.get_by_test_id("lobby-player")).to_have_count(2)
    bp.get_by_test_id("start").click()
    expect(ap.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    ann.settled()
    ap.get_by_test_id("resign").tap()
    ap.get_by_test_id("resign").tap()
    expect(ap.get_by_test_id("resigned-banner")).to_be_visible()
    ap.evaluate("window.scrollTo(0, 0)")  # back at the board, as one is while racing
    bp.get_by_test_id("end-race").click()
    bp.get_by_test_id("end-race").click()

    # On the phone: the banner says the race is over, and under it is the way to the ranking.
    title, rematch = ap.get_by_test_id("ranking-title"), ap.get_by_test_id("rematch")
    expect(ap.get_by_test_id("over-banner")).to_be_in_viewport()
    expect(title).not_to_be_in_viewport()
    go = ap.get_by_test_id("to-ranking")
    expect(go).to_be_in_viewport()
    go.tap()
    expect(title).to_be_focused()  # a screen reader goes on from there, the keyboard too
    expect(title).to_be_in_viewport()
    expect(ap.get_by_test_id("ranking")).to_be_in_viewport(ratio=1)
    expect(rematch).to_be_in_viewport(ratio=1)
    assert_fits_width(ann, "the ranking")
    browsing.snap("ranking")

    # On the laptop the ranking is beside the board: no such button.
    expect(bp.get_by_test_id("over-banner")).to_be_visible()
    expect(bp.get_by_test_id("to-ranking")).to_be_hidden()

    # Each one's "you" tag is on their name's line (a short name leaves room for it).
    for tab, seat in ((ann, "s2"), (bob, "s1")):
        row = tab.page.locator(f"[data-testid=ranking] [data-testid=ranking-row][data-seat={seat}]")
        expect(row.locator(".tag")).to_have_text("you")
        assert row.evaluate(TAG_ON_NAME_LINE_JS), f"{tab.name}: the tag is not on the name's line"


# A phone on its side, the smallest in use on its side, a big phone on its side (as wide as a
# laptop's window, and as short), and a laptop's window at 200% zoom (1280x800 lays out as 640x400).
SIDEWAYS: dict[str, tuple[ViewportSize, bool]] = {
    "a phone on its side": ({"width": 844, "height": 390}, True),
    "a small phone on its side": ({"width": 568, "height": 320}, True),
    "a big phone on its side": ({"width": 998, "height": 448}, True),
    "a laptop at 200%": ({"width": 640, "height": 400}, False),
}
# Where the tools and the board are: every tool on the screen and left of the board's cards;
# and the bar at the top (with its longest status) against the room's line under it.
BESIDE_JS = """() => {
  const cards = [...document.querySelectorAll("[data-testid=board] .card")].map((c) => c.getBoundingClientRect());
  const left = Math.min(...cards.map((r) => r.left));
  const tools = [...document.querySelectorAll(".tools button")].map((b) => {
    const r = b.getBoundingClientRect();
    return { label: b.textContent, right: r.right, bottom: r.bottom };
  });
  const status = document.querySelector("[data-testid=connection]");
  const was = status.textContent;
  status.textContent = "reconnecting…";
  const bar = document.querySelector(".topbar").getBoundingClientRect().bottom;
  const head = document.querySelector("[data-testid=room-head]").getBoundingClientRect().top;
  status.textContent = was;
  return { left, tools, height: innerHeight, bar, head };
}"""


def assert_beside(tab: Tab, where: str, banners: int) -> None:
    """The whole board on the screen, unscrolled, with ``banners`` banners, and every tool
    on the screen too, to the left of the cards; the bar clear of the room's line."""
    assert_fits_width(tab, where)
    assert_board_and_banners_fit(tab, banners)
    found: dict[str, Any] = tab.page.evaluate(BESIDE_JS)
    for tool in found["tools"]:
        assert tool["bottom"] <= found["height"], f"{where}: {tool['label']} is below the window"
        assert tool["right"] <= found["left"], f"{where}: {tool['label']} is not left of the board"
    assert found["bar"] <= found["head"], f"{where}: the bar reaches {found['bar']} px, over the room's line"


@pytest.mark.parametrize("sideways", list(SIDEWAYS))
def test_sideways_the_board_takes_the_whole_height_beside_the_tools(browsing: Browsing, sideways: str) -> None:
    """Wider than tall and short: the board, about 12 card widths tall with its fans, would
    run far below the window under the room's line and the tools. It takes the whole height
    on the right instead, with the tools, the clock and the banners in a column on its left,
    and the race-over banner leads to the ranking, which is below."""
    size, touch = SIDEWAYS[sideways]
    solo = start_solo(browsing, "hard", STUCK_DEAL, phone=touch)
    page = solo.page
    page.set_viewport_size(size)
    state = solo.settled()
    small = size["height"] < 375  # the smallest phones: the board fits, the banners need a scroll
    assert_beside(solo, sideways, 0)
    for move in STUCK_LINE:
        state = solo.play_by_drag(move, state)
    expect(page.get_by_test_id("stuck-banner")).to_be_visible()
    if not small:
        assert_beside(solo, f"{sideways}, stuck", 1)
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("over-banner")).to_be_visible()
    if not small:
        assert_beside(solo, f"{sideways}, over", 2)
    browsing.snap("over")
    page.get_by_test_id("to-ranking").click()
    expect(page.get_by_test_id("ranking")).to_be_in_viewport()
    # Upright again, the board goes back under the tools.
    page.set_viewport_size({"width": size["height"], "height": size["width"]})
    found: dict[str, Any] = page.evaluate(BESIDE_JS)
    box = page.get_by_test_id("board").bounding_box()
    assert box is not None
    assert all(tool["bottom"] <= box["y"] for tool in found["tools"]), found["tools"]
