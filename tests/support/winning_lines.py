"""Checked-in winning lines, so that tests can finish a race without running the solver.

``tests/data/winning_lines.json`` maps a few (deal, difficulty) pairs to a winning line in the
engine's notation, found by :func:`race.solver.solve` (``tests/unit/test_solver_lines.py`` replays
each one to a win). Use it from any test::

    from tests.support.winning_lines import winning_line
    for move in winning_line(5, "medium"):
        game.play(move)

Regenerate (or add deals) with ``python -m tests.support.winning_lines 5:medium 2:hard ...``.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

PATH = Path(__file__).resolve().parents[1] / "data" / "winning_lines.json"


@cache
def winning_lines() -> dict[tuple[int, str], tuple[str, ...]]:
    """Every checked-in line, keyed by ``(deal, difficulty)``."""
    data = json.loads(PATH.read_text())
    return {(e["deal"], e["difficulty"]): tuple(e["moves"]) for e in data["lines"]}


def winning_line(deal: int, difficulty: str = "medium") -> list[str]:
    """A winning line for the deal, from its start; ``KeyError`` names the deals on file."""
    lines = winning_lines()
    if (deal, difficulty) not in lines:
        raise KeyError(f"no winning line on file for deal {deal} ({difficulty}); have {sorted(lines)}")
    return list(lines[(deal, difficulty)])


def first_winning_line() -> dict[str, Any]:
    """The first line on file, as ``{"deal", "difficulty", "moves"}``: for a test that needs
    a race won and does not care which deal."""
    entry = json.loads(PATH.read_text())["lines"][0]
    return {"deal": entry["deal"], "difficulty": entry["difficulty"], "moves": list(entry["moves"])}


def main(argv: list[str]) -> int:
    from race.engine import Game
    from race.solver import solve

    entries = json.loads(PATH.read_text())["lines"] if PATH.exists() else []
    known = {(e["deal"], e["difficulty"]) for e in entries}
    for arg in argv:
        deal_text, difficulty = arg.split(":")
        deal = int(deal_text)
        if (deal, difficulty) in known:
            continue
        solution = solve(Game.deal(deal, difficulty), time_limit=120)
        print(f"deal {deal} {difficulty}: {solution.status} ({solution.seconds:.1f} s)")
        if solution.status == "won":
            entries.append({"deal": deal, "difficulty": difficulty, "moves": solution.moves})
    entries.sort(key=lambda e: (["easy", "medium", "hard"].index(e["difficulty"]), e["deal"]))
    PATH.write_text(json.dumps({"lines": entries}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
