"""``python -m race serve``: run the server (configuration from the environment)."""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the web server", description=__doc__)
    p.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from race.app import create_app
    from race.settings import Settings

    settings = Settings.from_env()
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run(
        create_app(settings),
        host=args.host,
        port=args.port,
        ws_max_size=64 * 1024,
        ws_per_message_deflate=settings.ws_compression == "deflate",
        log_level=settings.log_level.lower(),
        proxy_headers=True,
        # A client that takes nothing it is sent cannot hold the shutdown up for longer.
        timeout_graceful_shutdown=int(settings.write_timeout) + 5,
    )
    return 0
