"""Redis Sentinel: ``redis+sentinel://`` URLs, and the clients that follow the primary they name.

``redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/SERVICE[/DB]`` names the
Sentinels (port 26379 unless given) and the service (the master's name in their
configuration), with the primary's credentials and database. When the Sentinels themselves
ask for a password, give it as ``?sentinel_password=...`` (and ``sentinel_username=...``).

Everything goes through redis-py's Sentinel client: redis-py's own client for the store's
occasional commands (:meth:`Sentinel.master_for`), and the lean connections of the move path
and the broadcasts (:mod:`race.store.pipe`), which ask it where the primary is
(:meth:`Sentinel.discover_master`) before each connection they open. A connection is opened
again when the primary dies, when Sentinel demotes it (Sentinel then closes its clients'
connections) and when it refuses a write as a replica (``READONLY``): so every client finds the
new primary by itself once Sentinel has promoted one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from redis.asyncio.sentinel import Sentinel

from .cluster import parse_hosts, split_address

DEFAULT_PORT = 26379


@dataclass(frozen=True)
class SentinelURL:
    """A parsed ``redis+sentinel://`` URL.

    >>> u = SentinelURL.parse("redis+sentinel://:s3cret@a,b:26380/race/2?sentinel_password=x")
    >>> u.sentinels, u.service, u.db, u.password, u.sentinel_password
    ([('a', 26379), ('b', 26380)], 'race', 2, 's3cret', 'x')
    >>> u.primary_url
    'redis://:s3cret@primary/2'
    """

    sentinels: list[tuple[str, int]]
    service: str
    db: int
    userinfo: str  # the primary's credentials as in the URL, with the "@" (or "")
    username: str | None
    password: str | None
    sentinel_username: str | None
    sentinel_password: str | None

    @classmethod
    def parse(cls, url: str) -> SentinelURL:
        parts = urlsplit(url)
        if parts.scheme != "redis+sentinel":
            raise ValueError(f"not a redis+sentinel:// URL: {parts.scheme}://")
        userinfo, addresses = parse_hosts(parts.netloc, DEFAULT_PORT)
        path = [p for p in parts.path.split("/") if p]
        if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
            raise ValueError("a redis+sentinel:// URL names its service: redis+sentinel://host:26379/SERVICE[/DB]")
        user, _, password = userinfo.removesuffix("@").partition(":")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        return cls(
            sentinels=[split_address(a) for a in addresses],
            service=unquote(path[0]),
            db=int(path[1]) if len(path) == 2 else 0,
            userinfo=userinfo,
            username=unquote(user) or None,
            password=unquote(password) if userinfo and ":" in userinfo else None,
            sentinel_username=query.get("sentinel_username"),
            sentinel_password=query.get("sentinel_password"),
        )

    @property
    def primary_url(self) -> str:
        """A ``redis://`` URL with the primary's credentials and database (its host is a
        placeholder: the lean connections ask Sentinel where the primary is)."""
        return f"redis://{self.userinfo}primary/{self.db}"

    def client(self, **connection: Any) -> Sentinel:
        """redis-py's Sentinel client, whose connections to the Sentinels and to the primary
        take ``connection``'s settings (timeouts, retries)."""
        sentinel_kwargs = {k: v for k, v in connection.items() if k.startswith("socket_")}
        if self.sentinel_password is not None:
            sentinel_kwargs["password"] = self.sentinel_password
            if self.sentinel_username is not None:
                sentinel_kwargs["username"] = self.sentinel_username
        return Sentinel(self.sentinels, sentinel_kwargs=sentinel_kwargs, **connection)
