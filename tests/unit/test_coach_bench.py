"""The coach's benchmark plays its games and reports, per kind, the steps decided and the time."""

from __future__ import annotations

import re

import pytest

from race.cli import main


def test_bench_coach_reports_each_kind_of_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench-coach", "--medium", "2", "--hard", "0", "--mistakes", "1", "--moves", "30", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^(.+): (\d+) games, steps decided (\d+)/(\d+) \(([\d.]+)%\)", out, re.M)
    assert [(name, int(n)) for name, n, *_ in rows] == [
        ("medium, random player", 2),
        ("medium, solver's line with mistakes", 1),
    ]
    for _, _, decided, steps, _ in rows:
        assert 0 <= int(decided) <= int(steps)
    assert "CPU s per game: median" in out
    kept = [int(k) for k in re.findall(r"games with 95% of the steps up to the slip decided (\d+)/", out)]
    assert len(kept) == 2 and kept[0] <= 2 and kept[1] <= 1
