"""The keyboard alone: a move in at most three keys (the pile to take from, then where it
goes), a foundation's card picked up with F and a digit, a move typed in the engine's
notation; and Back from a race asks first.

Real server, real websockets, real headless Chromium.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Dialog, expect

from tests.support.rooms import start_solo
from tests.support.web import Browsing

pytestmark = pytest.mark.browser

TOP = "12345678"
BOTTOM = "zxcvbnm,"


def key_of(zone: str) -> str:
    i = int(zone[1:])
    return TOP[i] if i < 8 else BOTTOM[15 - i]


def keys_for(move: str, legal: list[str]) -> list[str]:
    """The keys that play ``move`` (a pile's card to a pile or to a foundation)."""
    source, target = move.split(">")
    if target.startswith("p"):
        return [key_of(source), key_of(target)]
    home = [m for m in legal if m.startswith(source + ">") and m.split(">")[1][0] in "ud"]
    up = target.startswith("u")
    if up or len(home) == 1:
        return [key_of(source), "Enter"]
    return [key_of(source), "ArrowDown"]


def test_a_move_takes_at_most_three_keys_and_can_be_typed(browsing: Browsing) -> None:
    solo = start_solo(browsing, "easy", 3)
    page = solo.page
    state = solo.settled()
    page.locator("body").click(position={"x": 2, "y": 2})  # the focus nowhere in particular
    moves_sent = len(solo.sent_types("move"))
    played: list[str] = []
    for kind in ("p", "u"):  # a card onto a pile, then one home
        move = next((m for m in state["legal"] if m.startswith("p") and m.split(">")[1][0] == kind), None)
        if move is None:
            continue
        keys = keys_for(move, state["legal"])
        assert len(keys) <= 3
        for key in keys:
            page.keyboard.press(key)
        state = solo.settled(state["version"] + 1)
        played.append(move)
        assert solo.sent_types("move")[-1]["move"] == move
    assert played, "no move to play by keys"
    assert len(solo.sent_types("move")) == moves_sent + len(played)
    expect(page.locator("[data-testid=board].keyed [data-pile='0']")).to_have_attribute("data-key", "1")
    browsing.snap("keyed")

    # Typed in the engine's notation: ":" opens the field, Enter plays; a move not legal now
    # is said so, and nothing is sent.
    page.keyboard.press(":")
    field = page.get_by_test_id("notation-input")
    expect(field).to_be_focused()
    field.fill("p0>p0")
    field.press("Enter")
    expect(page.get_by_test_id("notation-note")).to_contain_text("not a legal move")
    move = next(m for m in state["legal"] if m != "shuffle")
    field.fill(move.replace(">", " > ").upper())
    field.press("Enter")
    state = solo.settled(state["version"] + 1)
    assert solo.sent_types("move")[-1]["move"] == move
    expect(page.get_by_test_id("notation")).to_be_hidden()

    # The keys are on the Keys panel.
    page.keyboard.press("?")
    expect(page.get_by_test_id("keys-help")).to_contain_text("p3>uH")


def test_back_from_a_race_asks_first(browsing: Browsing) -> None:
    solo = start_solo(browsing, "easy", 3)
    page = solo.page
    solo.settled()
    race = page.url
    asked: list[str] = []

    def answer(accept: bool) -> Any:
        def on(dialog: Dialog) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        return on

    page.once("dialog", answer(False))
    page.go_back()
    expect(page).to_have_url(race)
    assert asked and "Leave the race?" in asked[0]
    expect(page.get_by_test_id("board")).to_be_visible()
    solo.settled()

    page.once("dialog", answer(True))
    page.go_back()
    expect(page.get_by_test_id("home")).to_be_visible()
    assert len(asked) == 2
