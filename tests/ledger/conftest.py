"""The emulated day the ledger tests load."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.events.model import TableEvent
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)


@pytest.fixture(scope="session")
def day() -> dict[str, list[TableEvent]]:
    """Three tables, three hours, every fault kind."""
    return simulate(3, 3, seed=21, rates=parse_faults("all"), gaming_date=DAY).events_by_table
