"""The checked-in winning lines (tests/data/winning_lines.json) replay to a win."""

from __future__ import annotations

import pytest

from race.engine import Game
from tests.support.winning_lines import winning_line, winning_lines


def test_there_are_lines_for_every_difficulty() -> None:
    assert {difficulty for _, difficulty in winning_lines()} == {"easy", "medium", "hard"}


@pytest.mark.parametrize(("deal", "difficulty"), sorted(winning_lines()))
def test_checked_in_line_replays_to_a_win(deal: int, difficulty: str) -> None:
    game = Game.deal(deal, difficulty)
    for move in winning_line(deal, difficulty):
        game.play(move)
    assert game.is_won


def test_asking_for_a_deal_without_a_line_names_the_ones_on_file() -> None:
    with pytest.raises(KeyError, match="have"):
        winning_line(10**9, "hard")
