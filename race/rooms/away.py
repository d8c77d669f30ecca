"""Who may act for whom while someone is away: the pure rules behind a room's ``presence``
(its ``end_from`` and ``host_from``) and the refusals of ``end``, ``start`` and ``remove``.
A player is away once no connection of theirs has been open for ``away_ms`` (a reload or a
dropped connection is not away); ``here`` are the seats with a connection open, ``since``
when each of the others went (server milliseconds). A player still racing is also away for
the ending rules once idle: no accepted action (a move, an undo, a restart) for ``idle_ms``,
or no more cards home than before for :data:`STALL_FACTOR` times that (:func:`idle_at`),
even with a connection open; ``idle`` are those seats, with the time
from which each is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from race.rooms.model import Seat, is_done

#: A player who brings no more cards home than before for this many times the idle time is
#: idle too, however busy: moving cards to and fro, or undoing, cannot hold a race open.
STALL_FACTOR = 5


def idle_at(seat: Seat, start: int, idle_ms: int) -> int:
    """The server time from which ``seat`` is idle if it does nothing more: ``idle_ms`` after
    its last accepted action (or after the ``start`` of the race if it never acted), or
    :data:`STALL_FACTOR` times that after it last had more cards home than ever, whichever
    comes first.

    >>> idle_at(Seat(seat="s1", name="Ann", game={}), 1000, 120000)
    121000
    >>> idle_at(Seat(seat="s1", name="Ann", game={}, last_at=5000), 1000, 120000)
    126000
    >>> idle_at(Seat(seat="s1", name="Ann", game={}, last_at=599000, best_at=2000), 1000, 120000)
    603000
    """
    acted = (seat.last_at or 0) + idle_ms
    progressed = (seat.best_at or 0) + STALL_FACTOR * idle_ms
    return start + min(acted, progressed)


def idle_seats(seats: Sequence[Seat], start: int | None, idle_ms: int, now: int) -> dict[str, int]:
    """The seats still racing that are idle at ``now``, with the time from which each is
    (:func:`idle_at`); none before the race's clock starts (``start`` None).

    >>> seats = [Seat(seat="s1", name="Ann", game={}, last_at=90000), Seat(seat="s2", name="Bob", game={})]
    >>> idle_seats(seats, 1000, 60000, 100000)
    {'s2': 61000}
    >>> seats[1].resigned = True
    >>> idle_seats(seats, 1000, 60000, 100000), idle_seats(seats, None, 60000, 100000)
    ({}, {})
    """
    if start is None:
        return {}
    due = {s.seat: idle_at(s, start, idle_ms) for s in seats if not is_done(s)}
    return {sid: at for sid, at in due.items() if at <= now}


def next_idle(seats: Sequence[Seat], start: int | None, idle_ms: int, now: int) -> int | None:
    """When the next seat still racing turns idle after ``now`` if nobody acts (for the
    room's timers); None if none will.

    >>> seats = [Seat(seat="s1", name="Ann", game={}, last_at=90000), Seat(seat="s2", name="Bob", game={})]
    >>> next_idle(seats, 1000, 60000, 100000), next_idle(seats, 1000, 60000, 200000)
    (151000, None)
    """
    if start is None:
        return None
    later = [at for s in seats if not is_done(s) and (at := idle_at(s, start, idle_ms)) > now]
    return min(later, default=None)


def _until(
    racing: Sequence[str], here: set[str], since: dict[str, int], away_ms: int, idle: Mapping[str, int]
) -> list[float]:
    """For each seat of ``racing``, until when it counts as here: for ever while a connection
    of theirs is open, else ``away_ms`` after they went (a reload, a dropped connection);
    and never past the time from which it is ``idle``."""
    return [min(math.inf if sid in here else since.get(sid, 0) + away_ms, idle.get(sid, math.inf)) for sid in racing]


def end_from(
    seat: str,
    racing: Sequence[str],
    here: set[str],
    since: dict[str, int],
    away_ms: int,
    idle: Mapping[str, int] | None = None,
) -> int | None:
    """The server time from which player ``seat`` may end the race alone: once every other
    seat still ``racing`` is away, that is, has had no connection open for ``away_ms``, or
    is ``idle``; 0 when no other seat is racing; ``None`` while another is here. The host is
    no one special: nobody ends a race while a rival plays (they may vote: :func:`vote_carries`).

    >>> end_from("s9", ["s1", "s2", "s3"], set(), {"s1": 5000, "s2": 1000, "s3": 4000}, 15000)
    20000
    >>> end_from("s1", ["s1", "s2"], {"s1"}, {"s2": 1000}, 15000), end_from("s2", ["s1", "s2"], {"s1"}, {}, 15000)
    (16000, None)
    >>> end_from("s1", ["s1"], {"s1"}, {}, 15000)
    0

    A rival here who has not acted for a while is idle: from then on, as if away.

    >>> end_from("s2", ["s1", "s2"], {"s1", "s2"}, {}, 15000, {"s1": 130000})
    130000
    >>> end_from("s3", ["s1", "s2", "s3"], {"s1", "s2", "s3"}, {}, 15000, {"s1": 130000})
    >>> end_from("s3", ["s1", "s2"], {"s1"}, {"s2": 120000}, 15000, {"s1": 130000, "s2": 140000})
    135000
    """
    until = _until([sid for sid in racing if sid != seat], here, since, away_ms, idle or {})
    if not until:
        return 0
    last = max(until)
    return None if last == math.inf else int(last)


def ends_from(
    seats: Sequence[str],
    racing: Sequence[str],
    here: set[str],
    since: dict[str, int],
    away_ms: int,
    idle: Mapping[str, int] | None = None,
) -> dict[str, int | None]:
    """:func:`end_from` for each of ``seats``.

    >>> ends_from(["s1", "s2"], ["s1", "s2"], {"s1", "s2"}, {}, 15000, {"s2": 130000})
    {'s1': 130000, 's2': None}
    """
    return {sid: end_from(sid, racing, here, since, away_ms, idle) for sid in seats}


def still_here(
    racing: Sequence[str],
    here: set[str],
    since: dict[str, int],
    away_ms: int,
    now: int,
    idle: Mapping[str, int] | None = None,
) -> list[str]:
    """The seats of ``racing`` that count as here at ``now``: a connection open, or gone
    less than ``away_ms`` ago; and not ``idle`` by then.

    >>> still_here(["s1", "s2", "s3"], {"s1"}, {"s2": 1000, "s3": 9000}, 15000, 20000)
    ['s1', 's3']
    >>> still_here(["s1", "s2"], {"s1", "s2"}, {}, 15000, 20000, {"s2": 20000})
    ['s1']
    """
    until = _until(racing, here, since, away_ms, idle or {})
    return [sid for sid, t in zip(racing, until, strict=True) if t > now]


def vote_carries(seats: Sequence[Seat], present: Sequence[str]) -> bool:
    """Whether the vote to end the race carries: every player still racing who counts as
    here (``present``: :func:`still_here`) asks to end it, and at least one does."""
    racing = [s for s in seats if not is_done(s) and s.seat in present]
    return bool(racing) and all(s.end_vote for s in racing)


def host_from(host: str, here: set[str], since: dict[str, int], away_ms: int) -> int | None:
    """The server time from which a player here may act as the lobby's host (start the race,
    remove a player) and so becomes host: once ``host`` has been away ``away_ms``; ``None``
    while the host is here.

    >>> host_from("s1", {"s1", "s2"}, {}, 15000), host_from("s1", {"s2"}, {"s1": 4000}, 15000)
    (None, 19000)
    """
    return None if host in here else since.get(host, 0) + away_ms
