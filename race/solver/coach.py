"""The solver as a coach: for each step of a recorded game, whether it could still be won.

A game's steps are its positions: step 0 is the deal, step ``k`` the position after its
``k``-th action (a move's text, ``undo`` or ``restart``). Each gets a verdict:

- ``win``: a winning line from there is known, and replays through the engine to a win;
- ``lost``: proven, by an exhaustive search with sound pruning only (:func:`race.solver.search.dfs`
  or the solver's own proof), or by one suit that cannot be completed in an easier game of its
  own (:mod:`race.solver.suits`); never by a search that ran out of nodes;
- ``unknown``: neither, within the budget.

Verdicts travel along moves, which is what keeps a game's analysis cheap. If a move leads from
position ``a`` to ``b`` (the move of an action, or the move an ``undo`` took back, from the
later position to the earlier one), a win from ``b`` is a win from ``a`` (the move, then
``b``'s line) and a loss at ``a`` is a loss at ``b`` (every position a move reaches from a lost
one is lost). So one search settles a run of steps: a line found late in a game wins every step
before it that leads there, a loss proven early settles the steps after it. The steps are
searched in the order of a binary search (the deal, the last step, then the middle of each run
left undecided), and a position met twice is searched once.

The slip, in a game not won, is the last step with a win: the action after it lost the win
(proven when the step after it is ``lost``). Pure: the engine and the solver only.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

from race.engine import Game

from . import solve
from .core import Budget
from .search import EXHAUSTED, dfs
from .suits import lost_suit

Verdict = Literal["win", "lost", "unknown"]
WIN: Verdict = "win"
LOST: Verdict = "lost"
UNKNOWN: Verdict = "unknown"
UNDO, RESTART = "undo", "restart"


@dataclass(frozen=True, slots=True)
class Limits:
    """How much search one game may have, in positions generated (nodes): the same verdicts on
    every machine. ``game``: every search of the game together; ``win``: one search for a win
    from a step; ``proof``: one exhaustive search for a loss (``proof_table``: its table's
    entries, the memory bound); ``suit``: one suit's game, for a proof of loss a suit at a time
    (:mod:`race.solver.suits`), tried before that proof; ``lines``: more searches, once every step that can
    be is decided, for the solver's own line from steps whose win was found through a later step."""

    game: int = 3_000_000
    win: int = 300_000
    proof: int = 150_000
    proof_table: int = 200_000
    suit: int = 5_000
    lines: int = 0


@dataclass(slots=True)
class Step:
    """One step's verdict. A ``win`` holds its line's length (``moves``) and either its own line
    (``line``, the solver's) or where it comes from: ``head`` (a move, or ``""`` for the same
    position) and then the line of step ``then``."""

    verdict: Verdict = UNKNOWN
    moves: int = 0
    line: tuple[str, ...] | None = None
    then: int = -1
    head: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"v": self.verdict}
        if self.verdict == WIN:
            out["n"] = self.moves
            if self.line is not None:
                out["line"] = " ".join(self.line)
            else:
                out["then"], out["head"] = self.then, self.head
        return out


@dataclass(slots=True)
class Analysis:
    """A game's verdicts (``steps[0]`` is the deal's), its slip (see the module's docstring;
    ``None`` for a game won, or never winnable as far as the search knows) and whether the step
    after the slip is proven lost, the length of the solver's own line from the deal
    (``solver_moves``, or ``None``), and the work done."""

    steps: list[Step]
    won: bool
    slip: int | None = None
    slip_proven: bool = False
    solver_moves: int | None = None
    nodes: int = 0
    searches: int = 0
    acts: tuple[str, ...] = field(default=())

    @property
    def decided(self) -> int:
        return sum(s.verdict != UNKNOWN for s in self.steps)

    def as_dict(self) -> dict[str, Any]:
        slip = None
        if self.slip is not None:
            slip = {"step": self.slip, "act": self.acts[self.slip], "proven": self.slip_proven}
        return {
            "won": self.won,
            "steps": [s.as_dict() for s in self.steps],
            "slip": slip,
            "solver_moves": self.solver_moves,
            "decided": self.decided,
            "nodes": self.nodes,
            "searches": self.searches,
        }


class _Game:
    """A game's steps as positions: each distinct position once (``node[k]``: step ``k``'s),
    with the moves between them that the record shows."""

    def __init__(self, start: Game, acts: tuple[str, ...]) -> None:
        game = start.copy()
        self.games: list[Game] = []
        self.node: list[int] = []
        #: into[v]: ``(u, move)`` for each move from position ``u`` to ``v``.
        self.into: list[list[tuple[int, str]]] = []
        #: out_of[u]: the positions a move leads to from ``u``.
        self.out_of: list[list[int]] = []
        ids: dict[tuple[Any, ...], int] = {}

        def visit() -> int:
            key = game.position_key()
            u = ids.get(key)
            if u is None:
                u = ids[key] = len(self.games)
                self.games.append(game.copy())
                self.into.append([])
                self.out_of.append([])
            self.node.append(u)
            return u

        before = visit()
        for act in acts:
            if act == UNDO:
                back = str(game.undo())
                now = visit()
                self._link(now, before, back)  # the undone move leads from here back there
            elif act == RESTART:
                game.restart()
                now = visit()
            else:
                game.play(act)
                now = visit()
                self._link(before, now, act)
            before = now

    def _link(self, u: int, v: int, move: str) -> None:
        if u != v:
            self.into[v].append((u, move))
            self.out_of[u].append(v)


def analyse(start: Game, acts: tuple[str, ...] | list[str], limits: Limits | None = None) -> Analysis:
    """The verdict of every step of the game played from ``start`` (a deal, or any position)
    with ``acts`` (an action the engine refuses raises its error: check the record first),
    within ``limits``. ``start`` is not changed."""
    return _Coach(start, tuple(acts), limits or Limits()).run()


class _Coach:
    def __init__(self, start: Game, acts: tuple[str, ...], limits: Limits) -> None:
        self.acts, self.limits = acts, limits
        self.g = _Game(start, acts)
        count = len(self.g.games)
        self.verdict: list[Verdict] = [UNKNOWN] * count
        self.own: list[tuple[str, ...] | None] = [None] * count
        self.via: list[tuple[int, str]] = [(-1, "")] * count  # a derived win: (position, move)
        self.tried = [False] * count
        self.nodes = 0
        self.searches = 0

    def left(self) -> int:
        return self.limits.game - self.nodes

    # -- the searches ------------------------------------------------------------------

    def search(self, u: int) -> None:
        """Search position ``u``: for a win, then (if none was found) for a proof of loss."""
        self.tried[u] = True
        game = self.g.games[u]
        if game.is_won:
            return self.settle(u, WIN, ())
        nodes = min(self.limits.win, self.left())
        if nodes <= 0:
            return None
        found = solve(game, time_limit=None, node_limit=nodes)
        self.nodes += found.nodes
        self.searches += 1
        if found.status == "won":
            return self.settle(u, WIN, tuple(found.moves))
        if found.status == "unsolvable":
            return self.settle(u, LOST)
        suit, seen = lost_suit(game._piles, game._fnd, game.shuffles_left, self.limits.suit, self.left())
        self.nodes += seen
        if suit is not None:  # one suit cannot be completed even in its easier game (suits.py)
            return self.settle(u, LOST)
        nodes = min(self.limits.proof, self.left())
        if nodes <= 0:
            return None
        budget = Budget(None, nodes)
        piles = [bytes(p) for p in game._piles]
        result, _ = dfs(piles, list(game._fnd), game.shuffles_left, budget, table_cap=self.limits.proof_table)
        self.nodes += budget.nodes
        self.searches += 1
        if result == EXHAUSTED:
            self.settle(u, LOST)
        return None

    def settle(self, u: int, verdict: Verdict, line: tuple[str, ...] = ()) -> None:
        """``u``'s verdict, and what follows from it along the moves between positions."""
        if verdict == WIN:
            self.own[u] = line
        queue = deque([u])
        self.verdict[u] = verdict
        while queue:
            a = queue.popleft()
            if verdict == WIN:
                for b, move in self.g.into[a]:
                    if self.verdict[b] == UNKNOWN:
                        self.verdict[b], self.via[b] = WIN, (a, move)
                        queue.append(b)
                    elif self.verdict[b] == LOST:
                        raise RuntimeError("coach bug: a proven loss leads to a win")
            else:
                for b in self.g.out_of[a]:
                    if self.verdict[b] == UNKNOWN:
                        self.verdict[b] = LOST
                        queue.append(b)
                    elif self.verdict[b] == WIN:
                        raise RuntimeError("coach bug: a win follows from a proven loss")

    # -- the order of the searches -----------------------------------------------------

    def run(self) -> Analysis:
        node = self.g.node
        last = len(node) - 1
        self.search(node[0])
        if not self.tried[node[last]]:
            self.search(node[last])
        runs = deque([(1, last - 1)])
        while runs and self.left() > 0:
            lo, hi = runs.popleft()
            open_steps = [k for k in range(lo, hi + 1) if self.verdict[node[k]] == UNKNOWN and not self.tried[node[k]]]
            if not open_steps:
                continue
            mid = open_steps[len(open_steps) // 2]
            self.search(node[mid])
            runs.append((lo, mid - 1))
            runs.append((mid + 1, hi))
        self.own_lines()
        return self.result()

    def own_lines(self) -> None:
        """With :attr:`Limits.lines`, the solver's own line from steps won through a later
        one, first to last, while that budget lasts."""
        budget = self.limits.lines
        for u in dict.fromkeys(self.g.node):
            if budget <= 0:
                break
            if self.verdict[u] != WIN or self.own[u] is not None:
                continue
            found = solve(self.g.games[u], time_limit=None, node_limit=budget)
            budget -= found.nodes
            self.nodes += found.nodes
            self.searches += 1
            if found.status == "won" and len(found.moves) < len(self.line(u)):
                self.own[u] = tuple(found.moves)

    # -- the result --------------------------------------------------------------------

    def line(self, u: int) -> list[str]:
        """Position ``u``'s winning line, derived ones followed to a line found, loops cut."""
        return shortened(self.g.games[u], self.expanded(u))

    def expanded(self, u: int) -> list[str]:
        out: list[str] = []
        while self.own[u] is None:
            u, move = self.via[u]
            out.append(move)
        out.extend(self.own[u] or ())
        return out

    def result(self) -> Analysis:
        node = self.g.node
        steps: list[Step] = []
        first: dict[int, int] = {}  # position -> its first step
        lengths: dict[int, int] = {}
        for k, u in enumerate(node):
            verdict = self.verdict[u]
            step = Step(verdict)
            if verdict == WIN:
                if u not in lengths:
                    lengths[u] = len(self.line(u))
                step.moves = lengths[u]
                if u in first:
                    step.then = first[u]
                elif self.own[u] is not None:
                    step.line = self.own[u]
                else:
                    step.then, step.head = -2, self.via[u][1]  # the step of via's position, below
            first.setdefault(u, k)
            steps.append(step)
        for k, step in enumerate(steps):
            if step.then == -2:
                step.then = first[self.via[node[k]][0]]
        won = self.g.games[node[-1]].is_won
        analysis = Analysis(steps, won, nodes=self.nodes, searches=self.searches, acts=self.acts)
        own = self.own[node[0]]
        analysis.solver_moves = len(own) if own is not None and self.verdict[node[0]] == WIN else None
        if not won:
            wins = [k for k, s in enumerate(steps) if s.verdict == WIN]
            if wins and wins[-1] < len(steps) - 1:
                analysis.slip = wins[-1]
                analysis.slip_proven = steps[wins[-1] + 1].verdict == LOST
        return analysis


def shortened(game: Game, line: list[str]) -> list[str]:
    """``line`` from ``game``'s position with every loop cut out (a run of moves that comes
    back to a position it passed), replayed through the engine, which must end in a win."""
    probe = game.copy()
    seen = {probe.position_key(): 0}
    out: list[str] = []
    for move in line:
        probe.play(move)
        out.append(move)
        key = probe.position_key()
        back = seen.get(key)
        if back is not None:
            del out[back:]
            seen = {k: i for k, i in seen.items() if i <= back}
        else:
            seen[key] = len(out)
    if not probe.is_won:
        raise RuntimeError("coach bug: a winning line that does not win")
    return out


def expand(steps: list[dict[str, Any]], k: int) -> list[str]:
    """Step ``k``'s winning line from the stored steps (:meth:`Analysis.as_dict`), loops not yet
    cut (see :func:`shortened`); empty for a step not won."""
    out: list[str] = []
    for _ in range(len(steps) + 1):
        step = steps[k]
        if step.get("v") != WIN:
            return []
        if "line" in step:
            out.extend(step["line"].split())
            return out
        if step.get("head"):
            out.append(step["head"])
        k = step["then"]
    raise ValueError("a stored analysis whose lines go round in a circle")
