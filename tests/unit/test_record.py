"""A game's record: replayed through the engine it gives the result it claims, or it is refused;
its stored form is compact and reads back as it was written."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from race.engine import Game
from race.rooms.record import (
    RESTART,
    UNDO,
    Record,
    RecordError,
    Result,
    check,
    decode,
    encode,
    gaps_of,
    new_id,
    plays,
    replay,
    steps,
)
from tests.support.winning_lines import winning_line


def played(deal: int, difficulty: str, rnd: random.Random, n: int) -> tuple[list[str], Game]:
    """``n`` random accepted actions (moves, undos, restarts) from the deal, and the game after them."""
    game, acts = Game.deal(deal, difficulty), []
    for _ in range(n):
        roll = rnd.random()
        if roll < 0.15 and game.move_stack:
            game.undo()
            acts.append(UNDO)
        elif roll < 0.17:
            game.restart()
            acts.append(RESTART)
        else:
            moves = game.legal_moves()
            if not moves:
                break
            acts.append(str(game.play(rnd.choice(moves))))
    return acts, game


def record_of(deal: int, difficulty: str, acts: list[str], game: Game, times: list[int]) -> Record:
    won = game.is_won
    result = Result(home=game.cards_on_foundations, moves=plays(acts), finished_ms=times[-1] if won else None)
    return Record(
        id=new_id(), deal=deal, difficulty=difficulty, name="Ann", started=1_700_000_000_000,
        acts=tuple(acts), gaps=gaps_of(times), result=result, room="ABCDE",
    )  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    deal=st.integers(1, 10**6),
    difficulty=st.sampled_from(["easy", "medium", "hard"]),
    seed=st.integers(0, 2**32),
    n=st.integers(0, 120),
)
def test_a_played_game_checks_and_reads_back(deal: int, difficulty: str, seed: int, n: int) -> None:
    rnd = random.Random(seed)
    acts, game = played(deal, difficulty, rnd, n)
    times = sorted(rnd.randrange(0, 600_000) for _ in acts)
    rec = record_of(deal, difficulty, acts, game, times)
    assert check(rec).position_key() == game.position_key()
    assert decode(encode(rec)) == rec
    assert [s.at for s in steps(rec)] == times == rec.times


def test_a_won_game_of_about_150_actions_is_a_couple_of_kilobytes() -> None:
    line = winning_line(5, "medium")
    game = Game.deal(5, "medium")
    for move in line:
        game.play(move)
    times = [2_345 * (i + 1) for i in range(len(line))]
    rec = record_of(5, "medium", line, game, times)
    assert check(rec).is_won and rec.result.won
    assert len(line) > 100
    assert len(encode(rec)) < 16 * len(line) + 300  # 2.7 KB at 150 actions


def test_each_step_is_the_engine_s_game_after_that_action() -> None:
    rnd = random.Random(7)
    acts, _ = played(11, "hard", rnd, 60)
    rec = record_of(11, "hard", acts, replay_game(11, "hard", acts), list(range(1, len(acts) + 1)))
    for step in steps(rec):
        assert step.game.position_key() == replay_game(11, "hard", acts[: step.number]).position_key()
        assert step.act == acts[step.number - 1]


def replay_game(deal: int, difficulty: str, acts: list[str]) -> Game:
    game = Game.deal(deal, difficulty)
    for act in acts:
        if act == UNDO:
            game.undo()
        elif act == RESTART:
            game.restart()
        else:
            game.play(act)
    return game


@pytest.fixture
def good() -> Record:
    line = winning_line(5, "medium")
    game = replay_game(5, "medium", line)
    return record_of(5, "medium", line, game, [1_000 * (i + 1) for i in range(len(line))])


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"result": Result(home=103, moves=0)}, "moves"),
        ("home", "cards home"),
        ("unwon", "disagree on the win"),
        ("late", "finishes at its last action"),
        ("dropped", "actions but"),
        ("swapped", "illegal move"),
        ("garbled", "invalid move"),
        ("back", "must not go back"),
        ({"deal": -1}, "bad deal"),
        ({"difficulty": "extreme"}, "bad deal"),
        ({"format": 2}, "format"),
    ],
)
def test_a_record_its_actions_do_not_bear_out_is_refused(good: Record, change: object, says: str) -> None:
    r, acts = good.result, list(good.acts)
    if isinstance(change, dict):
        bad = msgspec.structs.replace(good, **change)
    elif change == "home":
        bad = msgspec.structs.replace(good, result=msgspec.structs.replace(r, home=r.home - 1))
    elif change == "unwon":
        bad = msgspec.structs.replace(good, result=msgspec.structs.replace(r, finished_ms=None))
    elif change == "late":
        bad = msgspec.structs.replace(good, result=msgspec.structs.replace(r, finished_ms=r.finished_ms + 1))  # type: ignore[operator]
    elif change == "dropped":
        bad = msgspec.structs.replace(good, acts=tuple(acts[:-1]))
    elif change == "swapped":
        acts[0], acts[-1] = acts[-1], acts[0]
        bad = msgspec.structs.replace(good, acts=tuple(acts))
    elif change == "garbled":
        bad = msgspec.structs.replace(good, acts=("p99>uH", *acts[1:]))
    else:
        bad = msgspec.structs.replace(good, gaps=(5, -1, *good.gaps[2:]))
    with pytest.raises(RecordError, match=says):
        check(bad)


@pytest.mark.parametrize("data", [b"", b"{}", b"[1,2]", b'{"id":1}', b"\xff"])
def test_stored_data_of_another_shape_is_refused(data: bytes) -> None:
    with pytest.raises(RecordError, match="not a game record"):
        decode(data)


def test_an_empty_record_is_the_deal() -> None:
    rec = Record(
        id="x", deal=9, difficulty="hard", name="A", started=0, acts=(), gaps=(), result=Result(home=8, moves=0)
    )
    assert check(rec) == Game.deal(9, "hard")
    assert replay(rec) == Game.deal(9, "hard")
