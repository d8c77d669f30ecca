"""Moves: the text notation and its parsing."""

from __future__ import annotations

import pytest

from race.engine import FOUNDATIONS, InvalidMove, Move

PILES = [f"p{p}" for p in range(16)]
LOCATIONS = PILES + list(FOUNDATIONS)
ALL_TEXTS = ["shuffle"] + [f"{s}>{t}" for s in LOCATIONS for t in LOCATIONS]


def test_foundation_keys() -> None:
    assert FOUNDATIONS == ("uS", "uH", "uD", "uC", "dS", "dH", "dD", "dC")


def test_there_are_577_move_texts_and_all_round_trip() -> None:
    assert len(ALL_TEXTS) == 577
    assert [str(Move.parse(t)) for t in ALL_TEXTS] == ALL_TEXTS
    assert len({Move.parse(t) for t in ALL_TEXTS}) == 577


@pytest.mark.parametrize(
    ("text", "source", "target"),
    [("p3>uH", 3, "uH"), ("p3>p12", 3, 12), ("dH>p5", "dH", 5), ("p0>p15", 0, 15), ("uS>dS", "uS", "dS")],
)
def test_parse_gives_source_and_target(text: str, source: int | str, target: int | str) -> None:
    move = Move.parse(text)
    assert (move.source, move.target) == (source, target)
    assert move == Move(source, target)
    assert str(Move(source, target)) == text
    assert not move.is_shuffle


def test_shuffle_has_no_source_or_target() -> None:
    move = Move.parse("shuffle")
    assert move == Move.shuffle() == Move(None, None)
    assert move.is_shuffle
    assert (move.source, move.target) == (None, None)
    assert str(move) == "shuffle"


def test_repr_is_parseable() -> None:
    assert repr(Move(3, 12)) == "Move.parse('p3>p12')"
    assert repr(Move.shuffle()) == "Move.parse('shuffle')"


@pytest.mark.parametrize(
    "text",
    [
        "", "p16>uH", "p3>uX", "P3>uH", "p3 > uH", "p3>uh", "p-1>p2", "p03>p1", "3>uH", "p3>",
        ">uH", "p3>uH>p4", "Shuffle", "SHUFFLE", " shuffle", "pass", "US>p3", "p3-uH", None, 3,
    ],
)  # fmt: skip
def test_parse_rejects_malformed_text_with_invalid_move(text: object) -> None:
    with pytest.raises(InvalidMove, match="invalid move"):
        Move.parse(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("source", "target"), [(16, 0), (-1, 0), (0, "xS"), (True, 1), ("p3", 4), (3, None), (None, 3), (1.0, 2)]
)
def test_constructor_rejects_bad_locations(source: object, target: object) -> None:
    with pytest.raises(InvalidMove, match="invalid location"):
        Move(source, target)  # type: ignore[arg-type]


def test_invalid_move_is_a_value_error() -> None:
    assert issubclass(InvalidMove, ValueError)
