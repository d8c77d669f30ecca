"""A seat's actions on the record: noted as they are accepted, a few in the seat and the rest
in documents of their own, and put back together into a record that replays."""

from __future__ import annotations

import pytest

from race.engine import Game
from race.rooms.model import ACTS_CHUNK, Meta, Seat, acts_keys, note_action, record_of
from race.rooms.record import check
from tests.support.winning_lines import winning_line


def meta() -> Meta:
    return Meta(code="ABCDEFG", difficulty="medium", deal=5, host="s1", created=0, start_at=1_000, round=2)


def play(line: list[str]) -> tuple[Seat, Game, dict[str, str]]:
    """The seat after ``line`` (with an undo and a restart early on), and every document its
    actions wrote, as the service would commit them."""
    game = Game.deal(5, "medium")
    seat = Seat(seat="s2", name="Ann", game=game.to_dict())
    docs: dict[str, str] = {}
    actions = [line[0], "undo", line[0], line[1], "restart", *line]
    for n, action in enumerate(actions):
        if action == "undo":
            game.undo()
        elif action == "restart":
            game.restart()
        else:
            action = str(game.play(action))
        docs.update(note_action(seat, action, at=700 * (n + 1)))
    if game.is_won:
        seat.finished_ms = 700 * len(actions)
    return seat, game, docs


def test_the_seat_keeps_fewer_than_a_chunk_and_hands_the_rest_to_documents() -> None:
    line = winning_line(5, "medium")
    seat, _, docs = play(line)
    total = len(line) + 5
    assert seat.logged == total - total % ACTS_CHUNK
    assert len(seat.acts) == total % ACTS_CHUNK < ACTS_CHUNK
    assert sorted(docs) == sorted(acts_keys(seat))
    assert all(len(k) < 12 and k.startswith("h:s2:a") for k in docs)


def test_a_won_game_goes_on_the_record_and_replays_to_its_result() -> None:
    seat, game, docs = play(winning_line(5, "medium"))
    rec = record_of(meta(), seat, game, [docs[k] for k in acts_keys(seat)], rid="r1")
    assert rec.acts[:5] == (rec.acts[0], "undo", rec.acts[0], rec.acts[3], "restart")
    assert rec.result.won and rec.result.finished_ms == sum(rec.gaps) == 700 * len(rec.acts)
    assert (rec.room, rec.round, rec.started, rec.name) == ("ABCDEFG", 2, 1_000, "Ann")
    assert check(rec).is_won


def test_an_unfinished_game_goes_on_the_record_as_it_stands() -> None:
    seat, game, docs = play(winning_line(5, "medium")[:40])
    seat.resigned = True
    rec = record_of(meta(), seat, game, [docs[k] for k in acts_keys(seat)], rid="r2")
    assert not rec.result.won and rec.result.resigned and rec.result.home == game.cards_on_foundations
    assert check(rec).cards_on_foundations == game.cards_on_foundations


def test_a_missing_document_is_an_error() -> None:
    seat, game, _ = play(winning_line(5, "medium"))
    with pytest.raises(ValueError, match="acts document is missing"):
        record_of(meta(), seat, game, [None] * len(acts_keys(seat)), rid="r3")
