"""What one connection is to the service: nobody yet, a player in a seat, or a spectator
(:class:`Session`), kept by the connection and handed with each of its messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from race.rooms.errors import Refused
from race.service.repo import Memo


class Role(StrEnum):
    """What a connection in a room is there as."""

    PLAYER = "player"
    SPECTATOR = "spectator"


@dataclass
class Session:
    """What one connection is: nobody yet, a player in a seat, or a spectator."""

    conn_id: str
    room: str | None = None
    seat: str | None = None
    role: Role | None = None
    #: What this connection's last move committed: the next move starts from it instead of
    #: reading the store (see :meth:`race.service.repo.Rooms.transact_seat`).
    memo: Memo = field(default_factory=Memo)
    #: The client's address: the rooms it may start are counted by it.
    address: str = ""
    #: A spectator who holds a seat in the room's race (the same device), shown no boards
    #: until their own game is done.
    blind: bool = False
    #: How far (ms) everything this spectator is sent runs behind the race.
    delay_ms: int = 0
    #: The daily leaderboards this connection follows, the one asked for last at the end.
    boards: dict[str, None] = field(default_factory=dict)

    @property
    def sees_boards(self) -> bool:
        """Whether this connection gets the spectators' view of its room (with the boards
        during the race), not the players'."""
        return self.role is Role.SPECTATOR and not self.blind

    def not_seated(self) -> None:
        """Refuse a message that enters a room (``create``, ``join``, ``daily``...) on a
        connection that is in one already."""
        if self.role is not None:
            raise Refused("already_in_room", "this connection is already in a room; open a new one")
