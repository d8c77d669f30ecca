"""Game.from_trusted_dict: the server's unchecked restore gives exactly what from_dict gives."""

from __future__ import annotations

import random

import pytest

from race.engine import Game, Move


def random_game(seed: int, moves: int) -> Game:
    rng = random.Random(seed)
    game = Game.deal(seed, rng.choice(["easy", "medium", "hard"]))
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            if not game.move_stack:
                break
            game.undo()
            continue
        game.play(rng.choice(legal))
    return game


@pytest.mark.parametrize("seed", range(20))
def test_trusted_restore_equals_checked_restore(seed: int) -> None:
    game = random_game(seed, 40 * seed)
    saved = game.to_dict()
    trusted = Game.from_trusted_dict(saved)
    assert trusted == Game.from_dict(saved) == game
    assert trusted.to_dict() == saved
    assert trusted.legal_moves() == game.legal_moves()
    if game.move_stack:
        assert trusted.undo() == game.undo()
        assert trusted == game


def test_trusted_restore_is_independent_of_the_saved_dict() -> None:
    saved = random_game(3, 30).to_dict()
    game = Game.from_trusted_dict(saved)
    before = {**saved, "piles": [list(p) for p in saved["piles"]], "history": list(saved["history"])}
    game.play(game.legal_moves()[0])
    game.restart()
    assert saved == before


def test_trusted_restore_refuses_another_format() -> None:
    saved = Game.deal(1).to_dict()
    with pytest.raises(ValueError):
        Game.from_trusted_dict({**saved, "format": 2})


def test_move_text_is_cached_and_unchanged() -> None:
    for text in ["p3>uH", "p3>p12", "dH>p5", "shuffle", "uS>dS"]:
        move = Move.parse(text)
        assert str(move) == text
        assert repr(move) == f"Move.parse({text!r})"
    assert str(Move(3, 12)) == "p3>p12"
    assert str(Move("dH", 5)) == "dH>p5"
    assert str(Move.shuffle()) == "shuffle"


def test_to_dict_without_history_is_the_position_alone() -> None:
    game = random_game(4, 120)
    assert game.move_stack
    position = game.to_dict(history=False)
    assert position == {**game.to_dict(), "history": []}
    texts = [str(m) for m in game.move_stack]
    assert game.history_texts() == texts and game.history_texts(100) == texts[100:]
    assert Game.from_trusted_dict(position).position_key() == game.position_key()
    assert Game.from_dict({**position, "history": texts}) == game
