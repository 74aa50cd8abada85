"""Complimentary Vigorish Form control, N.J.A.C. 19:47-3.3(c)3i-vii (and 7.3(c)3)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import FIRST_SERIAL, TableDayBuilder, codes, only

BANKER_WINS: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}  # Banker 7 over Player 6


def pit_only(rules_id: str = "pb-5-classic", **opened: Any) -> TableDayBuilder:
    """A table opened with the series 1001-1050 and no play: the forms are the whole day."""
    b = TableDayBuilder("T01", rules_id)
    b.open(**opened)
    return b


def issue(b: TableDayBuilder, owed: int, seat: int = 3, **overrides: Any) -> str:
    """A Form documenting ``owed`` cents of vigorish deferred at ``seat`` (3.3(c)2-3): a round
    the seat's Banker wager wins with its vigorish marked, then the Form. ``overrides`` replace
    any of the Form's fields."""
    if b.shoe_id is None:
        b.shoe()
    stake = owed * 100 // b.rules.vig_percent
    b.round(**BANKER_WINS, wagers={seat: {"BANKER": stake}}, defer_vig={seat})
    return b.form_issued(seat=seat, **overrides)


def finish(b: TableDayBuilder, **accounting: Any) -> None:
    b.close()
    b.accounting(**accounting)


@pytest.mark.rule("PB-3.3c3-COMP-FORM", "PB-3.3c3iv-FORM-MATCH")
def test_complete_forms_used_in_order_are_clean() -> None:
    """PB-3.3c3-COMP-FORM: N.J.A.C. 19:47-3.3(c)3i-vi: complete, signed Forms (one with the patron's
    signature, one with the reason it is missing, one void) used in sequence and matched at
    accounting."""
    b = pit_only()
    issue(b, 500)
    issue(b, 750, patron_signature=None, signature_missing_reason="left the pit")
    b.form_voided()
    issue(b, 1_000)
    finish(b)
    result = b.replay()
    assert result.findings == []
    assert [(r.serial, r.status) for r in result.forms] == [
        (1001, "ISSUED"),
        (1002, "ISSUED"),
        (1003, "VOIDED"),
        (1004, "ISSUED"),
    ]
    assert all(r.matched for r in result.form_events)
    assert result.summary is not None and result.summary.comp_vig_cents == 2_250


@pytest.mark.rule("PB-3.3c3ii-FORM-SEQUENCE")
def test_gap_in_the_series() -> None:
    """PB-3.3c3ii-FORM-SEQUENCE, N.J.A.C. 19:47-3.3(c)3ii: every Form of a series is accounted
    for; 1002 was neither used nor voided though 1003 was. The evidence is the series."""
    b = pit_only()
    issue(b, 500, serial=1001)
    issue(b, 500, serial=1003)
    finish(b)
    series = next(e.event_id for e in b.events if e.payload_type == "FormSeriesReceived")
    f = only(b.replay())
    assert (f.code, f.severity, f.serial, f.round_id, f.seat, f.event_ids) == (
        "PB-3.3c3ii-FORM-SEQUENCE",
        Severity.CRITICAL,
        1002,
        None,
        None,
        (series,),
    )
    assert f.message == (
        "Form 1002 of series 1001-1050 is missing: neither used nor voided, though later forms "
        "were used (N.J.A.C. 19:47-3.3(c)3ii)."
    )


@pytest.mark.rule("PB-3.3c3ii-FORM-SEQUENCE")
def test_serial_used_twice() -> None:
    """PB-3.3c3ii-FORM-SEQUENCE, N.J.A.C. 19:47-3.3(c)3ii: a serial is used once."""
    b = pit_only()
    first = issue(b, 500, serial=1001)
    second = issue(b, 1_000, serial=1001)
    finish(b)
    f = only(b.replay())
    assert (f.code, f.serial, f.event_ids) == ("PB-3.3c3ii-FORM-SEQUENCE", 1001, (first, second))
    assert f.message == (
        f"Form 1001 was used twice (first as issued by event {first}); serials are used once, "
        "in order (N.J.A.C. 19:47-3.3(c)3ii)."
    )


@pytest.mark.rule("PB-3.3c3ii-FORM-SEQUENCE")
def test_forms_used_out_of_order() -> None:
    """PB-3.3c3ii-FORM-SEQUENCE, N.J.A.C. 19:47-3.3(c)3ii: 'each series of Forms shall be used in
    sequential order'; 1001 after 1002."""
    b = pit_only()
    issue(b, 500, serial=1002)
    late = issue(b, 500, serial=1001)
    finish(b)
    f = only(b.replay())
    assert (f.code, f.serial, f.event_ids) == ("PB-3.3c3ii-FORM-SEQUENCE", 1001, (late,))
    assert f.message == (
        "Form 1001 was used after Form 1002; each series is used in sequential order "
        "(N.J.A.C. 19:47-3.3(c)3ii)."
    )


@pytest.mark.rule("PB-3.3c3ii-FORM-SEQUENCE")
def test_serial_outside_every_series_received_is_found() -> None:
    """PB-3.3c3ii-FORM-SEQUENCE, N.J.A.C. 19:47-3.3(c)3ii: the series numbers of all Forms
    received are accounted for; Form 2001 belongs to no series this table received."""
    b = pit_only()
    stray = issue(b, 500, serial=2001)
    finish(b)
    result = b.replay()
    f = next(f for f in result.findings if f.serial == 2001)
    assert (f.code, f.severity, f.event_ids) == (
        "PB-3.3c3ii-FORM-SEQUENCE",
        Severity.CRITICAL,
        (stray,),
    )
    assert f.message == (
        "Form 2001 is not in any series received at this table; every series must be accounted "
        "for (N.J.A.C. 19:47-3.3(c)3ii)."
    )


@pytest.mark.rule("PB-3.3c3ii-FORM-SEQUENCE")
def test_serial_outside_every_series_is_one_finding() -> None:
    """PB-3.3c3ii-FORM-SEQUENCE, N.J.A.C. 19:47-3.3(c)3ii: one stray Form is one finding; the
    untouched series 1001-1050 has no gap."""
    b = pit_only()
    issue(b, 500, serial=2001)
    finish(b)
    assert only(b.replay()).serial == 2001


@pytest.mark.parametrize(
    ("missing", "named"),
    [
        ("dealer_signature", "dealer signature"),
        ("pit_boss_signature", "pit boss signature"),
        ("pit_clerk_signature", "pit clerk signature"),
        ("patron_name", "patron name"),
        ("amount_cents", "amount cents"),
    ],
)
@pytest.mark.rule("PB-3.3c3-COMP-FORM")
def test_form_lacks_a_required_field(missing: str, named: str) -> None:
    """PB-3.3c3-COMP-FORM, N.J.A.C. 19:47-3.3(c)3i: the Form records the amount, gaming date,
    pit, table location, patron, and the signatures of dealer, pit boss and pit clerk."""
    b = pit_only()
    absent: dict[str, Any] = {missing: 0 if missing == "amount_cents" else None}
    form = issue(b, 500, **absent)
    finish(b)
    (f,) = [f for f in b.replay().findings if f.message.startswith("Form 1001 lacks")]
    assert (f.severity, f.serial, f.event_ids) == (Severity.CRITICAL, 1001, (form,))
    assert f.message == f"Form 1001 lacks the {named} (N.J.A.C. 19:47-3.3(c)3i)."


@pytest.mark.rule("PB-3.3c3-COMP-FORM")
def test_form_lacks_patron_signature_and_reason() -> None:
    """PB-3.3c3-COMP-FORM, N.J.A.C. 19:47-3.3(c)3i: 'the signature of the patron if available,
    or a statement ... as to why the patron's signature could not be obtained'; neither."""
    b = pit_only()
    form = issue(b, 500, patron_signature=None, signature_missing_reason=None)
    finish(b)
    f = only(b.replay())
    assert (f.code, f.serial, f.event_ids) == ("PB-3.3c3-COMP-FORM", 1001, (form,))
    assert f.message == (
        "Form 1001 lacks the patron signature or the reason it could not be obtained "
        "(N.J.A.C. 19:47-3.3(c)3i)."
    )


@pytest.mark.rule("PB-3.3c3-COMP-FORM")
def test_minibaccarat_form_needs_no_pit_or_table_location() -> None:
    """N.J.A.C. 19:47-3.3(c)3i: PB-3.3c3-COMP-FORM as 7.3(c)3i of N.J.A.C. 19:47 reads it for
    Minibaccarat: amount, patron name, dealer, pit boss and pit clerk signatures, the patron's
    signature or why not."""
    b = pit_only("mb-5-rounded")
    issue(b, 500, pit="", table_location="")
    finish(b)
    assert codes(b.replay()) == []


@pytest.mark.parametrize(
    ("overrides", "flaws"),
    [
        ({"marked_void": False}, "is not marked VOID"),
        ({"pit_boss_signature": None}, "lacks the pit boss's signature"),
        ({"pit_clerk_signature": None}, "lacks the pit clerk's signature"),
        (
            {"marked_void": False, "pit_boss_signature": None, "pit_clerk_signature": None},
            "is not marked VOID and lacks the pit boss's signature and lacks the pit clerk's "
            "signature",
        ),
    ],
)
@pytest.mark.rule("PB-3.3c3vi-FORM-VOID")
def test_void_form_unmarked_or_unsigned(overrides: dict[str, Any], flaws: str) -> None:
    """PB-3.3c3vi-FORM-VOID, N.J.A.C. 19:47-3.3(c)3vi: void Forms are marked 'VOID' and signed
    by the pit boss and the pit clerk."""
    b = pit_only()
    void = b.form_voided(**overrides)
    finish(b)
    f = only(b.replay(), "PB-3.3c3vi-FORM-VOID")
    assert (f.severity, f.serial, f.event_ids) == (Severity.CRITICAL, 1001, (void,))
    assert f.message == f"Void Form 1001 {flaws} (N.J.A.C. 19:47-3.3(c)3vi)."


@pytest.mark.parametrize(
    ("duplicate", "expected", "actual"),
    [
        ({"amount_cents": 1_000}, 500, 1_000),
        ({"patron_name": "Someone Else"}, 500, 500),
        ({"table_location": "BAC-99"}, 500, 500),
    ],
)
@pytest.mark.rule("PB-3.3c3iv-FORM-MATCH")
def test_original_and_duplicate_disagree(
    duplicate: dict[str, Any], expected: int, actual: int
) -> None:
    """PB-3.3c3iv-FORM-MATCH, N.J.A.C. 19:47-3.3(c)3iv: accounting compares the duplicate the pit
    clerk forwarded with the original from the drop box."""
    b = pit_only()
    issue(b, 500)
    b.close()
    original, dup = b.accounting(duplicate={FIRST_SERIAL: duplicate})
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.serial, f.event_ids) == (
        "PB-3.3c3iv-FORM-MATCH",
        Severity.CRITICAL,
        1001,
        (original, dup),
    )
    assert (f.expected_cents, f.actual_cents) == (expected, actual)
    assert f.message.startswith(
        f"Form 1001: the drop-box original (1 counted, $5.00) does not match the duplicate at "
        f"accounting (1 received, ${actual // 100}.{actual % 100:02d})"
    )
    assert not any(r.matched for r in result.form_events)


@pytest.mark.rule("PB-3.3c3iv-FORM-MATCH")
def test_issued_form_never_reached_accounting() -> None:
    """PB-3.3c3iv-FORM-MATCH, N.J.A.C. 19:47-3.3(c)3iii-iv: the original goes to the drop box and
    the duplicate to accounting; neither arrived."""
    b = pit_only()
    form = issue(b, 500)
    finish(b, skip=[FIRST_SERIAL])
    f = only(b.replay())
    assert (f.code, f.serial, f.event_ids) == ("PB-3.3c3iv-FORM-MATCH", 1001, (form,))
    assert f.message == (
        "Form 1001 was issued but neither its original nor its duplicate reached accounting "
        "(N.J.A.C. 19:47-3.3(c)3iii-iv)."
    )


@pytest.mark.rule("PB-3.3c3iv-FORM-MATCH")
def test_original_missing_from_the_drop_box() -> None:
    """PB-3.3c3iv-FORM-MATCH, N.J.A.C. 19:47-3.3(c)3iii-iv: a duplicate without its original."""
    b = pit_only()
    issue(b, 500)
    b.close()
    b.emit("acct", "FormDuplicateReceived", **{**b.forms[0]})
    f = only(b.replay())
    assert (f.code, f.serial, f.expected_cents, f.actual_cents) == (
        "PB-3.3c3iv-FORM-MATCH",
        1001,
        0,
        500,
    )
    assert "(0 counted, $0.00)" in f.message


@pytest.mark.rule("PB-3.3c3vi-FORM-VOID", "PB-3.3c3iv-FORM-MATCH", "PB-3.3c3ii-FORM-SEQUENCE")
def test_void_form_never_reached_accounting() -> None:
    """PB-3.3c3vi-FORM-VOID: N.J.A.C. 19:47-3.3(c)3vi: void Forms are 'retained by the pit clerk
    until they are forwarded to the casino accounting department at the end of the gaming day'."""
    b = pit_only()
    b.form_voided()
    finish(b, skip=[FIRST_SERIAL])
    f = only(b.replay())
    assert f.code in {"PB-3.3c3vi-FORM-VOID", "PB-3.3c3iv-FORM-MATCH", "PB-3.3c3ii-FORM-SEQUENCE"}
    assert f.serial == 1001


# ---------------------------------------------------------------------- tied to deferred vigorish
@pytest.mark.parametrize(
    ("seat", "why"),
    [
        (None, "it names no seat, so it cannot be tied to the marker button"),
        (5, "seat 5 owed no deferred vigorish when it was issued"),
    ],
)
@pytest.mark.rule("PB-3.3c3-FORM-DEFERRED")
def test_a_form_for_no_deferral(seat: int | None, why: str) -> None:
    """PB-3.3c3-FORM-DEFERRED, N.J.A.C. 19:47-3.3(c)2, (c)3: a Form documents vigorish deferred at
    a player's place and not collected. A "walk-in" Form with no seat, or one for a seat that
    never deferred anything, is a CRITICAL finding, and its $5.00 is no complimentary."""
    b = pit_only()
    b.shoe()
    form = b.form_issued(seat, amount_cents=500)
    finish(b)
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.serial, f.seat, f.event_ids) == (
        "PB-3.3c3-FORM-DEFERRED",
        Severity.CRITICAL,
        1001,
        seat,
        (form,),
    )
    assert (f.expected_cents, f.actual_cents) == (0, 500)
    assert why in f.message and "(N.J.A.C. 19:47-3.3(c)2, (c)3)" in f.message
    assert "void the Form" in f.message
    assert result.summary is not None and result.summary.comp_vig_cents == 0


@pytest.mark.rule("PB-3.3c3-FORM-DEFERRED")
def test_a_form_after_the_marker_was_paid() -> None:
    """PB-3.3c3-FORM-DEFERRED, N.J.A.C. 19:47-3.3(c)2: the marker was collected, so the seat owes
    nothing: a Form for it afterwards documents no uncollected vigorish."""
    b = pit_only()
    b.shoe()
    b.round(**BANKER_WINS, wagers={3: {"BANKER": 10_000}}, defer_vig={3})
    b.collect_deferred(3)
    form = b.form_issued(3, amount_cents=500)
    finish(b)
    f = only(b.replay())
    assert (f.code, f.seat, f.event_ids) == ("PB-3.3c3-FORM-DEFERRED", 3, (form,))


@pytest.mark.rule("PB-3.3c3-FORM-DEFERRED", "PB-3.3c3-COMP-FORM")
def test_a_form_for_the_deferred_balance_is_clean() -> None:
    """PB-3.3c3-FORM-DEFERRED, PB-3.3c3-COMP-FORM, N.J.A.C. 19:47-3.3(c)3: the legal case, a Form
    for exactly the balance marked at the seat, raises nothing and is the day's complimentary."""
    b = pit_only()
    issue(b, 500)
    finish(b)
    result = b.replay()
    assert result.findings == []
    assert result.summary is not None and result.summary.comp_vig_cents == 500


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("gaming_date", date(2024, 4, 30), "gaming date 2024-04-30 (the table's is 2024-05-01)"),
        ("pit", "BACCARAT-9", "pit BACCARAT-9 (the table's is BACCARAT-1)"),
        ("table_location", "BAC-77", "table location BAC-77 (the table's is BAC-01)"),
    ],
)
@pytest.mark.rule("PB-3.3c3i-FORM-TABLE")
def test_form_header_differs_from_the_table(field: str, value: Any, said: str) -> None:
    """PB-3.3c3i-FORM-TABLE, N.J.A.C. 19:47-3.3(c)3i: the gaming date, pit and table location
    on the Form are compared with those the table opened with, not only checked present."""
    b = pit_only()
    form = issue(b, 500, **{field: value})
    b.close()
    b.accounting()
    f = only(b.replay(), "PB-3.3c3i-FORM-TABLE")
    assert (f.severity, f.serial, f.event_ids) == (Severity.CRITICAL, 1001, (form,))
    assert said in f.message and "(N.J.A.C. 19:47-3.3(c)3i)" in f.message


@pytest.mark.rule("MB-7.3c3-FORM-DEFERRED")
def test_minibaccarat_cites_7_3() -> None:
    """MB-7.3c3-FORM-DEFERRED, N.J.A.C. 19:47-7.3(c)2, (c)3: Minibaccarat cites chapter 7; a
    Form with another pit is not its finding (7.3(c)3i asks no pit), a walk-in Form is."""
    b = pit_only("mb-5-rounded")
    b.shoe()
    b.form_issued(None, amount_cents=500, pit="ELSEWHERE")
    finish(b)
    assert codes(b.replay()) == ["MB-7.3c3-FORM-DEFERRED"]


@pytest.mark.rule("CF-4.10c-NO-FORM")
def test_chemin_de_fer_has_no_forms() -> None:
    """CF-4.10c-NO-FORM, N.J.A.C. 19:47-4.10(c): Chemin de Fer vigorish is 'collected immediately
    after each round won by the Banker': nothing is deferred, so a Form documents nothing."""
    b = pit_only("cf-5")
    b.form_issued(2, amount_cents=500)
    finish(b)
    f = only(b.replay())
    assert f.code == "CF-4.10c-NO-FORM"
    assert "collected immediately" in f.message and "N.J.A.C. 19:47-4.10(c)" in f.message
