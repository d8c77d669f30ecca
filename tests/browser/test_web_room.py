"""The room page around a race: the join panel of a page that holds no seat follows the room
(closed while its race runs or is over, open again when a rematch waits in the lobby), with
the keyboard's focus and a screen reader's words when it changes; the start of a race on a
short screen; and right-to-left names cut short.

Real server, real websockets, real headless Chromium.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

import pytest
from playwright.sync_api import Route, expect
from websockets.sync.client import connect

from tests.support.players import Rival
from tests.support.processes import Server
from tests.support.rooms import create_from_home, create_room, join_room
from tests.support.web import OUTPUT, WAIT_MS, Browsing, Tab

pytestmark = pytest.mark.browser


def race_of_two(browsing: Browsing, *, deal: int = 7) -> tuple[Tab, Tab, str]:
    """Ann hosts and Bob joins, both on laptops; the race has started."""
    ann, code = create_room(browsing, "Ann", difficulty="easy", deal=deal, tab_name="ann")
    bob = join_room(browsing, code, "Bob", tab_name="bob")
    expect(ann.page.get_by_test_id("lobby-player")).to_have_count(2)
    ann.page.get_by_test_id("start").click()
    expect(bob.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    return ann, bob, code


def end_the_race(host: Tab, rival: Tab) -> None:
    """Both still racing: the host asks to end the race, the rival agrees."""
    host.page.get_by_test_id("vote-end").click()
    agree = rival.page.get_by_test_id("vote-end")
    expect(agree).to_have_text("Agree to end the race")
    agree.click()
    expect(host.page.get_by_test_id("room")).to_have_attribute("data-phase", "over")


def test_the_closed_join_panel_follows_the_room_and_opens_again_for_a_rematch(browsing: Browsing) -> None:
    ann, bob, code = race_of_two(browsing)
    ap = ann.page
    visitor = browsing.open("visitor", f"/r/{code}")
    vp = visitor.page
    closed = vp.get_by_test_id("join-closed")
    heading = closed.get_by_role("heading")
    expect(heading).to_have_text("This race has started")
    watch = closed.get_by_test_id("watch-instead")
    watch.focus()  # a keyboard user, about to follow it

    # The race ends: the panel says so without a reload (the page looks the room up again
    # every few seconds), and the focus, in the panel, goes to its new heading.
    end_the_race(ann, bob)
    expect(heading).to_have_text("This race is over", timeout=WAIT_MS)
    expect(watch).to_have_text("See the results")
    expect(heading).to_be_focused()

    # A rematch, offered and accepted: the room is back in its lobby, and so is the join
    # form, saying why.
    ap.get_by_test_id("rematch").click()
    bob.page.get_by_test_id("offer-accept").click()
    expect(ap.get_by_test_id("lobby")).to_be_visible()
    name = vp.get_by_test_id("join-name")
    expect(name).to_be_visible(timeout=WAIT_MS)
    note = vp.get_by_test_id("join-error")
    expect(note).to_have_text("A new round is waiting: you can join it.")
    expect(name).to_be_focused()  # the focus was in the panel: it goes on to the form
    expect(name).to_have_accessible_description("A new round is waiting: you can join it.")
    expect(vp.get_by_test_id("join-closed")).to_have_count(0)
    name.fill("Cy")
    vp.get_by_test_id("join-room").click()
    expect(vp.get_by_test_id("lobby")).to_be_visible()
    expect(ap.get_by_test_id("lobby-player")).to_have_count(3)


def test_a_page_whose_focus_is_elsewhere_hears_that_a_new_round_waits(browsing: Browsing) -> None:
    ann, bob, code = race_of_two(browsing)
    end_the_race(ann, bob)
    visitor = browsing.open("visitor", f"/r/{code}")
    vp = visitor.page
    expect(vp.get_by_test_id("join-closed").get_by_role("heading")).to_have_text("This race is over")
    vp.get_by_test_id("home-link").focus()
    ann.page.get_by_test_id("rematch").click()
    bob.page.get_by_test_id("offer-accept").click()
    expect(vp.get_by_test_id("join-name")).to_be_visible(timeout=WAIT_MS)
    # The focus stays where it was; the news is told.
    expect(vp.get_by_test_id("home-link")).to_be_focused()
    said = vp.get_by_test_id("presence-announce")
    expect(said).to_have_text("A new round is waiting: you can join it.")


def test_a_join_refused_for_a_race_that_is_over_says_it_is_over_and_the_focus_goes_to_its_heading(
    browsing: Browsing,
) -> None:
    ann, bob, code = race_of_two(browsing)
    end_the_race(ann, bob)
    # The page's look-up is answered as if the room were still in its lobby (it crossed the
    # race); the server refuses the seat.
    late = browsing.open("late", "/")
    lp = late.page
    stale = {"code": code, "kind": "race", "phase": "lobby", "players": 2, "max_players": 8}
    lp.route("**/api/rooms/*", lambda route: route.fulfill(json=stale), times=1)
    lp.goto(f"/r/{code}")
    lp.get_by_test_id("join-name").fill("Late")
    lp.get_by_test_id("join-room").focus()
    lp.keyboard.press("Space")

    closed = lp.get_by_test_id("join-closed")
    expect(closed).to_have_attribute("data-code", "already_started")
    heading = closed.get_by_role("heading")
    # Over, not "started" (not even for a moment): the page asked what became of the room
    # before saying.
    assert heading.inner_text() == "This race is over"
    # The focus was in the form: a screen reader hears the heading, not nothing.
    expect(heading).to_be_focused()
    why = closed.get_by_test_id("join-error")
    expect(why).to_have_text("This race is over; you can watch its results.")
    link = closed.get_by_role("link", name="See the results")
    expect(link).to_have_accessible_description("This race is over; you can watch its results.")
    expect(lp.get_by_test_id("join-room")).to_have_count(0)


def test_a_look_up_answered_late_does_not_undo_what_a_later_one_said(browsing: Browsing) -> None:
    """The page's first look-up (sent while the room was in its lobby) is answered only after
    its join was refused and the page looked again: that late "lobby" must not bring back
    the form (saying a new round waits) while the race runs, nor stop the panel following."""
    ann, _, code = race_of_two(browsing)
    late = browsing.open("late", "/")
    lp = late.page
    held: list[Route] = []

    def look(route: Route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)  # the first look-up: its answer comes last

    lp.route("**/api/rooms/*", look)
    lp.goto(f"/r/{code}")
    lp.get_by_test_id("join-name").fill("Late")
    lp.get_by_test_id("join-room").click()
    closed = lp.get_by_test_id("join-closed")
    expect(closed.get_by_role("heading")).to_have_text("This race has started")
    stale = {"code": code, "kind": "race", "phase": "lobby", "players": 2, "max_players": 8}
    with lp.expect_request("**/api/rooms/*", timeout=WAIT_MS):  # the panel still follows the room
        held[0].fulfill(json=stale)
    expect(closed.get_by_role("heading")).to_have_text("This race has started")
    expect(lp.get_by_test_id("join-room")).to_have_count(0)
    assert ann.page.get_by_test_id("room").get_attribute("data-phase") == "racing"


def test_a_player_removed_from_a_room_that_was_full_is_not_told_it_is_full(browsing: Browsing, server: Server) -> None:
    ann, code = create_room(browsing, "Ann", difficulty="easy", deal=7, tab_name="ann")
    ap = ann.page
    # The rivals read none of the room's news after joining: with no bound on their clients'
    # queues (max_queue=None) it is still taken off the socket, so the server never waits on a
    # rival that takes nothing (its write timeout) before the pages hear what happened.
    with ExitStack() as stack:
        others = [
            Rival(stack.enter_context(connect(server.ws_url, max_queue=None)), code, f"P{i}") for i in range(2, 9)
        ]
        expect(ap.get_by_test_id("lobby-player")).to_have_count(8)
        visitor = browsing.open("visitor", f"/r/{code}")
        vp = visitor.page
        full = "This room is full (8 players); you can watch the race."
        expect(vp.get_by_test_id("join-error")).to_have_text(full)
        others[-1].ws.send(json.dumps({"type": "leave"}))
        expect(ap.get_by_test_id("lobby-player")).to_have_count(7)
        vp.get_by_test_id("join-name").fill("Vi")
        vp.get_by_test_id("join-room").click()
        expect(vp.get_by_test_id("lobby")).to_be_visible()
        seat = vp.get_by_test_id("room").get_attribute("data-seat")

        # The host removes her: back at the form, which says nothing of a full room (there
        # are 7 now), also once the page has looked the room up again.
        with vp.expect_response(f"**/api/rooms/{code}"):
            ap.locator(f"[data-testid=lobby-player][data-seat={seat}]").get_by_test_id("remove-player").click()
        expect(vp.get_by_test_id("join-name")).to_be_visible()
        expect(vp.get_by_test_id("join-error")).to_be_hidden()


# Where the page is scrolled to, and where the board's top is on the screen.
TOP_JS = """() => ({ scrollY, top: document.querySelector("[data-testid=board]").getBoundingClientRect().top,
  height: innerHeight })"""


def test_a_race_started_from_a_scrolled_lobby_shows_the_board_from_its_top(browsing: Browsing) -> None:
    """A phone on its side (667x375): the lobby is taller than the screen, and the player
    scrolled it down to its buttons; the race that replaces it starts at the top of the
    page, the board's top on the screen."""
    tab = browsing.open("host", "/", phone=True, still=True)
    page = tab.page
    page.set_viewport_size({"width": 667, "height": 375})
    create_from_home(page, "Solo", deal=7, phone=True)
    start = page.get_by_test_id("start")
    expect(start).to_be_visible()
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert page.evaluate("scrollY") > 0, "the lobby fits the screen: nothing to scroll"
    start.tap()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    tab.settled()
    where: dict[str, Any] = page.evaluate(TOP_JS)
    assert where["scrollY"] == 0, where
    assert 0 <= where["top"] < where["height"], where


# The first character of each rival's name in the line above the board: whether it is inside
# the name's box (a name too long for its room is cut short), and whether the name is cut.
FIRST_LETTER_JS = """(list) => [...list.querySelectorAll(".name")].map((name) => {
  const text = name.firstChild;
  const range = document.createRange();
  range.setStart(text, 0);
  range.setEnd(text, 1);
  const letter = range.getBoundingClientRect();
  const box = name.getBoundingClientRect();
  return { name: text.textContent, cut: name.scrollWidth > name.clientWidth,
           inside: letter.left >= box.left - 0.5 && letter.right <= box.right + 0.5 && letter.width > 0 };
})"""

ARABIC = "مريم عبدالله الشمري"  # 19 characters: Maryam Abdullah al-Shammari


def test_a_right_to_left_name_cut_short_above_the_board_keeps_its_beginning(browsing: Browsing) -> None:
    host = browsing.open("host", "/", phone=True, still=True)
    hp = host.page
    hp.set_viewport_size({"width": 667, "height": 375})  # a phone on its side: a narrow column
    code = create_from_home(hp, "Zed", deal=7, phone=True)
    rival = join_room(browsing, str(code), ARABIC, tab_name="rival")
    expect(hp.get_by_test_id("lobby-player")).to_have_count(2)
    hp.get_by_test_id("start").tap()
    expect(rival.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    rival.page.get_by_test_id("resign").click()
    rival.page.get_by_test_id("resign").click()
    expect(hp.get_by_test_id("rivals")).to_contain_text("resigned")
    names = hp.get_by_test_id("rivals").locator(".name")
    expect(names).to_have_text([ARABIC])
    [found] = hp.get_by_test_id("rivals").evaluate(FIRST_LETTER_JS)
    assert found["cut"], f"the name is not cut short here, so this proves nothing: {found}"
    assert found["inside"], f"the name's first letter is cut off: {found}"


def test_on_a_phone_the_line_above_the_board_points_to_end_the_race(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=5)
    tab = join_room(browsing, code, "Bob", tab_name="bob", phone=True)
    host.page.get_by_test_id("start").click()
    page = tab.page
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    resign = host.page.get_by_test_id("resign")
    resign.click()
    resign.click()  # "Really resign?"
    expect(host.page.get_by_test_id("resigned-banner")).to_be_visible()
    # Ann is out, Bob alone still racing: Bob may end the race, from the panel below the board.
    end = page.get_by_test_id("end-race")
    expect(end).to_be_attached()
    assert not end.evaluate("b => { const r = b.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; }")
    jump = page.get_by_test_id("end-race-jump")
    expect(jump).to_be_visible()  # above the board, where the player looks
    tab.page.screenshot(path=str(OUTPUT / "end-race-jump-phone.png"))
    jump.tap()
    expect(end).to_be_focused()
    expect(end).to_be_in_viewport()
    end.tap()
    expect(end).to_have_text("Really end it for everyone?")
    tab.assert_board_fits()
    browsing.snap("end-jump")
    # On a laptop the side panel is beside the board: no pointer.
    page.set_viewport_size({"width": 1366, "height": 768})
    expect(jump).to_be_hidden()


def test_a_player_leaves_a_room_whose_race_is_over(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=5)
    bob = join_room(browsing, code, "Bob", tab_name="bob")
    host.page.get_by_test_id("start").click()
    for tab in (host, bob):
        expect(tab.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
        tab.page.get_by_test_id("resign").click()
        tab.page.get_by_test_id("resign").click()  # "Really resign?"
    expect(bob.page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    bob.page.get_by_test_id("leave-over").click()
    expect(bob.page).to_have_url(f"{browsing.base_url}/")
    # Ann still has Bob in the results, as having left.
    row = host.page.locator("[data-testid=ranking-row][data-seat=s2]")
    expect(row.locator(".tag").filter(has_text="left")).to_have_count(1)
    expect(host.page.locator("[data-testid=ranking-row]")).to_have_count(2)
