import pytest

from race.cli import main


def test_deal_command_prints_sixteen_piles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", "42", "--difficulty", "hard"]) == 0
    out = capsys.readouterr().out
    assert "shuffles left: 3" in out
    assert sum(1 for line in out.splitlines() if line.startswith("p")) == 16


def test_deal_command_rejects_bad_difficulty(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        main(["deal", "42", "--difficulty", "nightmare"])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("argparse accepted a bad difficulty")
