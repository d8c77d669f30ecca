"""What the pages give a screen reader and a keyboard: the room's news in a live region
(never each move), one h1 per page and an outline that skips no level, and the keys.

Real server, real headless Chromium; the rivals of a race are plain websocket players, so
that a whole winning line is played in a moment.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from itertools import pairwise

import pytest
from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from race.engine import Game
from tests.support.players import Rival
from tests.support.processes import Server
from tests.support.rooms import create_room, start_solo
from tests.support.web import Browsing, Tab
from tests.support.winning_lines import winning_line

pytestmark = pytest.mark.browser

# Hard deal 2: Bob wins it with the checked-in line; Dan plays these moves and is stuck (no
# legal move and no shuffle left).
DEAL, DIFFICULTY = 2, "hard"
STUCK_LINE = [
    "p15>dH", "shuffle", "p10>dC", "p7>p13", "shuffle", "shuffle", "p5>p13", "p11>dD", "p0>p12", "p10>p11",
    "p3>p0", "p10>p5", "p2>p5", "p3>p12", "p7>p3", "p5>p4", "p6>p2", "p15>p6", "p10>p15", "dC>p7",
    "p5>p4", "p7>dC", "p4>p5", "p4>p5", "dC>p7", "p5>p4", "p7>dC", "p7>dC", "p4>p5", "p4>p5",
]  # fmt: skip
NODE_LIMIT = 200_000  # the daily deal's proof, as in test_web_daily


SERVER_ENV = {"DAILY_NODE_LIMIT": str(NODE_LIMIT)}


@pytest.fixture
def rival(server: Server) -> Iterator[Callable[[str, str], Rival]]:
    """``rival(code, name)``: a new player in that room, closed after the test."""
    with ExitStack() as stack:
        # (an unbounded queue: a rival reads only its own replies, and must not stall the rest)
        yield lambda code, name: Rival(
            stack.enter_context(connect(server.ws_url, max_size=2**22, max_queue=None)), code, name
        )


# Every text put in a page's announcer, in order: the news a screen reader is given.
LISTEN_JS = """() => {
  const el = document.querySelector('[data-testid=presence-announce]');
  window.heard = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) window.heard.push(n.textContent.trim());
  }).observe(el, { childList: true, characterData: true, subtree: true });
}"""


# Every banner put in the page's banners, in order (by its test id).
SHOWN_JS = """(el) => {
  window.shown = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) window.shown.push(n.dataset?.testid ?? n.textContent);
  }).observe(el, { childList: true, subtree: true });
}"""


HEARD_MS = 40_000  # a page's news after a burst of a rival's moves (drawn one by one)


def heard(tab: Tab, want: list[str]) -> None:
    """Wait until ``tab``'s announcer has said as much as ``want``, then check that it said
    exactly that (news told in one message or in two reads the same). The watch page draws
    every board of a rival's burst of moves before it gets to the news after them (some
    seconds on a loaded machine): the wait allows for it."""
    text = " ".join(want)
    tab.page.wait_for_function("(n) => window.heard.join(' ').length >= n", arg=len(text), timeout=HEARD_MS)
    said: list[str] = tab.page.evaluate("window.heard")
    assert " ".join(said) == text, f"{tab.name} heard {said}, not {want}"


def clock(ms: int) -> str:
    """A time as the pages show it: m:ss.t."""
    return f"{ms // 60_000}:{ms // 1000 % 60:02d}.{ms // 100 % 10}"


def test_rivals_finishing_resigning_or_stuck_and_the_end_of_the_race_are_announced(
    browsing: Browsing, rival: Callable[[str, str], Rival]
) -> None:
    game = Game.deal(DEAL, DIFFICULTY)
    for move in STUCK_LINE:
        game.play(move)
    assert game.is_stuck

    ann, code = create_room(browsing, "Ann", difficulty=DIFFICULTY, deal=DEAL, tab_name="ann")
    ap = ann.page
    rivals = [rival(code, name) for name in ("Bob", "Cleo", "Dan")]
    bob, cleo, dan = rivals
    expect(ap.get_by_test_id("lobby-player")).to_have_count(4)
    watcher = browsing.open("watcher", f"/watch/{code}")
    wp = watcher.page
    expect(wp.get_by_test_id("watch-player")).to_have_count(4)
    for tab in (ann, watcher):
        tab.page.evaluate(LISTEN_JS)
    ap.get_by_test_id("start").click()
    for player in rivals:
        player.racing()
    expect(ap.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    # The page's banners (its own player's, the race's end) are live, and stay in the page
    # while there are none: a screen reader hears only what is added to a live region it
    # already knows.
    banners = ap.get_by_test_id("banners")
    expect(banners).to_have_attribute("aria-live", "polite")
    assert banners.evaluate("e => e.childElementCount === 0 && getComputedStyle(e).display !== 'none'")
    banners.evaluate(SHOWN_JS)

    # Moves are not news: Bob's first ten show in the panels, and nothing is said.
    line = winning_line(DEAL, DIFFICULTY)
    bob.play(line[:10])
    for page in (ap, wp):
        expect(page.locator(f"[data-testid=progress-{bob.seat}]")).to_have_attribute("data-moves", "10")
    assert ap.evaluate("window.heard") == [] and wp.evaluate("window.heard") == []

    done = bob.play(line[10:])
    assert done["finished_ms"] is not None
    finished = f"Bob finished in {clock(done['finished_ms'])} (1st)."
    heard(ann, [finished])
    heard(watcher, [finished])

    cleo.resign()
    heard(ann, [finished, "Cleo resigned."])
    heard(watcher, [finished, "Cleo resigned."])

    dan.play(STUCK_LINE)
    assert dan.state["stuck"]
    news = [finished, "Cleo resigned.", "Dan is stuck."]
    heard(ann, news)
    heard(watcher, news)

    # Ann resigns: her own banner says so (to a screen reader too); her announcer does not.
    # (It is put in once, not again at each redraw of the page.)
    ap.get_by_test_id("resign").click()
    ap.get_by_test_id("resign").click()
    expect(ap.get_by_test_id("resigned-banner")).to_be_visible()
    heard(watcher, [*news, "Ann resigned."])
    assert ap.evaluate("window.heard") == news

    # Dan resigns, the last one racing: the race is over. Ann's page says so with her place
    # in its live banners (its announcer does not say it twice); the spectator's announcer
    # says who won.
    dan.resign()
    expect(ap.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    over = banners.get_by_test_id("over-banner")
    # Its words and no more (all that is read of it), and on a laptop no way to the ranking
    # (it is for a phone, where the ranking is under the board): it is beside the board.
    expect(over).to_have_text(re.compile(r"^Race over\. You placed \d+\w\w of 4\.$"))
    expect(ap.get_by_test_id("to-ranking")).to_be_hidden()
    heard(watcher, [*news, "Ann resigned.", "Dan resigned.", "Race over: Bob placed 1st of 4."])
    heard(ann, [*news, "Dan resigned."])
    expect(banners.get_by_test_id("resigned-banner")).to_be_visible()
    assert ap.evaluate("window.shown") == ["resigned-banner", "over-banner"]


def test_the_way_to_the_ranking_on_a_phone_is_not_read_as_part_of_race_over(browsing: Browsing) -> None:
    solo = start_solo(browsing, "easy", 7, phone=True)
    page = solo.page
    solo.settled()
    page.get_by_test_id("resign").tap()
    page.get_by_test_id("resign").tap()
    banners = page.get_by_test_id("banners")
    over = banners.get_by_test_id("over-banner")
    # The live banners say the race is over, and the place: no button's label is read with it.
    expect(over).to_have_text("Race over. You placed 1st of 1.")
    expect(banners.get_by_role("button")).to_have_count(0)
    # The way to the ranking (under the board, out of sight) is under the banners, outside any
    # live region, and above the board.
    go = page.get_by_test_id("to-ranking")
    expect(go).to_be_visible()
    assert go.evaluate("b => b.closest('[aria-live], [role=log], [role=status], [role=alert]') === null")
    boxes = [loc.bounding_box() for loc in (over, go, page.get_by_test_id("board"))]
    assert all(boxes), boxes
    over_box, go_box, board_box = (box for box in boxes if box is not None)
    assert over_box["y"] + over_box["height"] <= go_box["y"], (over_box, go_box)
    assert go_box["y"] + go_box["height"] <= board_box["y"], (go_box, board_box)
    go.tap()
    expect(page.get_by_test_id("ranking-title")).to_be_focused()
    expect(page.get_by_test_id("ranking-title")).to_be_in_viewport()


# Every heading a person can reach (a visually hidden one too), as (level, text).
OUTLINE_JS = """() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]
  .filter((e) => e.checkVisibility())
  .map((e) => [Number(e.tagName[1]), e.textContent.replace(/\\s+/g, ' ').trim()])"""


def outline(page: Page, h1: str | re.Pattern[str]) -> list[tuple[int, str]]:
    """The page's headings, checked: one h1 (``h1``) and first, and no level skipped below."""
    headings = [(int(level), text) for level, text in page.evaluate(OUTLINE_JS)]
    assert [text for level, text in headings if level == 1] == [text for _, text in headings[:1]], headings
    assert headings and re.fullmatch(h1, headings[0][1]), headings
    for (before, _), (level, text) in pairwise(headings):
        assert level <= before + 1, f"{text!r} is an h{level} under an h{before}: {headings}"
    return headings


def test_every_page_has_one_h1_and_an_outline_that_skips_no_level(
    browsing: Browsing, rival: Callable[[str, str], Rival]
) -> None:
    home = browsing.open("home", "/")
    hp = home.page
    expect(hp.get_by_test_id("home")).to_be_visible()
    outline(hp, "Crescent Race")
    # The home page's title is for screen readers: the brand above shows it, and the page
    # looks as it did (the title takes no room).
    box = hp.locator("h1").bounding_box()
    assert box is not None and box["width"] <= 1 and box["height"] <= 1, box
    expect(hp.get_by_test_id("home-link")).to_have_text("☾ Crescent Race")

    host, code = create_room(browsing, "Ann", difficulty="easy", deal=3)
    page = host.page
    bob = rival(code, "Bob")
    expect(page.get_by_test_id("lobby-player")).to_have_count(2)
    room_h1 = f"Room {code}"
    assert (2, "Waiting to start") in outline(page, room_h1)
    watcher = browsing.open("watcher", f"/watch/{code}")
    wp = watcher.page
    expect(wp.get_by_test_id("watch-player")).to_have_count(2)
    page.get_by_test_id("start").click()
    bob.racing()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    assert (2, "Race") in outline(page, room_h1)
    expect(wp.get_by_test_id("watch")).to_have_attribute("data-phase", "racing")
    watching = outline(wp, f"Watching {code}")
    # Each player's board under the boards' heading, then the players' list.
    levels = [level for level, text in watching]
    assert levels == [1, 2, 3, 3, 2], watching
    assert watching[-1] == (2, "Players")

    bob.resign()
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    expect(wp.get_by_test_id("watch")).to_have_attribute("data-phase", "over")
    assert (2, "Ranking") in outline(page, room_h1)
    assert (2, "Ranking") in outline(wp, f"Watching {code}")

    joiner = browsing.open("joiner", f"/r/{code}")
    expect(joiner.page.get_by_test_id("join-closed")).to_be_visible()  # over: no seat to take, a race to see
    assert (2, "This race is over") in outline(joiner.page, room_h1)
    gone = browsing.open("gone", "/watch/NOSUCH3")
    expect(gone.page.get_by_test_id("room-gone")).to_be_visible()
    outline(gone.page, "Watching NOSUCH3")

    daily = browsing.open("daily", "/daily", still=True)
    dp = daily.page
    expect(dp.get_by_test_id("daily-intro")).to_be_visible()
    outline(dp, "Daily challenge")
    dp.get_by_test_id("daily-name").fill("Dee")
    dp.get_by_test_id("daily-difficulty").select_option("easy")
    dp.get_by_test_id("daily-play").click()
    expect(dp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    outline(dp, "Daily challenge")


KEYS = [
    ("Enter", "play a pile"),
    ("Shift+Enter", "choose where it goes"),
    ("Escape", "put the card down"),
    ("S", "shuffle"),
    ("H", "hint"),
    ("U", "undo"),
]


def check_keys_help(page: Page) -> None:
    """The race's "Keys" help: closed at first, opened and closed by ? and Escape (the
    keyboard stays on the board), and by its own summary; it names every key."""
    keys = page.get_by_test_id("keys-help")
    expect(keys).to_be_visible()
    expect(keys.locator("summary")).to_have_text("Keys")
    expect(keys).not_to_have_attribute("open", "")
    pile = page.locator('[data-testid=board] [data-pile="0"]')
    pile.focus()
    page.keyboard.press("?")
    expect(keys).to_have_attribute("open", "")
    expect(pile).to_be_focused()
    panel = keys.locator("dl")
    expect(panel).to_be_visible()
    for key, what in KEYS:
        row = panel.locator("dt", has=page.locator("kbd", has_text=re.compile(rf"^{re.escape(key)}$")))
        expect(row).to_have_count(1)
        expect(row.locator("+ dd")).to_contain_text(what)
    page.keyboard.press("Escape")
    expect(keys).not_to_have_attribute("open", "")
    keys.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(keys).to_have_attribute("open", "")
    page.keyboard.press("Enter")
    expect(keys).not_to_have_attribute("open", "")
    # Open, it closes at a press anywhere else on the page.
    page.keyboard.press("?")
    expect(keys).to_have_attribute("open", "")
    page.locator("main").click(position={"x": 5, "y": 5})
    expect(keys).not_to_have_attribute("open", "")
    # The header line above the board keeps clear of it.
    overlaps = page.evaluate(OVERLAPS_JS, "[data-testid=keys-help] summary")
    assert overlaps == [], overlaps


# The room header's parts (and their text) that overlap the element at ``selector``.
OVERLAPS_JS = """(selector) => {
  const r = document.querySelector(selector).getBoundingClientRect();
  const parts = [...document.querySelectorAll('[data-testid=room-head] > *')];
  return parts.filter((p) => {
    const q = p.getBoundingClientRect();
    return q.width && q.left < r.right && r.left < q.right && q.top < r.bottom && r.top < q.bottom;
  }).map((p) => p.textContent);
}"""


def test_the_race_and_daily_pages_tell_the_keys(browsing: Browsing) -> None:
    host, _ = create_room(browsing, "Ann", difficulty="easy", deal=3, still=True)
    page = host.page
    # Not in the lobby: there is no board to play with keys.
    expect(page.get_by_test_id("keys-help")).to_be_hidden()
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    before = host.settled()
    check_keys_help(page)
    assert host.board() == before  # the help's keys played nothing
    host.assert_board_fits()  # the closed help leaves the toolbar one line high

    daily = browsing.open("daily", "/daily", still=True)
    dp = daily.page
    dp.get_by_test_id("daily-name").fill("Dee")
    dp.get_by_test_id("daily-play").click()
    expect(dp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    daily.settled()
    check_keys_help(dp)
