"""The search itself: a depth-first prover and a beam search over the positions of
:mod:`race.solver.position`.

A position already searched with at least as many shuffles left needs no new search: any line
from it with fewer shuffles is also legal with more (shuffles left only ever enable the shuffle
move).
"""

from __future__ import annotations

from race.engine.tables import TOTAL_CARDS

from . import core
from .core import Budget
from .position import (
    SHUFFLE,
    TABLE_CAP,
    Key,
    Move,
    Piles,
    PlaysMemo,
    apply,
    is_reversal,
    ordered_moves,
    position_key,
    unapply,
)
from .scoring import ScoreMemo, Scorer, score

__all__ = ["EXHAUSTED", "LIMIT", "WON", "Budget", "beam", "dfs"]

WON, EXHAUSTED, LIMIT = "won", "exhausted", "limit"


def dfs(
    piles: Piles,
    fnd: list[int],
    shuffles: int,
    budget: Budget,
    node_cap: int | None = None,
    table_cap: int = TABLE_CAP,
) -> tuple[str, list[Move]]:
    """Depth-first search over every legal move with a transposition table.

    Returns ``(WON, line)``, ``(EXHAUSTED, [])`` when every position reachable from the start
    was searched without a win (so the start is unwinnable), or ``(LIMIT, [])`` when the
    budget, ``node_cap`` (nodes for this call) or ``table_cap`` (table entries: the memory
    bound) ran out first. The start position is not modified.

    Soundness of ``EXHAUSTED``: every position the search enters has all its moves tried; a
    move is skipped only when it leads to a position whose key is in the table with at least
    as many shuffles left (entered before, so searched or on the current path) or when it
    reverses the previous move (:func:`is_reversal`: back to the position on the path). So the
    entered positions are closed under moves up to that dominance, and a win reachable from
    the start would have been entered.
    """
    piles, fnd = list(piles), list(fnd)
    if sum(fnd) == TOTAL_CARDS:
        return WON, []
    table: dict[Key, int] = {position_key(piles, fnd): shuffles}
    plays = PlaysMemo()
    path: list[Move] = []
    stack = [iter(ordered_moves(piles, fnd, shuffles))]
    start_nodes = budget.nodes
    nodes = 0
    check = 0
    while stack:
        move = next(stack[-1], None)
        if move is None:
            stack.pop()
            if path:
                back = path.pop()
                unapply(piles, fnd, back)
                if back[0] == SHUFFLE:
                    shuffles += 1
            continue
        if path and is_reversal(path[-1], move, piles, fnd):
            continue
        shuffles += apply(piles, fnd, move)
        nodes += 1
        if fnd[0] + fnd[1] + fnd[2] + fnd[3] + fnd[4] + fnd[5] + fnd[6] + fnd[7] == TOTAL_CARDS:
            path.append(move)
            budget.nodes = start_nodes + nodes
            return WON, path
        key = (tuple(sorted(piles)), bytes(fnd))
        seen = table.get(key)
        if seen is not None and seen >= shuffles:
            unapply(piles, fnd, move)
            if move[0] == SHUFFLE:
                shuffles += 1
            continue
        table[key] = shuffles
        path.append(move)
        stack.append(iter(ordered_moves(piles, fnd, shuffles, plays[key[1]])))
        check += 1
        if check >= 512:
            check = 0
            budget.nodes = start_nodes + nodes
            if budget.spent() or (node_cap is not None and nodes >= node_cap) or len(table) > table_cap:
                return LIMIT, []
    budget.nodes = start_nodes + nodes
    return EXHAUSTED, []


def beam(
    piles: Piles,
    fnd: list[int],
    shuffles: int,
    width: int,
    budget: Budget,
    table_cap: int = TABLE_CAP,
    scorer: Scorer = score,
    memo: ScoreMemo | None = None,
) -> tuple[str, list[Move]]:
    """Breadth-first search keeping the ``width`` best positions of each depth.

    Returns ``(WON, line)``; ``(EXHAUSTED, [])`` only when no depth ever had more than ``width``
    positions and the table never overflowed, so the search was a complete breadth-first search
    with the same dominance as :func:`dfs` (hence the start is unwinnable); else
    ``(LIMIT, [])``.

    "Best" is by ``scorer`` (see :mod:`race.solver.scoring`), ties in the order generated; the
    positions of a depth are scored only when there are more than ``width`` of them, with
    ``memo`` (a fresh one by default; beams from one position may share one). Every
    generated position counts as a node, including those the table prunes. Each position's
    moves are tried in the order of :func:`race.solver.position.ordered_moves`, and a move
    that undoes the one before it is counted but not played (its child is in the table).

    The table holds exact keys (:func:`position_key`'s piles, sorted, and the foundation
    counts) while the search is complete. Once it is not (so it can prove nothing), it keys by
    a hash of the position, which a move updates by what it changes: sorting 16 piles for every
    child was a tenth of a beam's time. A collision (about one in 2**58 a pair) could then only
    prune a position, never fake a win. The loop itself is :class:`race.solver.core.Beam`.
    """
    if sum(fnd) == TOTAL_CARDS:
        return WON, []
    if memo is None:
        memo = ScoreMemo(shuffles)
    search = core.Beam(width, budget, table_cap, scorer.weights, memo.levels)
    result = search.run(core.start_node(piles, fnd, shuffles))
    if result != WON:
        return result, []
    assert search.won is not None
    return WON, [((m >> 10), (m >> 5) & 31, m & 31) for m in search.won.line()]
