"""A day's leaderboard: who won the deal, in what time and how many moves, and the results
that were not played at a person's pace, or were won with hints.

One board per date and difficulty holds every player's first finished attempt, ranked by
time, then moves, then who finished first. An unverified result (:mod:`race.rooms.pace`) takes the
same place on that board, so it stays the player's one attempt of the day, but its sort key
puts it after every ranked result and the board shows it apart, with its reason; a second
board of those alone lists them in time order. An assisted result (won after a hint) is
kept the same way: after every ranked one, apart, on a board of its own (one unverified
too is shown as unverified).
"""

from __future__ import annotations

from typing import Any

import msgspec

from race.rooms.pace import Unverified
from race.service.players import board_group
from race.store import DailyStore

_enc = msgspec.json.Encoder()


class Entry(msgspec.Struct, kw_only=True, omit_defaults=True):
    player: str
    name: str
    time_ms: int
    moves: int
    finished_at: int
    room: str
    #: Why this result was not played at a person's pace, in English; None: it was, and it
    #: is ranked.
    unverified: str | None = None
    #: The same reason as the rule broken and its numbers (None on results kept before it was).
    pace: Unverified | None = None
    #: Hints the player was shown: a win with one is assisted, never ranked.
    hints: int = 0

    @property
    def ranked(self) -> bool:
        return not self.unverified and not self.hints


_entry = msgspec.json.Decoder(Entry)


def unverified_group(date: str, difficulty: str) -> str:
    """The store group of a day's unverified results, in time order."""
    return f"daily-unverified:{date}:{difficulty}"


def assisted_group(date: str, difficulty: str) -> str:
    """The store group of a day's assisted results (not unverified), in time order."""
    return f"daily-assisted:{date}:{difficulty}"


def sort_key(e: Entry) -> str:
    """Time, then moves, then who finished first: fixed-width text sorts like the tuple. An
    unverified result's key starts with ``u``, an assisted one's with ``a``: after every digit."""
    key = f"{e.time_ms:012d}.{e.moves:08d}.{e.finished_at:015d}"
    return "u" + key if e.unverified else "a" + key if e.hints else key


async def post(store: DailyStore, date: str, difficulty: str, entry: Entry, ttl: int) -> bool:
    """Put ``entry`` on its day's board unless its player is there already; True if it was
    put there."""
    data = _enc.encode(entry).decode()
    if not await store.board_add(board_group(date, difficulty), entry.player, sort_key(entry), data, ttl):
        return False
    if not entry.ranked:
        group = unverified_group if entry.unverified else assisted_group
        await store.board_add(group(date, difficulty), entry.player, sort_key(entry)[1:], data, ttl)
    return True


async def on_board(store: DailyStore, date: str, difficulty: str, player: str) -> bool:
    """Whether ``player`` has a result, ranked or not, on the day's board."""
    return await store.board_rank(board_group(date, difficulty), player) is not None


async def read(store: DailyStore, date: str, difficulty: str, top: int, player: str | None) -> dict[str, Any]:
    """The day's board as the ``leaderboard`` message has it: the ``top`` ranked results,
    the ``top`` first unverified ones and assisted ones, and ``me``: the result of
    ``player``, if any."""
    group = board_group(date, difficulty)
    ranked = [_entry.decode(data) for _, data in await store.board_range(group, 0, top)]
    entries = [{"rank": i + 1, **public(e)} for i, e in enumerate(ranked) if e.ranked]
    apart = {
        name: [{"rank": None, **public(_entry.decode(data))} for _, data in await store.board_range(g, 0, top)]
        for name, g in (
            ("unverified", unverified_group(date, difficulty)),
            ("assisted", assisted_group(date, difficulty)),
        )
    }
    me = None
    if player is not None:
        rank = await store.board_rank(group, player)
        if rank is not None:
            mine = _entry.decode(rank[1])
            me = {"rank": rank[0] + 1 if mine.ranked else None, **public(mine)}
    return {"entries": entries, **apart, "me": me}


def public(e: Entry) -> dict[str, Any]:
    shown = {
        "name": e.name,
        "time_ms": e.time_ms,
        "moves": e.moves,
        "player": e.player,
        "room": e.room,
        "hints": e.hints,
    }
    if e.hints and not e.unverified:
        shown["assisted"] = True
    if e.unverified:
        shown["unverified"] = e.unverified
    if e.pace:
        shown["pace"] = msgspec.to_builtins(e.pace)
    return shown
