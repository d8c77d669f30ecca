"""The series of a room, pure: points by place, wins, ties, a match's and an arena's end, and
a stored series that stays the same size however many rounds an open one plays."""

from __future__ import annotations

import msgspec

from race.rooms.series import Format, Placed, Played, Series, complete, next_round, points, standings, winners


def round_of(n: int, *rows: tuple[str, str, int, bool]) -> Played:
    return Played(round=n, rows=[Placed(seat, name, place, won) for seat, name, place, won in rows])


def test_points_by_place_with_shared_places_scoring_as_that_place() -> None:
    assert [points(p) for p in range(1, 9)] == [10, 7, 5, 3, 2, 1, 0, 0]
    arena = Series(format=Format.ARENA, rounds=3)
    tied = round_of(1, ("s1", "Ann", 1, False), ("s2", "Bob", 2, False), ("s3", "Cy", 2, False))
    assert [(r["name"], r["points"], r["place"]) for r in standings(arena, tied)] == [
        ("Ann", 10, 1),
        ("Bob", 7, 2),
        ("Cy", 7, 2),
    ]
    assert not complete(arena, tied) and winners(arena, tied) == []


def test_a_solo_round_won_is_a_win_and_a_race_nobody_finished_has_none() -> None:
    s = next_round(Series(), round_of(1, ("s1", "Ann", 1, True)))
    s = next_round(s, round_of(2, ("s1", "Ann", 1, False), ("s2", "Bob", 2, False)))
    assert [(r["name"], r["wins"], r["rounds"]) for r in standings(s, None)] == [("Ann", 1, 2), ("Bob", 0, 1)]


def test_a_match_ends_at_its_target_and_the_next_round_starts_a_new_one() -> None:
    match = Series(format=Format.MATCH, target=2)
    r1 = round_of(1, ("s1", "Ann", 1, True), ("s2", "Bob", 2, False))
    r2 = round_of(2, ("s2", "Bob", 1, True), ("s1", "Ann", 2, False))
    r3 = round_of(3, ("s1", "Ann", 1, True), ("s2", "Bob", 2, False))
    s = next_round(next_round(match, r1), r2)
    assert not complete(s, None) and complete(s, r3) and winners(s, r3) == ["s1"]
    fresh = next_round(s, r3)
    assert (fresh.first, fresh.folded, fresh.totals) == (4, 0, [])


def test_an_open_series_stays_the_same_size_however_many_rounds_it_plays() -> None:
    s = Series()
    sizes = []
    for n in range(1, 61):
        s = next_round(s, round_of(n, ("s1", "Ann", 1 + n % 2, n % 2 == 0), ("s2", "Bob", 2 - n % 2, n % 2 == 1)))
        sizes.append(len(msgspec.json.encode(s)))
    assert max(sizes[5:]) - min(sizes[5:]) <= 8  # (the counts' digits)
    assert [(r["name"], r["wins"], r["rounds"]) for r in standings(s, None)] == [("Ann", 30, 60), ("Bob", 30, 60)]
