"""The Finding record (stable id, one rendering) and days the replay cannot check."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

from pipeline.replay.findings import Finding, Severity, money
from pipeline.replay.machine import UnknownRulesError
from tests.replay.builder import TableDayBuilder, busy_day, only


@pytest.mark.rule("PB-3.3a-PLAYER")
def test_finding_id_is_stable_and_order_free() -> None:
    """PB-3.3a-PLAYER, N.J.A.C. 19:47-3.3(a): the ledger's idempotence key is a pinned function of
    code, table, shoe, round, seat, serial, the sorted evidence ids and the message."""
    f = Finding(
        "PB-3.3a-PLAYER",
        Severity.CRITICAL,
        "T01",
        "msg",
        shoe_id="T01-S01",
        round_id="T01-S01-R001",
        seat=3,
        event_ids=("b", "a"),
    )
    key = "PB-3.3a-PLAYER|T01|T01-S01|T01-S01-R001|3|None|a,b|msg"
    assert (
        f.finding_id == hashlib.sha256(key.encode()).hexdigest()[:24] == "04fb9246e084bd1cb6441e40"
    )
    assert dataclasses.replace(f, event_ids=("a", "b")).finding_id == f.finding_id
    assert dataclasses.replace(f, message="other").finding_id != f.finding_id


@pytest.mark.rule("PB-3.9c-TABLE2", "PB-3.2d-NO-MORE-BETS", "PB-3.3b-TIE")
def test_finding_ids_are_the_same_on_every_rerun_and_delivery_order() -> None:
    """PB-3.9c-TABLE2: N.J.A.C. 19:47-3.9(c), 3.2(d), 3.3(b): re-running the same day, or the same
    day delivered in reverse, yields the same finding ids (less the notes on reordering)."""
    b, _ = busy_day()
    first = [f.finding_id for f in b.replay().findings]
    again = [f.finding_id for f in b.replay().findings]
    reverse = b.replay(list(reversed(b.events)))
    reversed_ids = {f.finding_id for f in reverse.findings if f.code != "NJ-DATA-REORDERED"}
    assert len(first) == 5
    assert first == again
    assert set(first) == reversed_ids
    assert all(len(i) == 24 and int(i, 16) >= 0 for i in first)


@pytest.mark.parametrize(
    ("finding", "rendered"),
    [
        (
            Finding(
                "PB-3.3a-PLAYER",
                Severity.CRITICAL,
                "T01",
                "Seat 3's PLAYER wager was overpaid.",
                round_id="T01-S01-R001",
                seat=3,
            ),
            "[CRITICAL] PB-3.3a-PLAYER table T01 round T01-S01-R001 seat 3: Seat 3's PLAYER "
            "wager was overpaid.",
        ),
        (
            Finding(
                "PB-3.3c3ii-FORM-SEQUENCE", Severity.CRITICAL, "T02", "Form 1002 ...", serial=1002
            ),
            "[CRITICAL] PB-3.3c3ii-FORM-SEQUENCE table T02 form 1002: Form 1002 ...",
        ),
        (
            Finding("NJ-DATA-CLOCK-SKEW", Severity.LOW, "T03", "clock.", shoe_id="T03-S01"),
            "[LOW] NJ-DATA-CLOCK-SKEW table T03: clock.",
        ),
        (
            Finding("NJ-DATA-DUPLICATE", Severity.INFO, "T04", "dup.", seat=0),
            "[INFO] NJ-DATA-DUPLICATE table T04 seat 0: dup.",
        ),
    ],
)
@pytest.mark.rule("PB-3.3a-PLAYER", "PB-3.3c3ii-FORM-SEQUENCE", "NJ-DATA-CLOCK-SKEW")
def test_render(finding: Finding, rendered: str) -> None:
    """PB-3.3a-PLAYER: The one line format for CLI, report and dashboard: '[SEVERITY] CODE table T
    round R seat S form N: message' with the absent parts left out (N.J.A.C. 19:47-3.3(a),
    3.3(c)3ii)."""
    assert finding.render() == rendered


@pytest.mark.rule("PB-3.9c-TABLE2", "PB-3.3c3ii-FORM-SEQUENCE")
def test_section_comes_from_the_rule_code() -> None:
    """PB-3.9c-TABLE2: The section cited by a finding is its rule code's (N.J.A.C. 19:47-3.9(c)-(g),
    3.3(c)3ii)."""
    assert (
        Finding("PB-3.9c-TABLE2", Severity.HIGH, "T01", "m").section == "N.J.A.C. 19:47-3.9(c)-(g)"
    )
    assert (
        Finding("PB-3.3c3ii-FORM-SEQUENCE", Severity.CRITICAL, "T01", "m").section
        == "N.J.A.C. 19:47-3.3(c)3ii"
    )
    assert Severity.INFO < Severity.LOW < Severity.MEDIUM < Severity.HIGH < Severity.CRITICAL


@pytest.mark.parametrize(
    ("cents", "text"),
    [(1234, "$12.34"), (-50, "-$0.50"), (0, "$0.00"), (123_456_789, "$1,234,567.89"), (5, "$0.05")],
)
@pytest.mark.rule("PB-3.3c1-VIG-ROUNDING")
def test_money(cents: int, text: str) -> None:
    """PB-3.3c1-VIG-ROUNDING: Amounts in messages are dollars and cents (N.J.A.C. 19:47-3.3(c)1
    rounds to cents)."""
    assert money(cents) == text


@pytest.mark.rule("NJ-DATA-HEAD-MISSING")
def test_day_without_table_opened() -> None:
    """N.J.A.C. 19:47-3.7-3.10: NJ-DATA-HEAD-MISSING: without TableOpened the game and rules
    are unknown; one HIGH finding, no rows, no crash. The pit terminal's events start at seq 2:
    the finding names the device, the first seq seen, how many are missing and that event."""
    b, _ = busy_day()
    events = b.events[1:]
    first = events[0]
    assert (first.device_id, first.seq) == ("T09-pit", 2)
    result = b.replay(events)
    f = only(result)
    assert (f.code, f.severity, f.table_id, f.round_id) == (
        "NJ-DATA-HEAD-MISSING",
        Severity.HIGH,
        "T09",
        None,
    )
    assert f.event_ids == (first.event_id,)
    assert f.message == (
        f"{len(events)} events arrived for table T09 but not its TableOpened event, which names "
        "the game and rules; the table-day is withheld until it arrives. The day's head is "
        f"missing: T09-pit starts at seq 2 (1 event(s) missing before {first.payload_type} "
        f"{first.event_id}). Find and deliver the pit terminal's opening event and the events "
        "before these, then replay the table-day."
    )
    assert (result.rounds, result.settlements, result.event_count) == ([], [], len(events))


@pytest.mark.rule("NJ-DATA-GAP")
def test_empty_day() -> None:
    """N.J.A.C. 19:47-3.7-3.10: NJ-DATA-GAP: nothing at all arrived for the table."""
    f = only(TableDayBuilder("T05").replay([]))
    assert (f.code, f.event_ids) == ("NJ-DATA-GAP", ())
    assert f.message.startswith("0 events arrived for table T05")


@pytest.mark.rule("PB-3.2b-WAGER-OFFERED")
def test_unknown_rules_id() -> None:
    """PB-3.2b-WAGER-OFFERED: N.J.A.C. 19:47-3.2(b) and the rules of the game submission: a table
    opened under rules the catalog does not hold cannot be replayed; the error names the rules id
    and the event."""
    b = TableDayBuilder("T01")
    opened = b.open(rules_id="pb-6-unfiled")
    b.shoe()
    with pytest.raises(UnknownRulesError, match=r"rules 'pb-6-unfiled' \(event ") as caught:
        b.replay()
    assert opened in str(caught.value)
    assert "pb-5-classic" in str(caught.value)  # the known ids are listed


@pytest.mark.rule("PB-3.2b-WAGER-OFFERED")
def test_rules_for_another_game() -> None:
    """PB-3.2b-WAGER-OFFERED: N.J.A.C. 19:47-3, 4 and 7 are different games: TableOpened naming
    Minibaccarat under the Punto Banco rules 'pb-5-classic' is refused."""
    b = TableDayBuilder("T01")
    b.open(game="MINIBACCARAT")
    with pytest.raises(UnknownRulesError, match="says game MINIBACCARAT but rules 'pb-5-classic'"):
        b.replay()
