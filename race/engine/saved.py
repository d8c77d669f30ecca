"""A game's saved form: the JSON-safe dict that :meth:`Game.to_dict` writes and
:meth:`Game.from_dict` reads back. Plain functions over the engine's internal values (cards as
indexes 0-51, a foundation as its card count); the history's replay check stays with the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .cards import CARDS, Card, InvalidCard
from .moves import _BY_TEXT as _MOVE_BY_TEXT
from .moves import FOUNDATIONS, PILE_COUNT, Move
from .tables import CARD_INDEX, CARD_TEXT

FORMAT = 1

Parts = tuple[list[list[int]], list[int], int, list[Move]]
"""A position as the game holds it: piles, foundation counts, shuffles left, history."""


def write(
    seed: int | str, difficulty: str, piles: list[list[int]], fnd: list[int], shuffles: int, history: list[str]
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "seed": seed,
        "difficulty": difficulty,
        "piles": [[CARD_TEXT[c] for c in pile] for pile in piles],
        "foundations": dict(zip(FOUNDATIONS, fnd, strict=True)),
        "shuffles_left": shuffles,
        "history": history,
    }


def read_trusted(data: Mapping[str, Any]) -> tuple[int | str, str, Parts]:
    """Seed, difficulty and position of a saved game this program wrote, unchecked."""
    if data.get("format") != FORMAT:
        raise ValueError(f"not a saved game of format {FORMAT}")
    index, moves, fnd = CARD_INDEX, _MOVE_BY_TEXT, data["foundations"]
    parts = (
        [[index[t] for t in pile] for pile in data["piles"]],
        [fnd[k] for k in FOUNDATIONS],
        data["shuffles_left"],
        [moves[t] for t in data["history"]],
    )
    return data["seed"], data["difficulty"], parts


def check_format(data: object) -> Mapping[str, Any]:
    if not isinstance(data, Mapping) or type(data.get("format")) is not int or data["format"] != FORMAT:
        raise ValueError(f"not a saved game of format {FORMAT}")
    return data


def read_checked(data: Mapping[str, Any], allowance: int) -> Parts:
    """The position of a saved game from outside, every field and the card count checked
    (``ValueError`` otherwise). The history's legality is the game's to check."""
    piles = data.get("piles")
    if not isinstance(piles, Sequence) or len(piles) != PILE_COUNT:
        raise ValueError("saved game needs 16 piles")
    try:
        cards = [[Card.parse(t).index for t in pile] for pile in piles]
    except (InvalidCard, TypeError) as exc:
        raise ValueError(f"saved game has a bad card: {exc}") from None
    fnd = data.get("foundations")
    if not isinstance(fnd, Mapping) or set(fnd) != set(FOUNDATIONS):
        raise ValueError(f"saved game needs the foundations {' '.join(FOUNDATIONS)}")
    counts = [fnd[k] for k in FOUNDATIONS]
    if any(type(n) is not int or not 1 <= n <= 13 for n in counts):
        raise ValueError("foundation counts must be 1-13")
    shuffles = data.get("shuffles_left")
    if type(shuffles) is not int or not 0 <= shuffles <= allowance:
        raise ValueError(f"shuffles_left must be 0-{allowance}")
    history = data.get("history")
    if not isinstance(history, Sequence) or isinstance(history, str):
        raise ValueError("history must be a list of moves")
    moves = [Move.parse(t) for t in history]
    if sum(m.is_shuffle for m in moves) != allowance - shuffles:
        raise ValueError("history and shuffles_left disagree")
    check_cards(cards, counts)
    return cards, counts, shuffles, moves


def check_cards(piles: list[list[int]], fnd: list[int]) -> None:
    seen = [0] * 52
    for pile in piles:
        for c in pile:
            seen[c] += 1
    for f, n in enumerate(fnd):
        suit = f & 3
        for r in range(n):
            seen[suit * 13 + (r if f < 4 else 12 - r)] += 1
    if any(n != 2 for n in seen):
        bad = [str(CARDS[c]) for c, n in enumerate(seen) if n != 2]
        raise ValueError(f"saved game must hold two of every card; wrong count for {' '.join(bad)}")
