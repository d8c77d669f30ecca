"""The record-size benchmark plays games that replay as recorded, and reports their sizes."""

from __future__ import annotations

import random
import re

import pytest

from race.cli import main
from race.commands.bench_records import play
from race.rooms.record import check, encode


def test_bench_records_reports_sizes_per_game_and_per_action(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-records", "--games", "30", "--min-moves", "140", "--max-moves", "160"]) == 0
    out = capsys.readouterr().out
    median = re.search(r"bytes per game: median ([\d,]+), p99 ([\d,]+), largest ([\d,]+)", out)
    assert median, out
    low, p99, top = (int(g.replace(",", "")) for g in median.groups())
    assert 0 < low <= p99 <= top
    assert "games of 140-160 actions: median" in out


def test_a_benchmark_game_replays_to_its_own_result_the_same_every_run() -> None:
    first, second = play(random.Random(3), 42, "hard", 120), play(random.Random(3), 42, "hard", 120)
    assert (first.acts, first.gaps) == (second.acts, second.gaps)
    assert len(first.acts) == 120 and check(first).cards_on_foundations == first.result.home
    assert len(encode(first)) < 120 * 30  # compact: a few KB for a long game


def test_bench_records_rejects_an_empty_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-records", "--games", "0"]) == 2
    assert "at least 1" in capsys.readouterr().out
