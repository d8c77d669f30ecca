"""``python -m race export`` and ``python -m race import``: the store's data as a file.

``export`` writes everything the SQLite store keeps that outlives a process: the rooms with
their documents and versions (seats, tokens, undo histories, daily players and their streaks,
each day's deal and the daily secret, the ratings among friends), the leaderboards, the games
on the record with their listings (rooms' rounds, ``/me``) and the coach's finished analyses
of them, and the live rooms' listing. Not presence, allowances, the documents' logs or the
analyses under way, which only matter while a process runs. It reads the file beside a
running server, in one transaction: a consistent copy, a backup at any time.

``import`` puts such a file into a store: the SQLite store (stop its server first) or Redis,
to move a group that outgrew one process onto Redis without losing its history. Rooms are
put back whole, versions and all, so players resume their seats; each thing keeps the time
it had left. Import into an empty store (what has the same name is replaced).

The file: one JSON object a line (gzipped when its name ends in ``.gz``), a heading line,
then one line per room, board, record, analysis or listing (:class:`race.store.Kept`).
Version 2 added the analyses; a version 1 file (none) imports as before.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import msgspec

from race.store import Kept, KeptAnalysis, KeptBoard, KeptListing, KeptRecord, KeptRoom, Store, open_store

FORMAT = "crescent-race-export"
VERSION = 2
_decode_kept = msgspec.json.Decoder(KeptRoom | KeptBoard | KeptRecord | KeptAnalysis | KeptListing)


class Heading(msgspec.Struct, frozen=True):
    format: str
    version: int
    exported_at: float


def register(sub: Any) -> None:
    p = sub.add_parser(
        "export",
        help="write the store's data to a file (a backup, or to move to Redis)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", help="where to write (.gz: gzipped; -: standard output)")
    p.add_argument("--from", dest="source", help="the store to read (default: the server's, from the environment)")
    p.set_defaults(func=run_export)
    p = sub.add_parser(
        "import",
        help="put an exported file into a store (the server's, or --to redis://...)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", help="a file written by export (.gz: gzipped; -: standard input)")
    p.add_argument("--to", dest="target", help="the store to fill (default: the server's, from the environment)")
    p.set_defaults(func=run_import)


def _url(given: str | None) -> str:
    from race.settings import Settings

    return given or Settings.from_env().store_url


@contextmanager
def _opened(name: str, mode: str) -> Iterator[IO[bytes]]:
    if name == "-":
        yield sys.stdout.buffer if "w" in mode else sys.stdin.buffer
    elif name.endswith(".gz"):
        with gzip.open(name, mode) as f:
            yield f  # type: ignore[misc]
    else:
        with Path(name).open(mode) as f:
            yield f


async def export(store: Store, out: IO[bytes]) -> Counter[str]:
    """Write everything ``store`` keeps to ``out`` (not the analyses under way); how many of
    each kind."""
    from race.service.analyses import finished

    counts: Counter[str] = Counter()
    out.write(msgspec.json.encode(Heading(FORMAT, VERSION, time.time())) + b"\n")
    async for kept in store.dump():
        if isinstance(kept, KeptAnalysis) and not finished(kept.data):
            continue
        out.write(msgspec.json.encode(kept) + b"\n")
        counts[type(kept).__name__.removeprefix("Kept").lower()] += 1
    return counts


async def read_kept(lines: IO[bytes]) -> AsyncIterator[Kept]:
    first = lines.readline()
    try:
        heading = msgspec.json.decode(first, type=Heading)
    except msgspec.DecodeError:
        heading = None
    if heading is None or heading.format != FORMAT or heading.version > VERSION:
        raise ValueError("not a file written by `python -m race export` (or by a newer version)")
    for line in lines:
        if line.strip():
            yield _decode_kept.decode(line)


async def load(store: Store, kept: AsyncIterator[Kept]) -> Counter[str]:
    """Put what ``kept`` holds into ``store``, skipping what has expired since; how many of
    each kind. Records are put in the order they came, which lists them as they were; an
    analysis comes after its record, and keeps the time it had left."""
    from race.service.analyses import finished

    counts: Counter[str] = Counter()
    async for item in kept:
        if isinstance(item, KeptAnalysis) and not finished(item.data):
            continue  # a claim on one under way (not written by export): computed again where it is read
        now = time.time()
        if isinstance(item, KeptRoom) and item.expires_at > now:
            await store.restore_room(item)
        elif isinstance(item, KeptBoard) and item.expires_at > now:
            for player, sort_key, data in item.entries:
                await store.board_add(item.group, player, sort_key, data, ttl=max(1, int(item.expires_at - now)))
        elif isinstance(item, KeptRecord) and item.expires_at > now:
            await store.record_put(item.rid, item.data, ttl=max(1, int(item.expires_at - now)), lists=item.lists)
        elif isinstance(item, KeptAnalysis) and item.expires_at > now:
            if not await store.analysis_put(item.rid, item.data, ttl=max(1, int(item.expires_at - now))):
                counts["expired"] += 1  # its record expired
                continue
        elif isinstance(item, KeptListing):
            for member, until in item.members:
                if until > now:
                    await store.list_add(item.key, member, until)
        else:
            counts["expired"] += 1
            continue
        counts[type(item).__name__.removeprefix("Kept").lower()] += 1
    return counts


_KINDS = {"room": "rooms", "board": "boards", "record": "records", "analysis": "analyses", "listing": "listings"}


def _summary(counts: Counter[str]) -> str:
    said = [f"{counts[k]:,} {k if counts[k] == 1 else many}" for k, many in _KINDS.items() if counts[k]]
    return ", ".join(said + ([f"{counts['expired']:,} expired"] if counts["expired"] else []))


def run_export(args: argparse.Namespace) -> int:
    url = _url(args.source)
    if not url.startswith("sqlite:"):
        print(f"error: export reads the SQLite store (sqlite://...), not {url.split('://')[0]}://", file=sys.stderr)
        print("(memory:// keeps nothing outside its server; back Redis up with its RDB or AOF files)", file=sys.stderr)
        return 2
    from race.store.sqlite import SqliteStore
    from race.store.sqlite_file import parse_url

    async def main() -> Counter[str]:
        store = SqliteStore(parse_url(url)[0], ttl=86400, readonly=True)  # beside a running server
        await store.connect()
        try:
            with _opened(args.file, "wb") as out:
                return await export(store, out)
        finally:
            await store.close()

    try:
        counts = asyncio.run(main())
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"exported {_summary(counts) or 'nothing'} to {args.file}", file=sys.stderr)
    return 0


def run_import(args: argparse.Namespace) -> int:
    from race.store.sqlite_file import StoreInUse

    url = _url(args.target)

    async def main() -> Counter[str]:
        store = open_store(url, ttl=86400)
        await store.connect()
        try:
            with _opened(args.file, "rb") as lines:
                return await load(store, read_kept(lines))
        finally:
            await store.close()

    try:
        counts = asyncio.run(main())
    except StoreInUse as exc:
        print(f"error: {exc}\nStop the server before importing into its data.", file=sys.stderr)
        return 1
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"imported {_summary(counts) or 'nothing'} into {url.split('@')[-1]}", file=sys.stderr)
    return 0
