"""Emulated gaming days replayed in-process, turned into the pattern analysers' input records
the way the patterns stage fills them from the ledger (the replay's rows are the ledger's rows
before they are written), without the ledger, Prefect or files.

Sizes are small by default; ``PATTERNS_DAYS=N`` (clean gaming days, at least 30) runs a bigger
measurement: ``N`` clean days for the false-alarm rates and ``N // 10`` faulty ones for recall.
"""

from __future__ import annotations

import functools
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from pipeline.config.catalog import load_catalog
from pipeline.events.model import TableEvent
from pipeline.patterns.informed import SettledWager, TableDay
from pipeline.patterns.pairs import DealtSeatRound
from pipeline.replay.machine import replay_table
from pipeline.replay.rows import ReplayResult, SettlementRow
from pipeline.rules.config import TableRules
from pipeline.rules.settlement import Result, Wager
from pipeline.simulate.faults import FaultKind, InjectedFault
from pipeline.simulate.run import plan_floor, simulate_table

FIRST_DAY = date(2026, 10, 1)
CLEAN_DAYS = max(30, int(os.environ.get("PATTERNS_DAYS", "30")))
"""Clean gaming days the false-alarm rates are measured on (the issue asks for at least 30)."""
FAULTY_DAYS = max(3, CLEAN_DAYS // 10)
"""Gaming days with informed patrons and colluding dealers the recall is measured on."""
MONEY_ERRORS: Mapping[FaultKind, float] = {FaultKind.PAYOUT: 0.004, FaultKind.VIGORISH: 0.01}
"""The dealer's ordinary, honest mistakes: days with them are clean for the patterns."""
CHARGED = ("COLLECTED", "DEFERRED")
"""Vigorish rows that charge the patron in the round (collected now or marked on a button)."""


@dataclass
class EmulatedDay:
    gaming_date: date
    events: Mapping[str, list[TableEvent]]
    faults: list[InjectedFault]
    rules: Mapping[TableDay, TableRules]

    @functools.cached_property
    def replays(self) -> dict[str, ReplayResult]:
        """The replay of each table, only when a test needs the settlements' expected money
        (the replay costs more than the emulation)."""
        catalog = load_catalog()
        return {t: replay_table(t, events, catalog) for t, events in self.events.items()}


def emulate_day(
    gaming_date: date, tables: int, hours: float, seed: int, rates: Mapping[FaultKind, float]
) -> EmulatedDay:
    catalog = load_catalog()
    events: dict[str, list[TableEvent]] = {}
    faults: list[InjectedFault] = []
    rules: dict[TableDay, TableRules] = {}
    for plan in plan_floor(tables, catalog):
        table_events, injected = simulate_table(plan, gaming_date, hours, seed, rates)
        events[plan.table_id] = table_events
        faults.extend(injected)
        rules[plan.table_id, gaming_date] = plan.rules
    return EmulatedDay(gaming_date, events, faults, rules)


def emulate_days(
    days: int, tables: int, hours: float, seed: int, rates: Mapping[FaultKind, float]
) -> list[EmulatedDay]:
    return [
        emulate_day(FIRST_DAY + timedelta(days=i), tables, hours, seed, rates) for i in range(days)
    ]


def settled_wagers(day: EmulatedDay) -> list[SettledWager]:
    """What the ledger's ``settlements`` rows with a patron give
    :mod:`pipeline.patterns.informed`, read from the ``WagerSettled`` events without the
    replay: these days have no announcement faults, so the outcome each wager was settled at
    is the cards' (the replay's ``expected_result``)."""
    return [
        SettledWager(
            table_id=e.table_id,
            gaming_date=day.gaming_date,
            round_id=e.get("round_id"),
            patron_id=e.get("patron_id"),
            seat=e.get("seat"),
            wager=Wager(e.get("wager")),
            stake_cents=e.get("amount_cents"),
            result=Result(e.get("outcome")),
            event_ids=(e.event_id,),
        )
        for events in day.events.values()
        for e in events
        if e.payload_type == "WagerSettled" and e.get("patron_id") is not None
    ]


def _dealers(events: Iterable[TableEvent]) -> dict[str, str]:
    """The dealer of each round: ``RoundStarted.dealer_id`` carried forward from
    ``TableOpened.dealer_id``, as the module docstring of :mod:`pipeline.patterns.pairs` says."""
    dealer = ""
    by_round = {}
    for e in events:  # in emission order: these days have no device faults
        if e.payload_type == "TableOpened":
            dealer = e.get("dealer_id")
        elif e.payload_type == "RoundStarted":
            dealer = e.get("dealer_id") or dealer
            by_round[e.get("round_id")] = dealer
    return by_round


def dealt_seat_rounds(day: EmulatedDay) -> list[DealtSeatRound]:
    """One record per seat with a patron in a round, from the ``settlements`` and
    ``vig_ledger`` rows and the dealer of :func:`_dealers`."""
    records = []
    for table_id, replay in day.replays.items():
        dealers = _dealers(day.events[table_id])
        charged: dict[tuple[str, int], list[tuple[int, str]]] = defaultdict(list)
        for v in replay.vig_ledger:
            if v.kind in CHARGED and v.round_id is not None:
                charged[v.round_id, v.seat].append((v.amount_cents, v.event_id))
        seats: dict[tuple[str, int], list[SettlementRow]] = defaultdict(list)
        for s in replay.settlements:
            if s.patron_id is not None:
                seats[s.round_id, s.seat].append(s)
        for (round_id, seat), settled in seats.items():
            expected = sum(s.expected_paid_cents - s.expected_vig_cents for s in settled)
            vig = charged.get((round_id, seat), [])
            actual = sum(
                s.expected_paid_cents if s.recorded_paid_cents is None else s.recorded_paid_cents
                for s in settled
            ) - sum(amount for amount, _ in vig)
            wrong_paid = [
                i
                for s in settled
                if s.recorded_paid_cents is not None
                and s.recorded_paid_cents != s.expected_paid_cents
                for i in s.event_ids
            ]
            wrong_vig = (
                [i for _, i in vig]
                if sum(a for a, _ in vig) != sum(s.expected_vig_cents for s in settled)
                else []
            )
            records.append(
                DealtSeatRound(
                    table_id=table_id,
                    gaming_date=day.gaming_date,
                    round_id=round_id,
                    seat=seat,
                    dealer_id=dealers[round_id],
                    patron_id=str(settled[0].patron_id),
                    expected_cents=expected,
                    actual_cents=actual,
                    event_ids=tuple(sorted({*wrong_paid, *wrong_vig})),
                )
            )
    return records


@functools.cache
def clean_days() -> tuple[EmulatedDay, ...]:
    """:data:`CLEAN_DAYS` gaming days of three tables with the dealer's ordinary money errors
    and no informed patron or colluding dealer: what the false-alarm rates are measured on."""
    return tuple(emulate_days(CLEAN_DAYS, tables=3, hours=2, seed=101, rates=MONEY_ERRORS))


PATTERN_FAULTS: Mapping[FaultKind, float] = {
    **MONEY_ERRORS,
    FaultKind.INFORMED_BETTING: 0.05,
    FaultKind.COLLUSION: 0.5,
}
"""Informed patrons and colluding dealers among the ordinary errors, at rates that put several
of each into a few days."""


@functools.cache
def faulty_days() -> tuple[EmulatedDay, ...]:
    """:data:`FAULTY_DAYS` gaming days of three tables with :data:`PATTERN_FAULTS`, long
    enough for an informed patron's stated rounds."""
    return tuple(emulate_days(FAULTY_DAYS, tables=3, hours=5, seed=11, rates=PATTERN_FAULTS))
