"""The engine benchmark command runs and reports every figure (no timing is asserted)."""

from __future__ import annotations

import pytest

from race.cli import main
from race.commands.bench_engine import record_games


def test_bench_engine_reports_every_rate_and_the_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--games", "2", "--repeat", "1", "--max-moves", "40"]) == 0
    out = capsys.readouterr().out
    for name in ["legal_moves()", "play()", "play() + undo()", "push() + undo()", "baseline"]:
        assert name in out
    assert out.count("x baseline") == 4


def test_bench_engine_games_are_deterministic() -> None:
    first, second = record_games(3, 7, "hard", 60), record_games(3, 7, "hard", 60)
    assert [(r.seed, r.moves) for r in first] == [(r.seed, r.moves) for r in second]


def test_bench_engine_rejects_zero_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-engine", "--games", "0"]) == 2
    assert "at least 1" in capsys.readouterr().out
