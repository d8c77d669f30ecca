"""RESP2, the Redis wire protocol, for the lean connections of :mod:`race.store.pipe`: a
command encoded as an array of bulk strings, and replies parsed from a buffer as they arrive
(a partial reply waits for the rest).

>>> encode(("GET", "k"))
b'*2\\r\\n$3\\r\\nGET\\r\\n$1\\r\\nk\\r\\n'
>>> take_replies(bytearray(b":1\\r\\n$2\\r\\nok\\r\\n$5\\r\\npar"))
[1, 'ok']
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterDownError,
    MasterDownError,
    MovedError,
    NoScriptError,
    ReadOnlyError,
    ResponseError,
    TryAgainError,
)

#: What :func:`parse` returns for a reply not yet complete in the buffer.
INCOMPLETE = object()
_ERRORS: dict[str, type[Exception]] = {
    "NOSCRIPT": NoScriptError,
    "LOADING": BusyLoadingError,
    "READONLY": ReadOnlyError,
    "MASTERDOWN": MasterDownError,
    "TRYAGAIN": TryAgainError,
    "CLUSTERDOWN": ClusterDownError,
}
#: Redis Cluster's redirections, made from the words after the code (``SLOT HOST:PORT``).
_REDIRECTS: dict[str, type[Exception]] = {"MOVED": MovedError, "ASK": AskError}


def encode(args: tuple[Any, ...]) -> bytes:
    """A command as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    append = out.append
    for arg in args:
        if isinstance(arg, str):
            data = arg.encode()
        elif isinstance(arg, bytes):
            data = arg
        else:
            data = str(arg).encode()
        append(b"$%d\r\n" % len(data))  # the data itself is copied once, by the join
        append(data)
        append(b"\r\n")
    return b"".join(out)


def parse(buf: bytearray, pos: int) -> tuple[Any, int]:
    """One RESP2 reply at ``buf[pos:]`` and the position after it, or ``(INCOMPLETE, pos)``.
        Bulk strings are decoded as UTF-8; an error reply is returned as an exception, like
        redis-py's: ``NOSCRIPT`` a NoScriptError, ``LOADING`` (a restarted Redis still reading its
        data) a BusyLoadingError, which is a connection error, ``READONLY`` (a primary demoted to a
        replica by a failover) a ReadOnlyError, ``MASTERDOWN`` (a replica cut off from its
        primary) a MasterDownError; Redis Cluster's ``MOVED`` and ``ASK`` a MovedError and an AskError
    (with the slot and the address), ``TRYAGAIN`` a TryAgainError, ``CLUSTERDOWN`` a
    ClusterDownError; anything else a ResponseError."""
    end = buf.find(b"\r\n", pos)
    if end < 0:
        return INCOMPLETE, pos
    kind = buf[pos]
    if kind == 36:  # $ bulk string
        n = int(buf[pos + 1 : end])
        if n < 0:
            return None, end + 2
        start = end + 2
        if len(buf) < start + n + 2:
            return INCOMPLETE, pos
        return buf[start : start + n].decode(), start + n + 2
    if kind == 58:  # : integer
        return int(buf[pos + 1 : end]), end + 2
    if kind == 42:  # * array
        n = int(buf[pos + 1 : end])
        if n < 0:
            return None, end + 2
        items = []
        at = end + 2
        for _ in range(n):
            item, after = parse(buf, at)
            if item is INCOMPLETE:
                return INCOMPLETE, pos
            items.append(item)
            at = after
        return items, at
    if kind == 43:  # + simple string
        return buf[pos + 1 : end].decode(), end + 2
    if kind == 45:  # - error
        text = buf[pos + 1 : end].decode()
        code, _, rest = text.partition(" ")
        if code in _REDIRECTS:
            return _REDIRECTS[code](rest), end + 2
        return _ERRORS.get(code, ResponseError)(text), end + 2
    raise ConnectionError(f"unexpected reply from Redis: {bytes(buf[pos : pos + 20])!r}")


def take_replies(buf: bytearray) -> list[Any]:
    """Parse the complete replies at the start of ``buf`` and remove them from it (a partial
    reply stays for the next read). Raises on a corrupt stream."""
    pos, replies = 0, []
    while pos < len(buf):
        value, after = parse(buf, pos)
        if value is INCOMPLETE:
            break
        replies.append(value)
        pos = after
    del buf[:pos]
    return replies
