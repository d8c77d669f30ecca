"""Cards: the 52 faces, their text form and their numbering."""

from __future__ import annotations

import pytest

from race.engine import CARDS, RANKS, SUITS, Card, InvalidCard


def test_ranks_and_suits_notation() -> None:
    assert RANKS == "A23456789TJQK"
    assert SUITS == "SHDC"


def test_every_card_text_round_trips() -> None:
    texts = [r + s for s in SUITS for r in RANKS]
    assert [str(Card.parse(t)) for t in texts] == texts
    assert len(set(texts)) == 52


@pytest.mark.parametrize(("text", "rank", "suit"), [("AS", 1, "S"), ("TC", 10, "C"), ("KH", 13, "H")])
def test_parse_gives_rank_and_suit(text: str, rank: int, suit: str) -> None:
    assert Card.parse(text) == Card(rank, suit)


def test_index_is_suit_times_13_plus_rank_minus_one_and_orders_cards() -> None:
    assert Card.parse("AS").index == 0
    assert Card.parse("KS").index == 12
    assert Card.parse("AH").index == 13
    assert Card.parse("KC").index == 51
    assert [c.index for c in CARDS] == list(range(52))


def test_repr_is_parseable_and_cards_are_interned_by_parse() -> None:
    card = Card.parse("QD")
    assert repr(card) == "Card.parse('QD')"
    assert Card.parse("QD") is card
    assert hash(Card(12, "D")) == hash(card)


@pytest.mark.parametrize(
    "text", ["", "A", "1S", "10S", "as", "AX", "ZS", "AS ", " AS", "SA", "KHH", None, 5, Card(1, "S")]
)
def test_parse_rejects_malformed_text_with_invalid_card(text: object) -> None:
    with pytest.raises(InvalidCard, match="invalid card"):
        Card.parse(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(("rank", "suit"), [(0, "S"), (14, "S"), (True, "S"), (1.0, "S"), (1, "X"), (1, ""), (1, 1)])
def test_constructor_rejects_bad_rank_or_suit(rank: object, suit: object) -> None:
    with pytest.raises(InvalidCard):
        Card(rank, suit)  # type: ignore[arg-type]


def test_invalid_card_is_a_value_error() -> None:
    assert issubclass(InvalidCard, ValueError)
