"""A proof of loss one suit at a time: an easier game for each suit that, lost, loses the real one.

Keep one suit's cards where they are, in order, and forget the other suits. Every real move
of a card of that suit is a move of this smaller game: a top card goes home, onto a pile
topped by its neighbour (Ace and King are neighbours on the piles), or back from a
foundation onto such a pile; here a card only needs to be the top of its *suit* in its pile,
which is easier. A real shuffle moves each pile's bottom card to its top: for the suit's
cards that is a rotation when the bottom card is of the suit and nothing otherwise, so here
a shuffle rotates any chosen set of piles. Piles are alike, so a position is its piles
sorted. Whatever the real game can do to the suit, this one can, so a suit that cannot
reach both its foundations here (an exhaustive search, no pruning) cannot in the real game:
the position is lost.

Pure and small: a suit has 24 cards outside its bases, and the positions where this
decides anything have few of them left.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

Piles = tuple[tuple[int, ...], ...]  # the suit's ranks (0 = Ace .. 12 = King), bottom to top, sorted
State = tuple[Piles, int, int, int]  # piles, up foundation count, down foundation count, shuffles


def suit_state(piles: Sequence[Sequence[int]], fnd: Sequence[int], shuffles_left: int, suit: int) -> State:
    """Suit ``suit``'s game from the engine's ``piles`` (card indexes, bottom to top) and
    foundation counts ``fnd`` (0-3 up, 4-7 down, each with its base)."""
    low, high = suit * 13, suit * 13 + 13
    mine = (tuple(c - low for c in pile if low <= c < high) for pile in piles)
    return tuple(sorted(p for p in mine if p)), fnd[suit], fnd[suit + 4], shuffles_left


def _adjacent(a: int, b: int) -> bool:
    return (a - b) % 13 in (1, 12)


def _rotations(piles: Piles) -> Iterator[Piles]:
    """The piles after a shuffle that rotates any set of them (a pile of one card is the same
    rotated), each result once."""
    results: set[Piles] = {()}
    for p in piles:
        turned = (*p[1:], p[0])
        results = {(*r, p) for r in results} | ({(*r, turned) for r in results} if turned != p else set())
    for r in results:
        yield tuple(sorted(r))


def _next(state: State) -> Iterator[State]:
    """Every position one move of the suit's game away."""
    piles, up, down, shuffles = state
    need_up, need_down = (up if up < 13 else -1), (12 - down if down < 13 else -1)
    tops = [p[-1] for p in piles]
    for i, pile in enumerate(piles):
        card, rest = pile[-1], pile[:-1]
        others = piles[:i] + ((rest,) if rest else ()) + piles[i + 1 :]
        if card == need_up:
            yield tuple(sorted(others)), up + 1, down, shuffles
        if card == need_down:
            yield tuple(sorted(others)), up, down + 1, shuffles
        for j, top in enumerate(tops):
            if j != i and _adjacent(card, top):
                moved = list(piles)
                moved[i], moved[j] = rest, (*piles[j], card)
                yield tuple(sorted(p for p in moved if p)), up, down, shuffles
    # A foundation's top back onto a pile (the bases never leave).
    for card, after in ((up - 1, (up - 1, down)), (13 - down, (up, down - 1))):
        if min(after) < 1:
            continue
        for j, top in enumerate(tops):
            if _adjacent(card, top):
                moved = list(piles)
                moved[j] = (*piles[j], card)
                yield tuple(sorted(moved)), after[0], after[1], shuffles
    if shuffles > 0:
        for rotated in _rotations(piles):
            yield rotated, up, down, shuffles - 1


def winnable(state: State, limit: int) -> tuple[bool | None, int]:
    """Whether the suit's game can fill both foundations from ``state`` (``None``: not known
    within ``limit`` positions), and the positions visited."""
    seen: set[State] = {state}
    stack = [state]
    while stack:
        current = stack.pop()
        if current[1] == 13 and current[2] == 13:
            return True, len(seen)
        fresh = [after for after in _next(current) if after not in seen]
        if len(seen) + len(fresh) > limit:
            return None, len(seen)
        seen.update(fresh)
        stack.extend(reversed(fresh))  # the foundations' moves first: a win is found soon
    return False, len(seen)


def lost_suit(
    piles: Sequence[Sequence[int]], fnd: Sequence[int], shuffles_left: int, limit: int, budget: int | None = None
) -> tuple[int | None, int]:
    """A suit (0-3) whose own game is lost, which proves the position lost, or ``None``; and
    the positions visited in all: each suit's search is cut at ``limit``, all of them
    together at ``budget`` (no bound when ``None``)."""
    visited = 0
    for suit in range(4):
        if fnd[suit] == 13 and fnd[suit + 4] == 13:
            continue
        cap = limit if budget is None else min(limit, budget - visited)
        if cap <= 0:
            break
        result, n = winnable(suit_state(piles, fnd, shuffles_left, suit), cap)
        visited += n
        if result is False:
            return suit, visited
    return None, visited
