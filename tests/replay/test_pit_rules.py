"""The rules that bind a pit's tables together, from what each table's devices recorded: one
shuffling option at all tables within a pit (N.J.A.C. 19:47-3.5(b), 4.4(b), 7.5(c)) and one
settlement procedure for all Punto Banco tables within a gaming pit (3.10(c)1).

Each table-day is replayed on its own (:func:`pipeline.replay.machine.replay_table`); the
practice rows the replays note are then judged together by
:func:`pipeline.replay.pit.pit_findings`, as the ledger does for a gaming day."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pipeline.events.model import TableEvent
from pipeline.replay import pit
from pipeline.replay.findings import Finding, Severity
from pipeline.replay.machine import replay_table
from pipeline.replay.rows import ReplayResult
from pipeline.rules.config import ShuffleMethod, TableRules
from tests.replay.builder import CATALOG, TableDayBuilder

FILED: dict[str, TableRules] = {
    **CATALOG,  # with pb-5-per-seat: pb-5-classic settling seat by seat, (b)3
    # pb-5-classic as filed for a pit that washes its cards, 3.5(a)2
    "pb-5-wash": replace(
        CATALOG["pb-5-classic"], rules_id="pb-5-wash", shuffle_method=ShuffleMethod.MANUAL_WASH
    ),
    # mb-tie-quarter as filed for a pit feathering its cards, 7.5(b)1, settling by (b)4
    "mb-quarter-feathered": replace(
        CATALOG["mb-tie-quarter"],
        rules_id="mb-quarter-feathered",
        shuffle_method=ShuffleMethod.FEATHERED,
        decks=8,
    ),
}
"""The packaged catalog and two more legal variants of its rule sets."""

TWO_BANKER_WINNERS: dict[str, Any] = {
    # Banker 7 beats Player 6: seats 7 and 3 win Banker wagers and pay vigorish, so the
    # recorded order tells (b)1 "pay all, then vigorish" from (b)3 "seat by seat".
    "player": "TH 6C",
    "banker": "3D 4S",
    "wagers": {7: {"BANKER": 10_000}, 3: {"BANKER": 20_000}, 5: {"PLAYER": 10_000}},
}
ONE_BANKER_WINNER: dict[str, Any] = {
    # One winning seat: pay then vigorish is every procedure's order but (b)2 and (b)4.
    "player": "TH 6C",
    "banker": "3D 4S",
    "wagers": {7: {"BANKER": 10_000}, 5: {"PLAYER": 10_000}},
}


def table_events(
    table_id: str,
    rules_id: str,
    *,
    pit_name: str = "BACCARAT-1",
    rounds: tuple[dict[str, Any], ...] = (TWO_BANKER_WINNERS,),
    shuffled: str | None = None,
) -> list[TableEvent]:
    """One table's day under ``FILED[rules_id]`` in pit ``pit_name``: a shoe (recorded as
    ``shuffled``, else the filed option), ``rounds``, the close. Event ids carry the table's
    id, as every device's ids are unique on a real floor."""
    rules = FILED[rules_id]
    b = TableDayBuilder(table_id, rules.rules_id if rules_id in CATALOG else "pb-5-classic")
    b.rules_id, b.rules, b.game, b.pit = rules_id, rules, rules.game, pit_name
    b.open()
    b.shoe(shuffle_method=shuffled)
    for played in rounds:
        b.round(**played)
    b.end_shoe()
    b.close()
    return [replace(e, event_id=f"{table_id}:{e.event_id}") for e in b.events]


def table_day(table_id: str, rules_id: str, **day: Any) -> ReplayResult:
    """The replay of :func:`table_events` under the filed rules."""
    return replay_table(table_id, table_events(table_id, rules_id, **day), FILED)


def judged(*days: ReplayResult) -> list[Finding]:
    """The pit findings of these table-days, judged together as the ledger judges a gaming
    day (through the module, so that ``tests.replay.raised`` sees them)."""
    return pit.pit_findings(row for day in days for row in day.practices)


def opened(day: ReplayResult) -> str:
    return next(p.event_ids[0] for p in day.practices)


@pytest.mark.rule("PB-3.10c1-PIT-PROCEDURE", "PB-3.5b-SHUFFLE-PIT")
def test_one_procedure_and_one_option_across_the_pit_is_clean() -> None:
    """PB-3.10c1-PIT-PROCEDURE, PB-3.5b-SHUFFLE-PIT, N.J.A.C. 19:47-3.10(c)1 "the same
    procedure shall be used for all punto banco tables located within the same gaming pit",
    3.5(b): three Punto Banco tables of one pit, each settling by (b)1 in rounds that show it
    and shuffling MANUAL_LACE: no finding, per table or for the pit."""
    days = [
        table_day("T01", "pb-5-classic"),
        table_day("T03", "pb-4-banker6", rounds=(ONE_BANKER_WINNER,)),
        table_day("T05", "pb-dragon"),
    ]
    assert [f.render() for day in days for f in day.findings] == []
    assert {(p.subject, p.practice) for day in days for p in day.practices} == {
        ("SHUFFLE", "MANUAL_LACE"),
        ("SETTLEMENT", "1"),
    }
    assert judged(*days) == []


@pytest.mark.rule("PB-3.10c1-PIT-PROCEDURE")
def test_a_table_settling_by_another_procedure_than_its_pit() -> None:
    """PB-3.10c1-PIT-PROCEDURE, N.J.A.C. 19:47-3.10(c)1: T01 and T02 settle by (b)1, T03 of
    the same pit by (b)3, each as its own filing says (so no table has a 3.10(b) finding). In
    T03's round the pit recorded "pay 7, vigorish 7, pay 3, vigorish 3", which (b)1 does not
    allow: one MEDIUM finding at T03 naming the pit, both tables and both procedures, with the
    TableOpened and settlement events of T03's round and of T01's, and what to do."""
    first, second, off = (
        table_day("T01", "pb-5-classic"),
        table_day("T02", "pb-5-classic"),
        table_day("T03", "pb-5-per-seat"),
    )
    assert [f.render() for day in (first, second, off) for f in day.findings] == []

    (finding,) = judged(first, second, off)

    assert finding.code == "PB-3.10c1-PIT-PROCEDURE"
    assert finding.severity is Severity.MEDIUM
    assert (finding.table_id, finding.round_id) == ("T03", off.rounds[0].round_id)
    assert "Pit BACCARAT-1" in finding.message
    assert "table T03 settles by procedure (b)3" in finding.message
    assert "table T01 (and 1 other table of the pit) settles by (b)1" in finding.message
    assert "every pay step comes before any vig step" in finding.message
    assert "N.J.A.C. 19:47-3.10(c)1" in finding.message
    assert "Settle every Punto Banco table of pit BACCARAT-1 by one procedure" in finding.message
    settled_off = {s for row in off.settlements for s in row.event_ids}
    settled_first = {s for row in first.settlements for s in row.event_ids}
    assert {opened(off), opened(first)} <= set(finding.event_ids)
    assert settled_off & set(finding.event_ids) and settled_first & set(finding.event_ids)
    assert not set(finding.event_ids) & {s for row in second.settlements for s in row.event_ids}


@pytest.mark.rule("PB-3.10c1-PIT-PROCEDURE")
def test_the_pit_practice_is_the_one_most_tables_keep() -> None:
    """PB-3.10c1-PIT-PROCEDURE, N.J.A.C. 19:47-3.10(c)1: with two tables of a pit settling by
    (b)3 and one by (b)1, the finding is at the (b)1 table, whatever the table ids; with one
    table each, at the table whose id sorts second, and the evidence is the same."""
    majority = judged(
        table_day("T01", "pb-5-classic"),
        table_day("T02", "pb-5-per-seat"),
        table_day("T03", "pb-5-per-seat"),
    )
    assert [(f.table_id, f.code) for f in majority] == [("T01", "PB-3.10c1-PIT-PROCEDURE")]
    assert "while table T02 (and 1 other table of the pit) settles by (b)3" in majority[0].message

    two = [table_day("T01", "pb-5-per-seat"), table_day("T02", "pb-5-classic")]
    (tie,) = judged(*two)
    (again,) = judged(*reversed(two))
    assert tie == again
    assert tie.table_id == "T02"


@pytest.mark.rule("PB-3.10c1-PIT-PROCEDURE")
def test_procedures_no_round_tells_apart_raise_nothing() -> None:
    """PB-3.10c1-PIT-PROCEDURE, N.J.A.C. 19:47-3.10(b)1, (b)3: with one winning seat a round
    is paid, then its vigorish collected, under both procedures; a table filed (b)3 whose
    rounds all look the same under (b)1 shows no other procedure than its pit, and nothing is
    raised (the filing alone is not what the devices recorded)."""
    assert (
        judged(
            table_day("T01", "pb-5-classic", rounds=(ONE_BANKER_WINNER,)),
            table_day("T02", "pb-5-per-seat", rounds=(ONE_BANKER_WINNER,)),
        )
        == []
    )


@pytest.mark.rule("PB-3.10c1-PIT-PROCEDURE", "PB-3.5b-SHUFFLE-PIT")
def test_tables_of_different_pits_may_differ() -> None:
    """PB-3.10c1-PIT-PROCEDURE, PB-3.5b-SHUFFLE-PIT, N.J.A.C. 19:47-3.10(c)1, 3.5(b): the
    rules bind the tables "within a pit"; tables of two pits may settle and shuffle
    differently."""
    assert (
        judged(
            table_day("T01", "pb-5-classic", pit_name="BACCARAT-1"),
            table_day("T02", "pb-5-per-seat", pit_name="BACCARAT-2"),
            table_day("T03", "pb-5-wash", pit_name="BACCARAT-3"),
        )
        == []
    )


@pytest.mark.rule("PB-3.10b-SETTLEMENT", "PB-3.10c1-PIT-PROCEDURE")
def test_a_round_out_of_the_filed_order_is_the_tables_finding_only() -> None:
    """PB-3.10b-SETTLEMENT, PB-3.10c1-PIT-PROCEDURE, N.J.A.C. 19:47-3.10(b), (c)1: a (b)1
    table whose pit recorded one round seat by seat broke its own procedure: that is its
    3.10(b) finding, and the round shows no second procedure in the pit."""
    first = table_day("T01", "pb-5-classic")
    b = TableDayBuilder("T02", "pb-5-classic")
    b.open()
    b.shoe()
    b.round(
        **TWO_BANKER_WINNERS,
        settlement_order=lambda steps: sorted(
            steps, key=lambda s: (s.kind != "LOSE", -s.seat, s.kind == "VIG")
        ),
    )
    b.end_shoe()
    b.close()
    own = replay_table("T02", [replace(e, event_id=f"T02:{e.event_id}") for e in b.events], FILED)
    assert [f.code for f in own.findings] == ["PB-3.10b-SETTLEMENT"]
    assert judged(first, own) == []


@pytest.mark.parametrize(
    ("rules_id", "shuffled", "code", "section"),
    [
        ("pb-5-wash", None, "PB-3.5b-SHUFFLE-PIT", "3.5(b)"),
        ("cf-5", None, "CF-4.4b-SHUFFLE-PIT", "4.4(b)"),
        ("mb-5-rounded", None, "MB-7.5c-SHUFFLE-PIT", "7.5(c)"),
        ("mb-tie-quarter", None, "MB-7.5c-SHUFFLE-PIT", "7.5(c)"),
    ],
)
@pytest.mark.rule("PB-3.5b-SHUFFLE-PIT", "CF-4.4b-SHUFFLE-PIT", "MB-7.5c-SHUFFLE-PIT")
def test_a_table_shuffling_by_another_option_than_its_pit(
    rules_id: str, shuffled: str | None, code: str, section: str
) -> None:
    """PB-3.5b-SHUFFLE-PIT, CF-4.4b-SHUFFLE-PIT, MB-7.5c-SHUFFLE-PIT, N.J.A.C. 19:47-3.5(b),
    4.4(b), 7.5(c): "any shuffling or lacing option chosen ... shall be implemented at all
    tables within a pit". T01 and T02 lace; T03 of the same pit records its shoe shuffled by
    its own filed option, another one: one MEDIUM finding at T03 citing its game's section,
    with both tables' TableOpened and ShoeStarted events."""
    first, second = table_day("T01", "pb-5-classic"), table_day("T02", "pb-4-banker6")
    off = table_day("T03", rules_id, rounds=(), shuffled=shuffled)
    assert [f.render() for f in off.findings] == []

    (finding,) = judged(first, second, off)

    method = FILED[rules_id].shuffle_method.value
    assert (finding.code, finding.table_id, finding.shoe_id) == (code, "T03", "T03-S01")
    assert finding.severity is Severity.MEDIUM
    assert f"table T03 recorded shoe T03-S01 as shuffled {method}" in finding.message
    assert (
        "table T01 (and 1 other table of the pit) recorded shoe T01-S01 as shuffled MANUAL_LACE"
        in finding.message
    )
    assert f"N.J.A.C. 19:47-{section}" in finding.message
    assert "Shuffle every table of pit BACCARAT-1 by one option" in finding.message
    shoes = {
        p.event_ids[1] for day in (first, off) for p in day.practices if p.subject == "SHUFFLE"
    }
    assert {opened(first), opened(off), *shoes} == set(finding.event_ids)


@pytest.mark.rule("PB-3.5a-SHUFFLE-FILED", "PB-3.5b-SHUFFLE-PIT")
def test_a_shoe_against_the_tables_own_filing_is_the_tables_finding_only() -> None:
    """PB-3.5a-SHUFFLE-FILED, PB-3.5b-SHUFFLE-PIT, N.J.A.C. 19:47-3.5(a)-(b): a lacing table
    whose shoe is recorded as washed broke its own filing (3.5(a), its own finding); the pit
    is judged from the shoes that keep to each table's filing, so no second finding."""
    first = table_day("T01", "pb-5-classic")
    off = table_day("T02", "pb-5-classic", shuffled="MANUAL_WASH")
    assert [f.code for f in off.findings] == ["PB-3.5a-SHUFFLE-FILED"]
    assert judged(first, off) == []


@pytest.mark.rule("MB-7.5c-SHUFFLE-PIT", "PB-3.10c1-PIT-PROCEDURE")
def test_minibaccarat_tables_share_the_shuffle_not_a_settlement_procedure() -> None:
    """MB-7.5c-SHUFFLE-PIT, PB-3.10c1-PIT-PROCEDURE, N.J.A.C. 19:47-7.5(c), 3.10(c)1:
    3.10(c)1 binds "punto banco tables"; the given text of subchapter 7 has no pit rule for the
    settlement procedure, so two Minibaccarat tables of a pit feathering their cards may settle
    by (b)3 and (b)4."""
    per_seat = table_day("T01", "mb-5-rounded", pit_name="MINI-1")
    other = table_day("T02", "mb-quarter-feathered", pit_name="MINI-1")
    assert [f.render() for day in (per_seat, other) for f in day.findings] == []
    assert not any(p.subject == "SETTLEMENT" for p in (*per_seat.practices, *other.practices))
    assert judged(per_seat, other) == []
