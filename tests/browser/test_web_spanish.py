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
from tests.support.rooms import create_from_home, create_room
from tests.support.web import DESKTOP, OUTPUT, WAIT_MS, Browsing, Tab

pytestmark = pytest.mark.browser

SERVER_ENV = {"DAILY_NODE_LIMIT": "200000"}  # the daily deal's proof, as in test_web_daily
SIZES = {"phone": (390, 844), "laptop": (1366, 768)}

# Words of the English pages that no Spanish page may show (whole words, any case). Names
# and the brand are taken out first; "no" is Spanish too.
ENGLISH = re.compile(
    r"\b(the|and|of|you|your|race|races|start|join|watch|shuffles?|undo|hints?|restart|resign|ready|waiting"
    r"|ranking|moves?|cards?|piles?|foundations?|loading|back|home|play|daily|today|yesterday|step|lesson"
    r"|won|stuck|left|keys|players?|room|deal|easy|medium|hard|up|down|best|games?|time|spectators?"
    r"|share|link|copy|away|ghosts?|replay|round|rematch|offer|accept|decline|new|next|again|with|for"
    r"|is|are|this|that|not|yes|all|tap|drag|press|streak|rank|result|settings?|friends?|rating)\b",
    re.IGNORECASE,
)
ALLOWED = ("Crescent Race", "Crescent", "English")
TEXT_JS = """() => {
  const parts = [document.title, document.body.innerText];
  const attrs = ['aria-label', 'title', 'placeholder', 'alt'];
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
    for (const a of attrs) if (el.hasAttribute(a)) parts.push(el.getAttribute(a));
  }
  return parts.join('\\n');
}"""


def spanish(browsing: Browsing, name: str, path: str = "/", **settings: object) -> Tab:
    """A tab of a browser set up for a Spanish reader (``navigator.languages`` es-ES)."""
    options: dict[str, object] = {**DESKTOP, "locale": "es-ES", "base_url": browsing.base_url, **settings}
    context = browsing.browser.new_context(**options)  # type: ignore[arg-type]
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
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


def english_on(tab: Tab, *names: str) -> list[str]:
    """The English words ``tab``'s page shows or labels (its visible text, titles, labels,
    placeholders and alt texts), each with the line it is in."""
    text: str = tab.page.evaluate(TEXT_JS)
    for allowed in (*ALLOWED, *names):
        text = text.replace(allowed, "")
    text = re.sub(r"https?://\S+|\S*/(watch|r|replay|daily|me|learn|how)/\S*", "", text)  # addresses
    text = re.sub(r"\([^)]*>[^)]*\)", "", text)  # the engine's notation, the same in every language
    found = []
    for line in text.splitlines():
        found += [f"{m.group(0)!r} in {line.strip()!r}" for m in ENGLISH.finditer(line)]
    return found


def shoot(tab: Tab, label: str) -> None:
    """Screenshots of ``tab`` at phone and laptop sizes, under test-output/spanish/; nothing
    sticks out of the page sideways at either (a long Spanish word would)."""
    folder = OUTPUT / "spanish"
    folder.mkdir(parents=True, exist_ok=True)
    before = tab.page.viewport_size
    for size, (width, height) in SIZES.items():
        tab.page.set_viewport_size({"width": width, "height": height})
        wide = tab.page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width, f"{label} at {size}: the page is {wide} px wide"
        tab.page.screenshot(path=str(folder / f"{label}-{size}.png"), full_page=True)
    if before:
        tab.page.set_viewport_size(before)


def look(tab: Tab, label: str, *names: str) -> None:
    """No English on ``tab``'s page; its screenshots."""
    shoot(tab, label)
    assert not english_on(tab, *names), f"{label}: English on a Spanish page: {english_on(tab, *names)}"


def test_a_spanish_reader_finds_no_english_from_home_to_race_daily_tutorial_and_me(browsing: Browsing) -> None:
    tab = spanish(browsing, "ana")
    page = tab.page
    expect(page.get_by_test_id("create-submit")).to_have_text("Crear sala")
    look(tab, "home")
    page.goto("/how")
    expect(page.get_by_role("heading", level=1)).to_have_text("Cómo se juega al Crescent")
    look(tab, "how")

    # A room, its lobby, a race: a hint, the keys, the race over when Ana resigns.
    page.goto("/")
    code = create_from_home(page, "Ana", difficulty="easy", deal=3)
    expect(page.get_by_test_id("ready")).to_have_text("Estoy listo")
    look(tab, "lobby", "Ana", code)
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing", timeout=WAIT_MS)
    expect(page.get_by_test_id("shuffle")).to_have_text(re.compile(r"^Redistribuir \(\d+\)$"))
    page.keyboard.press("h")
    expect(page.get_by_test_id("hint-text")).to_contain_text("Pista", timeout=WAIT_MS)
    page.get_by_test_id("keys-help").locator("summary").click()
    look(tab, "race", "Ana", code)
    page.keyboard.press("Escape")
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("resign")).to_have_text("¿Seguro que abandonas?")
    page.get_by_test_id("resign").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over", timeout=WAIT_MS)
    expect(page.get_by_test_id("over-banner")).to_contain_text("Carrera terminada")
    expect(page.get_by_test_id("ranking")).to_contain_text("abandonó")
    look(tab, "race-over", "Ana", code)

    watcher = spanish(browsing, "watcher", f"/watch/{code}")
    expect(watcher.page.get_by_test_id("watch-player")).to_have_count(1)
    look(watcher, "watch", "Ana", code)

    page.goto("/daily")
    expect(page.get_by_test_id("daily-play")).to_have_text("Jugar el reparto de hoy")
    expect(page.get_by_test_id("today-board")).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
    look(tab, "daily", "Ana")

    page.goto("/learn")
    expect(page.get_by_test_id("lesson-title")).to_have_text("Sube una carta", timeout=WAIT_MS)
    expect(page.get_by_test_id("lesson-progress")).to_have_text("Paso 1 de 6")
    look(tab, "tutorial", "Ana")

    page.goto("/me")
    expect(page.get_by_test_id("me-game")).to_have_count(1, timeout=WAIT_MS)
    expect(page.get_by_test_id("me-game")).to_contain_text("Carrera · fácil · reparto 3")
    look(tab, "me", "Ana", code)
