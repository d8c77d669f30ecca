"""Fair play over real websockets: nothing of the deal before "Go", rivals' progress and not
their boards during the race, the spectators' delay, and a racing device shown no boards."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.processes import Client, Server

HIDDEN = "??"


@pytest.fixture(scope="module", params=["memory", "redis"])
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """A server on the embedded store, then one on Redis."""
    url = "memory://" if request.param == "memory" else request.getfixturevalue("redis_url")
    s = Server(url, COUNTDOWN_SECONDS="0.3", SPECTATOR_SECOND_MS="20")  # 15 s of delay: 300 ms
    yield s
    s.stop()


def leaks(message: Any, path: str = "") -> list[str]:
    """Where ``message`` shows anything of a deal: a card of a pile, a legal move, a deal
    number or seed (a foundation's starting ace or king is the same in every deal)."""
    found: list[str] = []
    if isinstance(message, dict):
        for key, value in message.items():
            here = f"{path}.{key}"
            shown = key == "piles" and any(card != HIDDEN for pile in value for card in pile)
            if shown or (key in ("legal_moves", "deal") and value):
                found.append(here)
            else:
                found += leaks(value, here)
    elif isinstance(message, list):
        for i, value in enumerate(message):
            found += leaks(value, f"{path}[{i}]")
    elif isinstance(message, str) and message.startswith("daily:"):
        found.append(path)
    return found


def boards(message: Any) -> list[Any]:
    """Every board in ``message``."""
    if isinstance(message, dict):
        return [v for k, v in message.items() if k == "board"] + [b for v in message.values() for b in boards(v)]
    if isinstance(message, list):
        return [b for v in message for b in boards(v)]
    return []


async def lobby(server: Server, **create: Any) -> tuple[Client, Client, dict[str, Any], dict[str, Any], dict[str, Any]]:
    ann = await Client.connect(server.ws_url)
    created = await ann.request({"type": "create", "name": "Ann", "difficulty": "easy", **create}, "joined")
    bob = await Client.connect(server.ws_url)
    joined = await bob.request({"type": "join", "room": created["room"]["code"], "name": "Bob"}, "joined")
    return ann, bob, created, joined, created["room"]


async def test_nothing_of_the_deal_reaches_anyone_before_the_start(server: Server) -> None:
    ann, bob, created, joined, room = await lobby(server, spectator_delay=0)
    spectator = await Client.connect(server.ws_url)
    watching = await spectator.request({"type": "watch", "room": room["code"]}, "watching")
    await ann.send({"type": "ready"})
    await bob.send({"type": "ready"})
    for c in (ann, bob, spectator):
        await c.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    # Everything each client got up to the start: the lobby, the ready, the countdown.
    before = {c: [m for m in c.inbox] for c in (ann, bob, spectator)}
    seen: list[dict[str, Any]] = [created, joined, watching, *before[ann], *before[bob], *before[spectator]]
    assert any(m.get("type") == "room" and m["room"]["phase"] == "countdown" for m in seen)
    assert [leak for m in seen for leak in leaks(m)] == []
    assert all(boards(m) for m in (created, joined, watching))  # boards there are, face down
    # At the start, the deal: the same for everyone.
    ann_start, bob_start = await ann.started(), await bob.started()
    assert ann_start["board"] == bob_start["board"] and HIDDEN not in str(ann_start["board"])
    for c in (ann, bob, spectator):
        await c.close()


async def test_players_get_their_rivals_progress_and_spectators_the_boards(server: Server) -> None:
    ann, bob, _, _, room = await lobby(server, spectator_delay=0)
    spectator = await Client.connect(server.ws_url)
    await spectator.request({"type": "watch", "room": room["code"]}, "watching")
    await ann.send({"type": "start"})
    racing = await bob.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    assert [p.get("board") for p in racing["room"]["players"]] == [None, None]
    assert racing["room"]["deal"] is None  # a random deal: told at the end
    watched = await spectator.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    assert len(boards(watched)) == 2
    state = await ann.started()
    assert racing["opening"] == {k: state[k] for k in ("board", "legal_moves")}  # the deal, as everyone starts it
    for _ in range(5):
        move = next(m for m in state["legal_moves"] if m != "shuffle")
        state = await ann.request({"type": "move", "move": move, "version": state["version"]}, "state")
    seen = await bob.expect("player", where=lambda m: m["player"]["version"] == state["version"])
    assert seen["player"]["cards"] == state["cards"] and seen["player"]["moves"] == 5
    shown = await spectator.expect("player", where=lambda m: m["player"]["version"] == state["version"])
    assert shown["player"]["board"] == state["board"]
    # Nothing Bob got during the race holds a board but his own game's.
    assert [b for m in bob.inbox if m.get("type") != "state" for b in boards(m) if leaks(b)] == []
    bob.inbox.clear()
    synced = await bob.request({"type": "sync"}, "room")
    assert [p.get("board") for p in synced["room"]["players"]] == [None, None]  # (Bob's own is in his state)
    # Over: everyone sees everything, the deal number too.
    for c in (ann, bob):
        await c.send({"type": "resign"})
    over = await bob.expect("room", where=lambda m: m["room"]["phase"] == "over")
    assert len(boards(over)) == 2 and isinstance(over["room"]["deal"], int) and not over["room"]["known_deal"]
    for c in (ann, bob, spectator):
        await c.close()


async def test_a_chosen_deal_says_so(server: Server) -> None:
    ann, bob, created, joined, room = await lobby(server, deal=42)
    assert (room["deal"], room["known_deal"]) == (42, True)
    assert joined["room"]["known_deal"] and leaks(created["state"]) == []  # the number, not the cards
    for c in (ann, bob):
        await c.close()


async def test_spectators_watch_the_race_as_it_was_the_delay_ago(server: Server) -> None:
    ann, bob, _, _, room = await lobby(server, spectator_delay=15)  # 300 ms here
    assert room["spectator_delay"] == 15
    # A lobby holds no secret: its spectator sees it at once, and who comes too.
    spectator = await Client.connect(server.ws_url)
    asked = time.time() * 1000
    watching = await spectator.request({"type": "watch", "room": room["code"]}, "watching")
    assert time.time() * 1000 - asked < 300 and [p["name"] for p in watching["room"]["players"]] == ["Ann", "Bob"]
    assert [m for m in spectator.inbox if m.get("type") == "delayed"] == []
    # The delay begins with the race: the spectator is told at once, then sees it as it was.
    await ann.send({"type": "start"})
    started = time.time() * 1000
    told = await spectator.expect("delayed")
    assert told == {"type": "delayed", "ms": 300, "started": True}
    assert time.time() * 1000 - started < 300
    await bob.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    state = await ann.started()
    racing = await spectator.expect("room", where=lambda m: m["room"]["phase"] != "lobby")
    assert time.time() * 1000 - started >= 300 and racing["room"]["server_time"] <= started + 300
    moved = time.time() * 1000
    state = await ann.request({"type": "move", "move": state["legal_moves"][0], "version": state["version"]}, "state")
    await bob.expect("player", where=lambda m: m["player"]["version"] == state["version"])
    rival = time.time() * 1000
    shown = await spectator.expect("player", where=lambda m: m["player"]["version"] == state["version"])
    watched = time.time() * 1000
    assert shown["player"]["board"] == state["board"]
    assert watched - moved >= 300 and rival - moved < watched - moved  # the players first, live
    # One who comes once the race runs is told at once, and everything comes that much later.
    late = await Client.connect(server.ws_url)
    asked = time.time() * 1000
    told = await late.request({"type": "watch", "room": room["code"]}, "delayed")
    assert told == {"type": "delayed", "ms": 300}
    seen = await late.expect("watching")
    got = time.time() * 1000
    assert got - asked >= 300 and got - seen["room"]["server_time"] >= 300  # the snapshot, as it was
    for c in (ann, bob, spectator, late):
        await c.close()


async def test_a_device_racing_in_the_room_is_shown_no_boards_until_its_game_is_done(server: Server) -> None:
    device = "k" * 32
    ann, bob, _, _, room = await lobby(server, spectator_delay=0, device=device)
    await ann.send({"type": "start"})
    await bob.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    second_tab = await Client.connect(server.ws_url)
    blind = await second_tab.request({"type": "watch", "room": room["code"], "device": device}, "watching")
    assert blind["blind"] == "s1" and boards(blind) == []
    state = await bob.started()
    state = await bob.request({"type": "move", "move": state["legal_moves"][0], "version": state["version"]}, "state")
    seen = await second_tab.expect("player", where=lambda m: m["player"]["seat"] == "s2")
    assert "board" not in seen["player"]
    # Another device watches with the boards; once Ann's game is done, so may hers.
    other = await Client.connect(server.ws_url)
    assert (
        len(boards(await other.request({"type": "watch", "room": room["code"], "device": "o" * 32}, "watching"))) == 2
    )
    await ann.request({"type": "resign"}, "state")
    again = await Client.connect(server.ws_url)
    sees = await again.request({"type": "watch", "room": room["code"], "device": device}, "watching")
    assert "blind" not in sees and len(boards(sees)) == 2
    for c in (ann, bob, second_tab, other, again):
        await c.close()
