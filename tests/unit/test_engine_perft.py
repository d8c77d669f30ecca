"""Move-generation checks in the spirit of chess "perft", and a brute-force cross-check.

``legal_moves()`` is the engine's hottest and most delicate code, so it is checked three ways:
pinned move counts from fixed deals, an independent move generator written from the rule book
using only the public API, and trying every one of the 577 possible move texts.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from race.engine import FOUNDATIONS, Card, Game, IllegalMove, Move

PILE_TEXTS = [f"p{p}" for p in range(16)]
LOCATIONS = [*PILE_TEXTS, *FOUNDATIONS]
ALL_MOVE_TEXTS = ["shuffle"] + [f"{s}>{t}" for s in LOCATIONS for t in LOCATIONS]

# For each deal and difficulty, from the start position:
#   moves    - the number of legal moves (shuffle included; the shuffle counts as a move),
#   paths    - the number of move sequences of exactly 1, 2, 3, 4 moves (chess perft's
#              leaf count: every sequence counts, even when two lead to the same position),
#   exactly  - the number of distinct positions (Game.position_key(): the piles, the
#              foundation counts and the shuffles left; not the history) at the end of those
#              sequences of exactly 1, 2, 3, 4 moves (the start itself is among the 2-move
#              positions: a move and its reverse),
#   within   - the number of distinct positions reachable in at most 1, 2, 3, 4 moves, the start
#              position included.
# Hard and medium differ only from 4 moves on, where medium allows a fourth shuffle.
PERFT: dict[tuple[int | str, str], dict[str, Any]] = {
    (1, "hard"): {
        "moves": 17,
        "paths": [17, 279, 4430, 68157],
        "exactly": [17, 172, 1371, 9753],
        "within": [18, 185, 1452, 10116],
    },
    (42, "hard"): {
        "moves": 15,
        "paths": [15, 219, 3125, 43953],
        "exactly": [15, 140, 1072, 7674],
        "within": [16, 150, 1124, 7895],
    },
    ("perft", "hard"): {
        "moves": 12,
        "paths": [12, 147, 1914, 26084],
        "exactly": [12, 106, 843, 6627],
        "within": [13, 114, 886, 6850],
    },
    ("perft", "medium"): {
        "moves": 12,
        "paths": [12, 147, 1914, 26085],
        "exactly": [12, 106, 843, 6628],
        "within": [13, 114, 886, 6851],
    },
}


def perft(game: Game, depth: int) -> dict[str, Any]:
    def count_paths(d: int) -> int:
        if d == 0:
            return 1
        total = 0
        for move in game.legal_moves():
            game.push(move)
            total += count_paths(d - 1)
            game.undo()
        return total

    layer = {game.position_key(): game}
    seen = set(layer)
    exactly, within = [], []
    for _ in range(depth):
        following: dict[tuple[Any, ...], Game] = {}
        for position in layer.values():
            for move in position.legal_moves():
                child = position.copy()
                child.push(move)
                following.setdefault(child.position_key(), child)
        layer = following
        seen.update(layer)
        exactly.append(len(layer))
        within.append(len(seen))
    return {
        "moves": len(game.legal_moves()),
        "paths": [count_paths(d) for d in range(1, depth + 1)],
        "exactly": exactly,
        "within": within,
    }


@pytest.mark.parametrize(("seed", "difficulty"), list(PERFT), ids=repr)
def test_perft_counts_from_the_deal(seed: int | str, difficulty: str) -> None:
    assert perft(Game.deal(seed, difficulty), 4) == PERFT[seed, difficulty]


# -- an independent move generator, straight from the rule book ------------------------------


def neighbours(a: Card, b: Card) -> bool:
    """Same suit, one rank apart, with Ace and King as neighbours (the pile rule)."""
    return a.suit == b.suit and (a.rank - b.rank) % 13 in (1, 12)


def reference_moves(game: Game) -> set[str]:
    foundations = game.foundations
    if sum(len(f) for f in foundations.values()) == 104:
        return set()  # after a win no move is legal

    def accepts(key: str, card: Card) -> bool:
        cards = foundations[key]
        step = 1 if key[0] == "u" else -1  # no wrap: ranks 14 and 0 never match
        return len(cards) < 13 and card.suit == key[1] and card.rank == cards[-1].rank + step

    piles = game.piles
    out = set()
    for p, pile in enumerate(piles):
        if pile:
            out |= {f"p{p}>{key}" for key in FOUNDATIONS if accepts(key, pile[-1])}
            out |= {f"p{p}>p{q}" for q, dst in enumerate(piles) if q != p and dst and neighbours(pile[-1], dst[-1])}
    for key, cards in foundations.items():
        if len(cards) > 1:  # the base never moves
            out |= {f"{key}>p{q}" for q, dst in enumerate(piles) if dst and neighbours(cards[-1], dst[-1])}
    if game.shuffles_left > 0:
        out.add("shuffle")
    return out


def documented_order(move: Move) -> tuple[int, int, int]:
    """The order Game.legal_moves documents: foundation plays, pile moves, give-backs, shuffle."""
    if move.is_shuffle:
        return (3, 0, 0)
    src, dst = move.source, move.target
    if isinstance(src, int) and isinstance(dst, str):
        return (0, src, FOUNDATIONS.index(dst))
    if isinstance(src, int) and isinstance(dst, int):
        return (1, src, dst)
    assert isinstance(src, str) and isinstance(dst, int)
    return (2, FOUNDATIONS.index(src), dst)


def sample_positions(count: int, seed: int) -> list[Game]:
    """Positions from seeded random games: early, middle and late, some with no shuffles left."""
    rng = random.Random(seed)
    positions: list[Game] = []
    while len(positions) < count:
        game = Game.deal(rng.randrange(2**64), rng.choice(["easy", "medium", "hard"]))
        for _ in range(rng.randrange(400)):
            legal = game.legal_moves()
            if not legal:
                break
            hint = game.hint()
            game.play(hint if hint is not None and rng.random() < 0.3 else rng.choice(legal))
        positions.append(game)
    return positions


def almost_won() -> Game:
    """102 cards on the foundations; the King and the Ace of hearts on piles 0 and 1."""
    data = Game.deal(5).to_dict() | {
        "piles": [["KH"], ["AH"]] + [[]] * 14,
        "foundations": dict.fromkeys(FOUNDATIONS, 13) | {"uH": 12, "dH": 12},
    }
    return Game.from_dict(data)


def brute_force_check(game: Game) -> None:
    legal = game.legal_moves()
    texts = {str(m) for m in legal}
    assert texts == reference_moves(game)
    assert legal == sorted(legal, key=documented_order)
    before = (game.position_key(), list(game.move_stack))
    for text in ALL_MOVE_TEXTS:
        move = Move.parse(text)
        assert game.is_legal(move) == (text in texts), text
        if text in texts:
            game.play(move)
            game.undo()
        else:
            with pytest.raises(IllegalMove):
                game.play(move)
        assert (game.position_key(), game.move_stack) == before


def test_legal_moves_match_every_move_text_and_the_reference_generator_on_random_positions() -> None:
    for game in sample_positions(50, seed=2024):
        brute_force_check(game)


def test_legal_moves_match_brute_force_near_and_after_a_win() -> None:
    game = almost_won()
    assert game.cards_on_foundations == 102
    brute_force_check(game)
    for move in ["p0>p1", "uH>p1", "undo", "p1>uH", "p1>dH"]:
        if move == "undo":
            game.undo()
        else:
            game.play(move)
        brute_force_check(game)
    assert game.is_won and game.legal_moves() == []


@pytest.mark.parametrize("seed", [1, "perft"], ids=repr)
def test_reference_generator_agrees_at_every_node_of_the_perft_tree(seed: int | str) -> None:
    def walk(game: Game, depth: int) -> int:
        legal = game.legal_moves()
        assert {str(m) for m in legal} == reference_moves(game)
        if depth == 0:
            return 1
        total = 0
        for move in legal:
            game.play(move)
            total += walk(game, depth - 1)
            game.undo()
        return total

    assert walk(Game.deal(seed, "hard"), 3) == PERFT[seed, "hard"]["paths"][2]
