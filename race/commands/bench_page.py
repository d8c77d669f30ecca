"""``python -m race bench-page``: how fast the browser client's pages load, in a real Chromium.

It starts ``python -m race serve`` on the embedded store on a free loopback port twice: as
served (the modules flattened into one script) and, as the baseline of the same run, with
``WEB_FLATTEN=0`` (the modules one by one, all preloaded). With ``--url`` it measures that
server alone. On each it makes a room and opens the pages in headless Chromium:

1. **first load**: the home page with an empty cache; the bytes on the wire (headers and
   bodies as sent) against the bodies decoded.
2. **repeat visit**: the home page and then the room's page again in the same browser; the
   requests for the page's files that its cache did not answer (a revalidation counts).
3. **slow 4G**: the home and the room page, each with an empty cache, on a link emulated
   through the DevTools protocol (``Network.emulateNetworkConditions``: 150 ms of latency,
   1.6 Mbps down, 750 kbps up), ``--runs`` times: the time until the page is usable (its
   "Create room" or "Join race" button is drawn). One small request's time on the same link
   is the baseline those times are also given in.

It prints the figures side by side, each goal as met or not met (for the server as served),
and the times until usable as multiples of the baseline's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = "chromium"


def register(sub: Any) -> None:
    p = sub.add_parser("bench-page", help="how fast the pages load in Chromium", description=__doc__)
    p.add_argument("--runs", type=int, default=5, help="slow 4G loads of each page (default 5)")
    p.add_argument("--url", help="measure the running server at this http:// address instead of starting one")
    p.add_argument(
        "--chromium", default=CHROMIUM, help=f"the Chromium to drive, a path or a name on PATH (default {CHROMIUM})"
    )
    p.set_defaults(func=run)


@contextlib.contextmanager
def _server(workdir: Path, **settings: str) -> Iterator[str]:
    from race.bench.processes import race_server

    with race_server("memory://", 0, workdir, **settings) as (origin, _):
        yield "http" + origin.removeprefix("ws")


async def _make_room(base: str) -> str:
    """A room with one player, whose page a friend would open."""
    from race.bench.load import Conn

    conn = await Conn.open("ws" + base.removeprefix("http") + "/ws", None)
    try:
        await conn.expect("hello")
        await conn.send({"type": "create", "name": "Ann", "difficulty": "medium"})
        joined = await conn.expect("joined")
        if joined["type"] == "error":
            raise RuntimeError(f"create failed: {joined}")
        return str(joined["room"]["code"])
    finally:
        await conn.close()


def run(args: argparse.Namespace) -> int:
    from playwright.sync_api import sync_playwright

    from race.bench.page import PageFigures, compared, goals, measure, table

    chromium = shutil.which(args.chromium)
    if chromium is None:
        print(f"error: no Chromium at {args.chromium!r} (give --chromium)")
        return 2
    if args.runs < 1:
        print("error: --runs must be at least 1")
        return 2
    settings = {"as served": {}, "one by one": {"WEB_FLATTEN": "0"}}
    results: dict[str, PageFigures] = {}
    with tempfile.TemporaryDirectory(prefix="race-bench-page-") as tmp, contextlib.ExitStack() as stack:
        if args.url:
            bases = {"server": args.url.rstrip("/")}
        else:
            bases = {label: stack.enter_context(_server(Path(tmp), **env)) for label, env in settings.items()}
        rooms = {label: asyncio.run(_make_room(base)) for label, base in bases.items()}  # before the browser's loop
        print(f"Page benchmark: headless Chromium, {args.runs} slow 4G loads of each page", flush=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            try:
                for label, base in bases.items():
                    results[label] = measure(browser, base, rooms[label], args.runs)
            finally:
                browser.close()
    for line in table(results, args.runs):
        print(line)
    subject = next(iter(results.values()))
    for line in goals(subject):
        print(line)
    if "one by one" in results:
        print(f"as served / one by one, time until usable: {compared(subject, results['one by one'])}")
    return 0
