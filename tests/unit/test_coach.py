"""The coach: a verdict for each step of a game. Every ``win`` verdict's line replays through the
engine to a win, and every ``lost`` one is checked by a second exhaustive search written for the
tests (:func:`tests.support.slips.winnable`), on positions small enough for it."""

from __future__ import annotations

import random

from race.engine import Game
from race.solver.coach import LOST, UNKNOWN, WIN, Limits, analyse, expand, shortened
from tests.support.slips import hearts_left, lost_game, small_position, winnable
from tests.support.winning_lines import winning_line

QUICK = Limits(game=1_000_000, win=100_000, proof=50_000)


def positions(start: Game, acts: tuple[str, ...] | list[str]) -> list[Game]:
    game, out = start.copy(), [start.copy()]
    for act in acts:
        if act == "undo":
            game.undo()
        elif act == "restart":
            game.restart()
        else:
            game.play(act)
        out.append(game.copy())
    return out


def check_verdicts(start: Game, acts: tuple[str, ...] | list[str], limits: Limits = QUICK) -> dict[str, int]:
    """Analyse the game and check every verdict: each win's stored line (followed and cut of its
    loops) replays to a win from its step; each loss, where the plain search can decide, is a
    loss there too."""
    analysis = analyse(start, acts, limits)
    stored = analysis.as_dict()["steps"]
    counts: dict[str, int] = {WIN: 0, LOST: 0, UNKNOWN: 0}
    for k, (step, game) in enumerate(zip(analysis.steps, positions(start, acts), strict=True)):
        counts[step.verdict] += 1
        if step.verdict == WIN:
            line = shortened(game, expand(stored, k))
            assert len(line) == step.moves
            replay = game.copy()
            for move in line:
                replay.play(move)
            assert replay.is_won, k
        elif step.verdict == LOST:
            assert winnable(game) in (False, None), k
    return counts


def test_a_won_game_is_won_at_every_step_and_has_no_slip() -> None:
    line = winning_line(5, "medium")
    acts = [*line[:10], line[10], "undo", *line[10:20], "restart", *line]
    start = Game.deal(5, "medium")
    analysis = analyse(start, acts, QUICK)
    assert analysis.won and analysis.slip is None
    assert all(step.verdict == WIN for step in analysis.steps)
    assert analysis.steps[-1].moves == 0 and analysis.steps[0].line is not None
    assert analysis.solver_moves == len(analysis.steps[0].line or ())
    assert check_verdicts(start, acts) == {WIN: len(acts) + 1, LOST: 0, UNKNOWN: 0}


def test_the_slip_lands_on_the_move_that_lost_the_win() -> None:
    acts, slip = lost_game(5, "medium")
    start = Game.deal(5, "medium")
    analysis = analyse(start, acts, QUICK)
    assert not analysis.won
    assert analysis.slip == slip and analysis.slip_proven
    assert analysis.as_dict()["slip"] == {"step": slip, "act": acts[slip], "proven": True}
    assert [s.verdict for s in analysis.steps[: slip + 1]] == [WIN] * (slip + 1)
    assert all(s.verdict == LOST for s in analysis.steps[slip + 1 :])
    for game in positions(start, acts)[slip + 1 :]:
        assert winnable(game) is False
    check_verdicts(start, acts)


def test_small_positions_every_verdict_agrees_with_a_plain_exhaustive_search() -> None:
    rng = random.Random(46)
    seen = {WIN: 0, LOST: 0, UNKNOWN: 0}
    for _ in range(30):
        start = small_position(rng)
        game, acts = start.copy(), []
        for _ in range(rng.randint(0, 8)):
            moves = game.legal_moves()
            if not moves:
                break
            acts.append(str(game.play(rng.choice(moves))))
        analysis = analyse(start, acts, QUICK)
        for step, position in zip(analysis.steps, positions(start, acts), strict=True):
            truth = winnable(position)
            if truth is None:  # too big for the plain search
                continue
            assert step.verdict == (WIN if truth else LOST)  # small: all decided, and rightly
            seen[step.verdict] += 1
        for k, (step, position) in enumerate(zip(analysis.steps, positions(start, acts), strict=True)):
            if step.verdict == WIN:
                replay = position.copy()
                for move in shortened(position, expand(analysis.as_dict()["steps"], k)):
                    replay.play(move)
                assert replay.is_won
    assert seen[WIN] > 10 and seen[LOST] > 10


def test_a_budget_too_small_says_unknown_never_lost() -> None:
    start = Game.deal(1, "hard")
    line = [str(start.legal_moves()[0])]
    analysis = analyse(start, line, Limits(game=3_000, win=1_000, proof=1_000))
    assert {s.verdict for s in analysis.steps} == {UNKNOWN}
    assert analysis.slip is None and analysis.nodes <= 3_000 + 1_000


def test_a_suit_that_cannot_be_completed_proves_the_loss_alone() -> None:
    """Hearts' King lies on the Queen it waits for, no shuffle left; the spades can still move
    (so no search ends for want of moves). With no budget for a win or the depth-first
    proof, the suit's own game proves the loss; without that either, nothing is known."""
    start = hearts_left([[11, 12]], 0, spades=[[11], [12]])
    assert start.legal_moves()  # (hearts alone are lost by a plain search: test_suits.py)
    assert analyse(start, [], Limits(win=1, proof=0)).steps[0].verdict == LOST
    assert analyse(start, [], Limits(win=1, proof=0, suit=0)).steps[0].verdict == UNKNOWN
