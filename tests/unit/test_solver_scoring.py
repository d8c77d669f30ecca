"""The beam's memoized heuristics score exactly what the plain sum over piles and cards does."""

from __future__ import annotations

import pytest

from race.engine.tables import NEED
from race.solver import scoring
from race.solver.scoring import AFTER_BIT, NEXT_BIT, PORTFOLIO, SCORERS, ScoreMemo, make_scorer
from tests.support.positions import plain_score, wandering_positions

WEIGHTS: list[dict[str, int]] = [
    {"foundation": 15},
    {"foundation": 20},
    {},
    {"foundation": 15, "nxt": 3, "after": 2},
    {"foundation": 25, "shuffle": 60, "empty": -12},
    {"foundation": 7, "shuffle": 3, "nxt": 5, "after": 5, "empty": 11},
]


def test_the_wanted_card_bits_are_the_searchs_need_table() -> None:
    for f in range(8):
        for n in range(14):
            assert NEXT_BIT[f][n] == (0 if NEED[f][n] < 0 else 1 << NEED[f][n])
            assert AFTER_BIT[f][n] == (NEXT_BIT[f][n + 1] if n < 13 else 0)


@pytest.mark.parametrize("weights", WEIGHTS)
def test_the_memoized_scorer_equals_the_plain_sum(weights: dict[str, int]) -> None:
    scorer = make_scorer(**weights)
    memo = ScoreMemo(9)  # shared across positions, as in a beam
    positions = wandering_positions(300, seed=sum(weights.values()))
    assert any(b"" in piles for piles, _, _ in positions)
    assert any(max(map(len, piles)) > 8 for piles, _, _ in positions)
    for piles, fnd, shuffles in positions:
        assert scorer(piles, bytes(fnd), shuffles, memo) == plain_score(piles, fnd, shuffles, **weights)


def test_the_portfolio_is_the_plain_sum_with_its_weights() -> None:
    memo = ScoreMemo(9)  # shared by the heuristics too
    for piles, fnd, shuffles in wandering_positions(100, seed=5):
        for scorer, weights in zip(SCORERS, PORTFOLIO, strict=True):
            assert scorer(piles, bytes(fnd), shuffles, memo) == plain_score(piles, fnd, shuffles, **weights)


def test_full_memos_are_emptied_and_still_score_right(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scoring, "MEMO_CAP", 5)
    scorer = make_scorer()
    memo = ScoreMemo(9)
    for piles, fnd, shuffles in wandering_positions(60, seed=8):
        assert scorer(piles, bytes(fnd), shuffles, memo) == plain_score(piles, fnd, shuffles)
        assert len(memo.wanted) <= 5
        assert all(len(piles) <= 5 for piles in memo.depths)
