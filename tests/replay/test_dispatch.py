"""Dispatch that cannot miss: every payload type of the registered contract has its handler in
the replay, and no handler waits for a type the contract lacks. A type the replay has nothing
to do with still gets an ``on_<Type>`` method whose docstring says why, so the decision is
written where the dispatch is."""

from __future__ import annotations

import pytest

from pipeline.events import default_registry
from pipeline.events.payload_codegen import payload_records
from pipeline.replay.findings import Severity
from pipeline.replay.machine import _HANDLERS
from tests.replay.builder import TableDayBuilder


def _contract_types() -> set[str]:
    registry = default_registry()
    return {r["name"] for r in payload_records(registry.document(registry.id_for_latest()))}


@pytest.mark.rule("NJ-DATA-CONTRACT")
def test_every_payload_type_of_the_contract_has_a_handler() -> None:
    """NJ-DATA-CONTRACT: an event of the contract the replay silently skips would hide what the
    devices recorded of a round (N.J.A.C. 19:47-3.7-3.10)."""
    missing = sorted(_contract_types() - set(_HANDLERS))
    assert missing == [], (
        f"payload types without an on_<Type> handler in TableReplay: {missing}; add one (with "
        "a docstring saying why it does nothing, if it does nothing)"
    )


@pytest.mark.rule("NJ-DATA-CONTRACT")
def test_no_handler_names_a_type_the_contract_lacks() -> None:
    """NJ-DATA-CONTRACT: a handler for a type no device can send is a misspelt or removed
    type, whose events the replay would never see (N.J.A.C. 19:47-3.7-3.10)."""
    stray = sorted(set(_HANDLERS) - _contract_types())
    assert stray == [], f"handlers for payload types the registered schema lacks: {stray}"


@pytest.mark.rule("NJ-DATA-DEVICE-FAULT")
@pytest.mark.parametrize("inside_round", [True, False])
def test_a_reported_device_fault_flags_the_round_for_review(inside_round: bool) -> None:
    """NJ-DATA-DEVICE-FAULT: a reader jam the shoe recovers from leaves no sequence gap; the
    replay flags the round the fault names (or the time between rounds) for review, and the
    round's own checks still run (N.J.A.C. 19:47-3.7-3.10: the round's records)."""
    b = TableDayBuilder("T01", rules_id="pb-5-classic")
    b.open()
    b.shoe()
    r = b.round(player="2H 4C", banker="3D 4S", wagers={3: {"BANKER": 10_000}})
    fault = b.emit(
        "shoe",
        "DeviceFault",
        code="READER_JAM",
        message="card reader jammed and recovered",
        round_id=r.round_id if inside_round else None,
    )
    b.end_shoe()
    b.close()
    findings = b.replay().findings
    assert [(f.code, f.severity, f.event_ids) for f in findings] == [
        ("NJ-DATA-DEVICE-FAULT", Severity.LOW, (fault,))
    ]
    (finding,) = findings
    assert finding.round_id == (r.round_id if inside_round else None)
    assert "T01-shoe reported fault READER_JAM (card reader jammed and recovered)" in (
        finding.message
    )
    when = f"during round {r.round_id}" if inside_round else "between rounds"
    assert f"{when} at seq " in finding.message
