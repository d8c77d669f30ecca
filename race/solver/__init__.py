"""The Crescent solver: prove a position winnable (with a line) or unwinnable, from anywhere.

Pure: it imports only the engine and the standard library.

>>> from race.engine import Game
>>> solution = solve(Game.deal(3, "easy"), time_limit=10)
>>> solution.status
'won'
>>> game = Game.deal(3, "easy")
>>> for move in solution.moves:
...     _ = game.play(move)
>>> game.is_won
True
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

from race.engine import Game, IllegalMove

from .position import move_text
from .scoring import SCORERS, ScoreMemo
from .search import EXHAUSTED, WON, Budget, beam, dfs

Status = Literal["won", "unsolvable", "unknown"]

#: Default wall-clock limit of :func:`solve`, in seconds.
DEFAULT_TIME_LIMIT = 10.0
#: The share of the time (or nodes) the depth-first prover gets before the beam searches.
DFS_SHARE = 0.03
#: The beam widths of the first rounds; each round gives every heuristic a turn, and after
#: these rounds the width doubles each round. The second is chosen for what 10 seconds buy:
#: on the 106 hard deals of 1-604 that the first round left unknown, with 2.3 million nodes a
#: deal in all, a second round at width 128 won 55 (it gets through about 7 of its 12 beams),
#: at width 96 48 (about 10 of 12), and a round at width 72 followed by one at 96 42.
WIDTHS = (48, 128)
#: The nodes a beam may spend per unit of its width before the next heuristic takes its turn.
#: A beam ends by itself only when every position of a depth was seen before, and a narrow one
#: can go on finding new positions long after a winning line's length: with no cap the first
#: heuristic's beam could take the whole budget. The cap must still let a beam reach the end of
#: a game: at 750 no hard deal was won any more; 1,500 won more than 3,000 (3M nodes a deal:
#: 13 against 7 of the 35 hard deals of 1-100 that the uncapped solver left unknown, and all of
#: its 65 wins either way), and a winning beam of width 48 typically needs 1,000-1,500.
BEAM_NODES_PER_WIDTH = 1500


@dataclass(frozen=True, slots=True)
class Solution:
    """What :func:`solve` found.

    ``status`` is ``"won"`` (``moves`` is a winning line in the engine's notation, already
    replayed through :meth:`Game.play` from the given position to a win), ``"unsolvable"``
    (an exhaustive search found no win: a proof) or ``"unknown"`` (a limit ran out first).
    ``nodes`` counts the positions generated and ``seconds`` the time taken.
    """

    status: Status
    moves: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def solve(
    game: Game,
    *,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    node_limit: int | None = None,
) -> Solution:
    """Search ``game``'s position (its piles, foundations and shuffles left; not its history).

    The caller's game is never modified. ``time_limit`` (seconds) and ``node_limit`` bound the
    search; ``None`` means no bound (the search then runs until it decides, which for a full
    deal can take a very long time, or for ever once the unsolvable space outgrows the table).

    The plan: a depth-first search over every move (it decides small positions outright and
    follows the hint order straight to a win in many easy deals) gets a share of the budget;
    then beam searches of growing width (:data:`WIDTHS`, then doubling; each width once per heuristic in
    :data:`race.solver.scoring.SCORERS`, each beam for at most :data:`BEAM_NODES_PER_WIDTH`
    nodes per unit of width) look for a win. A beam that never had to drop a
    position was a complete breadth-first search, which is a proof of unwinnability just as an
    exhausted depth-first search is.
    """
    with _collector_paused():
        return _solve(game, time_limit, node_limit)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector, as long as the search runs.

    The search makes no reference cycles (its positions, lines and memos are plain tuples,
    lists, bytes and dicts), so reference counting frees all it drops; but it makes millions of
    tuples and lists, and the collector would walk its ever larger tables again and again: with
    it on, a hard deal's search went 17-37% slower. The collector is switched back on (if it was)
    however the search ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _solve(game: Game, time_limit: float | None, node_limit: int | None) -> Solution:
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    budget = Budget(deadline, node_limit)
    piles = [bytes(p) for p in game._piles]
    fnd = list(game._fnd)
    shuffles = game.shuffles_left

    def finish(status: Status, line: list[str]) -> Solution:
        return Solution(status, line, budget.nodes, time.perf_counter() - started)

    dfs_budget = Budget(
        None if time_limit is None else started + DFS_SHARE * time_limit,
        None if node_limit is None else int(DFS_SHARE * node_limit),
    )
    result, line = dfs(piles, fnd, shuffles, dfs_budget)
    budget.nodes = dfs_budget.nodes
    widths = iter(WIDTHS)
    width, turn = next(widths), 0
    memo = ScoreMemo(shuffles)  # the beams' shared scoring memos
    while True:
        if result == WON:
            return finish("won", _checked(game, [move_text(m) for m in line]))
        if result == EXHAUSTED:
            return finish("unsolvable", [])
        if budget.spent():
            return finish("unknown", [])
        turn_budget = budget.share(width * BEAM_NODES_PER_WIDTH)
        result, line = beam(piles, fnd, shuffles, width, turn_budget, scorer=SCORERS[turn % len(SCORERS)], memo=memo)
        budget.nodes = turn_budget.nodes
        turn += 1
        if turn % len(SCORERS) == 0:
            width = next(widths, 2 * width)


def _checked(game: Game, line: list[str]) -> list[str]:
    """Replay ``line`` on a copy of ``game``; return it if it wins, else raise ``RuntimeError``."""
    replay = game.copy()
    try:
        for move in line:
            replay.play(move)
    except IllegalMove as exc:
        raise RuntimeError(f"solver bug: its line does not replay: {exc}") from None
    if not replay.is_won:
        raise RuntimeError("solver bug: its line replays but does not win")
    return line


__all__ = ["DEFAULT_TIME_LIMIT", "Solution", "Status", "solve"]
