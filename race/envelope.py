"""How a published message says who in its room gets it. Pure: the service wraps, the hub
(:mod:`race.hub`) unwraps, in whichever process.

A published text is a JSON object for everyone in the room, or is wrapped:

- by :func:`not_to`, for everyone but one connection (a mover, whose own reply already says
  the same);
- by :func:`by_role`, as two texts: one for the room's players, one for its spectators (during
  a race the players see each other's progress, the spectators the boards too). The two are
  joined by an ASCII record separator, which JSON text never holds raw.
"""

from __future__ import annotations

_NOT_TO = '{"_not_to":"'
_SEP = "\x1e"


def not_to(conn_id: str, message: str) -> str:
    """``message`` (a JSON object's text, or two of :func:`by_role`) for everyone in its
    room except the connection ``conn_id``.

    >>> not_to("c1", '{"type":"player"}')
    '{"_not_to":"c1","type":"player"}'
    >>> split_not_to(not_to("c1", '{"type":"player"}'))
    ('c1', '{"type":"player"}')
    """
    return f'{_NOT_TO}{conn_id}",{message[1:]}'


def split_not_to(message: str) -> tuple[str | None, str]:
    """The connection a published message is not for (``None``: for everyone), and the
    message without that."""
    if not message.startswith(_NOT_TO):
        return None, message
    end = message.index('"', len(_NOT_TO))
    return message[len(_NOT_TO) : end], "{" + message[end + 2 :]


def by_role(players: str, spectators: str) -> str:
    """One published text that gives the room's players ``players`` and its spectators
    ``spectators`` (the same text once, when they are equal).

    >>> split_roles(by_role('{"a":1}', '{"a":1,"b":2}'))
    ('{"a":1}', '{"a":1,"b":2}')
    >>> by_role('{"a":1}', '{"a":1}')
    '{"a":1}'
    """
    return players if players == spectators else players + _SEP + spectators


def split_roles(message: str) -> tuple[str, str]:
    """What a published text (without its :func:`not_to`) gives players and spectators."""
    players, sep, spectators = message.partition(_SEP)
    return (players, spectators) if sep else (message, message)
