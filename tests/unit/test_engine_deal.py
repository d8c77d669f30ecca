"""The deal: pinned test vectors, and the documented algorithm reimplemented from its description."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from race.engine import Game, deal_piles
from race.engine.deal import seed_state

# Deal -> the 16 piles, bottom to top. These must never change: deal numbers are shared
# between players, stored with results and reproduced by other programs.
VECTORS: dict[int | str, list[str]] = {
    0: [
        "JS QS TD JC 8H TS", "4C 3C 8C 2C 8D 3D", "KD 2C 2S 7D 2S 7C", "6C 6H 2D QC 6D 2H",
        "QD 5S 6C QH 9D 5D", "4H 4D 4D KH 9C 7H", "JH QD QH 6S 9H AC", "4C JD TC 8S JH 6H",
        "3H 7D 8C 9D 3D 8S", "5H 6S 7S 9C 8H TC", "QS 3S TH AD 5C 2D", "AS TS 8D JS AH 6D",
        "JD 5D 4S 9H 7C 4H", "5H 4S JC 3H 7S 9S", "TH 5S TD 3C 2H QC", "9S KC 3S KS 7H 5C",
    ],
    1: [
        "3H 9S JS 2H TS 5H", "6C TH 3C 9S KH QD", "3S JH QC 4H 3S 6C", "JS 7D 6S 3D 3H 8S",
        "9C 9H 7S 4S KC 6D", "2C 7D 3C 8S AH 9C", "2S 5D JC 3D 7S 5C", "4H 7H TS 4S JD 8C",
        "5S 8H 2C 6H KS AC", "2D QS 8H 4C 8C 4D", "QH 2H 9D TC 5H 6H", "5S KD TC 6S 7C 9D",
        "TD 8D QD QC JC JH", "4D 7H 4C 2D AD 5D", "9H QS 5C AS JD QH", "2S 6D TH 8D 7C TD",
    ],
    42: [
        "TH JH TC AH 3D 3S", "8D 2D 3C 2H 9D 2H", "JH TS 6D 8S AS QD", "8S QH 2C AC JS QC",
        "TD 6S 3D AD 3H QC", "KD 4H 3S 9C KC 4S", "4D TH 4C 6S 9D JD", "QS 5S 7C KH 9S 7D",
        "4S 6C KS 7C TD TC", "JC 6H 8D 8H 9C 4D", "2S JS 5H 4H 8C 2S", "7S JD 8H 6D 4C 6C",
        "7H 9H 9S 7D 5C 6H", "2C QD 5D 5C 7H 2D", "7S 5S 5H QS 3H 5D", "QH TS 3C 9H JC 8C",
    ],
    2**64 - 1: [
        "4D TS 7S 9D 4H 2C", "AS 6H 3H QD QH TD", "9C AC 5C 7H 8S 2D", "JC 3C 7C 3S JH 4S",
        "TD QC 9D 2S TH KD", "9C 4C 9S 7D KH JS", "2S 6D 8D JD QS 4H", "3S 6C 8H 5C AD TC",
        "7H TC 4S 6S 5S 7S", "8C JS 7D 2H 7C AH", "TS 2C 8S 8C 5H QH", "9H 3D 4C 5D JH TH",
        "6S JD 6D 4D 6H 3C", "QS KS 2D 3D 9S 5S", "KC QC 8D 3H JC 5D", "2H 6C QD 8H 9H 5H",
    ],
    "hello": [
        "JH TS 4C 5D 7H 2H", "JS 8C KS 6S 9C 5C", "5H QD 8D 8S 4C 5D", "JH 9H 7C 3C AS 3H",
        "7H 9S 5S 9D KH 9D", "3D 8H 9H 7D 6D TD", "TC 3D KD 8H 2C 9S", "6D 5C JD 4H 6H 2D",
        "QH 2C TC 2S TH 7D", "TH 7S AC JC JD JC", "6C 5S QS 5H 8D 7S", "3H 2D 3S 3C QC AH",
        "8S QS 4D 2S 6H 4S", "TD 6C AD QD 4D 2H", "4S 6S JS QH KC 3S", "QC 4H 7C 8C TS 9C",
    ],
    "perft": [
        "TS 7H 6S 4D JH AS", "KC 3C 2C TC 4C 8C", "6H 4H 8C QH 4D 2D", "AH 9D 2C KD QH 7S",
        "JC 7C 4S 6C JS 3D", "JD 2H 8D 2S 5H 3D", "TD 7D 6S JD 9S AD", "6D 9H TD 5C 5S 8S",
        "AC 3H 5H TC 8S 8D", "2S QD 3S KH QD 4S", "9S 6C 5C JH QS QC", "JC 7D 9C JS QC 7H",
        "TS 7C 6H 5S KS QS", "3S TH TH 7S 2D 5D", "2H 9C 3H 8H 8H 4H", "5D 9H 9D 4C 6D 3C",
    ],
    "Crescent Race": [
        "6S TD 9C 8C 6C 6H", "8S 7D JC JD 7C 9S", "7S 3H QS 3C 4H QS", "9H JC QH TS 7D 8D",
        "4S 7C 2S KD 7H 4C", "5S QD AD 8C AS AH", "3D 9D 3C QC 5H JH", "2C JS 2H 6S TS 6C",
        "3S 7S KS 9C 4C JH", "JS JD TC 8D 3D QH", "QC KH 8S 3H TD 5H", "4S 8H 5S QD AC 4D",
        "3S 6D 5D 6D 9S 9D", "4D 4H 2D 2H 2S 6H", "9H 2C TH TC 5C TH", "KC 5C 8H 2D 5D 7H",
    ],
    "ünïcode ♠": [
        "3S 5D QS QS 2S AD", "5S 9C 2D 5H 7H 4D", "QH TH 9H 3D 8S 3D", "6S 8H AH 8D 6S 9H",
        "6D 9S 2S JD QC 6H", "2C JS JC 7D 5C 2H", "JH 4C 4C KD 9C 9D", "AS QC 4S 3C QD AC",
        "9S 4H 6C 3H 7H JC", "QH 2H 2C TC JH 6D", "4S JS 7D 4D 9D 5C", "TD QD KH TS 8C TD",
        "4H TH 7C 3H 5S 7S", "TC 2D 8D 7C 5H TS", "5D 6C KS KC 3C 8S", "7S JD 6H 8C 8H 3S",
    ],
}  # fmt: skip


def pile_texts(game: Game) -> list[str]:
    return [" ".join(str(card) for card in pile) for pile in game.piles]


# -- an independent implementation of the algorithm as documented -------------------------

M64 = 2**64


def reference_deal(seed: int | str) -> list[str]:
    """The deal algorithm of the documentation, written again from its text alone."""
    # 1. the seed becomes a 64-bit state
    digest = hashlib.sha256(seed.encode("utf-8")).digest() if isinstance(seed, str) else b""
    state = int.from_bytes(digest[:8], "big") if isinstance(seed, str) else seed

    # 2. SplitMix64
    def next_output() -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) % M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % M64
        return z ^ (z >> 31)

    # 3. the 96 cards in order: suits S H D C, ranks A..K, one Ace and one King per suit
    cards = []
    for suit in "SHDC":
        for rank in "A23456789TJQK":
            cards += [rank + suit] * (1 if rank in "AK" else 2)
    assert len(cards) == 96

    # 4. Fisher-Yates with rejection sampling
    for i in range(95, 0, -1):
        n = i + 1
        while True:
            x = next_output()
            if x < M64 - M64 % n:
                break
        j = x % n
        cards[i], cards[j] = cards[j], cards[i]

    # 5. pile p takes items 6p..6p+5, the first at the bottom
    return [" ".join(cards[6 * p : 6 * p + 6]) for p in range(16)]


@pytest.mark.parametrize("seed", list(VECTORS), ids=repr)
def test_deal_matches_pinned_vector(seed: int | str) -> None:
    assert pile_texts(Game.deal(seed)) == VECTORS[seed]


@pytest.mark.parametrize("seed", list(VECTORS), ids=repr)
def test_pinned_vectors_follow_the_documented_algorithm(seed: int | str) -> None:
    assert reference_deal(seed) == VECTORS[seed]


def test_documented_algorithm_matches_engine_over_many_seeds() -> None:
    seeds: list[int | str] = [*range(300), 2**32, 2**63, 2**64 - 2, "a", "Deal 7", "x" * 200, "日本"]
    for seed in seeds:
        assert reference_deal(seed) == pile_texts(Game.deal(seed)), seed


def test_text_seed_state_is_first_eight_bytes_of_sha256_big_endian() -> None:
    # sha256("abc") = ba7816bf8f01cfea 414140de5dae2223 ...
    assert seed_state("abc") == 0xBA7816BF8F01CFEA
    assert seed_state(12345) == 12345


def test_digit_text_seed_is_not_the_deal_number() -> None:
    assert pile_texts(Game.deal("42")) != pile_texts(Game.deal(42))


def test_every_deal_has_96_cards_one_ace_and_king_and_two_of_the_rest_per_suit() -> None:
    for seed in [*range(50), "hello"]:
        counts = Counter(str(card) for pile in Game.deal(seed).piles for card in pile)
        assert sum(counts.values()) == 96
        for suit in "SHDC":
            for rank in "A23456789TJQK":
                assert counts[rank + suit] == (1 if rank in "AK" else 2)


def test_deal_has_sixteen_piles_of_six_and_bare_bases() -> None:
    game = Game.deal(7)
    assert [len(pile) for pile in game.piles] == [6] * 16
    assert {k: [str(c) for c in v] for k, v in game.foundations.items()} == {
        "uS": ["AS"], "uH": ["AH"], "uD": ["AD"], "uC": ["AC"],
        "dS": ["KS"], "dH": ["KH"], "dD": ["KD"], "dC": ["KC"],
    }  # fmt: skip


def test_difficulty_changes_the_allowance_not_the_layout() -> None:
    layouts = {tuple(pile_texts(Game.deal(42, d))) for d in ("easy", "medium", "hard")}
    assert len(layouts) == 1


def test_deal_is_a_pure_function_of_the_seed() -> None:
    assert deal_piles(99) == deal_piles(99)
    game = Game.deal(99)
    before = pile_texts(game)
    game.play(game.legal_moves()[0])
    assert pile_texts(Game.deal(99)) == before  # playing one game never changes the deal
