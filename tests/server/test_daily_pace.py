"""A daily result is ranked only when it was played at a person's pace: bots at the rate
limit and at a fast but plausible pace are shown unverified, with the reason, and a game
at a person's pace is ranked; on the embedded store and on Redis, on the server's clock."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

import pytest

from race.daily import DailyChallenge, unverified_group
from race.rooms.pace import Pace
from race.service import RaceService, Session
from race.service.players import board_group
from race.store import Store
from race.wire import protocol as p
from tests.support.daily import DIFFICULTY, NODE_LIMIT, SECRET, Clock
from tests.support.services import wired

RULES = Pace()  # the defaults a server has


@pytest.fixture(scope="module")
def pool() -> Any:
    with ThreadPoolExecutor(1) as ex:
        yield ex


def challenge(store: Store, clock: Clock, pool: Executor) -> tuple[DailyChallenge, RaceService]:
    parts = wired(
        store,
        clock,
        executor=pool,
        countdown_seconds=0,
        daily_node_limit=NODE_LIMIT,
        daily_secret=SECRET,
        daily_pace=RULES,
    )
    return parts.daily, parts.service


async def play(
    daily: DailyChallenge,
    service: RaceService,
    clock: Clock,
    name: str,
    line: list[str],
    gaps: Iterable[int],
) -> dict[str, Any]:
    """A new player's attempt: the line, each move ``gaps`` ms after the one before (the
    clock starts at the first); the reply to the last move."""
    session = Session(f"conn-{name}")
    (joined,) = await daily.start(session, p.Daily(name=name, difficulty=DIFFICULTY))
    state = joined["state"]
    for move, gap in zip(line, itertools.chain([0], gaps), strict=False):
        clock.now += gap
        (state,) = await service.handle(session, p.Play(move=move, version=state["version"]))
    assert state["won"], "the line wins"
    return {"token": joined["token"], "state": state, "session": session}


async def test_bots_are_unverified_and_a_person_is_ranked(store: Store, pool: Executor) -> None:
    clock = Clock("2001-10-10T09:00:00")
    daily, service = challenge(store, clock, pool)
    line = (await daily.deal("2001-10-10", DIFFICULTY))["line"]
    assert len(line) > 2 * RULES.run

    # At the rate limit: a burst of 40 at once, then one every 50 ms.
    bot = await play(daily, service, clock, "Bot", line, itertools.chain([0] * 39, itertools.repeat(50)))
    # Near the thresholds: a steady 240 ms, with a long pause every 12 moves (well past the floor).
    near = itertools.cycle([240] * 11 + [6_000])
    sly = await play(daily, service, clock, "Sly", line, near)
    assert sly["state"]["finished_ms"] > RULES.floor_ms[DIFFICULTY]
    # A person: quick taps as cards go home in a row, longer looks before a plan.
    person = itertools.cycle([450, 380, 520, 900, 2_400])
    ann = await play(daily, service, clock, "Ann", line, person)

    board = await daily.leaderboard(DIFFICULTY, "2001-10-10", 10, bot["token"])
    assert [(e["rank"], e["name"]) for e in board["entries"]] == [(1, "Ann")]
    assert board["entries"][0]["time_ms"] == ann["state"]["finished_ms"]
    why = {e["name"]: e["pace"] for e in board["unverified"]}
    assert list(why) == ["Bot", "Sly"]  # in time order, the fastest first
    assert why["Bot"] == {"code": "median", "ms": 50, "min_ms": 250}
    assert why["Sly"] == {"code": "median", "ms": 240, "min_ms": 250}
    # And in English, as the protocol has always sent it.
    said = {e["name"]: e["unverified"] for e in board["unverified"]}
    assert said["Bot"] == "a median of 50 ms between moves (people take 250 ms or more)"
    assert all(e["rank"] is None and e["room"] for e in board["unverified"])  # each with its game
    assert board["me"]["rank"] is None and board["me"]["pace"] == why["Bot"]
    assert board["me"]["unverified"] == said["Bot"]

    # An unverified result is the player's attempt of the day: no ranked second one.
    session = Session("conn-Bot-again")
    (again,) = await daily.start(session, p.Daily(name="Bot", difficulty=DIFFICULTY, token=bot["token"]))
    assert again["daily"]["ranked"] is False
    state = again["state"]
    for move, gap in zip(line, itertools.chain([0], person), strict=False):
        clock.now += gap
        (state,) = await service.handle(session, p.Play(move=move, version=state["version"]))
    after = await daily.leaderboard(DIFFICULTY, "2001-10-10", 10, bot["token"])
    assert [e["name"] for e in after["entries"]] == ["Ann"] and after["me"] == board["me"]


async def test_a_fast_steady_bot_is_stopped_by_the_floor(store: Store, pool: Executor) -> None:
    clock = Clock("2001-10-11T09:00:00")
    daily, service = challenge(store, clock, pool)
    line = (await daily.deal("2001-10-11", DIFFICULTY))["line"]
    fast = await play(daily, service, clock, "Steady", line, itertools.repeat(300))
    assert fast["state"]["finished_ms"] < RULES.floor_ms[DIFFICULTY]
    board = await daily.leaderboard(DIFFICULTY, "2001-10-11", 10, None)
    assert board["entries"] == []
    finished = fast["state"]["finished_ms"]
    shown = board["unverified"][0]
    floor = RULES.floor_ms[DIFFICULTY]
    assert shown["pace"] == {"code": "floor", "ms": finished, "min_ms": floor, "difficulty": DIFFICULTY}
    assert shown["unverified"].startswith(f"won in {finished // 100 / 10:.1f} s")


async def test_a_result_kept_before_the_reason_had_a_code(store: Store, pool: Executor) -> None:
    # A result kept by an older server: its reason in English alone. It is still shown
    # unverified, with that reason, and no code.
    clock = Clock("2001-10-12T09:00:00")
    daily, _ = challenge(store, clock, pool)
    old = (
        '{"player":"5d01","name":"Old","time_ms":9100,"moves":116,"finished_at":1,"room":"Q8TXAAA",'
        '"unverified":"a median of 50 ms between moves (people take 250 ms or more)"}'
    )
    key = "000000009100.00000116.000000000000001"
    await store.board_add(board_group("2001-10-12", DIFFICULTY), "5d01", "u" + key, old, 3600)
    await store.board_add(unverified_group("2001-10-12", DIFFICULTY), "5d01", key, old, 3600)
    board = await daily.leaderboard(DIFFICULTY, "2001-10-12", 10, None)
    assert board["entries"] == []
    (shown,) = board["unverified"]
    assert shown["name"] == "Old" and shown["rank"] is None and "pace" not in shown
    assert shown["unverified"] == "a median of 50 ms between moves (people take 250 ms or more)"
