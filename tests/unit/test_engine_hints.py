"""The hint that makes progress (race.engine.hints): never back to a position reached, the
rule book's order among the rest, and the way out when nothing leads anywhere new."""

from __future__ import annotations

import pytest

from race.engine import Game, Move
from race.engine.hints import Trail, advise, position_hash, replayed
from race.rooms.model import Meta, Seat
from race.rooms.standing import ranking


def follow(seed: int, difficulty: str, actions: int) -> tuple[Game, list[str], set[int], list[str | None]]:
    """Follow the hint and its ways out for ``actions`` actions (or to the end)."""
    game = Game.deal(seed, difficulty)
    seen = {position_hash(game)}
    done: list[str] = []
    ways: list[str | None] = []
    for _ in range(actions):
        advice = advise(game, seen)
        if not advice.progress:
            ways.append(advice.way_out)
        if advice.move is not None:
            game.play(advice.move)
            assert position_hash(game) not in seen, f"{advice.move} went back to a position reached before"
            done.append(str(advice.move))
        elif advice.way_out == "undo":
            game.undo()
            done.append("undo")
        else:
            break
        seen.add(position_hash(game))
        if game.is_won:
            break
    return game, done, seen, ways


def test_the_rule_books_hint_where_nothing_was_reached_yet() -> None:
    for seed in range(1, 30):
        game = Game.deal(seed, "medium")
        advice = advise(game, {position_hash(game)})
        assert advice.move == game.hint() and advice.progress


def test_medium_deal_1_no_longer_goes_round_in_circles() -> None:
    # The rule book's hint: a club home and back again, after 88 moves.
    game = Game.deal(1, "medium")
    seen = {position_hash(game)}
    for _ in range(100):
        rule_books = game.hint()
        assert rule_books is not None
        game.play(rule_books)
        if position_hash(game) in seen:
            break
        seen.add(position_hash(game))
    else:
        raise AssertionError("the rule book's hint no longer loops on medium deal 1")
    # Followed with what has been reached, never a position twice (follow() checks), and the
    # dead ends are backed out of with undo.
    _, done, _, ways = follow(1, "medium", 400)
    assert len(done) == 400 and "undo" in done and set(ways) == {"undo"}


def test_the_shuffle_is_the_way_out_while_one_is_left() -> None:
    _, done, _, ways = follow(2, "medium", 60)  # (medium deal 2: no card move goes anywhere new at 42)
    assert "shuffle" in ways and "shuffle" in done


def test_no_way_out_when_every_move_leads_back_and_there_is_nothing_to_undo() -> None:
    game = Game.deal(3, "hard")
    game.shuffles_left = 0

    def around(here: Game) -> set[int]:
        """The position and every one a move leads to."""
        out = {position_hash(here)}
        for move in here.legal_moves():
            here.play(move)
            out.add(position_hash(here))
            here.undo()
        return out

    assert tuple(advise(game, around(game))) == (None, False, None)
    game.play(game.legal_moves()[0])
    assert tuple(advise(game, around(game))) == (None, False, "undo")


def test_a_trail_extended_in_steps_is_the_whole_replay() -> None:
    _, done, seen, _ = follow(1, "medium", 150)
    trail = Trail(1, "medium")
    for i in range(0, len(done), 7):
        trail.extend(done[i : i + 7])
    game, whole = replayed(1, "medium", done)
    assert trail.actions == len(done) and trail.seen == whole == seen
    assert position_hash(trail.game) == position_hash(game)
    restarted = Trail(1, "medium")
    restarted.extend([*done[:3], "restart", done[0]])
    assert len(restarted.seen) == 4 and not restarted.game.move_stack[1:]
    assert restarted.game.move_stack == [Move.parse(done[0])]


def test_the_ranking_adds_the_penalty_of_each_hint() -> None:
    meta = Meta(code="C", difficulty="easy", deal=1, host="s1", created=0)
    game = Game.deal(1, "easy")
    fast = Seat(seat="s1", name="Ann", game={}, finished_ms=60_000, moves=100, hints=2)
    slow = Seat(seat="s2", name="Bob", game={}, finished_ms=80_000, moves=100)
    rows = ranking([(fast, game), (slow, game)], hint_penalty_ms=15_000)
    assert [(r["name"], r["place"], r["time_ms"], r["penalty_ms"]) for r in rows] == [
        ("Bob", 1, 80_000, 0),
        ("Ann", 2, 90_000, 30_000),
    ]
    free = ranking([(fast, game), (slow, game)])
    assert [(r["name"], r["hints"], r["time_ms"]) for r in free] == [("Ann", 2, 60_000), ("Bob", 0, 80_000)]
    assert meta.hints == "penalty"


def test_bench_hints_counts_loops_and_wins(capsys: pytest.CaptureFixture[str]) -> None:
    from race.cli import main

    assert main(["bench-hints", "--deals", "3", "--cap", "150"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith(("the rule", "making"))]
    rows = {line[:22].strip(): line[22:].split() for line in lines}
    # Medium deals 1-3: the rule book's hint loops on all three within 150 actions; the
    # progress hint on none.
    assert rows["the rule book's"][0] == "3" and rows["making progress"][0] == "0"
    assert "a hint on a game of 2000 actions" in out
