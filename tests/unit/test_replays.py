"""The replay view: a page that applies each step's changes to the board gets, at every
step, exactly the engine's board after that action."""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from race.rooms.record import Record, Result, gaps_of, kept_back, replay
from race.rooms.replays import replay_view
from race.rooms.standing import board
from tests.support.winning_lines import winning_line


def apply(brd: dict[str, Any], step: dict[str, Any]) -> dict[str, Any]:
    """What the page does with a step (and nothing more)."""
    out = copy.deepcopy(brd)
    for i, pile in step.get("piles", {}).items():
        out["piles"][int(i)] = pile
    out["foundations"].update(step.get("foundations", {}))
    out["shuffles_left"] = step.get("shuffles_left", out["shuffles_left"])
    out["home"] = step["home"]
    return out


def test_applying_each_step_gives_the_engines_board_after_it() -> None:
    line = winning_line(5, "medium")
    acts = (line[0], "undo", "shuffle", "restart", *line)
    rec = Record(
        id="r",
        deal=5,
        difficulty="medium",
        name="Ann",
        started=0,
        acts=acts,
        gaps=gaps_of([500 * (n + 1) for n in range(len(acts))]),
        result=Result(home=104, moves=len(line) + 2, finished_ms=500 * len(acts)),
    )
    view = replay_view(rec)
    assert msgspec.json.decode(msgspec.json.encode(view)) == view  # plain JSON
    shown = view["board"]
    for n, step in enumerate(view["steps"], 1):
        shown = apply(shown, step)
        expected = board(replay(msgspec.structs.replace(rec, acts=acts[:n], gaps=rec.gaps[:n])))
        assert {k: shown[k] for k in expected} == expected, f"step {n} ({step['act']})"
        assert step["at"] == 500 * n
    assert shown["home"] == 104 and view["result"]["won"]
    # Its moves as the ranking counted them: every move played, undone or not; no undo, no restart.
    assert view["result"]["moves"] == len(line) + 2
    # A game kept when the record counted every action says the same.
    older = msgspec.structs.replace(rec, result=msgspec.structs.replace(rec.result, moves=len(acts)))
    assert replay_view(older)["result"]["moves"] == len(line) + 2
    assert "piles" in view["steps"][2] and len(view["steps"][2]["piles"]) > 2  # a shuffle turns many piles


def test_a_step_carries_only_what_changed() -> None:
    line = winning_line(5, "medium")
    rec = Record(
        id="r",
        deal=5,
        difficulty="medium",
        name="Ann",
        started=0,
        acts=tuple(line),
        gaps=tuple([400] * len(line)),
        result=Result(home=104, moves=len(line), finished_ms=400 * len(line)),
    )
    view = replay_view(rec)
    size = len(msgspec.json.encode(view["steps"]))
    every_board = len(msgspec.json.encode(view["board"])) * len(line)  # were each step a whole board
    assert size < every_board / 3, (size, every_board)


def test_a_daily_game_is_secret_until_its_day_is_over() -> None:
    daily = Record(
        id="x",
        deal="daily:2026-12-03:easy:1",
        difficulty="easy",
        name="Ann",
        started=0,
        acts=(),
        gaps=(),
        result=Result(home=8, moves=0),
        kind="daily",
        daily_date="2026-12-03",
    )
    assert kept_back(daily, "2026-12-03")
    assert not kept_back(daily, "2026-12-04")
    race = msgspec.structs.replace(daily, kind="race", daily_date=None, deal=5)
    assert not kept_back(race, "2026-12-03")
    on_the_daily_deal = msgspec.structs.replace(daily, kind="race", daily_date=None)  # a ghost race, say
    assert kept_back(on_the_daily_deal, "2026-12-03") and not kept_back(on_the_daily_deal, "2026-12-04")
