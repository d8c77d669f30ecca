"""The next round of a room (:class:`Rounds`): a rematch offered, answered, and the round
opened once everyone still in the room has said yes (see :mod:`race.rooms.series`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from race.engine import Game
from race.rooms.errors import Refused
from race.rooms.events import Event, Listed, Timed
from race.rooms.ghosts import GHOSTS, MAX_GHOSTS, Ghost, GhostError, encode_ghosts, ghost_results, ghosts_of
from race.rooms.model import META, SEAT, Kind, Meta, Seat, Status, phase, random_deal, save_game, seat_key
from race.rooms.record import decode as decode_record
from race.rooms.series import Format, Offer, complete, next_round, round_over, waiting_for
from race.rooms.standing import ranking
from race.rooms.views import room_message, timers
from race.service.recording import room_listing
from race.service.repo import Change, Here, Room, Rooms, conflict, dump, gone
from race.service.session import Session
from race.store import Doc, Records
from race.wire import protocol as p

log = logging.getLogger("race.service")


class Rounds:
    """Rematch offers and their answers, and the next round they open."""

    def __init__(self, rooms: Rooms, records: Records, *, clock: Callable[[], int], away_ms: int) -> None:
        self.rooms, self.records, self.clock = rooms, records, clock
        #: How long a player must have been away (no connection open) for an offer not to
        #: wait for their answer.
        self.away_ms = away_ms

    async def rematch(self, session: Session, msg: p.Rematch) -> list[dict[str, Any]]:
        """Offer the next round (or say yes to the offer standing, when it is on the same
        terms; an offer on other terms takes its place): a new deal, a chosen ``deal``, or
        with ``ghosts`` the round's deal against its games."""
        deal, ghosts = msg.deal, msg.ghosts
        if ghosts and deal is not None:
            raise Refused("bad_ghosts", "a rematch against the ghosts is on the same deal: leave the deal out")
        sid = _seated(session)
        again = [False]  # a yes sent again: go on without those gone (or say why not yet)

        def decide(meta: Meta, offer: Offer | None) -> Offer:
            if meta.series.format is Format.ARENA and (deal is not None or ghosts):
                raise Refused("bad_rematch", "an arena plays a new deal each round: leave the deal out")
            if meta.series.format is not Format.OPEN and ghosts:
                raise Refused("bad_rematch", "a match or an arena is raced by players, without ghosts")
            if offer is not None and offer.same_terms(deal, ghosts):
                again[0] = sid in offer.yes
                if not again[0]:
                    offer.yes.append(sid)
                return offer
            return Offer(by=sid, deal=deal, ghosts=ghosts, yes=[sid])

        await self._answer(session, decide, ghosts_wanted=ghosts, again=lambda: again[0])
        return []

    async def answer(self, session: Session, msg: p.Answer) -> list[dict[str, Any]]:
        """Say yes or no to the rematch offered. A "no" withdraws it (the room says whose);
        a "no" with no offer standing changes nothing (a retry)."""
        sid = _seated(session)
        accept = msg.accept

        def decide(meta: Meta, offer: Offer | None) -> Offer | None:
            if offer is None:
                if accept:
                    raise Refused("no_offer", "there is no rematch offer to accept (it was withdrawn)")
                return None
            if not accept:
                return None
            if sid not in offer.yes:
                offer.yes.append(sid)
            return offer

        docs = await self.rooms.read(session.room or "")
        meta = META.decode(docs["meta"].data)
        standing = meta.series.offer
        await self._answer(session, decide, ghosts_wanted=accept and standing is not None and standing.ghosts)
        return []

    async def _answer(
        self,
        session: Session,
        decide: Callable[[Meta, Offer | None], Offer | None],
        *,
        ghosts_wanted: bool,
        again: Callable[[], bool] = lambda: False,
    ) -> None:
        """Apply ``decide`` (the offer as it now stands, or ``None``: withdrawn) to the room
        whose race is over, and open the next round if nobody is left to answer. ``again()``:
        the sender had said yes already, and asks to go on without those who have gone: it is
        refused, saying why, while they are here or have only just gone."""
        code, sid = session.room or "", _seated(session)
        round_ghosts = await self._round_ghosts(code) if ghosts_wanted else None
        here = await self.rooms.here(code, self.clock())

        def action(room: Room) -> Change[None]:
            meta, docs = room.meta, room.docs
            if sid not in meta.seats:
                raise gone()
            now = self.clock()
            if meta.kind is not Kind.RACE:
                raise Refused("no_rematch", f"a {meta.kind} room cannot be replayed; start a new one instead")
            if phase(meta, now) != "over":
                raise Refused("not_over", "a rematch can be offered only when the race is over")
            before = meta.series.offer
            offer = decide(meta, before)
            meta.series.offer = offer
            if offer is None:
                if before is None:
                    return Change()  # nothing standing: nothing to withdraw (a retry)
                meta.series.declined = sid
                return _commit(room, meta, {}, {}, now)
            meta.series.declined = None
            seats = {s: SEAT.decode(docs[seat_key(s)].data) for s in meta.seats}
            staying = [s for s in meta.seats if not seats[s].left]
            waiting = waiting_for(offer, staying, _away(here, staying, now, self.away_ms))
            if waiting and again():
                raise _not_yet(waiting, seats, here, now, self.away_ms)
            if waiting:
                return _commit(room, meta, {}, {}, now)
            return self._open(room, meta, seats, offer, round_ghosts, now)

        await self.rooms.transact(code, action)

    def _open(
        self,
        room: Room,
        meta: Meta,
        seats: dict[str, Seat],
        offer: Offer,
        round_ghosts: tuple[int | str, list[Ghost]] | None,
        now: int,
    ) -> Change[None]:
        """The next round's lobby: the round over folded into the series, a new deal (or the
        offer's), every seat dealt it afresh but those who left, the offer done."""
        docs = room.docs
        ghosts_now = GHOSTS.decode(docs["ghosts"].data) if "ghosts" in docs else []
        games = [(seats[s], Game.from_trusted_dict(seats[s].game)) for s in meta.seats]
        devices = {s: seat.device for s, seat in seats.items()}
        over = round_over(meta.round, ranking(games, ghost_results(ghosts_now)), devices)
        series_done = complete(meta.series, over)
        meta.series = next_round(meta.series, over)
        ghosts_doc = ""
        if offer.ghosts:
            assert round_ghosts is not None
            deal, listed = round_ghosts
            if deal != meta.deal:
                raise conflict()  # the round changed since its games were read
            ghosts_doc = encode_ghosts(listed)
        new_deal: int | str = offer.deal if offer.deal is not None else meta.deal if offer.ghosts else random_deal()
        meta.status, meta.round, meta.deal = Status.LOBBY, meta.round + 1, new_deal
        meta.known_deal = offer.deal is not None or offer.ghosts  # a deal chosen, or the one just raced
        meta.start_at = meta.ended_at = meta.ended_by = None
        meta.ready = []
        write: dict[str, str] = {}
        expect: dict[str, int] = {}
        for sid in list(meta.seats):
            key = seat_key(sid)
            seat = seats[sid]
            expect[key] = docs[key].version
            if seat.left:  # left after the last race: no seat in this round
                meta.last_seat = max(meta.last_seat, *(int(s[1:]) for s in meta.seats))
                meta.seats.remove(sid)
                write[key] = ""
                continue
            save_game(seat, Game.deal(meta.deal, meta.difficulty), played=False)
            seat.moves, seat.finished_ms, seat.resigned, seat.last_id = 0, None, False, None
            seat.end_vote, seat.last_at, seat.best, seat.best_at = False, None, 0, None
            seat.acts, seat.logged = [], 0
            seat.hints, seat.hint_act = 0, -1  # (hints are counted by the round)
            write[key] = dump(seat)
        if "ghosts" in docs or ghosts_doc:
            write["ghosts"] = ghosts_doc  # ("" deletes it)
            expect["ghosts"] = docs["ghosts"].version if "ghosts" in docs else 0
        log.info("room %s: round %d opens%s", room.code, meta.round, " (a new series)" if series_done else "")
        return _commit(room, meta, write, expect, now, listed=True)

    async def _round_ghosts(self, code: str) -> tuple[int | str, list[Ghost]]:
        """The deal of the room's round just over and its players' games, as ghosts."""
        docs = await self.rooms.read(code)
        meta = META.decode(docs["meta"].data)
        if phase(meta, self.clock()) != "over":
            raise Refused("not_over", "a rematch can be offered only when the race is over")
        records = []
        for rid in await self.records.record_list(room_listing(meta.code), 0, 2 * MAX_GHOSTS + 2):
            data = await self.records.record_get(rid)
            if data is not None and (record := decode_record(data)).round == meta.round:
                records.append(record)
        if not records:
            raise Refused("no_ghosts", "this round's games are not on the record yet; try again in a moment")
        records.sort(key=lambda r: (len(r.seat), r.seat))
        try:
            deal, _, round_ghosts = ghosts_of(records[:MAX_GHOSTS])
        except GhostError as exc:
            raise Refused("bad_ghosts", str(exc)) from None
        return deal, round_ghosts


def _seated(session: Session) -> str:
    assert session.room is not None and session.seat is not None
    return session.seat


def _away(here: Here | None, seats: list[str], now: int, away_ms: int) -> list[str]:
    """The ``seats`` with no connection open for ``away_ms`` (none while presence is unknown)."""
    if here is None:
        return []
    present, since = here
    return [s for s in seats if s not in present and now - since.get(s, 0) >= away_ms]


def _not_yet(waiting: list[str], seats: dict[str, Seat], here: Here | None, now: int, away_ms: int) -> Refused:
    """Why an offer cannot go on yet without the players it waits for."""
    names = ", ".join(seats[s].name for s in waiting)
    present, since = here or (set(waiting), {})
    if any(s in present for s in waiting):
        return Refused("waiting", f"the offer waits for an answer from {names}")
    wait = max(since.get(s, 0) + away_ms for s in waiting) - now
    return Refused("not_yet", f"{names} has only just gone and may be back: try again in {(wait + 999) // 1000} s")


def _commit(
    room: Room, meta: Meta, write: dict[str, str], expect: dict[str, int], now: int, *, listed: bool = False
) -> Change[None]:
    """Commit ``meta`` (with ``write``, whose documents have the versions ``expect``),
    publishing the room as it then is."""
    write = {**write, "meta": dump(meta)}
    expect = {**expect, "meta": room.version}
    after = {name: doc for name, doc in room.docs.items() if write.get(name) != ""}
    for name, data in write.items():
        if data:
            after[name] = Doc(expect.get(name, 0) + 1, data)
    events: tuple[Event, ...] = (Timed(room.code, timers(meta, now)),)
    if listed:
        events += (Listed(room.code, meta),)
    return Change(expect=expect, write=write, publish=room_message(after, now), events=events)
