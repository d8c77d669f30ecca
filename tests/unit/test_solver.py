"""The solver: winning lines replay, "unsolvable" agrees with a brute-force search, every pruning
rule is sound, pinned deals keep their results, and the CLI commands work."""

from __future__ import annotations

import functools
import gc
import random
import subprocess
import sys
from typing import Any

import pytest

from race import solver
from race.engine import Game
from race.engine.tables import TOP
from race.solver import BEAM_NODES_PER_WIDTH, WIDTHS, Solution, solve
from race.solver.position import (
    FND_HASH,
    GIVE,
    PILE,
    SHUFFLE,
    SHUFFLE_MOVE,
    TO_FND,
    Piles,
    apply,
    is_reversal,
    move_text,
    ordered_moves,
    position_hash,
    position_key,
    reversal,
    unapply,
)
from race.solver.scoring import SCORERS, Scorer, make_scorer
from race.solver.search import EXHAUSTED, WON, Budget, beam, dfs
from race.solver.stats import percentile, wilson
from tests.support.slips import winnable


def replays_to_win(game: Game, moves: list[str]) -> bool:
    replay = game.copy()
    for move in moves:
        replay.play(move)
    return replay.is_won


#: The plain exhaustive search (tests/support/slips.py), with no bound unless given one.
brute_force_winnable = functools.partial(winnable, limit=None)


def small_position(rng: random.Random, off: int, shuffles: int, piles_used: int) -> Game:
    """A position with ``off`` cards of one or two suits off the foundations, spread over
    ``piles_used`` piles (the other suits are complete, so give-backs stay few)."""
    game = Game.deal(1, "easy")
    fnd = [13] * 8
    cards: list[int] = []
    suits = rng.sample(range(4), rng.choice((1, 1, 2)))
    while len(cards) < off:
        f = rng.choice(suits) + rng.choice((0, 4))
        if fnd[f] > 1:
            cards.append(TOP[f][fnd[f]])
            fnd[f] -= 1
    rng.shuffle(cards)
    piles: list[list[int]] = [[] for _ in range(16)]
    chosen = rng.sample(range(16), piles_used)
    for i, c in enumerate(cards):
        piles[chosen[i % piles_used] if i < piles_used else rng.choice(chosen)].append(c)
    game._piles = piles
    game._fnd = fnd
    game.shuffles_left = shuffles
    return game


def random_positions(count: int, seed: int) -> list[Game]:
    rng = random.Random(seed)
    return [
        small_position(rng, off=rng.randint(3, 8), shuffles=rng.randint(0, 2), piles_used=rng.randint(1, 4))
        for _ in range(count)
    ]


# -- the API -------------------------------------------------------------------------


def test_solve_wins_an_easy_deal_with_a_line_that_replays_to_a_win() -> None:
    game = Game.deal(3, "easy")
    solution = solve(game, time_limit=None, node_limit=50_000)
    assert isinstance(solution, Solution)
    assert solution.status == "won"
    assert replays_to_win(game, solution.moves)
    assert solution.nodes > 0 and solution.seconds >= 0


def test_solve_does_not_modify_the_callers_game() -> None:
    game = Game.deal(5, "medium")
    game.play(game.hint())  # type: ignore[arg-type]
    before = game.to_dict()
    solve(game, time_limit=None, node_limit=20_000)
    assert game.to_dict() == before


def test_solve_starts_from_the_current_position_not_the_deal() -> None:
    game = Game.deal(3, "easy")
    for _ in range(10):
        game.play(game.hint())  # type: ignore[arg-type]
    solution = solve(game, time_limit=None, node_limit=50_000)
    assert solution.status == "won"
    assert replays_to_win(game, solution.moves)


def test_an_already_won_position_is_won_with_an_empty_line() -> None:
    game = small_position(random.Random(1), off=0, shuffles=0, piles_used=1)
    assert game.is_won
    solution = solve(game)
    assert (solution.status, solution.moves) == ("won", [])


def test_a_spent_node_limit_gives_unknown_never_a_guess() -> None:
    solution = solve(Game.deal(1, "hard"), time_limit=None, node_limit=2_000)
    assert solution.status == "unknown"
    assert solution.moves == []
    assert solution.nodes >= 2_000


def test_a_shared_budget_counts_on_and_stops_at_the_smaller_limit() -> None:
    whole = Budget(None, 1_000)
    whole.nodes = 300
    part = whole.share(500)
    assert (part.nodes, part.node_limit, part.deadline) == (300, 800, None)
    part.nodes = 800
    assert part.spent() and not whole.spent()
    assert whole.share(5_000).node_limit == 1_000  # never past the whole budget
    assert Budget(None, None).share(10).node_limit == 10


def test_each_heuristic_gets_its_turn_within_the_budget() -> None:
    # Medium deal 637: some heuristics' beams wander for hundreds of thousands of nodes without
    # winning (uncapped, the one that first did took the whole budget of three million nodes)
    # while others win at width 48 within about 60,000.
    game = Game.deal(637, "medium")
    solution = solve(game, time_limit=None, node_limit=1_000_000)
    assert solution.status == "won"
    assert replays_to_win(game, solution.moves)


def test_every_beam_is_capped_and_the_heuristics_take_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    turns: list[tuple[int, int, Scorer]] = []

    def recording_beam(piles: Piles, fnd: list[int], shuffles: int, width: int, budget: Budget, **kw: Any) -> Any:
        assert budget.node_limit is not None
        turns.append((width, budget.node_limit - budget.nodes, kw["scorer"]))
        return beam(piles, fnd, shuffles, width, budget, **kw)

    monkeypatch.setattr(solver, "beam", recording_beam)
    rounds = len(SCORERS) * WIDTHS[0] * BEAM_NODES_PER_WIDTH
    solution = solve(Game.deal(14, "hard"), time_limit=None, node_limit=rounds + 200_000)
    assert solution.status == "unknown"  # so every turn below ran out of its share
    assert [t[2] for t in turns[: len(SCORERS) + 1]] == [*SCORERS, SCORERS[0]]
    assert [t[0] for t in turns[: len(SCORERS) + 1]] == [WIDTHS[0]] * len(SCORERS) + [WIDTHS[1]]
    assert all(allowed <= width * BEAM_NODES_PER_WIDTH for width, allowed, _ in turns)


def test_the_cyclic_collector_is_paused_while_searching_and_restored_after(monkeypatch: pytest.MonkeyPatch) -> None:
    during: list[bool] = []

    def recording_beam(*args: Any, **kw: Any) -> Any:
        during.append(gc.isenabled())
        return beam(*args, **kw)

    monkeypatch.setattr(solver, "beam", recording_beam)
    gc.collect()
    assert solve(Game.deal(14, "hard"), time_limit=None, node_limit=150_000).status == "unknown"
    assert during and not any(during)
    assert gc.isenabled()
    gc.disable()
    try:
        solve(Game.deal(3, "easy"), time_limit=None, node_limit=50_000)
        assert not gc.isenabled()  # a caller's choice is left as it was
    finally:
        gc.enable()


# The count runs in an interpreter of its own: in this one, other threads (a test runner's
# worker channel, what earlier tests left running) may make cycles while the collector is off.
CYCLES_LEFT_BY_A_SEARCH = """
import gc
from race.engine import Game
from race.solver import solve
gc.collect()
assert solve(Game.deal(14, "hard"), time_limit=None, node_limit=150_000).status == "unknown"
print(gc.collect())
"""


def test_the_search_makes_no_reference_cycles_for_the_paused_collector_to_miss() -> None:
    run = subprocess.run([sys.executable, "-c", CYCLES_LEFT_BY_A_SEARCH], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["0"]


def test_a_short_time_limit_gives_unknown_on_a_hard_deal() -> None:
    solution = solve(Game.deal(1, "hard"), time_limit=0.2)
    assert solution.status == "unknown"
    assert solution.seconds < 2


# -- soundness against brute force ---------------------------------------------------


def test_solve_agrees_with_brute_force_on_small_positions_and_its_lines_win() -> None:
    statuses = set()
    for game in random_positions(120, seed=7):
        expected = brute_force_winnable(game)
        solution = solve(game, time_limit=None, node_limit=None)
        assert solution.status == ("won" if expected else "unsolvable"), game.to_dict()
        if expected:
            assert replays_to_win(game, solution.moves)
        statuses.add(solution.status)
    assert statuses == {"won", "unsolvable"}  # the sample exercises both answers


def test_depth_first_search_exhausts_exactly_the_unwinnable_small_positions() -> None:
    for game in random_positions(30, seed=11):
        piles = [bytes(p) for p in game._piles]
        result, line = dfs(piles, list(game._fnd), game.shuffles_left, Budget(None, None))
        assert result == (WON if brute_force_winnable(game) else EXHAUSTED)
        if result == WON:
            assert replays_to_win(game, [move_text(m) for m in line])


def test_an_untruncated_beam_proves_exactly_the_unwinnable_small_positions() -> None:
    checked = 0
    for game in random_positions(40, seed=13):
        piles, fnd, shuffles = [bytes(p) for p in game._piles], list(game._fnd), game.shuffles_left
        quick = dfs(piles, fnd, shuffles, Budget(None, 20_000))[0]
        if quick == "limit":
            continue  # too big for a quick breadth-first search
        result, line = beam(piles, fnd, shuffles, 10**9, Budget(None, 20_000))
        if not brute_force_winnable(game):
            assert result == EXHAUSTED
            checked += 1
        else:
            assert result != EXHAUSTED  # a breadth-first search may run out of nodes before the win
        if result == WON:
            assert replays_to_win(game, [move_text(m) for m in line])
    assert checked >= 5


def test_a_narrow_beam_that_drops_positions_never_claims_unsolvable() -> None:
    for game in random_positions(40, seed=17):
        if brute_force_winnable(game):
            continue
        piles = [bytes(p) for p in game._piles]
        result, _ = beam(piles, list(game._fnd), game.shuffles_left, 1, Budget(None, None))
        layer_sizes_fit = result == EXHAUSTED
        if layer_sizes_fit:  # only allowed when no depth had more than one new position
            result2, _ = dfs(piles, list(game._fnd), game.shuffles_left, Budget(None, None))
            assert result2 == EXHAUSTED


# -- each pruning rule ---------------------------------------------------------------


def test_the_compact_moves_are_exactly_the_engines_legal_moves() -> None:
    for game in random_positions(40, seed=19) + [Game.deal(s, "hard") for s in range(1, 6)]:
        piles = [bytes(p) for p in game._piles]
        ours = sorted(move_text(m) for m in ordered_moves(piles, list(game._fnd), game.shuffles_left))
        assert ours == sorted(str(m) for m in game.legal_moves())


def test_apply_and_unapply_match_the_engine_move_for_move() -> None:
    rng = random.Random(23)
    game = Game.deal(42, "easy")
    piles, fnd, shuffles = [bytes(p) for p in game._piles], list(game._fnd), game.shuffles_left
    for _ in range(300):
        moves = ordered_moves(piles, fnd, shuffles)
        if not moves:
            break
        move = rng.choice(moves)
        before = ([bytes(p) for p in piles], list(fnd))
        apply(piles, fnd, move)
        unapply(piles, fnd, move)
        assert ([bytes(p) for p in piles], list(fnd)) == before
        shuffles += apply(piles, fnd, move)
        game.play(move_text(move))
        assert [list(p) for p in piles] == game._piles and fnd == game._fnd
        assert shuffles == game.shuffles_left


def test_the_reversal_rule_prunes_only_moves_that_restore_the_previous_position() -> None:
    rng = random.Random(29)
    pruned = 0
    for seed in range(1, 40):
        game = Game.deal(seed, "easy")
        piles, fnd = [bytes(p) for p in game._piles], list(game._fnd)
        for _ in range(60):
            moves = [m for m in ordered_moves(piles, fnd, 9) if m[0] != SHUFFLE]
            if not moves:
                break
            prev = rng.choice(moves)
            start = (list(piles), list(fnd))
            apply(piles, fnd, prev)
            for move in ordered_moves(piles, fnd, 9):
                if move[0] == SHUFFLE:
                    continue
                p2, f2 = list(piles), list(fnd)
                apply(p2, f2, move)
                restores = (p2, f2) == start
                assert is_reversal(prev, move, piles, fnd) == restores
                assert (reversal(prev) == move) == restores
                pruned += restores
    assert pruned > 100  # the rule does fire
    assert reversal(SHUFFLE_MOVE) is None


def test_the_sorted_pile_key_ignores_only_the_order_of_the_piles() -> None:
    rng = random.Random(31)
    for game in random_positions(30, seed=37) + [Game.deal(s, "medium") for s in range(1, 4)]:
        piles, fnd = [bytes(p) for p in game._piles], list(game._fnd)
        permuted = piles[:]
        rng.shuffle(permuted)
        assert position_key(permuted, fnd) == position_key(piles, fnd)
        other = list(fnd)
        if other[0] < 13:
            other[0] += 1
            assert position_key(piles, other) != position_key(piles, fnd)


def test_the_position_hash_ignores_the_order_of_the_piles_and_moves_update_it_by_what_they_change() -> None:
    rng = random.Random(47)
    for game in random_positions(30, seed=53) + [Game.deal(s, "hard") for s in range(1, 4)]:
        piles, fnd = [bytes(p) for p in game._piles], list(game._fnd)
        permuted = piles[:]
        rng.shuffle(permuted)
        assert position_hash(permuted, fnd) == position_hash(piles, bytes(fnd))
        for move in ordered_moves(piles, fnd, game.shuffles_left):
            p2, f2 = piles[:], fnd[:]
            apply(p2, f2, move)
            changed = position_hash(p2, f2) - position_hash(piles, fnd)
            if move[0] != SHUFFLE:
                assert changed == sum(map(hash, p2)) - sum(map(hash, piles)) + sum(
                    FND_HASH[f][n2] - FND_HASH[f][n] for f, (n, n2) in enumerate(zip(fnd, f2, strict=True))
                )
                assert changed != 0


def test_a_beam_keyed_by_hash_still_finds_the_wins_of_small_positions() -> None:
    # A tiny table overflows at once, so the beam (wide enough never to drop a position) keys
    # its table by the hashes it updates move by move: one that went wrong would prune
    # positions it must not, and miss wins.
    won = 0
    for game in random_positions(40, seed=13):
        piles, fnd, shuffles = [bytes(p) for p in game._piles], list(game._fnd), game.shuffles_left
        if dfs(piles, fnd, shuffles, Budget(None, 20_000))[0] != WON:
            continue
        result, line = beam(piles, fnd, shuffles, 10**9, Budget(None, 200_000), table_cap=20)
        assert result == WON
        assert replays_to_win(game, [move_text(m) for m in line])
        won += 1
    assert won >= 10


def test_permuting_the_piles_never_changes_the_answer() -> None:
    rng = random.Random(41)
    for game in random_positions(30, seed=43):
        twin = game.copy()
        order = list(range(16))
        rng.shuffle(order)
        twin._piles = [list(game._piles[i]) for i in order]
        a = solve(game, time_limit=None, node_limit=None)
        b = solve(twin, time_limit=None, node_limit=None)
        assert a.status == b.status != "unknown"
        if b.status == "won":
            assert replays_to_win(twin, b.moves)


def test_shuffle_dominance_more_shuffles_never_lose_a_win() -> None:
    # The rule "a position searched with at least as many shuffles left needs no new search"
    # rests on this: a line legal with s shuffles left is legal with s + 1.
    checked = 0
    for game in random_positions(60, seed=47):
        if game.shuffles_left < 2 and brute_force_winnable(game):
            richer = game.copy()
            richer.shuffles_left += 1
            won = brute_force_winnable(richer, limit=20_000)
            if won is None:
                continue  # too big to check by brute force quickly
            assert won
            assert solve(richer, time_limit=None, node_limit=100_000).status != "unsolvable"
            checked += 1
    assert checked >= 10


def test_a_win_that_needs_the_shuffle_is_found_and_lost_without_it() -> None:
    # Only spades are off: p0 holds 2S 4S 3S (3S on top), p1 holds 5S KS QS .. 6S (6S on top).
    # uS needs 2S and no pile top takes 3S or 6S, so the only way on is the shuffle, which
    # brings 2S to the top of p0 and 5S to the top of p1 (KS .. 6S 5S); then 2S 3S 4S and
    # 5S .. KS follow. Without the shuffle nothing moves.
    game = Game.deal(1, "easy")
    fnd = [13] * 8
    fnd[0] = 1
    piles: list[list[int]] = [[] for _ in range(16)]
    piles[0] = [1, 3, 2]
    piles[1] = [4, *range(12, 4, -1)]
    game._piles, game._fnd, game.shuffles_left = piles, fnd, 1
    assert brute_force_winnable(game)
    solution = solve(game, time_limit=None, node_limit=None)
    assert solution.status == "won" and "shuffle" in solution.moves
    assert replays_to_win(game, solution.moves)
    game.shuffles_left = 0
    assert not brute_force_winnable(game)
    assert solve(game, time_limit=None, node_limit=None).status == "unsolvable"


def test_wins_that_need_a_give_back_are_found() -> None:
    found = 0
    for game in random_positions(300, seed=53):
        if brute_force_winnable(game, give_backs=False) or not brute_force_winnable(game):
            continue
        solution = solve(game, time_limit=None, node_limit=None)
        assert solution.status == "won"
        assert replays_to_win(game, solution.moves)
        found += 1
    assert found >= 1


# -- pinned deals ----------------------------------------------------------------------

PINNED: list[tuple[int, str, str, int]] = [
    # (deal, difficulty, status, node limit): deterministic with a node limit and no time limit.
    (3, "easy", "won", 50_000),
    (5, "easy", "won", 50_000),
    (8, "easy", "won", 50_000),
    (5, "medium", "won", 50_000),
    (2, "medium", "won", 300_000),
    (12, "medium", "won", 400_000),
    (5, "hard", "won", 400_000),
]


@pytest.mark.parametrize(("seed", "difficulty", "status", "nodes"), PINNED)
def test_pinned_deals_keep_their_results(seed: int, difficulty: str, status: str, nodes: int) -> None:
    game = Game.deal(seed, difficulty)
    solution = solve(game, time_limit=None, node_limit=nodes)
    assert solution.status == status
    if status == "won":
        assert replays_to_win(game, solution.moves)


# -- statistics and the CLI ------------------------------------------------------------


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(10, 10)
    assert high == pytest.approx(1) and low == pytest.approx(0.7225, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_percentile_interpolates() -> None:
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([1.0, 2.0], 95) == pytest.approx(1.95)
    assert percentile([], 50) == 0.0


def test_solve_command_prints_status_nodes_time_and_line(capsys: pytest.CaptureFixture[str]) -> None:
    from race.cli import main

    assert main(["solve", "3", "--difficulty", "easy", "--time-limit", "10"]) == 0
    out = capsys.readouterr().out
    assert "won" in out and "nodes:" in out and "time:" in out
    line = out.strip().splitlines()[-1].split()
    assert replays_to_win(Game.deal(3, "easy"), line)


def test_winnability_command_counts_and_reports_intervals(capsys: pytest.CaptureFixture[str]) -> None:
    from race.cli import main

    assert main(["winnability", "--deals", "2", "--start", "3", "--difficulty", "easy", "--time-limit", "2"]) == 0
    captured = capsys.readouterr()
    assert "won " in captured.out and "unsolvable " in captured.out and "unknown " in captured.out
    assert "Wilson" in captured.out and "median" in captured.out and "p95" in captured.out
    assert "2/2" in captured.err  # the progress bar


def test_winnability_command_runs_jobs_in_parallel(capsys: pytest.CaptureFixture[str]) -> None:
    from race.cli import main

    args = ["winnability", "--deals", "2", "--start", "3", "--difficulty", "easy", "--time-limit", "2"]
    assert main([*args, "--jobs", "2"]) == 0
    assert "deals 3-4 (2)" in capsys.readouterr().out


def test_move_kinds_are_distinct() -> None:
    assert len({TO_FND, PILE, GIVE, SHUFFLE}) == 4


def test_a_beam_whose_table_overflows_still_only_wins_with_lines_that_replay() -> None:
    game = Game.deal(70, "hard")
    piles = [bytes(p) for p in game._piles]
    budget = Budget(None, 150_000)
    scorer = make_scorer(foundation=15)
    result, line = beam(piles, list(game._fnd), game.shuffles_left, 96, budget, table_cap=3_000, scorer=scorer)
    assert result == WON
    assert replays_to_win(game, [move_text(m) for m in line])
