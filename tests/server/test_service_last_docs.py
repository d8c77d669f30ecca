"""A move starts from the documents its connection last committed (no store read); whenever
they are out of date the result is exactly what a fresh read gives."""

from __future__ import annotations

from typing import Any

import pytest

from race.rooms.errors import Refused
from race.service import RaceService, Role, Session
from race.store import Store
from race.wire import protocol as p
from tests.support.services import wired


class CountingStore:
    """Wraps a store and counts its reads."""

    def __init__(self, inner: Store) -> None:
        self.inner, self.reads = inner, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def read(self, room: str, names: list[str]) -> Any:
        self.reads += 1
        return await self.inner.read(room, names)


async def started(service: RaceService) -> tuple[Session, Session, dict[str, Any]]:
    ann, bob = Session("c1"), Session("c2")
    (joined,) = await service.handle(ann, p.Create(name="Ann", difficulty="easy", deal=5))
    await service.handle(bob, p.Join(room=joined["room"]["code"], name="Bob"))
    await service.handle(ann, p.Start())
    _, state = await service.handle(ann, p.Sync())  # the board comes with the start
    return ann, bob, state


def pick(state: dict[str, Any]) -> str:
    move: str = next(m for m in state["legal_moves"] if m != "shuffle")
    return move


async def test_plain_moves_read_the_store_once(store: Store) -> None:
    counting = CountingStore(store)
    service = wired(counting, countdown_seconds=0).service  # type: ignore[arg-type]
    ann, _, state = await started(service)
    before = counting.reads
    for _ in range(5):
        (state,) = await service.handle(ann, p.Play(move=pick(state), version=state["version"]))
    assert counting.reads - before == 1  # the first move reads; the next four start from its commit


async def test_a_second_connection_of_the_seat_makes_the_guess_stale(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, _, state = await started(service)
    tab = Session("c9", room=ann.room, seat=ann.seat, role=Role.PLAYER)
    (s1,) = await service.handle(ann, p.Play(move=pick(state), version=state["version"]))
    (s2,) = await service.handle(tab, p.Play(move=pick(s1), version=s1["version"]))
    # ann's connection still holds the documents of s1: its stale move is refused as stale,
    with pytest.raises(Refused) as refused:
        await service.handle(ann, p.Play(move=pick(s1), version=s1["version"]))
    assert refused.value.code == "stale"
    assert refused.value.extra["state"]["version"] == s2["version"]
    # and a move on the current version applies.
    (s3,) = await service.handle(ann, p.Play(move=pick(s2), version=s2["version"]))
    assert s3["version"] == s2["version"] + 1


async def test_a_retried_move_is_a_duplicate_and_refusals_are_unchanged(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, _, state = await started(service)
    move = p.Play(move=pick(state), version=state["version"], id="m1")
    (s1,) = await service.handle(ann, move)
    (again,) = await service.handle(ann, move)
    assert again["duplicate"] is True and again["version"] == s1["version"]
    with pytest.raises(Refused) as illegal:
        await service.handle(ann, p.Play(move="p0>p0", version=s1["version"]))
    assert illegal.value.code == "illegal_move"
    (undone,) = await service.handle(ann, p.Undo(version=s1["version"]))
    assert undone["version"] == s1["version"] + 1 and undone["board"] == state["board"]


def test_board_matches_the_engine_view() -> None:
    import random

    from race.engine import Game
    from race.rooms.standing import board

    rng = random.Random(7)
    game = Game.deal(11, "easy")
    for _ in range(300):
        shown = board(game)
        assert shown["piles"] == [[str(c) for c in pile] for pile in game.piles]
        assert shown["foundations"] == {
            key: {"top": str(cards[-1]), "count": len(cards)} for key, cards in game.foundations.items()
        }
        assert shown["shuffles_left"] == game.shuffles_left
        legal = game.legal_moves()
        if not legal:
            break
        game.play(rng.choice(legal))
