"""The search itself: a compact position, its moves, a depth-first prover and a beam search.

A position here is ``(piles, fnd, shuffles)``: ``piles`` is a list of 16 ``bytes`` (card indexes
bottom to top, as in the engine's ``_piles``), ``fnd`` a list of the 8 foundation counts (order
``uS uH uD uC dS dH dD dC``) and ``shuffles`` the shuffles left. A move is a tuple
``(kind, a, b)``: :data:`TO_FND` (pile ``a`` to foundation ``b``), :data:`PILE` (pile ``a`` onto
pile ``b``), :data:`GIVE` (foundation ``a`` back onto pile ``b``) or :data:`SHUFFLE`.

Both searches share the transposition key (:func:`position_key`): the piles sorted, since the
16 piles are interchangeable (a move's effect does not depend on where a pile sits), and the
foundation counts; the shuffles left are the key's *value*. A position already searched with at
least as many shuffles left needs no new search: any line from it with fewer shuffles is also
legal with more (shuffles left only ever enable the shuffle move). A beam that can no longer
prove anything keys the same positions by :func:`position_hash` instead, which is cheaper.
"""

from __future__ import annotations

import time
from itertools import chain
from operator import getitem
from random import Random
from typing import TypeAlias, cast

from race.engine import FOUNDATIONS

from .scoring import ScoreMemo, Scorer, score

TO_FND, PILE, GIVE, SHUFFLE = 0, 1, 2, 3
TOTAL_CARDS = 104

Move = tuple[int, int, int]
Piles = list[bytes]
Key = tuple[tuple[bytes, ...], bytes]
#: The line to a position of a search's layer: its last move and the line before it.
Parent: TypeAlias = tuple[Move, "Parent"] | None
#: A position in a layer: its piles, foundation counts (as a list and as bytes), shuffles
#: left, its :func:`position_hash` and the line to it. Children share their parent's lists
#: where a move leaves them be.
Entry: TypeAlias = tuple[Piles, list[int], bytes, int, int, Parent]

#: The card one rank above / below on the piles (Ace and King are neighbours there).
UP: tuple[int, ...] = tuple(s * 13 + (r + 1) % 13 for s in range(4) for r in range(13))
DOWN: tuple[int, ...] = tuple(s * 13 + (r - 1) % 13 for s in range(4) for r in range(13))
#: NEIGHBOURS[c]: the two cards that may land on ``c`` on the piles (and that ``c`` may land on).
NEIGHBOURS: tuple[tuple[int, int], ...] = tuple(zip(UP, DOWN, strict=True))
#: NEED[f][n]: the card foundation ``f`` holding ``n`` cards takes next (-1 when full).
NEED: tuple[tuple[int, ...], ...] = tuple(
    tuple(-1 if n >= 13 else (f & 3) * 13 + (n if f < 4 else 12 - n) for n in range(14)) for f in range(8)
)
#: TOP[f][n]: the top card of foundation ``f`` holding ``n`` cards (``n`` >= 1).
TOP: tuple[tuple[int, ...], ...] = tuple(
    tuple(-1 if n == 0 else (f & 3) * 13 + (n - 1 if f < 4 else 13 - n) for n in range(14)) for f in range(8)
)
#: GIVES[f][n]: ``(f, t)`` for each card ``t`` foundation ``f`` holding ``n`` cards may give its top card onto.
GIVES: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
    tuple(() if n < 2 else tuple((f, t) for t in NEIGHBOURS[TOP[f][n]]) for n in range(14)) for f in range(8)
)
SHUFFLE_MOVE: Move = (SHUFFLE, 0, 0)
#: The memory bound: transposition-table entries per search (about 350 bytes each).
TABLE_CAP = 1_500_000
BYTE: tuple[bytes, ...] = tuple(bytes((c,)) for c in range(52))
#: A fixed random 64-bit number per foundation and count: a position's hash (see
#: :func:`position_hash`) adds those of its foundation counts to those of its piles.
_DRAW = Random(104)
FND_HASH: tuple[tuple[int, ...], ...] = tuple(tuple(_DRAW.getrandbits(64) for n in range(14)) for f in range(8))
#: FND_STEP[f][n]: how a position's hash changes when foundation ``f`` goes from ``n`` to ``n + 1`` cards.
FND_STEP: tuple[tuple[int, ...], ...] = tuple(tuple(h[n + 1] - h[n] for n in range(13)) for h in FND_HASH)


def move_text(move: Move) -> str:
    """The engine's notation for a search move: ``p3>uH``, ``p3>p12``, ``dH>p5``, ``shuffle``."""
    kind, a, b = move
    if kind == TO_FND:
        return f"p{a}>{FOUNDATIONS[b]}"
    if kind == PILE:
        return f"p{a}>p{b}"
    if kind == GIVE:
        return f"{FOUNDATIONS[a]}>p{b}"
    return "shuffle"


def position_key(piles: Piles, fnd: list[int]) -> Key:
    """The transposition key: the piles as a sorted tuple and the foundation counts."""
    return tuple(sorted(piles)), bytes(fnd)


def position_hash(piles: Piles | tuple[bytes, ...], fnd: bytes | list[int]) -> int:
    """A hash of the position as :func:`position_key` keys it: the sum of its piles' hashes
    (so the order of the piles does not matter) and of its foundation counts' numbers in
    :data:`FND_HASH`. A move changes it by the one or two piles and the foundation it
    changes, so the beam updates it as it goes. Two different positions share one with a
    chance of about one in 2**64.
    """
    return sum(map(hash, piles)) + sum(map(getitem, FND_HASH, fnd))


def is_reversal(prev: Move | None, move: Move, piles: Piles, fnd: list[int]) -> bool:
    """Whether ``move`` exactly undoes ``prev`` (so it leads back to the previous position).

    Three cases, each restoring the position before ``prev`` card for card: a pile move straight
    back (``p>q`` then ``q>p``), a foundation play taken back onto the same pile (``p>f`` then
    ``f>p``) and a give-back played straight back (``f>p`` then ``p>f``). The move's card is the
    one ``prev`` moved, since ``prev`` left it on top of its target. Pruning these is sound: the
    previous position is on the search path (or already searched) with the same shuffles left.
    """
    return prev is not None and move == reversal(prev)


def reversal(move: Move) -> Move | None:
    """The move that exactly undoes ``move`` (see :func:`is_reversal`); ``None`` for a shuffle."""
    kind, a, b = move
    if kind == PILE:
        return PILE, b, a
    if kind == TO_FND:
        return GIVE, b, a
    if kind == GIVE:
        return TO_FND, b, a
    return None


def apply(piles: Piles, fnd: list[int], move: Move) -> int:
    """Play ``move`` in place; return the change in shuffles left (-1 for a shuffle, else 0)."""
    kind, a, b = move
    if kind == TO_FND:
        piles[a] = piles[a][:-1]
        fnd[b] += 1
    elif kind == PILE:
        src = piles[a]
        piles[b] += src[-1:]
        piles[a] = src[:-1]
    elif kind == GIVE:
        piles[b] += BYTE[TOP[a][fnd[a]]]
        fnd[a] -= 1
    else:
        for i in range(16):
            p = piles[i]
            if len(p) > 1:
                piles[i] = p[1:] + p[:1]
        return -1
    return 0


def unapply(piles: Piles, fnd: list[int], move: Move) -> None:
    """Take back ``move`` (played by :func:`apply`) in place."""
    kind, a, b = move
    if kind == TO_FND:
        fnd[b] -= 1
        piles[a] += BYTE[NEED[b][fnd[b]]]
    elif kind == PILE:
        dst = piles[b]
        piles[a] += dst[-1:]
        piles[b] = dst[:-1]
    elif kind == GIVE:
        piles[b] = piles[b][:-1]
        fnd[a] += 1
    else:
        for i in range(16):
            p = piles[i]
            if len(p) > 1:
                piles[i] = p[-1:] + p[:-1]


#: What some foundation counts allow whatever the piles (see :func:`foundation_plays`).
Plays = tuple[dict[int, tuple[int, ...]], tuple[tuple[int, int], ...]]


def foundation_plays(fnd: bytes) -> Plays:
    """``(wants, gives)`` for the foundation counts ``fnd``: ``wants`` maps each card some
    foundation takes next to those foundations (in order), ``gives`` lists ``(f, t)`` for each
    card ``t`` that foundation ``f``'s top card may be given back onto (in order)."""
    wants: dict[int, tuple[int, ...]] = {}
    for f, c in enumerate(map(getitem, NEED, fnd)):
        if c >= 0:
            wants[c] = (*wants[c], f) if c in wants else (f,)
    return wants, tuple(chain.from_iterable(map(getitem, GIVES, fnd)))


class PlaysMemo(dict[bytes, Plays]):
    """A search's memo of :func:`foundation_plays`, by foundation counts; bounded like the
    scoring memos (a search meets far fewer foundation counts)."""

    __slots__ = ()

    def __missing__(self, fnd: bytes) -> Plays:
        if len(self) >= PLAYS_CAP:
            self.clear()
        plays = self[fnd] = foundation_plays(fnd)
        return plays


class Rotations(dict[bytes, bytes]):
    """A search's memo of what the shuffle makes of a pile (its bottom card to the top); bounded
    like :class:`PlaysMemo`. A rotated pile is then one object however often it is met, so
    its hash is computed once."""

    __slots__ = ()

    def __missing__(self, pile: bytes) -> bytes:
        if len(self) >= PLAYS_CAP:
            self.clear()
        rotated = self[pile] = pile[1:] + pile[:1]
        return rotated


#: The memory bound of a :class:`PlaysMemo` and of a :class:`Rotations` (entries; a few hundred
#: bytes each at most).
PLAYS_CAP = 200_000


def ordered_moves(piles: Piles, fnd: list[int], shuffles: int, plays: Plays | None = None) -> list[Move]:
    """Every legal move, best first (``plays``: :func:`foundation_plays` of ``fnd``, when the
    caller has it at hand).

    The order (the rule book's hint order, refined): foundation plays; pile moves that expose
    a card some foundation takes; the shuffle; other pile moves; give-backs. The order only
    steers the search; every legal move is listed.
    """
    wants, gives = foundation_plays(bytes(fnd)) if plays is None else plays
    tops: dict[int, list[int]] = {}
    for p, pile in enumerate(piles):
        if pile:
            c = pile[-1]
            if c in tops:
                tops[c].append(p)
            else:
                tops[c] = [p]
    first: list[Move] = []
    exposing: list[Move] = []
    others: list[Move] = []
    for c, ps in tops.items():
        if c in wants:
            for f in wants[c]:
                first.extend([(TO_FND, p, f) for p in ps])
        for t in NEIGHBOURS[c]:
            if t in tops:
                qs = tops[t]
                for p in ps:
                    pile = piles[p]
                    row = exposing if len(pile) > 1 and pile[-2] in wants else others
                    row.extend([(PILE, p, q) for q in qs])
    first.extend(exposing)
    if shuffles > 0:
        first.append(SHUFFLE_MOVE)
    first.extend(others)
    for f, t in gives:
        if t in tops:
            first.extend([(GIVE, f, q) for q in tops[t]])
    return first


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
