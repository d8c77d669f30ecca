"""Ratings among friends, pure: the model against the library's own example, which races
count, ties, unfinished players, the provisional mark and the friends each race makes."""

from __future__ import annotations

import pytest

from race.rooms.ratings import (
    MODEL,
    PROVISIONAL,
    Entrant,
    RatedRace,
    Standing,
    apply,
    points,
    rated_race,
    shown,
)
from race.rooms.record import Record, Result


def test_the_model_gives_the_librarys_documented_example() -> None:
    # openskill's README ("Limited Example"): two teams of two new players, the first wins.
    r = MODEL.rating
    [[a, b], [x, y]] = MODEL.rate([[r(), r()], [r(), r()]])
    assert (a.mu, a.sigma) == pytest.approx((26.964294621803063, 8.177962604389991), abs=1e-12)
    assert (x.mu, x.sigma) == pytest.approx((23.035705378196937, 8.177962604389991), abs=1e-12)
    assert (a.mu, a.sigma) == (b.mu, b.sigma) and (x.mu, x.sigma) == (y.mu, y.sigma)
    assert (MODEL.rating().mu, MODEL.rating().sigma) == (25.0, 25 / 3)


def race(*entrants: tuple[str, int], at: int = 1000) -> RatedRace:
    return RatedRace(
        key=f"ROOM:1:{at}",
        at=at,
        room="ROOM",
        round=1,
        entrants=tuple(Entrant(d, d.title(), f"s{i}", place) for i, (d, place) in enumerate(entrants, 1)),
    )


def test_our_update_is_the_librarys_for_one_player_a_team() -> None:
    standings = {"ann": Standing(mu=27.0, sigma=5.0), "bob": Standing(mu=24.0, sigma=7.0)}
    after, _ = apply(standings, race(("ann", 2), ("bob", 1)))
    [[a], [b]] = MODEL.rate([[MODEL.rating(mu=27.0, sigma=5.0)], [MODEL.rating(mu=24.0, sigma=7.0)]], ranks=[2.0, 1.0])
    assert (after["ann"].mu, after["ann"].sigma) == (a.mu, a.sigma)
    assert (after["bob"].mu, after["bob"].sigma) == (b.mu, b.sigma)
    assert after["bob"].mu > 24.0 and after["ann"].mu < 27.0


def test_a_tie_is_a_tie() -> None:
    after, outcome = apply({}, race(("ann", 1), ("bob", 1)))
    assert after["ann"].mu == after["bob"].mu == 25.0  # equals who tie: no one gains
    assert [(o.before, o.after) for o in outcome] == [(1500, 1500), (1500, 1500)]
    assert after["ann"].friends["bob"].wins == after["ann"].friends["bob"].losses == 0
    # Three players, the last two tied: they move alike, below the winner.
    after, _ = apply({}, race(("ann", 1), ("bob", 2), ("cat", 2)))
    assert after["ann"].mu > after["bob"].mu == after["cat"].mu


def game(device: str, place: int, *, home: int = 104, kind: str = "race", field: int = 3, seat: str = "") -> Record:
    return Record(
        id=device + seat,
        deal=5,
        difficulty="easy",
        name=device.title(),
        started=5000,
        acts=(),
        gaps=(),
        result=Result(home=home, moves=0, finished_ms=60_000 if home == 104 else None),
        kind=kind,
        room="K7M2QXA",
        round=2,
        seat=seat or f"s{place}",
        device=device,
        place=place,
        field=field,
    )


def test_unfinished_players_are_ranked_by_their_places_cards_home() -> None:
    # A finisher, then two who did not finish: 90 cards home ahead of 40.
    rated = rated_race([game("cat", 3, home=40), game("ann", 1), game("bob", 2, home=90)])
    assert rated is not None
    assert [(e.device, e.place) for e in rated.entrants] == [("ann", 1), ("bob", 2), ("cat", 3)]
    assert (rated.key, rated.at, rated.room, rated.round) == ("K7M2QXA:2:5000", 5000, "K7M2QXA", 2)
    after, outcome = apply({}, rated)
    assert after["ann"].mu > after["bob"].mu > after["cat"].mu
    changes = [o.after - o.before for o in outcome]
    assert changes[0] > changes[1] > 0 > changes[2]  # beating one of two new players is a gain
    assert after["cat"].history[-1].place == 3 and after["cat"].history[-1].field == 3


def test_what_does_not_count() -> None:
    assert rated_race([game("ann", 1, kind="daily", field=1)]) is None
    assert rated_race([game("ann", 1, field=1)]) is None  # solo
    assert rated_race([game("ann", 1, field=2), game("", 2, field=2)]) is None  # a player with no device
    # One device on two seats is one player, at its better place: alone, no race.
    assert rated_race([game("ann", 1, seat="s1", field=2), game("ann", 2, seat="s2", field=2)]) is None
    two = rated_race([game("ann", 3, seat="s1"), game("ann", 1, seat="s3"), game("bob", 2, seat="s2")])
    assert two is not None and [(e.device, e.place) for e in two.entrants] == [("ann", 1), ("bob", 2)]


def test_provisional_for_the_first_races_and_the_friends_kept() -> None:
    standings: dict[str, Standing | None] = {}
    for n in range(PROVISIONAL + 1):
        after, _ = apply(standings, race(("ann", 1), ("bob", 2), at=1000 + n))
        standings.update(after)
        ann = after["ann"]
        assert ann.provisional == (n + 1 < PROVISIONAL)
        assert shown(ann).endswith("?") == ann.provisional
    last, them = standings["ann"], standings["bob"]
    assert last is not None and them is not None
    ann, bob = last, them
    assert ann.races == PROVISIONAL + 1 and len(ann.history) == PROVISIONAL + 1
    assert [p.rating for p in ann.history] == sorted(p.rating for p in ann.history)  # won them all
    friend = ann.friends["bob"]
    assert (friend.name, friend.races, friend.wins, friend.losses, friend.last) == ("Bob", 11, 11, 0, 1010)
    assert bob.friends["ann"].losses == 11
    assert sum(p.change for p in ann.history) == ann.rating - 1500 == points(ann.mu) - 1500
