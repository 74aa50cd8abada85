"""The evidence of every finding of an emulated faulty day is the events that prove it: none
of another patron, shoe or round than the finding names, except where its rule is about more
than one of them.

The day is emulated and replayed in-process (as :mod:`tests.patterns.emulated` does), with
every fault kind on, every Form faulted and more device faults
(:data:`tests.emulated_days.FAULTY_RATES`).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

import pytest

from pipeline.config.catalog import load_catalog
from pipeline.replay.findings import Finding
from pipeline.replay.machine import replay_table
from pipeline.replay.sequencer import sequence
from pipeline.simulate.run import simulate
from tests.emulated_days import FAULTY_RATES, GAMING_DATE

TABLES, HOURS, SEED = 6, 8.0, 4

SPANS_PATRONS: Mapping[str, str] = {
    "NJ-DATA-GAP": "the events either side of the lost seq, whoever's they are: they bound the gap",
    "PB-3.3c3ii-FORM-SEQUENCE": "a serial used twice or out of order is proven by both Forms, "
    "each issued to its own patron (N.J.A.C. 19:47-3.3(c)3ii: each series used in order)",
    "CF-4.12a-WRONG-ORDER": "the annulled hand's wagers are every player's at the table "
    "(N.J.A.C. 19:47-4.12(a): the hand is void for all of them)",
    "CF-4.12j-LAST-HAND-VOID": "the voided last hand's wagers are every player's at the table "
    "(N.J.A.C. 19:47-4.12(j): the round is void for all of them)",
}
"""Codes whose finding names no one patron because its rule concerns the whole hand or two
documents; why each may cite events of several patrons."""

SPANS_SHOES: Mapping[str, str] = {
    "PB-3.3c3ii-FORM-SEQUENCE": "a serial used twice is proven by both Forms, which may be "
    "issued during different shoes (N.J.A.C. 19:47-3.3(c)3ii: serials are used once)",
}
"""Codes whose evidence may come from more than one shoe, and why."""


DEADLINES = frozenset({"ShoeEnded", "ShoeStarted", "PatronLeft", "PatronSeated", "TableClosed"})
"""The events that can mark the deadline of 3.3(c)4: the shoe completed (ended, or given way
to the next), the patron gone (left, or the seat taken by another), the table closed."""


DEBT = frozenset({"VigDeferred", "DeferredVigCollected", "CompVigFormIssued"})
"""The events that make up a deferred debt: deferrals, and payments and Forms that reduced it."""


@dataclass(frozen=True)
class Cited:
    """What a cited event names: its type, patron, the shoe in play and its round."""

    payload_type: str
    patron_id: str | None
    shoe_id: str | None
    round_id: str | None
    completes: str | None = None
    """The shoe this event shows completed: its own for a ShoeEnded, the one still in play
    for a ShoeStarted (a shoe given way to the next unended)."""

    def in_shoe(self, shoe_id: str) -> bool:
        return self.shoe_id in (None, shoe_id) or self.completes == shoe_id


@dataclass(frozen=True)
class Replayed:
    findings: list[Finding]
    cited: Mapping[str, Cited]


@functools.cache
def faulty_day() -> Replayed:
    catalog = load_catalog()
    result = simulate(TABLES, HOURS, SEED, FAULTY_RATES, GAMING_DATE, catalog)
    findings: list[Finding] = []
    cited: dict[str, Cited] = {}
    for table_id, events in result.events_by_table.items():
        shoe: str | None = None
        for e in sequence(events).events:
            completes = shoe if e.payload_type in ("ShoeStarted", "ShoeEnded") else None
            if e.payload_type == "ShoeStarted":
                shoe = str(e.get("shoe_id"))
            patron = e.get("patron_id")
            cited[e.event_id] = Cited(e.payload_type, patron, shoe, e.round_id, completes)
            if e.payload_type == "ShoeEnded":
                shoe = None
        findings += replay_table(table_id, events, catalog).findings
    return Replayed(findings, cited)


def several(values: set[str], allowed: Mapping[str, str], code: str) -> bool:
    """Whether evidence of a finding that names none of them names several ``values`` while
    its code is not ``allowed`` several."""
    return len(values) > 1 and code not in allowed


@pytest.mark.rule("PB-3.3c4-DEFERRED-DEADLINE", "PB-3.3c3-COMP-FORM", "PB-3.3c3ii-FORM-SEQUENCE")
def test_every_finding_cites_only_its_patron_shoe_and_round() -> None:
    """N.J.A.C. 19:47-3.3(c)2 and (c)4 among all: a finding's evidence is the events that
    prove it. A deferred-vigorish finding cites the debtor's deferrals and payments of the
    shoe and the deadline, never another patron's or another shoe's events; every other
    finding likewise stays within the patron, shoe and round it names, except the codes of
    :data:`SPANS_PATRONS` and :data:`SPANS_SHOES`, whose rules concern several."""
    day = faulty_day()
    strays: list[str] = []
    for f in day.findings:
        cited = [day.cited[i] for i in f.event_ids if i in day.cited]
        patrons = {c.patron_id for c in cited if c.patron_id is not None}
        shoes = {c.shoe_id for c in cited if c.shoe_id is not None}
        rounds = {c.round_id for c in cited if c.round_id is not None}
        named_patron, named_shoe = f.patron_id, f.shoe_id
        if patrons - {named_patron} if named_patron else several(patrons, SPANS_PATRONS, f.code):
            strays.append(f"{f.code}: patron {f.patron_id}, cites {sorted(patrons)}")
        if (
            not all(c.in_shoe(named_shoe) for c in cited)
            if named_shoe
            else several(shoes, SPANS_SHOES, f.code)
        ):
            strays.append(f"{f.code}: shoe {f.shoe_id}, cites {sorted(shoes)}")
        if f.round_id is not None and rounds - {f.round_id}:
            strays.append(f"{f.code}: round {f.round_id}, cites {sorted(rounds)}")
    assert len(day.findings) > 100
    assert strays == []


@pytest.mark.rule("PB-3.3c4-DEFERRED-DEADLINE")
def test_deferred_deadline_cites_the_debt_and_its_deadline() -> None:
    """PB-3.3c4-DEFERRED-DEADLINE, N.J.A.C. 19:47-3.3(c)4: deferred vigorish is collected or
    documented when the shoe is completed or the patron leaves. Each finding of the faulty day
    cites the debt's deferrals (and what reduced it) and, last, the one event that marks the
    deadline; the count per finding is printed by code (``pytest -s``)."""
    day = faulty_day()
    most: dict[str, int] = defaultdict(int)
    for f in day.findings:
        most[f.code] = max(most[f.code], len(f.event_ids))
    for code, count in sorted(most.items(), key=lambda item: (-item[1], item[0])):
        print(f"{code:32} at most {count} events")
    # written off at the deadline (actual 0), not a payment above the marker
    deadlines = [
        f for f in day.findings if f.code == "PB-3.3c4-DEFERRED-DEADLINE" and f.actual_cents == 0
    ]
    assert deadlines
    for f in deadlines:
        *debt, deadline = (day.cited[i] for i in f.event_ids)
        assert {c.payload_type for c in debt} <= DEBT, f.render()
        assert "VigDeferred" in {c.payload_type for c in debt}, f.render()
        assert {c.patron_id for c in debt} == {f.patron_id}, f.render()
        assert f.shoe_id is not None and all(c.in_shoe(f.shoe_id) for c in (*debt, deadline))
        assert deadline.payload_type in DEADLINES, f.render()
