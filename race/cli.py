"""``python -m race``: one entry point, a subcommand per module in :mod:`race.commands`.

Each command module defines ``register(subparsers)``, which adds its parser and sets
``func`` (called with the parsed arguments, returning an exit code). Heavy imports (the
server, the solver) happen inside ``func`` so that ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

COMMANDS = [
    "race.commands.deal",
    "race.commands.bench_engine",
    "race.commands.bench_solver",
    "race.commands.serve",
    "race.commands.bench",
    "race.commands.bench_records",
    "race.commands.bench_coach",
    "race.commands.bench_store",
    "race.commands.transfer",
    "race.commands.ratings",
    "race.commands.bench_page",
    "race.commands.solve",
    "race.commands.winnability",
    "race.commands.bench_hints",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m race", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)
