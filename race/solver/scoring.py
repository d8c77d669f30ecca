"""The beam search's heuristics: how promising a position looks, computed from memoized piles.

A position is scored as in :mod:`race.solver.search` (``piles`` a list of 16 ``bytes``, card
indexes bottom to top), except that the foundation counts come as ``bytes`` (they key a memo).
Scoring is most of a beam's work per position, so it is built from two memos: per pile (and
shuffles left) the depths of its cards packed into one int (:class:`PileDepths`), and per
foundation counts the cards they want; a position then costs a look-up per pile and a few
big-int operations, and scores exactly what the plain sum over piles and cards would.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from operator import getitem, or_

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
#: The memory bound of each scoring memo (entries; a few hundred bytes each).
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


def pile_depths(shuffles: int) -> list[PileDepths]:
    """Fresh :class:`PileDepths` memos for every number of shuffles left up to ``shuffles``."""
    return [PileDepths(s) for s in range(shuffles + 1)]


Scorer = Callable[[Piles, bytes, int, list[PileDepths]], int]


def make_scorer(foundation: int = 40, shuffle: int = 20, nxt: int = 2, after: int = 1, empty: int = 4) -> Scorer:
    """A heuristic for the beam (higher is better): a weighted sum of what a position has.

    ``foundation`` per card on the foundations; minus ``nxt`` times the depth (as in
    :class:`PileDepths`) of each card some foundation takes next and ``after`` times the depth
    of each other card some foundation takes after that (each card counted once); plus
    ``empty`` per empty pile and ``2 * shuffle`` per shuffle in hand. The heuristic only orders
    the search; it never affects what the search may conclude.

    The scorer is called as ``score(piles, fnd, shuffles, depths)`` with ``fnd`` the foundation
    counts as bytes and ``depths`` from :func:`pile_depths` (reused across calls: it memoizes
    the piles). It memoizes the wanted cards per foundation counts, so a position costs a memo
    look-up per pile and a few big-int operations.
    """
    weight = 2 * shuffle
    spread = sum(1 << (52 * level) for level in range(MAX_DEPTH))  # times a card mask: that mask at every level
    #: Per foundation counts: the part of the score they fix alone, and the wanted cards' masks
    #: (at every level) for ``nxt`` and for ``after``: each level a wanted card reaches adds its weight.
    wanted: dict[bytes, tuple[int, int, int]] = {}

    def score(piles: Piles, fnd: bytes, shuffles: int, depths: list[PileDepths]) -> int:
        entry = wanted.get(fnd)
        if entry is None:
            if len(wanted) >= MEMO_CAP:
                wanted.clear()
            first = reduce(or_, map(getitem, NEXT_BIT, fnd))
            second = reduce(or_, map(getitem, AFTER_BIT, fnd)) & ~first
            base = foundation * sum(fnd) - MAX_DEPTH * (nxt * first.bit_count() + after * second.bit_count())
            entry = wanted[fnd] = base, first * spread, second * spread
        base, first, second = entry
        reached = reduce(or_, map(depths[shuffles].__getitem__, piles))
        return (
            base
            + nxt * (first & reached).bit_count()
            + after * (second & reached).bit_count()
            + empty * piles.count(b"")
            + weight * shuffles
        )

    return score


#: The beam's heuristics, tried in turn at each width. In one narrow beam each wins a different
#: fifth to a third of the hard deals; taken in turn at doubling widths they won 15 of hard
#: deals 41-70 with a million nodes each, where the previous two (widths growing fourfold) won 7.
SCORERS: tuple[Scorer, ...] = (
    make_scorer(foundation=15),
    make_scorer(foundation=20),
    make_scorer(),
    make_scorer(foundation=15, nxt=3, after=2),
)
score = SCORERS[2]
