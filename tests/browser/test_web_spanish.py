"""The site in Spanish: a browser whose language is Spanish gets the pages in Spanish, the
switch in the top bar changes the language and is remembered, and a pasted link's preview
follows the chat's ``Accept-Language``.

Real server, real websockets, real headless Chromium (its locale set as a Spanish reader's).
"""

from __future__ import annotations

import html
import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.support.processes import Server
from tests.support.rooms import create_room
from tests.support.web import DESKTOP, Browsing, Tab

pytestmark = pytest.mark.browser


def spanish(browsing: Browsing, name: str, path: str = "/", **context: object) -> Tab:
    """A tab of a browser set up for a Spanish reader (``navigator.languages`` es-ES)."""
    options: dict[str, object] = {**DESKTOP, "locale": "es-ES", "base_url": browsing.base_url, **context}
    page = browsing.browser.new_context(**options).new_page()  # type: ignore[arg-type]
    tab = browsing.adopt(name, page)
    page.goto(path)
    return tab


def meta_tags(page: str) -> dict[str, str]:
    pairs = re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', page)
    return {key: html.unescape(value) for key, value in pairs}


def test_the_switch_changes_the_language_and_is_remembered(browsing: Browsing) -> None:
    tab = spanish(browsing, "ana")
    page = tab.page
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.get_by_test_id("lang")).to_have_value("es")
    expect(page.get_by_test_id("mute")).to_have_attribute("title", re.compile("Sonido"))
    # Switched to English: the page is English, and stays so on the next visit.
    page.get_by_test_id("lang").select_option("en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_test_id("mute")).to_have_attribute("title", re.compile("Sounds"))
    page.goto("/how")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_test_id("lang")).to_have_value("en")
    # And back to Spanish, remembered as well.
    page.get_by_test_id("lang").select_option("es")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    page.reload()
    expect(page.get_by_test_id("lang")).to_have_value("es")
    assert page.evaluate("localStorage.getItem('crescent.lang')") == "es"


def test_an_english_browser_gets_english(browsing: Browsing) -> None:
    page = browsing.open("bob").page
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_test_id("lang")).to_have_value("en")


def test_a_link_preview_follows_accept_language(browsing: Browsing, server: Server) -> None:
    _, code = create_room(browsing, "Ann", difficulty="hard", deal=5)
    with httpx.Client(base_url=server.url) as http:
        es = http.get(f"/r/{code}", headers={"Accept-Language": "es-ES,es;q=0.9,en;q=0.8"})
        tags = meta_tags(es.text)
        assert tags["og:title"] == "Únete a mi Crescent Race (difícil)"
        assert tags["og:description"].startswith(f"Sala {code}: 1 jugador esperando para empezar.")
        assert tags["og:locale"] == "es_ES" and '<html lang="es">' in es.text
        assert "Accept-Language" in es.headers["vary"]
        en = meta_tags(http.get(f"/r/{code}", headers={"Accept-Language": "en-GB,en;q=0.9,es;q=0.5"}).text)
        assert en["og:title"] == "Join my Crescent Race (hard)"
        assert meta_tags(http.get(f"/r/{code}", headers={"Accept-Language": "fr-FR"}).text)["og:locale"] == "en_GB"
        daily = meta_tags(http.get("/daily", headers={"Accept-Language": "es"}).text)
        assert daily["og:title"] == "Crescent Race: el reto diario de hoy"
        assert meta_tags(http.get("/r/NOSUCH1", headers={"Accept-Language": "es"}).text)["og:title"] == (
            "Crescent Race: sala NOSUCH1"
        )
