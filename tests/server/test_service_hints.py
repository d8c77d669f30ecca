"""The hint service on the embedded store and a real Redis, without the websocket layer: the
process's replays of the games it hinted (brought up to date, evicted, made again), and a
hint asked in two places at once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from race.engine import Game
from race.engine.hints import advise, position_hash
from race.service import RaceService, Role, Session
from race.service import hints as hints_service
from race.service.hints import Hints
from race.store import Store
from race.wire import protocol as p
from tests.support.services import wired


async def solo(service: RaceService, deal: int) -> tuple[Session, dict[str, Any]]:
    """A solo race on medium ``deal``, started: its session and state."""
    ann = Session(f"c{deal}")
    await service.handle(ann, p.Create(name="Ann", difficulty="medium", deal=deal))
    await service.handle(ann, p.Start())
    _, state = await service.handle(ann, p.Sync())
    return ann, state


async def follow(service: RaceService, ann: Session, n: int, actions: list[str]) -> None:
    """Ask ``n`` hints, playing each (or its way out); ``actions`` gets what was played."""
    for _ in range(n):
        counted, hint = await service.handle(ann, p.Hint())
        if hint["move"] is not None:
            await service.handle(ann, p.Play(move=hint["move"], version=counted["version"]))
            actions.append(hint["move"])
        else:
            await service.handle(ann, p.Undo(version=counted["version"]))
            actions.append("undo")


def expected(deal: int, actions: list[str]) -> str | None:
    """The engine's progress hint after ``actions`` of medium ``deal``, worked out apart."""
    game = Game.deal(deal, "medium")
    seen = {position_hash(game)}
    for action in actions:
        game.undo() if action == "undo" else game.play(action)
        seen.add(position_hash(game))
    move = advise(game, seen).move
    return None if move is None else str(move)


async def test_the_replays_kept_are_up_to_date_and_evicted(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hints_service, "REPLAY_STEP", 7)  # (a long game's replay, in steps)
    parts = wired(store, countdown_seconds=0)
    hints: Hints = parts.service.race.hints
    hints.most_trails = 1
    service = parts.service
    ann, _ = await solo(service, 1)
    cy, _ = await solo(service, 2)
    done: list[str] = []
    await follow(service, ann, 30, done)
    ((key, trail),) = hints.trails.items()
    assert key[0] == ann.room and trail.actions == 29  # (kept at its last hint's: 29 actions)
    await follow(service, cy, 5, [])  # another game: Ann's replay goes
    assert [key[0] for key in hints.trails] == [cy.room]
    # Ann's next hint replays her game again, from her actions, and agrees with the engine.
    counted, hint = await service.handle(ann, p.Hint())
    ((key, trail),) = hints.trails.items()
    assert key[0] == ann.room and trail.actions == 30 and counted["hints"] == 31
    assert hint["move"] == expected(1, done)


async def test_a_hint_asked_from_two_tabs_at_once_is_counted_once(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, _ = await solo(service, 1)
    await follow(service, ann, 12, [])
    tab = Session("tab", room=ann.room, seat=ann.seat, role=Role.PLAYER)
    first, second = await asyncio.gather(service.handle(ann, p.Hint()), service.handle(tab, p.Hint()))
    # One counted it (its state, then the hint); the other was shown the same hint free.
    assert sorted(len(r) for r in (first, second)) == [1, 2]
    assert first[-1]["move"] == second[-1]["move"] and first[-1]["hints"] == second[-1]["hints"] == 13
    _, mine = await service.handle(ann, p.Sync())
    assert mine["hints"] == 13
