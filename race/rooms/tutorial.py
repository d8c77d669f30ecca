"""The tutorial: a small fixed position, most of its cards already home, and the lessons that
walk a newcomer through it: a foundation play, a pile move, the A-K wrap, a give-back and a
shuffle, then the last cards home by themselves, a first win. Pure: no I/O.

The position is a real game of the engine (:data:`SEED`, a seed no other room is dealt), and
every move is the engine's to allow. The lessons only narrow it: while a lesson runs, the one
move it teaches is the one offered, and once they are all done every legal move is. Where a
game stands in the lessons follows from how many moves its history holds (the lessons'
moves are the only ones accepted until they are done, so its first moves are theirs).

>>> game = start()
>>> offered(game, 0)
['p1>uH']
>>> lesson(game, 0)["title"]
'Play a card home'
>>> for move in LINE:
...     _ = game.play(move)
>>> len(offered(game, len(LINE))) > 1
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from race.engine import FOUNDATIONS, Game, IllegalMove, InvalidMove, Move
from race.engine.saved import FORMAT

#: The tutorial's seed: no race or daily deal has it (their deals are numbers, or "daily:...").
SEED = "tutorial"
DIFFICULTY = "hard"  # 3 shuffles: the lessons spend one

# Piles bottom to top (the last card is the top); the empty ones stay empty.
_PILES: dict[int, list[str]] = {
    1: ["KH", "QH"],
    3: ["JC", "KC"],
    4: ["QC"],
    10: ["QD", "KD"],
    12: ["AS"],
    13: ["QS", "KS"],
}
# Cards on each foundation, its base included: 94 of the 104 are home.
_FOUNDATIONS = {"uS": 11, "uH": 11, "uD": 11, "uC": 10, "dS": 12, "dH": 13, "dD": 13, "dC": 13}


@dataclass(frozen=True)
class Lesson:
    key: str  # the lesson's words in the page's catalogue: lesson.KEY.title, lesson.KEY.text
    title: str
    text: str
    move: str | None  # the move it teaches; None: any legal move, until the game is won


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "home",
        "Play a card home",
        "The foundations in the middle build in suit, up from the Ace (▲) or down from the King (▼). "
        "The ♥ up foundation is at J♥: the Q♥ goes there next. Tap the Q♥ to play it home.",
        "p1>uH",
    ),
    Lesson(
        "pile",
        "Move a card onto a pile",
        "A pile's top card may go onto another pile's top card of its suit, one rank up or down. "
        "The K♣ covers the J♣ that the ♣ up foundation needs: tap the K♣, then the Q♣.",
        "p3>p4",
    ),
    Lesson(
        "wrap",
        "The A-K wrap",
        "On the piles (never on the foundations), Ace and King are neighbours. The K♠ covers the "
        "Q♠: tap the K♠, then the A♠.",
        "p13>p12",
    ),
    Lesson(
        "giveback",
        "Give a card back",
        "A foundation's top card may come back onto a pile that takes it: late in a game, that "
        "untangles a suit. Tap the A♦ on the ♦ down foundation, then the K♦.",
        "dD>p10",
    ),
    Lesson(
        "shuffle",
        "Shuffle",
        "The Q♣ and the Q♦ are stuck at the bottom of their piles. A shuffle brings every pile's "
        "bottom card to its top, all at once (no luck in it). Press Shuffle.",
        "shuffle",
    ),
    Lesson(
        "win",
        "Win the game",
        "Now bring the last cards home yourself: tap a card to play it home.",
        None,
    ),
)
#: The moves the lessons teach, in order.
LINE: tuple[str, ...] = tuple(lesson.move for lesson in LESSONS if lesson.move is not None)
WON_KEY = "won"  # the words once the game is won: lesson.won.title, lesson.won.text
WON = "That was a whole game of Crescent. A race is the same game on a full deal, against friends."


def position() -> dict[str, Any]:
    """The tutorial's position in the engine's saved form (no history)."""
    return {
        "format": FORMAT,
        "seed": SEED,
        "difficulty": DIFFICULTY,
        "piles": [_PILES.get(p, []) for p in range(16)],
        "foundations": {key: _FOUNDATIONS[key] for key in FOUNDATIONS},
        "shuffles_left": 3,
        "history": [],
    }


def start() -> Game:
    """A new game at the tutorial's position, checked by the engine as any saved game is."""
    return Game.from_dict(position())


def is_tutorial(game: Game) -> bool:
    return game.seed == SEED


def step(played: int) -> int:
    """The lesson (0-based) of a tutorial game whose history holds ``played`` moves."""
    return min(played, len(LINE))


def offered(game: Game, played: int) -> list[str]:
    """The moves the tutorial offers: the lesson's move while one runs, else every legal move."""
    moves = [str(m) for m in game.legal_moves()]
    k = step(played)
    if k < len(LINE):
        return [m for m in moves if m == LINE[k]]
    return moves


def refusal(game: Game, played: int, text: str) -> str | None:
    """Why the tutorial refuses a move the engine would allow here (``None``: it does not; a
    move the engine refuses, or malformed text, is the engine's to refuse)."""
    k = step(played)
    if k >= len(LINE) or text == LINE[k]:
        return None
    try:
        if not game.is_legal(Move.parse(text)):
            return None
    except (InvalidMove, IllegalMove):
        return None
    return f"this lesson ({LESSONS[k].title}) asks for {LINE[k]}, not {text}"


def hint(game: Game, played: int) -> Move | None:
    """The lesson's move, or the engine's hint once the lessons are done."""
    k = step(played)
    return Move.parse(LINE[k]) if k < len(LINE) else game.hint()


def lesson(game: Game, played: int) -> dict[str, Any]:
    """Where the game stands in the lessons, as the page shows it: the lesson's number
    (1-based) and its key (``key``; ``keys``, every lesson's), by which the page finds its
    words in the reader's language, the move it asks for (``None`` in the last, free one),
    and whether the game is won. ``title``, ``titles`` and ``text`` are the same words in
    English, for programs."""
    k = step(played)
    current = LESSONS[k]
    return {
        "step": k + 1,
        "steps": len(LESSONS),
        "key": WON_KEY if game.is_won else current.key,
        "keys": [item.key for item in LESSONS],
        "titles": [item.title for item in LESSONS],
        "title": "Your first win" if game.is_won else current.title,
        "text": WON if game.is_won else current.text,
        "move": current.move,
        "won": game.is_won,
    }
