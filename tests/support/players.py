"""Players over plain websockets, for the browser tests' rivals: a whole line is played in a
moment, answered at once, while the page under test watches."""

from __future__ import annotations

import json
from itertools import count
from typing import Any

from websockets.sync.client import ClientConnection

from race.daily import choose_deal
from tests.support.processes import DAILY_SECRET, TIMEOUT, Client
from tests.support.winning_lines import winning_line


class Rival:
    """A player on a plain websocket: joins a room, plays and resigns, answered at once."""

    ids = count(1)

    def __init__(self, ws: ClientConnection, code: str, name: str) -> None:
        self.name = name
        self.ws = ws
        self.inbox: list[dict[str, Any]] = []
        self.expect("hello")
        self.ws.send(json.dumps({"type": "join", "room": code, "name": name}))
        joined = self.expect("joined")
        self.seat: str = joined["seat"]
        self.state: dict[str, Any] = joined["state"]

    def expect(self, *types: str, phase: str | None = None) -> dict[str, Any]:
        """The next message of ``types`` (a `room` only of ``phase``, when given); an error
        instead fails the test."""

        def match(m: dict[str, Any]) -> bool:
            if m.get("type") == "error":
                raise AssertionError(f"{self.name} got an error: {m}")
            return m.get("type") in types and (phase is None or m["room"]["phase"] == phase)

        for i, kept in enumerate(self.inbox):
            if match(kept):
                return self.inbox.pop(i)
        while True:
            m: dict[str, Any] = json.loads(self.ws.recv(timeout=TIMEOUT))
            if match(m):
                return m
            self.inbox.append(m)

    def racing(self) -> None:
        self.expect("room", phase="racing")

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        self.ws.send(json.dumps({**message, "version": self.state["version"], "id": f"{self.name}-{next(self.ids)}"}))
        self.state = self.expect("state")
        return self.state

    def play(self, moves: list[str]) -> dict[str, Any]:
        for move in moves:
            self.send({"type": "move", "move": move})
        return self.state

    def resign(self) -> None:
        self.ws.send(json.dumps({"type": "resign"}))
        self.state = self.expect("state")
        assert self.state["resigned"]


async def bob_wins(ws_url: str, code: str, deal: int = 8, difficulty: str = "easy") -> int:
    """Bob joins ``code`` over a websocket, gets ready, and once the race starts plays the
    checked-in winning line of ``deal`` to a finish; his finish time."""
    client = await Client.connect(ws_url)
    try:
        joined = await client.request({"type": "join", "room": code, "name": "Bob"}, "joined")
        assert joined["type"] == "joined", joined
        await client.send({"type": "ready", "ready": True})
        await client.expect("room", where=lambda m: m["room"]["phase"] == "racing", timeout=30)
        state = joined["state"]
        for move in winning_line(deal, difficulty):
            state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
            assert state["type"] == "state", state
        assert state["won"], state
        finished: int = state["finished_ms"]
        return finished
    finally:
        await client.close()


async def win_the_daily(ws_url: str, name: str, node_limit: int = 200_000) -> dict[str, Any]:
    """Play today's easy deal to a win over a websocket; the `joined` reply (its token)."""
    client = await Client.connect(ws_url)
    try:
        joined = await client.request({"type": "daily", "name": name, "difficulty": "easy"}, "joined")
        assert joined["type"] == "joined", joined
        _, line = choose_deal(joined["daily"]["date"], "easy", node_limit, DAILY_SECRET)
        state = joined["state"]
        for move in line:
            state = await client.request({"type": "move", "move": move, "version": state["version"]}, "state")
            assert state["type"] == "state", state
        assert state["won"]
        return joined
    finally:
        await client.close()
