"""What holds of every game, whatever was played: the engine's property tests and the
fuzzing of the server check each position against it."""

from __future__ import annotations

from collections import Counter

from race.engine import RANKS, SUITS, Game

TWO_OF_EACH = Counter({r + s: 2 for s in SUITS for r in RANKS})


def check_invariants(game: Game) -> None:
    cards = Counter(str(c) for pile in game.piles for c in pile)
    cards.update(str(c) for fnd in game.foundations.values() for c in fnd)
    assert cards == TWO_OF_EACH  # 104 cards, two of each
    assert len(game.piles) == 16
    for key, fnd in game.foundations.items():
        suit, step = key[1], 1 if key[0] == "u" else -1
        base = 1 if step == 1 else 13
        assert 1 <= len(fnd) <= 13
        assert [c.suit for c in fnd] == [suit] * len(fnd)
        assert [c.rank for c in fnd] == [base + step * i for i in range(len(fnd))]
    spent = sum(m.is_shuffle for m in game.move_stack)
    assert game.shuffles_left == game.allowance - spent >= 0
    legal = game.legal_moves()
    assert len(set(legal)) == len(legal)
    assert game.is_won == (game.cards_on_foundations == 104)
    assert game.is_stuck == (not game.is_won and not legal)
    if game.is_won:
        assert legal == []
    hint = game.hint()
    assert (hint is None) == (not legal)
    assert hint is None or hint in legal
