"""The solver's compact position and its moves.

A position here is ``(piles, fnd, shuffles)``: ``piles`` is a list of 16 ``bytes`` (card indexes
bottom to top, as in the engine's ``_piles``), ``fnd`` a list of the 8 foundation counts (order
``uS uH uD uC dS dH dD dC``) and ``shuffles`` the shuffles left. A move is a tuple
``(kind, a, b)``: :data:`TO_FND` (pile ``a`` to foundation ``b``), :data:`PILE` (pile ``a`` onto
pile ``b``), :data:`GIVE` (foundation ``a`` back onto pile ``b``) or :data:`SHUFFLE`.

Both searches (:mod:`race.solver.search`) share the transposition key (:func:`position_key`):
the piles sorted, since the 16 piles are interchangeable (a move's effect does not depend on
where a pile sits), and the foundation counts; the shuffles left are the key's *value*. A beam
that can no longer prove anything keys the same positions by :func:`position_hash` instead,
which is cheaper.
"""

from __future__ import annotations

from itertools import chain
from operator import getitem
from random import Random
from typing import TypeAlias

from race.engine import FOUNDATIONS
from race.engine.tables import NEED, NEIGHBOURS, TOP

TO_FND, PILE, GIVE, SHUFFLE = 0, 1, 2, 3

Move = tuple[int, int, int]
Piles = list[bytes]
Key = tuple[tuple[bytes, ...], bytes]
#: The line to a position of a search's layer: its last move and the line before it.
Parent: TypeAlias = tuple[Move, "Parent"] | None
#: A position in a layer: its piles, foundation counts (as a list and as bytes), shuffles
#: left, its :func:`position_hash` and the line to it. Children share their parent's lists
#: where a move leaves them be.
Entry: TypeAlias = tuple[Piles, list[int], bytes, int, int, Parent]

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
