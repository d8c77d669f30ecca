"""The beam search's heuristics: how promising a position looks, computed from memoized piles.

A position is scored as in :mod:`race.solver.position` (``piles`` a list of 16 ``bytes``, card
indexes bottom to top), except that the foundation counts come as ``bytes`` (they key a memo).
Scoring is most of a beam's work per position, so it is built from two memos (a
:class:`ScoreMemo` per search): per pile (and shuffles left) the depths of its cards packed into
one int (:class:`PileDepths`), and per foundation counts the cards they want (:class:`Wanted`);
a position then costs a look-up per pile and a few big-int operations, and scores exactly what
the plain sum over piles and cards would.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from operator import getitem, or_

from .core import Levels, Weights

Piles = list[bytes]

#: How deep a card may lie and still count: a wanted card deeper than this (or absent) counts as 7.
MAX_DEPTH = 7
#: LEVELS[d][c]: card ``c``'s bit in every depth level from ``d`` to ``MAX_DEPTH - 1`` (see :class:`PileDepths`).
LEVELS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << (52 * level + c) for level in range(d, MAX_DEPTH)) for c in range(52)) for d in range(MAX_DEPTH)
)
#: NEXT_BIT[f][n] / AFTER_BIT[f][n]: the bit of the card foundation ``f`` holding ``n`` cards takes
#: next / after that (0 when there is none).
#: (Foundations ``0-3`` build up from the Ace, ``4-7`` down from the King, suit ``f & 3``; card
#: ``c`` is suit ``c // 13``, rank ``c % 13`` from the Ace: the search's ``NEED`` as bits.)
NEXT_BIT: tuple[tuple[int, ...], ...] = tuple(
    tuple(0 if n >= 13 else 1 << ((f & 3) * 13 + (n if f < 4 else 12 - n)) for n in range(14)) for f in range(8)
)
AFTER_BIT: tuple[tuple[int, ...], ...] = tuple((*NEXT_BIT[f][1:], 0) for f in range(8))
#: The memory bound of each scoring memo (entries; a few hundred bytes each; a search meets far fewer piles).
MEMO_CAP = 200_000


class PileDepths(dict[bytes, int]):
    """A memo, for one number of shuffles left, of how deep each card lies in a pile.

    ``depths[pile]`` is an int of :data:`MAX_DEPTH` card masks of 52 bits each: level ``d``
    (bits ``52 * d`` to ``52 * d + 51``) holds the cards whose shallowest copy in the pile has
    depth at most ``d``. A card's depth is the number of cards above it or, when cheaper and
    affordable, the shuffles that would rotate it to the top. Or-ing the piles' ints gives the
    same for the whole position, and a card's depth there is the number of levels missing it
    (:data:`MAX_DEPTH` when it is deeper than that in every pile or on none).
    """

    __slots__ = ("shuffles",)

    def __init__(self, shuffles: int) -> None:
        super().__init__()
        self.shuffles = shuffles

    def __missing__(self, pile: bytes) -> int:
        if len(self) >= MEMO_CAP:
            self.clear()
        n, s = len(pile), self.shuffles
        bits = 0
        for i in range(n):
            d = n - 1 - i
            if i < s and i + 1 < d:
                d = i + 1
            if d < MAX_DEPTH:
                bits |= LEVELS[d][pile[i]]
        self[pile] = bits
        return bits


#: Times a card mask: that mask at every depth level.
SPREAD = sum(1 << (52 * level) for level in range(MAX_DEPTH))


class Wanted(dict[bytes, tuple[int, int, int, int, int]]):
    """A memo, per foundation counts (as bytes), of the cards they want.

    ``wanted[fnd]`` is ``(cards, first, second, firsts, seconds)``: the cards on the
    foundations, the cards some foundation takes next and the other cards some foundation takes
    after that (each as a mask at every level of :class:`PileDepths`), and how many of each.
    """

    __slots__ = ()

    def __missing__(self, fnd: bytes) -> tuple[int, int, int, int, int]:
        if len(self) >= MEMO_CAP:
            self.clear()
        first = reduce(or_, map(getitem, NEXT_BIT, fnd))
        second = reduce(or_, map(getitem, AFTER_BIT, fnd)) & ~first
        entry = self[fnd] = sum(fnd), first * SPREAD, second * SPREAD, first.bit_count(), second.bit_count()
        return entry


class ScoreMemo:
    """The memos one search scores with (whatever its heuristics): :class:`Wanted` and, per
    number of shuffles left up to ``shuffles``, :class:`PileDepths`. It lives as long as the
    search, so its memory goes with it."""

    __slots__ = ("depths", "levels", "wanted")

    def __init__(self, shuffles: int) -> None:
        self.depths = [PileDepths(s) for s in range(shuffles + 1)]
        self.wanted = Wanted()
        #: The beam's own memos (:class:`race.solver.core.Levels` per pile), per shuffles left.
        self.levels: list[dict[bytes, Levels]] = [{} for _ in range(shuffles + 1)]


class Scorer:
    """A heuristic: its :class:`race.solver.core.Weights`, which the beam scores with, and the
    same score as a call, ``scorer(piles, fnd, shuffles, memo)`` (see :func:`make_scorer`)."""

    __slots__ = ("score", "weights")

    def __init__(self, weights: Weights, score: Callable[[Piles, bytes, int, ScoreMemo], int]) -> None:
        self.weights = weights
        self.score = score

    def __call__(self, piles: Piles, fnd: bytes, shuffles: int, memo: ScoreMemo) -> int:
        return self.score(piles, fnd, shuffles, memo)


def make_scorer(foundation: int = 40, shuffle: int = 20, nxt: int = 2, after: int = 1, empty: int = 4) -> Scorer:
    """A heuristic for the beam (higher is better): a weighted sum of what a position has.

    ``foundation`` per card on the foundations; minus ``nxt`` times the depth (as in
    :class:`PileDepths`) of each card some foundation takes next and ``after`` times the depth
    of each other card some foundation takes after that (each card counted once); plus
    ``empty`` per empty pile and ``2 * shuffle`` per shuffle in hand. The heuristic only orders
    the search; it never affects what the search may conclude.

    The scorer is called as ``score(piles, fnd, shuffles, memo)`` with ``fnd`` the foundation
    counts as bytes and ``memo`` a :class:`ScoreMemo` for at least ``shuffles`` shuffles, reused
    across calls. A position then costs a memo look-up per pile and a few big-int operations:
    a wanted card's depth is :data:`MAX_DEPTH` less the levels of the piles' or-ed depths
    holding it.
    """
    weight = 2 * shuffle
    missing = MAX_DEPTH * nxt, MAX_DEPTH * after  # the penalty of a wanted card at no level

    def score(piles: Piles, fnd: bytes, shuffles: int, memo: ScoreMemo) -> int:
        cards, first, second, firsts, seconds = memo.wanted[fnd]
        reached = reduce(or_, map(memo.depths[shuffles].__getitem__, piles))
        return (
            foundation * cards
            + nxt * (first & reached).bit_count()
            + after * (second & reached).bit_count()
            - missing[0] * firsts
            - missing[1] * seconds
            + empty * piles.count(b"")
            + weight * shuffles
        )

    return Scorer(Weights(foundation, shuffle, nxt, after, empty), score)


#: The weights of the beam's heuristics (see :func:`make_scorer`), tried in turn at each width.
#: One narrow beam (width 48, 72,000 nodes) per heuristic and hard deal 1-100 picked them from
#: 84 weightings: each alone wins 24 to 38 of those deals, but different ones, and these twelve
#: (greedily, each winning the most deals the ones before it missed) win 89. Many win more with
#: empty piles counting *against* a position: an empty pile can never be built on again, and
#: beams that empty piles early reach 100 cards on the foundations with the last ones stuck in
#: the wrong order. On hard deals 101-300, which played no part in the choice, the solver with
#: these twelve won 182 of 200 with 2.6M nodes each (about 10 s) where the previous four won 163
#: in 10 s.
PORTFOLIO: tuple[dict[str, int], ...] = (
    {"foundation": 25, "shuffle": 40, "nxt": 2, "after": 1, "empty": -12},
    {"foundation": 40, "shuffle": 40, "nxt": 2, "after": 2, "empty": -4},
    {"foundation": 25, "shuffle": 40, "nxt": 2, "after": 2, "empty": 4},
    {"foundation": 15, "shuffle": 40, "nxt": 2, "after": 1, "empty": -4},
    {"foundation": 25, "shuffle": 40, "nxt": 3, "after": 2, "empty": 4},
    {"foundation": 25, "shuffle": 40, "nxt": 2, "after": 2, "empty": 0},
    {"foundation": 15, "shuffle": 40, "nxt": 2, "after": 1, "empty": 4},
    {"foundation": 15, "shuffle": 20, "nxt": 3, "after": 1, "empty": 4},
    {"foundation": 15, "shuffle": 40, "nxt": 3, "after": 1, "empty": -4},
    {"foundation": 40, "shuffle": 20, "nxt": 2, "after": 2, "empty": -4},
    {"foundation": 25, "shuffle": 60, "nxt": 2, "after": 1, "empty": -12},
    {"foundation": 25, "shuffle": 60, "nxt": 2, "after": 2, "empty": 0},
)
SCORERS: tuple[Scorer, ...] = tuple(make_scorer(**weights) for weights in PORTFOLIO)
score = make_scorer()
