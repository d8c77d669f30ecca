"""The engine's hot paths as plain functions over its internal state, for mypyc to compile.

:class:`race.engine.game.Game` keeps its API, its checks and its messages in pure Python and
calls these for the work done on every move: the legal moves, whether a move is legal, and
playing or taking one back. ``piles`` are lists of card indexes bottom to top, ``fnd`` the 8
foundation counts, and a move is its kind and operands (``Move._kind``, ``_a``, ``_b``).
"""

from __future__ import annotations

from .moves import (
    GIVE_BACK,
    GIVE_BACK_MOVES,
    PILE_MOVES,
    PILE_TO_PILE,
    SHUFFLE,
    SHUFFLE_MOVE,
    TO_FOUNDATION,
    TO_FOUNDATION_MOVES,
    Move,
)
from .tables import DOWN, NEED, NEIGHBOURS, TOP, TOTAL_CARDS, UP


def legal_moves(piles: list[list[int]], fnd: list[int], shuffles_left: int) -> list[Move]:
    """Every legal move, in the order :meth:`Game.legal_moves` documents."""
    moves: list[Move] = []
    if sum(fnd) == TOTAL_CARDS:
        return moves
    tops: list[int] = [pile[-1] if pile else -1 for pile in piles]
    by_top: dict[int, list[int]] = {}
    for p in range(16):
        c = tops[p]
        if c >= 0:
            if c in by_top:
                by_top[c].append(p)
            else:
                by_top[c] = [p]
    needs = [NEED[f][fnd[f]] for f in range(8)]
    for p in range(16):
        c = tops[p]
        if c >= 0 and c in needs:
            row = TO_FOUNDATION_MOVES[p]
            for f in range(8):
                if needs[f] == c:
                    moves.append(row[f])
    for p in range(16):
        c = tops[p]
        if c < 0:
            continue
        targets = _targets(by_top, c)
        if targets:
            row = PILE_MOVES[p]
            for q in targets:
                moves.append(row[q])
    for f in range(8):
        n = fnd[f]
        if n > 1:
            targets = _targets(by_top, TOP[f][n])
            if targets:
                row = GIVE_BACK_MOVES[f]
                for q in targets:
                    moves.append(row[q])
    if shuffles_left > 0:
        moves.append(SHUFFLE_MOVE)
    return moves


def _targets(by_top: dict[int, list[int]], c: int) -> list[int]:
    """The piles card ``c`` may go onto, in order."""
    up, down = NEIGHBOURS[c]
    above, below = by_top.get(up), by_top.get(down)
    if above is None:
        return below if below is not None else []
    if below is None:
        return above
    return sorted(above + below)


def is_legal(piles: list[list[int]], fnd: list[int], shuffles_left: int, kind: int, a: int, b: int) -> bool:
    """Whether the move is legal (:meth:`Game._illegal_reason` says why not)."""
    if sum(fnd) == TOTAL_CARDS:
        return False
    if kind == TO_FOUNDATION:
        pile = piles[a]
        return len(pile) > 0 and pile[-1] == NEED[b][fnd[b]]
    if kind == PILE_TO_PILE:
        if a == b:
            return False
        src, dst = piles[a], piles[b]
        return len(src) > 0 and len(dst) > 0 and (dst[-1] == UP[src[-1]] or dst[-1] == DOWN[src[-1]])
    if kind == GIVE_BACK:
        n = fnd[a]
        dst = piles[b]
        if n <= 1 or len(dst) == 0:
            return False
        c = TOP[a][n]
        return dst[-1] == UP[c] or dst[-1] == DOWN[c]
    return kind == SHUFFLE and shuffles_left > 0


def apply(piles: list[list[int]], fnd: list[int], kind: int, a: int, b: int) -> int:
    """Play a legal move in place; return the change in shuffles left."""
    if kind == TO_FOUNDATION:
        piles[a].pop()
        fnd[b] += 1
    elif kind == PILE_TO_PILE:
        piles[b].append(piles[a].pop())
    elif kind == GIVE_BACK:
        piles[b].append(TOP[a][fnd[a]])
        fnd[a] -= 1
    else:
        for pile in piles:
            if len(pile) > 1:
                pile.append(pile.pop(0))
        return -1
    return 0


def unapply(piles: list[list[int]], fnd: list[int], kind: int, a: int, b: int) -> int:
    """Take back a move :func:`apply` played; return the change in shuffles left."""
    if kind == TO_FOUNDATION:
        piles[a].append(TOP[b][fnd[b]])
        fnd[b] -= 1
    elif kind == PILE_TO_PILE:
        piles[a].append(piles[b].pop())
    elif kind == GIVE_BACK:
        piles[b].pop()
        fnd[a] += 1
    else:
        for pile in piles:
            if len(pile) > 1:
                pile.insert(0, pile.pop())
        return 1
    return 0
