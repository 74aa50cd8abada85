"""The chance that a properly shuffled shoe repeats a run of cards: the numbers the slug search
(:mod:`pipeline.patterns.slugs`) reports against, and the limits of the search.

Under a proper shuffle every order of the shoe's ``N`` cards is equally likely. With at most
``D`` copies of each card, the probability that ``L`` given positions hold a given sequence is
``prod_{i<L} m_i / (N - i)`` (``m_i``: the copies of the i-th card left once the ones before
it are placed), at most ``prod_{i<L} D / (N - i)`` for any sequence.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

CARDS_PER_DECK = 52

GRAM = 4
"""Cards per indexed run. A run shorter than this is never looked up, which loses nothing
while the false-alarm rate is at most :data:`MAX_FALSE_ALARM_RATE`: three cards repeat by
chance with probability at least (1/52)^3 > 7e-6 even for one pair of positions."""

MAX_FALSE_ALARM_RATE = 1e-6
"""The largest false-alarm rate per shoe the search can honour (see :data:`GRAM`)."""
INFORMED_FALSE_ALARM_RATE = 0.01
"""At most one gaming day in a hundred of fair play raises any informed-betting alarm
(:mod:`pipeline.patterns.informed`; here so the catalog's defaults load without numpy)."""
EVIDENCE_FALSE_ALARM_RATE = 0.001
"""At most one fair patron in a thousand a year raises a card-preview or accumulated
informed-betting alarm (:mod:`pipeline.patterns.evidence`)."""
PAIRS_FALSE_ALARM_RATE = 0.01
"""At most one window in a hundred of honest dealing raises any dealer-patron alarm
(:mod:`pipeline.patterns.pairs`)."""


def run_probability(run: Sequence[Hashable], cards_in_shoe: int, decks: int) -> float:
    """``prod_{i<L} m_i / (N - i)``: the chance that L given positions of a properly shuffled
    shoe of ``cards_in_shoe`` cards, ``decks`` copies of each card, hold ``run`` in order."""
    seen: dict[Hashable, int] = {}
    probability = 1.0
    for i, card in enumerate(run):
        left = decks - seen.get(card, 0)
        if left <= 0 or cards_in_shoe - i <= 0:
            return 0.0
        probability *= left / (cards_in_shoe - i)
        seen[card] = seen.get(card, 0) + 1
    return probability


def any_run_probability(length: int, cards_in_shoe: int) -> float:
    """``prod_{i<L} D / (N - i)``: at most the chance that one pair of starting positions
    repeats any given run of ``length`` cards (every card distinct is the likeliest)."""
    decks = max(1, math.ceil(cards_in_shoe / CARDS_PER_DECK))
    probability = 1.0
    for i in range(length):
        if cards_in_shoe - i <= 0:
            return 0.0
        probability *= min(1.0, decks / (cards_in_shoe - i))
    return probability
