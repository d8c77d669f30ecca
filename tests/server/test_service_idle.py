"""The idle rule on a real Redis (and the embedded store), without the websocket layer: a
player still racing who does not act for RACE_IDLE_SECONDS counts as away for ``end`` and
``vote_end``, their page open or not; with an injectable clock."""

from __future__ import annotations

from typing import Any

import pytest

from race.app import Parts
from race.live.scheduler import Deadline
from race.rooms.away import STALL_FACTOR
from race.rooms.errors import Refused
from race.service import Session
from race.store import Store
from race.wire import protocol as p
from tests.support.services import wired

IDLE_S = 60


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


async def started(parts: Parts, *names: str) -> tuple[str, list[Session], dict[str, Any]]:
    """A race of ``names`` (the first the host), started now: its code, the players'
    sessions, and the host's state."""
    sessions = [Session(f"c{i + 1}") for i in range(len(names))]
    (joined,) = await parts.service.handle(sessions[0], p.Create(name=names[0], difficulty="easy", deal=5))
    code = str(joined["room"]["code"])
    for session, name in zip(sessions[1:], names[1:], strict=True):
        await parts.service.handle(session, p.Join(room=code, name=name))
    await parts.service.handle(sessions[0], p.Start())
    _, state = await parts.service.handle(sessions[0], p.Sync())
    return code, sessions, state


async def here(store: Store, code: str, clock: Clock, n: int) -> None:
    """Every one of the ``n`` players has a page open at the clock's time."""
    now = clock() / 1000
    await store.presence(code, now, here=[f"s{i} c{i}" for i in range(1, n + 1)], until=now + 30)


async def play(parts: Parts, who: Session) -> None:
    """``who`` makes a move (a shuffle is one) on their current state."""
    _, state = await parts.service.handle(who, p.Sync())
    await parts.service.handle(who, p.Play(move="shuffle", version=state["version"]))


async def phase(parts: Parts, code: str) -> tuple[str, str | None]:
    (watching,) = await parts.service.handle(Session("c9"), p.Watch(room=code))
    return watching["room"]["phase"], watching["room"]["ended_by"]


async def test_a_rival_here_who_does_not_act_can_be_raced_past(store: Store) -> None:
    """Bob keeps his page open and does nothing: until RACE_IDLE_SECONDS after the start,
    Ann may not end the race; his move puts that off (a hint does not); once he has let that
    long go by since it, she may."""
    clock = Clock()
    parts = wired(store, clock, countdown_seconds=0, race_idle_seconds=IDLE_S)
    code, (ann, bob), state = await started(parts, "Ann", "Bob")
    t0 = clock.now
    assert (code, t0 + IDLE_S * 1000, Deadline.IDLE) in parts.scheduler._timers  # the room wakes then
    await parts.service.handle(ann, p.Play(move="shuffle", version=state["version"]))

    async def refused(match: str) -> None:
        await here(store, code, clock, 2)
        with pytest.raises(Refused, match=match) as info:
            await parts.service.handle(ann, p.End())
        assert info.value.code == "rival_racing"

    clock.now = t0 + (IDLE_S - 1) * 1000
    await refused("Bob still racing here")
    await play(parts, bob)  # Bob moves just in time
    await parts.service.handle(bob, p.Hint())  # (a hint is no move)
    clock.now = t0 + IDLE_S * 1000
    await refused("Bob still racing here")
    clock.now = t0 + (2 * IDLE_S - 2) * 1000
    await refused("Bob still racing here")
    clock.now = t0 + (2 * IDLE_S - 1) * 1000  # Bob's last move was a RACE_IDLE_SECONDS ago
    await here(store, code, clock, 2)
    assert await parts.service.handle(ann, p.End()) == []
    assert await phase(parts, code) == ("over", "end")


async def test_the_wake_asks_for_the_next_one(store: Store) -> None:
    """When the room wakes (the timer's action), it asks to be woken when the next player
    may turn idle; once the race is over, for nothing more."""
    clock = Clock()
    parts = wired(store, clock, countdown_seconds=0, race_idle_seconds=IDLE_S)
    code, (_, bob), _ = await started(parts, "Ann", "Bob")
    t0 = clock.now
    clock.now = t0 + 10_000
    await play(parts, bob)
    clock.now = t0 + IDLE_S * 1000  # Ann turns idle now; Bob 10 s later
    await parts.deadlines[Deadline.IDLE](code)
    assert (code, t0 + (IDLE_S + 10) * 1000, Deadline.IDLE) in parts.scheduler._timers
    await here(store, code, clock, 2)
    assert await parts.service.handle(bob, p.End()) == []  # Ann is idle: Bob may end it
    parts.scheduler.unschedule(code)
    await parts.deadlines[Deadline.IDLE](code)
    assert not parts.scheduler._timers


async def test_a_vote_carries_without_the_idle_players_vote(store: Store) -> None:
    """Ann and Bob ask to end the race while Cy, here, plays no more: it goes on until Cy
    has been idle RACE_IDLE_SECONDS, then the next vote carries without hers."""
    clock = Clock()
    parts = wired(store, clock, countdown_seconds=0, race_idle_seconds=IDLE_S)
    code, (ann, bob, cy), _ = await started(parts, "Ann", "Bob", "Cy")
    t0 = clock.now
    clock.now = t0 + 5_000
    await play(parts, cy)  # Cy's last move: idle from t0 + 65 s
    clock.now = t0 + 30_000
    for who in (ann, bob):
        await play(parts, who)
    await here(store, code, clock, 3)
    await parts.service.handle(ann, p.VoteEnd())
    await parts.service.handle(bob, p.VoteEnd())
    assert await phase(parts, code) == ("racing", None)  # Cy is here and not idle
    clock.now = t0 + 65_000
    await here(store, code, clock, 3)
    await parts.service.handle(bob, p.VoteEnd(vote=False))
    assert await phase(parts, code) == ("racing", None)
    await parts.service.handle(bob, p.VoteEnd())
    assert await phase(parts, code) == ("over", "vote")


async def test_whoever_asks_to_end_counts_as_here_though_idle(store: Store) -> None:
    """Nobody has moved for RACE_IDLE_SECONDS: both are idle, and Ann asking is enough (asking
    is no move, but she is there to ask)."""
    clock = Clock()
    parts = wired(store, clock, countdown_seconds=0, race_idle_seconds=IDLE_S)
    code, (ann, _), _ = await started(parts, "Ann", "Bob")
    clock.now += IDLE_S * 1000
    await here(store, code, clock, 2)
    await parts.service.handle(ann, p.VoteEnd())
    assert await phase(parts, code) == ("over", "vote")


async def test_a_rival_who_only_moves_to_and_fro_is_raced_past_in_the_end(store: Store) -> None:
    """Bob shuffles and undoes it, again and again, never idle by the clock of his actions;
    but he brings no card home: STALL_FACTOR times RACE_IDLE_SECONDS after the start, Ann may
    end the race all the same."""
    clock = Clock()
    parts = wired(store, clock, countdown_seconds=0, race_idle_seconds=IDLE_S)
    code, (ann, bob), _ = await started(parts, "Ann", "Bob")
    t0, stalled = clock.now, clock.now + STALL_FACTOR * IDLE_S * 1000
    while clock.now + (IDLE_S - 1) * 1000 < stalled:
        clock.now += (IDLE_S - 1) * 1000
        _, state = await parts.service.handle(bob, p.Sync())
        if state["can_undo"]:
            await parts.service.handle(bob, p.Undo(version=state["version"]))
        else:
            await parts.service.handle(bob, p.Play(move="shuffle", version=state["version"]))
        await here(store, code, clock, 2)
        with pytest.raises(Refused) as info:
            await parts.service.handle(ann, p.End())
        assert info.value.code == "rival_racing"
    clock.now = stalled
    await here(store, code, clock, 2)
    assert await parts.service.handle(ann, p.End()) == []
    assert await phase(parts, code) == ("over", "end")
    assert clock.now - t0 == STALL_FACTOR * IDLE_S * 1000
