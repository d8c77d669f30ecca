"""The browser client end to end: real server, real headless Chromium, several players.

Every test fails on any console error or page error, and saves a screenshot of each open
page under test-output/<test>/ when it fails.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, Route, WebSocketRoute, expect

from race.engine import Game
from tests.support.processes import Server
from tests.support.rooms import create_from_home, create_room, join_room, start_solo, submit_create_form
from tests.support.web import WAIT_MS, Browsing, Tab, Wire, shuffle_text
from tests.support.winning_lines import first_winning_line

pytestmark = pytest.mark.browser

# The waits this module's tests sit through, shortened: a player away 5 s is gone (not 15), the
# home page asks for the live rooms every second (not 5), from a reading up to 0.5 s old (not 2).
SERVER_ENV = {"HOST_AWAY_SECONDS": "5", "LIVE_POLL_SECONDS": "1", "LIVE_ROOMS_FOR_SECONDS": "0.5"}


@pytest.fixture(scope="module")
def line() -> dict[str, Any]:
    return first_winning_line()


def deal_piles(deal: int, difficulty: str) -> list[list[str]]:
    return [[str(c) for c in pile] for pile in Game.deal(deal, difficulty).piles]


def moves_from(board: dict[str, Any], source: str) -> list[str]:
    return [m for m in board["legal"] if m.startswith(source + ">")]


def test_two_players_race_one_by_drag_one_by_taps_while_a_spectator_watches(
    browsing: Browsing, server: Server, line: dict[str, Any]
) -> None:
    deal, difficulty = line["deal"], line["difficulty"]
    alice, code = create_room(browsing, "Alice", difficulty=difficulty, deal=deal, tab_name="alice", still=True)
    ap = alice.page
    expect(ap.get_by_test_id("share-url")).to_have_value(f"{server.url}/r/{code}")
    ap.get_by_test_id("copy-link").click()  # clipboard or not, no error
    expect(ap.get_by_test_id("copy-link")).not_to_have_text("Copy link")

    # Bob joins on a phone and gets ready; Alice sees both.
    bob = join_room(browsing, code, "Bob", tab_name="bob", phone=True)
    bp = bob.page
    expect(ap.locator("[data-testid=lobby-player][data-seat=s2] .name")).to_have_text("Bob")
    bp.get_by_test_id("ready").tap()
    expect(ap.locator("[data-testid=lobby-player][data-seat=s2]")).to_have_attribute("data-ready", "true")
    expect(bp.get_by_test_id("start")).to_have_count(0)  # only the host starts

    # Carol spectates.
    carol = browsing.open("carol", f"/watch/{code}")
    cp = carol.page
    expect(cp.get_by_test_id("watch-player")).to_have_count(2)
    browsing.snap("lobby")

    # The host starts: a countdown, then everyone races on the same deal.
    ap.evaluate(RECORD_START_JS)
    ap.get_by_test_id("start").click()
    start = saw_the_start(ap)
    assert "1" in start["counts"], start
    expect(ap.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(bp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(ap.get_by_test_id("countdown")).to_have_text("")
    a0, b0 = alice.settled(), bob.settled()
    assert a0["piles"] == b0["piles"] == deal_piles(deal, difficulty)
    alice.assert_board_fits()  # a laptop's 1280x800 window
    alice.assert_buttons_fit()
    bob.assert_buttons_fit()  # a phone's narrow toolbar
    assert a0["foundations"] == b0["foundations"]
    assert a0["legal"] and a0["legal"] == b0["legal"]
    browsing.snap("racing")

    # An illegal drop: the legal targets light up while dragging; dropping elsewhere snaps the
    # card back, changes nothing and sends nothing.
    source = next(m.split(">")[0] for m in a0["legal"] if m != "shuffle")
    targets = {m.split(">")[1] for m in moves_from(a0, source)}
    wrong = next(f"p{i}" for i in range(16) if f"p{i}" not in targets | {source} and a0["piles"][i])
    sent_before = len(alice.sent_types("move"))
    alice.lift(source)
    expect(ap.get_by_test_id("drag-ghost")).to_have_count(1)
    lit = ap.eval_on_selector_all("[data-testid=board] .target", "els => els.map(e => e.dataset.drop)")
    assert set(lit) == targets
    alice.drop(wrong)
    expect(ap.get_by_test_id("drag-ghost")).to_have_count(0)
    expect(ap.locator("[data-testid=board] .target")).to_have_count(0)
    assert alice.board() == a0
    assert len(alice.sent_types("move")) == sent_before

    # Bob plays by taps: a tap on a pile top plays it home (the up foundation when both take it).
    tap_move = next(m for m in b0["legal"] if m[0] == "p" and m.split(">")[1][0] in "ud")
    tap_source, tap_target = tap_move.split(">")
    home = f"u{tap_target[1]}" if f"{tap_source}>u{tap_target[1]}" in b0["legal"] else tap_target
    card = b0["piles"][int(tap_source[1:])][-1]
    bob.tap(tap_source)
    b1 = bob.settled(b0["version"] + 1)
    assert b1["foundations"][home] == [b0["foundations"][home][0] + 1, card]
    assert b1["piles"][int(tap_source[1:])] == b0["piles"][int(tap_source[1:])][:-1]
    assert bob.sent_types("move")[-1]["move"] == f"{tap_source}>{home}"

    # Tap-tap: a pile whose top has no foundation move is selected, then its target tapped.
    pile_moves = [
        m
        for m in b1["legal"]
        if m[0] == "p"
        and m.split(">")[1][0] == "p"
        and not any(x.split(">")[1][0] in "ud" for x in moves_from(b1, m.split(">")[0]))
    ]
    assert pile_moves, "this deal has a pile-to-pile move to tap-tap"
    if pile_moves:
        src, dst = pile_moves[0].split(">")
        bob.tap(src)
        expect(bp.get_by_test_id("board")).to_have_attribute("data-selected", src)
        expect(bp.locator(f'[data-testid=board] [data-drop="{dst}"].target')).to_have_count(1)
        # ... and a screen reader hears so, with the targets.
        expect(bp.locator(f'[data-testid=board] [data-drop="{src}"]')).to_have_attribute("aria-pressed", "true")
        heard = re.compile(rf"selected; it can go to (.*, )?pile {int(dst[1:]) + 1}\b")
        expect(bp.get_by_test_id("board-announce").locator("p").last).to_have_text(heard)
        bob.tap(dst)
        b2 = bob.settled(b1["version"] + 1)
        expect(bp.get_by_test_id("board-announce").locator("p").last).to_contain_text(f"to pile {int(dst[1:]) + 1}.")
        assert b2["piles"][int(dst[1:])][-1] == b1["piles"][int(src[1:])][-1]

    # Keyboard: H shows a hint (and highlights it), S shuffles, U undoes.
    bp.keyboard.press("h")
    expect(bp.get_by_test_id("hint-text")).to_contain_text("Hint:")
    assert bp.get_by_test_id("hint-text").get_attribute("data-move") in b2["legal"]
    # A counted hint moves the state's version on (its state comes before the hint's words).
    hinted = bob.settled()
    assert hinted["piles"] == b2["piles"]
    shuffles = int(bp.get_by_test_id("shuffle").get_attribute("data-shuffles-left") or -1)
    bp.keyboard.press("s")
    b3 = bob.settled(hinted["version"] + 1)
    expect(bp.get_by_test_id("shuffle")).to_have_text(shuffle_text(shuffles - 1))
    assert b3["piles"] == [p[1:] + p[:1] if len(p) > 1 else p for p in b2["piles"]]
    bp.keyboard.press("u")
    b4 = bob.settled(b3["version"] + 1)
    assert b4["piles"] == b2["piles"]
    expect(bp.get_by_test_id("shuffle")).to_have_text(shuffle_text(shuffles))

    # Carol sees Bob's board as it is now.
    carol_bob = cp.locator("[data-testid=watch-player][data-seat=s2]")
    expect(carol_bob).to_have_attribute("data-version", str(b4["version"]))
    left = f"{shuffles} shuffle{'' if shuffles == 1 else 's'} left"
    expect(carol_bob.locator("h3")).to_contain_text(f" moves · {left}")
    assert (
        cp.evaluate(
            "(el) => [...Array(16).keys()].map(i => [...el.querySelectorAll(`[data-pile='${i}'] .card`)]"
            ".map(c => c.dataset.card))",
            carol_bob.element_handle(),
        )
        == b4["piles"]
    )
    expect(ap.locator("[data-testid=progress-s2]")).to_have_attribute(
        "data-cards", str(sum(n for n, _ in b4["foundations"].values()))
    )

    # Alice plays the whole winning line by drag and drop; a third of the way she reloads the
    # page. Once on the way she also drags a foundation's top card back to a pile (a
    # give-back) and takes it back with the U key.
    moves = line["moves"]
    refresh_at = len(moves) // 3
    state = alice.settled()
    extra = 0
    for i, move in enumerate(moves):
        give_back = next((m for m in state["legal"] if m[0] in "ud"), None)
        if give_back and not extra:
            given = alice.play_by_drag(give_back, state)
            source, target = give_back.split(">")
            assert given["foundations"][source][0] == state["foundations"][source][0] - 1
            assert given["piles"][int(target[1:])][-1] == state["foundations"][source][1]
            ap.keyboard.press("u")
            undone = alice.settled(given["version"] + 1)
            assert (undone["piles"], undone["foundations"]) == (state["piles"], state["foundations"])
            state, extra = undone, 1
        if i == refresh_at:
            before = alice.settled()
            ap.reload()
            after = alice.settled(before["version"])
            assert after["piles"] == before["piles"]
            assert after["foundations"] == before["foundations"]
            expect(ap.get_by_test_id("move-count")).to_have_text(str(i + extra))  # the undone one counts
            assert "undone or not" in (ap.get_by_test_id("move-count").locator("..").get_attribute("title") or "")
            # Carol sees Alice's board too.
            expect(cp.locator("[data-testid=watch-player][data-seat=s1]")).to_have_attribute(
                "data-version", str(before["version"])
            )
            browsing.snap("midrace")
            state = after
        state = alice.play_by_drag(move, state)

    assert extra, "the line never offered a give-back to try"

    # Alice has won: her banner and time, everywhere.
    expect(ap.get_by_test_id("won-banner")).to_contain_text("You cleared the deal!")
    finished = ap.locator("[data-testid=progress-s1] [data-testid=status]")
    expect(finished).to_have_text(re.compile(r"^finished \d+:\d\d\.\d$"))
    finish_text = finished.inner_text()
    expect(bp.locator("[data-testid=progress-s1] [data-testid=status]")).to_have_text(finish_text)
    expect(cp.locator("[data-testid=progress-s1] [data-testid=status]")).to_have_text(finish_text)
    expect(ap.locator("[data-testid=progress-s1]")).to_have_attribute("data-cards", "104")
    assert alice.board()["legal"] == []

    # Bob resigns (two taps: resign, confirm): the race is over and everyone sees the ranking.
    bp.get_by_test_id("resign").tap()
    expect(bp.get_by_test_id("resign")).to_have_text("Really resign?")
    bp.get_by_test_id("resign").tap()
    time_text = finish_text.removeprefix("finished ")
    for page in (ap, bp, cp):
        rows = page.locator("[data-testid=ranking] [data-testid=ranking-row]")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_have_attribute("data-seat", "s1")
        expect(rows.nth(0).get_by_test_id("result")).to_have_text(time_text)
        expect(rows.nth(1)).to_have_attribute("data-seat", "s2")
        expect(rows.nth(1).get_by_test_id("result")).to_contain_text("resigned")
    expect(ap.get_by_test_id("over-banner")).to_contain_text("You placed 1st of 2")
    expect(bp.get_by_test_id("resigned-banner")).to_be_visible()
    expect(bp.get_by_test_id("rematch")).to_be_visible()  # anyone may offer the rematch
    browsing.snap("over")

    # The rematch is an offer: Bob makes it, Alice still sees the results with it, and the
    # round opens once she says yes. Alice, the host, still hosts it.
    bp.get_by_test_id("rematch").click()
    expect(bp.get_by_test_id("offer-text")).to_have_text("You offered a rematch on a new deal.")
    expect(ap.get_by_test_id("offer-text")).to_have_text("Bob offers a rematch on a new deal.")
    expect(ap.get_by_test_id("ranking")).to_be_visible()
    ap.get_by_test_id("offer-accept").click()
    expect(ap.get_by_test_id("lobby")).to_be_visible()
    expect(bp.get_by_test_id("lobby")).to_be_visible()
    expect(bp.get_by_test_id("room-head")).to_contain_text("round 2")
    expect(ap.get_by_test_id("start")).to_be_visible()
    expect(bp.get_by_test_id("start")).to_have_count(0)
    expect(bp.get_by_test_id("lobby").get_by_test_id("host-line")).to_have_text("Alice hosts this room.")


def test_home_lists_live_rooms_links_the_daily_page_and_shows_names_only_as_text(browsing: Browsing) -> None:
    # A name that would turn into different text if it were ever parsed as markup.
    name = '&lt;i&gt; & "q"'
    host, code = create_room(browsing, name, difficulty="hard", deal=42)
    expect(host.page.locator("[data-testid=lobby-player][data-seat=s1] .name")).to_have_text(name)

    visitor = browsing.open("home", "/")
    vp = visitor.page
    room = vp.locator(f'[data-testid=live-room][data-room="{code}"]')
    expect(room).to_contain_text("hard")
    room.get_by_test_id("watch-link").click()
    expect(vp).to_have_url(re.compile(rf"/watch/{code}$"))
    expect(vp.locator("[data-testid=watch-player][data-seat=s1] .name")).to_have_text(name)
    expect(vp.locator("[data-testid=watch-player] .name i")).to_have_count(0)
    # A name is isolated from the text around it (a right-to-left one would reorder it).
    # (Polled: the watch page redraws its players, and a replaced element has no computed style.)
    expect(vp.locator("[data-testid=watch-player] .name")).to_have_css("unicode-bidi", "isolate")

    vp.go_back()
    expect(vp.get_by_test_id("home")).to_be_visible()
    # A code typed with a dash and in lower case finds the room; one with other signs is refused.
    vp.get_by_test_id("join-code").fill("a*b")
    vp.get_by_test_id("join-submit").click()
    expect(vp.get_by_test_id("toast")).to_contain_text("letters and digits")
    vp.get_by_test_id("join-code").fill(f"{code[:3]}-{code[3:]}".lower())
    vp.get_by_test_id("join-submit").click()
    expect(vp).to_have_url(re.compile(rf"/r/{code}$"))
    expect(vp.get_by_test_id("join-name")).to_be_visible()
    vp.go_back()
    # A nickname too long is refused with the reason, not cut: nothing is sent.
    submit_create_form(vp, "W" * 21)
    why = vp.get_by_test_id("create-name").evaluate("e => e.validationMessage")
    assert why == "Up to 20 characters, please (this is 21).", why
    assert visitor.sent_types("create") == []
    # A deal number a page cannot hold exactly is refused, not rounded to another deal.
    submit_create_form(vp, "Big", deal=9007199254740993)
    expect(vp.get_by_test_id("toast").last).to_contain_text("9007199254740991")
    assert visitor.sent_types("create") == []
    vp.get_by_test_id("daily-link").click()
    expect(vp).to_have_url(re.compile(r"/daily$"))
    expect(vp.get_by_test_id("daily")).to_be_visible()

    unknown = browsing.open("unknown", "/watch/NOSUCH2")
    expect(unknown.page.get_by_test_id("room-gone")).to_be_visible()
    # A room page for a code that is no room says so at once, without asking for a nickname.
    nowhere = browsing.open("nowhere", "/r/NOSUCH3")
    expect(nowhere.page.get_by_test_id("room-gone")).to_contain_text("There is no room NOSUCH3")
    expect(nowhere.page.get_by_test_id("join-name")).to_have_count(0)
    # (Chromium logs the look-up's 404, the answer the page asked for, as a console error.)
    nowhere.errors[:] = [e for e in nowhere.errors if "status of 404" not in e]


def test_a_nickname_of_emoji_counts_characters_as_the_server_does(browsing: Browsing) -> None:
    # 17 characters for the server, 23 UTF-16 units for the page's own string length.
    name = "\U0001f468\u200d\U0001f469\u200d\U0001f467" * 2 + " Family"
    host, _ = create_room(browsing, name, difficulty="easy", deal=1)
    expect(host.page.locator("[data-testid=lobby-player][data-seat=s1] .name")).to_have_text(name)


def test_lobby_refresh_keeps_the_seat_restart_resets_the_deal_and_late_joiners_may_watch(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Host", difficulty="medium", deal=7, time_limit=600)
    expect(host.page.get_by_test_id("room-head")).to_contain_text("10 min limit")
    guest = join_room(browsing, code, "Guest", tab_name="guest", phone=True)
    gp = guest.page
    gp.get_by_test_id("ready").tap()
    expect(gp.get_by_test_id("ready")).to_have_attribute("aria-pressed", "true")
    gp.reload()
    expect(gp.get_by_test_id("room")).to_have_attribute("data-seat", "s2")
    expect(gp.get_by_test_id("ready")).to_have_attribute("aria-pressed", "true")
    expect(gp.get_by_test_id("lobby-player")).to_have_count(2)
    assert [m["type"] for m in guest.sent if m.get("type") in ("join", "resume")] == ["join", "resume"]
    # The host's seat opened in another window: this one's lobby buttons do nothing, so they are off.
    other = browsing.another(host, "host-twin", f"/r/{code}")
    expect(other.page.get_by_test_id("start")).to_be_enabled()
    expect(host.page.get_by_test_id("kicked-banner")).to_be_visible()
    expect(host.page.get_by_test_id("start")).to_be_disabled()
    expect(host.page.get_by_test_id("ready")).to_be_disabled()
    host.page.get_by_test_id("kicked-banner").get_by_role("button").click()
    expect(host.page.get_by_test_id("start")).to_be_enabled()

    host.page.get_by_test_id("start").click()
    expect(gp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    host.settled()
    host.assert_board_fits()  # a laptop's 1280x800, with the time-left counter in the toolbar
    start = guest.settled()
    assert start["piles"] == deal_piles(7, "medium")
    expect(gp.get_by_test_id("time-left")).to_have_text(re.compile(r"^(9:\d\d|10:00)\.\d$"))
    # The phone fits the board: nothing sticks out sideways.
    # (against the width the page was given: an emulated phone widens innerWidth to fit)
    assert gp.evaluate("document.documentElement.scrollWidth") <= (gp.viewport_size or {"width": 0})["width"]

    move = next(m for m in start["legal"] if m[0] == "p" and m.split(">")[1][0] in "ud")
    guest.tap(move.split(">")[0])
    moved = guest.settled(start["version"] + 1)
    assert moved["piles"] != start["piles"]
    gp.get_by_test_id("restart").tap()
    expect(gp.get_by_test_id("restart")).to_have_text("Really restart?")
    gp.get_by_test_id("restart").tap()
    again = guest.settled(moved["version"] + 1)
    assert again["piles"] == start["piles"]
    assert again["foundations"] == start["foundations"]

    # A finger drag works too.
    drag_move = next(m for m in again["legal"] if m.count("p") == 2)  # pile to pile: a tap cannot do it
    guest.touch_drag(*drag_move.split(">"))
    dragged = guest.settled(again["version"] + 1)
    assert guest.sent_types("move")[-1]["move"] == drag_move
    assert dragged["piles"] != again["piles"]

    # The same seat opened in a second window takes over; the first can take it back.
    twin = browsing.another(guest, "guest-twin", f"/r/{code}")
    expect(twin.page.get_by_test_id("room")).to_have_attribute("data-seat", "s2")
    expect(gp.get_by_test_id("kicked-banner")).to_be_visible()
    assert twin.settled()["piles"] == dragged["piles"]
    # (clicked, not tapped: after the DevTools finger drag above, Chromium sometimes drops the
    # click of a synthetic tap)
    gp.get_by_test_id("kicked-banner").get_by_role("button").click()
    expect(twin.page.get_by_test_id("kicked-banner")).to_be_visible()
    expect(gp.get_by_test_id("kicked-banner")).to_have_count(0)
    assert guest.settled()["piles"] == dragged["piles"]

    late = browsing.open("late", "/")
    held: list[Route] = []  # the page's look-up of the room, answered when the test says
    late.page.route("**/api/rooms/*", lambda route: held.append(route))
    # (The look-up may leave after the page has loaded: wait for it, so that the handler
    # above has it by the time it is counted.)
    with late.page.expect_request("**/api/rooms/*"):
        late.page.goto(f"/r/{code}")
    late.page.get_by_test_id("join-name").fill("Lat")  # typing while the page looks the room up
    assert len(held) == 1, "the page looks the room up"
    held[0].continue_()
    # The page says the race has started before anything is sent, and offers no seat: the
    # form goes, and the focus goes on to the panel's heading (a screen reader says it).
    closed = late.page.get_by_test_id("join-closed")
    expect(closed.get_by_test_id("join-error")).to_have_text("This race has already started; you can watch it.")
    expect(closed.get_by_role("heading")).to_have_text("This race has started")
    expect(late.page.get_by_test_id("join-room")).to_have_count(0)
    expect(late.page.get_by_test_id("join-name")).to_have_count(0)
    expect(closed.get_by_role("heading")).to_be_focused()
    assert late.sent_types("join") == []

    # A look-up answered before the start (as if it had just crossed it) offers the form; the
    # server refuses the seat. The page asks again what became of the room; with no answer
    # to that (in 5 s), it says so in the page's words for the server's refusal (its code),
    # and offers to watch.
    crossed = browsing.open("crossed", "/")
    stale = {"code": code, "kind": "race", "phase": "lobby", "players": 2, "max_players": 8}
    looks: list[Route] = []  # the page's look-ups: the first is answered, the others never

    def look_up(route: Route) -> None:
        looks.append(route)
        if len(looks) == 1:
            route.fulfill(json=stale)

    crossed.page.route("**/api/rooms/*", look_up)
    crossed.page.goto(f"/r/{code}")
    crossed.page.get_by_test_id("join-name").fill("Late")
    crossed.page.get_by_test_id("join-room").click()
    closed = crossed.page.get_by_test_id("join-closed")
    expect(closed).to_have_attribute("data-code", "already_started", timeout=WAIT_MS)
    expect(closed.get_by_test_id("join-error")).to_have_text("This race has already started; you can watch it.")
    expect(closed.get_by_role("heading")).to_have_text("This race has started")
    expect(closed.get_by_role("heading")).to_be_focused()  # the focus was on the form's button
    expect(crossed.page.get_by_test_id("join-room")).to_have_count(0)
    expect(crossed.page.get_by_test_id("watch-instead")).to_be_visible()

    late.page.get_by_test_id("watch-instead").click()
    expect(late.page.get_by_test_id("watch-player")).to_have_count(2)
    racing_left = re.compile(r"^Racing · \d+:\d\d\.\d · 9:\d\d\.\d left$")
    expect(late.page.get_by_test_id("watch-status")).to_have_text(racing_left)
    expect(late.page.get_by_text("10 min limit")).to_be_visible()

    # Both resign well inside the 10 minutes: the time left shows what was left, not 0.
    for tab in (host, guest):
        tab.page.get_by_test_id("resign").click()
        tab.page.get_by_test_id("resign").click()
    expect(gp.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    expect(gp.get_by_test_id("time-left")).to_have_text(re.compile(r"^9:\d\d\.\d$"))

    # The room's link, now: a player of it comes back to the seat and the ranking; anyone
    # else is told the race is over and offered its results, not a seat.
    gp.reload()
    expect(gp.get_by_test_id("room")).to_have_attribute("data-seat", "s2")
    expect(gp.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    expect(gp.locator("[data-testid=ranking] [data-testid=ranking-row]")).to_have_count(2)
    after = browsing.open("after", f"/r/{code}")
    expect(after.page.get_by_test_id("join-closed").get_by_role("heading")).to_have_text("This race is over")
    expect(after.page.get_by_test_id("join-room")).to_have_count(0)
    after.page.get_by_role("link", name="See the results").click()
    expect(after.page.get_by_test_id("watch")).to_have_attribute("data-phase", "over")


STUCK_DEAL = 45  # on hard, these six moves leave no legal move and no shuffle
STUCK_LINE = ["shuffle", "shuffle", "shuffle", "p9>p4", "p14>p6", "p8>p5"]


SHUFFLE_HINT_DEAL = 158  # easy: nothing better to do at the start than a shuffle


def test_a_hinted_shuffle_lights_up_the_shuffle_button(browsing: Browsing) -> None:
    assert str(Game.deal(SHUFFLE_HINT_DEAL, "easy").hint()) == "shuffle"
    solo, _ = create_room(browsing, "Solo", difficulty="easy", deal=SHUFFLE_HINT_DEAL, still=True)
    page = solo.page
    page.get_by_test_id("start").click()
    state = solo.settled()
    expect(page.get_by_test_id("shuffle")).not_to_have_class(re.compile(r"\bhint\b"))
    page.get_by_test_id("hint").click()
    expect(page.get_by_test_id("hint-text")).to_have_attribute("data-move", "shuffle")
    expect(page.get_by_test_id("shuffle")).to_have_class(re.compile(r"\bhint\b"))
    page.get_by_test_id("shuffle").click()
    solo.settled(state["version"] + 2)  # (the hint was counted: a version of its own)
    expect(page.get_by_test_id("shuffle")).not_to_have_class(re.compile(r"\bhint\b"))


def test_a_stuck_player_sees_the_banner_can_undo_and_resign_alone(browsing: Browsing) -> None:
    game = Game.deal(STUCK_DEAL, "hard")
    for move in STUCK_LINE:
        game.play(move)
    assert game.is_stuck

    solo, _ = create_room(browsing, "Solo", difficulty="hard", deal=STUCK_DEAL, still=True)
    page = solo.page
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    state = solo.settled()
    # Keyboard play: Enter on a focused pile is a tap (here: to a foundation); U takes it back.
    home = next(m for m in state["legal"] if m[0] == "p" and m.split(">")[1][0] in "ud")
    page.locator(f'[data-testid=board] [data-pile="{home.split(">")[0][1:]}"]').focus()
    page.keyboard.press("Enter")
    played = solo.settled(state["version"] + 1)
    assert solo.sent_types("move")[-1]["move"] == home
    page.keyboard.press("u")
    state = solo.settled(played["version"] + 1)
    for _ in STUCK_LINE[:3]:  # three shuffles, by the S key
        page.keyboard.press("s")
        state = solo.settled(state["version"] + 1)
    expect(page.get_by_test_id("shuffle")).to_have_text(shuffle_text(0))
    expect(page.get_by_test_id("shuffle")).to_be_disabled()
    for move in STUCK_LINE[3:]:
        state = solo.play_by_drag(move, state)
    assert state["legal"] == []
    expect(page.get_by_test_id("stuck-banner")).to_be_visible()
    expect(page.locator("[data-testid=progress-s1]")).to_have_attribute("data-status", "stuck")
    page.get_by_test_id("hint").click()
    expect(page.get_by_test_id("hint-text")).to_have_text("No legal move is left: undo your last move.")
    expect(page.get_by_test_id("undo")).to_have_class(re.compile(r"\bhint\b"))  # the way out, lit
    browsing.snap("stuck")

    page.get_by_test_id("undo").click()
    state = solo.settled(state["version"] + 2)  # (the hint was counted: a version of its own)
    assert state["legal"]
    expect(page.get_by_test_id("stuck-banner")).to_have_count(0)

    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    expect(page.get_by_test_id("resigned-banner")).to_be_visible()
    row = page.locator("[data-testid=ranking] [data-testid=ranking-row]")
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("result")).to_contain_text("resigned")
    expect(page.get_by_test_id("rematch")).to_be_visible()


# Easy deal 1: these moves pile 13 cards on p4, in the middle of the top row, right above
# the foundations (the last three drop onto its top card).
TALL_DEAL = 1
TALL_LINE = [
    "p13>p4",
    "p9>p4",
    "p7>p5",
    "p7>p15",
    "p1>p15",
    "p14>dH",
    "p14>p15",
    "dH>p12",
    "p10>p0",
    "p10>p0",
    "p12>p1",
    "p2>p6",
    "p1>dH",
    "p12>dH",
    "p12>p10",
    "p10>p12",
    "p7>p2",
    "p12>p10",
    "p10>p12",
    "p10>p12",
    "shuffle",
    "p5>uC",
    "p5>p4",
    "p5>p4",
    "p2>p6",
    "p2>p11",
    "p15>p6",
    "p12>p15",
    "p12>p4",
    "p12>p4",
    "p12>p4",
]

TOP_CARD_JS = """(key) => {
  const top = document.querySelector(`[data-testid=board] [data-pile="${key.slice(1)}"] .card[data-top]`);
  const r = top.getBoundingClientRect();
  const under = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const foundations = [...document.querySelectorAll("[data-testid=board] [data-foundation]")].map(
    (f) => f.getBoundingClientRect());
  const overlaps = foundations.filter(
    (f) => f.left < r.right && r.left < f.right && f.top < r.bottom && r.top < f.bottom);
  return { hit: under?.closest("[data-drop]")?.dataset.drop, overlaps: overlaps.length };
}"""


def tall_pile(browsing: Browsing) -> tuple[Tab, dict[str, Any]]:
    """A solo race with pile 4 grown to 13 cards by TALL_LINE, played by drag: the tab and its board."""
    solo, _ = create_room(browsing, "Tall", difficulty="easy", deal=TALL_DEAL, still=True)
    solo.page.get_by_test_id("start").click()
    expect(solo.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    state = solo.settled()
    for move in TALL_LINE:
        state = solo.play_by_drag(move, state)
    solo.page.mouse.move(0, 0)  # (the last drop's mouse, resting on pile 4, would spread it)
    expect(solo.page.locator('[data-pile="4"]')).not_to_have_class(re.compile(r"\bpeek\b"))
    return solo, state


def test_a_long_pile_squeezes_its_fan_and_its_top_card_stays_in_reach(browsing: Browsing) -> None:
    """A pile of the top row that grows past its fan's height must not run into the
    foundations below: its top card would hide under one, and a drop on it land there."""
    game = Game.deal(TALL_DEAL, "easy")
    for move in TALL_LINE:
        game.play(move)
    assert len(game.piles[4]) == 13

    solo, state = tall_pile(browsing)
    page = solo.page
    assert len(state["piles"][4]) == 13
    assert page.evaluate(TOP_CARD_JS, "p4") == {"hit": "p4", "overlaps": 0}
    browsing.snap("tall-pile")


# How much of each covered card's corner (its rank and suit) the next card leaves to be read.
CORNERS_JS = """(pile) => {
  const cards = [...document.querySelectorAll(`[data-pile="${pile}"] .card`)];
  const top = (el) => el.getBoundingClientRect().top;
  const bottom = (el) => el.getBoundingClientRect().bottom;
  return cards.slice(0, -1).map((c, i) => top(cards[i + 1]) - bottom(c.querySelector('.idx')));
}"""


def test_a_mouse_resting_on_a_long_pile_spreads_it_to_read_every_card(browsing: Browsing) -> None:
    solo, _ = tall_pile(browsing)
    page = solo.page
    assert min(page.evaluate(CORNERS_JS, 4)) < 0  # squeezed: corners hidden under the next card
    box = page.locator('[data-pile="4"] .card').first.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 4)
    pile = page.locator('[data-pile="4"]')
    expect(pile).to_have_class(re.compile(r"\bpeek\b"))
    assert min(page.evaluate(CORNERS_JS, 4)) >= 0  # every corner can be read
    browsing.snap("peek")
    page.mouse.move(5, 5)
    expect(pile).not_to_have_class(re.compile(r"\bpeek\b"))


def test_on_touch_the_spread_toggle_makes_a_tap_spread_a_pile_instead_of_playing(browsing: Browsing) -> None:
    """A finger has no hover, and its long press selects: the board's "Spread" toggle makes a
    tap on a pile spread it to be read (a second tap closes it), and sends nothing."""
    solo = start_solo(browsing, "easy", TALL_DEAL, phone=True)
    page = solo.page
    state = solo.settled()
    for move in TALL_LINE:
        state = solo.play_by_drag(move, state)
    pile = page.locator('[data-pile="4"]')
    page.mouse.move(5, 5)  # (the drags' mouse, resting on the pile, spread it)
    expect(pile).not_to_have_class(re.compile(r"\bpeek\b"))
    assert min(page.evaluate(CORNERS_JS, 4)) < 0  # squeezed
    moves = len(solo.sent_types("move"))

    spread = page.get_by_test_id("spread")
    spread.tap()
    expect(spread).to_have_attribute("aria-pressed", "true")
    pile.locator(".card").first.tap()  # a deep card: the pile
    expect(pile).to_have_class(re.compile(r"\bpeek\b"))
    assert min(page.evaluate(CORNERS_JS, 4)) >= 0  # every corner can be read
    browsing.snap("spread")
    pile.locator(".card[data-top]").tap()  # its top card too: it closes, and nothing is played
    expect(pile).not_to_have_class(re.compile(r"\bpeek\b"))
    assert len(solo.sent_types("move")) == moves
    assert solo.settled()["version"] == state["version"]

    # Off again, a tap plays or selects the pile's card as before.
    spread.tap()
    expect(spread).to_have_attribute("aria-pressed", "false")
    pile.locator(".card[data-top]").tap()
    page.wait_for_function(
        """(v) => { const b = document.querySelector('[data-testid=board]');
             return b.dataset.selected === 'p4' || Number(b.dataset.version) > v; }""",
        arg=state["version"],
    )
    expect(pile).not_to_have_class(re.compile(r"\bpeek\b"))


# The colour each suit's cards are drawn in on the board.
SUIT_COLOURS_JS = """() => Object.fromEntries(["S", "H", "D", "C"].map((s) => {
  const card = document.querySelector(`[data-testid=board] .card.suit-${s}`);
  return [s, card ? getComputedStyle(card).color : null];
}))"""


def test_the_four_colour_deck_is_an_option_and_is_remembered(browsing: Browsing) -> None:
    solo = start_solo(browsing, "easy", TALL_DEAL)
    page = solo.page
    solo.settled()
    # Four colours by default, and the button says so.
    four = page.get_by_test_id("four-colour")
    expect(four).to_have_attribute("aria-pressed", "true")
    expect(four).to_contain_text("4 colours")
    colours = page.evaluate(SUIT_COLOURS_JS)
    assert len(set(colours.values())) == 4, colours  # each suit its own
    four.click()
    expect(four).to_have_attribute("aria-pressed", "false")
    expect(four).to_contain_text("2 colours")
    two = page.evaluate(SUIT_COLOURS_JS)
    assert two["H"] == two["D"] and two["S"] == two["C"] and two["H"] != two["S"], two  # red and black
    assert colours["H"] == two["H"] and colours["S"] == two["S"], colours

    page.reload()  # remembered
    solo.settled()
    expect(page.get_by_test_id("four-colour")).to_have_attribute("aria-pressed", "false")
    assert page.evaluate(SUIT_COLOURS_JS) == two
    page.get_by_test_id("four-colour").click()
    expect(page.get_by_test_id("four-colour")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate(SUIT_COLOURS_JS) == colours
    # The court cards are figures drawn by the page, not a font's glyphs.
    assert page.locator("[data-testid=board] .card.face svg.court").count() > 0


def test_players_leave_the_lobby_the_host_removes_one_and_ends_a_race_nobody_finishes(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Host", difficulty="easy", deal=9)
    hp = host.page
    leaver = join_room(browsing, code, "Lee", tab_name="leaver")
    gone = join_room(browsing, code, "Rex", tab_name="removed", phone=True)
    players = hp.get_by_test_id("lobby-player")
    expect(players).to_have_count(3)
    browsing.snap("lobby")

    leaver.page.get_by_test_id("leave").click()
    expect(leaver.page.get_by_test_id("home")).to_be_visible()
    assert leaver.page.evaluate(f"localStorage.getItem('crescent-race.token.{code}')") is None
    expect(players).to_have_count(2)

    hp.locator("[data-testid=lobby-player][data-seat=s3]").get_by_test_id("remove-player").click()
    expect(players).to_have_count(1)
    expect(gone.page.get_by_test_id("toast")).to_contain_text("Removed")
    expect(gone.page.get_by_test_id("join-name")).to_be_visible()  # it may ask to join again

    # Someone joins, the race starts, and they never play: the host ends it.
    idle = join_room(browsing, code, "Idle", tab_name="idle")
    hp.get_by_test_id("start").click()
    expect(idle.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    for page in (hp, idle.page):
        expect(page.get_by_test_id("end-race")).to_have_count(0)  # a rival plays: not even the host
    # Once Idle is out, the host, alone still racing, may end it; Idle may not while the host plays.
    idle.page.get_by_test_id("resign").click()
    idle.page.get_by_test_id("resign").click()
    expect(hp.get_by_test_id("end-race")).to_be_visible()
    expect(idle.page.get_by_test_id("end-race")).to_have_count(0)
    # By keyboard: the panel is redrawn between the two presses, and the focus stays put.
    hp.get_by_test_id("end-race").focus()
    hp.keyboard.press("Enter")
    expect(hp.get_by_test_id("end-race")).to_have_text("Really end it for everyone?")
    expect(hp.get_by_test_id("end-race")).to_be_focused()
    hp.keyboard.press("Enter")
    for page in (hp, idle.page):
        expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
        expect(page.locator("[data-testid=ranking] [data-testid=ranking-row]")).to_have_count(2)
    expect(hp.get_by_test_id("rematch")).to_be_visible()


def test_a_player_who_closes_the_tab_shows_as_away_and_spectators_are_counted(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Host", difficulty="easy", deal=11)
    hp = host.page
    bob = join_room(browsing, code, "Bob", tab_name="bob")
    bobs_row = hp.locator("[data-testid=lobby-player][data-seat=s2]")
    expect(bobs_row).to_be_visible()
    expect(hp.get_by_test_id("away")).to_have_count(0)
    watcher = browsing.open("watcher", f"/watch/{code}")
    expect(hp.get_by_test_id("lobby").get_by_test_id("watching")).to_have_text("1 watching")

    bob.page.close()  # the tab is closed: the others see it at once
    expect(bobs_row.get_by_test_id("away")).to_be_visible()
    expect(hp.get_by_test_id("presence-announce").locator("p").last).to_have_text(
        "Bob went away."
    )  # for screen readers
    expect(watcher.page.locator("[data-testid=progress-s2]").get_by_test_id("away")).to_be_visible()
    back = browsing.another(bob, "bob-again", f"/r/{code}")  # the same browser: the same seat
    expect(back.page.get_by_test_id("lobby")).to_be_visible()
    expect(bobs_row.get_by_test_id("away")).to_have_count(0)
    expect(watcher.page.get_by_test_id("away")).to_have_count(0)
    expect(hp.get_by_test_id("presence-announce").locator("p").last).to_have_text("Bob is back.")

    hp.get_by_test_id("start").click()
    expect(back.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    back.page.close()
    expect(hp.locator("[data-testid=progress-s2]").get_by_test_id("away")).to_be_visible()
    expect(watcher.page.locator("[data-testid=progress-s2]").get_by_test_id("away")).to_be_visible()
    expect(watcher.page.locator("[data-testid=progress-s1]").get_by_test_id("away")).to_have_count(0)
    expect(watcher.page.locator("[data-testid=watch-player][data-seat=s2] h3")).to_contain_text("· away")
    expect(hp.get_by_test_id("rivals")).to_contain_text("· away")  # the line above the board, on phones
    expect(hp.get_by_test_id("race-side").get_by_test_id("watching")).to_have_text("1 watching")
    browsing.snap("away")


def test_a_lobby_whose_host_went_away_can_still_start(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Host", difficulty="easy", deal=12)
    bob = join_room(browsing, code, "Bob", tab_name="bob")
    bp = bob.page
    expect(bp.get_by_test_id("start")).to_have_count(0)  # the host is here
    host.page.close()
    expect(bp.locator("[data-testid=lobby-player][data-seat=s1] [data-testid=away]")).to_be_visible()
    expect(bp.get_by_test_id("start")).to_have_count(0)  # the host may only be reloading the page
    # After HOST_AWAY_SECONDS away the host is gone: Bob may act as host.
    expect(bp.get_by_test_id("host-away")).to_be_visible(timeout=25_000)
    bp.get_by_test_id("start").click()  # Bob acts as host, and becomes it
    expect(bp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(bp.locator("[data-testid=progress-s2] .tag", has_text="host")).to_be_visible()


# The moment of the start on the room page: "Go!" over a board that is already live (the word
# takes no clicks: the first pile's top card is what a press there reaches).
GO_JS = """() => {
  const go = document.querySelector('[data-testid=countdown]');
  const board = document.querySelector('[data-testid=board]');
  if (document.querySelector('[data-testid=room]').dataset.phase !== 'racing') return false;
  if (!go || go.hidden || go.textContent !== 'Go!') return false;
  if (board.classList.contains('waiting') || !board.dataset.legal) return false;
  const r = board.querySelector('[data-pile="0"] .card[data-top]').getBoundingClientRect();
  return board.contains(document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 20)));
}"""

# The start of a race as the page shows it, recorded as it happens: each phase of the room
# (with where the keyboard focus was when it began), each text of the countdown, and whether
# "Go!" was ever up over a live board (GO_JS). "1" shows for one second and "Go!" for one
# more: on a slow machine a test that looks for each in turn can miss it; the record cannot.
# It is done once the race is on and the countdown is empty again.
RECORD_START_JS = f"""() => {{
  const go = {GO_JS};
  const room = document.querySelector('[data-testid=room]');
  const countdown = document.querySelector('[data-testid=countdown]');
  const seen = (window.startSeen = {{ phases: [], counts: [], go: false, done: false }});
  const look = () => {{
    const phase = room.dataset.phase;
    if (seen.phases.at(-1)?.[0] !== phase) {{
      const focused = document.activeElement;
      seen.phases.push([phase, focused?.dataset.drop ?? focused?.dataset.testid ?? focused?.tagName ?? null]);
    }}
    if (seen.counts.at(-1) !== countdown.textContent) seen.counts.push(countdown.textContent);
    seen.go ||= go();
    if (phase === 'racing' && countdown.textContent === '') {{
      seen.done = true;
      observer.disconnect();
    }}
  }};
  const observer = new MutationObserver(look);
  observer.observe(room, {{ subtree: true, childList: true, characterData: true, attributes: true }});
  look();
}}"""


def saw_the_start(page: Page) -> dict[str, Any]:
    """The record of RECORD_START_JS (evaluated on ``page`` before the start), once done."""
    page.wait_for_function("() => window.startSeen && window.startSeen.done")
    record: dict[str, Any] = page.evaluate("window.startSeen")
    return record


def test_a_race_started_by_keyboard_keeps_the_focus_on_the_board_and_says_go(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Host", difficulty="easy", deal=5)
    hp = host.page
    bob = join_room(browsing, code, "Bob", tab_name="bob")
    bp = bob.page
    expect(hp.locator("[data-testid=lobby-player][data-seat=s2]")).to_have_count(1)
    bp.get_by_test_id("home-link").focus()  # Bob's focus is outside the lobby: the start leaves it there
    # The host starts with the keyboard: the lobby goes away, the focus goes on to the board.
    hp.evaluate(RECORD_START_JS)
    hp.get_by_test_id("start").focus()
    hp.keyboard.press("Enter")
    start = saw_the_start(hp)
    phases = [phase for phase, _ in start["phases"]]
    assert "countdown" in phases and phases.index("countdown") < phases.index("racing"), start
    assert dict(start["phases"])["countdown"] == "p0", start  # the focus went on to the board
    assert "1" in start["counts"], start
    assert start["go"], start
    expect(hp.get_by_test_id("countdown")).to_have_text("")  # only for a moment
    expect(hp.locator('[data-testid=board] [data-pile="0"]')).to_be_focused()
    expect(bp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(bp.get_by_test_id("home-link")).to_be_focused()


def test_counts_of_one_are_singular(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Solo", difficulty="easy", deal=5, still=True)
    hp = host.page
    watcher = browsing.open("watcher", f"/watch/{code}")
    wp = watcher.page
    expect(wp.get_by_test_id("watch-player")).to_have_count(1)
    hp.get_by_test_id("start").click()
    expect(hp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    state = host.settled()
    expect(hp.locator("[data-testid=progress-s1] [data-testid=moves]")).to_have_text("0 moves")
    host.play_by_drag(next(m for m in state["legal"] if m != "shuffle"), state)
    for page in (hp, wp):
        expect(page.locator("[data-testid=progress-s1]")).to_have_attribute("data-moves", "1")
        expect(page.locator("[data-testid=progress-s1] [data-testid=moves]")).to_have_text("1 move")
    expect(wp.locator("[data-testid=watch-player][data-seat=s1] h3")).to_contain_text("· 1 move · ")


class Blackout:
    """A page's websocket through Playwright, with a switch: while ``dark``, nothing the
    server sends reaches the page and the page's `sync` messages are held back (as if the
    connection had stalled); ``light()`` ends that and sends what was held."""

    def __init__(self, page: Page) -> None:
        self.dark = False
        self.held: list[str | bytes] = []
        self.dropped: list[str | bytes] = []
        self.server: WebSocketRoute | None = None
        page.route_web_socket(re.compile(r"/ws$"), self.route)

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        self.server = server

        def to_page(message: str | bytes) -> None:
            if self.dark:
                self.dropped.append(message)
            else:
                ws.send(message)

        def to_server(message: str | bytes) -> None:
            if self.dark and '"sync"' in str(message):
                self.held.append(message)
            else:
                server.send(message)

        server.on_message(to_page)
        ws.on_message(to_server)

    def light(self) -> None:
        self.dark = False
        assert self.server is not None
        for message in self.held:
            self.server.send(message)
        self.held.clear()


def test_a_move_left_unanswered_gives_the_board_back_after_five_seconds(browsing: Browsing) -> None:
    solo = browsing.open("solo", "/", still=True)
    page = solo.page
    wire = Blackout(page)  # before the room's connection opens (the home page makes it)
    create_from_home(page, "Solo", difficulty="easy", deal=5)
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    state = solo.settled()
    home = next(m for m in state["legal"] if m[0] == "p" and m.split(">")[1][0] in "ud")
    source = int(home.split(">")[0][1:])

    # The move goes, and its reply never comes: the board shows the move (pending) at once...
    wire.dark = True
    page.locator(f'[data-testid=board] [data-pile="{source}"]').focus()
    page.keyboard.press("Enter")
    board = page.get_by_test_id("board")
    expect(board).to_have_attribute("data-pending", "")
    assert solo.board()["piles"][source] == state["piles"][source][:-1]
    # ... and after 5 s without a reply, the server's board as last heard, open to input
    # again, while a resync asks what became of the move.
    expect(board).not_to_have_attribute("data-pending", "", timeout=8000)
    back = solo.board()
    assert (back["version"], back["piles"], back["legal"]) == (state["version"], state["piles"], state["legal"])
    expect(page.get_by_test_id("undo")).to_be_disabled()
    assert wire.held, "the page asked for a resync"
    assert wire.dropped, "the move's reply was dropped"

    # The resync's reply: the move had been played.
    wire.light()
    after = solo.settled(state["version"] + 1)
    assert after["piles"][source] == state["piles"][source][:-1]
    expect(page.get_by_test_id("undo")).to_be_enabled()


def test_the_spectator_view_opens_in_a_new_tab_and_the_seat_stays_in_the_race(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=9)
    hp = host.page
    bob = join_room(browsing, code, "Bob", tab_name="bob")
    # The lobby's watch link, for sharing, leaves the lobby where it is too.
    lobby_link = hp.get_by_test_id("lobby").get_by_test_id("watch-link")
    expect(lobby_link).to_have_attribute("target", "_blank")
    expect(lobby_link).to_have_accessible_name(f"/watch/{code} (opens in a new tab)")
    hp.get_by_test_id("start").click()
    expect(bob.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")

    link = hp.get_by_test_id("spectator-link")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", re.compile(r"\bnoopener\b"))
    expect(link).to_have_accessible_name("Spectator view (opens in a new tab)")
    with hp.context.expect_page() as opened:
        link.click()
    watching = browsing.adopt("ann-watching", opened.value)
    expect(watching.page).to_have_url(re.compile(rf"/watch/{code}$"))
    expect(watching.page.get_by_test_id("watch-player")).to_have_count(2)
    # Ann's race page is still hers, racing, and her rival sees a spectator, not Ann gone.
    expect(hp).to_have_url(re.compile(rf"/r/{code}$"))
    expect(hp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(bob.page.get_by_test_id("race-side").get_by_test_id("watching")).to_have_text("1 watching")
    expect(bob.page.locator("[data-testid=progress-s1]").get_by_test_id("away")).to_have_count(0)


def test_an_old_hint_leaves_the_page_when_the_race_ends_or_a_new_round_comes(browsing: Browsing) -> None:
    deal = 9  # easy: the first hint is a card's move (outlined on the board), not a shuffle
    assert str(Game.deal(deal, "easy").hint()) != "shuffle"
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=deal)
    hp = host.page
    # Bob's connection goes through a wire that the test can stall and cut.
    bob = browsing.open("bob", f"/r/{code}")
    bp = bob.page
    wire = Wire(bp)
    bp.get_by_test_id("join-name").fill("Bob")
    bp.get_by_test_id("join-room").click()
    expect(bp.get_by_test_id("lobby")).to_be_visible()
    hp.get_by_test_id("start").click()
    expect(bp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    bob.settled()

    def bob_asks_to_end() -> None:
        bp.get_by_test_id("vote-end").click()
        expect(bp.get_by_test_id("vote-end")).to_have_attribute("data-asked", "true")

    bob_asks_to_end()
    hint, outlined = bp.get_by_test_id("hint-text"), bp.locator("[data-testid=board] :is(.hint, .hint-target)")
    bp.keyboard.press("h")
    expect(hint).to_contain_text("Hint:")
    expect(outlined).to_have_count(2)  # the card and where it goes

    def end_the_race() -> None:
        """Bob asked to end the race (before his hint: asking is no move, the hint stays);
        Ann agrees."""
        hp.get_by_test_id("vote-end").click()
        expect(hp.get_by_test_id("room")).to_have_attribute("data-phase", "over")

    # The race ends: the hint goes, its words and its outlines.
    end_the_race()
    expect(bp.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    expect(hint).to_have_text("")
    expect(hint).to_have_attribute("data-move", "")
    expect(outlined).to_have_count(0)

    # A rematch (offered, accepted), and a hint in its race.
    hp.get_by_test_id("rematch").click()
    bp.get_by_test_id("offer-accept").click()
    expect(bp.get_by_test_id("lobby")).to_be_visible()
    hp.get_by_test_id("start").click()
    expect(bp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    bob.settled()
    bob_asks_to_end()
    bp.keyboard.press("h")
    expect(hint).to_contain_text("Hint:")
    # Then the news of that race's end and of another rematch is lost on its way to Bob's
    # page, but for the new round's room, which comes once its race has started: the page
    # asks for its new board, and the old deal's hint goes at once, not with the new board.
    # (Bob's yes to the rematch reaches the server; what follows does not reach his page.)
    wire.stall()
    end_the_race()
    hp.get_by_test_id("rematch").click()
    expect(hp.get_by_test_id("offer-waiting")).to_have_text("Waiting for Bob to answer.")
    wire.say({"type": "answer", "accept": True})
    expect(hp.get_by_test_id("lobby")).to_be_visible()
    hp.get_by_test_id("start").click()
    expect(hp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(hint).to_contain_text("Hint:")  # (still: the page heard nothing of it)
    wire.held.update({"joined", "state"})  # the new board, when asked for, comes later
    wire.lose(but_last="room")
    expect(bp.get_by_test_id("room-head")).to_contain_text("round 3")
    expect(hint).to_have_text("")
    expect(hint).to_have_attribute("data-move", "")
    expect(outlined).to_have_count(0)
    expect(bp.get_by_test_id("shuffle")).not_to_have_class(re.compile(r"\bhint\b"))
    wire.release()
    expect(bp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    bob.settled()
    expect(hint).to_have_text("")


def test_home_says_what_live_rooms_are_doing_and_takes_a_player_back_to_the_seat(browsing: Browsing) -> None:
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=13)
    # Ann's browser, on the home page: her room offers her seat back.
    home = browsing.another(host, "ann-home", "/")
    mine = home.page.locator(f'[data-testid=live-room][data-room="{code}"]')
    expect(mine).to_contain_text("easy · 1 player · waiting to start")
    expect(mine.get_by_test_id("live-room-status")).to_have_text(" easy · 1 player · waiting to start")
    back = mine.get_by_role("link", name="Back to your race")
    expect(back).to_have_attribute("href", f"/r/{code}")
    expect(mine.get_by_role("link", name="Join")).to_have_count(0)
    expect(mine.get_by_role("link", name="Watch")).to_be_visible()
    # Anyone else's: the room to join or to watch, no seat to go back to.
    visitor = browsing.open("visitor", "/")
    theirs = visitor.page.locator(f'[data-testid=live-room][data-room="{code}"]')
    expect(theirs.get_by_test_id("live-room-status")).to_have_text(" easy · 1 player · waiting to start")
    expect(theirs.get_by_role("link", name="Join")).to_be_visible()
    expect(theirs.get_by_test_id("back-to-seat")).to_have_count(0)

    host.page.get_by_test_id("start").click()
    expect(host.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    # (The list is read every LIVE_POLL_SECONDS, from the server's reading of up to
    # LIVE_ROOMS_FOR_SECONDS before.)
    racing = " easy · 1 player · race in progress"
    expect(theirs.get_by_test_id("live-room-status")).to_have_text(racing, timeout=20_000)
    expect(theirs.get_by_role("link", name="Join")).to_have_count(0)
    expect(mine.get_by_test_id("live-room-status")).to_have_text(racing, timeout=20_000)
    back.click()
    expect(home.page).to_have_url(re.compile(rf"/r/{code}$"))
    expect(home.page.get_by_test_id("room")).to_have_attribute("data-seat", "s1")
    expect(home.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    home.settled()


def test_a_player_who_is_out_may_end_a_race_whose_two_rivals_vanished(browsing: Browsing) -> None:
    """Three race; the host and Bob close their pages without resigning. Cy resigns: once
    neither of them has been back for HOST_AWAY_SECONDS (a reload is not gone), Cy may end the race."""
    host, code = create_room(browsing, "Ann", difficulty="easy", deal=14)
    bob = join_room(browsing, code, "Bob", tab_name="bob")
    cy = join_room(browsing, code, "Cy", tab_name="cy")
    cp = cy.page
    host.page.get_by_test_id("start").click()
    # (The countdown first: on a loaded machine it may take longer than a check's default wait.)
    expect(cp.get_by_test_id("room")).to_have_attribute("data-phase", "racing", timeout=WAIT_MS)
    cy.settled()
    host.page.close()
    bob.page.close()
    for seat in ("s1", "s2"):
        expect(cp.locator(f"[data-testid=progress-{seat}]").get_by_test_id("away")).to_be_visible()
    cp.get_by_test_id("resign").click()
    cp.get_by_test_id("resign").click()
    expect(cp.get_by_test_id("resigned-banner")).to_be_visible()
    end = cp.get_by_test_id("end-race")
    expect(end).to_have_count(0)  # they have only just gone, and may be reloading
    # HOST_AWAY_SECONDS after they went, neither counts: the button comes by itself.
    expect(end).to_be_visible(timeout=25_000)
    end.click()
    expect(end).to_have_text("Really end it for everyone?")
    end.click()
    expect(cp.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    rows = cp.locator("[data-testid=ranking] [data-testid=ranking-row]")
    expect(rows).to_have_count(3)
    expect(cp.get_by_test_id("rematch")).to_be_visible()
