"""The replay page in real headless Chromium: a race over offers each player's game and the
whole race; the replay steps forward and back, and the board at each chosen step is the
engine's after those actions; it plays at 8x to the end; two games share one timeline; a
game not on the record says so."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from race.engine import Game
from race.rooms.standing import board
from tests.support.players import bob_wins
from tests.support.processes import Client, Server
from tests.support.rooms import create_room, solo_race
from tests.support.web import BOARD_JS, OUTPUT, Browsing
from tests.support.winning_lines import winning_line

pytestmark = pytest.mark.browser
# The solver's line for a finished race's deal; a player away 2 s is gone (not 15).
SERVER_ENV = {"SOLVER_NODE_LIMIT": "200000", "HOST_AWAY_SECONDS": "2"}

DEAL, DIFFICULTY = 8, "easy"  # a deal with a checked-in winning line (Bob plays it)


def engine_board(acts: list[str]) -> dict[str, Any]:
    """The board after ``acts`` as the page reads one (see BOARD_JS): piles, foundations."""
    game = Game.deal(DEAL, DIFFICULTY)
    for act in acts:
        if act == "undo":
            game.undo()
        else:
            game.play(act)
    b = board(game)
    return {"piles": b["piles"], "foundations": {k: [f["count"], f["top"]] for k, f in b["foundations"].items()}}


def shown(page: Page, game: int = 0) -> dict[str, Any]:
    root = page.locator("[data-testid=replay-game]").nth(game).element_handle()
    state: dict[str, Any] = page.evaluate(BOARD_JS, root)
    return {"piles": state["piles"], "foundations": state["foundations"]}


def at_step(page: Page, step: int) -> None:
    expect(page.get_by_test_id("replay")).to_have_attribute("data-step", str(step))


def test_a_race_over_links_each_game_and_its_replay_steps_as_the_engine_played(
    browsing: Browsing, server: Server
) -> None:
    alice, code = create_room(browsing, "Alice", difficulty=DIFFICULTY, deal=DEAL, tab_name="alice", still=True)
    page = alice.page
    with ThreadPoolExecutor(1) as pool:
        bob = pool.submit(asyncio.run, bob_wins(server.ws_url, code))
        expect(page.locator("[data-testid=lobby-player][data-seat=s2]")).to_have_attribute("data-ready", "true")
        page.get_by_test_id("start").click()
        expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
        # Alice: two moves, a shuffle, an undo (of a move), another move.
        acts: list[str] = []
        state = alice.settled()
        for _ in range(2):
            move = next(m for m in state["legal"] if m != "shuffle")
            state = alice.play_by_drag(move, state)
            acts.append(move)
        state = alice.play_by_drag("shuffle", state)
        acts.append("shuffle")
        move = next(m for m in state["legal"] if m != "shuffle")
        state = alice.play_by_drag(move, state)
        acts.append(move)
        page.get_by_test_id("undo").click()
        state = alice.settled(state["version"] + 1)
        acts.append("undo")
        bob.result(timeout=60)
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")

    # Under the ranking: each player's game, and the whole race.
    links = page.get_by_test_id("replay-link")
    expect(links).to_have_count(2)
    expect(page.get_by_test_id("race-replay")).to_be_visible()
    race_href = page.get_by_test_id("race-replay").get_attribute("href")
    watcher = browsing.open("watcher", f"/watch/{code}")  # a spectator is offered them too
    expect(watcher.page.get_by_test_id("replay-link")).to_have_count(2)
    expect(watcher.page.get_by_test_id("race-replay")).to_have_attribute("href", race_href or "")
    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "race-over-laptop.png"))
    expect(page.locator("[data-testid=replay-link][data-seat=s1]")).to_have_text("▶ Your game")
    expect(page.locator("[data-testid=replay-link][data-seat=s2]")).to_have_text("▶ Bob")
    page.locator("[data-testid=replay-link][data-seat=s1]").click()
    expect(page).to_have_url(re.compile(r"/replay/[A-Za-z0-9_-]{12}$"))
    replay = page.get_by_test_id("replay")
    at_step(page, 0)
    assert shown(page) == engine_board([])
    expect(page.get_by_test_id("replay-shuffle")).to_have_count(1)

    forward, back = page.get_by_test_id("replay-forward"), page.get_by_test_id("replay-back")
    for n in range(1, 4):
        forward.click()
        at_step(page, n)
        assert shown(page) == engine_board(acts[:n]), f"step {n}"
    expect(page.get_by_test_id("replay-count")).to_contain_text("move 3 of 5")
    back.click()
    at_step(page, 2)
    assert shown(page) == engine_board(acts[:2])
    page.keyboard.press("End")
    at_step(page, len(acts))
    assert shown(page) == engine_board(acts)
    page.keyboard.press("ArrowLeft")
    at_step(page, len(acts) - 1)
    assert shown(page) == engine_board(acts[:-1])

    # At 8x from the start, it plays through to the end by itself and stops there.
    page.locator("[data-testid=replay-speed][data-speed='8']").click()
    expect(page.locator("[data-testid=replay-speed][data-speed='8']")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Home")
    at_step(page, 0)
    page.get_by_test_id("replay-play").click()
    expect(replay).to_have_attribute("data-playing", "true")
    expect(replay).to_have_attribute("data-playing", "false", timeout=60_000)
    at_step(page, len(acts))
    assert shown(page) == engine_board(acts)
    page.screenshot(path=str(folder / "replay-laptop.png"), full_page=True)

    # The solver's line for the deal, its length, beside the game (found once the race was over).
    async def solved() -> None:
        async with asyncio.timeout(60):
            while httpx.get(f"{server.url}/api/replays/{replay_id}").json()["solver_moves"] is None:
                await asyncio.sleep(0.1)  # (a worker's search: nothing to wait on but its result)

    replay_id = page.url.rsplit("/", 1)[1]
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, solved()).result(timeout=90)
    page.reload()
    expect(page.get_by_test_id("solver-moves")).to_have_text(re.compile(r"^ · solver: \d+ moves$"))

    # The whole race on one timeline: at the end Bob's game is won, on the engine's board.
    assert race_href
    page.goto(race_href)
    games = page.get_by_test_id("replay-game")
    expect(games).to_have_count(2)
    page.keyboard.press("End")
    bob_game = page.locator("[data-testid=replay-game][data-won=true]")
    expect(bob_game).to_have_count(1)
    expect(bob_game).to_contain_text("Bob")
    bob_board = page.evaluate(BOARD_JS, bob_game.element_handle())
    assert all(count == 13 for count, _ in bob_board["foundations"].values())
    page.screenshot(path=str(folder / "race-again-laptop.png"), full_page=True)

    phone = browsing.open("phone", race_href, phone=True)
    expect(phone.page.get_by_test_id("replay-game")).to_have_count(2)
    phone.page.screenshot(path=str(folder / "race-again-phone.png"), full_page=True)
    one = browsing.open("phone-one", page.url.split(",")[0], phone=True)
    expect(one.page.get_by_test_id("replay-game")).to_have_count(1)
    box = one.page.get_by_test_id("replay-controls").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    one.page.screenshot(path=str(folder / "replay-phone.png"), full_page=True)


def test_a_game_not_on_the_record_says_so(browsing: Browsing, server: Server) -> None:
    tab = browsing.open("reader", "/replay/AAAAAAAAAAAA")
    expect(tab.page.get_by_test_id("replay-missing")).to_contain_text("not on the record")
    tab.errors[:] = [e for e in tab.errors if "status of 404" not in e]  # the page's own fetch, answered
    assert httpx.get(f"{server.url}/replay/not-an-id").status_code == 404
    assert httpx.get(f"{server.url}/replay/AAAAAAAAAAAA,BBBBBBBBBBBB").status_code == 200


async def ann_wins(ws_url: str) -> str:
    """Ann wins deal 8 alone over a websocket; the room's code."""
    client = await Client.connect(ws_url)
    try:
        created = await client.request(
            {"type": "create", "name": "Ann", "difficulty": DIFFICULTY, "deal": DEAL}, "joined"
        )
        await client.send({"type": "start"})
        await client.expect("room", where=lambda m: m["room"]["phase"] == "racing")
        state = created["state"]
        for move in winning_line(DEAL, DIFFICULTY):
            state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert state["won"], state
        code: str = created["room"]["code"]
        return code
    finally:
        await client.close()


def test_a_replay_can_be_raced_and_its_ghost_runs_on_the_servers_clock(browsing: Browsing, server: Server) -> None:
    with ThreadPoolExecutor(1) as pool:  # (the page's driver holds this thread's event loop)
        code = pool.submit(asyncio.run, ann_wins(server.ws_url)).result(timeout=60)
    (game,) = httpx.get(f"{server.url}/api/rooms/{code}/replays").json()["replays"]
    tab = browsing.open("cat", f"/replay/{game['id']}", still=True)
    page = tab.page
    page.get_by_test_id("ghost-name").fill("Cat")
    page.get_by_test_id("race-ghost").click()
    expect(page.get_by_test_id("lobby")).to_be_visible()
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    ghost = page.get_by_test_id("race-side").get_by_test_id("progress-g1")
    expect(ghost).to_contain_text("Ann")
    expect(ghost).to_contain_text("ghost")
    state = tab.settled()
    assert page.get_by_test_id("room").get_attribute("data-code") != code
    # From the start the ghost plays as it did, to its finish.
    tab.play_by_drag(next(m for m in state["legal"] if m != "shuffle"), state)
    expect(ghost).to_have_attribute("data-status", "finished")
    expect(ghost).to_have_attribute("data-cards", "104")
    finished = game["result"]["finished_ms"]
    expect(ghost.get_by_test_id("status")).to_have_text(f"finished 0:{finished // 1000:02d}.{finished % 1000 // 100}")
    # Drawn as a rival: its name, its cards home, its pace against Cat (never "away").
    mine = page.locator("[data-testid=race-side] .progress-row.me")
    cards = int(mine.get_attribute("data-cards") or "0")
    pace = ghost.get_by_test_id("pace")
    expect(pace).to_have_attribute("data-ahead", "true")
    expect(pace).to_have_text(f"{104 - cards} cards ahead of you")
    expect(ghost.get_by_test_id("away")).to_have_count(0)
    room_code = page.get_by_test_id("room").get_attribute("data-code")
    watcher = browsing.open("watcher", f"/watch/{room_code}", phone=True)  # a spectator sees the ghost too
    watched = watcher.page.get_by_test_id("watch-side").get_by_test_id("progress-g1")
    expect(watched).to_have_attribute("data-status", "finished")
    expect(watched).to_contain_text("ghost")
    expect(watched.get_by_test_id("pace")).to_have_count(0)  # (a spectator races nobody)
    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "ghost-race-laptop.png"))
    watcher.page.screenshot(path=str(folder / "ghost-race-watch-phone.png"), full_page=True)
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    rows = page.get_by_test_id("race-side").get_by_test_id("ranking-row")
    expect(rows.first).to_contain_text("Ann")
    expect(rows.first).to_contain_text("ghost")
    expect(page.locator("[data-testid=replay-link][data-seat=g1]")).to_have_attribute("href", f"/replay/{game['id']}")

    # Again, the same deal, against this round's games: Cat's own and nobody else's.
    page.get_by_test_id("rematch-ghosts").click()
    expect(page.get_by_test_id("lobby-ghosts")).to_have_text(re.compile(r"^Racing the ghosts of: Cat \("))
    page.screenshot(path=str(folder / "ghost-rematch-lobby-laptop.png"))


def test_my_games_list_the_race_and_move_to_another_device(browsing: Browsing) -> None:
    tab = browsing.open("solo", "/", still=True)
    page = tab.page
    solo_race(tab, DIFFICULTY, DEAL)
    state = tab.settled()
    tab.play_by_drag(next(m for m in state["legal"] if m != "shuffle"), state)
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    code = page.get_by_test_id("room").get_attribute("data-code")
    expect(page.get_by_test_id("replay-link")).to_have_count(1)  # the game is on the record

    with page.context.expect_page() as opened:  # (a new tab: this one keeps the seat)
        page.get_by_test_id("race-side").get_by_test_id("me-link").click()
    page = browsing.adopt("me", opened.value).page
    games = page.get_by_test_id("me-game")
    expect(games).to_have_count(1)
    expect(games.first).to_have_attribute("data-room", code or "")
    expect(games.first).to_contain_text(f"Race · {DIFFICULTY} · deal {DEAL}")
    expect(games.first).to_contain_text("solo")
    expect(games.first).to_contain_text("(resigned)")
    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)
    expect(page.get_by_test_id("me-qr")).to_be_visible()  # the link as a QR code, for a phone's camera
    page.screenshot(path=str(folder / "me-laptop.png"), full_page=True)

    # Another device, given this one's link, shows the same games once it takes the key.
    key = page.evaluate("localStorage.getItem('crescent-race.device')")
    other = browsing.open("phone", f"/me#key={key}", phone=True)
    other.page.get_by_test_id("me-adopt").tap()
    expect(other.page.get_by_test_id("me-game")).to_have_count(1)
    assert other.page.evaluate("location.hash") == ""  # the key does not stay in the address
    other.page.screenshot(path=str(folder / "me-phone.png"), full_page=True)
    games.first.get_by_test_id("me-replay").click()
    expect(page.get_by_test_id("replay-game")).to_have_count(1)


def test_a_series_keeps_score_across_rounds_and_can_replay_the_same_deal(browsing: Browsing, server: Server) -> None:
    alice, code = create_room(browsing, "Alice", difficulty=DIFFICULTY, deal=DEAL, tab_name="alice", still=True)
    page = alice.page
    with ThreadPoolExecutor(1) as pool:
        bob = pool.submit(asyncio.run, bob_wins(server.ws_url, code))
        expect(page.locator("[data-testid=lobby-player][data-seat=s2]")).to_have_attribute("data-ready", "true")
        page.get_by_test_id("start").click()
        finished_ms = bob.result(timeout=60)
    page.get_by_test_id("resign").click()
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    assert finished_ms > 0
    series = page.get_by_test_id("race-side").get_by_test_id("series")
    expect(series.get_by_test_id("series-title")).to_have_text("Series, 1 round")
    expect(series.locator("[data-testid=standing][data-place='1']")).to_contain_text("Bob")
    expect(series.locator("[data-testid=standing][data-place='1']")).to_have_attribute("data-wins", "1")

    # Alice offers the same deal; Bob has gone (his connection closed): once he has been away
    # long enough, she goes on without him, and he comes into the new lobby.
    page.get_by_test_id("rematch-same").click()
    expect(page.get_by_test_id("offer-waiting")).to_have_text("Waiting for Bob to answer.")
    lobby = page.get_by_test_id("lobby")
    for _ in range(10):  # (until he has been gone the server's 2 s: before, it says to try again)
        page.get_by_test_id("offer-go").click()
        try:
            expect(lobby).to_be_visible(timeout=1000)
            break
        except AssertionError:
            continue
    expect(lobby).to_be_visible()
    room = alice.received_types("room")[-1]["room"]
    assert (room["round"], room["deal"]) == (2, DEAL)  # the same deal again
    expect(page.get_by_test_id("lobby").get_by_test_id("series")).to_have_attribute("data-rounds", "1")
    expect(page.get_by_test_id("lobby").locator("[data-testid=standing][data-seat=s2]")).to_have_attribute(
        "data-wins", "1"
    )
    folder = OUTPUT / browsing.test_name
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "series-lobby-laptop.png"))
