"""The game: a Crescent position, its legal moves, play, undo, hint and serialisation.

>>> game = Game.deal(42, "hard")
>>> game.shuffles_left
3
>>> move = game.hint()
>>> game.play(move) is move
True
>>> game.undo() == move
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import rules, saved
from .cards import CARDS, Card
from .deal import deal_piles, seed_state
from .moves import (
    FOUNDATION_TO_FOUNDATION,
    FOUNDATIONS,
    GIVE_BACK,
    PILE_TO_PILE,
    SHUFFLE,
    TO_FOUNDATION,
    IllegalMove,
    InvalidMove,
    Move,
)
from .tables import DIFFICULTIES, DOWN, TOTAL_CARDS, UP, check_difficulty, fnd_need, fnd_top

__all__ = ["DIFFICULTIES", "Game"]


class Game:
    """A Crescent game in progress. Create one with :meth:`Game.deal` or :meth:`Game.from_dict`.

    Internally cards are indexes 0-51 (:attr:`Card.index`) and a foundation is just its card
    count, since its cards follow from its base. The public properties build :class:`Card`
    values; the solver and other hot loops may use the ``_``-prefixed state directly.
    """

    __slots__ = ("_fnd", "_piles", "difficulty", "move_stack", "seed", "shuffles_left")

    def __init__(self, seed: int | str, difficulty: str = "medium") -> None:
        seed_state(seed)
        self.seed = seed
        self.difficulty = difficulty
        allowance = check_difficulty(difficulty)
        self._piles: list[list[int]] = [list(p) for p in deal_piles(seed)]
        self._fnd: list[int] = [1] * 8
        self.shuffles_left: int = allowance
        self.move_stack: list[Move] = []

    @classmethod
    def deal(cls, seed: int | str, difficulty: str = "medium") -> Game:
        """A new game of deal ``seed`` with the shuffle allowance of ``difficulty``.

        ``seed`` is a deal number (an int from 0 to 2**64-1) or a text seed; ``difficulty`` is
        ``"easy"`` (9 shuffles), ``"medium"`` (6) or ``"hard"`` (3).
        """
        return cls(seed, difficulty)

    # -- the position ---------------------------------------------------------------

    @property
    def piles(self) -> tuple[tuple[Card, ...], ...]:
        """The 16 piles, each bottom to top (the last card is the top)."""
        return tuple(tuple(CARDS[c] for c in pile) for pile in self._piles)

    @property
    def foundations(self) -> dict[str, tuple[Card, ...]]:
        """Each foundation key mapped to its cards, base first."""
        out = {}
        for f, key in enumerate(FOUNDATIONS):
            n, suit = self._fnd[f], f & 3
            ranks = range(1, n + 1) if f < 4 else range(13, 13 - n, -1)
            out[key] = tuple(CARDS[suit * 13 + r - 1] for r in ranks)
        return out

    @property
    def allowance(self) -> int:
        """The difficulty's full shuffle allowance."""
        return DIFFICULTIES[self.difficulty]

    @property
    def cards_on_foundations(self) -> int:
        """8 at the deal, 104 when won."""
        return sum(self._fnd)

    @property
    def is_won(self) -> bool:
        return sum(self._fnd) == TOTAL_CARDS

    @property
    def is_stuck(self) -> bool:
        """No pile or foundation move is legal and no shuffle is left (and not won)."""
        return not self.is_won and self.shuffles_left == 0 and not self._any_card_move()

    # -- moves ----------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move, in a fixed order.

        Foundation plays (by pile, then foundation in ``uS uH uD uC dS dH dD dC`` order), then
        pile-to-pile moves (by source pile, then target pile), then give-backs (by foundation,
        then target pile), then the shuffle.
        """
        return rules.legal_moves(self._piles, self._fnd, self.shuffles_left)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here."""
        return rules.is_legal(self._piles, self._fnd, self.shuffles_left, move._kind, move._a, move._b)

    def play(self, move: Move | str) -> Move:
        """Play ``move`` (a :class:`Move` or its text) and return it.

        Raises :class:`InvalidMove` for malformed text and :class:`IllegalMove` for a move the
        rules refuse here; either way the game is unchanged.
        """
        if type(move) is str:
            move = Move.parse(move)
        elif not isinstance(move, Move):
            raise InvalidMove(f"invalid move: {move!r} (expected a Move or its text)")
        kind, a, b = move._kind, move._a, move._b
        if not rules.is_legal(self._piles, self._fnd, self.shuffles_left, kind, a, b):
            raise IllegalMove(f"illegal move {move}: {self._illegal_reason(move)}")
        self.shuffles_left += rules.apply(self._piles, self._fnd, kind, a, b)
        self.move_stack.append(move)
        return move

    def push(self, move: Move) -> None:
        """Play ``move`` without checking it. For search code that only plays legal moves."""
        self._apply(move)
        self.move_stack.append(move)

    def undo(self) -> Move:
        """Take back the last move (a shuffle gives its allowance back) and return it."""
        if not self.move_stack:
            raise IllegalMove("nothing to undo: no move has been made since the deal or restart")
        move = self.move_stack.pop()
        self._unapply(move)
        return move

    def restart(self) -> None:
        """Back to the deal with the full shuffle allowance; the move history is cleared."""
        self._piles = [list(p) for p in deal_piles(self.seed)]
        self._fnd = [1] * 8
        self.shuffles_left = self.allowance
        self.move_stack.clear()

    def hint(self) -> Move | None:
        """A suggested move, or ``None`` when no move is legal (won or stuck).

        The rule book's priority: a foundation play; else a pile-to-pile move whose source
        pile then shows a card some foundation accepts; else the shuffle; else any legal move.
        Within each group the first in :meth:`legal_moves` order is chosen.
        """
        moves = self.legal_moves()
        if not moves:
            return None
        if moves[0]._kind == TO_FOUNDATION:
            return moves[0]
        needs = {fnd_need(f, self._fnd[f]) for f in range(8)}
        for m in moves:
            if m._kind == PILE_TO_PILE:
                pile = self._piles[m._a]
                if len(pile) > 1 and pile[-2] in needs:
                    return m
        if moves[-1]._kind == SHUFFLE:
            return moves[-1]
        return moves[0]

    # -- internals ------------------------------------------------------------------

    def _illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` is illegal here, or ``None`` when it is legal."""
        fnd = self._fnd
        if sum(fnd) == TOTAL_CARDS:
            return "the game is won"
        kind, a, b = move._kind, move._a, move._b
        piles = self._piles
        if kind == TO_FOUNDATION:
            pile = piles[a]
            if not pile:
                return f"pile {a} is empty"
            need = fnd_need(b, fnd[b])
            if need < 0:
                return f"foundation {FOUNDATIONS[b]} is complete"
            if pile[-1] != need:
                return f"{FOUNDATIONS[b]} needs {CARDS[need]}, pile {a} shows {CARDS[pile[-1]]}"
            return None
        if kind == PILE_TO_PILE:
            if a == b:
                return "a card cannot move onto its own pile"
            src, dst = piles[a], piles[b]
            if not src:
                return f"pile {a} is empty"
            if not dst:
                return f"pile {b} is empty, and empty piles stay empty"
            if dst[-1] != UP[src[-1]] and dst[-1] != DOWN[src[-1]]:
                return f"{CARDS[src[-1]]} does not fit on {CARDS[dst[-1]]} (same suit, one rank apart)"
            return None
        if kind == GIVE_BACK:
            n = fnd[a]
            if n <= 1:
                return f"foundation {FOUNDATIONS[a]} holds only its base card, which never moves"
            dst = piles[b]
            if not dst:
                return f"pile {b} is empty, and empty piles stay empty"
            c = fnd_top(a, n)
            if dst[-1] != UP[c] and dst[-1] != DOWN[c]:
                return f"{CARDS[c]} does not fit on {CARDS[dst[-1]]} (same suit, one rank apart)"
            return None
        if kind == SHUFFLE:
            return None if self.shuffles_left > 0 else "no shuffles left"
        assert kind == FOUNDATION_TO_FOUNDATION
        return "cards never move from one foundation to another"

    def _apply(self, move: Move) -> None:
        self.shuffles_left += rules.apply(self._piles, self._fnd, move._kind, move._a, move._b)

    def _unapply(self, move: Move) -> None:
        self.shuffles_left += rules.unapply(self._piles, self._fnd, move._kind, move._a, move._b)

    def _any_card_move(self) -> bool:
        moves = self.legal_moves()
        return bool(moves) and moves[0]._kind != SHUFFLE

    # -- copying, comparing, serialising ---------------------------------------------

    def copy(self) -> Game:
        """An independent copy, history included."""
        other = Game.__new__(Game)
        other.seed, other.difficulty = self.seed, self.difficulty
        other._piles = [list(p) for p in self._piles]
        other._fnd = list(self._fnd)
        other.shuffles_left = self.shuffles_left
        other.move_stack = list(self.move_stack)
        return other

    def position_key(self) -> tuple[Any, ...]:
        """What defines the position (not the history): equal keys, equal futures."""
        return (tuple(map(tuple, self._piles)), tuple(self._fnd), self.shuffles_left)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (
            self.seed == other.seed
            and type(self.seed) is type(other.seed)
            and self.difficulty == other.difficulty
            and self.position_key() == other.position_key()
            and self.move_stack == other.move_stack
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game seed={self.seed!r} difficulty={self.difficulty!r} "
            f"foundations={self.cards_on_foundations}/104 shuffles_left={self.shuffles_left}>"
        )

    def __str__(self) -> str:
        lines = [f"Deal {self.seed!r} ({self.difficulty}), shuffles left: {self.shuffles_left}"]
        fnd = self.foundations
        lines.append("Foundations: " + "  ".join(f"{k}:{fnd[k][-1]}({len(fnd[k])})" for k in FOUNDATIONS))
        for p, pile in enumerate(self.piles):
            lines.append(f"p{p:<3}" + " ".join(str(c) for c in pile))
        return "\n".join(lines)

    def to_dict(self, *, history: bool = True) -> dict[str, Any]:
        """A JSON-safe dict; :meth:`from_dict` restores exactly this game, history included.
        With ``history=False`` the history is left out (an empty list): the position alone,
        for a program that keeps the history apart (a server saves this on every move, at a
        cost that does not grow with the game); put the history back before restoring it
        with :meth:`from_dict`, which checks that the two agree."""
        return self._as_dict(self.history_texts() if history else [])

    def history_texts(self, start: int = 0) -> list[str]:
        """The texts of the history's moves (``str(move)``), oldest first, from move number
        ``start`` (0 is the first) on."""
        return [m._text for m in self.move_stack[start:]]

    def _as_dict(self, history: list[str]) -> dict[str, Any]:
        return saved.write(self.seed, self.difficulty, self._piles, self._fnd, self.shuffles_left, history)

    @classmethod
    def from_trusted_dict(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_dict` output that this program wrote itself, without
        :meth:`from_dict`'s checks (no history replay, no card count, no new deal): a server
        restoring the state it stored a moment ago. Anything that came from outside goes
        through :meth:`from_dict`. Raises ``ValueError`` only for a different format, and
        ``KeyError`` or ``TypeError`` for data of another shape; the result is otherwise
        unchecked."""
        game = cls.__new__(cls)
        game.seed, game.difficulty, parts = saved.read_trusted(data)
        game._piles, game._fnd, game.shuffles_left, game.move_stack = parts
        return game

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_dict` output, checking that it is a real position.

        Raises ``ValueError`` if the data is malformed or breaks an invariant (104 cards, two
        of each; foundation counts 1-13; shuffles and history consistent with the allowance).
        """
        data = saved.check_format(data)
        game = cls(data.get("seed"), data.get("difficulty"))  # type: ignore[arg-type]
        parts = saved.read_checked(data, game.allowance)
        game._piles, game._fnd, game.shuffles_left, game.move_stack = parts
        _check_history(game)
        return game


def _check_history(game: Game) -> None:
    """Check that every move of the history was legal where it was played.

    The history is unwound from the stored position, last move first: each move must be one
    that :meth:`Game.undo` can take back, and replaying it from the position before it must be
    legal and give back the position after it. Otherwise :meth:`Game.undo` would build an
    impossible position from a corrupted save. Unwound, it must arrive at the seed's deal.
    """
    probe = game.copy()
    piles, fnd = probe._piles, probe._fnd
    for i in range(len(probe.move_stack) - 1, -1, -1):
        move = probe.move_stack[i]
        kind, a, b = move._kind, move._a, move._b
        after = probe.position_key()
        if kind == TO_FOUNDATION:
            undoable = fnd[b] > 1
        elif kind == PILE_TO_PILE:
            undoable = a != b and len(piles[b]) > 0
        elif kind == GIVE_BACK:
            undoable = fnd[a] < 13 and len(piles[b]) > 0 and piles[b][-1] == fnd_need(a, fnd[a])
        else:
            undoable = kind == SHUFFLE
        if undoable:
            probe.undo()
            undoable = probe.is_legal(move)
            if undoable:
                probe._apply(move)
                undoable = probe.position_key() == after
                probe._unapply(move)
        if not undoable:
            raise ValueError(f"history move {i + 1} ({move}) is not a legal move in its position")
    # Unwound, the history must start from the deal: restart() goes there, and so must the
    # last undo. (A position with no history is taken as it is: a constructed one.)
    if game.move_stack and probe.position_key() != Game(game.seed, game.difficulty).position_key():
        raise ValueError("history does not start from the deal of its seed")
