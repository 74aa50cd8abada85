"""A device that lies: settlements re-sent under their own event id and seq with ten times the
payout (issue 25). Shared by the file-path tests here and the Kafka tests in tests/stream."""

from __future__ import annotations

import dataclasses
from datetime import date

from pipeline.config.catalog import load_catalog
from pipeline.events.model import TableEvent
from pipeline.simulate.run import simulate

GAMING_DATE = date(2026, 11, 24)
DOCTORED = 20
FACTOR = 10


def genuine_day() -> list[TableEvent]:
    """One table for an hour, no faults: a few hundred rounds."""
    day = simulate(1, 1, 11, {}, GAMING_DATE, load_catalog())
    return day.events_by_table["T01"]


def doctor(events: list[TableEvent], count: int = DOCTORED) -> list[TableEvent]:
    """Copies of the first ``count`` paid settlements with ``FACTOR`` times the payout, each
    keeping its event id and seq."""
    paid = [e for e in events if e.payload_type == "WagerSettled" and e.get("paid_cents", 0) > 0]
    assert len(paid) >= count, f"only {len(paid)} paid settlements"
    return [
        dataclasses.replace(e, fields={**e.fields, "paid_cents": e.fields["paid_cents"] * FACTOR})
        for e in paid[:count]
    ]
