"""The proof of loss one suit at a time (:mod:`race.solver.suits`): sound on small positions,
checked against a plain exhaustive search over the engine's own moves; right on a position
built by hand; and cut at its limit, never a guess."""

from __future__ import annotations

import random

from race.engine import Game
from race.solver.suits import lost_suit, suit_state, winnable
from tests.support.slips import HEARTS, hearts_left, small_position
from tests.support.slips import winnable as plainly_winnable


def test_a_king_on_the_queen_it_waits_for_is_lost_unless_a_shuffle_turns_them() -> None:
    blocked = hearts_left([[11, 12]], 0)  # Q, then K on top: the K cannot leave first
    assert lost_suit(blocked._piles, blocked._fnd, 0, 1000)[0] == HEARTS
    assert plainly_winnable(blocked) is False
    turned = hearts_left([[11, 12]], 1)  # a shuffle brings the Q up
    assert lost_suit(turned._piles, turned._fnd, 1, 1000)[0] is None
    assert plainly_winnable(turned) is True
    apart = hearts_left([[11], [12]], 0)
    assert lost_suit(apart._piles, apart._fnd, 0, 1000)[0] is None


def test_a_suit_is_its_cards_in_order_and_piles_are_alike() -> None:
    game = hearts_left([[12], [11]], 2)
    game._piles[5] = [0, HEARTS * 13 + 3, 40]  # A♠, 4♥, 2♣: only the 4♥ is the suit's
    one = suit_state(game._piles, game._fnd, game.shuffles_left, HEARTS)
    assert one == (((3,), (11,), (12,)), 11, 13, 2)
    game._piles[0], game._piles[1] = game._piles[1], game._piles[0]
    assert suit_state(game._piles, game._fnd, game.shuffles_left, HEARTS) == one


def test_a_lost_suit_is_never_wrong_on_small_positions() -> None:
    """Every position it calls lost is lost by a plain exhaustive search; and it finds some."""
    rng = random.Random(4604)
    lost = agreed = 0
    for _ in range(400):
        game = small_position(rng)
        suit, _ = lost_suit(game._piles, game._fnd, game.shuffles_left, 20_000)
        truth = plainly_winnable(game)
        if suit is not None:
            assert truth is False, (game._piles, game._fnd, game.shuffles_left)
            agreed += 1
        lost += truth is False
    assert agreed >= 10 and agreed <= lost


def test_a_search_cut_at_its_limit_says_nothing() -> None:
    game = Game.deal(7, "medium")  # a whole suit of 24 cards: far more than 50 positions
    state = suit_state(game._piles, game._fnd, game.shuffles_left, 0)
    result, seen = winnable(state, 50)
    assert result in (None, True) and seen <= 50
    assert lost_suit(game._piles, game._fnd, game.shuffles_left, 50)[0] is None
