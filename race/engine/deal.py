"""The deal: a seed to sixteen piles of six, the same on every machine, forever.

The algorithm is part of the public contract (documented in the README), so that any
program in any language can reproduce a deal from its seed:

1. The seed becomes a 64-bit state. An ``int`` seed ``n`` (``0 <= n < 2**64``) is used as it
   is. A ``str`` seed (1 to 200 characters; ``"42"`` is a text seed, not deal 42) is encoded
   as UTF-8 and hashed with SHA-256; the first 8 bytes of the digest, read big-endian, are
   the state.
2. The generator is SplitMix64: ``state += 0x9E3779B97F4A7C15``; ``z = state``;
   ``z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9``; ``z = (z ^ z >> 27) * 0x94D049BB133111EB``;
   output ``z ^ z >> 31`` (all arithmetic modulo 2**64).
3. The 96 cards left after the eight bases (one Ace and one King per suit) are listed in
   order: suits ``S H D C``, and within a suit ranks A to K, two copies of each rank except
   one copy of the Ace and one of the King.
4. Fisher-Yates: for ``i`` from 95 down to 1, draw ``j`` uniformly from ``0..i`` and swap
   items ``i`` and ``j``. A draw takes outputs ``x`` until ``x < 2**64 - (2**64 % (i+1))``
   and uses ``x % (i+1)`` (rejection keeps it unbiased).
5. Pile ``p`` (0-15) takes items ``6p`` to ``6p+5``, the first of them at the bottom.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MAX_SEED_TEXT = 200


def seed_state(seed: int | str) -> int:
    """The generator's starting state for a deal number or a text seed."""
    if type(seed) is int:
        if not 0 <= seed <= MASK64:
            raise ValueError(f"deal number must be between 0 and 2**64-1, got {seed}")
        return seed
    if isinstance(seed, str):
        if not 0 < len(seed) <= MAX_SEED_TEXT:
            raise ValueError(f"text seed must be 1-{MAX_SEED_TEXT} characters, got {len(seed)}")
        return int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:8], "big")
    raise ValueError(f"seed must be an int (a deal number) or a str, got {type(seed).__name__}")


def splitmix64(state: int) -> tuple[int, int]:
    """One SplitMix64 step: ``(new_state, output)``."""
    state = (state + GOLDEN) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def unshuffled_cards() -> list[int]:
    """The 96 dealt cards in their documented starting order, as card indexes 0-51."""
    cards = []
    for suit in range(4):
        for rank in range(1, 14):
            copies = 1 if rank in (1, 13) else 2
            cards.extend([suit * 13 + rank - 1] * copies)
    return cards


@lru_cache(maxsize=1024, typed=True)
def deal_piles(seed: int | str) -> tuple[tuple[int, ...], ...]:
    """The 16 piles of a deal, bottom to top, as card indexes (see :class:`Card.index`)."""
    state = seed_state(seed)
    cards = unshuffled_cards()
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            state, x = splitmix64(state)
            if x < limit:
                break
        j = x % n
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(tuple(cards[6 * p : 6 * p + 6]) for p in range(16))
