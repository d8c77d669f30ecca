"""``python -m race deal 42 --difficulty hard``: print a deal's layout."""

from __future__ import annotations

import argparse
from typing import Any

from race.engine import DIFFICULTIES, Game


def seed_arg(text: str) -> int | str:
    """A deal number when the text is all digits, else a text seed."""
    return int(text) if text.isdigit() else text


def register(sub: Any) -> None:
    p = sub.add_parser("deal", help="print a deal's layout", description=__doc__)
    p.add_argument("seed", type=seed_arg, help="deal number (digits) or text seed")
    p.add_argument("--difficulty", choices=list(DIFFICULTIES), default="medium")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        game = Game.deal(args.seed, args.difficulty)
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    print(game)
    return 0
