"""The compiled beam's own scoring and hashing agree with the plain definitions."""

from __future__ import annotations

import pytest

from race.solver import core
from race.solver.position import position_hash
from race.solver.scoring import PORTFOLIO, ScoreMemo, make_scorer
from race.solver.search import Budget
from tests.support.positions import plain_score, wandering_positions


@pytest.mark.parametrize("weights", [{}, *PORTFOLIO])
def test_the_beams_score_equals_the_plain_sum(weights: dict[str, int]) -> None:
    scorer = make_scorer(**weights)
    beam = core.Beam(48, Budget(None, None), 1000, scorer.weights, ScoreMemo(9).levels)
    for piles, fnd, shuffles in wandering_positions(150, seed=11):
        node = core.start_node(piles, fnd, shuffles)
        assert beam.score(node) == plain_score(piles, fnd, shuffles, **weights)


def test_the_beams_hash_ignores_the_order_of_the_piles_as_the_plain_one_does() -> None:
    for piles, fnd, _ in wandering_positions(60, seed=12):
        same = core.node_hash(piles, core.pack(fnd)) == core.node_hash(piles[::-1], core.pack(fnd))
        assert same and position_hash(piles, fnd) == position_hash(piles[::-1], fnd)


def test_popcount_and_reversal() -> None:
    for x in (0, 1, (1 << 52) - 1, 0x123456789ABCDEF, (1 << 64) - 1):
        assert core.popcount(x) == x.bit_count()
    for kind, back in ((core.PILE, core.PILE), (core.TO_FND, core.GIVE), (core.GIVE, core.TO_FND)):
        assert core.reversal(kind << 10 | 3 << 5 | 7) == back << 10 | 7 << 5 | 3
    assert core.reversal(core.SHUFFLE << 10) == -1
