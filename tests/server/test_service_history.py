"""A game's undo history lives in its own documents, a few dozen moves each: a move writes one
of them and the seat, whatever the game's length, and the whole history comes back for undo."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from race.engine import Game
from race.rooms.model import HISTORY_CHUNK, SEAT, Seat, history_keys, history_of, save_game, seat_key
from race.service import RaceService, Role, Session
from race.store import Store
from race.wire import protocol as p
from tests.support.services import wired


async def started(service: RaceService) -> tuple[Session, dict[str, Any]]:
    ann, bob = Session("c1"), Session("c2")
    (joined,) = await service.handle(ann, p.Create(name="Ann", difficulty="easy", deal=5))
    await service.handle(bob, p.Join(room=joined["room"]["code"], name="Bob"))
    await service.handle(ann, p.Start())
    _, state = await service.handle(ann, p.Sync())  # the board comes with the start
    return ann, state


def pick(state: dict[str, Any], i: int) -> p.Play | p.Undo:
    moves = [m for m in state["legal_moves"] if m != "shuffle"] or state["legal_moves"]
    if moves:
        return p.Play(move=moves[i % len(moves)], version=state["version"])
    return p.Undo(version=state["version"])


async def test_a_long_game_is_undone_to_its_deal_from_any_connection(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, state = await started(service)
    assert ann.room is not None and ann.seat is not None
    boards = [state["board"]]  # the board after each move of the history
    first_size = 0
    for i in range(2 * HISTORY_CHUNK + 17):
        msg = pick(state, i)
        (state,) = await service.handle(ann, msg)
        if isinstance(msg, p.Undo):
            boards.pop()
        else:
            boards.append(state["board"])
        (seat_doc,) = await store.read(ann.room, [seat_key(ann.seat)])
        assert seat_doc is not None
        first_size = first_size or len(seat_doc.data)
        # The seat holds the position and a count, not the moves: it does not grow with the game.
        assert len(seat_doc.data) < first_size + 200, (i, len(seat_doc.data))
    assert len(boards) - 1 > 2 * HISTORY_CHUNK
    # Reading the room (for joins, spectators, the race's end) leaves the history out.
    room_docs = await store.read_all(ann.room)
    assert not [name for name in room_docs if name.startswith("h:")]
    assert sum(len(d.data) for d in room_docs.values()) < 2 * first_size + 2000
    # Two connections of the seat take turns: each one's last documents are out of date by
    # then, so every undo starts from the store's history, across the documents' boundaries.
    tab = Session("c9", room=ann.room, seat=ann.seat, role=Role.PLAYER)
    who = [ann, tab]
    while state["can_undo"]:
        (state,) = await service.handle(who[len(boards) % 2], p.Undo(version=state["version"]))
        boards.pop()
        assert state["board"] == boards[-1]
    assert boards == [boards[0]] and state["moves"] > 2 * HISTORY_CHUNK


async def test_restart_and_replay_overwrite_the_history_left_over(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, state = await started(service)
    assert ann.room is not None and ann.seat is not None
    for i in range(HISTORY_CHUNK + 5):
        (state,) = await service.handle(ann, pick(state, i))
    # The restart comes from another connection of the seat: a fresh read, which a restart
    # needs no history for.
    tab = Session("c9", room=ann.room, seat=ann.seat, role=Role.PLAYER)
    (state,) = await service.handle(tab, p.Restart(version=state["version"]))
    assert state["can_undo"] is False
    played = []
    for i in range(3):
        msg = pick(state, i + 1)
        assert isinstance(msg, p.Play)
        (state,) = await service.handle(ann, msg)
        played.append(msg.move)
    (seat_doc,) = await store.read(ann.room, [seat_key(ann.seat)])
    assert seat_doc is not None
    stored = SEAT.decode(seat_doc.data)
    docs = await store.read(ann.room, history_keys(stored))
    assert history_of(stored, [d.data if d is not None else None for d in docs]) == played


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=-3, max_value=40), max_size=300), st.integers(0, 50))
def test_saved_history_documents_always_rebuild_the_history(actions: list[int], deal: int) -> None:
    """Any run of plays, undos (-1, -2) and restarts (-3), each saved as the service saves
    it into a dict of documents, leaves documents that give back exactly the game's history."""
    game = Game.deal(deal, "easy")
    seat = Seat(seat="s1", name="Ann", game=game.to_dict())
    docs: dict[str, str] = {}
    for action in actions:
        legal = game.legal_moves()
        if action == -3:
            game.restart()
        elif action < 0 or not legal:
            if not game.move_stack:
                continue
            game.undo()
        else:
            game.play(legal[action % len(legal)])
        written = save_game(seat, game, played=action >= 0 and bool(legal))
        assert len(written) <= 1 and all(len(v) < 20 * HISTORY_CHUNK for v in written.values())
        docs.update(written)
        assert seat.history == len(game.move_stack)
        history = history_of(seat, [docs.get(k) for k in history_keys(seat)])
        assert history == [str(m) for m in game.move_stack]
        assert Game.from_dict({**seat.game, "history": history}) == game
