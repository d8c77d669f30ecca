"""``python -m race bench-records``: how many bytes a game takes on the record.

Plays ``--games`` seeded games with the server benchmark's players (a random legal move that
is not the shuffle, else the shuffle, else undo when stuck, else restart; see
:func:`race.bench.load.choose`), each for a length drawn between ``--min-moves`` and
``--max-moves`` actions, with the times between actions drawn as a person's are spread (a
lognormal around 1.5 s). Each game becomes the record the server keeps (checked by replaying
it, as the server does), and the stored form's size is counted: median, p99 and largest, and
per action. The figures are sizes, not times: the same seed gives the same figures on any
machine.
"""

from __future__ import annotations

import argparse
import random
import statistics

from race.bench.load import choose
from race.engine import Game
from race.rooms.record import RESTART, UNDO, Record, Result, check, encode, new_id


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("bench-records", help="bytes a game takes on the record", description=__doc__)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--min-moves", type=int, default=40)
    parser.add_argument("--max-moves", type=int, default=300)
    parser.add_argument("--difficulty", default="medium")
    parser.add_argument("--seed", type=int, default=1)
    parser.set_defaults(func=run)


def play(rng: random.Random, deal: int, difficulty: str, length: int) -> Record:
    """A game of ``length`` actions by the benchmark's player, as the server records it."""
    game = Game.deal(deal, difficulty)
    acts: list[str] = []
    gaps: list[int] = []
    for _ in range(length):
        state = {"legal_moves": [str(m) for m in game.legal_moves()], "version": 0, "can_undo": bool(game.move_stack)}
        msg = choose(state, rng)
        if msg["type"] == "undo":
            game.undo()
            acts.append(UNDO)
        elif msg["type"] == "restart":
            game.restart()
            acts.append(RESTART)
        else:
            game.play(msg["move"])
            acts.append(msg["move"])
        gaps.append(min(int(rng.lognormvariate(7.3, 0.8)), 600_000))  # ms; median about 1.5 s
    finished = sum(gaps) if game.is_won else None
    result = Result(home=game.cards_on_foundations, moves=len(acts), finished_ms=finished)
    return Record(
        id=new_id(),
        deal=deal,
        difficulty=difficulty,
        name="Player",
        started=1_764_000_000_000,
        acts=tuple(acts),
        gaps=tuple(gaps),
        result=result,
        room="ABCDEF7",
        seat="s1",
    )


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or not 1 <= args.min_moves <= args.max_moves:
        print("bench-records: --games must be at least 1, and 1 <= --min-moves <= --max-moves")
        return 2
    rng = random.Random(args.seed)
    sizes: list[int] = []
    near_150: list[int] = []  # games of 140 to 160 actions
    actions = 0
    for _ in range(args.games):
        rec = play(rng, rng.randrange(1, 1_000_000), args.difficulty, rng.randint(args.min_moves, args.max_moves))
        check(rec)
        size = len(encode(rec))
        sizes.append(size)
        actions += len(rec.acts)
        if 140 <= len(rec.acts) <= 160:
            near_150.append(size)
    sizes.sort()
    p99 = sizes[min(len(sizes) - 1, int(0.99 * len(sizes)))]
    per = sum(sizes) / actions
    print(
        f"Game records: {args.games} {args.difficulty} games of {args.min_moves}-{args.max_moves} actions "
        f"(seed {args.seed})"
    )
    print(f"bytes per game: median {statistics.median(sizes):,.0f}, p99 {p99:,}, largest {sizes[-1]:,}")
    line = f"bytes per action: {per:.1f}"
    if near_150:
        line += f"; games of 140-160 actions: median {statistics.median(near_150):,.0f} ({len(near_150)} games)"
    print(line)
    return 0
