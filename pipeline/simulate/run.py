"""Emulate a casino floor for a gaming day (or any span) and write the events.

Deterministic by seed: every table draws from its own RNG seeded by ``(seed, table_id)``, so
the output of one table does not depend on how many others run or in which process.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path

from pipeline.collector import batch_collection
from pipeline.config.catalog import gaming_day_of, load_catalog
from pipeline.events.model import TableEvent
from pipeline.rules.cards import Card, Rank, Suit
from pipeline.rules.config import TableAssignment, TableRules, floor_problems
from pipeline.rules.gaming_day import GamingDay, micros_of
from pipeline.rules.variants import variant
from pipeline.simulate.faults import (
    FaultKind,
    FaultPlan,
    InjectedFault,
    write_manifest,
)
from pipeline.simulate.table import DealtShoe, TableEmulator

FLOOR_PATTERN: tuple[tuple[str, str], ...] = (
    ("pb-5-classic", "BACCARAT-1"),
    ("mb-5-rounded", "MINI-1"),
    ("pb-4-banker6", "BACCARAT-1"),
    ("cf-5", "CHEMMY-1"),
    ("pb-dragon", "BACCARAT-1"),
    ("mb-tie-quarter", "MINI-2"),
)
"""How emulated tables take rules and pits, repeating: pits share a shuffling option (3.5(b))
and a settlement procedure (3.10(c)1)."""

DEVICE_FAULT_TYPES = frozenset({"CardDealt", "WagerSettled", "ResultAnnounced", "WagerPlaced"})
"""Events a dropped-delivery fault may remove: inside a round, so the gap is attributable."""


@dataclass(frozen=True)
class TablePlan:
    table_id: str
    pit: str
    location: str
    rules: TableRules
    index: int
    gaming_day: GamingDay
    departure: TableRules | None = None
    """The filed rules this table opens under when the PIT fault moves it off its pit's
    settlement procedure (:func:`departures`); ``None`` for a table it cannot move."""
    carried_from: TablePlan | None = None
    """The table of another pit whose cards a confederate may carry into this table's shoes
    (the ``cross_pit_slug`` fault, :func:`carriers`); ``None`` for a table it cannot reach."""


@dataclass
class SimulationResult:
    events_by_table: dict[str, list[TableEvent]] = field(default_factory=dict)
    faults: list[InjectedFault] = field(default_factory=list)
    plans: list[TablePlan] = field(default_factory=list)

    @property
    def event_count(self) -> int:
        return sum(len(e) for e in self.events_by_table.values())


def plan_floor(tables: int, catalog: Mapping[str, TableRules] | None = None) -> list[TablePlan]:
    catalog = catalog or load_catalog()
    day = gaming_day_of(catalog)
    plans = []
    for i in range(tables):
        rules_id, pit = FLOOR_PATTERN[i % len(FLOOR_PATTERN)]
        table_id = f"T{i + 1:02d}"
        plans.append(TablePlan(table_id, pit, f"BAC-{i + 1:02d}", catalog[rules_id], i, day))
    problems = floor_problems(TableAssignment(p.table_id, p.pit, p.rules) for p in plans)
    if problems:
        raise ValueError("floor layout breaks N.J.A.C. 19:47: " + "; ".join(map(str, problems)))
    return carriers(departures(plans, catalog))


def carriers(plans: list[TablePlan]) -> list[TablePlan]:
    """``plans`` with the table a slug can be carried from into each table of another pit
    than the floor's first table's: that first table. It is never given one itself, so it
    plays the same day whether or not the fault is on, and a table it feeds can emulate it
    again, from the same seed, to know its cards (every table stays emulated on its own)."""
    if not plans:
        return plans
    source = plans[0]
    return [
        replace(plan, carried_from=source) if plan.pit != source.pit else plan for plan in plans
    ]


def departures(plans: list[TablePlan], catalog: Mapping[str, TableRules]) -> list[TablePlan]:
    """``plans`` with the table each pit's PIT fault may move (3.10(c)1) given the filed rules
    it would open under: the first Punto Banco table of a pit with two more that charges
    Banker vigorish (without vigorish every procedure pays in the same order, and nothing
    would show the departure), and a catalog entry that differs from its rules in the
    settlement procedure alone. Its pit-mates keep to the pit's procedure, two against one,
    so the table off it is this one."""
    by_pit: dict[str, list[TablePlan]] = {}
    for plan in plans:
        if variant(plan.rules.game).one_settlement_procedure_per_pit:
            by_pit.setdefault(plan.pit, []).append(plan)
    moved: dict[str, TablePlan] = {}
    for tables in by_pit.values():
        if len(tables) < 3:
            continue
        for plan in tables:
            departure = _settling_otherwise(plan.rules, catalog)
            if plan.rules.charges_banker_vig and departure is not None:
                moved[plan.table_id] = replace(plan, departure=departure)
                break
    return [moved.get(plan.table_id, plan) for plan in plans]


def _settling_otherwise(rules: TableRules, catalog: Mapping[str, TableRules]) -> TableRules | None:
    """A filed rule set identical to ``rules`` but for its settlement procedure."""
    return next(
        (
            other
            for other in catalog.values()
            if other.settlement_procedure != rules.settlement_procedure
            and replace(
                other, rules_id=rules.rules_id, settlement_procedure=rules.settlement_procedure
            )
            == rules
        ),
        None,
    )


def simulate_table(
    plan: TablePlan, gaming_date: date, hours: float, seed: int, rates: Mapping[FaultKind, float]
) -> tuple[list[TableEvent], list[InjectedFault]]:
    rng = random.Random(f"{seed}:{plan.table_id}:{gaming_date.isoformat()}")
    faults = FaultPlan(rates, random.Random(f"faults:{seed}:{plan.table_id}"))
    start = plan.gaming_day.start_of(gaming_date)
    # A day across a daylight-saving change lasts 23 or 25 hours: play within it.
    next_start = plan.gaming_day.start_of(gaming_date + timedelta(days=1))
    ends = min(start + timedelta(hours=hours), next_start)
    opens = start + timedelta(seconds=rng.uniform(0, 600))
    closes = ends - timedelta(minutes=15)
    serial_base = (gaming_date.toordinal() % 1000) * 100_000 + plan.index * 1000 + 1
    rules, pit_procedure = plan.rules, None
    # Its own random stream: switching the PIT fault on leaves every other fault in place.
    departs = random.Random(f"pit:{seed}:{plan.table_id}:{gaming_date.isoformat()}").random()
    if plan.departure is not None and departs < rates.get(FaultKind.PIT, 0.0):
        rules, pit_procedure = plan.departure, plan.rules.settlement_procedure
    other_pit_shoes: list[DealtShoe] = []
    if plan.carried_from is not None and rates.get(FaultKind.CROSS_PIT_SLUG, 0.0) > 0.0:
        source_events, _ = simulate_table(plan.carried_from, gaming_date, hours, seed, rates)
        other_pit_shoes = dealt_shoes(source_events, plan.carried_from.pit)
    emulator = TableEmulator(
        table_id=plan.table_id,
        pit=plan.pit,
        location=plan.location,
        rules=rules,
        gaming_date=gaming_date,
        opens_at_micros=micros_of(opens),
        closes_at_micros=micros_of(closes),
        rng=rng,
        faults=faults,
        form_series=(serial_base, serial_base + 499),
        patron_numbers=_count_from(plan.index * 100_000 + 1),
        pit_procedure=pit_procedure,
        other_pit_shoes=other_pit_shoes,
    )
    events = emulator.run().events
    events = _device_faults(events, faults, plan.table_id)
    return events, faults.injected


def dealt_shoes(events: Sequence[TableEvent], pit: str) -> list[DealtShoe]:
    """What each shoe of one table's ``events`` dealt, as the ledger will hold it: the cards
    of each run of consecutive positions (a card whose delivery was dropped splits a run, a
    duplicate counts once), in shoe order, with when the shoe ended."""
    cards: dict[str, dict[int, TableEvent]] = {}
    ended: dict[str, int] = {}
    for event in events:
        if event.payload_type == "CardDealt":
            cards.setdefault(event.get("shoe_id"), {}).setdefault(event.get("position"), event)
        elif event.payload_type == "ShoeEnded":
            ended[event.get("shoe_id")] = event.occurred_at
    shoes = []
    for shoe_id, ended_at in ended.items():
        by_position = cards.get(shoe_id, {})
        runs: list[list[TableEvent]] = []
        for position in sorted(by_position):
            if not runs or position != runs[-1][-1].get("position") + 1:
                runs.append([])
            runs[-1].append(by_position[position])
        shoes += [
            DealtShoe(
                table_id=run[0].table_id,
                pit=pit,
                shoe_id=shoe_id,
                ended_at_micros=ended_at,
                first_position=run[0].get("position"),
                cards=tuple(Card(Rank[e.get("rank")], Suit[e.get("suit")]) for e in run),
                event_ids=tuple(e.event_id for e in run),
            )
            for run in runs
        ]
    return shoes


@batch_collection()
def simulate(
    tables: int,
    hours: float,
    seed: int,
    rates: Mapping[FaultKind, float],
    gaming_date: date,
    catalog: Mapping[str, TableRules] | None = None,
) -> SimulationResult:
    result = SimulationResult(plans=plan_floor(tables, catalog))
    for plan in result.plans:
        events, faults = simulate_table(plan, gaming_date, hours, seed, rates)
        result.events_by_table[plan.table_id] = events
        result.faults.extend(faults)
    return result


def write_fault_manifest(out_dir: Path, result: SimulationResult) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    return write_manifest(out_dir / "faults.jsonl", result.faults)


def _count_from(start: int) -> Iterator[int]:
    n = start
    while True:
        yield n
        n += 1


def _rounds_since_the_bank_passed(events: list[TableEvent], faulted: set[str | None]) -> set[str]:
    """The rounds since the bank last passed before each round of ``faulted``: who may call
    "Banco Suivi" (4.7(b), a banco priority fault) is who equaled and lost the Banker's last
    decisive coup among them, and who was seated to be offered a relinquished bank in turn
    (4.11(b), an offer order fault) may have changed in a gap among them, so a gap in one of
    them withholds the fault's judgment."""
    rests_on: set[str] = set()
    since_pass: list[str] = []
    for event in events:
        if event.payload_type == "BankPassed":
            since_pass.clear()
        elif event.payload_type == "RoundStarted" and event.round_id is not None:
            if event.round_id in faulted:
                rests_on.update(since_pass)
            since_pass.append(event.round_id)
    return rests_on


def _device_faults(events: list[TableEvent], plan: FaultPlan, table_id: str) -> list[TableEvent]:
    """10: what unreliable devices and networks do to a correct stream.

    Drops are only taken inside rounds that carry no other injected fault, nor in the rounds
    another fault's finding rests on (:func:`_rounds_since_the_bank_passed`), so the replay
    can attribute the gap to one round and every other fault stays observable.
    """
    if not plan.rates.get(FaultKind.DEVICE):
        return events
    faulted_rounds = {f.round_id for f in plan.injected if f.round_id}
    faulted_rounds |= _rounds_since_the_bank_passed(
        events,
        {
            f.round_id
            for f in plan.injected
            if f.kind in (FaultKind.BANCO_PRIORITY.value, FaultKind.OFFER_ORDER.value)
        },
    )
    out = list(events)
    by_device: dict[str, list[int]] = {}
    for i, e in enumerate(out):
        by_device.setdefault(e.device_id, []).append(i)
    neighbours: dict[int, tuple[int | None, int | None]] = {}
    for positions in by_device.values():
        for k, i in enumerate(positions):
            prev = positions[k - 1] if k else None
            nxt = positions[k + 1] if k + 1 < len(positions) else None
            neighbours[i] = (prev, nxt)

    dropped: set[int] = set()
    duplicates: list[tuple[int, TableEvent]] = []
    touched: set[int] = set()
    for i, event in enumerate(out):
        if i < 5 or i in touched or not plan.roll(FaultKind.DEVICE):
            continue
        kind = plan.rng.choice(("duplicate", "reorder", "drop", "skew"))
        prev, nxt = neighbours[i]
        round_id = event.fields.get("round_id")
        if kind == "drop":
            same_round = (
                event.payload_type in DEVICE_FAULT_TYPES
                and round_id
                and round_id not in faulted_rounds
                and prev is not None
                and nxt is not None
                and out[prev].fields.get("round_id") == round_id
                and out[nxt].fields.get("round_id") == round_id
                and not touched & {prev, nxt}
            )
            if not same_round:
                continue
            dropped.add(i)
            touched.update((i, prev, nxt))  # type: ignore[arg-type]
            faulted_rounds.add(str(round_id))
            code, detail = "NJ-DATA-GAP", f"{event.payload_type} seq {event.seq} never delivered"
        elif kind == "reorder":
            if nxt is None or nxt in touched or nxt != i + 1:
                continue
            out[i], out[nxt] = out[nxt], out[i]
            touched.update((i, nxt))
            code, detail = (
                "NJ-DATA-REORDERED",
                f"seq {event.seq} delivered after seq {event.seq + 1}",
            )
        elif kind == "duplicate":
            duplicates.append((min(i + 3, len(out) - 1), event))
            touched.add(i)
            code, detail = (
                "NJ-DATA-DUPLICATE",
                f"{event.payload_type} seq {event.seq} delivered twice",
            )
        else:
            # A clock jump on the card reader within a round: the card keeps its place after
            # its own predecessor, which is all the replay's ordering relies on.
            if (
                prev is None
                or event.payload_type != "CardDealt"
                or not round_id
                or out[prev].fields.get("round_id") != round_id
            ):
                continue
            event.occurred_at = out[prev].occurred_at - 90_000_000
            touched.add(i)
            code, detail = "NJ-DATA-CLOCK-SKEW", f"device clock 90 s behind at seq {event.seq}"
        plan.record(
            InjectedFault(
                FaultKind.DEVICE.value,
                detail,
                code,
                table_id,
                round_id=str(round_id) if round_id else None,
                event_ids=(event.event_id,),
            )
        )
    result: list[TableEvent] = []
    pending = sorted(duplicates, key=lambda d: d[0])
    for i, event in enumerate(out):
        if i not in dropped:
            result.append(event)
        while pending and pending[0][0] == i:
            result.append(pending.pop(0)[1])
    result.extend(d[1] for d in pending)
    return result


__all__: Sequence[str] = (
    "SimulationResult",
    "TablePlan",
    "carriers",
    "dealt_shoes",
    "departures",
    "plan_floor",
    "simulate",
    "simulate_table",
    "write_fault_manifest",
)
