"""Every race view fits its screen: at a laptop's, a big screen's, an upright phone's and a
sideways phone's size, with 2, 3 and 8 players, every pile of every board lies inside the
window, no two boards overlap, and the cards are as big as the space allows (a laptop's race
board spans at least 60% of the width; a phone on its side gets cards of at least 34 px and a
board of at least 75% of the width). A hint that comes never moves the toolbar. Screenshots
of each view are kept under test-output/fit/SIZE/.

Real server, real websockets, real headless Chromium.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import ViewportSize, expect
from websockets.sync.client import connect

from tests.support.processes import Server
from tests.support.web import OUTPUT, Browsing, Tab

pytestmark = pytest.mark.browser

SERVER_ENV = {"SPECTATOR_DELAY_SECONDS": "0", "COUNTDOWN_SECONDS": "0"}
SIZES: dict[str, ViewportSize] = {
    "1366x768": {"width": 1366, "height": 768},
    "1920x1080": {"width": 1920, "height": 1080},
    "390x844": {"width": 390, "height": 844},
    "844x390": {"width": 844, "height": 390},
}

# Every board's piles and foundations (the page unscrolled): each inside the window, and
# the boxes of two boards apart; with each board's box and card width.
BOARDS_JS = """(selector) => {
  window.scrollTo(0, 0);
  const out = { outside: [], overlap: [], boards: [] };
  const boards = [...document.querySelectorAll(selector)].filter((b) => b.checkVisibility());
  for (const [n, b] of boards.entries()) {
    const parts = [...b.querySelectorAll(".pile, .foundation")].map((e) => [e, e.getBoundingClientRect()]);
    for (const [e, r] of parts) {
      if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) {
        const what = e.dataset.pile !== undefined ? "pile " + e.dataset.pile : e.dataset.foundation;
        out.outside.push(`board ${n} ${what}: ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
      }
    }
    const box = {
      left: Math.min(...parts.map(([, r]) => r.left)), right: Math.max(...parts.map(([, r]) => r.right)),
      top: Math.min(...parts.map(([, r]) => r.top)), bottom: Math.max(...parts.map(([, r]) => r.bottom)),
    };
    const card = b.querySelector(".card").getBoundingClientRect();
    out.boards.push({ ...box, width: box.right - box.left, card: card.width, shape: b.dataset.shape || "" });
  }
  for (let i = 0; i < out.boards.length; i++) {
    for (let j = i + 1; j < out.boards.length; j++) {
      const a = out.boards[i], c = out.boards[j];
      const w = Math.min(a.right, c.right) - Math.max(a.left, c.left);
      if (w > 1 && Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top) > 1) {
        out.overlap.push(`boards ${i} and ${j}`);
      }
    }
  }
  return out;
}"""

# Where the tools are: every button's box.
TOOLS_JS = """() => [...document.querySelectorAll("[data-testid=toolbar] .tools button")].map((b) => {
  const r = b.getBoundingClientRect();
  return [b.dataset.testid, Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
})"""


def room_of(server: Server, players: int) -> tuple[str, str]:
    """A room on easy deal 3 with ``players`` seats, its race started: the host's code and
    token (the others joined and went away)."""
    with connect(server.ws_url) as host:
        host.recv()
        host.send('{"type": "create", "name": "Ann Longname", "difficulty": "easy", "deal": 3}')
        created = _reply(host, "joined")
        code, token = created["room"]["code"], created["token"]
        for k in range(players - 1):
            with connect(server.ws_url) as ws:
                ws.recv()
                ws.send(f'{{"type": "join", "room": "{code}", "name": "Rival {k + 2}"}}')
                _reply(ws, "joined")
        host.send('{"type": "start"}')
        _reply(host, "room", lambda m: m["room"]["phase"] == "racing")
    return code, token


def _reply(ws: Any, kind: str, where: Any = None) -> dict[str, Any]:
    import json

    while True:
        m: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if m.get("type") == "error":
            raise AssertionError(m)
        if m.get("type") == kind and (where is None or where(m)):
            return m


def shot(tab: Tab, size: str, view: str) -> None:
    tab.page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    folder = OUTPUT / "fit" / size
    folder.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(folder / f"{view}.png"))


def settle(tab: Tab) -> None:
    """Two frames: the page laid out again for a window just resized (boards sized)."""
    tab.page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def measure(tab: Tab, selector: str, size: str, view: str, problems: list[str]) -> list[dict[str, Any]]:
    # (a frame for the boards to be sized to the window just set)
    tab.page.wait_for_function(
        "(s) => [...document.querySelectorAll(s)].some((b) => b.checkVisibility() && b.dataset.shape)", arg=selector
    )
    tab.page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    found: dict[str, Any] = tab.page.evaluate(BOARDS_JS, selector)
    if found["outside"]:
        problems.append(f"{view} at {size}: piles outside the window: {found['outside'][:4]}")
    if found["overlap"]:
        problems.append(f"{view} at {size}: {found['overlap']}")
    boards: list[dict[str, Any]] = found["boards"]
    return boards


@pytest.mark.parametrize("players", [2, 3, 8])
def test_every_board_of_every_view_fits_the_screen(browsing: Browsing, server: Server, players: int) -> None:
    code, token = room_of(server, players)
    problems: list[str] = []
    ann = browsing.open("ann", "/", still=True)
    ann.page.evaluate(f"localStorage.setItem('crescent-race.token.{code}', '{token}')")
    ann.page.goto(f"/r/{code}")
    expect(ann.page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    fan = browsing.open("fan", f"/watch/{code}", still=True)
    expect(fan.page.get_by_test_id("watch-player")).to_have_count(players)
    for size, viewport in SIZES.items():
        width = viewport["width"]
        ann.page.set_viewport_size(viewport)
        ann.settled()
        [board] = measure(ann, "[data-testid=board]", size, "race", problems)
        shot(ann, size, f"race-{players}")
        if size == "1366x768" and board["width"] < 0.6 * width:
            problems.append(f"race at {size}: the board spans {board['width'] / width:.0%} of the width")
        if size == "844x390" and (board["card"] < 34 or board["width"] < 0.75 * width):
            problems.append(f"race at {size}: cards {board['card']:.0f} px, the board {board['width'] / width:.0%}")
        fan.page.set_viewport_size(viewport)
        boards = measure(fan, "[data-testid=mini-board]", size, "watch", problems)
        assert len(boards) == players
        shot(fan, size, f"watch-{players}")
    # A hint that comes moves no tool, at any size.
    if players == 2:
        before = {}
        for size, viewport in SIZES.items():
            ann.page.set_viewport_size(viewport)
            settle(ann)
            before[size] = ann.page.evaluate(TOOLS_JS)
        ann.page.get_by_test_id("hint").click()
        expect(ann.page.get_by_test_id("hint-text")).not_to_be_empty()
        for size, viewport in SIZES.items():
            ann.page.set_viewport_size(viewport)
            settle(ann)
            if ann.page.evaluate(TOOLS_JS) != before[size]:
                problems.append(f"at {size} the hint moved the tools: {before[size]} -> {ann.page.evaluate(TOOLS_JS)}")
            shot(ann, size, "hint")
    assert not problems, "\n".join(problems)
