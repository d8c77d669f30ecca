"""Configuration, read once from the environment (see the README's table)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from race.rooms.pace import DEFAULT_FLOORS, Pace, parse_floors

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
#: Where the server keeps its data when no REDIS_URL is set: ``data/`` of the checkout.
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
#: The durable store's file in DATA_DIR (with its ``-wal``, ``-shm`` and ``.lock`` beside it).
DATA_FILE = "race.db"
#: ``deflate``: accept permessage-deflate when a client offers it; ``none``: never.
WS_COMPRESSIONS = ("deflate", "none")


def data_url(data_dir: str | Path) -> str:
    """The store URL of the durable store in ``data_dir``.

    >>> data_url("/srv/race")
    'sqlite:///srv/race/race.db'
    """
    return f"sqlite://{Path(data_dir) / DATA_FILE}"


@dataclass(frozen=True)
class Settings:
    #: The store: made from the environment, the durable store in DATA_DIR unless REDIS_URL is
    #: set; made in code (the tests), the memory store unless given.
    store_url: str = "memory://"
    room_ttl: int = 24 * 3600
    countdown_seconds: float = 3.0
    rate_per_second: float = 20.0
    rate_burst: int = 40
    max_game_moves: int = 10_000
    max_connections_per_ip: int = 64
    rooms_per_minute_per_ip: float = 10.0
    allowed_origins: tuple[str, ...] = ()
    send_queue: int = 256
    web_dir: Path = WEB_DIR
    #: Serve the client's modules flattened into one script (see race/flatten.py); off: each
    #: module as it is, all preloaded (slower over HTTP/1.1; for reading them in a debugger).
    web_flatten: bool = True
    log_level: str = "INFO"
    daily_keep_days: int = 30
    #: New daily players (profiles) one address may make a day, across all processes: a
    #: fresh browser profile must not buy a fresh "first attempt" without end. None: no bound.
    daily_players_per_day_per_ip: int | None = 5
    #: How long a race's games stay on the record (a daily attempt's: as long as its day's
    #: leaderboard, ``daily_keep_days``).
    record_keep_days: float = 30.0
    #: The node budget of the search for a finished race's deal's line ("solver: N moves"
    #: beside its results); 0: no search.
    solver_node_limit: int = 200_000
    #: The node budget of a game's analysis (race.service.analyses), all its searches
    #: together; 0: none.
    analysis_node_limit: int = 3_000_000
    daily_node_limit: int = 200_000
    #: The key of the daily deals' seeds; None: one made at random, kept in the store.
    daily_secret: str | None = None
    #: The pace of a person, which a daily result must keep to be ranked (race.rooms.pace).
    daily_pace: Pace = field(default_factory=Pace)
    daily_warm: bool = True
    ws_compression: str = "deflate"
    #: Seconds a connection sends nothing before its compression context is dropped.
    ws_deflate_idle: float = 10.0
    presence_ttl: float = 30.0
    write_timeout: float = 10.0
    #: How long a player must have been away before the others may act without them (as host,
    #: or to end a race they are still in): a reload or a dropped connection is not gone.
    host_away_seconds: float = 15.0
    #: How long a player still racing may go without a move, an undo or a restart before
    #: they count as away for the ending rules, even with their page open (tests shorten it).
    race_idle_seconds: float = 120.0
    #: How long a page waits for the answer to a move or a hint before it gives up on it and
    #: asks what became of it (sent in ``hello``; tests shorten it).
    reply_wait_seconds: float = 5.0
    #: How often the home page asks for the live rooms again.
    live_poll_seconds: float = 5.0
    #: How long one reading of the live rooms answers ``GET /api/rooms`` (every home page polls).
    live_rooms_for_seconds: float = 2.0
    #: How often a page with no seat in a room that is closed to it looks the room up again.
    room_poll_seconds: float = 3.0
    #: The spectator delay (seconds: 0, 15 or 60) of a room made without one: a player cannot
    #: follow a rival's board live from a second device.
    spectator_delay: int = 15
    #: How long a second of spectator delay lasts, in ms (tests shorten it).
    spectator_second_ms: float = 1000.0
    #: The origin friends' devices can open (sent to pages in ``hello``); None: none known.
    share_origin: str | None = None
    #: What a hint adds to a finish time in a room whose hints cost (the default), in seconds.
    hint_penalty_seconds: float = 15.0

    def __post_init__(self) -> None:
        if self.spectator_delay not in (0, 15, 60):
            raise ValueError(f"SPECTATOR_DELAY_SECONDS must be 0, 15 or 60, got {self.spectator_delay}")
        if self.spectator_second_ms < 0:
            raise ValueError(f"SPECTATOR_SECOND_MS must not be negative, got {self.spectator_second_ms:g}")
        if self.write_timeout <= 0:
            raise ValueError(f"WRITE_TIMEOUT_SECONDS must be positive, got {self.write_timeout:g}")
        if self.ws_deflate_idle <= 0:
            raise ValueError(f"WS_DEFLATE_IDLE_SECONDS must be positive, got {self.ws_deflate_idle:g}")
        if self.send_queue < 1:
            raise ValueError(f"SEND_QUEUE must be at least 1, got {self.send_queue}")
        polls = (("LIVE_POLL_SECONDS", self.live_poll_seconds), ("ROOM_POLL_SECONDS", self.room_poll_seconds))
        for name, value in polls:
            if value <= 0:
                raise ValueError(f"{name} must be positive, got {value:g}")
        if self.share_origin is not None:
            parts = urlsplit(self.share_origin)
            if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query:
                example = "http://192.168.1.20:8000"
                raise ValueError(f"SHARE_ORIGIN must be an origin such as {example}, got {self.share_origin!r}")
        if self.live_rooms_for_seconds < 0:
            raise ValueError(f"LIVE_ROOMS_FOR_SECONDS must not be negative, got {self.live_rooms_for_seconds:g}")
        players = self.daily_players_per_day_per_ip
        if players is not None and players < 0:
            raise ValueError(f"DAILY_PLAYERS_PER_DAY_PER_IP must not be negative, got {players}")
        if self.record_keep_days <= 0:
            raise ValueError(f"RECORD_KEEP_DAYS must be positive, got {self.record_keep_days:g}")
        if not 0 < self.hint_penalty_seconds <= 3600:
            raise ValueError(f"HINT_PENALTY_SECONDS must be in (0, 3600], got {self.hint_penalty_seconds:g}")
        if self.reply_wait_seconds <= 0:
            raise ValueError(f"REPLY_WAIT_SECONDS must be positive, got {self.reply_wait_seconds:g}")
        if self.host_away_seconds < 0:
            raise ValueError(f"HOST_AWAY_SECONDS must not be negative, got {self.host_away_seconds:g}")
        if self.race_idle_seconds <= 0:
            raise ValueError(f"RACE_IDLE_SECONDS must be positive, got {self.race_idle_seconds:g}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env

        def num(name: str, default: float) -> float:
            raw = env.get(name)
            if raw is None or raw == "":
                return default
            try:
                return float(raw)
            except ValueError:
                raise ValueError(f"{name} must be a number, got {raw!r}") from None

        def floors(raw: str) -> dict[str, int]:
            if raw.strip() in ("0", "off"):
                return {}
            return parse_floors(raw) if raw.strip() else dict(DEFAULT_FLOORS)

        compression = env.get("WS_COMPRESSION", "").strip().lower() or cls.ws_compression
        if compression not in WS_COMPRESSIONS:
            raise ValueError(f"WS_COMPRESSION must be one of {', '.join(WS_COMPRESSIONS)}, got {compression!r}")
        origins = tuple(o.strip() for o in env.get("ALLOWED_ORIGINS", "").split(",") if o.strip())
        return cls(
            store_url=env.get("REDIS_URL") or data_url(env.get("DATA_DIR") or DATA_DIR),
            room_ttl=int(num("ROOM_TTL_SECONDS", cls.room_ttl)),
            countdown_seconds=num("COUNTDOWN_SECONDS", cls.countdown_seconds),
            rate_per_second=num("RATE_LIMIT_PER_SECOND", cls.rate_per_second),
            rate_burst=int(num("RATE_LIMIT_BURST", cls.rate_burst)),
            max_game_moves=int(num("MAX_GAME_MOVES", cls.max_game_moves)),
            max_connections_per_ip=int(num("MAX_CONNECTIONS_PER_IP", cls.max_connections_per_ip)),
            rooms_per_minute_per_ip=num("ROOMS_PER_MINUTE_PER_IP", cls.rooms_per_minute_per_ip),
            allowed_origins=origins,
            web_dir=Path(env.get("WEB_DIR") or WEB_DIR),
            web_flatten=env.get("WEB_FLATTEN", "1") not in ("0", "false", "no", ""),
            log_level=env.get("LOG_LEVEL", "INFO").upper(),
            daily_keep_days=int(num("DAILY_KEEP_DAYS", cls.daily_keep_days)),
            daily_players_per_day_per_ip=int(num("DAILY_PLAYERS_PER_DAY_PER_IP", 5)) or None,
            record_keep_days=num("RECORD_KEEP_DAYS", cls.record_keep_days),
            solver_node_limit=int(num("SOLVER_NODE_LIMIT", cls.solver_node_limit)),
            analysis_node_limit=int(num("ANALYSIS_NODE_LIMIT", cls.analysis_node_limit)),
            daily_node_limit=int(num("DAILY_NODE_LIMIT", cls.daily_node_limit)),
            daily_secret=env.get("DAILY_SECRET") or None,
            daily_pace=Pace(
                median_ms=int(num("DAILY_PACE_MEDIAN_MS", Pace.median_ms)),
                run=int(num("DAILY_PACE_RUN", Pace.run)),
                run_ms=int(num("DAILY_PACE_RUN_MS", Pace.run_ms)),
                floor_ms=floors(env.get("DAILY_PACE_FLOOR_SECONDS", "")),
            ),
            daily_warm=env.get("DAILY_WARM", "1") not in ("0", "false", "no", ""),
            ws_compression=compression,
            ws_deflate_idle=num("WS_DEFLATE_IDLE_SECONDS", cls.ws_deflate_idle),
            presence_ttl=num("PRESENCE_TTL_SECONDS", cls.presence_ttl),
            write_timeout=num("WRITE_TIMEOUT_SECONDS", cls.write_timeout),
            send_queue=int(num("SEND_QUEUE", cls.send_queue)),
            host_away_seconds=num("HOST_AWAY_SECONDS", cls.host_away_seconds),
            race_idle_seconds=num("RACE_IDLE_SECONDS", cls.race_idle_seconds),
            reply_wait_seconds=num("REPLY_WAIT_SECONDS", cls.reply_wait_seconds),
            live_poll_seconds=num("LIVE_POLL_SECONDS", cls.live_poll_seconds),
            live_rooms_for_seconds=num("LIVE_ROOMS_FOR_SECONDS", cls.live_rooms_for_seconds),
            room_poll_seconds=num("ROOM_POLL_SECONDS", cls.room_poll_seconds),
            share_origin=env.get("SHARE_ORIGIN", "").strip().rstrip("/") or None,
            spectator_delay=int(num("SPECTATOR_DELAY_SECONDS", cls.spectator_delay)),
            spectator_second_ms=num("SPECTATOR_SECOND_MS", cls.spectator_second_ms),
            hint_penalty_seconds=num("HINT_PENALTY_SECONDS", cls.hint_penalty_seconds),
        )
