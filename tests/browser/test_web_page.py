"""Loading the page in Chromium, its modules flattened (as served) and one by one
(``WEB_FLATTEN=0``, an import map and preloads): it works either way, and a repeat visit asks
the server for none of the files it already has. Requests are counted twice: through
Playwright's DevTools session, and in the server's own access log."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from race.bench.page import Traffic
from tests.support.processes import ROOT, Server
from tests.support.web import CHROMIUM, Browsing, Tab, expect, page_server

pytestmark = pytest.mark.browser
VIEWS = {"/": "home", "/how": "howto", "/me": "me", "/room": "room"}  # /me: a page loaded by import()


@pytest.fixture(scope="module", params=["flat", "one-by-one"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    s = page_server(WEB_FLATTEN="1" if request.param == "flat" else "0")
    yield s
    s.stop()


def files_asked(server: Server, since: int) -> list[str]:
    """The files (addresses with an extension) the server was asked for since line ``since``."""
    asked = [re.search(r'"(?:GET|HEAD) (\S+) HTTP', line) for line in server.process.lines[since:]]
    paths = [m[1].split("?")[0] for m in asked if m is not None]
    return [p for p in paths if not p.startswith("/api/") and re.search(r"\.\w+$", p)]


def visit(browsing: Browsing, tab: Tab, name: str, path: str, room: str) -> Traffic:
    """Open ``path`` in a new page of ``tab``'s context (its cache) and wait until it is drawn."""
    page = tab.page.context.new_page()
    browsing.adopt(name, page)
    traffic, _ = Traffic.watch(page)
    page.goto(room if path == "/room" else path)
    expect(page.get_by_test_id("app")).to_have_attribute("data-view", VIEWS[path])
    page.wait_for_load_state("load")
    return traffic


def test_a_repeat_visit_asks_for_no_file_it_has(
    browsing: Browsing, server: Server, request: pytest.FixtureRequest
) -> None:
    tab = browsing.open("host", "/")
    tab.page.get_by_test_id("create-name").fill("Ann")
    tab.page.get_by_test_id("create-submit").click()
    expect(tab.page.get_by_test_id("lobby")).to_be_visible()
    room = tab.page.url.removeprefix(server.url)
    firsts = [visit(browsing, tab, f"first{path}", path, room) for path in VIEWS]
    assert any(t.asset_requests() for t in firsts)  # the counting sees what a first visit asks
    one_by_one = "one-by-one" in request.node.name
    mark = len(server.process.lines)
    for path in VIEWS:
        again = visit(browsing, tab, f"again{path}", path, room)
        assert again.asset_requests() == [], (path, files_asked(server, mark), again.statuses)
        assert len(again.assets()) >= (30 if one_by_one and path != "/me" else 2), path  # each from the cache
    assert files_asked(server, mark) == []
    assert any('"GET / HTTP' in line for line in server.process.lines[mark:])  # the page itself is asked again


def test_bench_page_runs_and_prints_its_goals() -> None:
    """``python -m race bench-page`` end to end, once per page: no time is asserted."""
    args = [sys.executable, "-m", "race", "bench-page", "--runs", "1", "--chromium", CHROMIUM]
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for line in ("first load (home): requests", "repeat visit: files asked for", "goal: the room page usable"):
        assert line in done.stdout, done.stdout
    assert "as served / one by one, time until usable: home" in done.stdout
    assert "goal: a repeat visit asks for no unchanged file: met" in done.stdout
