"""The live replay tells the findings of the round in play (provisional: the next events may
complete the round) from final ones, so the live feed never announces a half-dealt round."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from pipeline.config.catalog import load_catalog
from pipeline.replay.findings import Finding
from pipeline.replay.live import LiveReplay
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.replay.builder import TableDayBuilder, table

CATALOG = load_catalog()


@pytest.mark.rule("NJ-DATA-DUPLICATE")
def test_a_clean_day_cut_anywhere_has_only_provisional_findings_and_a_duplicate_is_final() -> None:
    """N.J.A.C. 19:47-3.7-3.10 as the devices record them: a batch that ends mid-round leaves
    only provisional findings (the next events complete the round); a duplicate delivery is
    final at once (NJ-DATA-DUPLICATE)."""
    events = simulate(1, 1, 5, parse_faults("none"), date(2026, 11, 24), CATALOG).events_by_table[
        "T01"
    ]
    live = LiveReplay("T01", CATALOG)
    provisional_seen = 0
    for start in range(0, len(events), 37):  # batches that end mid-round
        live.add(events[start : start + 37])
        findings = live.result().findings
        assert set(findings) == set(live.provisional), f"a final finding at event {start}"
        provisional_seen += len(live.provisional)
    assert provisional_seen > 0, "some batch ended in the middle of a round"
    assert live.result().findings == [] and live.provisional == (), "the table closed: all final"

    live.add([events[250]])  # a device sends an event again
    [duplicate] = live.result().findings
    assert duplicate.code == "NJ-DATA-DUPLICATE" and live.provisional == ()


# ---------------------------------------------------------------------- day-end findings
BANKER_WINS: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}  # Banker 7 over Player 6


def _live_at(b: TableDayBuilder, upto: int) -> tuple[list[Finding], set[Finding]]:
    """The live replay of the day's first ``upto`` events: its findings, and the final ones."""
    live = LiveReplay(b.table_id, CATALOG)
    live.add(b.events[:upto])
    findings = live.result().findings
    return findings, set(findings) - set(live.provisional)


def _forms_day(issued: tuple[int, ...]) -> TableDayBuilder:
    """A table that issues a Form for $5.00 of deferred vigorish per serial in ``issued``."""
    b = table()
    for serial in issued:
        b.round(**BANKER_WINS, wagers={3: {"BANKER": 10_000}}, defer_vig={3})
        b.form_issued(seat=3, serial=serial)
    return b


@pytest.mark.rule("PB-3.3c4-DEFERRED-DEADLINE")
def test_deferred_vigorish_still_owed_is_announced_at_the_shoe_end_not_at_the_close() -> None:
    """PB-3.3c4-DEFERRED-DEADLINE, N.J.A.C. 19:47-3.3(c)4: deferred vigorish is collected or
    documented 'when each shoe of cards is completed'; once ShoeEnded arrives the marker still
    owed is certain, so the live feed announces it then, with the table still open."""
    b = table()
    b.round(**BANKER_WINS, wagers={3: {"BANKER": 10_000}}, defer_vig={3})
    b.end_shoe(settle_deferred=False)
    findings, final = _live_at(b, len(b.events))
    [owed] = [f for f in findings if f.code == "PB-3.3c4-DEFERRED-DEADLINE"]
    assert owed in final and owed.seat == 3 and owed.expected_cents == 500
    before_the_end = _live_at(b, len(b.events) - 1)[0]
    assert "PB-3.3c4-DEFERRED-DEADLINE" not in {f.code for f in before_the_end}


@pytest.mark.rule("PB-3.3c3ii-FORM-SEQUENCE")
def test_a_gap_in_a_form_series_waits_for_the_close_because_a_void_may_still_fill_it() -> None:
    """PB-3.3c3ii-FORM-SEQUENCE, N.J.A.C. 19:47-3.3(c)3ii: each series is used in sequential
    order. With 1002 skipped and 1003 issued, 1002 may still be voided (then it is a Form used
    out of order, another finding): the gap is held back while the table is open, and final
    once it closed."""
    b = _forms_day((1001, 1003))
    findings, final = _live_at(b, len(b.events))
    [gap] = [f for f in findings if f.serial == 1002 and f.code == "PB-3.3c3ii-FORM-SEQUENCE"]
    assert "is missing" in gap.message and gap not in final, "the table is open"
    voided = b.form_voided(serial=1002)
    findings, final = _live_at(b, len(b.events))
    [late] = [f for f in findings if f.serial == 1002 and f.code == "PB-3.3c3ii-FORM-SEQUENCE"]
    assert late.event_ids == (voided,) and "used after Form 1003" in late.message
    assert late in final, "a Form used out of order is certain when it is used"

    b = _forms_day((1001, 1003))
    b.close()
    findings, final = _live_at(b, len(b.events))
    [gap] = [f for f in findings if f.serial == 1002 and f.code == "PB-3.3c3ii-FORM-SEQUENCE"]
    assert gap in final, "no Form can be used at a closed table"


@pytest.mark.rule("PB-3.3c3iv-FORM-MATCH")
def test_a_form_waits_for_its_two_copies_after_the_close_and_is_never_withdrawn() -> None:
    """PB-3.3c3iv-FORM-MATCH, N.J.A.C. 19:47-3.3(c)3iii-iv: each original from the drop box is
    matched with the duplicate the pit clerk forwards to accounting, after the table closes. A
    Form is held back until both copies arrived: 1001 matches, 1002's copies disagree (final
    once both are in), 1003's never come (never announced live; the close reports it). No
    Form the live feed announced is withdrawn later."""
    b = _forms_day((1001, 1002, 1003))
    b.close()
    closed = len(b.events)
    b.accounting(duplicate={1002: {"amount_cents": 1_000}}, skip=[1003])
    announced: set[Finding] = set()
    for upto in range(closed, len(b.events) + 1):
        findings, final = _live_at(b, upto)
        matches = {f for f in final if f.code == "PB-3.3c3iv-FORM-MATCH"}
        assert announced <= set(findings), f"a Form announced was withdrawn at event {upto}"
        announced |= matches
    assert {f.serial for f in announced} == {1002}
    findings, final = _live_at(b, len(b.events))
    assert {f.serial for f in findings if f.code == "PB-3.3c3iv-FORM-MATCH"} == {1002, 1003}
    assert [f.serial for f in findings if f.code == "PB-3.3c3iv-FORM-MATCH" and f in final] == [
        1002
    ]
