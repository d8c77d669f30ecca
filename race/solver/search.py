"""The search itself: a depth-first prover and a beam search over the positions of
:mod:`race.solver.position`.

A position already searched with at least as many shuffles left needs no new search: any line
from it with fewer shuffles is also legal with more (shuffles left only ever enable the shuffle
move).
"""

from __future__ import annotations

import time
from typing import cast

from race.engine.tables import TOP, TOTAL_CARDS

from .position import (
    BYTE,
    FND_STEP,
    GIVE,
    PILE,
    SHUFFLE,
    TABLE_CAP,
    TO_FND,
    Entry,
    Key,
    Move,
    Piles,
    PlaysMemo,
    Rotations,
    apply,
    is_reversal,
    ordered_moves,
    position_hash,
    position_key,
    reversal,
    unapply,
)
from .scoring import ScoreMemo, Scorer, score


class Budget:
    """Shared limits: a deadline (``perf_counter`` seconds) and a node count."""

    __slots__ = ("deadline", "node_limit", "nodes")

    def __init__(self, deadline: float | None, node_limit: int | None) -> None:
        self.deadline = deadline
        self.node_limit = node_limit
        self.nodes = 0

    def share(self, nodes: int) -> Budget:
        """A budget for part of this one's work: the same deadline, at most ``nodes`` more
        nodes (and never past this one's node limit), counting on from this one's nodes. The
        caller adds its ``nodes`` back when the part is done."""
        limit = self.nodes + nodes
        if self.node_limit is not None:
            limit = min(limit, self.node_limit)
        part = Budget(self.deadline, limit)
        part.nodes = self.nodes
        return part

    def spent(self) -> bool:
        if self.node_limit is not None and self.nodes >= self.node_limit:
            return True
        return self.deadline is not None and time.perf_counter() >= self.deadline


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
    generated position counts as a node, including those the table prunes.

    The table holds exact keys (:func:`position_key`) while the search is complete. Once it
    is not (so it can prove nothing), it keys by :func:`position_hash`, which a move updates
    by what it changes: sorting 16 piles for every child was a tenth of a beam's time. A
    collision (about one in 2**64 a pair) could then only prune a position, never fake a win.
    """
    if sum(fnd) == TOTAL_CARDS:
        return WON, []
    start = position_key(piles, fnd)
    table: dict[Key | int, int] = {start: shuffles}  # keyed by position_hash once inexact
    plays = PlaysMemo()
    rotations = Rotations()
    layer: list[Entry] = [(list(piles), list(fnd), start[1], shuffles, position_hash(piles, fnd), None)]
    complete = exact = True
    if memo is None:
        memo = ScoreMemo(shuffles)

    get = table.get
    intact = 1  # layer ends since the table was last emptied (the start's key went in before any)
    nodes = budget.nodes
    while layer:
        following: list[Entry] = []
        for ps, fs, fk, sh, h, parent in layer:
            # The move undoing the one that led here goes back to this position's parent, which
            # the table holds with as many shuffles left unless it was emptied since that went
            # in (two layer ends ago): the table would prune that child, so it is only counted.
            back = reversal(parent[0]) if parent is not None and intact >= 2 else None
            for move in ordered_moves(ps, fs, sh, plays[fk]):
                nodes += 1
                if move == back:
                    continue
                # The move is played here as apply would, but without the call and sharing
                # what it leaves be: most of a beam's work is making children.
                kind, a, b = move
                p2 = ps.copy()
                if kind == PILE:
                    f2, k2, s2 = fs, fk, sh
                    src, dst = p2[a], p2[b]
                    p2[a] = pa = src[:-1]
                    p2[b] = pb = dst + src[-1:]
                    h2 = h - hash(src) - hash(dst) + hash(pa) + hash(pb)
                elif kind == TO_FND:
                    src = p2[a]
                    p2[a] = pa = src[:-1]
                    f2 = fs.copy()
                    n = f2[b]
                    f2[b] = n + 1
                    h2 = h - hash(src) + hash(pa) + FND_STEP[b][n]
                    if n == 12 and sum(f2) == TOTAL_CARDS:  # only a foundation filling up can win
                        budget.nodes = nodes
                        line = [move]
                        while parent is not None:
                            line.append(parent[0])
                            parent = parent[1]
                        line.reverse()
                        return WON, line
                    s2, k2 = sh, bytes(f2)
                elif kind == GIVE:
                    f2 = fs.copy()
                    n = f2[a]
                    dst = p2[b]
                    p2[b] = pb = dst + BYTE[TOP[a][n]]
                    f2[a] = n - 1
                    h2 = h - hash(dst) + hash(pb) - FND_STEP[a][n - 1]
                    s2, k2 = sh, bytes(f2)
                else:  # the shuffle: every pile's bottom card to its top, memoised per pile
                    p2 = list(map(rotations.__getitem__, ps))
                    h2 = h - sum(map(hash, ps)) + sum(map(hash, p2))
                    f2, k2, s2 = fs, fk, sh - 1
                key = (tuple(sorted(p2)), k2) if exact else h2
                seen = get(key)
                if seen is not None and seen >= s2:
                    continue
                table[key] = s2
                following.append((p2, f2, k2, s2, h2, (move, parent)))
            budget.nodes = nodes
            if budget.spent():
                return LIMIT, []
        if len(following) > width:
            complete = False
            scores = [scorer(ps, fk, sh, memo) for ps, _, fk, sh, _, _ in following]
            # Stable: ties keep the order of generation.
            best = sorted(range(len(following)), key=scores.__getitem__, reverse=True)
            following = [following[i] for i in best[:width]]
        intact += 1
        if len(table) > table_cap:
            complete = False
            table.clear()
            intact = 0
        if exact and not complete:  # no proof can come of this search now: key by hash
            exact = False
            table = {position_hash(*cast(Key, key)): sh for key, sh in table.items()}
            get = table.get
        layer = following
    return (EXHAUSTED if complete else LIMIT), []
