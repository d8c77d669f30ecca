"""Games with a known slip, for the coach's tests: a winning line followed to near its end, then a
move that loses (proven by :func:`winnable`, a plain search written here over the engine's own
moves, independent of the solver), then moves until the game is stuck.

    from tests.support.slips import lost_game
    acts, slip = lost_game(5, "medium")   # acts[slip] is the move that lost the win
"""

from __future__ import annotations

import random
from functools import cache

from race.engine import Game
from race.engine.tables import TOP

from .winning_lines import winning_line


def winnable(game: Game, limit: int | None = 50_000, *, give_backs: bool = True) -> bool | None:
    """Whether ``game``'s position can be won: a plain exhaustive search over
    :meth:`Game.legal_moves` keyed by :meth:`Game.position_key`, no symmetry, no dominance, no
    pruning; ``None`` when more than ``limit`` positions would be needed (no bound: None).
    With ``give_backs=False`` it never plays a foundation card back (to find positions whose
    only wins need one)."""
    g = game.copy()
    g.move_stack = []
    if g.is_won:
        return True
    seen = {g.position_key()}
    stack = [iter(g.legal_moves())]
    while stack:
        move = next(stack[-1], None)
        if move is None:
            stack.pop()
            if g.move_stack:
                g.undo()
            continue
        if not give_backs and str(move)[0] in "ud":
            continue
        g.push(move)
        if g.is_won:
            return True
        key = g.position_key()
        if key in seen:
            g.undo()
            continue
        seen.add(key)
        if limit is not None and len(seen) > limit:
            return None
        stack.append(iter(g.legal_moves()))
    return False


@cache
def lost_game(deal: int, difficulty: str, left: int = 6) -> tuple[tuple[str, ...], int]:
    """A game of the deal: its winning line up to ``left`` moves from the end or further back,
    then the first legal move there that loses (so ``acts[slip]`` lost the win, and every step up
    to ``slip`` can be won), then the first legal move each time until none is left."""
    line = winning_line(deal, difficulty)
    for cut in range(len(line) - left, 0, -1):
        game = Game.deal(deal, difficulty)
        for text in line[:cut]:
            game.play(text)
        for move in game.legal_moves():
            probe = game.copy()
            probe.play(move)
            if winnable(probe) is False:
                acts = [*line[:cut], str(move)]
                while (moves := probe.legal_moves()) and len(acts) < cut + 60:
                    acts.append(str(probe.play(moves[0])))
                return tuple(acts), cut
    raise LookupError(f"no losing move found on the line of {difficulty} deal {deal}")


def small_position(rng: random.Random) -> Game:
    """A position with 3-8 cards of one or two suits off the foundations, on 1-4 piles, and
    0-2 shuffles left."""
    game = Game.deal(1, "easy")
    fnd = [13] * 8
    cards: list[int] = []
    suits = rng.sample(range(4), rng.choice((1, 2)))
    off = rng.randint(3, 8)
    while len(cards) < off:
        f = rng.choice(suits) + rng.choice((0, 4))
        if fnd[f] > 1:
            cards.append(TOP[f][fnd[f]])
            fnd[f] -= 1
    rng.shuffle(cards)
    piles: list[list[int]] = [[] for _ in range(16)]
    used = rng.sample(range(16), rng.randint(1, 4))
    for i, c in enumerate(cards):
        piles[used[i] if i < len(used) else rng.choice(used)].append(c)
    game._piles, game._fnd, game.shuffles_left = piles, fnd, rng.randint(0, 2)
    return game


HEARTS = 1  # (suits: 0 spades, 1 hearts, 2 diamonds, 3 clubs)


def hearts_left(piles: list[list[int]], shuffles: int, spades: list[list[int]] | None = None) -> Game:
    """A position where every suit is home but hearts (its up foundation at the Jack: it needs
    the Queen, then the King; its down foundation full), on ``piles`` of hearts' ranks (0 =
    Ace); and, given ``spades``, the spades' up foundation at the Jack too, with those piles."""
    game = Game.deal(1, "easy")
    fnd = [13] * 8
    fnd[HEARTS] = 11
    cards = [[HEARTS * 13 + rank for rank in pile] for pile in piles]
    if spades is not None:
        fnd[0] = 11
        cards += [list(pile) for pile in spades]
    game._piles = cards + [[] for _ in range(16 - len(cards))]
    game._fnd, game.shuffles_left = fnd, shuffles
    return game
