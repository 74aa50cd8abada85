"""Floors of patrons played card by card for the accumulated-evidence tests, written apart from
the emulator: eight-deck shoes shuffled by a seeded generator, every round dealt by the rules
layer (:func:`pipeline.rules.deal.deal_round`, 3.7-3.9), and patrons who bet by the common
progressions or cheat. Each patron's wager becomes the :class:`PatronRound` the pattern stage
fills from the ledger: the result by the cards, the round's first card and the odds of each
value given the cards the shoe dealt before it.

The same patrons sit at the same tables every gaming day, so evidence can accumulate.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from pipeline.config.catalog import load_catalog
from pipeline.patterns.evidence import PatronRound, next_card_odds
from pipeline.patterns.informed import win_probability
from pipeline.rules.cards import RANKS, SUITS, Card, card_value
from pipeline.rules.deal import deal_round
from pipeline.rules.settlement import Result, Wager

RULES = load_catalog()["pb-5-classic"]
FIRST_DAY = date(2026, 3, 1)
UNIT = 2_500
CUT_CARDS_LEFT = 16
"""Cards left behind the cutting card: a shoe is dealt until fewer remain (3.5(d))."""


@dataclass(frozen=True, slots=True)
class Seen:
    """What a patron may know before betting, and what nobody may: the next card and the
    winner of the round about to be dealt (the cheats' knowledge)."""

    last_winner: Wager | None
    next_card: int
    winner: Wager | None


Strategy = Callable[["Patron", Seen, random.Random], tuple[Wager, int]]


@dataclass
class Patron:
    patron_id: str
    strategy: Strategy
    banker_bias: float = 0.55
    streak: int = 0
    stake: int = UNIT
    last_won: bool | None = None
    history: list[bool] = field(default_factory=list)

    def usual_side(self, rng: random.Random) -> Wager:
        return Wager.BANKER if rng.random() < self.banker_bias else Wager.PLAYER


def flat(patron: Patron, seen: Seen, rng: random.Random) -> tuple[Wager, int]:
    return patron.usual_side(rng), UNIT


def martingale(patron: Patron, seen: Seen, rng: random.Random) -> tuple[Wager, int]:
    """Double after a loss, back to one unit after a win (at most 64 units)."""
    stake = UNIT if patron.last_won in (None, True) else min(patron.stake * 2, 64 * UNIT)
    return patron.usual_side(rng), stake


def paroli(patron: Patron, seen: Seen, rng: random.Random) -> tuple[Wager, int]:
    """Double after a win, up to three wins in a row, back to one unit after a loss."""
    stake = patron.stake * 2 if patron.last_won and patron.stake < 8 * UNIT else UNIT
    return patron.usual_side(rng), stake


def trend(patron: Patron, seen: Seen, rng: random.Random) -> tuple[Wager, int]:
    """Bet the side that won the last round, more units the longer the patron's winning run."""
    side = seen.last_winner or patron.usual_side(rng)
    return side, UNIT * (1 + min(patron.streak, 4))


def whale(patron: Patron, seen: Seen, rng: random.Random) -> tuple[Wager, int]:
    return patron.usual_side(rng), UNIT * rng.choice((1, 2, 5, 20, 40))


def informed(share: float) -> Strategy:
    """Knows the winner of ``share`` of the rounds and stakes five units on it then; bets
    one to three units on the usual side otherwise."""

    def bet(patron: Patron, seen: Seen, rng: random.Random) -> tuple[Wager, int]:
        if seen.winner is not None and rng.random() < share:
            return seen.winner, 5 * UNIT
        return patron.usual_side(rng), UNIT * rng.choice((1, 1, 2, 3))

    return bet


def edge_sorter(patron: Patron, seen: Seen, rng: random.Random) -> tuple[Wager, int]:
    """Knows only whether the next card is a 7, 8 or 9 (its back, turned by the dealer on
    request): Player then, Banker otherwise, at a flat stake."""
    return (Wager.PLAYER if seen.next_card in (7, 8, 9) else Wager.BANKER), UNIT


def _shoe(rng: random.Random) -> list[Card]:
    cards = [Card(rank, suit) for _ in range(RULES.decks) for rank in RANKS for suit in SUITS]
    rng.shuffle(cards)
    return cards


def play_floor(
    seed: int,
    days: int,
    tables: int,
    rounds_a_day: int,
    patrons: Sequence[Sequence[tuple[str, Strategy]]],
) -> list[PatronRound]:
    """``days`` gaming days of ``tables`` tables, ``rounds_a_day`` decided-or-tied rounds each,
    with ``patrons[t]`` seated at table ``t`` every day: every decided wager, in the order
    dealt (a day's tables in turn)."""
    rng = random.Random(seed)
    seated = [[Patron(pid, strategy) for pid, strategy in table] for table in patrons]
    p_win = {w: float(win_probability(RULES, w)) for w in (Wager.BANKER, Wager.PLAYER)}
    rounds: list[PatronRound] = []
    for d in range(days):
        day = FIRST_DAY + timedelta(days=d)
        for t in range(tables):
            table_id = f"T{t + 1:02d}"
            shoe, at, seen = _shoe(rng), 0, [0] * 10
            last_winner: Wager | None = None
            for number in range(rounds_a_day):
                if len(shoe) - at < CUT_CARDS_LEFT:
                    shoe, at, seen = _shoe(rng), 0, [0] * 10
                deal = deal_round(RULES.game, shoe[at : at + 6])
                outcome = deal.outcome
                winner = (
                    Wager.PLAYER
                    if outcome.player_points > outcome.banker_points
                    else Wager.BANKER
                    if outcome.banker_points > outcome.player_points
                    else None
                )
                first = card_value(shoe[at].rank)
                odds = next_card_odds(RULES.decks, seen)
                knows = Seen(last_winner, first, winner)
                round_id = f"{table_id}-{day:%m%d}-{number:04d}"
                for seat, patron in enumerate(seated[t], start=1):
                    side, stake = patron.strategy(patron, knows, rng)
                    patron.stake = stake
                    if winner is None:
                        continue  # a tie voids Banker and Player wagers (3.2(a)1iii, 2iii)
                    won = side is winner
                    patron.last_won = won
                    patron.streak = patron.streak + 1 if won else 0
                    rounds.append(
                        PatronRound(
                            table_id=table_id,
                            gaming_date=day,
                            round_id=round_id,
                            patron_id=patron.patron_id,
                            seat=seat,
                            game=RULES.game,
                            decks=RULES.decks,
                            wager=side,
                            stake_cents=stake,
                            result=Result.WIN if won else Result.LOSE,
                            win_probability=p_win[side],
                            next_card=first,
                            next_card_odds=odds,
                            event_ids=(f"ev-{round_id}-{seat}",),
                        )
                    )
                for card in (*deal.player, *deal.banker):
                    seen[card_value(card.rank)] += 1
                at += deal.cards_used
                last_winner = winner or last_winner
    return rounds


def clean_floor(seed: int, days: int, tables: int, rounds_a_day: int) -> list[PatronRound]:
    """Every table seats one patron of each progression."""
    return play_floor(
        seed,
        days,
        tables,
        rounds_a_day,
        [
            [(f"PAT-{t + 1:02d}{style[:3].upper()}", strategy) for style, strategy in STYLES]
            for t in range(tables)
        ],
    )


STYLES: tuple[tuple[str, Strategy], ...] = (
    ("flat", flat),
    ("martingale", martingale),
    ("paroli", paroli),
    ("trend", trend),
    ("whale", whale),
)
