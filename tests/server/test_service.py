"""The room service on a real Redis (and the embedded store), without the websocket layer:
concurrency, retries, time limits and rematches, with an injectable clock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from race.engine import Game
from race.rooms.errors import Refused
from race.rooms.events import PlayerBack
from race.rooms.model import Seat
from race.rooms.standing import ranking
from race.service import RaceService, Role, Session
from race.service.listing import LISTING
from race.store import Store, StoreUnavailable, open_store
from race.store.memory import MemoryStore
from race.wire import protocol as p
from tests.support.processes import FailingOnce
from tests.support.services import wired


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


async def race(service: RaceService, **create: Any) -> tuple[Session, Session, dict[str, Any], str]:
    """A started race between Ann (host) and Bob; returns their sessions and Ann's state."""
    ann, bob = Session("c1"), Session("c2")
    (joined,) = await service.handle(ann, p.Create(name="Ann", difficulty="easy", deal=5, **create))
    await service.handle(bob, p.Join(room=joined["room"]["code"], name="Bob"))
    await service.handle(ann, p.Start())
    _, state = await service.handle(ann, p.Sync())  # the board comes with the start
    return ann, bob, state, joined["token"]


async def test_concurrent_moves_on_one_state_apply_exactly_once(store: Store, redis_url: str) -> None:
    # On Redis, two services on separate connections stand for two server processes.
    other = store if isinstance(store, MemoryStore) else open_store(redis_url, ttl=3600)
    await other.connect()
    one, two = wired(store, countdown_seconds=0).service, wired(other, countdown_seconds=0).service
    ann, _, state, _ = await race(one)
    tab = Session("c3", room=ann.room, seat=ann.seat, role=Role.PLAYER)
    moves = state["legal_moves"][:6]
    attempts = [
        (one if i % 2 else two).handle(ann if i % 2 else tab, p.Play(move=m, version=state["version"]))
        for i, m in enumerate(moves * 2)
    ]
    results = await asyncio.gather(*attempts, return_exceptions=True)
    applied = [r for r in results if isinstance(r, list)]
    refused = [r for r in results if isinstance(r, Refused)]
    assert len(applied) == 1 and len(refused) == len(results) - 1
    assert {e.code for e in refused} <= {"stale", "illegal_move"}
    (final,) = await one.handle(ann, p.Undo(version=state["version"] + 1))
    assert final["version"] == state["version"] + 2 and final["moves"] == 1
    if other is not store:
        await other.close()


async def test_a_retried_move_applies_once(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, _, state, _ = await race(service)
    move = p.Play(move=state["legal_moves"][0], version=state["version"], id="m-1")
    (first,) = await service.handle(ann, move)
    (again,) = await service.handle(ann, move)
    assert again["duplicate"] is True and again["version"] == first["version"] and again["moves"] == 1


async def test_moves_wait_for_the_countdown(store: Store) -> None:
    clock = Clock()
    service = wired(store, clock, countdown_seconds=3).service
    ann, _, state, _ = await race(service)
    with pytest.raises(Refused) as info:
        await service.handle(ann, p.Play(move="shuffle", version=state["version"]))
    assert info.value.code == "not_started"
    clock.now += 3000
    (reply,) = await service.handle(ann, p.Play(move="shuffle", version=state["version"]))
    assert reply["shuffles_left"] == 8


async def test_the_time_limit_ends_the_race_and_ranks_by_cards(store: Store) -> None:
    clock = Clock()
    service = wired(store, clock, countdown_seconds=0).service
    ann, bob, state, _ = await race(service, time_limit=60)
    plays = [m for m in state["legal_moves"] if m[-2] in "ud"]
    (after,) = await service.handle(bob, p.Play(move=plays[0], version=state["version"]))
    assert after["cards"] == 9
    clock.now += 59_999
    assert not await service.ending.end_if_done(ann.room or "")
    clock.now += 1
    with pytest.raises(Refused) as info:
        await service.handle(ann, p.Play(move="shuffle", version=state["version"]))
    assert info.value.code == "race_over"
    (watching,) = await service.handle(Session("c9"), p.Watch(room=ann.room or ""))
    room = watching["room"]
    assert room["phase"] == "over" and room["ended_at"] == clock.now
    assert [(r["place"], r["name"], r["cards"]) for r in room["ranking"]] == [(1, "Bob", 9), (2, "Ann", 8)]


async def test_resigning_everyone_ends_the_race_and_rematch_deals_again(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, bob, state, _ = await race(service)
    await service.handle(ann, p.Resign())
    with pytest.raises(Refused) as info:
        await service.handle(ann, p.Rematch(deal=6))
    assert info.value.code == "not_over"
    await service.handle(bob, p.Resign())
    await service.handle(bob, p.Rematch(deal=6))  # anyone may offer it, once it is over
    (watching,) = await service.handle(Session("c9"), p.Watch(room=ann.room or ""))
    assert watching["room"]["phase"] == "over" and watching["room"]["series"]["offer"]["by"] == "s2"
    await service.handle(ann, p.Answer(accept=True))  # Ann says yes: the round opens, Ann still hosts
    (watching,) = await service.handle(Session("c9"), p.Watch(room=ann.room or ""))
    room = watching["room"]
    assert room["phase"] == "lobby" and room["deal"] == 6 and room["round"] == 2 and room["host"] == "s1"
    assert all(pl["moves"] == 0 and not pl["resigned"] for pl in room["players"])
    assert room["players"][0]["board"] != state["board"]
    room_again, fresh = await service.handle(ann, p.Sync())
    assert room_again["room"]["round"] == 2 and fresh["type"] == "state"
    assert fresh["board"] == room["players"][0]["board"] and not fresh["legal_moves"]  # face down
    await service.handle(ann, p.Start())
    _, dealt = await service.handle(ann, p.Sync())
    assert dealt["board"] != state["board"] and dealt["legal_moves"]  # the new deal, at the start
    (spectating,) = await service.handle(Session("c9", room=ann.room, role=Role.SPECTATOR), p.Sync())
    assert spectating["room"]["deal"] == 6


async def test_all_players_ready_starts_the_race(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, bob = Session("c1"), Session("c2")
    (joined,) = await service.handle(ann, p.Create(name="Ann", deal=1))
    await service.handle(bob, p.Join(room=joined["room"]["code"], name="Bob"))
    await service.handle(ann, p.Ready())
    (watching,) = await service.handle(Session("c9"), p.Watch(room=joined["room"]["code"]))
    assert watching["room"]["phase"] == "lobby"
    await service.handle(bob, p.Ready())
    (watching,) = await service.handle(Session("c8"), p.Watch(room=joined["room"]["code"]))
    assert watching["room"]["phase"] == "racing"


async def test_resume_returns_the_moves_missed_since_a_version(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, _, state, token = await race(service)
    v = state["version"]
    (s1,) = await service.handle(ann, p.Play(move="shuffle", version=v))
    (s2,) = await service.handle(ann, p.Undo(version=s1["version"]))
    (joined,) = await service.handle(Session("c7"), p.Resume(room=ann.room or "", token=token, version=v))
    assert joined["missed"] == [{"version": v + 1, "action": "shuffle"}, {"version": v + 2, "action": "undo shuffle"}]
    assert joined["state"] == {**s2}


async def test_a_retry_of_the_move_that_ended_the_race_gets_its_state(store: Store) -> None:
    """The one move a client most needs confirmed: retried after the race ended (here by
    its time limit), it is answered as a duplicate, not refused as ``race_over``."""
    clock = Clock()
    service = wired(store, clock, countdown_seconds=0).service
    ann, _, state, _ = await race(service, time_limit=30)
    move = p.Play(move=state["legal_moves"][0], version=state["version"], id="last")
    (first,) = await service.handle(ann, move)
    clock.now += 30_000
    (again,) = await service.handle(ann, move)
    assert again["duplicate"] is True and again["version"] == first["version"] and again["moves"] == 1
    with pytest.raises(Refused) as info:
        await service.handle(ann, p.Play(move=move.move, version=state["version"], id="another"))
    assert info.value.code == "race_over"


async def test_a_player_who_is_out_is_told_so(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, _, state, _ = await race(service)
    await service.handle(ann, p.Resign())  # Bob races on
    for msg in (p.Resign(), p.Hint(), p.Play(move="shuffle", version=state["version"] + 1)):
        with pytest.raises(Refused) as info:
            await service.handle(ann, msg)
        assert info.value.code == "resigned", msg


async def test_resume_across_a_rematch_sends_no_partial_account(store: Store) -> None:
    """A rematch deals every seat anew without a log entry: ``missed`` from the old round
    would replay onto the wrong board, so it is left out; ``state`` is the new deal."""
    service = wired(store, countdown_seconds=0).service
    ann, bob, state, token = await race(service)
    v = state["version"]
    await service.handle(ann, p.Play(move="shuffle", version=v))
    await service.handle(ann, p.Resign())
    await service.handle(bob, p.Resign())
    await service.handle(ann, p.Rematch(deal=6))
    await service.handle(bob, p.Answer(accept=True))
    (joined,) = await service.handle(Session("c7"), p.Resume(room=ann.room or "", token=token, version=v))
    assert "missed" not in joined
    assert joined["state"]["moves"] == 0 and joined["state"]["version"] == v + 3


class UnlistingStore(MemoryStore):
    """The embedded store, with the live-rooms listing unreachable."""

    async def list_add(self, key: str, member: str, expires_at: float) -> bool:
        raise StoreUnavailable("listing down")


async def test_a_room_is_created_even_when_it_cannot_be_listed() -> None:
    """Once the room is committed nothing may fail, or its creator would be seated in it
    without ever getting the token: the listing is best effort."""
    store = UnlistingStore(ttl=60)
    parts = wired(store, countdown_seconds=0)
    service = parts.service
    session = Session("c1")
    (joined,) = await service.handle(session, p.Create(name="Ann", deal=5))
    assert joined["token"] and session.room == joined["room"]["code"]
    assert await parts.listings.live_rooms() == []
    (again,) = await service.handle(Session("c2"), p.Resume(room=session.room or "", token=joined["token"]))
    assert again["state"] == joined["state"]


async def test_the_live_list_shows_rooms_with_a_player_connected_and_counts_spectators(store: Store) -> None:
    """A room everyone has left (closed tabs) is no race to watch or join: it leaves the
    list, though it is kept for its players, and the first one back puts it on again."""
    parts = wired(store, countdown_seconds=0)
    service = parts.service
    (joined,) = await service.handle(Session("c1"), p.Create(name="Ann", deal=5))
    code = joined["room"]["code"]
    now = service.clock() / 1000

    async def live() -> dict[str, dict[str, Any]]:  # all of them: the Redis is shared with other tests
        return {r["code"]: r for r in await parts.listings.live_rooms(limit=100_000)}

    assert code not in await live()  # its creator is on the way in: not shown, not dropped
    await store.presence(code, now, here=["s1 c1", "~ c2", "~ c3"], until=now + 30)
    room = (await live())[code]
    assert (room["players"], room["here"], room["watching"]) == (1, 1, 2)
    await store.presence(code, now, gone=["s1 c1"])
    assert code not in await live()  # only spectators left
    assert code not in await store.list_members(LISTING, now, 100_000)  # off the list
    await store.presence(code, now, here=["s1 c4"], until=now + 30)
    await parts.listings.relist(PlayerBack(code))  # Ann is back
    assert (await live())[code]["here"] == 1


async def test_the_live_list_may_be_a_moment_old_unless_this_process_changed_it(store: Store) -> None:
    parts = wired(store, countdown_seconds=0)
    service = parts.service
    await parts.listings.live_rooms(limit=100_000, max_age=3600)

    async def codes(**kwargs: float) -> set[str]:
        return {r["code"] for r in await parts.listings.live_rooms(limit=100_000, **kwargs)}

    (joined,) = await service.handle(Session("c1"), p.Create(name="Ann", deal=5))
    code = joined["room"]["code"]
    now = service.clock() / 1000
    await store.presence(code, now, here=["s1 c1"], until=now + 30)
    assert code in await codes(max_age=3600)  # listed by this process: read afresh
    await store.presence(code, now, gone=["s1 c1"])  # news this process's list does not know
    assert code in await codes(max_age=3600)
    assert code not in await codes()


async def test_while_the_host_is_away_a_player_here_acts_as_host(store: Store) -> None:
    """A lobby whose host closed the tab is not stuck: a player with a connection open may
    start the race or remove a player, and becomes the host."""
    service = wired(store, countdown_seconds=0).service
    ann, bob, cy = Session("c1"), Session("c2"), Session("c3")
    (joined,) = await service.handle(ann, p.Create(name="Ann", deal=5))
    code = joined["room"]["code"]
    for session, name in ((bob, "Bob"), (cy, "Cy")):
        await service.handle(session, p.Join(room=code, name=name))
    now = service.clock() / 1000

    async def refused(session: Session, msg: p.ClientMessage) -> None:
        with pytest.raises(Refused) as info:
            await service.handle(session, msg)
        assert info.value.code == "not_host"

    await refused(bob, p.Start())  # nobody's presence known: the host is taken to be here
    await store.presence(code, now, here=["s1 c1", "s2 c2", "s3 c3"], until=now + 30)
    await refused(bob, p.Remove(seat="s3"))  # the host is here
    await store.presence(code, now, gone=["s1 c1"])  # Ann closed the tab, or is reloading it
    with pytest.raises(Refused, match=r"may be back: try again in 1[0-5] s"):
        await service.handle(bob, p.Remove(seat="s3"))
    await store.presence(code, now, here=["s1 c5"], until=now + 30)
    await store.presence(code, now - 16, gone=["s1 c5"])  # gone for good: 16 s ago
    await service.handle(bob, p.Remove(seat="s3"))
    room = (await service.handle(bob, p.Sync()))[0]  # then Bob's state
    assert room["room"]["host"] == "s2" and [pl["seat"] for pl in room["room"]["players"]] == ["s1", "s2"]
    await store.presence(code, now, here=["s1 c4"], until=now + 30)  # Ann is back: Bob stays host
    await refused(ann, p.Start())
    await service.handle(bob, p.Start())
    with pytest.raises(Refused) as info:  # removed meanwhile: removes nobody
        await service.handle(cy, p.Remove(seat="s1"))
    assert info.value.code == "not_in_room"


class CountingReads(MemoryStore):
    """The embedded store, counting the readings of the live list."""

    readings = 0

    async def list_members(self, key: str, now: float, limit: int) -> list[str]:
        self.readings += 1
        await asyncio.sleep(0)  # a reading takes a while: others ask meanwhile
        return await super().list_members(key, now, limit)


async def test_callers_at_the_same_time_share_one_reading_of_the_live_list() -> None:
    store = CountingReads(ttl=60)
    parts = wired(store, countdown_seconds=0)
    answers = await asyncio.gather(*(parts.listings.live_rooms(max_age=2) for _ in range(20)))
    assert store.readings == 1 and all(a == [] for a in answers)
    await parts.listings.live_rooms(max_age=2)
    assert store.readings == 1
    await parts.listings.live_rooms()  # no max_age: always afresh
    assert store.readings == 2


async def test_a_player_leaves_the_lobby_and_the_host_role_passes_on(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, bob, cy = Session("c1"), Session("c2"), Session("c3")
    (created,) = await service.handle(ann, p.Create(name="Ann", deal=5))
    code = created["room"]["code"]
    (bob_joined,) = await service.handle(bob, p.Join(room=code, name="Bob"))
    await service.handle(cy, p.Join(room=code, name="Cy"))
    await service.handle(bob, p.Ready())
    await service.handle(cy, p.Ready())
    retry = Session("c1", room=ann.room, seat=ann.seat, role=Role.PLAYER)  # the same, its reply lost
    assert await service.handle(ann, p.Leave()) == [{"type": "left"}]
    assert ann.room is None and ann.seat is None and ann.role is None
    assert await service.handle(retry, p.Leave()) == [{"type": "left"}] and retry.room is None
    # Bob and Cy were both ready: with Ann gone, everyone left is, and the race starts.
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    room = watching["room"]
    assert [pl["name"] for pl in room["players"]] == ["Bob", "Cy"] and room["host"] == "s2"
    assert room["phase"] == "racing"
    with pytest.raises(Refused) as info:  # her token no longer opens the room
        await service.handle(Session("c4"), p.Resume(room=code, token=created["token"]))
    assert info.value.code == "bad_token"
    again = await service.handle(Session("c5"), p.Resume(room=code, token=bob_joined["token"]))
    assert again[0]["seat"] == "s2"
    with pytest.raises(Refused) as info:
        await service.handle(bob, p.Leave())
    assert info.value.code == "already_started"
    # Ann's seat and token are gone from the store, not only from the room's list.
    docs = await store.read_all(code)
    assert "p:s1" not in docs and not any(d.data == "s1" for n, d in docs.items() if n.startswith("t:"))


async def test_the_host_removes_a_player_who_then_cannot_act(store: Store) -> None:
    service = wired(store, countdown_seconds=0).service
    ann, bob, cy = Session("c1"), Session("c2"), Session("c3")
    (created,) = await service.handle(ann, p.Create(name="Ann", deal=5))
    code = created["room"]["code"]
    await service.handle(bob, p.Join(room=code, name="Bob"))
    (cy_joined,) = await service.handle(cy, p.Join(room=code, name="Cy"))
    for who, msg, code_ in (
        (bob, p.Remove(seat="s3"), "not_host"),
        (ann, p.Remove(seat="s1"), "bad_seat"),
        (ann, p.Remove(seat="s7"), "bad_seat"),
    ):
        with pytest.raises(Refused) as info:
            await service.handle(who, msg)
        assert info.value.code == code_, msg
    assert await service.handle(ann, p.Remove(seat="s2")) == []
    assert await service.handle(ann, p.Remove(seat="s2")) == []  # a retry: the same, harmlessly
    # A newcomer gets a fresh seat, never Bob's old one (a retried remove could reach it).
    (dee,) = await service.handle(Session("c4"), p.Join(room=code, name="Bob"))
    assert dee["seat"] == "s4"
    await service.handle(ann, p.Start())
    # Bob's connection, were it still open, can do nothing there.
    for gone in (p.Play(move="shuffle", version=1), p.Hint(), p.Resign(), p.Sync()):
        with pytest.raises(Refused) as info:
            await service.handle(bob, gone)
        assert info.value.code == "not_in_room", gone
    (state,) = await service.handle(cy, p.Play(move="shuffle", version=cy_joined["state"]["version"]))
    assert state["shuffles_left"] == 5
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    assert [pl["seat"] for pl in watching["room"]["players"]] == ["s1", "s3", "s4"]


async def test_the_host_ends_the_race_only_once_the_rival_is_away(store: Store) -> None:
    """The host is no one special: nobody ends the race while a rival still racing is here
    (nobody's presence known: everyone is taken to be); once Bob has been away 15 s, Ann
    may, and the race says how it ended and that Ann, first, did not finish."""
    service = wired(store, countdown_seconds=0).service
    ann, bob, state, _ = await race(service)  # Bob never plays
    code = ann.room or ""
    plays = [m for m in state["legal_moves"] if m[-2] in "ud"]
    await service.handle(ann, p.Play(move=plays[0], version=state["version"]))
    for who in (ann, bob):
        with pytest.raises(Refused, match="still racing here") as info:
            await service.handle(who, p.End())
        assert info.value.code == "rival_racing"
    now = service.clock() / 1000
    await store.presence(code, now, here=["s1 c1", "s2 c2"], until=now + 30)
    await store.presence(code, now - 5, gone=["s2 c2"])  # Bob closed the tab, or is reloading
    with pytest.raises(Refused, match=r"may be back: try again in 1[01] s") as info:
        await service.handle(ann, p.End())
    assert info.value.code == "rival_racing"
    await store.presence(code, now - 16, here=["s2 c3"], until=now + 30)  # back, then gone for good
    await store.presence(code, now - 16, gone=["s2 c3"])
    assert await service.handle(ann, p.End()) == []
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    room = watching["room"]
    assert room["phase"] == "over" and room["ended_by"] == "end"
    ranked = [(r["place"], r["name"], r["cards"], r["finished"]) for r in room["ranking"]]
    assert ranked == [(1, "Ann", 9, False), (2, "Bob", 8, False)]
    with pytest.raises(Refused) as info:
        await service.handle(ann, p.End())
    assert info.value.code == "not_racing"


async def test_a_race_ends_when_every_player_still_racing_here_asks(store: Store) -> None:
    """The vote: Ann asks, then plays on (which withdraws her vote), asks again; Bob asks
    too and the race is over. A player who is out has no vote; a vote outside a race is
    refused; asking twice changes nothing."""
    service = wired(store, countdown_seconds=0).service
    ann, bob, state, _ = await race(service)
    code, cy = ann.room or "", Session("c3")
    now = service.clock() / 1000
    await store.presence(code, now, here=["s1 c1", "s2 c2"], until=now + 30)
    (asked,) = await service.handle(ann, p.VoteEnd())
    assert asked["end_vote"] is True and asked["version"] == state["version"] + 1
    (again,) = await service.handle(ann, p.VoteEnd())
    assert again["version"] == asked["version"]  # nothing changed
    (moved,) = await service.handle(ann, p.Play(move=asked["legal_moves"][0], version=asked["version"]))
    assert moved["end_vote"] is False  # playing on withdraws it
    await service.handle(ann, p.VoteEnd())
    (watching,) = await service.handle(cy, p.Watch(room=code))
    assert [pl["end_vote"] for pl in watching["room"]["players"]] == [True, False]
    assert watching["room"]["phase"] == "racing"
    (bob_asks,) = await service.handle(bob, p.VoteEnd(vote=True))
    assert bob_asks["end_vote"] is True
    (watching,) = await service.handle(Session("c8"), p.Watch(room=code))
    assert watching["room"]["phase"] == "over" and watching["room"]["ended_by"] == "vote"
    assert not any(r["finished"] for r in watching["room"]["ranking"])
    with pytest.raises(Refused) as info:
        await service.handle(bob, p.VoteEnd())
    assert info.value.code == "not_racing"


async def test_a_vote_counts_only_the_players_still_racing_who_are_here(store: Store) -> None:
    """Cy resigned (no vote) and Dee has been gone 16 s (not asked): Ann and Bob asking is
    enough. Bob withdrawing first keeps it going."""
    service = wired(store, countdown_seconds=0).service
    ann, bob, cy, dee = Session("c1"), Session("c2"), Session("c3"), Session("c4")
    (created,) = await service.handle(ann, p.Create(name="Ann", deal=5))
    code = created["room"]["code"]
    for session, name in ((bob, "Bob"), (cy, "Cy"), (dee, "Dee")):
        await service.handle(session, p.Join(room=code, name=name))
    await service.handle(ann, p.Start())
    now = service.clock() / 1000
    await store.presence(code, now, here=["s1 c1", "s2 c2", "s3 c3", "s4 c4"], until=now + 30)
    await service.handle(cy, p.Resign())
    with pytest.raises(Refused) as info:
        await service.handle(cy, p.VoteEnd())
    assert info.value.code == "resigned"
    await store.presence(code, now - 16, gone=["s4 c4"])
    await service.handle(bob, p.VoteEnd())
    await service.handle(bob, p.VoteEnd(vote=False))
    await service.handle(ann, p.VoteEnd())
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    assert watching["room"]["phase"] == "racing"
    await service.handle(bob, p.VoteEnd())
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    assert watching["room"]["phase"] == "over" and watching["room"]["ended_by"] == "vote"


async def test_the_start_is_announced_once_and_not_after_the_race_is_over(store: Store) -> None:
    """Every process that saw the countdown asks to announce the start at start_at: one
    of them does. A race everyone resigned during the countdown is not announced at all."""
    clock = Clock()
    service = wired(store, clock, countdown_seconds=3).service
    ann, _, _, _ = await race(service)
    code = ann.room or ""
    await store.subscribe(code)
    messages = store.messages()
    clock.now += 3000
    await asyncio.gather(service.lobby.announce(code), service.lobby.announce(code), service.lobby.announce(code))
    await service.lobby.announce(code)
    await store.publish(code, '{"type":"mark"}')
    seen = []
    async with asyncio.timeout(10):
        while (m := (await anext(messages))[1]) != '{"type":"mark"}':
            seen.append(m)
    assert len(seen) == 1 and '"phase":"racing"' in seen[0]

    ann2, bob2, _, _ = await race(service)
    for who in (ann2, bob2):
        await service.handle(who, p.Resign())
    code2 = ann2.room or ""
    await store.subscribe(code2)
    clock.now += 3000
    await service.lobby.announce(code2)
    await store.publish(code2, '{"type":"mark"}')
    async with asyncio.timeout(10):
        while (m := (await anext(messages))[1]) != '{"type":"mark"}':
            assert '"phase":"racing"' not in m
    await messages.aclose()  # type: ignore[attr-defined]


async def test_a_retried_winning_move_finishes_what_a_store_failure_cut_short() -> None:
    """The win is committed, then the store fails before the race is ended: the client gets
    ``unavailable``. Its retry (same id) is a duplicate, and ends the race after all."""
    from tests.support.winning_lines import first_winning_line

    line = first_winning_line()
    store = FailingOnce(ttl=3600)
    service = wired(store, countdown_seconds=0).service
    ann, bob = Session("c1"), Session("c2")
    (joined,) = await service.handle(ann, p.Create(name="Ann", difficulty=line["difficulty"], deal=line["deal"]))
    code = joined["room"]["code"]
    await service.handle(bob, p.Join(room=code, name="Bob"))
    await service.handle(ann, p.Start())
    await service.handle(bob, p.Resign())
    version = joined["state"]["version"]
    for move in line["moves"][:-1]:
        (state,) = await service.handle(ann, p.Play(move=move, version=version))
        version = state["version"]
    last = p.Play(move=line["moves"][-1], version=version, id="the-win")
    store.armed = True
    with pytest.raises(StoreUnavailable):
        await service.handle(ann, last)
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    assert watching["room"]["phase"] == "racing"  # the win is in, the end is not
    (again,) = await service.handle(ann, last)
    assert again["duplicate"] is True and again["won"] is True
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    assert watching["room"]["phase"] == "over"
    assert [r["name"] for r in watching["room"]["ranking"]] == ["Ann", "Bob"]


class ActingDuringLogRead(MemoryStore):
    """The embedded store, running ``during`` (someone else's action) in the middle of the
    next log read: the moment a resume is between reading the room and taking the seat."""

    during: Any = None

    async def log_since(self, room: str, name: str, version: int) -> Any:
        if self.during is not None:
            act, self.during = self.during, None
            await act()
        return await super().log_since(room, name, version)


async def test_a_resume_that_races_its_seat_being_removed_is_refused() -> None:
    store = ActingDuringLogRead(ttl=3600)
    service = wired(store, countdown_seconds=0).service
    ann, bob = Session("c1"), Session("c2")
    (created,) = await service.handle(ann, p.Create(name="Ann", deal=5))
    code = created["room"]["code"]
    (joined,) = await service.handle(bob, p.Join(room=code, name="Bob"))
    store.during = lambda: service.handle(ann, p.Remove(seat="s2"))
    again = Session("c3")
    with pytest.raises(Refused) as info:
        await service.handle(again, p.Resume(room=code, token=joined["token"], version=1))
    assert info.value.code == "bad_token" and again.room is None and again.seat is None


async def test_a_player_who_is_out_ends_the_race_a_vanished_host_holds_up(store: Store) -> None:
    """The one who went away may be the host: then a player who is out ends it, once the
    host has been gone 15 s and is the only one left racing; and anyone may offer the
    rematch (the host unchanged)."""
    service = wired(store, countdown_seconds=0).service
    ann, bob, cy = Session("c1"), Session("c2"), Session("c3")
    (created,) = await service.handle(ann, p.Create(name="Ann", deal=5))
    code = created["room"]["code"]
    await service.handle(bob, p.Join(room=code, name="Bob"))
    await service.handle(cy, p.Join(room=code, name="Cy"))
    await service.handle(ann, p.Start())  # ... and then Ann, the host, goes away
    now = service.clock() / 1000
    await store.presence(code, now, here=["s1 c1", "s2 c2", "s3 c3"], until=now + 30)
    await store.presence(code, now - 16, gone=["s1 c1"])
    await service.handle(bob, p.Resign())
    with pytest.raises(Refused) as info:
        await service.handle(bob, p.End())  # Cy is still racing here
    assert info.value.code == "rival_racing"
    await service.handle(cy, p.Resign())
    assert await service.handle(bob, p.End()) == []
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    assert watching["room"]["phase"] == "over"
    await service.handle(cy, p.Rematch())
    await service.handle(bob, p.Answer(accept=True))  # (Ann is away: she is not waited for)
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    assert watching["room"]["phase"] == "lobby" and watching["room"]["host"] == "s1"


async def test_players_who_vanished_cannot_keep_the_race_from_ending(store: Store) -> None:
    """Ann (the host) and Bob close their pages mid-race; Cy resigns. Two players are still
    racing, and neither is here: once both have been gone 15 s (a reload is not gone), Cy
    ends the race. While any player still in it is here, nobody may."""
    service = wired(store, countdown_seconds=0).service
    ann, bob, cy, dee = Session("c1"), Session("c2"), Session("c3"), Session("c4")
    (created,) = await service.handle(ann, p.Create(name="Ann", deal=5))
    code = created["room"]["code"]
    for session, name in ((bob, "Bob"), (cy, "Cy"), (dee, "Dee")):
        await service.handle(session, p.Join(room=code, name=name))
    await service.handle(ann, p.Start())
    now = service.clock() / 1000
    await store.presence(code, now, here=["s1 c1", "s2 c2", "s3 c3", "s4 c4"], until=now + 30)
    await service.handle(cy, p.Resign())

    async def refused(match: str) -> None:
        with pytest.raises(Refused, match=match) as info:
            await service.handle(cy, p.End())
        assert info.value.code == "rival_racing"

    await refused("Ann, Bob, Dee still racing here")
    await store.presence(code, now - 16, gone=["s4 c4"])  # Dee went 16 s ago
    await refused("Ann, Bob still racing here")
    await store.presence(code, now - 10, gone=["s1 c1"])  # Ann went 10 s ago: Bob is here
    await refused("Bob still racing here")
    await store.presence(code, now - 12, gone=["s2 c2"])  # Bob went 12 s ago
    await refused(r"only just gone and may be back: try again in [56] s")  # Ann's grace is the last
    await store.presence(code, now - 15, here=["s1 c5"], until=now + 30)
    await store.presence(code, now - 15, gone=["s1 c5"])  # Ann came back, and went 15 s ago
    await refused(r"try again in [34] s")  # Bob's grace now
    await store.presence(code, now - 15, here=["s2 c6"], until=now + 30)
    await store.presence(code, now - 15, gone=["s2 c6"])
    assert await service.handle(cy, p.End()) == []
    (watching,) = await service.handle(Session("c9"), p.Watch(room=code))
    assert watching["room"]["phase"] == "over"


def test_players_equal_on_every_count_share_a_place() -> None:
    """Competition ranking: 1, 2, 2, 4; ties listed in seat order, whoever resigned."""
    home = Game.deal(3, "easy")
    ahead = Game.deal(3, "easy")
    ahead.play(str(ahead.hint()))
    assert ahead.cards_on_foundations == home.cards_on_foundations + 1

    def seat(
        sid: str, game: Game, moves: int, finished_ms: int | None = None, resigned: bool = False
    ) -> tuple[Seat, Game]:
        return Seat(seat=sid, name=sid.upper(), game={}, moves=moves, finished_ms=finished_ms, resigned=resigned), game

    seats = [
        seat("s1", home, 0, resigned=True),
        seat("s2", home, 0),
        seat("s3", ahead, 1),
        seat("s4", home, 2),
        seat("s5", home, 90, finished_ms=60_000),
        seat("s6", home, 80, finished_ms=60_000),
        seat("s7", home, 80, finished_ms=60_000),
    ]
    placed = [(r["place"], r["seat"]) for r in ranking(seats)]
    assert placed == [(1, "s6"), (1, "s7"), (3, "s5"), (4, "s3"), (5, "s1"), (5, "s2"), (7, "s4")]
