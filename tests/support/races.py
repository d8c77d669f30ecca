"""Races played over real websockets for the server tests: the flows many tests start from."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tests.support.processes import Client, Server
from tests.support.winning_lines import first_winning_line


@dataclass
class Raced:
    """A two-player race just over: Ann won the checked-in line, Bob moved once and resigned."""

    ann: Client
    bob: Client
    code: str
    line: dict[str, Any]
    created: dict[str, Any]  # Ann's joined
    joined: dict[str, Any]  # Bob's joined
    won: dict[str, Any]  # Ann's last state
    over: dict[str, Any]  # the room that says the race is over, as Bob got it

    async def close(self) -> None:
        for c in (self.ann, self.bob):
            await c.close()


async def ann_wins_bob_resigns(
    server: Server,
    *,
    ann: dict[str, Any] | None = None,
    bob: dict[str, Any] | None = None,
    in_lobby: Callable[[Client], Awaitable[None]] | None = None,
) -> Raced:
    """Ann creates a room on the checked-in winning line's deal and Bob joins (``ann`` and
    ``bob``: more fields of their create and join); ``in_lobby(ann)`` runs before Ann starts."""
    line = first_winning_line()
    a = await Client.connect(server.ws_url)
    create = {"type": "create", "name": "Ann", "difficulty": line["difficulty"], "deal": line["deal"], **(ann or {})}
    created = await a.request(create, "joined")
    code = created["room"]["code"]
    b = await Client.connect(server.ws_url)
    joined = await b.request({"type": "join", "room": code, "name": "Bob", **(bob or {})}, "joined")
    if in_lobby is not None:
        await in_lobby(a)
    await a.send({"type": "start"})
    await a.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    state = await a.started()  # (no board reaches anyone before the start)
    for move in line["moves"]:
        state = await a.request({"type": "move", "move": move, "version": state["version"]}, "state")
        assert state["type"] == "state", state
    move = (await b.started())["legal_moves"][0]
    assert (await b.request({"type": "move", "move": move, "version": 1}, "state"))["type"] == "state"
    await b.send({"type": "resign"})
    over = await b.expect("room", where=lambda m: m["room"]["phase"] == "over")
    await a.expect("room", where=lambda m: m["room"]["phase"] == "over")
    return Raced(a, b, code, line, created, joined, state, over)
