"""The one formatter of an exception's evidence (:mod:`pipeline.ledger.evidence_text`): each
cited event as a line a person reads and the sum a deferred debt's events prove (N.J.A.C.
19:47-3.3(c)2 and (c)4)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from pipeline.ledger.evidence_text import CitedEvent, event_line, evidence_lines, proof_line

NEW_YORK = ZoneInfo("America/New_York")
TWO_AM = int(datetime(2026, 11, 25, 7, 0, tzinfo=UTC).timestamp() * 1_000_000)
"""02:00:00 in New York on the gaming day's night (UTC-5)."""


def at(minutes: int, payload_type: str, **fields: Any) -> CitedEvent:
    return CitedEvent(f"e{minutes}", payload_type, TWO_AM + minutes * 60_000_000, fields)


def deferral(minutes: int, cents: int) -> CitedEvent:
    return at(minutes, "VigDeferred", round_id=f"T01-S10-R{minutes:03d}", seat=1,
              patron_id="PAT-000070", amount_cents=cents)  # fmt: skip


@pytest.mark.rule("PB-3.3c4-DEFERRED-DEADLINE")
def test_a_deferred_deadline_reads_as_the_sum_it_proves() -> None:
    """PB-3.3c4-DEFERRED-DEADLINE, N.J.A.C. 19:47-3.3(c)4: three deferrals of $25.00 still
    owed when shoe S10 was completed read as their sum and the deadline, on the casino's
    clock, then one line per event."""
    events = [
        deferral(1, 2_500),
        deferral(5, 2_500),
        deferral(9, 2_500),
        at(14, "ShoeEnded", shoe_id="T01-S10", cards_dealt=410, reason="cutting card"),
    ]
    lines = evidence_lines(events, NEW_YORK)
    assert lines[0] == (
        "deferred $25.00 + $25.00 + $25.00 = $75.00 owed; deadline: shoe T01-S10 ended 02:14:00"
    )
    assert lines[1] == (
        "02:01:00 VigDeferred, round T01-S10-R001, seat 1 (PAT-000070): deferred $25.00 of vigorish"
    )
    assert lines[4] == "02:14:00 ShoeEnded: shoe T01-S10 ended"


@pytest.mark.rule("PB-3.3c4-DEFERRED-DEADLINE", "PB-3.3c3-COMP-FORM")
def test_payments_and_forms_are_taken_from_the_debt() -> None:
    """PB-3.3c4-DEFERRED-DEADLINE, N.J.A.C. 19:47-3.3(c)2-3: a payment and a Form documenting
    part of the debt reduce what is owed; the patron leaving is the deadline."""
    events = [
        deferral(1, 2_500),
        deferral(2, 5_000),
        at(3, "DeferredVigCollected", seat=1, patron_id="PAT-000070", amount_cents=1_000),
        at(4, "CompVigFormIssued", serial=1001, seat=1, amount_cents=500),
        at(6, "PatronLeft", seat=1, patron_id="PAT-000070"),
    ]
    assert proof_line(events, NEW_YORK) == (
        "deferred $25.00 + $50.00 - paid $10.00 - documented $5.00 = $60.00 owed; deadline: "
        "patron PAT-000070 left seat 1 02:06:00"
    )


@pytest.mark.rule("PB-3.3c4-DEFERRED-DEADLINE")
def test_a_payment_above_the_marker_reads_as_the_excess() -> None:
    """PB-3.3c4-DEFERRED-DEADLINE, N.J.A.C. 19:47-3.3(c)2: paying $10.00 on a $5.25 marker."""
    events = [
        deferral(1, 525),
        at(2, "DeferredVigCollected", seat=1, patron_id="PAT-000070", amount_cents=1_000),
    ]
    assert proof_line(events, UTC) == "deferred $5.25 - paid $10.00 = $4.75 more than was deferred"


@pytest.mark.rule("PB-3.3c-VIG")
def test_other_evidence_has_no_sum_and_states_money_in_dollars() -> None:
    """PB-3.3c-VIG, N.J.A.C. 19:47-3.3(c): a settlement's events state their amounts in
    dollars; an event without a phrase is told field by field, never as raw ``k=v``."""
    events = [
        at(
            1,
            "WagerSettled",
            round_id="R1",
            seat=4,
            patron_id="PAT-1",
            wager="BANKER",
            outcome="WIN",
            paid_cents=9_500,
            amount_cents=10_000,
        ),
        at(2, "DeviceFault", code="JAM", message="card jam", round_id=None),
    ]
    assert proof_line(events, UTC) is None
    assert evidence_lines(events, UTC) == [
        "07:01:00 WagerSettled, round R1, seat 4 (PAT-1): BANKER wager of $100.00 settled WIN, "
        "paid $95.00",
        "07:02:00 DeviceFault: code JAM, message card jam",
    ]


def test_device_strings_stay_visible_text() -> None:
    """A patron id with a terminal escape and a bidi override (device strings are
    attacker-controlled) shows its characters; the outputs escape the line for their
    medium."""
    line = event_line(at(1, "PatronLeft", seat=2, patron_id="PAT\x1b[2J\u202e<b>"), UTC)
    assert "\x1b" not in line and "\u202e" not in line
    assert "PAT␛[2J[U+202E]<b>" in line
