"""A hint that makes progress: the rule book's hint, among the moves that lead somewhere new.

The rule book's hint (:meth:`Game.hint`) looks at the position alone, so followed blindly it
can go round in circles: a card home, given back, home again. :func:`advise` also knows every
position the game has reached (whatever was undone or restarted since: :func:`replayed`
gives them from the game's actions) and suggests only a move to a position not among them,
chosen by the rule book's priority: a foundation play; a pile move whose source pile then
shows a card a foundation needs; the shuffle; any other move.

When no card move leads anywhere new, the answer says so (``progress`` is false) and names
the way out: the shuffle while one is left (and leads somewhere new), else undo, else none.
A player who follows the hints and their ways out never sees a position twice, so never
loops; and since the positions are finitely many, the game ends, won or with no way out.

>>> game, seen = replayed(1, "medium", ["p1>dD"])
>>> advise(game, seen) == (game.hint(), True, None)  # nothing to avoid here: the rule book's
True
>>> replayed(1, "medium", ["p1>dD", "undo"])[1] == seen  # the deal and one position
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from . import rules
from .game import Game
from .moves import PILE_TO_PILE, SHUFFLE, TO_FOUNDATION, Move
from .tables import fnd_need

SHUFFLE_OUT, UNDO_OUT = "shuffle", "undo"


class Advice(NamedTuple):
    """A hint: ``move`` to play (None: none to play); ``progress``, whether a card move
    leads to a position not reached before; when none does, ``way_out``: ``"shuffle"``
    (the ``move``), ``"undo"``, or None (nothing leads anywhere new)."""

    move: Move | None
    progress: bool
    way_out: str | None = None


def position_hash(game: Game) -> int:
    """A cheap key of ``game``'s position (piles, foundations, shuffles left), for sets of
    positions reached: equal positions, equal keys (and different ones, all but surely)."""
    return hash((tuple(map(tuple, game._piles)), tuple(game._fnd), game.shuffles_left))


class Trail:
    """A game replayed from its deal through its actions (move texts, ``undo``, ``restart``:
    a game's actions as the server accepted them), with the :func:`position_hash` of every
    position it reached, the deal and the current one included. :meth:`extend` takes the
    actions that came since, so a server can keep one per player and replay each action once.
    """

    __slots__ = ("actions", "game", "seen")

    def __init__(self, seed: int | str, difficulty: str) -> None:
        self.game = Game.deal(seed, difficulty)
        self.seen = {position_hash(self.game)}
        self.actions = 0  # how many actions it has replayed

    def extend(self, actions: Iterable[str]) -> None:
        """Replay ``actions``, the game's next ones. Raises the engine's errors for one it
        refuses (the trail is then of no use)."""
        game, seen = self.game, self.seen
        for action in actions:
            if action == "undo":
                game.undo()
            elif action == "restart":
                game.restart()
            else:
                game.play(action)
            seen.add(position_hash(game))
            self.actions += 1


def replayed(seed: int | str, difficulty: str, actions: Iterable[str]) -> tuple[Game, set[int]]:
    """The game of deal ``seed`` after ``actions``, and every position it reached (see
    :class:`Trail`)."""
    trail = Trail(seed, difficulty)
    trail.extend(actions)
    return trail.game, trail.seen


def advise(game: Game, seen: set[int]) -> Advice:
    """The hint for ``game``, whose reached positions are ``seen`` (see the module)."""
    piles, fnd = game._piles, game._fnd
    fresh: list[Move] = []
    shuffle: Move | None = None
    for m in game.legal_moves():
        game.shuffles_left += rules.apply(piles, fnd, m._kind, m._a, m._b)
        new = position_hash(game) not in seen
        game.shuffles_left += rules.unapply(piles, fnd, m._kind, m._a, m._b)
        if not new:
            continue
        if m._kind == SHUFFLE:
            shuffle = m
        else:
            fresh.append(m)
    for m in fresh:
        if m._kind == TO_FOUNDATION:
            return Advice(m, True)
    needs = {fnd_need(f, fnd[f]) for f in range(8)}
    for m in fresh:
        if m._kind == PILE_TO_PILE:
            pile = piles[m._a]
            if len(pile) > 1 and pile[-2] in needs:
                return Advice(m, True)
    if shuffle is not None:
        return Advice(shuffle, True) if fresh else Advice(shuffle, False, SHUFFLE_OUT)
    if fresh:
        return Advice(fresh[0], True)
    return Advice(None, False, UNDO_OUT if game.move_stack else None)
