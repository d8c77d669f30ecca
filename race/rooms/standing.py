"""What a game shows and how a race ranks (no I/O): a board as clients draw it, a player's
progress as the room sees it, and the ranking with its hint penalties."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from race.engine import CARDS, FOUNDATIONS, Game
from race.rooms.model import Seat


def penalised(finished_ms: int | None, hints: int, penalty_ms: int) -> dict[str, Any]:
    """A ranking row's hints: how many, their whole penalty (ms), and the time the ranking
    uses (``time_ms``: the finish time and the penalty; None when not finished)."""
    time_ms = None if finished_ms is None else finished_ms + penalty_ms
    return {"hints": hints, "penalty_ms": penalty_ms, "time_ms": time_ms}


_CARD_TEXT = tuple(str(c) for c in CARDS)
# For each foundation: its key, and the text of its top card when it holds n cards (index n).
_FOUNDATION_TOPS = tuple(
    (key, ("", *(_CARD_TEXT[(f & 3) * 13 + (n - 1 if f < 4 else 13 - n)] for n in range(1, 14))))
    for f, key in enumerate(FOUNDATIONS)
)


def board(game: Game, piles: list[list[str]] | None = None) -> dict[str, Any]:
    """What a client draws: piles bottom to top, each foundation's top card and count.
    ``piles``: the piles as texts when already at hand (``game.to_dict()["piles"]``)."""
    text = _CARD_TEXT
    return {
        "piles": piles if piles is not None else [[text[c] for c in pile] for pile in game._piles],
        "foundations": {
            key: {"top": tops[n], "count": n} for (key, tops), n in zip(_FOUNDATION_TOPS, game._fnd, strict=True)
        },
        "shuffles_left": game.shuffles_left,
    }


def progress(seat: Seat, game: Game) -> dict[str, Any]:
    """What everyone in the room sees of a player."""
    return {
        "seat": seat.seat,
        "name": seat.name,
        "cards": game.cards_on_foundations,
        "moves": seat.moves,
        "shuffles_left": game.shuffles_left,
        "won": game.is_won,
        "stuck": game.is_stuck,
        "resigned": seat.resigned,
        "finished_ms": seat.finished_ms,
        "end_vote": seat.end_vote,
        "hints": seat.hints,
        **({"left": True} if seat.left else {}),
    }


def ranking(
    seats: list[tuple[Seat, Game]], ghosts: Sequence[dict[str, Any]] = (), *, hint_penalty_ms: int = 0
) -> list[dict[str, Any]]:
    """Finishers by time (their finish time and ``hint_penalty_ms`` per hint: ``time_ms``;
    then fewer moves); then everyone else by cards on the foundations (more is better; then
    fewer moves). Players equal on all of that share a place (1, 2, 2, 4), listed in seat
    order; ``finished`` says who cleared the deal (a race ended early may have its first
    place unfinished: no winner). ``ghosts``: past games raced again, as
    :func:`race.rooms.ghosts.ghost_results` gives them (with their own penalty), ranked
    among the players (after them when equal)."""
    rows: list[dict[str, Any]] = [
        {
            "seat": s.seat,
            "name": s.name,
            "finished_ms": s.finished_ms,
            "finished": s.finished_ms is not None,
            "cards": g.cards_on_foundations,
            "moves": s.moves,
            "resigned": s.resigned,
            **penalised(s.finished_ms, s.hints, s.hints * hint_penalty_ms),
        }
        for s, g in seats
    ]
    rows += ghosts

    def result(row: dict[str, Any]) -> tuple[int, int, int]:
        if row["finished_ms"] is not None:
            return (0, row["time_ms"], row["moves"])
        return (1, -row["cards"], row["moves"])

    ranked = sorted(enumerate(rows), key=lambda item: (result(item[1]), item[0]))
    out: list[dict[str, Any]] = []
    for i, (_, row) in enumerate(ranked):
        tied = i and result(ranked[i - 1][1]) == result(row)
        out.append({"place": out[-1]["place"] if tied else i + 1, **row})
    return out
