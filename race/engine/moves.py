"""Moves and their text notation.

A location is a pile number ``0``-``15`` or a foundation key: ``uS uH uD uC`` (the Ace
foundations, building up) and ``dS dH dD dC`` (the King foundations, building down).
Piles are written ``p0``-``p15``. A move is ``source>target`` or the word ``shuffle``:

>>> Move.parse("p3>uH")
Move.parse('p3>uH')
>>> Move(3, 12)
Move.parse('p3>p12')
>>> str(Move("dH", 5))
'dH>p5'
>>> Move.parse("shuffle") == Move.shuffle()
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

FOUNDATIONS: tuple[str, ...] = ("uS", "uH", "uD", "uC", "dS", "dH", "dD", "dC")
PILE_COUNT = 16

# Move kinds (private codes shared with the game module).
TO_FOUNDATION, PILE_TO_PILE, GIVE_BACK, SHUFFLE, FOUNDATION_TO_FOUNDATION = range(5)

Location = int | str


class InvalidMove(ValueError):
    """A move's text (or its parts) is malformed: it is not a move at all."""


class IllegalMove(ValueError):
    """A well-formed move that the rules do not allow in this position."""


def _code(loc: Location | None) -> int:
    """Piles are 0-15, foundations 16-23; raise :class:`InvalidMove` for anything else."""
    if type(loc) is int and 0 <= loc < PILE_COUNT:
        return loc
    if isinstance(loc, str) and loc in FOUNDATIONS:
        return PILE_COUNT + FOUNDATIONS.index(loc)
    raise InvalidMove(f"invalid location: {loc!r} (expected a pile 0-15 or one of {' '.join(FOUNDATIONS)})")


def _name(loc: Location) -> str:
    return f"p{loc}" if isinstance(loc, int) else loc


@dataclass(frozen=True, slots=True)
class Move:
    """One move: ``source`` and ``target`` are locations; both are ``None`` for a shuffle."""

    source: Location | None
    target: Location | None
    _kind: int = field(init=False, repr=False, compare=False)
    _a: int = field(init=False, repr=False, compare=False)
    _b: int = field(init=False, repr=False, compare=False)
    _text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.source is None and self.target is None:
            kind, a, b = SHUFFLE, -1, -1
        else:
            a, b = _code(self.source), _code(self.target)
            from_pile, to_pile = a < PILE_COUNT, b < PILE_COUNT
            if from_pile and to_pile:
                kind = PILE_TO_PILE
            elif from_pile:
                kind, b = TO_FOUNDATION, b - PILE_COUNT
            elif to_pile:
                kind, a = GIVE_BACK, a - PILE_COUNT
            else:
                kind, a, b = FOUNDATION_TO_FOUNDATION, a - PILE_COUNT, b - PILE_COUNT
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_a", a)
        object.__setattr__(self, "_b", b)
        if kind == SHUFFLE:
            text = "shuffle"
        else:
            assert self.source is not None and self.target is not None
            text = f"{_name(self.source)}>{_name(self.target)}"
        object.__setattr__(self, "_text", text)

    @classmethod
    def shuffle(cls) -> Move:
        """The shuffle: every pile of two or more cards moves its bottom card to the top."""
        return _SHUFFLE

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse ``"p3>uH"``, ``"p3>p12"``, ``"dH>p5"`` or ``"shuffle"``.

        Raises :class:`InvalidMove` when the text is not a move in this notation.
        """
        move = _BY_TEXT.get(text) if isinstance(text, str) else None
        if move is None:
            raise InvalidMove(
                f"invalid move: {text!r} (expected 'shuffle' or SOURCE>TARGET with piles p0-p15 "
                f"and foundations {' '.join(FOUNDATIONS)}, e.g. 'p3>uH', 'p3>p12', 'dH>p5')"
            )
        return move

    @property
    def is_shuffle(self) -> bool:
        return self._kind == SHUFFLE

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


_SHUFFLE = Move(None, None)
_LOCATIONS: list[Location] = [*range(PILE_COUNT), *FOUNDATIONS]
_ALL: list[Move] = [_SHUFFLE] + [Move(s, t) for s in _LOCATIONS for t in _LOCATIONS]
_BY_TEXT: dict[str, Move] = {str(m): m for m in _ALL}

# Interned moves by kind and operands, so the game never allocates one.
TO_FOUNDATION_MOVES = [[_BY_TEXT[f"p{p}>{f}"] for f in FOUNDATIONS] for p in range(PILE_COUNT)]
PILE_MOVES = [[_BY_TEXT[f"p{p}>p{q}"] for q in range(PILE_COUNT)] for p in range(PILE_COUNT)]
GIVE_BACK_MOVES = [[_BY_TEXT[f"{f}>p{p}"] for p in range(PILE_COUNT)] for f in FOUNDATIONS]
SHUFFLE_MOVE = _SHUFFLE
