"""Helpers for the browser tests: one headless Chromium, tabs that record console errors and
the websocket frames they send, board reading and input (drag and tap), and screenshots of
every open tab when a test fails."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.processes import ROOT, Server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
OUTPUT = ROOT / "test-output"
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
WAIT_MS = 10_000

BOARD_JS = """(root) => {
  const b = (root || document).querySelector('[data-testid=board], [data-testid=mini-board]');
  if (!b) return null;
  return {
    version: Number(b.dataset.version ?? -1),
    pending: b.hasAttribute('data-pending'),
    legal: (b.dataset.legal || '').split(' ').filter(Boolean),
    piles: [...Array(16).keys()].map(i => [...b.querySelectorAll(`[data-pile="${i}"] .card`)].map(c => c.dataset.card)),
    foundations: Object.fromEntries([...b.querySelectorAll('[data-foundation]')].map(
      f => [f.dataset.foundation, [Number(f.dataset.count), f.querySelector('.card').dataset.card]])),
  };
}"""


# Where to press on a source (near the top of its top card) and where to drop on a target
# (the middle of its top card, or of the zone when it has none).
POINTS_JS = """([source, target]) => {
  const card = (sel) => {
    const zone = document.querySelector(sel);
    return zone.querySelector('.card[data-top]') || zone;
  };
  // Scroll (as a person would) until both cards are on the screen: the board can reach below
  // the fold, and a drop on a point off the screen lands nowhere.
  const rects = [card(source), card(target)].map((el) => el.getBoundingClientRect());
  const top = Math.min(...rects.map((r) => r.top));
  const bottom = Math.max(...rects.map((r) => r.bottom));
  if (top < 0 || bottom > window.innerHeight) {
    window.scrollBy({ top: (top + bottom - window.innerHeight) / 2, behavior: "instant" });
  }
  const center = (sel, press) => {
    const r = card(sel).getBoundingClientRect();
    return [r.left + r.width / 2, press ? r.top + Math.min(r.height / 2, 20) : r.top + r.height / 2];
  };
  return [center(source, true), center(target, false)];
}"""


@dataclass
class Tab:
    """One browser context with one page, and what it did."""

    name: str
    page: Page
    errors: list[str] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)

    def sent_types(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("type") == kind]

    def received_types(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.received if m.get("type") == kind]

    # -- the board -----------------------------------------------------------------------

    def board(self) -> dict[str, Any]:
        state: dict[str, Any] | None = self.page.evaluate(BOARD_JS, None)
        assert state is not None, f"{self.name}: no board on the page"
        return state

    def settled(self, version: int | None = None) -> dict[str, Any]:
        """Wait until the board shows the server's state (no move in flight) and return it;
        with ``version``, until it shows that version."""
        handle = self.page.wait_for_function(
            f"""(v) => {{ const b = document.querySelector('[data-testid=board]');
                 if (!b || b.hasAttribute('data-pending') || b.dataset.version === undefined) return null;
                 if (v !== null && Number(b.dataset.version) !== v) return null;
                 return ({BOARD_JS})(document); }}""",
            arg=version,
            timeout=WAIT_MS,
        )
        board: dict[str, Any] = handle.json_value()
        return board

    def assert_board_fits(self) -> None:
        """The whole board is on the screen with the page unscrolled (once the page has laid it
        out: a banner going or a counter coming moves it, and the fit follows a frame later)."""
        with contextlib.suppress(PlaywrightTimeout):
            self.page.wait_for_function(
                "() => { const b = document.querySelector('[data-testid=board]');"
                " return b && b.getBoundingClientRect().bottom <= innerHeight; }",
                timeout=5_000,
            )
        box, window = self.page.get_by_test_id("board").bounding_box(), self.page.viewport_size
        assert box is not None and window is not None
        assert box["y"] + box["height"] <= window["height"], f"{self.name}: the board reaches below the window"

    def assert_buttons_fit(self) -> None:
        """No visible button's label is wider than the button (cut off or spilling out)."""
        cut = self.page.eval_on_selector_all(
            "button", "bs => bs.filter(b => b.offsetParent && b.scrollWidth > b.clientWidth).map(b => b.textContent)"
        )
        assert not cut, f"{self.name}: labels wider than their buttons: {cut}"

    def drag(self, source: str, target: str) -> None:
        """Drag the top card of ``source`` (p3 or uH) and drop it on ``target`` with the mouse."""
        mouse = self.page.mouse
        # A mouse resting on a pile spreads it (after a moment): leave the board first, so the
        # points are measured on piles that stay as they are while the mouse travels.
        mouse.move(0, 0)
        (sx, sy), (tx, ty) = self.page.evaluate(POINTS_JS, [zone(source), zone(target)])
        mouse.move(sx, sy)
        mouse.down()
        mouse.move(sx + 4, sy + 6)
        mouse.move(tx, ty, steps=2)
        mouse.up()

    def lift(self, source: str) -> None:
        """Press the mouse on the top card of ``source`` and move it past the drag threshold."""
        box = self.page.locator(f"{zone(source)} .card[data-top]").bounding_box()
        assert box is not None, f"{self.name}: {source} has no top card"
        x, y = box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 20)
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        self.page.mouse.move(x + 4, y + 6)

    def drop(self, target: str) -> None:
        """Carry the lifted card over ``target`` and release it there."""
        x, y = self.drop_point(target)
        self.page.mouse.move(x, y, steps=2)
        self.page.mouse.up()

    def drop_point(self, target: str) -> tuple[float, float]:
        loc = self.page.locator(f"{zone(target)} .card[data-top]")
        if loc.count() == 0:
            loc = self.page.locator(zone(target))
        box = loc.first.bounding_box()
        assert box is not None
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def touch_drag(self, source: str, target: str) -> None:
        """Drag with a finger (touch events through the DevTools protocol)."""
        (sx, sy), (tx, ty) = self.page.evaluate(POINTS_JS, [zone(source), zone(target)])
        cdp = self.page.context.new_cdp_session(self.page)
        try:
            touch = "Input.dispatchTouchEvent"
            cdp.send(touch, {"type": "touchStart", "touchPoints": [{"x": sx, "y": sy}]})
            for k in range(1, 5):
                x, y = sx + (tx - sx) * k / 4, sy + (ty - sy) * k / 4
                cdp.send(touch, {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
            cdp.send(touch, {"type": "touchEnd", "touchPoints": []})
        finally:
            cdp.detach()

    def tap(self, where: str) -> None:
        """Tap the top card of a pile or foundation (a touch tap on touch pages)."""
        self.page.locator(f"{zone(where)} .card[data-top]").tap()

    def play_by_drag(self, move: str, before: dict[str, Any] | None = None) -> dict[str, Any]:
        """Play one move through the page by drag and drop (the shuffle by its button) and
        return the board the server sent back; ``before`` is the settled board, if known."""
        before = before or self.settled()
        assert move in before["legal"], f"{self.name}: {move} is not offered; the page offers {before['legal']}"
        if move == "shuffle":
            self.page.get_by_test_id("shuffle").click()
        else:
            source, target = move.split(">")
            self.drag(source, target)
        return self.settled(before["version"] + 1)


def zone(key: str) -> str:
    if key.startswith("p"):
        return f'[data-testid=board] [data-pile="{key[1:]}"]'
    return f'[data-testid=board] [data-foundation="{key}"]'


def shuffle_text(n: int) -> re.Pattern[str]:
    return re.compile(rf"Shuffle \({n}\)")


class Browsing:
    """The tabs of one test. ``close(failed)`` screenshots them all when the test failed
    (under test-output/<test>/) and checks that no page logged an error."""

    def __init__(self, browser: Browser, base_url: str, test_name: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.test_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", test_name)
        self.tabs: list[Tab] = []

    def open(self, name: str, path: str = "/", *, phone: bool = False, still: bool = False) -> Tab:
        """A new browser context on ``path``; ``still`` asks the page for reduced motion (cards do
        not glide), so a mouse can press a card the moment the server's reply is drawn."""
        context = self.browser.new_context(
            **(PHONE if phone else DESKTOP),
            base_url=self.base_url,
            reduced_motion="reduce" if still else "no-preference",
        )
        context.set_default_timeout(WAIT_MS)
        return self._watch(name, context.new_page(), path)

    def another(self, tab: Tab, name: str, path: str) -> Tab:
        """A second page in ``tab``'s context (the same storage: the same seats)."""
        return self._watch(name, tab.page.context.new_page(), path)

    def adopt(self, name: str, page: Page) -> Tab:
        """A page the browser opened by itself (a link to a new tab), as one of this test's
        tabs from now on: its errors count, and it is photographed when the test fails."""
        return self._record(name, page)

    def _watch(self, name: str, page: Page, path: str) -> Tab:
        tab = self._record(name, page)
        page.goto(path)
        return tab

    def _record(self, name: str, page: Page) -> Tab:
        tab = Tab(name, page)

        def on_console(msg: Any) -> None:
            if msg.type == "error":
                tab.errors.append(f"console error: {msg.text}")

        def on_socket(ws: Any) -> None:
            def recorder(into: list[dict[str, Any]]) -> Callable[[str | bytes], None]:
                def on_frame(payload: str | bytes) -> None:
                    try:
                        into.append(json.loads(payload))
                    except ValueError:
                        into.append({"raw": payload})

                return on_frame

            ws.on("framesent", recorder(tab.sent))
            ws.on("framereceived", recorder(tab.received))

        page.on("console", on_console)
        page.on("pageerror", lambda exc: tab.errors.append(f"page error: {exc}"))
        page.on("websocket", on_socket)
        self.tabs.append(tab)
        return tab

    def screenshots(self, suffix: str = "") -> list[Path]:
        folder = OUTPUT / self.test_name
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for tab in self.tabs:
            if tab.page.is_closed():
                continue
            path = folder / f"{tab.name}{suffix}.png"
            try:
                tab.page.screenshot(path=str(path), full_page=True)
            except Exception:  # a crashed page cannot be photographed; keep the others
                continue
            paths.append(path)
        return paths

    def snap(self, label: str) -> None:
        """Screenshots of every tab now, kept only when WEB_SCREENSHOTS is set (for looking
        at the pages while working on them)."""
        if os.environ.get("WEB_SCREENSHOTS"):
            self.screenshots(f"-{label}")

    def close(self, failed: bool) -> None:
        try:
            if failed:
                self.screenshots()
            errors = [f"{tab.name}: {e}" for tab in self.tabs for e in tab.errors]
            if errors and not failed:
                self.screenshots()
            assert not errors, "the pages logged errors:\n" + "\n".join(errors)
        finally:
            for context in {id(tab.page.context): tab.page.context for tab in self.tabs}.values():
                context.close()


def page_server(store_url: str = "memory://", *, port: int | None = None, **env: str) -> Server:
    """A server for the pages to talk to (the test is skipped without Chromium): a
    one-second countdown the pages can show, and no rate limit, since a test plays a whole
    winning line faster than any person could; ``env`` adds to or overrides that."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is not installed (the test command installs Debian's chromium)")
    settings = {"COUNTDOWN_SECONDS": "1", "RATE_LIMIT_PER_SECOND": "10000", "RATE_LIMIT_BURST": "10000"}
    return Server(store_url, port=port, **(settings | env))


class Wire:
    """A page's websocket through Playwright, counting what the page sends by type, and
    holding back the server's messages of the types in ``held`` until ``release()`` (as if
    the server were slow to answer them), or all of them from ``stall()`` on (then lost but
    one, with ``lose()``). Set it up before the page opens its connection. What the page sent
    before a reply it has drawn has all been counted: the wire passes the page's messages on
    one by one, in order."""

    def __init__(self, page: Page) -> None:
        self.held: set[str] = set()
        self.stalled = False
        self.waiting: list[str | bytes] = []
        self.sent: dict[str, int] = {}
        self.socket: WebSocketRoute | None = None
        self.server: WebSocketRoute | None = None
        page.route_web_socket(re.compile(r"/ws$"), self.route)

    def route(self, ws: WebSocketRoute) -> None:
        server = self.server = ws.connect_to_server()
        self.socket = ws

        def to_page(message: str | bytes) -> None:
            if self.stalled or self.kind(message) in self.held:
                self.waiting.append(message)
            else:
                ws.send(message)

        def to_server(message: str | bytes) -> None:
            kind = self.kind(message)
            self.sent[kind] = self.sent.get(kind, 0) + 1
            server.send(message)

        server.on_message(to_page)
        ws.on_message(to_server)

    @staticmethod
    def kind(message: str | bytes) -> str:
        try:
            return str(json.loads(message).get("type"))
        except (ValueError, AttributeError):
            return ""

    def release(self) -> None:
        """Hold nothing back any more, and send the page what was held."""
        self.held.clear()
        self.stalled = False
        assert self.socket is not None, "the page opened no connection"
        for message in self.waiting:
            self.socket.send(message)
        self.waiting.clear()

    def say(self, message: dict[str, Any]) -> None:
        """Send the server ``message`` on the page's connection, as if the page had sent it
        (a player's answer whose news the page then never hears)."""
        assert self.server is not None, "the page opened no connection"
        self.server.send(json.dumps(message))

    def stall(self) -> None:
        """Hold every message of the server from now on."""
        self.stalled = True

    def lose(self, *, but_last: str) -> None:
        """Stop stalling, and lose what was held (as a broadcast may be lost between servers)
        but the last message of type ``but_last``, which the page gets now; the types in
        ``held`` are still held."""
        assert self.socket is not None, "the page opened no connection"
        kept = [m for m in self.waiting if self.kind(m) == but_last][-1:]
        assert kept, f"the page was sent no {but_last} meanwhile"
        self.waiting.clear()
        self.stalled = False
        self.socket.send(kept[0])


__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "Browsing", "Tab", "Wire", "expect", "shuffle_text"]
