"""The daily page end to end: a real server on a real Redis, headless Chromium.

One player plays today's deal to a win through the page (reloading on the way); another
player's page, open all along, sees the leaderboard change without a reload; a spectator
follows the attempt from its watch link. Then saved attempts: one of another day (the page's
clock, or midnight UTC, says so), one whose server lost it, one the server could not be
asked about when the page loaded. Every page must log no error; screenshots of every open
page are saved under test-output/<test>/ when the test fails.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import re
import shutil
import socket
import threading
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Page, Request, Route, WebSocketRoute, expect
from websockets.sync.client import ClientConnection, connect

from race.app import create_app
from race.daily import choose_deal, day_before
from race.engine import Game
from race.rooms.record import utc_date
from race.rooms.standing import board as board_of
from race.service import now_ms
from race.settings import Settings
from tests.support.players import win_the_daily
from tests.support.processes import DAILY_ENV, DAILY_SECRET, TIMEOUT, RedisServer, Server
from tests.support.web import CHROMIUM, Browsing, Tab, page_server

pytestmark = pytest.mark.browser

NODE_LIMIT = 200_000
DEALING_MS = 30_000
# A page's tries to reach its server again are spaced out, up to 5 s apart: a page waits
# this long for a server that is back.
BACK_MS = 20_000
NAME = 'Wendy &amp; "W"'  # reads differently if it is ever parsed as markup
# Every banner put in the page's live banner area, in order (by its test id).
SHOWN_JS = """(el) => {
  window.shown = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) window.shown.push(n.dataset?.testid ?? n.textContent);
  }).observe(el, { childList: true });
}"""


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is not installed (the test command installs Debian's chromium)")
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (the test command installs it)")
    # A Redis of its own: other tests post results to today's boards, and this one expects
    # its player to be first.
    redis = RedisServer()
    try:
        s = Server(
            redis.url,
            DAILY_NODE_LIMIT=str(NODE_LIMIT),
            RATE_LIMIT_PER_SECOND="1000",
            RATE_LIMIT_BURST="1000",
        )
        yield s
        s.stop()
    finally:
        redis.stop()


def test_a_daily_win_reaches_a_live_leaderboard_with_my_rank_and_streak(browsing: Browsing) -> None:
    # A second player has the daily page open before anyone finishes: an empty board today,
    # and yesterday's board (empty too).
    viewer = browsing.open("viewer", "/daily", phone=True)
    vp = viewer.page
    today_board = vp.get_by_test_id("today-board")
    expect(today_board).to_have_attribute("data-state", "ready")
    expect(today_board.get_by_test_id("board-empty")).to_be_visible()
    date = vp.get_by_test_id("daily").get_attribute("data-date")
    assert date, "the page shows which day it is"
    assert abs(dt.date.fromisoformat(date) - dt.datetime.now(dt.UTC).date()) <= dt.timedelta(days=1)
    yesterday = (dt.date.fromisoformat(date) - dt.timedelta(days=1)).isoformat()
    yesterday_board = vp.get_by_test_id("yesterday-board")
    expect(yesterday_board).to_have_attribute("data-date", yesterday)
    expect(yesterday_board.get_by_test_id("board-empty")).to_be_visible()
    viewer.assert_buttons_fit()  # a phone's width
    # A name the server refuses starts nothing.
    vp.get_by_test_id("daily-name").fill("<b>")
    vp.get_by_test_id("daily-play").tap()
    expect(vp.get_by_test_id("toast")).to_contain_text("name")
    expect(vp.get_by_test_id("daily-intro")).to_be_visible()
    vp.evaluate("window.notReloaded = true")
    asked = len(viewer.sent_types("leaderboard"))

    # The winner picks a name and the easy deal and starts a ranked attempt.
    winner = browsing.open("winner", "/daily", still=True)
    wp = winner.page
    wp.get_by_test_id("daily-name").fill(NAME)
    wp.get_by_test_id("daily-difficulty").select_option("easy")
    wp.get_by_test_id("daily-play").click()
    expect(wp.get_by_test_id("attempt-kind")).to_have_attribute("data-ranked", "true")
    expect(wp.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    expect(wp.get_by_test_id("streak")).to_have_attribute("data-streak", "0")
    code = wp.get_by_test_id("room-code").inner_text()
    assert wp.get_by_test_id("watch-link").get_attribute("href") == f"/watch/{code}"
    sent = winner.sent_types("daily")[0]
    assert {k: v for k, v in sent.items() if k != "device"} == {"type": "daily", "name": NAME, "difficulty": "easy"}
    assert re.fullmatch(r"[A-Za-z0-9_-]{32}", sent["device"])  # the page's device key (its games: /me)

    # The page deals exactly the deal the server chose for today; the clock waits.
    seed, line = choose_deal(date, "easy", NODE_LIMIT, DAILY_SECRET)
    state = winner.settled()
    assert state["piles"] == [[str(c) for c in pile] for pile in Game.deal(seed, "easy").piles]
    expect(wp.get_by_test_id("clock-note")).to_be_visible()
    # Beside today's times, the length of the solver's line for the deal.
    expect(wp.get_by_test_id("solver-moves").first).to_have_text(f" · solver: {len(line)} moves")
    winner.assert_board_fits()  # a laptop's 1280x800 window
    winner.assert_buttons_fit()
    wp.wait_for_timeout(300)
    expect(wp.get_by_test_id("timer")).to_have_text("0:00.0")

    # A spectator follows the watch link.
    spectator = browsing.open("spectator", f"/watch/{code}")
    sp = spectator.page
    expect(sp.get_by_test_id("watch-player")).to_have_count(1)
    expect(sp.locator("[data-testid=watch-player] .name")).to_have_text(NAME)
    expect(sp.locator(".progress-list .tag").filter(has_text="host")).to_have_count(0)  # an attempt has no host
    expect(sp.get_by_test_id("watch-status")).to_have_text("Racing · the clock starts at the first move")
    browsing.snap("start")

    # The first move (the clock starts), an undo and the move again. (No hint: a hinted win
    # of the daily is assisted, off the ranking; test_web_hints has that.)
    # (No race countdown ended here: the clock's start is no cue for a "Go!".)
    wp.get_by_test_id("countdown").evaluate(
        "el => { window.counted = []; new MutationObserver(() => window.counted.push(el.textContent))"
        ".observe(el, { childList: true, characterData: true, subtree: true }); }"
    )
    state = winner.play_by_drag(line[0], state)
    expect(wp.get_by_test_id("clock-note")).to_have_count(0)
    expect(wp.get_by_test_id("timer")).not_to_have_text("0:00.0")  # the clock was drawn running
    assert wp.evaluate("window.counted") == []
    expect(sp.get_by_test_id("watch-status")).to_have_text(re.compile(r"^Racing · \d+:\d\d\.\d$"))
    wp.get_by_test_id("undo").click()
    state = winner.settled(state["version"] + 1)
    state = winner.play_by_drag(line[0], state)

    # The rest of the line, with a reload a third of the way: the attempt resumes.
    refresh_at = len(line) // 3
    for i, move in enumerate(line[1:], start=1):
        if i == refresh_at:
            wp.reload()
            after = winner.settled(state["version"])
            assert (after["piles"], after["foundations"]) == (state["piles"], state["foundations"])
            expect(wp.get_by_test_id("move-count")).to_have_text(str(i + 1))
            expect(wp.get_by_test_id("attempt-kind")).to_have_attribute("data-ranked", "true")
            expect(wp.get_by_test_id("daily-name")).to_have_value(NAME)
            assert len(winner.sent_types("daily")) == 1
            assert winner.sent_types("resume")[-1]["room"] == code
            browsing.snap("midway")
            state = after
            # From here, every banner put in the live banner area is recorded: a screen
            # reader hears what is put there, so each must go in once, not at each redraw.
            wp.get_by_test_id("banners").evaluate(SHOWN_JS)
        state = winner.play_by_drag(move, state)

    # The win: banner, time, my rank 1 and a streak of 1, my own row highlighted.
    banner = wp.get_by_test_id("won-banner")
    expect(banner).to_contain_text("You cleared today")
    found = re.search(r"Time (\d+:\d\d\.\d) in (\d+) moves", banner.inner_text())
    assert found, banner.inner_text()
    time_text, moves = found[1], int(found[2])
    assert moves == len(line) + 1  # the undone move counts
    expect(wp.get_by_test_id("my-rank")).to_contain_text(f"{moves} moves")
    expect(wp.get_by_test_id("my-rank")).to_have_attribute("data-rank", "1")
    expect(wp.get_by_test_id("my-rank")).to_contain_text(time_text)
    expect(wp.get_by_test_id("streak")).to_have_attribute("data-streak", "1")
    mine = wp.locator("[data-testid=today-board] [data-testid=ranking-row]")
    expect(mine).to_have_count(1)
    expect(mine).to_have_class("me")

    # The other player's page shows the finish without a reload: the name as text, the time.
    row = vp.locator("[data-testid=today-board] [data-testid=ranking-row]")
    expect(row).to_have_count(1)
    expect(row).to_have_attribute("data-place", "1")
    expect(row.locator(".name")).to_have_text(NAME)
    expect(row.get_by_test_id("result")).to_have_text(time_text)
    expect(row).not_to_have_class("me")
    assert vp.evaluate("window.notReloaded") is True
    assert len(viewer.sent_types("leaderboard")) == asked  # pushed, not asked for
    expect(vp.get_by_test_id("my-rank")).to_have_attribute("data-rank", "")
    expect(sp.locator("[data-testid=watch-player]")).to_have_attribute("data-cards", "104")
    browsing.snap("won")
    assert wp.evaluate("window.shown") == ["won-banner"]

    # Another attempt the same day is practice.
    wp.get_by_test_id("daily-play").click()
    expect(wp.get_by_test_id("attempt-kind")).to_have_attribute("data-ranked", "false")
    expect(wp.get_by_test_id("room-code")).not_to_have_text(code)
    assert winner.sent_types("daily")[-1].get("token"), "later attempts name the player's token"
    expect(wp.get_by_test_id("my-rank")).to_have_attribute("data-rank", "1")
    browsing.snap("practice")

    # Another difficulty's boards, then back: today's easy board is shown again.
    vp.get_by_test_id("daily-difficulty").select_option("medium")
    expect(today_board).to_have_attribute("data-state", "ready")
    expect(today_board.get_by_test_id("board-empty")).to_be_visible()
    vp.get_by_test_id("daily-difficulty").select_option("easy")
    expect(today_board).to_have_attribute("data-state", "ready")
    expect(row).to_have_count(1)
    expect(row.locator(".name")).to_have_text(NAME)

    # On today's board, the winner may race their own game of today again (no one else may
    # see it before the day is over): a solo race on the day's deal, against that ghost.
    expect(vp.get_by_test_id("race-best")).to_have_count(0)
    # Its replay too, linked from today's board for the winner alone.
    mine_link = wp.get_by_test_id("today-board").get_by_test_id("result-replay")
    expect(mine_link).to_have_attribute("href", f"/replay/room/{code}")
    expect(vp.get_by_test_id("today-board").get_by_test_id("result-replay")).to_have_count(0)
    wp.get_by_test_id("race-best").click()
    expect(wp.get_by_test_id("lobby-ghosts")).to_contain_text(NAME)
    ghost_room = winner.received_types("joined")[-1]["room"]
    assert ghost_room["kind"] == "race" and ghost_room["daily_date"] == date
    assert ghost_room["ghosts"][0]["home"][-1] == 104
    wp.goto(f"/replay/room/{code}")  # (the page sends its daily token: the server lets it see)
    expect(wp.get_by_test_id("replay-game")).to_have_count(1)


def start_attempt(tab: Tab, name: str) -> str:
    """Start today's easy attempt on the daily page; returns today's date (the server's).
    (The first attempt of the day on a server waits while it proves the deal winnable.)"""
    page = tab.page
    page.get_by_test_id("daily-name").fill(name)
    page.get_by_test_id("daily-difficulty").select_option("easy")
    page.get_by_test_id("daily-play").click()
    expect(page.get_by_test_id("attempt-kind")).to_have_attribute("data-ranked", "true", timeout=DEALING_MS)
    expect(page.get_by_test_id("daily")).to_have_attribute("data-date", re.compile(r"^\d{4}-\d\d-\d\d$"))
    date = page.get_by_test_id("daily").get_attribute("data-date")
    assert date
    return date


def attempt_under_way(browsing: Browsing, name: str) -> tuple[Tab, str, dict[str, Any]]:
    """A page with today's attempt started and one move played (so it is saved, and has a
    board to resume): the tab, the attempt's room code and the board after the move."""
    tab = browsing.open(name.lower(), "/daily")
    start_attempt(tab, name)
    code = tab.page.get_by_test_id("room-code").inner_text()
    state = tab.settled()
    return tab, code, tab.play_by_drag(next(m for m in state["legal"] if m != "shuffle"), state)


def until(ws: ClientConnection, kind: str) -> dict[str, Any]:
    """The next message of ``kind`` on a plain websocket (an error fails the test)."""
    while True:
        m: dict[str, Any] = json.loads(ws.recv(timeout=30))
        assert m["type"] != "error", m
        if m["type"] == kind:
            return m


def test_an_attempt_turns_practice_when_another_of_the_day_finishes_first(browsing: Browsing, server: Server) -> None:
    tab = browsing.open("pat", "/daily")
    page = tab.page
    date = start_attempt(tab, "Pat")
    kind, note = page.get_by_test_id("attempt-kind"), page.get_by_test_id("attempt-note")
    expect(note).to_contain_text("Ranked")
    # The same player elsewhere (another tab, a script with the token) starts a second
    # attempt and wins it first: that one is the day's ranked result.
    token = page.evaluate("localStorage.getItem('crescent.daily.token')")
    # (The page shows another difficulty's boards meanwhile: it still hears its attempt's.)
    page.get_by_test_id("daily-difficulty").select_option("medium")
    expect(page.get_by_test_id("today-board")).to_have_attribute("data-state", "ready")
    seed, line = choose_deal(date, "easy", NODE_LIMIT, DAILY_SECRET)
    with connect(server.ws_url) as ws:
        until(ws, "hello")
        ws.send(json.dumps({"type": "daily", "name": "Pat", "difficulty": "easy", "token": token}))
        joined = until(ws, "joined")
        assert joined["state"]["board"] == board_of(Game.deal(seed, "easy")) and joined["daily"]["ranked"]
        state = joined["state"]
        for move in line:
            ws.send(json.dumps({"type": "move", "move": move, "version": state["version"]}))
            state = until(ws, "state")
        assert state["won"]
    # The page's attempt, still running, now says it is practice.
    expect(kind).to_have_attribute("data-ranked", "false")
    expect(note).to_contain_text("Practice: you have finished today already")
    page.get_by_test_id("daily-difficulty").select_option("easy")
    expect(page.get_by_test_id("my-rank")).to_contain_text(f"{len(line)} moves")


SET_ATTEMPT_DATE_JS = """(date) => {
  const key = 'crescent.daily.attempt';
  localStorage.setItem(key, JSON.stringify({ ...JSON.parse(localStorage.getItem(key)), date }));
}"""


def test_a_saved_attempt_of_another_day_reopens_while_it_runs(browsing: Browsing) -> None:
    """An attempt started before midnight UTC counts for its own day, and the computer's
    clock may be wrong: a reload asks the server, not the clock, whether it still runs."""
    tab, code, state = attempt_under_way(browsing, "Quinn")
    page = tab.page

    page.evaluate(SET_ATTEMPT_DATE_JS, "2000-01-01")  # dealt on another day, by this clock
    page.reload()
    expect(page.get_by_test_id("room-code")).to_have_text(code)
    after = tab.settled(state["version"])
    assert after["piles"] == state["piles"]
    assert tab.sent_types("resume")[-1]["room"] == code

    # Given up, it is over: the next visit forgets it and offers a new attempt.
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()  # "Really give up?"
    expect(page.get_by_test_id("resigned-banner")).to_be_visible()
    # The attempt is over, and its page has no ranking under the board to go to, whatever
    # the window's width (the race page's way there comes with a narrower one).
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    page.set_viewport_size({"width": 800, "height": 800})
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    expect(page.get_by_test_id("to-ranking")).to_be_hidden()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.evaluate(SET_ATTEMPT_DATE_JS, "2000-01-01")
    page.reload()
    page.wait_for_function("() => localStorage.getItem('crescent.daily.attempt') === null")
    expect(page.get_by_test_id("daily-intro")).to_be_visible()
    expect(page.get_by_test_id("room-code")).to_have_count(0)
    expect(page.get_by_test_id("daily-play")).to_have_text(re.compile(r"^Play today.s deal$"))


def test_a_player_the_server_no_longer_knows_starts_afresh_and_is_told(browsing: Browsing) -> None:
    """A token the server does not know (kept too long, or a server that lost its store)."""
    tab = browsing.open("rae", "/daily")
    page = tab.page
    page.evaluate("localStorage.setItem('crescent.daily.token', 'not-a-player-this-server-knows')")
    page.reload()
    page.get_by_test_id("daily-name").fill("Rae")
    page.get_by_test_id("daily-difficulty").select_option("easy")
    page.get_by_test_id("daily-play").click()
    # (Told at once, while the server may still be dealing: a toast lasts 4 s.)
    expect(page.get_by_test_id("toasts")).to_contain_text("no longer knows your player")
    expect(page.get_by_test_id("attempt-kind")).to_have_attribute("data-ranked", "true")
    sent = tab.sent_types("daily")
    assert [m.get("token") for m in sent] == ["not-a-player-this-server-knows", None]
    token = page.evaluate("localStorage.getItem('crescent.daily.token')")
    assert token and token != "not-a-player-this-server-knows"


class Calendar:
    """The clock of a server's daily challenge (which day it deals, and whose board is
    "today's"): while ``frozen`` is set, that instant; else the real clock."""

    def __init__(self, frozen: dt.datetime | None = None) -> None:
        self.frozen = frozen

    def __call__(self) -> int:
        return now_ms() if self.frozen is None else int(self.frozen.timestamp() * 1000)


class InProcess:
    """A server in this process, on the embedded store, whose daily challenge keeps the days
    of ``calendar`` (the rest of it, the race's clock included, keeps the real time). Its
    settings are read from the environment as ``python -m race serve`` reads them."""

    def __init__(self, calendar: Calendar) -> None:
        self.calendar = calendar
        settings = Settings.from_env(
            {
                **os.environ,
                "REDIS_URL": "memory://",
                "COUNTDOWN_SECONDS": "1",
                "DAILY_WARM": "0",
                "DAILY_NODE_LIMIT": str(NODE_LIMIT),
                "RATE_LIMIT_PER_SECOND": "10000",
                "RATE_LIMIT_BURST": "10000",
                "ROOMS_PER_MINUTE_PER_IP": "100000",
                **DAILY_ENV,
            }
        )
        app = create_app(settings)
        app.state.parts.results.clock = calendar  # the days of the daily challenge
        # Listening before the thread starts: a page may connect at once (it waits its turn).
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen()
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=TIMEOUT)
        self.socket.close()
        assert not self.thread.is_alive(), "the server in this process did not stop"


@pytest.fixture
def late_night() -> Iterator[InProcess]:
    """A server whose day is yesterday (by the real clock), a minute before midnight UTC,
    until the test lets its days catch up. (Asked for before ``browsing``, it stops after
    the pages have closed: they do not see it go.)"""
    yesterday = day_before(utc_date(now_ms()))
    here = InProcess(Calendar(dt.datetime.fromisoformat(f"{yesterday}T23:59:00+00:00")))
    yield here
    here.stop()


def day_pattern(date: str) -> str:
    """A pattern for a date as the page writes it, in any language that writes its digits
    so: with its day of the month and its year (the next day's day of the month is another)."""
    day = dt.date.fromisoformat(date)
    return rf"(?=[^!]*\b{day.day}\b)(?=[^!]*\b{day.year}\b)[^!]+?"


def test_an_attempt_won_after_midnight_utc_is_of_its_own_day(late_night: InProcess, browsing: Browsing) -> None:
    """An attempt dealt before midnight UTC is won after it, in a page loaded after it: the
    page, whose date is past the attempt's, asks the server whether it still runs, resumes
    it, and calls the win the deal of its own day (on that day's board, not today's)."""
    tab = browsing.open("val", f"{late_night.url}/daily", still=True)
    page = tab.page
    start_attempt(tab, "Val")
    date = tab.received_types("joined")[-1]["daily"]["date"]  # the server's day
    frozen = late_night.calendar.frozen
    assert frozen is not None and date == frozen.date().isoformat()
    code = page.get_by_test_id("room-code").inner_text()
    _, line = choose_deal(date, "easy", NODE_LIMIT, DAILY_SECRET)
    state = tab.play_by_drag(line[0], tab.settled())

    # Midnight UTC passes; the page is loaded again (on the new day, by its clock too).
    late_night.calendar.frozen = None
    looked_up: list[str] = []
    page.on("request", lambda r: looked_up.append(r.url) if "/api/rooms/" in r.url else None)
    page.reload()
    expect(page.get_by_test_id("room-code")).to_have_text(code)
    after = tab.settled(state["version"])
    assert (after["piles"], after["foundations"]) == (state["piles"], state["foundations"])
    assert [u.split("/api/rooms/")[1] for u in looked_up] == [code], "asked the server whether it runs"
    assert tab.sent_types("resume")[-1]["room"] == code
    expect(page.get_by_test_id("today-board")).to_have_attribute("data-state", "ready")
    today = page.get_by_test_id("daily").get_attribute("data-date")
    assert today and today > date, (today, date)  # the server's new day is the page's today

    state = after
    for move in line[1:]:
        state = tab.play_by_drag(move, state)
    won = rf"^You cleared the deal of {day_pattern(date)}! Time \d+:\d\d\.\d in {len(line)} moves · on the leaderboard$"
    expect(page.get_by_test_id("won-banner")).to_have_text(re.compile(won))
    note = page.get_by_test_id("attempt-note")
    expect(note).to_have_text(re.compile(rf"^Ranked: your time is on the leaderboard of {day_pattern(date)}\.$"))
    expect(page.get_by_test_id("attempt-kind")).to_have_attribute("data-ranked", "true")
    # The result is on the board of the attempt's day, and today's has none.
    with urllib.request.urlopen(f"{late_night.url}/api/daily?difficulty=easy&date={date}", timeout=10) as r:
        board = json.loads(r.read())
    assert [(e["name"], e["moves"], e["room"]) for e in board["entries"]] == [("Val", len(line), code)]
    expect(page.get_by_test_id("today-board").get_by_test_id("board-empty")).to_be_visible()

    # That day is over: its board links each time to its game, which replays to the win.
    link = page.get_by_test_id("yesterday-board").get_by_test_id("result-replay")
    expect(link).to_have_attribute("href", f"/replay/room/{code}")
    expect(page.get_by_test_id("today-board").get_by_test_id("result-replay")).to_have_count(0)
    link.click()
    expect(page).to_have_url(re.compile(r"/replay/[A-Za-z0-9_-]{12}$"))
    expect(page.get_by_test_id("replay-game")).to_have_count(1)
    page.keyboard.press("End")
    expect(page.get_by_test_id("replay-game")).to_have_attribute("data-won", "true")
    expect(page.get_by_test_id("replay-count")).to_contain_text(f"move {len(line)} of {len(line)}")


class Forgetful:
    """A server on the embedded store: restarted, on its port, it knows no room and no player
    any more (as after a crash or a deploy)."""

    def __init__(self) -> None:
        self.server = page_server(DAILY_NODE_LIMIT=str(NODE_LIMIT))

    def restart(self) -> None:
        self.server.kill()  # kill -9
        self.server = page_server(port=self.server.port, DAILY_NODE_LIMIT=str(NODE_LIMIT))


@pytest.fixture
def forgetful() -> Iterator[Forgetful]:
    """(Asked for before ``browsing``, it stops after the pages have closed.)"""
    f = Forgetful()
    yield f
    f.server.stop()


def test_an_attempt_its_server_lost_is_gone_and_the_page_says_why(forgetful: Forgetful, browsing: Browsing) -> None:
    """The server restarts without the attempt's room (the embedded store goes with it):
    the page, resuming the attempt, is told it is no more, says so, forgets it and offers a
    new one."""
    tab = browsing.open("gil", f"{forgetful.server.url}/daily")
    page = tab.page
    start_attempt(tab, "Gil")
    code = page.get_by_test_id("room-code").inner_text()

    forgetful.restart()  # the attempt's room is lost with the server's memory
    # The page reconnects, asks to resume the attempt, is told it is no more, and says so.
    intro = page.get_by_test_id("daily-intro")
    expect(intro.locator(".error")).to_have_text(
        f"That attempt is gone: there is no room {code} (it may have expired). Start a new one.", timeout=BACK_MS
    )
    assert tab.sent_types("resume")[-1]["room"] == code
    expect(page.get_by_test_id("room-code")).to_have_count(0)
    expect(page.get_by_test_id("daily-play")).to_have_text(re.compile(r"^Play today.s deal$"))
    assert page.evaluate("localStorage.getItem('crescent.daily.attempt')") is None

    # Forgotten: the next visit resumes nothing, and has nothing to say of it.
    resumes = len(tab.sent_types("resume"))
    page.reload()
    expect(intro).to_be_visible()
    expect(page.get_by_test_id("today-board")).to_have_attribute("data-state", "ready")
    expect(intro.locator(".error")).to_have_count(0)
    assert len(tab.sent_types("resume")) == resumes
    # Chromium logs every refused websocket connection as a console error: the page's tries
    # while no server was listening. They are the outage, not a fault of the page.
    tab.errors[:] = [e for e in tab.errors if "ERR_CONNECTION_REFUSED" not in e]


class Outage:
    """A page's way to its server, with a switch: while ``down``, the room look-ups fail and
    every websocket is closed before it reaches the server (as when the server is away); the
    look-ups are recorded, each with whether it got through."""

    def __init__(self, page: Page) -> None:
        self.down = True
        self.look_ups: list[tuple[str, bool]] = []
        page.route("**/api/rooms/*", self.look_up)
        page.route_web_socket(re.compile(r"/ws$"), self.connection)

    def look_up(self, route: Route, request: Request) -> None:
        self.look_ups.append((request.url.split("/api/rooms/")[1], not self.down))
        if self.down:
            route.abort()
        else:
            route.continue_()

    def connection(self, ws: WebSocketRoute) -> None:
        if self.down:
            ws.close()
        else:
            ws.connect_to_server()


def test_a_saved_attempt_the_server_could_not_be_asked_about_reopens_when_it_is_back(browsing: Browsing) -> None:
    """The computer's clock is a day ahead, so the page asks the server whether its saved
    attempt still runs; the server is away when the page loads: when the page reaches it
    again, it asks again, and resumes the attempt."""
    tab, code, state = attempt_under_way(browsing, "Kit")
    page = tab.page

    page.clock.install(time=dt.datetime.now(dt.UTC) + dt.timedelta(days=1))
    outage = Outage(page)
    with page.expect_event("requestfailed", lambda r: "/api/rooms/" in r.url):
        page.reload()
    expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "offline")
    expect(page.get_by_test_id("daily-intro")).to_be_visible()
    expect(page.get_by_test_id("room-code")).to_have_count(0)
    assert outage.look_ups == [(code, False)]

    outage.down = False  # the server is back: the page's next try to reach it gets through
    expect(page.get_by_test_id("room-code")).to_have_text(code, timeout=BACK_MS)
    after = tab.settled(state["version"])
    assert (after["piles"], after["foundations"]) == (state["piles"], state["foundations"])
    assert tab.sent_types("resume")[-1]["room"] == code
    assert outage.look_ups == [(code, False), (code, True)]
    # The failed look-up is logged by Chromium as a console error: the outage, not a fault.
    tab.errors[:] = [e for e in tab.errors if "ERR_FAILED" not in e]


def test_two_players_of_one_name_are_told_apart_on_the_leaderboard(browsing: Browsing, server: Server) -> None:
    # (in a thread of its own: Playwright's synchronous API runs an event loop in this one)
    with ThreadPoolExecutor(1) as pool:
        twins = [pool.submit(asyncio.run, win_the_daily(server.ws_url, "Twin")).result() for _ in range(2)]
    tab = browsing.open("twins", "/daily")
    rows = tab.page.locator("[data-testid=today-board] [data-testid=ranking-row]").filter(has_text="Twin")
    expect(rows).to_have_count(2)
    aliases = rows.get_by_test_id("alias").all_inner_texts()
    assert sorted(a.strip() for a in aliases) == sorted(f"#{t['daily']['player'][:4]}" for t in twins)
    browsing.snap("twins")
