"""Solver positions for the scoring tests: many of them along random lines, and the beam's
heuristic written out card by card, to check the memoized scorers against."""

from __future__ import annotations

import random

from race.engine import Game
from race.engine.tables import NEED
from race.solver.position import Piles, apply, ordered_moves


def plain_score(
    piles: Piles,
    fnd: list[int],
    shuffles: int,
    foundation: int = 40,
    shuffle: int = 20,
    nxt: int = 2,
    after: int = 1,
    empty: int = 4,
) -> int:
    """The heuristic written out card by card (``nxt`` >= ``after``)."""
    wanted: dict[int, int] = {}
    for f in range(8):
        n = fnd[f]
        if n < 13:
            wanted[NEED[f][n]] = nxt
    for f in range(8):
        n = fnd[f]
        if n < 12:
            wanted.setdefault(NEED[f][n + 1], after)
    depth = dict.fromkeys(wanted, 7)
    for p in piles:
        n = len(p)
        for i, c in enumerate(p):
            if c in wanted:
                d = n - 1 - i
                if i < shuffles:
                    d = min(d, i + 1)
                depth[c] = min(depth[c], d)
    total = foundation * sum(fnd) + empty * piles.count(b"") + 2 * shuffle * shuffles
    return total - sum(w * depth[c] for c, w in wanted.items())


def wandering_positions(count: int, seed: int) -> list[tuple[Piles, list[int], int]]:
    """Positions along random lines from deals of every difficulty (long piles, empty piles,
    give-backs and shuffles included)."""
    rng = random.Random(seed)
    found: list[tuple[Piles, list[int], int]] = []
    while len(found) < count:
        game = Game.deal(rng.randint(1, 10**6), rng.choice(("easy", "medium", "hard")))
        piles, fnd, shuffles = [bytes(p) for p in game._piles], list(game._fnd), game.shuffles_left
        for _ in range(rng.randint(0, 300)):
            moves = ordered_moves(piles, fnd, shuffles)
            if not moves:
                break
            shuffles += apply(piles, fnd, moves[min(len(moves) - 1, int(rng.expovariate(0.7)))])
        found.append((list(piles), list(fnd), shuffles))
    return found
