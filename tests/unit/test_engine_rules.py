"""Every rule and edge case of the rule book, on dealt and on constructed positions."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from race.engine import CARDS, FOUNDATIONS, Card, Game, IllegalMove, InvalidMove, Move
from race.engine.game import DIFFICULTIES

PILE_TEXTS = [f"p{p}" for p in range(16)]
ALL_MOVE_TEXTS = ["shuffle"] + [f"{s}>{t}" for s in [*PILE_TEXTS, *FOUNDATIONS] for t in [*PILE_TEXTS, *FOUNDATIONS]]


def position(*piles: str, fnd: dict[str, int] | None = None, shuffles: int = 0, difficulty: str = "hard") -> Game:
    """A constructed position: piles as card texts bottom to top ("" is an empty pile, missing
    piles are empty), foundation card counts (default 1, the bare base) and shuffles left."""
    game = Game.deal(1, difficulty)
    texts = list(piles) + [""] * (16 - len(piles))
    game._piles = [[Card.parse(t).index for t in text.split()] for text in texts]
    counts = dict.fromkeys(FOUNDATIONS, 1) | (fnd or {})
    game._fnd = [counts[k] for k in FOUNDATIONS]
    game.shuffles_left = shuffles
    return game


def moves(game: Game) -> list[str]:
    return [str(m) for m in game.legal_moves()]


def pile(game: Game, p: int) -> str:
    return " ".join(str(c) for c in game.piles[p])


def snapshot(game: Game) -> tuple[Any, ...]:
    return (game.position_key(), list(game.move_stack), game.seed, game.difficulty)


def assert_illegal(game: Game, text: str, match: str = "") -> None:
    before = snapshot(game)
    assert not game.is_legal(Move.parse(text))
    assert text not in moves(game)
    with pytest.raises(IllegalMove, match=match):
        game.play(text)
    assert snapshot(game) == before


def assert_legal(game: Game, text: str) -> None:
    assert game.is_legal(Move.parse(text))
    assert text in moves(game)


# -- piles: two-way in-suit building with the A-K wrap ----------------------------------------


@pytest.mark.parametrize(
    ("top", "accepted"),
    [("9C", {"8C", "TC"}), ("KH", {"QH", "AH"}), ("AS", {"2S", "KS"}), ("2D", {"AD", "3D"})],
)
def test_pile_top_accepts_exactly_the_same_suit_one_rank_either_way_with_ace_king_wrap(
    top: str, accepted: set[str]
) -> None:
    fits = {str(card) for card in CARDS if position(top, str(card)).is_legal(Move(1, 0))}
    assert fits == accepted


def test_king_lands_on_ace_and_ace_on_king_on_piles() -> None:
    game = position("AH", "KH", "KS", "AS")
    assert_legal(game, "p1>p0")
    assert_legal(game, "p0>p1")
    assert_legal(game, "p3>p2")
    game.play("p3>p2")
    assert pile(game, 2) == "KS AS"


def test_pile_tops_zigzag_up_and_down_freely() -> None:
    # The top of pile 0 goes 7-8-7-6-7: directions change as often as you like.
    game = position("7S", "8S", "9S", "6S", "5S")
    tops = [game.piles[0][-1]]
    for text in ["p1>p0", "p0>p2", "p3>p0", "p0>p4"]:
        game.play(text)
        tops.append(game.piles[0][-1])
    assert [str(t) for t in tops] == ["7S", "8S", "7S", "6S", "7S"]


def test_ace_king_corner_may_be_crossed_repeatedly_on_piles() -> None:
    game = position("AD", "KD", "QD", "2D")
    for text in ["p1>p0", "p0>p2", "p2>p0", "p0>p2", "p0>p2", "p3>p2"]:
        game.play(text)
    assert pile(game, 2) == "QD KD AD 2D"


def test_only_the_top_card_moves() -> None:
    game = position("2S 9H", "TH")
    assert moves(game) == ["p0>p1", "p1>p0"]
    assert_illegal(game, "p0>uS", "uS needs 2S, pile 0 shows 9H")


def test_a_card_cannot_move_onto_its_own_pile() -> None:
    assert_illegal(position("5S 6S"), "p0>p0", "own pile")


# -- foundations ----------------------------------------------------------------------------


def test_ace_foundation_builds_up_in_suit() -> None:
    game = position("2S", "3S", "2H", "KS")
    assert_legal(game, "p0>uS")
    assert_illegal(game, "p1>uS", "uS needs 2S")
    assert_illegal(game, "p2>uS", "uS needs 2S")
    assert_illegal(game, "p3>uS", "uS needs 2S")  # no wrap from the base Ace down to the King
    assert_legal(game, "p2>uH")


def test_king_foundation_builds_down_in_suit() -> None:
    game = position("QD", "JD", "QC", "AD")
    assert_legal(game, "p0>dD")
    assert_illegal(game, "p1>dD", "dD needs QD")
    assert_illegal(game, "p2>dD", "dD needs QD")
    assert_illegal(game, "p3>dD", "dD needs QD")  # no wrap from the base King up to the Ace


def test_a_card_may_fit_both_foundations_of_its_suit() -> None:
    # uH holds A-7 and needs the 8; dH holds K-9 and needs the 8 too.
    game = position("8H", fnd={"uH": 7, "dH": 5})
    assert moves(game) == ["p0>uH", "p0>dH", "uH>p0", "dH>p0"]


def test_full_up_foundation_does_not_wrap_to_an_ace() -> None:
    game = position("AS", "AS", fnd={"uS": 13})
    assert_illegal(game, "p0>uS", "uS is complete")


def test_full_down_foundation_does_not_wrap_to_a_king() -> None:
    game = position("KC", fnd={"dC": 13})
    assert_illegal(game, "p0>dC", "dC is complete")


def test_a_foundation_takes_exactly_13_cards_and_nothing_after() -> None:
    game = position("KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", "AS", "KS")
    for _ in range(12):
        game.play("p0>uS")
    assert [str(c) for c in game.foundations["uS"]] == [r + "S" for r in "A23456789TJQK"]
    assert_illegal(game, "p1>uS", "complete")
    assert_illegal(game, "p2>uS", "complete")


def test_foundations_property_lists_cards_base_first() -> None:
    game = position(fnd={"uC": 3, "dH": 4})
    assert [str(c) for c in game.foundations["uC"]] == ["AC", "2C", "3C"]
    assert [str(c) for c in game.foundations["dH"]] == ["KH", "QH", "JH", "TH"]
    assert list(game.foundations) == list(FOUNDATIONS)


# -- base cards, give-backs, foundation to foundation ----------------------------------------


@pytest.mark.parametrize(("key", "target"), [("uS", "2S"), ("uS", "KS"), ("dS", "QS"), ("dS", "AS")])
def test_base_cards_never_move_not_even_onto_a_fitting_pile(key: str, target: str) -> None:
    game = position(target)
    assert_illegal(game, f"{key}>p0", "only its base card")


def test_give_back_plays_a_foundation_top_onto_a_fitting_pile() -> None:
    # uS holds A-5 and needs the 6; dS holds K-6 and needs the 5.
    game = position("4S", "6S", "5H", "", fnd={"uS": 5, "dS": 8})
    assert moves(game) == ["p1>uS", "uS>p0", "uS>p1"]
    assert_illegal(game, "uS>p2", "5S does not fit on 5H")
    assert_illegal(game, "uS>p3", "empty piles stay empty")
    game.play("uS>p0")
    assert pile(game, 0) == "4S 5S"
    assert len(game.foundations["uS"]) == 4
    # A returned card is a normal pile card: it may travel and enter either foundation.
    assert moves(game) == ["p0>uS", "p0>dS", "p0>p1", "p1>p0", "uS>p0", "dS>p0"]


def test_give_back_crosses_the_ace_king_corner_onto_piles() -> None:
    game = position("AS", "KH", fnd={"uS": 13, "dH": 13})
    assert moves(game) == ["uS>p0", "dH>p1"]


@pytest.mark.parametrize("source", FOUNDATIONS)
def test_cards_never_move_from_one_foundation_to_another(source: str) -> None:
    game = position("9D", fnd={"uS": 5, "dS": 8, "uH": 6, "dH": 7, "uD": 4, "dD": 10, "uC": 13, "dC": 13})
    for target in FOUNDATIONS:
        assert_illegal(game, f"{source}>{target}", "never move from one foundation to another")


# -- empty piles --------------------------------------------------------------------------------


def test_empty_piles_stay_empty() -> None:
    game = position("", "5S", "6S", fnd={"uS": 5})
    assert_illegal(game, "p1>p0", "pile 0 is empty, and empty piles stay empty")
    assert_illegal(game, "uS>p0", "empty piles stay empty")
    assert_illegal(game, "p0>p1", "pile 0 is empty")
    assert_illegal(game, "p0>uS", "pile 0 is empty")


def test_a_pile_emptied_by_play_stays_dead() -> None:
    game = position("5S", "6S")
    game.play("p0>p1")
    assert pile(game, 0) == ""
    assert_illegal(game, "p1>p0", "empty piles stay empty")
    game.shuffles_left = 1
    game.play("shuffle")
    assert pile(game, 0) == ""


# -- the shuffle ---------------------------------------------------------------------------------


def test_shuffle_moves_each_bottom_card_to_the_top_only_on_piles_of_two_or_more() -> None:
    game = position("AS 2S 3S", "5H", "", "7D 8D", "4C 9C JC QC 3H 6D", shuffles=3)
    game.play("shuffle")
    assert [pile(game, p) for p in range(5)] == ["2S 3S AS", "5H", "", "8D 7D", "9C JC QC 3H 6D 4C"]
    assert game.shuffles_left == 2


def test_shuffle_costs_one_and_is_refused_once_the_allowance_is_spent() -> None:
    game = Game.deal(5, "hard")
    for left in (2, 1, 0):
        game.play("shuffle")
        assert game.shuffles_left == left
        assert game.move_stack[-1] == Move.shuffle()  # a shuffle counts as a move
    assert "shuffle" not in moves(game)
    assert_illegal(game, "shuffle", "no shuffles left")


def test_shuffle_is_legal_while_other_moves_remain() -> None:
    game = Game.deal(42)
    assert len(moves(game)) > 1 and moves(game)[-1] == "shuffle"
    game.play("shuffle")
    assert game.shuffles_left == 5


def test_shuffle_is_legal_even_when_it_changes_nothing() -> None:
    game = position("5S", "", "9H", shuffles=1)
    before = game.piles
    game.play("shuffle")
    assert game.piles == before and game.shuffles_left == 0


def test_successive_shuffles_surface_cards_from_the_bottom_and_six_restore_a_full_pile() -> None:
    game = Game.deal(3, "easy")
    start = game.piles
    for k in range(1, 7):
        game.play("shuffle")
        assert all(game.piles[p][-1] == start[p][k - 1] for p in range(16))
    assert game.piles == start
    assert game.shuffles_left == 3


@pytest.mark.parametrize(("difficulty", "allowance"), [("easy", 9), ("medium", 6), ("hard", 3)])
def test_difficulty_sets_the_shuffle_allowance(difficulty: str, allowance: int) -> None:
    game = Game.deal(1, difficulty)
    assert game.shuffles_left == game.allowance == allowance == DIFFICULTIES[difficulty]
    assert game.difficulty == difficulty


def test_medium_is_the_default_difficulty() -> None:
    game = Game.deal(1)
    assert (game.difficulty, game.shuffles_left) == ("medium", 6)


# -- undo and restart --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [("p0>uS", "foundation play"), ("p1>p2", "pile move"), ("dS>p3", "give-back"), ("shuffle", "shuffle")],
)
def test_undo_restores_the_exact_position_for_each_kind_of_move(text: str, kind: str) -> None:
    game = position("9H 2S", "4D 5C", "6C", "9S", "QH 8D", fnd={"dS": 4}, shuffles=2)
    before = game.to_dict()
    game.play(text)
    assert game.to_dict() != before, kind
    assert str(game.undo()) == text
    assert game.to_dict() == before


def test_undo_gives_a_shuffle_back() -> None:
    game = Game.deal(8, "hard")
    for _ in range(3):
        game.play("shuffle")
    assert game.shuffles_left == 0
    game.undo()
    assert game.shuffles_left == 1
    assert "shuffle" in moves(game)


def test_undo_is_unlimited_back_to_the_deal() -> None:
    game = Game.deal(11)
    fresh = Game.deal(11)
    for _ in range(60):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(legal[len(game.move_stack) % len(legal)])
    while game.move_stack:
        game.undo()
    assert game == fresh and game.to_dict() == fresh.to_dict()


def test_undo_with_no_history_raises_and_changes_nothing() -> None:
    game = Game.deal(2)
    with pytest.raises(IllegalMove, match="nothing to undo"):
        game.undo()
    assert game == Game.deal(2)


def test_restart_restores_the_deal_and_the_full_allowance() -> None:
    game = Game.deal("restart me", "easy")
    fresh = Game.deal("restart me", "easy")
    game.play("shuffle")
    game.play("shuffle")
    game.play(next(m for m in game.legal_moves() if not m.is_shuffle))
    assert game.shuffles_left == 7 and len(game.move_stack) == 3
    game.restart()
    assert game.piles == fresh.piles
    assert game.foundations == fresh.foundations
    assert game.shuffles_left == 9
    assert game.move_stack == []
    assert (game.seed, game.difficulty) == ("restart me", "easy")
    assert game == fresh


def test_restart_of_a_restored_game_returns_to_its_deal() -> None:
    game = Game.deal(77)
    game.play(game.legal_moves()[0])
    restored = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    restored.restart()
    assert restored == Game.deal(77)


# -- stuck and won ---------------------------------------------------------------------------------

# No pile top fits a foundation (they need 2s and Queens) or another pile, no foundation has a card
# above its base, and no shuffles are left.
STUCK = ("9D 5S", "3C 9H", "KD 5D", "7H 9C")


def test_stuck_when_all_four_conditions_hold() -> None:
    game = position(*STUCK)
    assert game.is_stuck
    assert not game.is_won
    assert game.legal_moves() == []
    assert game.hint() is None


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"piles": ("2H",)}, ["p4>uH"]),  # a pile top fits a foundation
        ({"piles": ("6S",)}, ["p0>p4", "p4>p0"]),  # a pile top fits another pile
        ({"piles": ("3C",), "fnd": {"uC": 4}}, ["uC>p4"]),  # a foundation top can return to a pile
        ({"shuffles": 1}, ["shuffle"]),  # a shuffle is left
    ],
    ids=["foundation play", "pile move", "give-back", "shuffle"],
)
def test_not_stuck_when_exactly_one_condition_fails(change: dict[str, Any], expected: list[str]) -> None:
    game = position(*STUCK, *change.get("piles", ()), fnd=change.get("fnd"), shuffles=change.get("shuffles", 0))
    assert not game.is_stuck
    assert moves(game) == expected
    assert str(game.hint()) == expected[0]


def test_a_dealt_game_is_not_stuck() -> None:
    assert not Game.deal(1, "hard").is_stuck


def almost_won() -> Game:
    """103 cards on the foundations, the King of spades on pile 0: a real (from_dict) position."""
    game = Game.deal(9, "hard")
    data = game.to_dict() | {
        "piles": [["KS"]] + [[]] * 15,
        "foundations": dict.fromkeys(FOUNDATIONS, 13) | {"uS": 12},
    }
    return Game.from_dict(data)


def test_won_exactly_when_all_104_cards_are_on_the_foundations() -> None:
    game = almost_won()
    assert game.cards_on_foundations == 103
    assert not game.is_won
    assert moves(game) == ["p0>uS", "uS>p0", "dS>p0", "shuffle"]
    game.play("p0>uS")
    assert game.cards_on_foundations == 104
    assert game.is_won
    assert not game.is_stuck


def test_a_game_won_with_no_shuffles_left_is_won_not_stuck() -> None:
    game = position("KS", fnd=dict.fromkeys(FOUNDATIONS, 13) | {"uS": 12}, shuffles=0)
    game.play("p0>uS")
    assert game.is_won and not game.is_stuck
    assert moves(game) == [] and game.hint() is None


def test_legality_not_wisdom_a_move_that_buries_a_needed_card_is_allowed() -> None:
    # The 2C is what uC needs; covering it with the 3C leaves the game stuck, and is legal.
    game = position("2C", "3C")
    assert moves(game) == ["p0>uC", "p0>p1", "p1>p0"]
    game.play("p1>p0")
    assert pile(game, 0) == "2C 3C" and moves(game) == [] and game.is_stuck


def test_there_is_no_auto_finish() -> None:
    # Two cards left, both playable to foundations: playing one never plays the other.
    data = Game.deal(9, "hard").to_dict() | {
        "piles": [["KH"], ["AH"]] + [[]] * 14,
        "foundations": dict.fromkeys(FOUNDATIONS, 13) | {"uH": 12, "dH": 12},
    }
    game = Game.from_dict(data)
    game.play("p0>uH")
    assert pile(game, 1) == "AH" and not game.is_won
    assert moves(game) == ["p1>dH", "uH>p1", "dH>p1", "shuffle"]
    game.play("p1>dH")
    assert game.is_won


def test_no_move_is_legal_after_a_win() -> None:
    game = almost_won()
    game.play("p0>uS")
    assert game.shuffles_left == 3
    assert game.legal_moves() == []
    assert game.hint() is None
    for text in ALL_MOVE_TEXTS:
        assert_illegal(game, text, "the game is won")


def test_undo_after_a_win_reopens_the_game() -> None:
    game = almost_won()
    game.play("p0>uS")
    game.undo()
    assert not game.is_won and moves(game) == ["p0>uS", "uS>p0", "dS>p0", "shuffle"]


# -- the hint -------------------------------------------------------------------------------------


def test_hint_prefers_a_foundation_play_over_everything() -> None:
    # p0>p1 would expose the 2S; p2 and p3 fit each other; a shuffle is left; the 2D fits uD.
    game = position("2S 5H", "6H", "9D", "TD", "2D", shuffles=1)
    assert str(game.hint()) == "p4>uD"


def test_hint_among_foundation_plays_takes_the_first_in_legal_moves_order() -> None:
    assert str(position("9D", "", "", "2H", "", "2S").hint()) == "p3>uH"
    assert str(position("7S", fnd={"uS": 6, "dS": 6}).hint()) == "p0>uS"


def test_hint_prefers_a_pile_move_exposing_a_foundation_card_over_a_shuffle() -> None:
    # p0>p1 and p1>p0 expose nothing; p2>p3 exposes the 2C that uC needs.
    game = position("9D", "TD", "2C 6H", "7H", shuffles=1)
    assert moves(game) == ["p0>p1", "p1>p0", "p2>p3", "p3>p2", "shuffle"]
    assert str(game.hint()) == "p2>p3"


def test_hint_among_exposing_pile_moves_takes_the_first_in_legal_moves_order() -> None:
    # p2>p3 and p2>p4 expose the 2C that uC needs, p4>p2 the QS that dS needs; p3>p2 nothing.
    game = position("9D", "TD", "2C 6H", "7H", "QS 5H", shuffles=1)
    assert moves(game) == ["p0>p1", "p1>p0", "p2>p3", "p2>p4", "p3>p2", "p4>p2", "shuffle"]
    assert str(game.hint()) == "p2>p3"
    game = position("9D", "TD", "6H", "7H", "QS 5H", shuffles=1)  # now only p4>p2 exposes one
    assert str(game.hint()) == "p4>p2"


def test_hint_counts_a_card_a_down_foundation_needs_as_exposed() -> None:
    game = position("9D", "TD", "QS 6H", "7H", shuffles=1)
    assert str(game.hint()) == "p2>p3"


def test_hint_does_not_count_a_card_that_only_fits_a_pile_as_exposed() -> None:
    game = position("5C 9D", "TD", "6C", shuffles=1)
    assert str(game.hint()) == "shuffle"


def test_hint_prefers_a_shuffle_over_plain_pile_moves_and_give_backs() -> None:
    game = position("9D", "TD", "4S", fnd={"uS": 5}, shuffles=1)
    assert moves(game) == ["p0>p1", "p1>p0", "uS>p2", "shuffle"]
    assert str(game.hint()) == "shuffle"


def test_hint_falls_back_to_the_first_legal_move() -> None:
    assert str(position("9D", "TD", "4S", fnd={"uS": 5}).hint()) == "p0>p1"
    assert str(position("8C", "4S", fnd={"uS": 5}).hint()) == "uS>p1"


def test_hint_is_none_only_when_no_move_is_legal() -> None:
    assert position(*STUCK).hint() is None
    assert Game.deal(1).hint() is not None


# -- the order of legal moves -------------------------------------------------------------------


def test_legal_moves_are_foundation_plays_then_pile_moves_then_give_backs_then_the_shuffle() -> None:
    game = position("5S", "2H", "6S", "4S", "9C", "TC", "2C", fnd={"uS": 5, "dS": 8}, shuffles=1)
    assert moves(game) == [
        "p0>dS", "p1>uH", "p2>uS", "p6>uC",  # by pile, then foundation
        "p0>p2", "p0>p3", "p2>p0", "p3>p0", "p4>p5", "p5>p4",  # by source, then target pile
        "uS>p2", "uS>p3", "dS>p0",  # by foundation, then target pile
        "shuffle",
    ]  # fmt: skip


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "p16>uS", "uS>uX", "move p0", "p0->p1", "SHUFFLE"])
def test_malformed_move_text_raises_invalid_move_and_changes_nothing(text: str) -> None:
    game = Game.deal(4)
    before = snapshot(game)
    with pytest.raises(InvalidMove, match="invalid move"):
        game.play(text)
    assert snapshot(game) == before


@pytest.mark.parametrize("thing", [None, 3, ("p0", "p1"), b"p0>p1"])
def test_a_move_that_is_neither_move_nor_text_raises_invalid_move(thing: object) -> None:
    game = Game.deal(4)
    with pytest.raises(InvalidMove):
        game.play(thing)  # type: ignore[arg-type]
    assert game == Game.deal(4)


def test_illegal_move_says_what_and_why_and_changes_nothing() -> None:
    game = position("9H", "2S 8C", shuffles=1)
    before = snapshot(game)
    with pytest.raises(IllegalMove, match=r"^illegal move p0>uS: uS needs 2S, pile 0 shows 9H$"):
        game.play("p0>uS")
    with pytest.raises(IllegalMove, match=r"^illegal move p1>p0: 8C does not fit on 9H"):
        game.play(Move(1, 0))
    assert snapshot(game) == before
    assert issubclass(IllegalMove, ValueError) and issubclass(InvalidMove, ValueError)


def test_play_accepts_a_move_or_its_text_and_returns_the_move() -> None:
    game = Game.deal(42)
    assert game.play("p1>uH") == Move(1, "uH")
    assert game.play(Move.parse("p10>uS")) == Move(10, "uS")
    assert [str(m) for m in game.move_stack] == ["p1>uH", "p10>uS"]


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, None, b"42", True, "", "x" * 201, [1], (1,)], ids=repr)
def test_deal_rejects_bad_seeds_with_value_error(seed: object) -> None:
    with pytest.raises(ValueError, match=r"seed|deal number"):
        Game.deal(seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("difficulty", ["nightmare", "Medium", "", None, 6, ["easy"]], ids=repr)
def test_deal_rejects_bad_difficulties_with_value_error(difficulty: object) -> None:
    with pytest.raises(ValueError, match="difficulty must be 'easy', 'medium' or 'hard'"):
        Game.deal(1, difficulty)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [0, 2**64 - 1, "x", "x" * 200, "ünïcode ♠"], ids=repr)
def test_deal_accepts_the_extreme_seeds(seed: int | str) -> None:
    assert Game.deal(seed).seed == seed


# -- saving and restoring -------------------------------------------------------------------------


def scripted_game() -> Game:
    """Deal 42 after a foundation play, a give-back, a shuffle and two hinted moves."""
    game = Game.deal(42)
    for text in ["p1>uH", "p10>uS", "uS>p0", "shuffle"]:
        game.play(text)
    for _ in range(2):
        hint = game.hint()
        assert hint is not None
        game.play(hint)
    return game


def test_to_dict_is_json_safe_and_round_trips_exactly() -> None:
    game = scripted_game()
    data = game.to_dict()
    assert json.loads(json.dumps(data)) == data
    restored = Game.from_dict(json.loads(json.dumps(data)))
    assert restored == game
    assert restored.to_dict() == data
    assert restored.legal_moves() == game.legal_moves()
    while restored.move_stack:
        assert restored.undo() == game.undo()
        assert restored == game
    assert restored == Game.deal(42)


def test_to_dict_layout() -> None:
    data = Game.deal("layout", "hard").to_dict()
    assert data == {
        "format": 1,
        "seed": "layout",
        "difficulty": "hard",
        "piles": [[str(c) for c in p] for p in Game.deal("layout").piles],
        "foundations": dict.fromkeys(FOUNDATIONS, 1),
        "shuffles_left": 3,
        "history": [],
    }


def test_from_dict_accepts_a_constructed_position_without_history() -> None:
    game = almost_won()
    assert game.move_stack == [] and game.cards_on_foundations == 103


def _swap_a_card(d: dict[str, Any]) -> None:
    d["piles"][0][0] = "KS" if d["piles"][0][0] != "KS" else "QS"


def _drop_a_card(d: dict[str, Any]) -> None:
    d["piles"][1].pop()


def _bump_foundation(d: dict[str, Any]) -> None:
    d["foundations"]["uD"] += 1


CORRUPTIONS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "format missing": lambda d: d.pop("format"),
    "format 2": lambda d: d.update(format=2),
    "format text": lambda d: d.update(format="1"),
    "format bool": lambda d: d.update(format=True),
    "seed missing": lambda d: d.pop("seed"),
    "seed negative": lambda d: d.update(seed=-1),
    "seed float": lambda d: d.update(seed=42.0),
    "difficulty": lambda d: d.update(difficulty="nightmare"),
    "15 piles": lambda d: d["piles"].pop(),
    "piles missing": lambda d: d.pop("piles"),
    "bad card": lambda d: d["piles"][2].append("ZZ"),
    "pile not a list": lambda d: d["piles"].__setitem__(3, None),
    "card not text": lambda d: d["piles"][3].__setitem__(0, 7),
    "three of a card": _swap_a_card,
    "103 cards": _drop_a_card,
    "105 cards": _bump_foundation,
    "foundation missing": lambda d: d["foundations"].pop("dC"),
    "foundation extra": lambda d: d["foundations"].update(xS=1),
    "foundation 0": lambda d: d["foundations"].update(uS=0),
    "foundation 14": lambda d: d["foundations"].update(uS=14),
    "foundation bool": lambda d: d["foundations"].update(dS=True),
    "foundation text": lambda d: d["foundations"].update(dS="1"),
    "shuffles over allowance": lambda d: d.update(shuffles_left=7),
    "shuffles negative": lambda d: d.update(shuffles_left=-1),
    "shuffles text": lambda d: d.update(shuffles_left="5"),
    "shuffles disagree with history": lambda d: d.update(shuffles_left=4),
    "history text": lambda d: d.update(history="p1>uH"),
    "history missing": lambda d: d.pop("history"),
    "history bad text": lambda d: d["history"].append("p1=>uH"),
    "history foundation to foundation": lambda d: d["history"].append("uH>dH"),
    "history illegal move": lambda d: d["history"].insert(0, "p0>p1"),
    "history out of order": lambda d: d["history"].reverse(),
    "history extra shuffle": lambda d: (d["history"].append("shuffle"), d.update(shuffles_left=4)),
}


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_from_dict_rejects_corrupted_data(name: str) -> None:
    data = copy.deepcopy(scripted_game().to_dict())
    Game.from_dict(copy.deepcopy(data))  # the uncorrupted data is fine
    CORRUPTIONS[name](data)
    with pytest.raises(ValueError):
        Game.from_dict(data)


@pytest.mark.parametrize("thing", [None, [], "{}", 42])
def test_from_dict_rejects_non_mappings(thing: object) -> None:
    with pytest.raises(ValueError, match="not a saved game"):
        Game.from_dict(thing)  # type: ignore[arg-type]


def test_from_dict_rejects_a_history_that_does_not_start_from_the_deal() -> None:
    """Every move of it legal, but from another layout: undoing it all would not reach the
    position restart() goes to."""
    game = Game.deal(1, "hard")
    game.play("p1>dD")
    data = game.to_dict()
    data["piles"][5], data["piles"][6] = data["piles"][6], data["piles"][5]
    with pytest.raises(ValueError, match="does not start from the deal"):
        Game.from_dict(data)
    data["history"] = []  # the same position with no history: a constructed one, taken as it is
    assert Game.from_dict(data).piles[5] == game.piles[6]


def test_from_dict_rejects_history_played_after_a_win() -> None:
    game = almost_won()
    game.play("p0>uS")
    data = game.to_dict()
    data["history"].append("uS>p0")  # impossible: nothing is legal after a win
    data["piles"][0] = ["KS"]
    data["foundations"]["uS"] = 12
    with pytest.raises(ValueError, match="history move 2"):
        Game.from_dict(data)


# -- copies and position keys ---------------------------------------------------------------------


def test_copy_is_independent_and_equal() -> None:
    game = scripted_game()
    other = game.copy()
    assert other == game and other.position_key() == game.position_key()
    other.play(other.legal_moves()[0])
    assert other != game
    assert game == scripted_game()


def test_position_key_ignores_history_but_not_shuffles_left() -> None:
    game = position("2S", "", "2H", shuffles=2)
    other = game.copy()
    game.play("p0>uS")
    game.play("p2>uH")
    other.play("p2>uH")
    other.play("p0>uS")
    assert game.position_key() == other.position_key()
    assert game != other  # same position, different histories
    before = game.position_key()
    game.play("shuffle")  # changes no pile, but spends a shuffle
    assert game.piles == other.piles
    assert game.position_key() != before
