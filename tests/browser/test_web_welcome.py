"""A newcomer's way in: names counted as a reader sees them, the same in the page and on
the server; the room's link shared from the address friends can open (share sheet or copy,
and a QR code), the preview tags a chat shows a pasted link by, and a result to share.

Real server, real websockets, real headless Chromium.
"""

from __future__ import annotations

import html
import json
import re

import httpx
import pytest
from playwright.sync_api import expect
from websockets.sync.client import connect

from tests.support.processes import Server
from tests.support.rooms import create_room, solo_race
from tests.support.web import OUTPUT, Browsing, Tab

pytestmark = pytest.mark.browser

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one character: four people joined
SIZES = {"phone": (390, 844), "laptop": (1366, 768)}
SHARE_ORIGIN = "http://192.168.50.7:8000"  # where friends' devices reach the server
# A share sheet that records what it was given (Chromium on Linux has none).
FAKE_SHARE = "navigator.share = async (data) => { (window.shared ||= []).push(data); };"


SERVER_ENV = {"SHARE_ORIGIN": SHARE_ORIGIN}


def shoot(tab: Tab, label: str) -> None:
    """Screenshots of ``tab`` at phone and laptop sizes, under test-output/welcome/."""
    folder = OUTPUT / "welcome"
    folder.mkdir(parents=True, exist_ok=True)
    before = tab.page.viewport_size
    for size, (width, height) in SIZES.items():
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.page.screenshot(path=str(folder / f"{label}-{size}.png"), full_page=True)
    if before:
        tab.page.set_viewport_size(before)


def server_says(server: Server, message: dict[str, object]) -> dict[str, object]:
    with connect(server.ws_url) as ws:
        assert json.loads(ws.recv())["type"] == "hello"
        ws.send(json.dumps(message))
        reply: dict[str, object] = json.loads(ws.recv())
        return reply


def test_a_name_is_counted_in_characters_as_read_by_the_page_and_the_server(browsing: Browsing, server: Server) -> None:
    _, code = create_room(browsing, "Ann", difficulty="easy", deal=3)
    guest = browsing.open("guest", f"/r/{code}", phone=True)
    gp = guest.page
    field = gp.get_by_test_id("join-name")
    too_long = FAMILY * 21  # 21 characters (147 code points)
    field.fill(too_long)
    assert "21" in field.evaluate("(e) => e.validationMessage")
    gp.get_by_test_id("join-room").tap()
    expect(gp.get_by_test_id("lobby")).to_be_hidden()
    assert not guest.sent_types("join"), "the page sent a name it counts as too long"
    refused = server_says(server, {"type": "join", "room": code, "name": too_long})
    assert refused["code"] == "bad_name" and "at most 20" in str(refused["message"])
    just_right = FAMILY * 20
    field.fill(just_right)
    assert field.evaluate("(e) => e.validationMessage") == ""

    name = f"{FAMILY} Famille Dupont"  # 16 characters, 22 code points
    field.fill(name)
    assert field.evaluate("(e) => e.validationMessage") == ""
    gp.get_by_test_id("join-room").tap()
    expect(gp.get_by_test_id("lobby")).to_be_visible()
    expect(gp.get_by_test_id("lobby-player").nth(1)).to_contain_text(name)
    shoot(guest, "lobby-family-name")


def meta_tags(page: str) -> dict[str, str]:
    found = re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', page)
    return {key: html.unescape(value) for key, value in found}


def test_the_lobby_shares_the_room_link_friends_can_open_with_a_qr_code(browsing: Browsing, server: Server) -> None:
    host, code = create_room(browsing, "Ann", difficulty="hard", deal=42)
    page = host.page
    link = f"{SHARE_ORIGIN}/r/{code}"  # not 127.0.0.1: the page was opened at a loopback address
    expect(page.get_by_test_id("share-url")).to_have_value(link)
    qr = page.get_by_test_id("room-qr")
    expect(qr).to_be_visible()
    page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=qr.element_handle())
    svg = httpx.get(f"{server.url}/api/rooms/{code}/qr.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert f"<title>{link}</title>" in svg.text, "the QR code holds another link than the page shows"
    # No share sheet here: the button copies.
    copy = page.get_by_test_id("copy-link")
    expect(copy).to_have_attribute("data-mode", "copy")
    expect(copy).to_have_text("Copy link")
    shoot(host, "lobby-share")

    # A phone with a share sheet gets it, with the same link.
    phone = browsing.browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, base_url=server.url
    )
    phone.add_init_script(FAKE_SHARE)
    friend = browsing.adopt("friend", phone.new_page())
    friend.page.goto(f"/r/{code}")
    # Before joining, the friend sees who invites, to what, and who is waiting.
    invite = "Ann invites you to race: hard · known deal 42. Waiting: Ann."
    expect(friend.page.get_by_test_id("join-invite")).to_have_text(invite)
    shoot(friend, "invite")
    friend.page.get_by_test_id("join-name").fill("Bob")
    friend.page.get_by_test_id("join-room").tap()
    button = friend.page.get_by_test_id("copy-link")
    expect(button).to_have_text("Share link")
    button.tap()
    expect(button).to_have_text("Shared!")
    shared = friend.page.evaluate("window.shared")
    assert shared == [{"title": "Crescent Race", "text": f"Join my Crescent Race, room {code}", "url": link}]


def test_room_and_daily_links_carry_preview_tags(server: Server) -> None:
    with httpx.Client(base_url=server.url) as http:
        code = create_by_socket(server, "Ann")
        tags = meta_tags(http.get(f"/r/{code.lower()}").text)
        assert tags["og:title"] == "Join my Crescent Race (medium)"
        assert tags["og:description"].startswith(f"Room {code}: 1 player waiting to start.")
        assert tags["og:url"] == f"{SHARE_ORIGIN}/r/{code}" and tags["twitter:card"] == "summary_large_image"
        image = http.get("/og.png")
        assert tags["og:image"] == f"{SHARE_ORIGIN}/og.png" and image.headers["content-type"] == "image/png"
        assert image.content[16:24] == (1200).to_bytes(4, "big") + (630).to_bytes(4, "big")  # the PNG's size
        nobody = meta_tags(http.get("/r/NOSUCH1").text)
        assert nobody["og:title"] == "Crescent Race: room NOSUCH1"
        daily = meta_tags(http.get("/daily").text)
        assert daily["og:title"] == "Crescent Race: today's daily challenge"
        assert daily["og:url"] == f"{SHARE_ORIGIN}/daily"


def create_by_socket(server: Server, name: str) -> str:
    joined = server_says(server, {"type": "create", "name": name})
    assert joined["type"] == "joined", joined
    room = joined["room"]
    assert isinstance(room, dict)
    return str(room["code"])


def test_a_player_shares_the_result_when_the_race_is_over(browsing: Browsing, server: Server) -> None:
    tab = browsing.open("solo", "/", still=True)
    tab.page.context.add_init_script(FAKE_SHARE)
    tab.page.reload()
    solo_race(tab, "easy", 5)
    page = tab.page
    expect(page.get_by_test_id("share-result")).to_be_hidden()
    resign = page.get_by_test_id("resign")
    resign.click()
    resign.click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
    button = page.get_by_test_id("share-result")
    expect(button).to_have_text("Share my result")
    shoot(tab, "race-over-share")
    button.click()
    expect(button).to_have_text("Shared!")
    code = page.get_by_test_id("room").get_attribute("data-code")
    (shared,) = page.evaluate("window.shared")
    assert shared["text"] == "Crescent Race, easy deal 5: with 8/104 cards, 0 moves"
    assert shared["url"] == f"{SHARE_ORIGIN}/r/{code}"


def test_a_newcomer_is_offered_how_to_play_once_and_it_is_linked_from_home_and_the_race(
    browsing: Browsing, server: Server
) -> None:
    tab = browsing.open("newcomer", "/", phone=True)
    page = tab.page
    offer = page.get_by_test_id("welcome")
    expect(offer).to_be_visible()
    shoot(tab, "home-welcome")
    page.get_by_test_id("welcome-howto").tap()
    expect(page.get_by_test_id("howto")).to_be_visible()
    expect(page).to_have_title("How to play · Crescent Race")
    expect(page.get_by_role("heading", level=1)).to_have_text("How to play Crescent")
    for words in ("Home 8/104", "A-K wrap", "Give-backs", "The shuffle"):
        expect(page.get_by_test_id("howto")).to_contain_text(words)
    # The pictures are the board's own cards, labelled for screen readers.
    expect(page.get_by_role("img", name="A-K wrap: the Ace of hearts may go on the King of hearts")).to_be_visible()
    shoot(tab, "howto")
    page.get_by_test_id("howto-home").tap()
    expect(page.get_by_test_id("home")).to_be_visible()
    expect(page.get_by_test_id("welcome")).to_have_count(0)  # offered once
    expect(page.get_by_test_id("howto-link")).to_have_attribute("href", "/how")

    # A visitor who waves it away is not asked again; the race page links it in a new tab.
    other = browsing.open("other", "/")
    other.page.get_by_test_id("welcome-dismiss").click()
    expect(other.page.get_by_test_id("welcome")).to_have_count(0)
    other.page.reload()
    expect(other.page.get_by_test_id("home")).to_be_visible()
    expect(other.page.get_by_test_id("welcome")).to_have_count(0)
    solo_race(other, "easy", 4)
    link = other.page.get_by_test_id("howto-link")
    expect(link).to_have_attribute("target", "_blank")
    shoot(other, "race-howto-link")
