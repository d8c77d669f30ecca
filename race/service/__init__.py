"""The room service: every player and spectator action, as read -> validate -> commit.

Each action reads the documents it needs, checks them with :mod:`race.rooms.model` and the engine,
and commits (:mod:`race.service.repo`) naming the versions it read, so a concurrent change
(another tab, another process) can never be overwritten: the action is retried on the fresh
state, or refused as stale when the player's own game moved on. Broadcasts are published by
the same commit. Errors are :class:`Refused`; nothing is written when one is raised.
"""

from race.service.base import LISTING, now_ms
from race.service.dispatch import RaceService
from race.service.session import Role, Session

__all__ = ["LISTING", "RaceService", "Role", "Session", "now_ms"]
