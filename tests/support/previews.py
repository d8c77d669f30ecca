"""Moves and the boards around them, from the engine, for the page's ``preview`` (the board
it draws while the server confirms a move): ``tests/data/previews.json`` holds, for moves of
every kind (a shuffle, a card onto a pile, up to a foundation, back from one, one that leaves
only the foundation's base), the board before, the move, and what the engine changed.
``tests/js/previews.test.mjs`` checks ``preview`` against each; ``tests/unit/test_previews.py``
that the file is what the engine gives. ``python -m tests.support.previews`` writes it again.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from race.engine import Game
from race.rooms.standing import board

PATH = Path(__file__).resolve().parents[1] / "data" / "previews.json"
#: How many of each kind of move the file holds.
WANTED = {
    "shuffle": 12,
    "onto a pile": 12,
    "up to a foundation": 12,
    "back from a foundation": 12,
    "back to the base": 6,
}


def kind(game: Game, text: str) -> str:
    if text == "shuffle":
        return "shuffle"
    source, target = text.split(">")
    if source[0] in "ud":
        return "back to the base" if len(game.foundations[source]) == 2 else "back from a foundation"
    return "onto a pile" if target[0] == "p" else "up to a foundation"


def changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What ``after`` has that ``before`` has not: piles and foundations by key, shuffles left."""
    out: dict[str, Any] = {}
    piles = {str(i): p for i, (p, q) in enumerate(zip(after["piles"], before["piles"], strict=True)) if p != q}
    found = {k: f for k, f in after["foundations"].items() if f != before["foundations"][k]}
    if piles:
        out["piles"] = piles
    if found:
        out["foundations"] = found
    if after["shuffles_left"] != before["shuffles_left"]:
        out["shuffles_left"] = after["shuffles_left"]
    return out


def vectors(seed: int = 2026) -> list[dict[str, Any]]:
    """The file's entries: games played at random from seeded deals until each kind of move
    has been seen as often as wanted."""
    rng = random.Random(seed)
    need = dict(WANTED)
    found: list[dict[str, Any]] = []
    while any(need.values()):
        game = Game.deal(rng.randint(1, 10**6), rng.choice(("easy", "medium", "hard")))
        for _ in range(400):
            legal = [str(m) for m in game.legal_moves()]
            if not legal:
                break
            wanted = [m for m in legal if need[kind(game, m)]]
            move = rng.choice(wanted) if wanted and rng.random() < 0.3 else rng.choice(legal)
            what = kind(game, move)
            before = board(game)
            game.play(move)
            if need[what]:
                need[what] -= 1
                found.append({"kind": what, "board": before, "move": move, "changes": changes(before, board(game))})
    return found


def text(entries: list[dict[str, Any]]) -> str:
    return "[\n" + ",\n".join(json.dumps(e, separators=(",", ":")) for e in entries) + "\n]\n"


if __name__ == "__main__":
    PATH.write_text(text(vectors()))
    print(f"wrote {PATH}")
