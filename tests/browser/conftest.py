"""The browser tests: the server the pages talk to, one headless Chromium per module, and each
test's tabs (screenshots of every open tab when it fails)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.support.processes import Server
from tests.support.web import CHROMIUM, CHROMIUM_ARGS, Browsing, page_server


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """A :func:`page_server` on the embedded store for the module's tests, with the module's
    ``SERVER_ENV`` settings when it has them; a module that needs another server (its own
    Redis, say) defines its own ``server``."""
    s = page_server(**getattr(request.module, "SERVER_ENV", {}))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser(server: Server) -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def browsing(browser: Browser, server: Server, request: pytest.FixtureRequest) -> Iterator[Browsing]:
    failed_before = request.session.testsfailed
    tabs = Browsing(browser, server.url, request.node.name)
    yield tabs
    tabs.close(failed=request.session.testsfailed > failed_before)
