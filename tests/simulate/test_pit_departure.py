"""The emulator's PIT fault: one Punto Banco table of a pit files and keeps to another
settlement procedure than its pit-mates (N.J.A.C. 19:47-3.10(c)1), and the manifest says so
once the devices show it."""

from __future__ import annotations

from datetime import date

from pipeline.simulate.faults import DEFAULT_RATES, FaultKind
from pipeline.simulate.run import plan_floor, simulate

DAY = date(2026, 11, 24)


def test_only_a_vigorish_table_of_a_pit_of_three_may_depart() -> None:
    """In the six-table floor pit BACCARAT-1 holds T01 (pb-5-classic), T03 (no vigorish,
    3.3(e)1) and T05 (dragon 7, 3.3(h)): only T01 charges vigorish, the one thing that tells
    the procedures apart, and the catalog files pb-5-classic settling seat by seat. With two
    Punto Banco tables in a pit (three tables in all) no table may depart: one against one
    would not say which table is off the pit's procedure."""
    moved = [(p.table_id, p.departure.rules_id) for p in plan_floor(6) if p.departure]
    assert moved == [("T01", "pb-5-per-seat")]
    assert [p.table_id for p in plan_floor(12) if p.departure] == ["T01"]
    assert [p for p in plan_floor(3) if p.departure] == []


def test_the_departing_table_opens_under_the_other_filing_and_is_on_record() -> None:
    """PB-3.10c1-PIT-PROCEDURE: T01 opens under pb-5-per-seat and settles seat by seat; the
    manifest holds one fault for it, naming both procedures and how the first round that
    showed the difference breaks the pit's; the other tables play exactly as without it."""
    with_fault = simulate(6, 2, 7, {FaultKind.PIT: 1.0}, DAY)
    without = simulate(6, 2, 7, {}, DAY)

    opened = {
        table_id: events[0].get("rules_id")
        for table_id, events in with_fault.events_by_table.items()
    }
    assert opened["T01"] == "pb-5-per-seat"
    assert without.events_by_table["T01"][0].get("rules_id") == "pb-5-classic"
    (fault,) = with_fault.faults
    assert (fault.kind, fault.rule_code, fault.table_id) == (
        "pit",
        "PB-3.10c1-PIT-PROCEDURE",
        "T01",
    )
    assert fault.detail.startswith("table files and settles by procedure (b)3, its pit by (b)1: ")
    for table_id in ("T02", "T03", "T04", "T05", "T06"):
        assert with_fault.events_by_table[table_id] == without.events_by_table[table_id]


def test_the_fault_does_not_move_the_other_faults() -> None:
    """Its draw comes from a random stream of its own: switching it on leaves every other
    injected fault where it was, at the tables that do not depart."""
    others: dict[FaultKind, float] = {
        k: v for k, v in DEFAULT_RATES.items() if k is not FaultKind.PIT
    }
    before = simulate(6, 2, 11, others, DAY).faults
    after = simulate(6, 2, 11, dict(DEFAULT_RATES), DAY).faults
    assert [f for f in after if f.table_id != "T01"] == [f for f in before if f.table_id != "T01"]
