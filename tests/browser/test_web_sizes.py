"""Every main view at a laptop's, a big screen's, an upright phone's and a sideways phone's
size, in real headless Chromium: no two labels overlap, the board keeps its size when the
banners come, the daily page's cards are as big as the race's, and a screenshot of each
view (home, lobby, race, race over, daily, watch) is kept under test-output/ to be looked at.

Labels are the page's text, measured line by line (a Range over each text node): two lines
of text of different nodes that cross each other overlap. A card's corner may lie under the
next card of its pile (that is the fan), so cards' text is checked against other labels only.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import ViewportSize, expect

from tests.support.processes import Client, Server
from tests.support.rooms import create_from_home
from tests.support.web import OUTPUT, Browsing, Tab
from tests.support.winning_lines import winning_line

pytestmark = pytest.mark.browser

SERVER_ENV = {"DAILY_NODE_LIMIT": "200000"}
DEAL, DIFFICULTY = 8, "easy"  # a deal with a checked-in winning line
SIZES: dict[str, tuple[ViewportSize, bool]] = {
    "1366x768": ({"width": 1366, "height": 768}, False),
    "1920x1080": ({"width": 1920, "height": 1080}, False),
    "390x844": ({"width": 390, "height": 844}, True),
    "844x390": ({"width": 844, "height": 390}, True),
}

# Every pair of visible text lines of different text nodes that cross by more than a pixel
# each way. A line clipped away by a scrolling or clipping ancestor is not seen; nor is text
# read only by screen readers.
OVERLAPS_JS = """() => {
  // What of a line its clipping ancestors let be seen (null: none of it).
  const seen = (el, r) => {
    let { left, top, right, bottom } = r;
    for (let a = el; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === "visible" && s.overflowY === "visible") continue;
      const c = a.getBoundingClientRect();
      left = Math.max(left, c.left); right = Math.min(right, c.right);
      top = Math.max(top, c.top); bottom = Math.min(bottom, c.bottom);
      if (right - left <= 1 || bottom - top <= 1) return null;
    }
    return { left, top, right, bottom, width: right - left, height: bottom - top };
  };
  // A line under a panel drawn over it (the podium over the board, a toast) is not seen:
  // what is at its middle is neither its own element nor a see-through one.
  const covered = (el, r) => {
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
    for (let at = document.elementFromPoint(x, y); at && !at.contains(el); at = at.parentElement) {
      if (el.contains(at)) return false;
      const bg = getComputedStyle(at).backgroundColor.match(/[0-9.]+/g) || [];
      if (bg.length >= 3 && (bg.length < 4 || Number(bg[3]) > 0.5)) return true;
    }
    return false;
  };
  // The foundations' counts at their widest, as at the end of a game.
  const counts = [...document.querySelectorAll(".fcount")].filter((e) => e.firstChild)
    .map((e) => [e.firstChild, e.firstChild.data]);
  for (const [e] of counts) e.data = "13";
  const lines = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || el.closest(".sr-only, script, style, .card.ghost")) continue;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const card = el.closest(".card");
    for (const line of range.getClientRects()) {
      const r = line.width < 1 || line.height < 1 ? null : seen(el, line);
      if (!r || covered(el, r)) continue;
      // A foundation's label and count keep a little space from their neighbours' (else
      // "13/1313/13" reads as one number): their lines count 1.5 px wider each way.
      const pad = el.closest(".fcount, .flabel") ? 1.5 : 0;
      const zone = el.closest(".foundation");
      lines.push({ n, r, card, pad, zone, text: n.textContent.trim().slice(0, 30), where: el.className || el.tagName });
    }
  }
  const found = [];
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i], b = lines[j];
      if (a.n === b.n || (a.card && b.card) || (a.zone && a.zone === b.zone)) continue;
      const w = Math.min(a.r.right + a.pad, b.r.right + b.pad) - Math.max(a.r.left - a.pad, b.r.left - b.pad);
      const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      // Lines of text touch by their font's ascent and descent: a crossing of a third of
      // the shorter line's height is text over text.
      if (w > 1 && h > Math.min(a.r.height, b.r.height) / 3) {
        found.push(`"${a.text}" (${a.where}) over "${b.text}" (${b.where})`);
      }
    }
  }
  for (const [e, text] of counts) e.data = text;
  return found.slice(0, 12);
}"""

# Whether the rival's progress is on the first screen: the side panel's bar (beside the board)
# or the line of rivals above it (on a phone).
RIVAL_IN_VIEW_JS = """() => {
  const rival = document.querySelectorAll("[data-testid=progress-s2], [data-testid=rivals] li");
  return [...rival].some((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
  });
}"""

# How much of the space it has the board fills, with the page at its top: the crescent's
# width against its column's, and how far down the window it reaches from the column's top.
FILLS_JS = """() => {
  window.scrollTo(0, 0);
  const board = document.querySelector("[data-testid=board]");
  const parts = [...board.querySelectorAll(".pile, .foundation")].map((e) => e.getBoundingClientRect());
  const column = board.parentElement.getBoundingClientRect();
  const left = Math.min(...parts.map((r) => r.left)), right = Math.max(...parts.map((r) => r.right));
  const bottom = Math.max(...parts.map((r) => r.bottom));
  return Math.max((right - left) / column.width, (bottom - column.top) / (innerHeight - column.top));
}"""

# The ranking's results of cards ("41/104 cards") that break over more than one line.
RESULTS_BROKEN_JS = """() => [...document.querySelectorAll("[data-testid=ranking] [data-testid=result] .nowrap")]
  .filter((e) => e.getClientRects().length > 1).map((e) => e.textContent)"""

# The width of the board's cards (the race's board, the daily page's: one board on the page).
CARD_WIDTH_JS = """() => document.querySelector("[data-testid=board] .card").getBoundingClientRect().width"""


def open_at(browsing: Browsing, name: str, path: str, size: str) -> Tab:
    viewport, touch = SIZES[size]
    tab = browsing.open(name, path, phone=touch, still=True)
    tab.page.set_viewport_size(viewport)
    return tab


def look(tab: Tab, size: str, view: str, problems: list[str]) -> None:
    """Keep the page as a screenshot (the whole page), and add to ``problems`` the labels
    that overlap (all the views are looked at before the test fails)."""
    page = tab.page
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    folder = OUTPUT / "views" / size
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{view}.png"), full_page=True)
    found: list[str] = page.evaluate(OVERLAPS_JS)
    if found:
        problems.append(f"{view} at {size}: labels overlap: {found}")


def assert_fills(tab: Tab, size: str, view: str, problems: list[str]) -> None:
    """The board fills its column's width or the window's height (whichever limits it)."""
    filled: float = tab.page.evaluate(FILLS_JS)
    if filled < 0.85:
        problems.append(f"{view} at {size}: the board fills {filled:.0%} of the space it has")


def card_width(tab: Tab) -> float:
    width: float = tab.page.evaluate(CARD_WIDTH_JS)
    return width


async def bob(ws_url: str, code: str, go: threading.Event) -> None:
    """Bob joins ``code`` over a websocket and gets ready; once ``go`` is set, he plays the
    winning line to a finish."""
    client = await Client.connect(ws_url)
    try:
        joined = await client.request({"type": "join", "room": code, "name": "Bob"}, "joined")
        assert joined["type"] == "joined", joined
        await client.send({"type": "ready", "ready": True})
        await client.expect("room", where=lambda m: m["room"]["phase"] == "racing", timeout=30)
        state = await client.started()
        await asyncio.to_thread(go.wait, 60)
        for move in winning_line(DEAL, DIFFICULTY):
            state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
            assert state["type"] == "state", state
        assert state["won"], state
    finally:
        await client.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_every_main_view_at_each_size_has_no_two_labels_overlapping(
    browsing: Browsing, server: Server, size: str
) -> None:
    problems: list[str] = []
    alice = open_at(browsing, "alice", "/", size)
    page = alice.page
    expect(page.get_by_test_id("create-submit")).to_be_visible()
    look(alice, size, "home", problems)

    code = create_from_home(page, "Alice Longname", difficulty=DIFFICULTY, deal=DEAL)
    go = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        rival = pool.submit(asyncio.run, bob(server.ws_url, code, go))
        try:
            expect(page.locator("[data-testid=lobby-player][data-seat=s2]")).to_have_attribute("data-ready", "true")
            look(alice, size, "lobby", problems)
            watcher = open_at(browsing, "watcher", f"/watch/{code}", size)
            expect(watcher.page.get_by_test_id("watch-player")).to_have_count(2)

            page.get_by_test_id("start").click()
            expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
            alice.settled()
            expect(page.get_by_test_id("countdown")).to_have_text("")  # "Go!" is over the board a moment
            page.wait_for_function(RIVAL_IN_VIEW_JS)  # the rival's progress, on every layout
            look(alice, size, "race", problems)
            assert_fills(alice, size, "race", problems)
            racing = card_width(alice)
            expect(watcher.page.get_by_test_id("watch-player").locator(".card").first).to_be_visible()
            look(watcher, size, "watch", problems)
        finally:
            go.set()
        rival.result(timeout=60)

    expect(page.get_by_test_id("moment-toast").filter(has_text="Bob finished")).to_be_visible()
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    podium = page.get_by_test_id("podium-over")
    expect(podium).to_be_visible()
    expect(page.get_by_test_id("moment-toast")).to_have_count(0)
    look(alice, size, "over-podium", problems)
    expect(page.get_by_test_id("race-over").get_by_test_id("podium-over")).to_have_count(1)
    expect(page.get_by_test_id("over-banner")).to_be_visible()
    look(alice, size, "over", problems)
    broken = page.evaluate(RESULTS_BROKEN_JS)
    if broken:
        problems.append(f"over at {size}: results broken over lines: {broken}")
    # (Where the banners are above the board, on a phone, it gives them room: all of it stays
    # on the screen.)
    if card_width(alice) < 0.8 * racing:
        problems.append(f"the board shrank from {racing} to {card_width(alice)} px cards when the banners came")

    winner = watcher.page.get_by_test_id("winner")
    expect(winner).to_have_text("Bob wins!")
    expect(winner).to_be_in_viewport()
    look(watcher, size, "watch-over", problems)

    daily = open_at(browsing, "daily", "/daily", size)
    dp = daily.page
    # Before an attempt: the intro and the day's boards use the width (no empty middle).
    expect(dp.get_by_test_id("today-board")).to_have_attribute("data-state", "ready")
    expect(dp.get_by_test_id("yesterday-board")).to_have_attribute("data-state", "ready")
    look(daily, size, "daily-before", problems)
    if not SIZES[size][1]:  # (a laptop's)
        intro, side = (dp.get_by_test_id(name).bounding_box() for name in ("daily-intro", "daily-side"))
        assert intro is not None and side is not None
        empty = side["x"] - (intro["x"] + intro["width"])
        if empty > 48:
            problems.append(f"daily page at {size}: {empty:.0f} px empty between the intro and the boards")
    dp.get_by_test_id("daily-name").fill("Alice Longname")
    dp.get_by_test_id("daily-play").click()
    expect(dp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    daily.settled()
    look(daily, size, "daily", problems)
    assert_fills(daily, size, "daily", problems)
    # The daily page's board is nearly as big as the race's (it has no rivals beside it, but
    # its attempt's notes above it, and all of it is on the screen).
    if card_width(daily) < 0.8 * racing:
        problems.append(f"daily cards {card_width(daily)} px, race cards {racing} px")
    assert not problems, "\n".join(problems)
