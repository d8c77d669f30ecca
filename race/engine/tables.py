"""Lookup tables for the rules: the A-K wrap of the piles and what each foundation takes.

Cards are indexes 0-51 (suit * 13 + rank - 1). A foundation is just its card count: its
cards follow from its base, so foundation ``f`` (0-3 build up from the Ace, 4-7 down from the
King, suit ``f & 3``) holding ``n`` cards accepts ``NEED[f][n]`` next and shows ``TOP[f][n]``.
"""

from __future__ import annotations

from .cards import CARDS

DIFFICULTIES: dict[str, int] = {"easy": 9, "medium": 6, "hard": 3}
TOTAL_CARDS = 104

# Pile-neighbour cards, with the A-K wrap: UP[c] is the card one rank above c in its suit.
UP: tuple[int, ...] = tuple(s * 13 + (r + 1) % 13 for s in range(4) for r in range(13))
DOWN: tuple[int, ...] = tuple(s * 13 + (r - 1) % 13 for s in range(4) for r in range(13))


def check_difficulty(difficulty: object) -> int:
    if not isinstance(difficulty, str) or difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be 'easy', 'medium' or 'hard', got {difficulty!r}")
    return DIFFICULTIES[difficulty]


def fnd_need(f: int, n: int) -> int:
    """The card (index) foundation ``f`` with ``n`` cards accepts next, or -1 when full."""
    if n >= 13:
        return -1
    suit = f & 3
    return suit * 13 + (n if f < 4 else 12 - n)


def fnd_top(f: int, n: int) -> int:
    """The top card (index) of foundation ``f`` holding ``n`` cards."""
    suit = f & 3
    return suit * 13 + (n - 1 if f < 4 else 13 - n)


# Lookup tables for the hot paths: NEED[f][n] and TOP[f][n] are fnd_need(f, n) and
# fnd_top(f, n) (-1 where undefined); NEIGHBOURS[c] is (UP[c], DOWN[c]).
NEED: tuple[tuple[int, ...], ...] = tuple(tuple(fnd_need(f, n) for n in range(14)) for f in range(8))
TOP: tuple[tuple[int, ...], ...] = tuple(tuple(fnd_top(f, n) if n else -1 for n in range(14)) for f in range(8))
NEIGHBOURS: tuple[tuple[int, int], ...] = tuple(zip(UP, DOWN, strict=True))
# Card texts by index and back, for saving and restoring without building Card values.
CARD_TEXT = tuple(str(c) for c in CARDS)
CARD_INDEX = {t: i for i, t in enumerate(CARD_TEXT)}
