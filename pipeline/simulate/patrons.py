"""Patrons: who sits down, how they bet, when they leave. Deterministic from the RNG."""

from __future__ import annotations

import random
from dataclasses import dataclass

from pipeline.rules.config import Cents, TableRules
from pipeline.rules.settlement import TOTAL_CARD_ODDS, Wager, offered_wagers

FIRST_NAMES = (
    "Ana",
    "Ben",
    "Chen",
    "Dana",
    "Eli",
    "Fatima",
    "Gus",
    "Hana",
    "Ivan",
    "Jia",
    "Kofi",
    "Lena",
    "Marco",
    "Nia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
)
LAST_NAMES = (
    "Alvarez",
    "Brooks",
    "Cohen",
    "Dubois",
    "Evans",
    "Fischer",
    "Garcia",
    "Hughes",
    "Ito",
    "Jensen",
    "Kim",
    "Lopez",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Patel",
)


INFORMED_SHARE = 0.5
"""``informed_betting``'s effect size: the share of rounds whose winner an informed patron
knows and bets, at :data:`INFORMED_STAKE_UNITS` units (else betting as anyone does), for at
least :data:`INFORMED_ROUNDS` rounds."""
INFORMED_STAKE_UNITS = 5
INFORMED_ROUNDS = 150
PATIENT_SHARE = 0.2
"""``patient_informed``'s effect size: the share of rounds whose winner the patron knows and
bets at :data:`INFORMED_STAKE_UNITS` units, every day at the same table, for
:data:`PATIENT_ROUNDS` rounds a day: too little for one day's test, enough for the evidence
of three (:mod:`pipeline.patterns.evidence`)."""
PATIENT_ROUNDS = 100
CARD_BACKS_READ = frozenset({7, 8, 9})
"""``edge_sorter``: the values of the cards whose backs the patron reads (turned by the dealer
on request, kept turned by the shuffler), the ones that favour the Player as the first card:
the next card one of them, the patron bets Player."""


@dataclass
class Patron:
    patron_id: str
    name: str
    seat: int
    unit_cents: Cents
    banker_bias: float
    side_bettor: bool
    rounds_left: int
    pays_deferred_vig: bool
    deferred_vig_cents: Cents = 0
    knows_outcomes: bool = False
    """The ``informed_betting`` fault: on :data:`INFORMED_SHARE` of rounds the patron knows the
    winner before betting."""
    patient_share: float = 0.0
    """The ``patient_informed`` fault: the share of rounds whose winner the patron knows."""
    reads_card_backs: bool = False
    """The ``edge_sorter`` fault: the patron knows whether the next card's value is one of
    :data:`CARD_BACKS_READ`."""


def new_patron(rng: random.Random, number: int, seat: int, rules: TableRules) -> Patron:
    # Bet units are whole table-minimum multiples, skewed low, as on a real floor.
    unit = rules.min_wager_cents * rng.choice((1, 1, 1, 2, 2, 3, 4, 5, 10))
    return Patron(
        patron_id=f"PAT-{number:06d}",
        name=f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        seat=seat,
        unit_cents=min(unit, rules.max_wager_cents),
        banker_bias=rng.uniform(0.35, 0.75),
        side_bettor=rng.random() < 0.3,
        rounds_left=rng.randint(8, 160),
        pays_deferred_vig=rng.random() > 0.08,
    )


def choose_wagers(rng: random.Random, patron: Patron, rules: TableRules) -> dict[Wager, Cents]:
    """One round of a patron's wagers, within the table limits."""
    offered = offered_wagers(rules)
    stake = min(patron.unit_cents * rng.choice((1, 1, 1, 2, 3)), rules.max_wager_cents)
    main = Wager.BANKER if rng.random() < patron.banker_bias else Wager.PLAYER
    wagers = {main: stake}
    side_unit = max(rules.min_wager_cents, patron.unit_cents // 4)
    if rng.random() < 0.08:
        wagers[Wager.TIE] = side_unit
    if patron.side_bettor:
        if Wager.CARDS_4 in offered and rng.random() < 0.5:
            card_wager = rng.choice(tuple(TOTAL_CARD_ODDS))
            # Some bettors cover the banker wager to earn the 3.3(e)2 no-vigorish option.
            amount = stake if main is Wager.BANKER and rng.random() < 0.5 else side_unit
            wagers[card_wager] = amount
        if Wager.BANKER_BONUS in offered and rng.random() < 0.5:
            bonus = Wager.BANKER_BONUS if main is Wager.BANKER else Wager.PLAYER_BONUS
            wagers[bonus] = side_unit
        if Wager.DRAGON_7 in offered and rng.random() < 0.5:
            wagers[Wager.DRAGON_7] = side_unit
    return wagers


def bet_the_known_winner(
    patron: Patron,
    rules: TableRules,
    wagers: dict[Wager, Cents],
    winner: Wager,
    units: int = INFORMED_STAKE_UNITS,
) -> dict[Wager, Cents]:
    """An informed patron's wagers on a round whose ``winner`` (``BANKER`` or ``PLAYER``) the
    patron knows, or favours: the main wager moves to that side at ``units`` units; the other
    side's wager and its bonus wager (which needs that base wager, 3.2(a)5) are dropped;
    other side wagers stay as chosen."""
    other = Wager.PLAYER if winner is Wager.BANKER else Wager.BANKER
    bonus_of = {Wager.BANKER: Wager.BANKER_BONUS, Wager.PLAYER: Wager.PLAYER_BONUS}
    kept = {w: c for w, c in wagers.items() if w not in (other, bonus_of[other])}
    kept[winner] = min(patron.unit_cents * units, rules.max_wager_cents)
    return kept
