"""Cards: two decks, 104 cards, 52 distinct faces.

A card is written rank then suit: ranks ``A23456789TJQK``, suits ``SHDC``.

>>> Card.parse("TC")
Card.parse('TC')
>>> str(Card(12, "H"))
'QH'
"""

from __future__ import annotations

from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "SHDC"


class InvalidCard(ValueError):
    """A card's text form is malformed."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card face: ``rank`` 1 (Ace) to 13 (King), ``suit`` one of ``S H D C``."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if type(self.rank) is not int or not 1 <= self.rank <= 13:
            raise InvalidCard(f"card rank must be 1-13, got {self.rank!r}")
        if not isinstance(self.suit, str) or len(self.suit) != 1 or self.suit not in SUITS:
            raise InvalidCard(f"card suit must be one of S H D C, got {self.suit!r}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"TC"``, ``"AS"``, ``"KH"``; raise :class:`InvalidCard` otherwise."""
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            raise InvalidCard(f"invalid card: {text!r} (expected rank A23456789TJQK + suit SHDC)")
        return card

    @property
    def index(self) -> int:
        """The card's number 0-51: ``suit * 13 + rank - 1`` with suits in ``SHDC`` order."""
        return SUITS.index(self.suit) * 13 + self.rank - 1

    def __str__(self) -> str:
        return RANKS[self.rank - 1] + self.suit

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


#: Every face, indexed by :attr:`Card.index`.
CARDS: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in range(1, 14))
_BY_TEXT: dict[str, Card] = {str(c): c for c in CARDS}
