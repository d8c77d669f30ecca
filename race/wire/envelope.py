"""What travels on a room's channel between processes: an :class:`Envelope`, a typed record
encoded once by whoever publishes (the service, presence, the daily challenge; the store's
:data:`RESYNC`) and decoded once in each process by the hub (:mod:`race.live.hub`). Pure.

An envelope is a JSON array, ``[kind, skip, body, spectators, seat, timers]``. Its ``kind`` says
what it is (:class:`Kind`): news for the room's clients (``body``, the players' text, and
``spectators``, theirs when it differs: during a race the players see each other's progress,
the spectators the boards too), with ``skip`` the one connection it is not for (a mover,
whose own reply already says the same); or a control message between processes, which never
reaches a client. The texts for clients are embedded as they are (``msgspec.Raw``), so each
is written once and handed on unchanged. A ``room`` snapshot also carries the room's
:class:`Timers`, which every process that gets it keeps (:mod:`race.live.scheduler`), so that
they still come when the process that published it has gone. A text that is not an array
(a bare JSON object, as a tool or a test may publish) is news for everyone. Fields are only
ever added at the end: a process of the version before ignores those it does not know.

>>> text = encode(not_to("c1", news('{"type":"player"}')))
>>> text
'["news","c1",{"type":"player"},null,null,null]'
>>> envelope = decode(text)
>>> envelope.skip, texts(envelope)
('c1', ('{"type":"player"}', '{"type":"player"}'))
>>> texts(decode('{"type":"mark"}'))
('{"type":"mark"}', '{"type":"mark"}')
"""

from __future__ import annotations

from enum import StrEnum

import msgspec


class Kind(StrEnum):
    """What an envelope carries."""

    NEWS = "news"  # for the room's clients
    ROOM = "room"  # a ``room`` snapshot for the clients, with the room's timers
    RESYNC = "resync"  # (from the store) the room's messages may have been lost: its clients resync
    REPLACE = "replace"  # ``seat`` was opened on connection ``skip``: the seat's other connections close
    REMOVED = "removed"  # the host took ``seat`` away: its connections close


_NULL = msgspec.Raw(b"null")


class Timers(msgspec.Struct, array_like=True, frozen=True):
    """A room's timed events as they stand (server ms): the start of its race to announce
    once its countdown is over, and the end of its time limit; or ``moot``: none is due any
    more (its race is over, or a new round waits in its lobby). ``idle``: when a player still
    racing may turn idle (see :mod:`race.rooms.away`), for the room to be told its presence."""

    start: int | None = None
    end: int | None = None
    moot: bool = False
    idle: int | None = None


class Envelope(msgspec.Struct, array_like=True, frozen=True):
    kind: Kind
    #: The connection this is not for (news), or the one kept (``replace``).
    skip: str | None = None
    #: The players' text (news, ``room``), a JSON object.
    body: msgspec.Raw = _NULL
    #: The spectators' text, when it is not the players'.
    spectators: msgspec.Raw = _NULL
    #: The seat a ``replace`` or ``removed`` is about.
    seat: str | None = None
    #: A ``room`` snapshot's timers.
    timers: Timers | None = None


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Envelope)
RESYNC = _encoder.encode(Envelope(Kind.RESYNC)).decode()


def _raw(text: str | bytes) -> msgspec.Raw:
    return msgspec.Raw(text.encode() if isinstance(text, str) else text)


def news(players: str | bytes, spectators: str | bytes | None = None) -> Envelope:
    """``players`` for the room's players and ``spectators`` for its spectators (``players``
    for all when it is ``None`` or the same)."""
    if spectators is None or spectators == players:
        return Envelope(Kind.NEWS, body=_raw(players))
    return Envelope(Kind.NEWS, body=_raw(players), spectators=_raw(spectators))


def snapshot(players: str | bytes, spectators: str | bytes | None, timers: Timers) -> Envelope:
    """A ``room`` snapshot: ``players`` and ``spectators`` as :func:`news` has them, and the
    room's ``timers``."""
    shown = news(players, spectators)
    return Envelope(Kind.ROOM, body=shown.body, spectators=shown.spectators, timers=timers)


def not_to(conn_id: str, envelope: Envelope) -> Envelope:
    """``envelope`` for everyone in its room except the connection ``conn_id``."""
    return msgspec.structs.replace(envelope, skip=conn_id)


def replace(seat: str, conn_id: str) -> Envelope:
    """Seat ``seat`` is open on connection ``conn_id``: its other connections close."""
    return Envelope(Kind.REPLACE, skip=conn_id, seat=seat)


def removed(seat: str) -> Envelope:
    """The host took ``seat`` away: its connections close."""
    return Envelope(Kind.REMOVED, seat=seat)


def encode(envelope: Envelope) -> str:
    """The text published for ``envelope``."""
    return _encoder.encode(envelope).decode()


def decode(text: str) -> Envelope:
    """The envelope a published text holds (a bare JSON object: news for everyone). Raises
    ``msgspec.DecodeError`` for anything else."""
    if not text.startswith("["):
        return Envelope(Kind.NEWS, body=_raw(text))
    return _decoder.decode(text)


def texts(envelope: Envelope) -> tuple[str, str]:
    """The texts of news for the room's players and for its spectators."""
    players = bytes(envelope.body).decode()
    if envelope.spectators == _NULL:
        return players, players
    return players, bytes(envelope.spectators).decode()
