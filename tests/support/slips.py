"""Games with a known slip, for the coach's tests: a winning line followed to near its end, then a
move that loses (proven by :func:`winnable`, a plain search written here over the engine's own
moves, independent of the solver), then moves until the game is stuck.

    from tests.support.slips import lost_game
    acts, slip = lost_game(5, "medium")   # acts[slip] is the move that lost the win
"""

from __future__ import annotations

from functools import cache

from race.engine import Game

from .winning_lines import winning_line


def winnable(game: Game, limit: int = 50_000) -> bool | None:
    """Whether ``game``'s position can be won: a plain exhaustive search over
    :meth:`Game.legal_moves` keyed by :meth:`Game.position_key`, no symmetry, no dominance, no
    pruning; ``None`` when more than ``limit`` positions would be needed."""
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
        g.push(move)
        if g.is_won:
            return True
        key = g.position_key()
        if key in seen:
            g.undo()
            continue
        seen.add(key)
        if len(seen) > limit:
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
