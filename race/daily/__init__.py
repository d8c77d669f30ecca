"""The daily challenge: one proven-winnable deal per UTC date and difficulty, solo attempts
timed by the server from the first move, and a leaderboard per day.

- :mod:`race.daily.deal`: which deal a day has (secret, chosen by the solver in a worker).
- :mod:`race.daily.board`: a day's board, ranked and unverified results.
- :mod:`race.daily.results`: a won attempt posted to its board, streaks, a board read.
- :mod:`race.daily.challenge`: the actions (start an attempt, read a board).

The rules of a person's pace that a ranked result keeps are in :mod:`race.rooms.pace`.
"""

from race.daily.board import Entry, unverified_group
from race.daily.challenge import DailyChallenge
from race.daily.deal import candidate_seed, choose_deal, day_before, next_day
from race.daily.results import Results, current_streak
from race.service.players import board_group

__all__ = [
    "DailyChallenge",
    "Entry",
    "Results",
    "board_group",
    "candidate_seed",
    "choose_deal",
    "current_streak",
    "day_before",
    "next_day",
    "unverified_group",
]
