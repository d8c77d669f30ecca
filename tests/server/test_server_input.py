"""Bad input over real websockets to a real server on a real Redis: each gets a clear
error, the connection keeps working, and nobody's state changes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import websockets

from tests.support.processes import Client, Server


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[Server]:
    s = Server(redis_url, RATE_LIMIT_BURST="30", RATE_LIMIT_PER_SECOND="10")
    yield s
    s.stop()


@pytest.fixture
async def room(server: Server) -> AsyncIterator[dict[str, Any]]:
    """A lobby with a host (Ann) and a second player (Bob)."""
    host = await Client.connect(server.ws_url)
    joined = await host.request({"type": "create", "name": "Ann", "difficulty": "hard", "deal": 7}, "joined")
    code = joined["room"]["code"]
    guest = await Client.connect(server.ws_url)
    await guest.request({"type": "join", "room": code, "name": "Bob"}, "joined")
    yield {"code": code, "host": host, "guest": guest, "state": joined["state"], "token": joined["token"]}
    await host.close()
    await guest.close()


async def start(room: dict[str, Any]) -> None:
    """Start the race: the host's ``state`` becomes the start's (no board is sent before)."""
    await room["host"].send({"type": "start"})
    await room["host"].expect("room", where=lambda m: m["room"]["phase"] == "racing")
    room["state"] = await room["host"].started()


async def assert_alive(client: Client) -> None:
    assert (await client.request({"type": "ping"}, "pong"))["type"] == "pong"


async def error_for(client: Client, message: dict[str, Any] | str) -> dict[str, Any]:
    reply = await client.request(message, "__never__")
    assert reply["type"] == "error", reply
    assert reply["message"] and "Traceback" not in reply["message"]
    return reply


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("{not json", "bad_json"),
        ("", "bad_json"),
        ("[1, 2]", "bad_json"),
        ("null", "bad_json"),
        ('"ping"', "bad_json"),
        ('{"type": "teleport"}', "unknown_type"),
        ('{"hello": 1}', "unknown_type"),
        ('{"type": "join", "room": "ABC"}', "bad_message"),
        ('{"type": "move", "move": 12, "version": 1}', "bad_message"),
        ('{"type": "move", "move": "p1>uH", "version": -1}', "bad_message"),
        ('{"type": "ping", "extra": true}', "bad_message"),
        ('{"type": "create", "name": "A", "difficulty": "impossible"}', "bad_message"),
        # A last newline does not slip through (a regex "$" lets one through).
        ('{"type": "create", "name": "A", "difficulty": "hard\\n"}', "bad_message"),
        ('{"type": "daily", "name": "A", "difficulty": "easy\\n"}', "bad_message"),
        ('{"type": "leaderboard", "date": "2026-11-29\\n"}', "bad_message"),
        ('{"type": "leaderboard", "date": "\u0662\u0660\u0662\u0666-11-29"}', "bad_message"),  # Arabic-Indic digits
        ("x" * 5000, "too_large"),
        ('{"type": "create", "name": "' + "\u00e9" * 2100 + '"}', "too_large"),  # 2,130 characters, 4,230 bytes
    ],
)
async def test_malformed_messages_get_a_clear_error_and_the_connection_survives(
    server: Server, raw: str, code: str
) -> None:
    client = await Client.connect(server.ws_url)
    assert (await error_for(client, raw))["code"] == code
    await assert_alive(client)
    await client.close()


async def test_binary_frames_are_decoded_like_text(server: Server) -> None:
    client = await Client.connect(server.ws_url)
    await client.ws.send(b'{"type": "ping"}')
    assert (await client.expect("pong"))["type"] == "pong"
    await client.close()


async def test_frames_over_the_transport_limit_close_the_connection(server: Server) -> None:
    client = await Client.connect(server.ws_url)
    await client.send("x" * 200_000)
    with pytest.raises(websockets.ConnectionClosed) as info:
        await client.expect("pong")
    assert info.value.rcvd is not None and info.value.rcvd.code == 1009


async def test_flooding_is_rate_limited_without_losing_the_connection(server: Server) -> None:
    client = await Client.connect(server.ws_url)
    for _ in range(60):
        await client.send({"type": "ping"})
    replies = [await client.expect("pong", "error") for _ in range(60)]
    limited = [r for r in replies if r["type"] == "error"]
    assert limited and all(r["code"] == "rate_limited" for r in limited)
    assert sum(r["type"] == "pong" for r in replies) >= 30
    await client.close()


async def test_reconnecting_is_no_way_round_the_rate_limit(redis_url: str) -> None:
    """A seat taken over by a new connection keeps its count: a client may not spend its
    burst, resume its seat afresh, and spend another (a bot racing through a daily did)."""
    slow = Server(redis_url, RATE_LIMIT_BURST="4", RATE_LIMIT_PER_SECOND="0.01")  # one back in 100 s
    try:
        first = await Client.connect(slow.ws_url)
        joined = await first.request({"type": "create", "name": "Ann"}, "joined")
        for _ in range(3):
            assert (await first.request({"type": "ping"}, "pong"))["type"] == "pong"
        assert (await first.request({"type": "ping"}, "pong"))["code"] == "rate_limited"
        # The connection goes, and the server is done with it (the room hears it left)...
        watcher = await Client.connect(slow.ws_url)
        await watcher.request({"type": "watch", "room": joined["room"]["code"]}, "watching")
        await first.close()
        await watcher.expect("presence", where=lambda m: m["here"] == [])
        # ... and a new one resuming the seat has no fresh burst.
        second = await Client.connect(slow.ws_url)
        resume = {"type": "resume", "room": joined["room"]["code"], "token": joined["token"]}
        assert (await second.request(resume, "joined"))["type"] == "joined"
        assert (await second.request({"type": "ping"}, "pong"))["code"] == "rate_limited"
        # Nor when the old connection is still open.
        third = await Client.connect(slow.ws_url)
        assert (await third.request(resume, "joined"))["type"] == "joined"
        assert (await third.request({"type": "ping"}, "pong"))["code"] == "rate_limited"
        # Another seat (another client) has its own count.
        other = await Client.connect(slow.ws_url)
        assert (await other.request({"type": "ping"}, "pong"))["type"] == "pong"
        for c in (second, third, other, watcher):
            await c.close()
    finally:
        slow.stop()


async def test_sustained_flooding_disconnects_the_client(server: Server) -> None:
    client = await Client.connect(server.ws_url)
    with pytest.raises(websockets.ConnectionClosed) as info:
        for _ in range(1000):
            await client.send({"type": "ping"})
        await client.expect("__never__")
    assert info.value.rcvd is not None and info.value.rcvd.code == 1008


async def test_unknown_room_and_wrong_token_are_refused(server: Server, room: dict[str, Any]) -> None:
    client = await Client.connect(server.ws_url)
    assert (await error_for(client, {"type": "join", "room": "NOSUCH1", "name": "Eve"}))["code"] == "unknown_room"
    assert (await error_for(client, {"type": "watch", "room": "NOSUCH1"}))["code"] == "unknown_room"
    bad = {"type": "resume", "room": room["code"], "token": "not-a-real-token"}
    assert (await error_for(client, bad))["code"] == "bad_token"
    # A real token for another room is no good either.
    other = {"type": "resume", "room": "NOSUCH1", "token": room["token"]}
    assert (await error_for(client, other))["code"] == "unknown_room"
    await assert_alive(client)
    await client.close()


async def test_acting_before_joining_a_room_is_refused(server: Server) -> None:
    client = await Client.connect(server.ws_url)
    for msg in ({"type": "start"}, {"type": "move", "move": "shuffle", "version": 1}, {"type": "hint"}):
        assert (await error_for(client, msg))["code"] == "not_in_room"
    await client.close()


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * 21, "at most 20"),
        ("x" * 150, "at most 20"),
        ("\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466" * 21, "at most 20"),  # 21 families
        ("\u200d".join(["\U0001f468"] * 6), "code points"),  # one "character" of 11 code points: padding
        ("Bad\x00Name", "control"),
        ("Eve\u202egnp.exe", "invisible"),
        ("zero\u200bwidth", "invisible"),
        ("\u3164", "invisible"),  # a Hangul filler: looks empty
        ("\u2800\u2800", "invisible"),  # blank Braille patterns
        ("Bob\u034f", "invisible"),  # looks like "Bob", who is in the room
        ("Bob\ufe0f", "invisible"),  # an emoji's presentation selector after a letter: hidden
        ("B\u200dob", "invisible"),  # a zero-width joiner between Latin letters
        ("B\u200cob", "invisible"),
        ("\U0001f468\u200d", "invisible"),  # a joiner with no emoji after it
        ("\U0001f3fd\u200d\U0001f4bb", "invisible"),  # nor a person before the skin tone
        ("\U0001f3f4\U000e0067\U000e0062", "invisible"),  # a flag's tags, never cancelled
        ("\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "hi there") + "\U000e007f", "invisible"),  # hidden text
        ("\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "GBENG") + "\U000e007f", "invisible"),
        ("Z\u0335\u0336\u0337algo", "accents"),
        ("\u0301x", "accents"),
        ("<script>x</script>", "< or >"),
        ("<b>bold", "< or >"),
    ],
)
async def test_hostile_nicknames_are_refused(server: Server, room: dict[str, Any], name: str, why: str) -> None:
    client = await Client.connect(server.ws_url)
    reply = await error_for(client, {"type": "join", "room": room["code"], "name": name})
    assert reply["code"] == "bad_name" and why in reply["message"]
    await assert_alive(client)
    await client.close()
    # The room is untouched: still the two players.
    watcher = await Client.connect(server.ws_url)
    watching = await watcher.request({"type": "watch", "room": room["code"]}, "watching")
    assert [p["name"] for p in watching["room"]["players"]] == ["Ann", "Bob"]
    await watcher.close()


@pytest.mark.parametrize(
    "name",
    [
        "\u2764\ufe0f love",  # ❤️: a heart with the emoji presentation selector
        "\U0001f468\u200d\U0001f469\u200d\U0001f467 fam",  # a family: people joined by ZWJs
        "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 Famille Dupont",  # 16 characters, 22 code points
        "q\u0301" * 20,  # 20 letters with accents (no precomposed form), 40 code points
        "\U0001f469\U0001f3fd\u200d\U0001f4bb dev",  # a skin tone, then a joiner
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # a rainbow flag
        "1\ufe0f\u20e3 one",  # a keycap
        "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f Eng",  # England's flag
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, with its zero-width non-joiner
    ],
)
async def test_emoji_and_joined_scripts_are_good_names(server: Server, room: dict[str, Any], name: str) -> None:
    client = await Client.connect(server.ws_url)
    reply = await client.request({"type": "join", "room": room["code"], "name": name}, "joined")
    assert reply["type"] == "joined" and reply["room"]["players"][-1]["name"] == name, reply
    await client.request({"type": "leave"}, "left")
    await client.close()


async def test_names_are_trimmed_and_must_be_unique_in_a_room(server: Server, room: dict[str, Any]) -> None:
    client = await Client.connect(server.ws_url)
    error = await error_for(client, {"type": "join", "room": room["code"], "name": " Bob "})
    assert error["code"] == "name_taken" and error["message"] == "someone in this room is already called 'Bob'"
    for lookalike in ("bob", "\uff22ob", "\U0001d401ob"):  # lower case, a full-width B, a mathematical bold B
        error = await error_for(client, {"type": "join", "room": room["code"], "name": lookalike})
        # the name taken, as its player wrote it, and the newcomer's that reads the same
        assert error["code"] == "name_taken", error
        assert error["message"] == f"someone in this room is already called 'Bob' ({lookalike!r} reads the same)"
    joined = await client.request({"type": "join", "room": room["code"].lower(), "name": "  Cy   Young "}, "joined")
    assert joined["room"]["players"][-1]["name"] == "Cy Young"
    await client.close()


async def test_moves_before_the_start_are_refused(room: dict[str, Any]) -> None:
    for msg in ({"type": "undo", "version": 1}, {"type": "restart", "version": 1}):
        assert (await error_for(room["host"], msg))["code"] == "not_started"
    reply = await error_for(room["host"], {"type": "move", "move": "shuffle", "version": 1})
    assert reply["code"] == "not_started"


async def test_only_the_host_starts(room: dict[str, Any]) -> None:
    assert (await error_for(room["guest"], {"type": "start"}))["code"] == "not_host"


async def test_spectators_cannot_act(server: Server, room: dict[str, Any]) -> None:
    spectator = await Client.connect(server.ws_url)
    watching = await spectator.request({"type": "watch", "room": room["code"]}, "watching")
    assert "token" not in json.dumps(watching)
    await start(room)
    for msg in (
        {"type": "move", "move": "shuffle", "version": 1},
        {"type": "start"},
        {"type": "resign"},
        {"type": "hint"},
    ):
        assert (await error_for(spectator, msg))["code"] == "spectator"
    await spectator.close()


async def test_illegal_malformed_and_stale_moves_change_nothing(server: Server, room: dict[str, Any]) -> None:
    await start(room)
    host = room["host"]
    cases = [
        ({"move": "p0>p0", "version": 1}, "illegal_move"),
        ({"move": "uH>dH", "version": 1}, "illegal_move"),
        ({"move": "dS>p0", "version": 1}, "illegal_move"),
        ({"move": "p99>uH", "version": 1}, "invalid_move"),
        ({"move": "P1>UH", "version": 1}, "invalid_move"),
        ({"move": room["state"]["legal_moves"][0], "version": 5}, "stale"),
    ]
    for fields, code in cases:
        reply = await error_for(host, {"type": "move", **fields})
        assert reply["code"] == code, reply
    # The stale reply carries the true state, which is still the deal.
    assert reply["state"]["version"] == 1 and reply["state"]["board"] == room["state"]["board"]
    # A fresh look from another connection sees the same untouched state.
    again = await Client.connect(server.ws_url)
    resumed = await again.request({"type": "resume", "room": room["code"], "token": room["token"]}, "joined")
    assert resumed["state"]["version"] == 1 and resumed["state"]["moves"] == 0
    await again.close()


async def test_a_game_holds_at_most_max_game_moves_then_undo_or_restart_go_on(redis_url: str) -> None:
    """The room stores a game's whole history (for undo), so its length is bounded: the move
    past the bound is refused with nothing changed, and undoing makes room again."""
    server = Server(redis_url, MAX_GAME_MOVES="3")
    try:
        ann = await Client.connect(server.ws_url)
        await ann.request({"type": "create", "name": "Ann", "difficulty": "easy", "deal": 7}, "joined")
        await ann.send({"type": "start"})
        await ann.expect("room", where=lambda m: m["room"]["phase"] == "racing")
        state = await ann.started()
        for _ in range(3):
            state = await ann.request(
                {"type": "move", "move": state["legal_moves"][0], "version": state["version"]}, "state"
            )
            assert state["type"] == "state", state
        refused = await error_for(ann, {"type": "move", "move": state["legal_moves"][0], "version": state["version"]})
        assert refused["code"] == "too_many_moves" and "undo" in refused["message"], refused
        again = await ann.request({"type": "sync"}, "state")
        assert again["version"] == state["version"] and again["board"] == state["board"] and again["moves"] == 3
        undone = await ann.request({"type": "undo", "version": state["version"]}, "state")
        assert undone["type"] == "state", undone
        moved = await ann.request(
            {"type": "move", "move": undone["legal_moves"][0], "version": undone["version"]}, "state"
        )
        assert moved["type"] == "state" and moved["moves"] == 4, moved
        restarted = await ann.request({"type": "restart", "version": moved["version"]}, "state")
        assert restarted["type"] == "state" and restarted["can_undo"] is False, restarted
        await ann.close()
    finally:
        server.stop()


async def test_tokens_are_never_broadcast(server: Server, room: dict[str, Any]) -> None:
    spectator = await Client.connect(server.ws_url)
    watching = await spectator.request({"type": "watch", "room": room["code"]}, "watching")
    await start(room)
    update = await spectator.expect("room")
    text = json.dumps([watching, update])
    assert room["token"] not in text and "token" not in text
    await spectator.close()
