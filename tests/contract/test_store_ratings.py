"""The ratings on every store: a race rated once however often its end comes, two races that
share a player both rated, and a recompute from scratch that gives the same numbers."""

from __future__ import annotations

import asyncio
import secrets

from race.rooms.record import Record, Result
from race.service.ratings import Ratings
from race.store import Store


def games(room: str, started: int, *placed: tuple[str, int]) -> list[Record]:
    """A race's games on the record: each device at its place."""
    return [
        Record(
            id=f"{device[:6]}{place}",
            deal=5,
            difficulty="easy",
            name=device[:6],
            started=started,
            acts=(),
            gaps=(),
            result=Result(home=104 - place, moves=0),
            room=room,
            seat=f"s{i}",
            device=device,
            place=place,
            field=len(placed),
        )
        for i, (device, place) in enumerate(placed, 1)
    ]


def ratings_in(store: Store) -> Ratings:
    return Ratings(store, room=f"ratings-{secrets.token_hex(4)}", keep_days=1)


async def test_a_race_is_rated_once(store: Store) -> None:
    ratings = ratings_in(store)
    ann, bob = secrets.token_hex(8), secrets.token_hex(8)
    race = games("ROOMAAA", 1000, (ann, 1), (bob, 2))
    first = await ratings.rate(race)
    again = await ratings.rate(race)  # the race's end committed again: a retry
    assert first is not None and again == first
    a, b = await ratings.standings([ann, bob])
    assert a is not None and b is not None
    assert (a.races, b.races) == (1, 1) and a.rating > 1500 > b.rating
    assert [(o.before, o.after) for o in first.outcome] == [(1500, a.rating), (1500, b.rating)]
    assert await ratings.rated(first.key) == first
    assert await ratings.rate(games("ROOMAAA", 2000, (ann, 1))) is None  # solo: no race
    assert await ratings.standings([secrets.token_hex(8)]) == [None]


async def test_races_sharing_a_player_rated_at_once_both_count(store: Store) -> None:
    ratings = ratings_in(store)
    ann, bob, cat = (secrets.token_hex(8) for _ in range(3))
    await asyncio.gather(
        ratings.rate(games("ROOMAAA", 1000, (ann, 1), (bob, 2))),
        ratings.rate(games("ROOMBBB", 1001, (cat, 1), (ann, 2))),
    )
    a, b, c = await ratings.standings([ann, bob, cat])
    assert a is not None and b is not None and c is not None
    assert (a.races, b.races, c.races) == (2, 1, 1)
    assert set(a.friends) == {bob, cat} and a.friends[cat].losses == 1 and a.friends[bob].wins == 1


async def test_a_recompute_gives_the_same_numbers(store: Store) -> None:
    ratings = ratings_in(store)
    ann, bob, cat = (secrets.token_hex(8) for _ in range(3))
    races = [
        games("ROOMAAA", 1000, (ann, 1), (bob, 2)),
        games("ROOMAAA", 2000, (bob, 1), (ann, 2), (cat, 3)),
        games("ROOMBBB", 3000, (cat, 1), (ann, 1)),
    ]
    for race in races:
        await ratings.rate(race)
    live = await ratings.standings([ann, bob, cat])
    assert await ratings.recompute() == (3, 3)
    assert await ratings.standings([ann, bob, cat]) == live
    # From the games themselves (a store that lists them): the same again.
    assert await ratings.recompute([g for race in races for g in race]) == (3, 3)
    assert await ratings.standings([ann, bob, cat]) == live
