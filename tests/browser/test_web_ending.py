"""Ending a race as players meet it: nobody ends it while a rival plays, the host no more
than anyone; a player asks to end it and the other sees the request and agrees; the race
over then names no winner, since nobody finished. Screenshots at 390x844 (the phone) and
1366x768 (the laptop) under test-output/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.rooms import create_room, join_room
from tests.support.web import OUTPUT, Browsing

pytestmark = pytest.mark.browser


def test_an_end_vote_is_seen_by_the_other_player_and_the_race_over_names_no_winner(browsing: Browsing) -> None:
    shots = OUTPUT / "ending"
    shots.mkdir(parents=True, exist_ok=True)
    ann, code = create_room(browsing, "Ann", difficulty="easy", deal=7, tab_name="ann", still=True)
    ap = ann.page
    ap.set_viewport_size({"width": 1366, "height": 768})
    bob = join_room(browsing, code, "Bob", tab_name="bob", phone=True)  # 390x844
    bp = bob.page
    expect(ap.get_by_test_id("lobby-player")).to_have_count(2)
    ap.get_by_test_id("start").click()
    for page in (ap, bp):
        expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "racing")
    board = ann.settled()
    home = next(m for m in board["legal"] if m[-2] in "ud")
    ann.play_by_drag(home, board)  # Ann, the host, one card ahead
    expect(bp.get_by_test_id("rivals")).to_contain_text("9/104")

    # Bob plays on: nobody, the host included, may end the race; each may ask to.
    for page in (ap, bp):
        expect(page.get_by_test_id("end-race")).to_have_count(0)
        expect(page.get_by_test_id("end-race-jump")).to_have_count(0)
    ask = ap.get_by_test_id("vote-end")
    expect(ask).to_have_text("Ask to end the race")
    ask.click()
    expect(ask).to_have_attribute("data-asked", "true")
    expect(ask).to_have_text("Withdraw my request")
    expect(ap.get_by_test_id("end-vote")).to_contain_text("You asked to end the race")

    # Bob sees it: on Ann's entry, in words, and on the phone above the board.
    expect(bp.get_by_test_id("progress-s1").get_by_test_id("asks-to-end")).to_be_attached()
    expect(bp.get_by_test_id("end-vote")).to_have_text("Ann asks to end the race now, ranked as things stand.")
    jump = bp.get_by_test_id("end-race-jump")
    expect(jump).to_have_text("Ann asks to end ↓")
    expect(jump).to_be_in_viewport()
    bp.screenshot(path=str(shots / "vote-asked-390x844.png"))
    ap.screenshot(path=str(shots / "vote-asked-1366x768.png"))
    bob.assert_board_fits()
    jump.tap()
    agree = bp.get_by_test_id("vote-end")
    expect(agree).to_be_focused()
    expect(agree).to_be_in_viewport()
    expect(agree).to_have_text("Agree to end the race")
    bp.screenshot(path=str(shots / "vote-agree-390x844.png"))
    agree.tap()

    # Over by vote: nobody finished, so nobody wins; the ranking says who did not finish.
    for page in (ap, bp):
        expect(page.get_by_test_id("room")).to_have_attribute("data-phase", "over")
        title = page.get_by_test_id("podium-title")
        expect(title).to_have_text("Nobody finished")
        expect(page.get_by_test_id("over-banner")).to_contain_text("Race ended by vote.")
        rows = page.locator("[data-testid=ranking] [data-testid=ranking-row]")
        expect(rows).to_have_count(2)
        expect(page.locator("[data-testid=ranking-row][data-finished=false]")).to_have_count(2)
        expect(page.get_by_test_id("unfinished")).to_have_text([" (not finished)", " (not finished)"])
        expect(page.get_by_text("wins!")).to_have_count(0)
    expect(ap.get_by_test_id("over-banner")).to_contain_text("You placed 1st of 2, not finished.")
    ap.screenshot(path=str(shots / "over-1366x768.png"))
    bp.screenshot(path=str(shots / "over-390x844.png"))
    bp.get_by_test_id("to-ranking").tap()
    expect(bp.get_by_test_id("ranking")).to_be_in_viewport()
    bp.screenshot(path=str(shots / "over-ranking-390x844.png"))
