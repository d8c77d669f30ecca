"""What ``python -m race bench-page`` measures in a real Chromium: a page's requests and bytes
(through the DevTools protocol's network events) and when the page is usable.

A page is *usable* once its main control is drawn: the home page's "Create room" button, the
room page's "Join race" button (which needs the room's look-up first). The time is the page's
own ``performance.now()`` when that element appears, that is from the start of the navigation.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

#: Lighthouse's "slow 4G": 150 ms of latency, 1.6 Mbps down, 750 kbps up (bytes per second).
SLOW_4G = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8}
USABLE = {"home": "[data-testid=create-submit]", "room": "[data-testid=join-room]"}
#: Requests that are the page's own data, not its files.
NOT_ASSETS = frozenset({"Document", "Fetch", "XHR", "EventSource", "WebSocket", "Ping", "Preflight"})
WAIT_MS = 30_000

_MARK = """(() => {
  const seen = () => {
    if (window.__usable === undefined && document.querySelector(%r)) {
      window.__usable = performance.now();
      watch.disconnect();
    }
  };
  const watch = new MutationObserver(seen);
  watch.observe(document, { childList: true, subtree: true });
})();"""


@dataclass
class Traffic:
    """One page's network events: each request, whether the browser's cache answered it, the
    bytes it took on the wire (headers included) and its body's bytes once decoded."""

    kinds: dict[str, str] = field(default_factory=dict)  # request id -> resource type
    urls: dict[str, str] = field(default_factory=dict)
    cached: set[str] = field(default_factory=set)
    statuses: dict[str, int] = field(default_factory=dict)
    wire: dict[str, int] = field(default_factory=dict)
    decoded: dict[str, int] = field(default_factory=dict)

    @classmethod
    def watch(cls, page: Page) -> tuple[Traffic, Any]:
        """Follow ``page``'s network; also returns the DevTools session (for emulation)."""
        traffic = cls()
        cdp = page.context.new_cdp_session(page)
        cdp.on("Network.requestWillBeSent", traffic._sent)
        cdp.on("Network.requestServedFromCache", lambda e: traffic.cached.add(e["requestId"]))
        cdp.on("Network.responseReceived", traffic._response)
        cdp.on("Network.dataReceived", traffic._data)
        cdp.on("Network.loadingFinished", traffic._finished)
        cdp.send("Network.enable")
        return traffic, cdp

    def _sent(self, event: dict[str, Any]) -> None:
        self.kinds[event["requestId"]] = event.get("type", "Other")
        self.urls[event["requestId"]] = event["request"]["url"]

    def _response(self, event: dict[str, Any]) -> None:
        response = event["response"]
        self.statuses[event["requestId"]] = int(response["status"])
        if response.get("fromDiskCache") or response.get("fromPrefetchCache"):
            self.cached.add(event["requestId"])

    def _data(self, event: dict[str, Any]) -> None:
        rid = event["requestId"]
        self.decoded[rid] = self.decoded.get(rid, 0) + int(event["dataLength"])

    def _finished(self, event: dict[str, Any]) -> None:
        self.wire[event["requestId"]] = int(event["encodedDataLength"])

    def assets(self) -> list[str]:
        """The request ids of the page's files (its API's images, a QR code, are data)."""
        return [rid for rid, kind in self.kinds.items() if kind not in NOT_ASSETS]

    def asset_requests(self) -> list[str]:
        """The addresses of the page's files the browser asked the server for (its cache did
        not answer them; a revalidation counts)."""
        asked = [self.urls[rid] for rid in self.assets() if rid not in self.cached]
        return [u for u in asked if u.startswith("http") and not urlsplit(u).path.startswith("/api/")]

    def bytes(self) -> tuple[int, int]:
        """Bytes on the wire and decoded, over the requests that reached the network."""
        sent = [rid for rid in self.kinds if rid not in self.cached]
        return sum(self.wire.get(r, 0) for r in sent), sum(self.decoded.get(r, 0) for r in sent)


def visit(
    context: BrowserContext, url: str, usable: str, conditions: dict[str, Any] | None = None
) -> tuple[float, Traffic]:
    """Open ``url`` in a new page of ``context`` (over ``conditions`` when given) and return
    the ms until ``usable`` appeared, and the page's traffic."""
    page = context.new_page()
    try:
        traffic, cdp = Traffic.watch(page)
        if conditions is not None:
            cdp.send("Network.emulateNetworkConditions", conditions)
        page.add_init_script(_MARK % usable)
        page.goto(url, wait_until="commit")
        page.wait_for_function("() => window.__usable !== undefined", timeout=WAIT_MS)
        page.wait_for_load_state("load")
        ms = float(page.evaluate("window.__usable"))
        return ms, traffic
    finally:
        page.close()


@dataclass
class PageFigures:
    """What one run of the page benchmark found."""

    wire: int = 0  # the home page's first load: bytes on the wire
    decoded: int = 0  # and its bodies decoded
    requests: int = 0  # the requests of that first load
    assets: int = 0  # its files
    repeat_requests: list[str] = field(default_factory=list)  # files asked for again on a repeat visit
    slow: dict[str, list[float]] = field(default_factory=dict)  # page -> usable ms on slow 4G, cold
    round_trip: list[float] = field(default_factory=list)  # ms of one small request on the same link


def measure(browser: Browser, base: str, room: str, runs: int) -> PageFigures:
    figures = PageFigures()
    context = browser.new_context()
    try:
        _, first = visit(context, base + "/", USABLE["home"])
        figures.wire, figures.decoded = first.bytes()
        figures.requests, figures.assets = len(first.kinds), len(first.assets())
        for path, kind in (("/", "home"), (f"/r/{room}", "room")):
            _, again = visit(context, base + path, USABLE[kind])
            figures.repeat_requests += again.asset_requests()
    finally:
        context.close()
    pages = {"home": base + "/", "room": f"{base}/r/{room}"}
    for _ in range(runs):
        for kind, url in pages.items():
            fresh = browser.new_context()  # an empty cache: a first visit
            try:
                ms, _ = visit(fresh, url, USABLE[kind], SLOW_4G)
                figures.slow.setdefault(kind, []).append(ms)
                figures.round_trip.append(_round_trip(fresh, base))
            finally:
                fresh.close()
    return figures


def _round_trip(context: BrowserContext, base: str) -> float:
    """The ms one small request takes on the slow link: ``/healthz`` fetched by a page."""
    page = context.new_page()
    try:
        page.goto(base + "/healthz")
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", SLOW_4G)
        ms = page.evaluate(
            "async () => { const t = performance.now(); await fetch('/healthz', {cache: 'no-store'});"
            " return performance.now() - t; }"
        )
        return float(ms)
    finally:
        page.close()


def table(results: dict[str, PageFigures], runs: int) -> list[str]:
    """The figures of each server (a column each), one line a figure."""
    cols = list(results)

    def row(name: str, cells: list[str]) -> str:
        return f"{name:<34}" + "".join(f"{c:>26}" for c in cells)

    def ratio(f: PageFigures) -> str:
        return f"{f.wire:,} / {f.decoded:,} ({f.wire / f.decoded:.0%})" if f.decoded else "-"

    def usable(f: PageFigures, kind: str) -> str:
        times = f.slow.get(kind, [])
        return f"{statistics.median(times):,.0f} ({min(times):,.0f}-{max(times):,.0f})" if times else "-"

    lines = [row("", cols), "-" * (34 + 26 * len(cols))]
    lines.append(row("first load (home): requests", [str(f.requests) for f in results.values()]))
    lines.append(row("  bytes on the wire / decoded", [ratio(f) for f in results.values()]))
    lines.append(row("repeat visit: files asked for", [str(len(f.repeat_requests)) for f in results.values()]))
    lines.append(f"slow 4G (150 ms, 1.6 Mbps), a first visit, ms until usable, median (range) of {runs}:")
    for kind in USABLE:
        lines.append(row(f"  {kind}", [usable(f, kind) for f in results.values()]))
    trips = [f"{statistics.median(f.round_trip):,.0f}" if f.round_trip else "-" for f in results.values()]
    lines.append(row("  one small request on that link", trips))
    return lines


def goals(figures: PageFigures, limit_ms: float = 1000.0, share: float = 0.40) -> list[str]:
    """The page's goals, met or not, with the figures."""
    ratio = figures.wire / figures.decoded if figures.decoded else float("nan")

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    asked = figures.repeat_requests
    named = ": " + ", ".join(asked[:5]) if asked else ""
    lines = [
        f"goal: first load sends at most {share:.0%} of its bytes decoded: {verdict(ratio <= share)} ({ratio:.0%})",
        f"goal: a repeat visit asks for no unchanged file: {verdict(not asked)} ({len(asked)} asked for{named})",
    ]
    for kind, times in figures.slow.items():
        med = statistics.median(times)
        lines.append(
            f"goal: the {kind} page usable within {limit_ms / 1000:.1f} s on slow 4G: {verdict(med <= limit_ms)} "
            f"({med / 1000:.2f} s median, {max(times) / 1000:.2f} s worst)"
        )
    return lines


def compared(subject: PageFigures, baseline: PageFigures) -> str:
    """The subject's median times until usable as multiples of the baseline's."""
    parts = [
        f"{kind} {statistics.median(subject.slow[kind]) / statistics.median(baseline.slow[kind]):.2f}x"
        for kind in USABLE
        if subject.slow.get(kind) and baseline.slow.get(kind)
    ]
    return ", ".join(parts)
