"""The Crescent rules engine: pure, deterministic, no I/O.

>>> from race.engine import Game
>>> game = Game.deal(1)
>>> len(game.piles), sum(len(p) for p in game.piles)
(16, 96)
"""

from .cards import CARDS, RANKS, SUITS, Card, InvalidCard
from .deal import deal_piles
from .game import DIFFICULTIES, Game
from .moves import FOUNDATIONS, IllegalMove, InvalidMove, Move

__all__ = [
    "CARDS",
    "DIFFICULTIES",
    "FOUNDATIONS",
    "RANKS",
    "SUITS",
    "Card",
    "Game",
    "IllegalMove",
    "InvalidCard",
    "InvalidMove",
    "Move",
    "deal_piles",
]
