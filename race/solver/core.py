"""The beam search's inner loop, written for mypyc: the module the compiled build speeds up most.

It searches exactly as :func:`race.solver.search.beam` documents, node for node: the same
moves in the order of :func:`race.solver.position.ordered_moves`, the same table and pruning,
the same scores and the same stable sort. What differs is only how a position is held, so that
compiled code runs on native ints and struct fields rather than tuples, dicts and big ints:

- a position is a :class:`Node`: its 16 piles as ``bytes``, its foundation counts packed into
  one int (4 bits each), its cards home, shuffles left, hash, score, and its parent and move
  (the line to it);
- moves are never built: each legal move is played straight into a child as it is found;
- a move is an int, ``kind << 10 | a << 5 | b`` (kinds as in :mod:`race.solver.position`);
- a position's hash is the sum of its piles' hashes (each cut to 58 bits) and a fixed random
  58-bit number per foundation count, so the sum stays within 64 bits;
- a heuristic scores from per-pile depth levels (:class:`Levels`, memoised per pile) and the
  wanted cards' 52-bit masks, with plain int bit counts in place of 364-bit ints.
"""

from __future__ import annotations

import time
from random import Random
from typing import Final, final

from race.engine.tables import DOWN, NEED, TOP, TOTAL_CARDS, UP

TO_FND: Final = 0
PILE: Final = 1
GIVE: Final = 2
SHUFFLE: Final = 3
MASK58: Final = (1 << 58) - 1
#: How deep a card may lie and still count (as in :mod:`race.solver.scoring`).
MAX_DEPTH: Final = 7
LEVEL_CAP: Final = 200_000

_DRAW = Random(2026)
#: FNDH[f * 14 + n]: foundation ``f`` holding ``n`` cards' share of a position's hash.
FNDH: Final[list[int]] = [_DRAW.getrandbits(58) for _ in range(8 * 14)]
#: NEED14[f * 14 + n] / TOP14[f * 14 + n]: the card foundation ``f`` holding ``n`` takes next
#: / shows (-1 for none), flat.
NEED14: Final[list[int]] = [NEED[f][n] for f in range(8) for n in range(14)]
TOP14: Final[list[int]] = [TOP[f][n] for f in range(8) for n in range(14)]
UPS: Final[list[int]] = list(UP)
DOWNS: Final[list[int]] = list(DOWN)
BYTES: Final[list[bytes]] = [bytes((c,)) for c in range(52)]
#: POP16[x]: the bits set in ``x`` (0 to 65535). Compiled code has no native ``int.bit_count``:
#: four look-ups here are several times cheaper than a method call on a boxed int.
POP16: Final[list[int]] = [x.bit_count() for x in range(1 << 16)]


def popcount(x: int) -> int:
    """The bits set in ``x``, 0 <= x < 2**64."""
    return POP16[x & 0xFFFF] + POP16[(x >> 16) & 0xFFFF] + POP16[(x >> 32) & 0xFFFF] + POP16[x >> 48]


def pile_hash(pile: bytes) -> int:
    return hash(pile) & MASK58


def pack(fnd: list[int]) -> int:
    """Foundation counts as one int, 4 bits each, foundation 0 lowest."""
    fk = 0
    for f in range(8):
        fk |= fnd[f] << (4 * f)
    return fk


def node_hash(piles: list[bytes], fk: int) -> int:
    h = 0
    for p in piles:
        h += pile_hash(p)
    for f in range(8):
        h += FNDH[f * 14 + ((fk >> (4 * f)) & 15)]
    return h


@final
class Node:
    """A position in a beam's layer, and the line to it (its parent and the move from it)."""

    __slots__ = ("cards", "fk", "h", "move", "parent", "piles", "score", "shuffles")

    def __init__(
        self, piles: list[bytes], fk: int, cards: int, shuffles: int, h: int, parent: Node | None, move: int
    ) -> None:
        self.piles = piles
        self.fk = fk
        self.cards = cards
        self.shuffles = shuffles
        self.h = h
        self.parent = parent
        self.move = move
        self.score = 0

    def line(self) -> list[int]:
        """The moves from the start to here, as move ints."""
        out: list[int] = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            out.append(node.move)
            node = node.parent
        out.reverse()
        return out


@final
class Levels:
    """A pile's cards by depth, for one number of shuffles left: ``masks[d]`` holds (as a
    52-bit mask) the cards whose shallowest copy in the pile lies at depth ``d`` or less
    (depth as in :class:`race.solver.scoring.PileDepths`)."""

    __slots__ = ("m0", "m1", "m2", "m3", "m4", "m5", "m6")

    def __init__(self, pile: bytes, shuffles: int) -> None:
        masks = [0] * MAX_DEPTH
        n = len(pile)
        for i in range(n):
            d = n - 1 - i
            if i < shuffles and i + 1 < d:
                d = i + 1
            if d < MAX_DEPTH:
                bit = 1 << pile[i]
                for level in range(d, MAX_DEPTH):
                    masks[level] |= bit
        self.m0, self.m1, self.m2, self.m3, self.m4, self.m5, self.m6 = masks


@final
class Weights:
    """A heuristic's weights, as :func:`race.solver.scoring.make_scorer` takes them."""

    __slots__ = ("after", "empty", "foundation", "nxt", "shuffle")

    def __init__(self, foundation: int, shuffle: int, nxt: int, after: int, empty: int) -> None:
        self.foundation = foundation
        self.shuffle = shuffle
        self.nxt = nxt
        self.after = after
        self.empty = empty


@final
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
        limit = self.node_limit
        if limit is not None and self.nodes >= limit:
            return True
        deadline = self.deadline
        return deadline is not None and time.perf_counter() >= deadline


def reversal(move: int) -> int:
    """The move int that exactly undoes ``move``; -1 for a shuffle."""
    kind = move >> 10
    if kind == SHUFFLE:
        return -1
    back = PILE if kind == PILE else (GIVE if kind == TO_FND else TO_FND)
    return back << 10 | (move & 31) << 5 | (move >> 5) & 31


@final
class Beam:
    """One beam search (see :func:`race.solver.search.beam`): its table and the layer it builds."""

    def __init__(
        self, width: int, budget: Budget, table_cap: int, weights: Weights, levels: list[dict[bytes, Levels]]
    ) -> None:
        self.width = width
        self.budget = budget
        self.table_cap = table_cap
        self.weights = weights
        self.levels = levels
        self.table: dict[object, int] = {}
        self.following: list[Node] = []
        self.rotations: dict[bytes, bytes] = {}
        self.exact = True
        self.back = -1
        self.nodes = budget.nodes
        self.won: Node | None = None
        self.tops = [-1] * 16
        self.firstpile = [-1] * 52
        self.need = [-1] * 8

    def run(self, start: Node) -> str:
        """Search from ``start``: "won" (:attr:`won` is the winning node), "exhausted" or "limit"."""
        budget = self.budget
        self.table[(tuple(sorted(start.piles)), start.fk)] = start.shuffles
        layer = [start]
        complete = True
        intact = 1  # layer ends since the table was last emptied (the start's key went in before any)
        while layer:
            self.following = []
            for node in layer:
                # The move undoing the one that led here goes back to this node's parent, which
                # the table holds with as many shuffles left unless it was emptied since that went
                # in (two layer ends ago): the table would prune that child, so it is only counted.
                self.back = reversal(node.move) if node.parent is not None and intact >= 2 else -1
                if self.expand(node):
                    budget.nodes = self.nodes
                    return "won"
                budget.nodes = self.nodes
                if budget.spent():
                    return "limit"
            following = self.following
            if len(following) > self.width:
                complete = False
                for child in following:
                    child.score = self.score(child)
                following.sort(key=node_rank)  # stable: ties keep the order of generation
                del following[self.width :]
            intact += 1
            if len(self.table) > self.table_cap:
                complete = False
                self.table.clear()
                intact = 0
            if self.exact and not complete:  # no proof can come of this search now: key by hash
                self.exact = False
                hashed: dict[object, int] = {}
                for key, sh in self.table.items():
                    assert isinstance(key, tuple)
                    hashed[node_hash(list(key[0]), key[1])] = sh
                self.table = hashed
            layer = following
        return "exhausted" if complete else "limit"

    def expand(self, node: Node) -> bool:
        """Every legal move from ``node`` into a child, in the order of
        :func:`race.solver.position.ordered_moves`; True as soon as one wins."""
        ps, fk = node.piles, node.fk
        tops, firstpile, need = self.tops, self.firstpile, self.need
        order: list[int] = []
        for p in range(16):
            pile = ps[p]
            if len(pile) > 0:
                c = pile[-1]
                tops[p] = c
                if firstpile[c] < 0:
                    firstpile[c] = p
                    order.append(c)
            else:
                tops[p] = -1
        wanted = 0
        for f in range(8):
            c = NEED14[f * 14 + ((fk >> (4 * f)) & 15)]
            need[f] = c
            if c >= 0:
                wanted |= 1 << c
        won = self.expand_moves(node, order, wanted)
        for c in order:
            firstpile[c] = -1
        return won

    def expand_moves(self, node: Node, order: list[int], wanted: int) -> bool:
        ps, fk = node.piles, node.fk
        tops, firstpile, need = self.tops, self.firstpile, self.need
        for c in order:  # foundation plays
            if (wanted >> c) & 1:
                for f in range(8):
                    if need[f] == c:
                        for p in range(firstpile[c], 16):
                            if tops[p] == c and self.child(node, TO_FND, p, f):
                                return True
        for exposing in (True, False):  # pile moves exposing a wanted card, the shuffle, the others
            if not exposing and node.shuffles > 0:
                self.child(node, SHUFFLE, 0, 0)
            for c in order:
                for side in range(2):
                    t = UPS[c] if side == 0 else DOWNS[c]
                    q0 = firstpile[t]
                    if q0 < 0:
                        continue
                    for p in range(firstpile[c], 16):
                        if tops[p] != c:
                            continue
                        pile = ps[p]
                        if (len(pile) > 1 and (wanted >> pile[-2]) & 1 == 1) != exposing:
                            continue
                        for q in range(q0, 16):
                            if tops[q] == t:
                                self.child(node, PILE, p, q)
        for f in range(8):  # give-backs
            n = (fk >> (4 * f)) & 15
            if n < 2:
                continue
            top = TOP14[f * 14 + n]
            for side in range(2):
                t = UPS[top] if side == 0 else DOWNS[top]
                q0 = firstpile[t]
                if q0 >= 0:
                    for q in range(q0, 16):
                        if tops[q] == t:
                            self.child(node, GIVE, f, q)
        return False

    def child(self, node: Node, kind: int, a: int, b: int) -> bool:
        """Play a move from ``node`` into a child and keep it unless the table prunes it; True
        when it wins (then :attr:`won` is the child)."""
        self.nodes += 1
        move = kind << 10 | a << 5 | b
        if move == self.back:
            return False
        ps = node.piles
        fk, cards, sh, h = node.fk, node.cards, node.shuffles, node.h
        if kind == PILE:
            p2 = ps.copy()
            src, dst = ps[a], ps[b]
            pa, pb = src[:-1], dst + src[-1:]
            p2[a], p2[b] = pa, pb
            h += pile_hash(pa) + pile_hash(pb) - pile_hash(src) - pile_hash(dst)
        elif kind == TO_FND:
            p2 = ps.copy()
            src = ps[a]
            pa = src[:-1]
            p2[a] = pa
            i = b * 14 + ((fk >> (4 * b)) & 15)
            fk += 1 << (4 * b)
            cards += 1
            h += pile_hash(pa) - pile_hash(src) + FNDH[i + 1] - FNDH[i]
            if cards == TOTAL_CARDS:
                self.won = Node(p2, fk, cards, sh, h, node, move)
                return True
        elif kind == GIVE:
            p2 = ps.copy()
            i = a * 14 + ((fk >> (4 * a)) & 15)
            dst = ps[b]
            pb = dst + BYTES[TOP14[i]]
            p2[b] = pb
            fk -= 1 << (4 * a)
            cards -= 1
            h += pile_hash(pb) - pile_hash(dst) + FNDH[i - 1] - FNDH[i]
        else:  # the shuffle: every pile's bottom card to its top, memoised per pile
            p2 = []
            rotations = self.rotations
            for pile in ps:
                r = rotations.get(pile)
                if r is None:
                    if len(rotations) >= LEVEL_CAP:
                        rotations.clear()
                    r = pile[1:] + pile[:1]
                    rotations[pile] = r
                p2.append(r)
            h = node_hash(p2, fk)
            sh -= 1
        key: object = (tuple(sorted(p2)), fk) if self.exact else h
        table = self.table
        seen = table.get(key)
        if seen is not None and seen >= sh:
            return False
        table[key] = sh
        self.following.append(Node(p2, fk, cards, sh, h, node, move))
        return False

    def score(self, node: Node) -> int:
        """The heuristic's score of ``node``: exactly :func:`race.solver.scoring.make_scorer`'s."""
        fk, w = node.fk, self.weights
        first = after = 0
        for f in range(8):
            n = (fk >> (4 * f)) & 15
            c = NEED14[f * 14 + n]
            if c >= 0:
                first |= 1 << c
                if n < 12:
                    after |= 1 << NEED14[f * 14 + n + 1]
        second = after & ~first
        memo = self.levels[node.shuffles]
        r0 = r1 = r2 = r3 = r4 = r5 = r6 = 0
        empty = 0
        for pile in node.piles:
            if len(pile) == 0:
                empty += 1
                continue
            lv = memo.get(pile)
            if lv is None:
                if len(memo) >= LEVEL_CAP:
                    memo.clear()
                lv = Levels(pile, node.shuffles)
                memo[pile] = lv
            r0 |= lv.m0
            r1 |= lv.m1
            r2 |= lv.m2
            r3 |= lv.m3
            r4 |= lv.m4
            r5 |= lv.m5
            r6 |= lv.m6
        near_first = (
            popcount(first & r0)
            + popcount(first & r1)
            + popcount(first & r2)
            + popcount(first & r3)
            + popcount(first & r4)
            + popcount(first & r5)
            + popcount(first & r6)
        )
        near_second = (
            popcount(second & r0)
            + popcount(second & r1)
            + popcount(second & r2)
            + popcount(second & r3)
            + popcount(second & r4)
            + popcount(second & r5)
            + popcount(second & r6)
        )
        return (
            w.foundation * node.cards
            + w.nxt * (near_first - MAX_DEPTH * popcount(first))
            + w.after * (near_second - MAX_DEPTH * popcount(second))
            + w.empty * empty
            + 2 * w.shuffle * node.shuffles
        )


def node_rank(node: Node) -> int:
    """The sort key of the best first: the score, negated (a stable sort keeps ties in order)."""
    return -node.score


def start_node(piles: list[bytes], fnd: list[int], shuffles: int) -> Node:
    fk = pack(fnd)
    return Node(list(piles), fk, sum(fnd), shuffles, node_hash(piles, fk), None, -1)
