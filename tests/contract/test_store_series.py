"""Matches and arenas over on the record, kept and read back the same way by every backend:
kept once however often their race's end is told, listed under each player's device, newest
first, and shown to a device with its own seat and no one's device."""

from __future__ import annotations

import secrets

from race.engine import Game
from race.rooms.model import Meta, Seat, Status
from race.rooms.series import Format, Placed, Played, Series, fold
from race.service.series_record import keep_series, series_of_device
from race.store import Store


def seat(sid: str, name: str, device: str, *, finished_ms: int | None = None) -> tuple[Seat, Game]:
    game = Game.deal(5, "easy")
    return Seat(seat=sid, name=name, game=game.to_dict(), device=device, finished_ms=finished_ms), game


async def test_an_arena_over_is_kept_once_and_listed_under_each_device(store: Store) -> None:
    ann, bob, gone = (secrets.token_hex(16) for _ in range(3))
    code = "T" + secrets.token_hex(3).upper()
    earlier = [
        Played(
            round=1,
            rows=[
                Placed("s1", "Ann", 2, False, ann),
                Placed("s2", "Bob", 1, True, bob),
                Placed("s3", "Cy", 3, False, gone),
            ],
        ),
        Played(round=2, rows=[Placed("s1", "Ann", 1, True, ann), Placed("s2", "Bob", 2, False, bob)]),
    ]
    meta = Meta(
        code=code,
        difficulty="easy",
        deal=5,
        host="s1",
        created=0,
        status=Status.OVER,
        round=3,
        ended_at=1234,
        seats=["s1", "s2"],
        series=fold(fold(Series(format=Format.ARENA, rounds=3), earlier[0]), earlier[1]),
    )
    # Round 3: Ann finishes, Bob does not. Ann 7 + 10 + 10 = 27; Bob 10 + 7 + 7 = 24; Cy 5.
    seats = [seat("s1", "Ann", ann, finished_ms=60_000), seat("s2", "Bob", bob)]
    assert await keep_series(store, code, meta, seats, ttl=600)
    assert await keep_series(store, code, meta, seats, ttl=600)  # told twice: kept once
    (mine,) = await series_of_device(store, ann)
    assert (mine["format"], mine["rounds"], mine["me"], mine["winners"]) == ("arena", 3, "s1", ["s1"])
    assert [(r["name"], r["points"], r["place"]) for r in mine["standings"]] == [
        ("Ann", 27, 1),
        ("Bob", 24, 2),
        ("Cy", 5, 3),
    ]
    assert all("device" not in r for r in mine["standings"])
    (cys,) = await series_of_device(store, gone)  # left after round 1: on the record too
    assert cys["me"] == "s3" and cys["room"] == code and cys["round_to"] == 3
    assert await series_of_device(store, secrets.token_hex(16)) == []


async def test_a_round_that_ends_no_match_keeps_nothing(store: Store) -> None:
    ann = secrets.token_hex(16)
    meta = Meta(
        code="T" + secrets.token_hex(3).upper(),
        difficulty="easy",
        deal=5,
        host="s1",
        created=0,
        status=Status.OVER,
        seats=["s1"],
        series=Series(format=Format.MATCH, target=2),
    )
    assert not await keep_series(store, meta.code, meta, [seat("s1", "Ann", ann, finished_ms=1000)], ttl=600)
    assert await series_of_device(store, ann) == []
