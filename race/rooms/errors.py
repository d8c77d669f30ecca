"""The one error of the room's rules: :class:`Refused`, an action the rules or the room's
state do not allow. The service and the daily challenge raise it; the edge
(:mod:`race.edge.handler`) answers it as the protocol's ``error`` message, with the same
code and message. No I/O."""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """An action refused: ``code`` is for programs (``not_host``, ``stale``...), ``message``
    for people; ``extra`` is what the refusal carries besides (a ``stale`` move: the current
    ``state``)."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra
