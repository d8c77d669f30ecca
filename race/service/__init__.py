"""The room service: every player and spectator action, as read -> validate -> commit.

Plain classes, each handed what it works with: :class:`race.service.repo.Rooms` (reading a
room and the one transaction every action is written in), and the actions on it: entering
a room (:mod:`race.service.entry`), its lobby (:mod:`race.service.lobby`), the race
(:mod:`race.service.race`) and its end (:mod:`race.service.ending`);
:class:`RaceService` hands each client message to its action by one table. Each action reads
the documents it needs, checks them with :mod:`race.rooms.model` and the engine, and commits
naming the versions it read, so a concurrent change (another tab, another process) can never
be overwritten: the action is retried on the fresh state, or refused as stale when the
player's own game moved on. Broadcasts are published by the same commit, and the events of
what it did (:mod:`race.rooms.events`) handed to the router the bootstrap made. Refusals are
:class:`race.rooms.errors.Refused`; nothing is written when one is raised.
"""

from race.service.dispatch import RaceService, now_ms
from race.service.session import Role, Session

__all__ = ["RaceService", "Role", "Session", "now_ms"]
