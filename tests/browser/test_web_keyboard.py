"""Every legal move without a drag: Shift+Enter (or Shift+Space) on a focused pile selects its
top card instead of playing it home, so a card a foundation takes can still go to the other
foundation or to a pile by keyboard; a long press does the same on a touch screen or with a
mouse. Keys held down, and keys pressed before the start. Real server, real headless
Chromium."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from race.engine import Game
from tests.support.processes import Server
from tests.support.rooms import create_from_home, solo_race, start_solo
from tests.support.web import POINTS_JS, Browsing, Tab, Wire, page_server, zone
from tests.support.winning_lines import winning_line

pytestmark = pytest.mark.browser

DEAL, DIFFICULTY = 8, "easy"  # a deal with a checked-in winning line
SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@pytest.fixture(scope="module")
def slow_start() -> Iterator[Server]:
    """A server whose countdown lasts long enough to press keys in it, however slow the
    machine (its pages are opened by their full address)."""
    s = page_server(COUNTDOWN_SECONDS="300")
    yield s
    s.stop()


def along_the_line(want: Callable[[list[str]], str | None]) -> tuple[list[str], str]:
    """The moves of DEAL's winning line up to the first position where ``want`` (given the
    legal moves) finds a move, and that move."""
    game = Game.deal(DEAL, DIFFICULTY)
    line = winning_line(DEAL, DIFFICULTY)
    for i, move in enumerate(line):
        found = want([str(m) for m in game.legal_moves()])
        if found is not None:
            return line[:i], found
        game.play(move)
    raise AssertionError(f"no such position on the winning line of {DIFFICULTY} deal {DEAL}")


def down_when_both(legal: list[str]) -> str | None:
    """A pile-to-down-foundation move whose card the up foundation takes too."""
    return next((m for m in legal if m[0] == "p" and ">d" in m and m.replace(">d", ">u") in legal), None)


def pile_when_home(legal: list[str]) -> str | None:
    """A pile-to-pile move whose card a foundation takes too."""
    return next(
        (
            m
            for m in legal
            if m[0] == "p"
            and m.split(">")[1][0] == "p"
            and any(x.startswith(m.split(">")[0] + ">") and x.split(">")[1][0] in "ud" for x in legal)
        ),
        None,
    )


def foundation_name(key: str) -> str:
    """How the board names a foundation to a screen reader."""
    arrow = "up A→K" if key[0] == "u" else "down K→A"
    return f"{SUIT_SYMBOL[key[1]]} {arrow} foundation"


def zone_name(key: str) -> str:
    return f"pile {int(key[1:]) + 1}" if key[0] == "p" else foundation_name(key)


def lit(tab: Tab) -> set[str]:
    """The zones lit as targets."""
    drops: list[str] = tab.page.eval_on_selector_all(
        "[data-testid=board] .target", "els => els.map(e => e.dataset.drop)"
    )
    return set(drops)


def targets(board: dict[str, Any], source: str) -> set[str]:
    return {m.split(">")[1] for m in board["legal"] if m.startswith(source + ">")}


def test_shift_enter_sends_a_card_both_foundations_take_to_the_down_one(browsing: Browsing) -> None:
    prefix, down = along_the_line(down_when_both)
    source, target = down.split(">")
    up = source + ">u" + target[1]
    tab = start_solo(browsing, DIFFICULTY, DEAL)
    page, board = tab.page, tab.page.get_by_test_id("board")
    state = tab.settled()
    for move in prefix:
        state = tab.play_by_drag(move, state)
    assert {down, up} <= set(state["legal"])
    pile = state["piles"][int(source[1:])]
    moving = pile[-1]
    sent = len(tab.sent_types("move"))

    # Shift+Enter selects the card rather than playing it up: every target is lit, both
    # foundations included, and a screen reader hears them all.
    page.locator(zone(source)).focus()
    page.keyboard.press("Shift+Enter")
    expect(board).to_have_attribute("data-selected", source)
    assert lit(tab) == targets(state, source)
    assert {target, up.split(">")[1]} <= lit(tab)
    expect(page.locator(zone(source))).to_have_attribute("aria-pressed", "true")
    announce = page.get_by_test_id("board-announce").locator("p").last  # the latest news
    expect(announce).to_contain_text(" selected; it can go to ")
    for key in targets(state, source):
        expect(announce).to_contain_text(zone_name(key))
    expect(board).not_to_have_attribute("data-pending", "")
    assert len(tab.sent_types("move")) == sent

    # Enter on the down foundation plays there.
    page.locator(zone(target)).focus()
    page.keyboard.press("Enter")
    played = tab.settled(state["version"] + 1)
    assert tab.sent_types("move")[-1]["move"] == down
    assert len(tab.sent_types("move")) == sent + 1
    count, _ = state["foundations"][target]
    assert played["foundations"][target] == [count + 1, moving]
    assert played["piles"][int(source[1:])] == pile[:-1]
    expect(board).to_have_attribute("data-selected", "")
    expect(announce).to_contain_text(f"to {foundation_name(target)}.")

    # The fast path stays: U takes it back, and plain Enter on the pile plays it up at once.
    page.keyboard.press("u")
    back = tab.settled(played["version"] + 1)
    assert back["piles"] == state["piles"]
    page.locator(zone(source)).focus()
    page.keyboard.press("Enter")
    tab.settled(back["version"] + 1)
    assert tab.sent_types("move")[-1]["move"] == up


def test_shift_space_then_enter_moves_a_card_a_foundation_takes_to_a_pile_and_escape_cancels(
    browsing: Browsing,
) -> None:
    prefix, move = along_the_line(pile_when_home)
    source, target = move.split(">")
    tab = start_solo(browsing, DIFFICULTY, DEAL)
    page, board = tab.page, tab.page.get_by_test_id("board")
    state = tab.settled()
    for m in prefix:
        state = tab.play_by_drag(m, state)
    home = targets(state, source) - {f"p{i}" for i in range(16)}
    assert home, f"{source}'s top goes to a foundation too"
    sent = len(tab.sent_types("move"))
    announce = page.get_by_test_id("board-announce").locator("p").last  # the latest news

    # Shift+Space selects; Escape cancels and nothing is sent.
    page.locator(zone(source)).focus()
    page.keyboard.press("Shift+Space")
    expect(board).to_have_attribute("data-selected", source)
    assert lit(tab) == targets(state, source)
    expect(announce).to_contain_text(zone_name(target))
    for key in home:
        expect(announce).to_contain_text(foundation_name(key))
    page.keyboard.press("Escape")
    expect(board).to_have_attribute("data-selected", "")
    expect(page.locator("[data-testid=board] .target")).to_have_count(0)
    expect(page.locator(zone(source))).not_to_have_attribute("aria-pressed", "true")
    expect(announce).to_have_text("Selection cleared.")
    assert tab.board() == state
    assert len(tab.sent_types("move")) == sent

    # Shift+Enter selects again; Enter on the pile plays the pile move, not the foundation one.
    page.keyboard.press("Shift+Enter")
    expect(board).to_have_attribute("data-selected", source)
    page.locator(zone(target)).focus()
    page.keyboard.press("Enter")
    played = tab.settled(state["version"] + 1)
    assert tab.sent_types("move")[-1]["move"] == move
    assert len(tab.sent_types("move")) == sent + 1
    assert played["piles"][int(target[1:])] == [*state["piles"][int(target[1:])], state["piles"][int(source[1:])][-1]]
    expect(announce).to_contain_text(f"to {zone_name(target)}.")


def test_a_slow_mouse_click_is_still_a_click(browsing: Browsing) -> None:
    """A long press is for fingers and pens: a mouse held down a while, then released
    without moving, plays the card home like any click (Shift+Enter or a drag choose)."""
    tab = start_solo(browsing, DIFFICULTY, DEAL)
    page, board = tab.page, tab.page.get_by_test_id("board")
    state = tab.settled()
    source = next(m.split(">")[0] for m in state["legal"] if m[0] == "p" and m.split(">")[1][0] in "ud")
    home = sorted(m for m in state["legal"] if m.startswith(source + ">") and m.split(">")[1][0] in "ud")[-1]
    box = page.locator(f"{zone(source)} .card[data-top]").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 20))
    page.mouse.down()
    # Held for longer than a finger's long press (timed by the page's own clock) ...
    page.wait_for_function("(t) => performance.now() - t > 800", arg=page.evaluate("performance.now()"))
    expect(board).to_have_attribute("data-selected", "")
    page.mouse.up()
    # ... the release is a click: the card goes home (to the up foundation if both take it).
    tab.settled(state["version"] + 1)
    assert tab.sent_types("move")[-1]["move"] == home


def test_a_long_press_on_a_phone_selects_and_a_tap_on_a_target_plays_there(browsing: Browsing) -> None:
    prefix, move = along_the_line(pile_when_home)
    assert prefix == [], "the start of the deal has such a move"
    source, target = move.split(">")
    tab = start_solo(browsing, DIFFICULTY, DEAL, phone=True)
    page, board = tab.page, tab.page.get_by_test_id("board")
    state = tab.settled()
    sent = len(tab.sent_types("move"))

    (x, y), _ = page.evaluate(POINTS_JS, [zone(source), zone(target)])
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        # Held: the card is selected with all its targets (its foundation too) ...
        expect(board).to_have_attribute("data-selected", source)
        assert lit(tab) == targets(state, source)
        expect(page.get_by_test_id("board-announce").locator("p").last).to_contain_text(zone_name(target))
        # ... no context menu opens on the card and no text is selected.
        prevented = page.evaluate(
            """(sel) => !document.querySelector(sel).dispatchEvent(
                 new MouseEvent("contextmenu", { bubbles: true, cancelable: true }))""",
            f"{zone(source)} .card[data-top]",
        )
        assert prevented, "the board let a context menu open under a long press"
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()
    assert page.evaluate("() => window.getSelection().toString()") == ""
    # The lift is no tap: the card stays selected and nothing was played.
    expect(board).to_have_attribute("data-selected", source)
    expect(board).not_to_have_attribute("data-pending", "")
    assert tab.board() == state

    # A tap on the pile target plays there, not to the foundation.
    tab.tap(target)
    played = tab.settled(state["version"] + 1)
    assert tab.sent_types("move")[-1]["move"] == move
    assert len(tab.sent_types("move")) == sent + 1
    assert played["piles"][int(target[1:])][-1] == state["piles"][int(source[1:])][-1]

    # A quick tap still plays a card home at once (up when both foundations take it).
    quick = next(m.split(">")[0] for m in played["legal"] if m[0] == "p" and m.split(">")[1][0] in "ud")
    homes = [m for m in played["legal"] if m.startswith(quick + ">") and m.split(">")[1][0] in "ud"]
    tab.tap(quick)
    tab.settled(played["version"] + 1)
    assert tab.sent_types("move")[-1]["move"] == next((m for m in homes if ">u" in m), homes[0])


PENDING_MS = 5000  # how long the page awaits a reply (a move's, a hint's) before it gives up

# When each press of H (not its repeats) came, by the page's clock.
H_PRESSES_JS = """() => {
  window.hPresses = [];
  document.addEventListener("keydown", (e) => {
    if (e.key === "h" && !e.repeat) window.hPresses.push(performance.now());
  }, true);
}"""


def test_a_held_key_asks_for_one_hint_and_one_shuffle_but_undoes_move_after_move(browsing: Browsing) -> None:
    """A key held down repeats (about 30 times a second): H and S act once per press (a flood
    of hints would only be refused, each refusal a red toast over the board), and a hint
    is not asked again while one is awaited; U held undoes one move after another."""
    tab = browsing.open("solo", "/", still=True)
    wire = Wire(tab.page)  # before the room's connection opens (the home page makes it)
    solo_race(tab, DIFFICULTY, DEAL)
    page = tab.page
    start = tab.settled()

    # H held down while the server is slow to answer, then pressed twice more: one hint asked.
    # (A hint unanswered for PENDING_MS may be asked again, as a move may be played again:
    # should this machine be so slow that the presses come later than that, by the page's
    # clock, those are counted as asking again.)
    page.evaluate(H_PRESSES_JS)
    wire.held.add("hint")
    page.keyboard.down("h")
    for _ in range(20):
        page.keyboard.down("h")  # the key's repeats
    page.keyboard.up("h")
    page.keyboard.press("h")
    page.keyboard.press("h")
    presses: list[float] = page.evaluate("window.hPresses")
    assert len(presses) == 3, presses
    asked = presses[:1]
    for t in presses[1:]:
        if t - asked[-1] >= PENDING_MS:
            asked.append(t)

    # S held down: one shuffle, also once its reply is in and the key still repeats.
    page.keyboard.down("s")
    shuffled = tab.settled(start["version"] + 2)  # (the hint, counted, is a version of its own)
    for _ in range(5):
        page.keyboard.down("s")
    page.keyboard.up("s")
    assert tab.settled() == shuffled, "a repeat of S shuffled again"
    assert wire.sent.get("move") == 1
    assert wire.sent.get("hint") == len(asked), f"{wire.sent.get('hint')} hints asked for {len(asked)}"

    # The hint's late answer comes (before the next move's reply: the wire keeps their order),
    # and the next H asks again.
    wire.release()
    move = next(m for m in shuffled["legal"] if m != "shuffle")
    played = tab.play_by_drag(move, shuffled)
    page.keyboard.press("h")
    expect(page.get_by_test_id("hint-text")).to_contain_text("Hint:")
    assert wire.sent.get("hint") == len(asked) + 1

    # U held down: each repeat that comes once the last undo is answered undoes one more.
    page.keyboard.down("u")
    tab.settled(played["version"] + 2)  # (after the hint's)
    page.keyboard.down("u")  # a repeat
    back = tab.settled(played["version"] + 3)
    page.keyboard.up("u")
    assert (back["piles"], back["foundations"]) == (start["piles"], start["foundations"])
    expect(page.get_by_test_id("shuffle")).to_have_attribute("data-shuffles-left", str(9))


NOT_YET = "The race has not started yet."

# Every line put in the board's announcer, in order: what a screen reader is told of input.
LISTEN_JS = """() => {
  window.said = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) window.said.push(n.textContent);
  }).observe(document.querySelector('[data-testid=board-announce]'), { childList: true });
}"""


def test_keys_pressed_in_the_countdown_say_the_race_has_not_started(browsing: Browsing, slow_start: Server) -> None:
    tab = browsing.open("host", f"{slow_start.url}/", still=True)
    page = tab.page
    create_from_home(page, "Early", difficulty=DIFFICULTY, deal=DEAL)
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "countdown")
    pile = page.locator(zone("p0"))
    pile.focus()
    page.evaluate(LISTEN_JS)

    # A card played or picked up, a hint, a shuffle: each is told why nothing happens, and
    # no card is shaken as if it could not move.
    for key in ("h", "s", "Enter", "Shift+Enter"):
        page.keyboard.press(key)
    page.wait_for_function("() => window.said.length >= 4")
    assert page.evaluate("window.said") == [NOT_YET] * 4
    expect(pile).not_to_have_class(re.compile(r"\bnope\b"))
    expect(page.get_by_test_id("board")).to_have_attribute("data-selected", "")

    # U held down is told once, not at each of the key's repeats; the next press once more.
    page.keyboard.down("u")
    for _ in range(20):
        page.keyboard.down("u")  # the key's repeats
    page.keyboard.up("u")
    page.keyboard.press("u")
    page.wait_for_function("() => window.said.length >= 6")
    assert page.evaluate("window.said") == [NOT_YET] * 6
    assert [m for m in tab.sent if m.get("type") in ("move", "hint", "undo")] == []
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "countdown")
