"""Practice: a solo room that plays on from a step of a game on the record. Pure: no I/O.

The server works the position out itself, by replaying the recorded game through the engine
to the step asked for (a client never sends a position). The room is one player's (nobody
joins it; anyone with its code may watch), its restart comes back to that position, not to
the deal, and its game goes on the record as ``practice``: listed with the player's games
as practice, never rated, never raced as a ghost, never on a daily board, never analysed.

>>> from race.rooms.record import Record, Result
>>> rec = Record(id="x", deal=5, difficulty="easy", name="Ann", started=0,
...              acts=("p5>dC", "undo", "p5>dC"), gaps=(900, 400, 300), result=Result(home=9, moves=2))
>>> start = start_of(rec, 1, today="2026-01-01")
>>> start.step, start.game().cards_on_foundations, start.game().move_stack
(1, 9, [])
>>> start_of(rec, 4, today="2026-01-01")
Traceback (most recent call last):
  ...
race.rooms.errors.Refused: this game has 3 steps: play on from step 0 to 3
"""

from __future__ import annotations

from typing import Any

from race.rooms.errors import Refused
from race.rooms.record import Record, RecordError, Start, first_game, kept_back, steps

KIND = "practice"


def start_of(record: Record, step: int, *, today: str) -> Start:
    """Where a practice game from step ``step`` of ``record`` starts (0: before its first
    action), as the engine gives it by replaying the record; refused (``bad_step``,
    ``kept_back``, ``bad_replay``) for a step the game does not have or at which it is won,
    a daily game whose day (``today``, the UTC date) is not over, or a record that does not
    replay."""
    total = len(record.acts)
    if not 0 <= step <= total:
        raise Refused("bad_step", f"this game has {total} steps: play on from step 0 to {total}")
    if kept_back(record, today):
        raise Refused("kept_back", "a daily challenge game can be played on from once its day is over")
    try:
        game = first_game(record)
        for at in steps(record):
            if at.number == step:
                game = at.game
                break
    except RecordError as exc:
        raise Refused("bad_replay", f"this game does not replay: {exc}") from None
    if game.is_won:
        raise Refused("bad_step", f"the game is won at step {step}: there is nothing left to play")
    return Start(replay=record.id, step=step, name=record.name, position=game.to_dict(history=False))


def view(start: Start) -> dict[str, Any]:
    """What the page shows of a practice room or game: which game and step it plays on from."""
    return {"replay": start.replay, "step": start.step, "name": start.name}
