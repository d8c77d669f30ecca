"""``python -m race ratings``: the ratings among friends (:mod:`race.service.ratings`).

With ``--recompute``, every rating is computed again from scratch: from each race rated so
far, as its games on the record gave it, and from the games still on the record that the
store can list (the SQLite store: races played before ratings were kept count too), in
order of their start. The numbers are the ones the server arrived at race by race. Run it
with the server stopped: the SQLite store's file is the server's alone, and on Redis a race
rated meanwhile stops the recompute (run it again). Without it, the command says how many
races and players are rated, and lists the best rated.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from race.store import open_store


def register(sub: Any) -> None:
    p = sub.add_parser(
        "ratings",
        help="the ratings among friends: list them, or --recompute them from the record",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--recompute", action="store_true", help="compute every rating again from the record")
    p.add_argument("--store", help="the store (default: the server's, from the environment)")
    p.add_argument("--top", type=int, default=10, help="how many of the best rated to list (default 10)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from race.rooms.ratings import STANDING, shown
    from race.service.ratings import ROOM, Ratings, games_on_record
    from race.settings import Settings
    from race.store.sqlite_file import StoreInUse

    url = args.store or Settings.from_env().store_url

    async def main() -> str:
        store = open_store(url, ttl=86400)
        await store.connect()
        try:
            ratings = Ratings(store)
            if args.recompute:
                races, players = await ratings.recompute(await games_on_record(store))
                return f"recomputed {races:,} races: {players:,} players rated"
            docs = await store.read_all(ROOM)
            standings = [STANDING.decode(d.data) for name, d in docs.items() if name.startswith("d:")]
            races = sum(1 for name in docs if name.startswith("x:"))
            best = sorted(standings, key=lambda s: -s.mu)[: max(0, args.top)]
            lines = [f"{races:,} races rated, {len(standings):,} players"]
            lines += [f"{i:>3}. {shown(s):>6}  {s.name} ({s.races} races)" for i, s in enumerate(best, 1)]
            return "\n".join(lines)
        finally:
            await store.close()

    try:
        print(asyncio.run(main()))
    except StoreInUse as exc:
        print(f"error: {exc}\nStop the server first.", file=sys.stderr)
        return 1
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
