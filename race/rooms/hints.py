"""Hints in a room, pure: the room's rule, what a hint costs, and the ``hint`` answer.

A room is made with one of three rules (``create``'s ``hints``): ``off`` (no hints),
``penalty`` (the default: each hint adds the room's ``hint_penalty_ms`` to the finish time
the ranking uses) or ``free`` (a casual room). Whatever the rule, the server counts the
hints a seat was shown (``hints`` in every view of a player); the client never says how many.
A hint asked again before the player acted since the last one is the same hint, shown again
free. A tutorial's hints are its lessons: never counted.

>>> meta = Meta(code="C", difficulty="easy", deal=1, host="s1", created=0)
>>> rule_view(meta)
{'hints': 'penalty', 'hint_penalty_ms': 15000}
>>> seat = Seat(seat="s1", name="Ann", game={})
>>> charge(seat, actions=4, version=9), charge(seat, actions=4, version=10), seat.hints
(True, False, 1)
"""

from __future__ import annotations

from typing import Any

from race.engine.hints import Advice
from race.rooms.errors import Refused
from race.rooms.model import Meta, Seat, hint_penalty

OFF, PENALTY, FREE = "off", "penalty", "free"
RULES = (OFF, PENALTY, FREE)


penalty_ms = hint_penalty  # what one hint adds to a finish time in a room (0 unless hints cost)


def rule_view(meta: Meta) -> dict[str, Any]:
    """The room's hint rule, as its snapshot shows it."""
    return {"hints": meta.hints, "hint_penalty_ms": penalty_ms(meta)}


def allowed(meta: Meta) -> None:
    """Refuse a hint in a room whose hints are off."""
    if meta.hints == OFF:
        raise Refused("hints_off", "hints are off in this room: it was made without them")


def actions(seat: Seat) -> int:
    """How many actions (moves, undos, restarts) ``seat`` has taken in this round."""
    return seat.logged + len(seat.acts)


def charge(seat: Seat, *, actions: int, version: int) -> bool:
    """Count a hint shown to ``seat`` after its ``actions`` actions, asked at the seat's
    ``version``: False (nothing to count) when it was shown one already since its last action."""
    if seat.hint_act == actions:
        return False
    seat.hints += 1
    seat.hint_act, seat.hint_version = actions, version
    return True


def not_stale(seat: Seat, sent: int, version: int) -> bool:
    """Whether an action sent on state version ``sent`` may be played on the seat's
    ``version``: the same, or the one just before a hint (which changed no card)."""
    return sent == version or (sent == seat.hint_version and version == seat.hint_version + 1)


def answer(advice: Advice, version: int, hints: int) -> dict[str, Any]:
    """The ``hint`` message: the move to play (or none), whether a card move makes progress,
    the way out when none does, and the hints counted so far."""
    return {
        "type": "hint",
        "move": None if advice.move is None else str(advice.move),
        "progress": advice.progress,
        "way_out": advice.way_out,
        "hints": hints,
        "version": version,
    }
