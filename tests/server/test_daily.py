"""The daily challenge on a real Redis (and the embedded store), with an injectable clock."""

from __future__ import annotations

import multiprocessing
import os
import secrets
import signal
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

import pytest
import redis.asyncio as aioredis

from race.daily import DailyChallenge, board_group, choose_deal
from race.engine import Game
from race.rooms.errors import Refused
from race.service import RaceService, Session
from race.store import Store, StoreUnavailable, open_store
from race.wire import protocol as p
from race.wire.protocol import ProtocolError
from tests.support.daily import DIFFICULTY, NODE_LIMIT, SECRET, Clock, ms
from tests.support.processes import FailingOnce
from tests.support.services import wired


class NoSolving(Executor):
    """An executor that refuses work: proves a deal came from the store's cache."""

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the daily deal was computed again instead of read from the store")


@pytest.fixture(scope="module")
def pool() -> Any:
    with ThreadPoolExecutor(1) as ex:
        yield ex


def challenge(store: Store, clock: Clock, pool: Executor, keep_days: int = 30) -> tuple[DailyChallenge, RaceService]:
    """A daily challenge and its service, wired as the app wires them."""
    parts = wired(
        store,
        clock,
        executor=pool,
        countdown_seconds=0,
        daily_keep_days=keep_days,
        daily_node_limit=NODE_LIMIT,
        daily_secret=SECRET,
    )
    return parts.daily, parts.service


async def attempt(daily: DailyChallenge, name: str, token: str | None = None) -> tuple[Session, dict[str, Any]]:
    session = Session(f"conn-{name}")
    (joined,) = await daily.start(session, p.Daily(name=name, difficulty=DIFFICULTY, token=token))
    return session, joined


async def play_to_win(
    service: RaceService,
    clock: Clock,
    session: Session,
    state: dict[str, Any],
    line: list[str],
    seconds: float,
    extra_moves: int = 0,
) -> dict[str, Any]:
    """Play ``extra_moves`` shuffle+undo pairs, then the winning line, finishing ``seconds``
    after the first move."""
    for _ in range(extra_moves):
        (state,) = await service.handle(session, p.Play(move="shuffle", version=state["version"]))
        (state,) = await service.handle(session, p.Undo(version=state["version"]))
    for i, move in enumerate(line):
        if i == len(line) - 1:
            clock.now += int(seconds * 1000)
        (state,) = await service.handle(session, p.Play(move=move, version=state["version"]))
    return state


async def test_the_daily_deal_is_deterministic_winnable_and_computed_once(store: Store, pool: Executor) -> None:
    clock = Clock("2001-11-29T08:00:00")
    first = await challenge(store, clock, pool)[0].deal("2001-11-29", DIFFICULTY)
    seed, line = choose_deal("2001-11-29", DIFFICULTY, NODE_LIMIT, SECRET)  # another process would get the same
    assert first == {"seed": seed, "line": line}
    assert seed.startswith("daily:2001-11-29:easy:")
    game = Game.deal(seed, DIFFICULTY)
    for move in line:
        game.play(move)
    assert game.is_won
    again = await challenge(store, clock, NoSolving())[0].deal("2001-11-29", DIFFICULTY)
    assert again == first


async def test_no_one_can_tell_a_days_deal_without_the_secret(store: Store, pool: Executor) -> None:
    """The seeds are keyed by a secret (here, the one the store keeps for every process): the
    public candidates ``daily:DATE:DIFFICULTY:k`` of old are not the day's deal."""
    clock = Clock("1999-06-14T08:00:00")
    one, two = (wired(store, clock, executor=pool).daily for _ in "ab")
    secret = await one.deals.secret()
    assert len(secret) == 64 and await two.deals.secret() == secret  # made once, kept in the store
    deal = await one.deal("1999-06-15", DIFFICULTY)
    assert await two.deal("1999-06-15", DIFFICULTY) == deal
    assert deal["seed"] not in {f"daily:1999-06-15:{DIFFICULTY}:{k}" for k in range(64)}
    assert deal["seed"] == choose_deal("1999-06-15", DIFFICULTY, NODE_LIMIT, secret)[0]
    assert choose_deal("1999-06-15", DIFFICULTY, NODE_LIMIT, "another")[0] != deal["seed"]


async def test_finishers_rank_by_time_then_moves_then_finish_order(store: Store, pool: Executor) -> None:
    clock = Clock("2001-11-30T09:00:00")
    daily, service = challenge(store, clock, pool)
    line = (await daily.deal("2001-11-30", DIFFICULTY))["line"]
    runs = {"Ann": (50, 0), "Bob": (40, 2), "Cy": (40, 1), "Di": (40, 1)}
    tokens = {}
    for name, (seconds, extra) in runs.items():
        session, joined = await attempt(daily, name)
        tokens[name] = joined["token"]
        assert joined["daily"]["ranked"] is True
        final = await play_to_win(service, clock, session, joined["state"], line, seconds, extra)
        assert final["won"] and final["finished_ms"] == seconds * 1000
        clock.now += 1000
    board = await daily.leaderboard(DIFFICULTY, None, 10, tokens["Bob"])
    assert [(e["rank"], e["name"], e["time_ms"]) for e in board["entries"]] == [
        (1, "Cy", 40_000),
        (2, "Di", 40_000),
        (3, "Bob", 40_000),
        (4, "Ann", 50_000),
    ]
    assert [e["moves"] for e in board["entries"]] == [len(line) + 1, len(line) + 1, len(line) + 2, len(line)]
    assert board["me"]["rank"] == 3 and board["me"]["name"] == "Bob"
    assert (await daily.leaderboard(DIFFICULTY, None, 2, None))["entries"][-1]["name"] == "Di"


async def test_only_the_first_finished_attempt_of_a_day_is_ranked(store: Store, pool: Executor) -> None:
    clock = Clock("2001-12-01T10:00:00")
    daily, service = challenge(store, clock, pool)
    line = (await daily.deal("2001-12-01", DIFFICULTY))["line"]
    session, joined = await attempt(daily, "Ann")
    token = joined["token"]
    await play_to_win(service, clock, session, joined["state"], line, 90)
    session, second = await attempt(daily, "Ann", token)
    assert second["daily"]["ranked"] is False and second["daily"]["player"] == joined["daily"]["player"]
    await play_to_win(service, clock, session, second["state"], line, 30)
    board = await daily.leaderboard(DIFFICULTY, None, 10, token)
    assert [(e["name"], e["time_ms"]) for e in board["entries"]] == [("Ann", 90_000)]
    # The finished attempt takes no more moves.
    with pytest.raises(Refused) as info:
        await service.handle(session, p.Play(move="shuffle", version=1))
    assert info.value.code in ("finished", "race_over")


async def test_restarting_does_not_reset_the_clock(store: Store, pool: Executor) -> None:
    clock = Clock("2001-12-02T10:00:00")
    daily, service = challenge(store, clock, pool)
    line = (await daily.deal("2001-12-02", DIFFICULTY))["line"]
    session, joined = await attempt(daily, "Ann")
    (state,) = await service.handle(session, p.Play(move=line[0], version=joined["state"]["version"]))
    clock.now += 20_000
    (state,) = await service.handle(session, p.Restart(version=state["version"]))
    final = await play_to_win(service, clock, session, state, line, 5)
    assert final["finished_ms"] == 25_000


async def test_the_day_rolls_over_at_utc_midnight_and_old_boards_stay_readable(store: Store, pool: Executor) -> None:
    clock = Clock("2001-12-03T23:59:59")
    daily, service = challenge(store, clock, pool)
    line = (await daily.deal("2001-12-03", DIFFICULTY))["line"]
    session, joined = await attempt(daily, "Ann")
    assert joined["daily"]["date"] == "2001-12-03"
    await play_to_win(service, clock, session, joined["state"], line, 2)  # finishes after midnight
    assert daily.today() == "2001-12-04"
    _, tomorrow = await attempt(daily, "Bob")
    assert tomorrow["daily"]["date"] == "2001-12-04"
    assert tomorrow["room"]["daily_date"] == "2001-12-04" and tomorrow["room"]["deal"] is None  # (no seed)
    old = await daily.leaderboard(DIFFICULTY, "2001-12-03", 10, None)
    assert [e["name"] for e in old["entries"]] == ["Ann"]  # counted for the day it was dealt
    assert (await daily.leaderboard(DIFFICULTY, None, 10, None))["entries"] == []
    with pytest.raises(Refused) as info:
        await daily.leaderboard(DIFFICULTY, "2001-12-05", 10, None)
    assert info.value.code == "bad_date"


async def test_streaks_count_consecutive_finished_days(store: Store, pool: Executor) -> None:
    clock = Clock("2001-12-10T12:00:00")
    daily, service = challenge(store, clock, pool)
    token = None
    streaks = []
    for day in ("2001-12-10", "2001-12-11", "2001-12-13"):
        clock.now = ms(day + "T12:00:00")
        line = (await daily.deal(day, DIFFICULTY))["line"]
        session, joined = await attempt(daily, "Ann", token)
        token = joined["token"]
        await play_to_win(service, clock, session, joined["state"], line, 60)
        streaks.append((await daily.leaderboard(DIFFICULTY, None, 1, token))["streak"])
    assert streaks == [1, 2, 1]


async def test_leaderboard_keys_expire_after_the_kept_days(redis_url: str, pool: Executor) -> None:
    store = open_store(redis_url, ttl=3600)
    await store.connect()
    clock = Clock("2001-12-20T18:00:00")
    daily, service = challenge(store, clock, pool, keep_days=2)
    line = (await daily.deal("2001-12-20", DIFFICULTY))["line"]
    session, joined = await attempt(daily, "Ann")
    await play_to_win(service, clock, session, joined["state"], line, 60)
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        group = board_group("2001-12-20", DIFFICULTY)
        keys = [k async for k in raw.scan_iter(match=f"*{{{group}}}*")]
        assert len(keys) == 3  # the cached deal, the sorted set and its entries
        # To the end of the day, then two more days: set when the deal was chosen (18:00:00)
        # and when Ann finished a minute later.
        expected = 6 * 3600 + 2 * 86400
        for k in keys:
            assert expected - 65 <= await raw.ttl(k) <= expected
    finally:
        await raw.aclose()
        await store.close()


async def test_results_come_only_from_played_games(store: Store, pool: Executor) -> None:
    clock = Clock("2001-12-21T10:00:00")
    daily, _service = challenge(store, clock, pool)
    for raw in (
        '{"type": "result", "time_ms": 1, "moves": 1}',
        '{"type": "daily", "name": "Eve", "difficulty": "easy", "date": "2001-12-01"}',
        '{"type": "daily", "name": "Eve", "difficulty": "easy", "time_ms": 1}',
    ):
        with pytest.raises(ProtocolError):
            p.decode(raw)
    with pytest.raises(Refused) as info:
        await attempt(daily, "Eve", token="forged-token")
    assert info.value.code == "bad_token"
    assert (await daily.leaderboard(DIFFICULTY, None, 10, None))["entries"] == []


async def test_a_daily_attempt_cannot_be_rematched_into_another_deal(store: Store, pool: Executor) -> None:
    """A rematch would deal the attempt's room a deal of the player's choosing, open it to
    others, and post a win there to the day's board: it is refused, so only the day's deal
    can be posted, only by the attempt's own player."""
    clock = Clock("2001-12-22T10:00:00")
    daily, service = challenge(store, clock, pool)
    await daily.deal("2001-12-22", DIFFICULTY)
    session, _ = await attempt(daily, "Ann")
    await service.handle(session, p.Resign())
    for msg in (p.Rematch(deal=3), p.Rematch()):
        with pytest.raises(Refused) as info:
            await service.handle(session, msg)
        assert info.value.code == "no_rematch"
    with pytest.raises(Refused) as info:
        await service.handle(Session("conn-eve"), p.Join(room=session.room or "", name="Eve"))
    assert info.value.code == "already_started"
    (watching,) = await service.handle(Session("conn-w"), p.Watch(room=session.room or ""))
    assert watching["room"]["phase"] == "over" and watching["room"]["round"] == 1
    assert (await daily.leaderboard(DIFFICULTY, None, 10, None))["entries"] == []


async def test_an_abandoned_attempt_leaves_the_live_list_after_half_an_hour(store: Store, pool: Executor) -> None:
    clock = Clock("2001-12-23T10:00:00")
    parts = wired(store, clock, executor=pool, countdown_seconds=0, daily_node_limit=NODE_LIMIT, daily_secret=SECRET)
    daily, service = parts.daily, parts.service
    await daily.deal("2001-12-23", DIFFICULTY)
    session, _ = await attempt(daily, "Ann")
    race = Session("conn-race")
    (created,) = await service.handle(race, p.Create(name="Bo", deal=3))
    for code in (session.room or "", created["room"]["code"]):  # both players stay connected
        await store.presence(code, clock.now / 1000, here=["s1 c"], until=clock.now / 1000 + 86400)
    live = {r["code"] for r in await parts.listings.live_rooms()}
    assert {session.room, created["room"]["code"]} <= live
    clock.now += 1801 * 1000  # a race stays listed as long as the room is kept (an hour here)
    live = {r["code"] for r in await parts.listings.live_rooms()}
    assert session.room not in live and created["room"]["code"] in live


async def test_a_day_finished_after_the_next_one_still_counts_for_the_streak(store: Store, pool: Executor) -> None:
    """An attempt counts for the day it was dealt: Ann starts the 15th's just before
    midnight, plays and wins the 16th's, then wins the 15th's. Three days in a row."""
    clock = Clock("2001-12-14T12:00:00")
    daily, service = challenge(store, clock, pool)
    lines = {day: (await daily.deal(day, DIFFICULTY))["line"] for day in ("2001-12-14", "2001-12-15", "2001-12-16")}
    session, joined = await attempt(daily, "Ann")
    token = joined["token"]
    await play_to_win(service, clock, session, joined["state"], lines["2001-12-14"], 60)
    clock.now = ms("2001-12-15T23:56:00")
    late, late_joined = await attempt(daily, "Ann", token)
    clock.now = ms("2001-12-16T00:10:00")
    session, joined = await attempt(daily, "Ann", token)
    await play_to_win(service, clock, session, joined["state"], lines["2001-12-16"], 60)
    assert (await daily.leaderboard(DIFFICULTY, None, 1, token))["streak"] == 1  # the 15th is not done yet
    await play_to_win(service, clock, late, late_joined["state"], lines["2001-12-15"], 60)
    assert (await daily.leaderboard(DIFFICULTY, None, 1, token))["streak"] == 3


async def test_a_win_cut_short_by_the_store_still_reaches_the_board_and_the_streak(pool: Executor) -> None:
    """The winning move is committed and posted, then the store fails before the streak is
    counted: the page gets ``unavailable`` (and never retries a move with the same id).
    Its next ``sync`` (a resync, a reload) finishes the job."""
    store = FailingOnce(ttl=3600)
    clock = Clock("2001-12-24T10:00:00")
    daily, service = challenge(store, clock, pool)
    line = (await daily.deal("2001-12-24", DIFFICULTY))["line"]
    session, joined = await attempt(daily, "Ann")
    token = joined["token"]
    state = await play_to_win(service, clock, session, joined["state"], line[:-1], 60)
    store.armed = True
    with pytest.raises(StoreUnavailable):
        await service.handle(session, p.Play(move=line[-1], version=state["version"]))
    board = await daily.leaderboard(DIFFICULTY, None, 10, token)
    assert [e["name"] for e in board["entries"]] == ["Ann"] and board["streak"] == 0
    await service.handle(session, p.Sync())
    assert (await daily.leaderboard(DIFFICULTY, None, 10, token))["streak"] == 1


async def test_a_solver_worker_that_dies_is_replaced() -> None:
    """A worker killed mid-life (for its memory, say) breaks its process pool for good: the
    next day's deal is chosen by a fresh worker instead of failing until a restart."""
    store = open_store("memory://", ttl=3600)
    await store.connect()
    clock = Clock("2001-03-01T12:00:00")
    daily = wired(store, clock, daily_node_limit=NODE_LIMIT).daily
    before = set(multiprocessing.active_children())
    try:
        await daily.deal("2001-03-01", DIFFICULTY)  # in the server's own kind of worker process
        (worker,) = set(multiprocessing.active_children()) - before
        os.kill(worker.pid or 0, signal.SIGKILL)
        worker.join()
        seed, line = choose_deal("2001-03-02", DIFFICULTY, NODE_LIMIT, await daily.deals.secret())
        assert await daily.deal("2001-03-02", DIFFICULTY) == {"seed": seed, "line": line}
        (fresh,) = set(multiprocessing.active_children()) - before
        assert fresh.pid != worker.pid
    finally:
        daily.close()
        await store.close()


async def test_new_daily_players_are_few_a_day_from_one_address(store: Store, pool: Executor) -> None:
    """A fresh browser profile gives a fresh first attempt: so one address may make only so
    many new daily players a day. A player it has already made plays on; another address is
    not held back; a day later it may make new ones again."""
    clock = Clock("2001-05-01T12:00:00")
    parts = wired(store, clock, executor=pool, daily_node_limit=NODE_LIMIT, daily_players_per_day_per_ip=2)
    daily = parts.daily
    # (Addresses of this run alone: the Redis store is shared by every run's tests.)
    here, elsewhere = f"here-{secrets.token_hex(4)}", f"elsewhere-{secrets.token_hex(4)}"

    async def new_player(address: str, token: str | None = None) -> dict[str, Any]:
        session = Session(f"conn-{secrets.token_hex(4)}", address=address)
        (joined,) = await daily.start(session, p.Daily(name="Pat", difficulty=DIFFICULTY, token=token))
        return joined

    first = await new_player(here)
    await new_player(here)
    with pytest.raises(Refused) as refused:
        await new_player(here)
    assert refused.value.code == "too_many_players" and "2 new daily players today" in refused.value.message
    assert (await new_player(here, first["token"]))["token"] == first["token"]  # a known player plays on
    await new_player(elsewhere)
    clock.now += 86_400_000
    await new_player(here)
