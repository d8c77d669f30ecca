"""The tutorial's position and lessons (race.rooms.tutorial): a real game of the engine, whose
lessons each offer one legal move and whose last, free lesson the engine's moves win."""

from __future__ import annotations

from race.engine import Game
from race.rooms import tutorial


def test_the_position_is_a_real_game_that_the_lessons_win() -> None:
    game = Game.from_dict(tutorial.position())  # checked as any saved game: 104 cards, two of each
    assert game.cards_on_foundations == 94 and sum(map(len, game.piles)) == 10
    for k, move in enumerate(tutorial.LINE):
        assert tutorial.offered(game, k) == [move] and tutorial.lesson(game, k)["move"] == move
        game.play(move)
    played = len(tutorial.LINE)
    while not game.is_won:  # the last lesson is free: the engine's own moves win it
        assert tutorial.lesson(game, played)["move"] is None
        hint = tutorial.hint(game, played)
        assert hint is not None
        game.play(hint)
        played += 1
    assert tutorial.lesson(game, played)["won"]


def test_a_lesson_refuses_only_legal_moves_it_does_not_teach() -> None:
    game = tutorial.start()
    assert tutorial.refusal(game, 0, "p1>uH") is None
    assert "asks for p1>uH" in (tutorial.refusal(game, 0, "p3>p4") or "")
    assert tutorial.refusal(game, 0, "p3>uC") is None  # illegal: the engine's to refuse
    assert tutorial.refusal(game, 0, "nonsense") is None
    assert str(tutorial.hint(game, 0)) == "p1>uH"
