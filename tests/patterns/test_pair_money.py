"""The money a dealer-patron pair is tested on (NJ-PATTERN-DEALER-PATRON, N.J.A.C. 19:47-3.3,
3.10(b)): what settling each wager moved to the patron, so a losing stake returned to the
patron is an error in the patron's favour of the stake, read from the ledger as the pattern
stage reads it (``pipeline.ledger.pattern_inputs.seat_rounds``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pipeline.ingest.stage import load_batch
from pipeline.ledger.columns import source_deliveries
from pipeline.ledger.store import Ledger
from pipeline.patterns.stage import dealt_seat_rounds
from tests.replay.builder import CATALOG, GAMING_DATE, table

BANKER_7_6: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}  # Banker wins 7-6


@pytest.mark.rule("PB-3.3a-PLAYER")
def test_a_losing_stake_returned_is_money_in_the_patrons_favour(tmp_path: Path) -> None:
    """A losing Player wager of $100.00 recorded VOID (its stake returned), beside one
    collected as due: the first seat-round gave the patron $100.00 more than the rules, with
    its wager and settlement as evidence; the second is no error."""
    b = table("pb-5-classic")
    returned = b.round(
        **BANKER_7_6, wagers={3: {"PLAYER": 10_000}}, results={(3, "PLAYER"): "VOID"}
    )
    b.round(**BANKER_7_6, wagers={3: {"PLAYER": 10_000}})
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        load_batch(ledger, source_deliveries("T01.avro", b.events), [], CATALOG)
        rounds = dealt_seat_rounds(ledger, GAMING_DATE, GAMING_DATE)
    erred = [r for r in rounds if r.erred]
    assert len(rounds) == 2 and len(erred) == 1
    (error,) = erred
    assert (error.round_id, error.seat, error.patron_id) == (returned.round_id, 3, "PAT-03")
    assert (error.expected_cents, error.actual_cents, error.patron_gain_cents) == (
        -10_000,
        0,
        10_000,
    )
    assert returned.settled_id(3, "PLAYER") in error.event_ids
