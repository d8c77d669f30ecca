"""Hostile input, generated: random and malformed messages in random order from strangers,
players and spectators across rooms, over real websockets to a real server on a real Redis.

After every message, every reply is a documented message type, every error a documented
code with no stack trace, and no token shows up anywhere it should not; after every example,
every connection still works and the well-behaved players' race carries on; at the end,
every stored game loads with the engine and satisfies its invariants.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import msgspec
import pytest
import redis.asyncio as aioredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from race.engine import Game
from race.rooms.model import Meta, Seat, history_keys, history_of
from tests.support.invariants import check_invariants
from tests.support.processes import Client, Server

SERVER_TYPES = {"hello", "joined", "watching", "state", "player", "room", "hint", "pong", "resync", "error"}
SERVER_TYPES |= {"leaderboard", "left"}
ERROR_CODES = {
    *("bad_json", "bad_message", "unknown_type", "too_large", "bad_name", "name_taken", "unknown_room"),
    *("bad_token", "already_in_room", "not_in_room", "spectator", "not_host", "already_started", "room_full"),
    *("not_started", "not_racing", "race_over", "not_over", "finished", "resigned", "invalid_move"),
    *("illegal_move", "too_many_moves", "stale", "busy", "bad_date", "no_rematch", "bad_seat"),
    "rival_racing",
    *("no_offer", "waiting", "not_yet", "bad_rematch", "bad_series"),
    *("unknown_replay", "bad_step", "bad_practice", "practice_room"),
}  # never "internal" (a bug), "unavailable" (Redis is up) or "rate_limited" (limits are high here)
LEAKS = re.compile(r"Traceback|File \"|line \d+, in")


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[Server]:
    s = Server(redis_url, RATE_LIMIT_PER_SECOND="10000", RATE_LIMIT_BURST="10000", MAX_CONNECTIONS_PER_IP="1000")
    yield s
    s.stop()


@dataclass
class World:
    """Two rooms run by well-behaved clients: R1 racing (host, guest, spectator), R2 in its
    lobby (host, guest). The fuzz never gets their tokens."""

    codes: dict[str, str]
    clients: dict[str, Client]
    tokens: set[str]
    state: dict[str, Any]
    rooms: set[str] = field(default_factory=set)  # every room the fuzz saw created


async def connect(server: Server) -> Client:
    return await Client.connect(server.ws_url, max_queue=None)


@pytest.fixture(scope="module")
async def world(server: Server, redis_url: str) -> AsyncIterator[World]:
    clients = {name: await connect(server) for name in ("h1", "g1", "s1", "h2", "g2")}
    one = await clients["h1"].request(
        {"type": "create", "name": "Host One", "difficulty": "easy", "deal": 11}, "joined"
    )
    two = await clients["h2"].request({"type": "create", "name": "Host Two", "deal": 12}, "joined")
    codes = {"R1": one["room"]["code"], "R2": two["room"]["code"]}
    g1 = await clients["g1"].request({"type": "join", "room": codes["R1"], "name": "Guest One"}, "joined")
    g2 = await clients["g2"].request({"type": "join", "room": codes["R2"], "name": "Guest Two"}, "joined")
    await clients["s1"].request({"type": "watch", "room": codes["R1"]}, "watching")
    await clients["h1"].send({"type": "start"})
    await clients["g1"].expect("room", where=lambda m: m["room"]["phase"] == "racing")
    start = await clients["h1"].started()  # (no board is sent before the start)
    w = World(codes, clients, {one["token"], two["token"], g1["token"], g2["token"]}, start)
    w.rooms.update(codes.values())
    yield w
    for c in clients.values():
        await c.close()


# -- what the fuzz sends ---------------------------------------------------------------

text = st.text(st.characters(codec="utf-8"), max_size=24)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | text,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(text, kids, max_size=3),
    max_leaves=8,
)
names = st.sampled_from(["Ann", "Bob", " bob ", "Zoë", "<b>x</b>", "a\x00b", "\u202eevil", "x" * 21, ""]) | text
rooms = st.sampled_from(["@R1", "@R2", "@own", "NOSUCH1", "r1", ""]) | text
legal = st.just("@legal")
move_texts = (
    st.one_of(legal, legal, legal, legal, legal, legal)
    | st.sampled_from(["shuffle", "p0>p0", "uH>dH", "dS>p0", "p99>uH", "P1>UH", "p1>p1>p2"])
    | st.from_regex(r"[pud][0-9SHDC]{1,2}>[pud][0-9SHDC]{1,2}", fullmatch=True)
    | text
)
at_v = st.just("@v")
versions = st.one_of(at_v, at_v, at_v, at_v, at_v, st.integers(-2, 40), st.integers(), st.just(2**70))
ids = st.none() | st.sampled_from(["retry-1", "retry-2"]) | text | st.just("i" * 65)


def typed(kind: str, *required: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A message of ``kind``: its ``required`` fields and some of the others; now and then
    with a field missing, of the wrong type, or one that does not exist."""
    base = st.fixed_dictionaries(
        {"type": st.just(kind), **{k: fields[k] for k in required}},
        optional={k: v for k, v in fields.items() if k not in required},
    )
    keys = st.sampled_from([*fields, "extra"])

    def spoil(m: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        dropped = st.builds(lambda k: {n: v for n, v in m.items() if n != k}, keys)
        wrong = st.builds(lambda k, v: {**m, k: v}, keys, json_values)
        return st.one_of(st.just(m), st.just(m), st.just(m), dropped, wrong)

    return base.flatmap(spoil)


messages = st.one_of(
    typed("create", "name", name=names, difficulty=st.sampled_from(["easy", "medium", "hard", "nope"]),
          deal=st.integers(-1, 2**64), time_limit=st.integers(0, 100_000), listed=st.booleans(),
          match=st.integers(0, 5), arena=st.integers(2, 11),
          **{"from": st.fixed_dictionaries({"replay": st.sampled_from(["AAAAAAAAAAAA", "short"]) | text,
                                            "step": st.integers(-1, 2**64)})}),
    typed("join", "room", "name", room=rooms, name=names),
    typed("watch", "room", room=rooms),
    typed("resume", "room", "token", room=rooms, token=text, version=versions),
    typed("ready", ready=st.booleans()),
    typed("start"),
    *[typed("move", "move", "version", move=move_texts, version=versions, id=ids)] * 5,
    typed("undo", "version", version=versions, id=ids),
    typed("restart", "version", version=versions, id=ids),
    typed("hint"),
    typed("resign"),
    typed("rematch", deal=st.integers(-1, 2**64)),
    typed("answer", "accept", accept=st.booleans() | text),
    typed("leave"),
    typed("remove", "seat", seat=st.sampled_from(["s1", "s2", "s3", "s9", "x"]) | text),
    typed("end"),
    typed("vote_end", vote=st.booleans()),
    typed("ping"),
    typed("leaderboard", difficulty=st.sampled_from(["easy", "hard", "x"]),
          date=st.sampled_from(["2020-01-01", "2999-01-01", "yesterday"]), top=st.integers(-1, 200)),
    st.builds(lambda t, v: {"type": t, **v}, text, st.dictionaries(text, json_values, max_size=3)),
)  # fmt: skip
# A player's good moves (a legal move on the current version, an undo), so that the fuzz
# reaches deep into real games: finished, stuck, out of shuffles, restarted.
good = st.one_of(
    st.builds(lambda i: {"type": "move", "move": "@legal", "version": "@v", "id": i}, ids),
    st.just({"type": "undo", "version": "@v"}),
)
frames: st.SearchStrategy[dict[str, Any] | str | bytes] = st.one_of(
    good,
    good,
    good,
    messages,
    messages,
    messages,
    json_values.map(json.dumps),
    text,
    st.binary(max_size=64),
    st.integers(4097, 9000).map(lambda n: json.dumps({"type": "ping", "pad": "x" * n})),
)
steps = st.lists(st.tuples(st.sampled_from([0, 1, 2, 2, 2, 3]), frames), min_size=8, max_size=30)


# -- running it --------------------------------------------------------------------------


@dataclass
class Actor:
    client: Client
    role: str = "stranger"
    room: str | None = None
    version: int = 1
    legal: list[str] = field(default_factory=lambda: ["shuffle"])
    barriers: int = 0


def resolve(value: Any, actor: Actor, world: World, pick: int) -> Any:
    if isinstance(value, dict):
        return {k: resolve(v, actor, world, pick) for k, v in value.items()}
    if value == "@v":
        return actor.version
    if value == "@legal":
        return actor.legal[pick % len(actor.legal)] if actor.legal else "shuffle"
    if value in ("@R1", "@R2"):
        return world.codes[value[1:]]
    if value == "@own":
        return actor.room or "NOSUCH2"
    return value


def learn(actor: Actor, world: World, m: dict[str, Any]) -> None:
    state = m.get("state") if m["type"] in ("joined", "error") else m if m["type"] == "state" else None
    if isinstance(state, dict):
        actor.version, actor.legal = state["version"], state["legal_moves"]
    if m["type"] in ("joined", "watching"):
        actor.room = m["room"]["code"]
        world.rooms.add(actor.room)


def check(m: Any, tokens: set[str]) -> None:
    assert isinstance(m, dict) and m.get("type") in SERVER_TYPES, m
    raw = json.dumps(m)
    if m["type"] == "error":
        assert m["code"] in ERROR_CODES, m
        assert isinstance(m["message"], str) and m["message"] and not LEAKS.search(m["message"]), m
    assert not any(t in raw for t in tokens), m
    if m["type"] != "joined":
        assert '"token"' not in raw, m


async def barrier(actor: Actor, world: World, tokens: set[str]) -> None:
    """Everything the server sent this actor up to now (checked and learned from): a bad
    message with a unique field name, whose error names that field, marks the end."""
    actor.barriers += 1
    mark = f"barrier{actor.barriers}"
    await actor.client.send({"type": "ping", mark: 0})
    while True:
        m = await actor.client.expect(*SERVER_TYPES)
        if m["type"] == "error" and mark in m["message"]:
            return
        check(m, tokens)
        if m["type"] == "joined" and "token" in m:
            tokens.add(m["token"])  # a fresh token, sent to its owner only: no one may see it again
        learn(actor, world, m)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=steps, picks=st.lists(st.integers(0, 1000), min_size=30, max_size=30))
async def test_random_and_malformed_messages_break_nothing(
    server: Server, world: World, plan: list[tuple[int, Any]], picks: list[int]
) -> None:
    # Four fresh connections: two strangers, a spectator of the race, a host of a new race.
    actors = [Actor(await connect(server)) for _ in range(4)]
    tokens = set(world.tokens)
    await actors[1].client.request({"type": "watch", "room": world.codes["R1"]}, "watching")
    actors[1].role, actors[1].room = "spectator", world.codes["R1"]
    joined = await actors[2].client.request({"type": "create", "name": "Fuzz", "difficulty": "easy"}, "joined")
    tokens.add(joined["token"])
    learn(actors[2], world, joined)
    await actors[2].client.send({"type": "start"})
    await actors[2].client.expect("room", where=lambda m: m["room"]["phase"] == "racing")
    actors[2].role = "player"

    for (who, frame), pick in zip(plan, picks * 2, strict=False):
        actor = actors[who]
        if isinstance(frame, bytes):
            await actor.client.ws.send(frame)
        else:
            await actor.client.send(frame if isinstance(frame, str) else resolve(frame, actor, world, pick))
        await barrier(actor, world, tokens)

    for actor in actors:  # every connection behaved (no oversized frames, no flooding): all still work
        assert actor.client.ws.close_code is None
        assert (await actor.client.request({"type": "ping"}, "pong"))["type"] == "pong"
        await actor.client.close()

    # The well-behaved race in R1 carries on, and its guest and spectator see it.
    h1 = world.clients["h1"]
    state = world.state
    msg = (
        {"type": "move", "move": state["legal_moves"][0], "version": state["version"]}
        if state["legal_moves"]
        else {"type": "undo", "version": state["version"]}
    )
    world.state = state = await h1.request(msg, "state")
    assert state["type"] == "state", state
    for name in ("g1", "s1"):
        seen = await world.clients[name].expect("player", where=lambda m: m["player"]["version"] == state["version"])
        check(seen, world.tokens)
    for name in ("g2", "h2"):
        assert (await world.clients[name].request({"type": "ping"}, "pong"))["type"] == "pong"


async def test_afterwards_every_stored_game_is_sound_and_no_handler_failed(
    server: Server, world: World, redis_url: str
) -> None:
    """Every room the fuzz touched, read straight from Redis: the documents decode, every
    game loads with the engine and satisfies its invariants, no log runs ahead of its document."""
    assert len(world.rooms) > 2  # the fuzz did create rooms
    raw = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        for code in world.rooms:
            h = cast(dict[str, str], await raw.hgetall(f"room:{{{code}}}"))
            aside = cast(dict[str, str], await raw.hgetall(f"room:{{{code}}}:aside"))
            assert h, code
            meta = msgspec.json.decode(h["d:meta"], type=Meta)
            # (A lobby everyone left has no seat and no host; the next to join hosts it. Seats
            # that left once their race was over stay in its results; when all have, no host.)
            staying = [sid for sid in meta.seats if not msgspec.json.decode(h[f"d:p:{sid}"], type=Seat).left]
            assert len(meta.seats) <= 8 and meta.host in (staying or [""])
            assert set(meta.ready) <= set(meta.seats)
            for sid in meta.seats:
                seat = msgspec.json.decode(h[f"d:p:{sid}"], type=Seat)
                history = history_of(seat, [aside.get(f"d:{k}") for k in history_keys(seat)])
                game = Game.from_dict({**seat.game, "history": history})  # checks cards and history
                check_invariants(game)
                version = int(h[f"v:p:{sid}"])
                log = cast(list[str], await raw.lrange(f"room:{{{code}}}:log:p:{sid}", -1, -1))
                assert not log or int(log[0].partition("|")[0]) <= version  # a rematch resets without a log entry
            assert {v for k, v in h.items() if k.startswith("d:t:")} <= set(meta.seats)
    finally:
        await raw.aclose()
    bad = [line for line in server.process.lines if "Traceback" in line or " ERROR " in line]
    assert not bad, "\n".join(server.process.lines[-80:])
