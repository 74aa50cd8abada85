"""Small emulated gaming days loaded into ledgers, shared by the quality-suite tests. Each
ledger sits next to the fault manifest (``faults.jsonl``) of its day."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path

import pytest

from pipeline.cli import write_simulation
from pipeline.config.catalog import load_catalog
from pipeline.ingest.sources import DeadLetter, read_file
from pipeline.ingest.stage import load_batch
from pipeline.ledger.store import Delivery, Ledger
from pipeline.simulate.faults import FaultKind
from pipeline.simulate.run import simulate
from tests.emulated_days import FAULTY_RATES, faulty_seed

GAMING_DATE = date(2026, 11, 24)


def emulate_day(out: Path, seed: int, rates: Mapping[FaultKind, float]) -> Path:
    """Two tables for two hours, written to Avro files and loaded into ``out/ledger.duckdb``."""
    catalog = load_catalog()
    result = simulate(2, 2.0, seed, rates, GAMING_DATE, catalog)
    ledger = out / "ledger.duckdb"
    with Ledger(ledger) as led:
        for path in write_simulation(result, out, GAMING_DATE):
            items = list(read_file(path))
            batch = [i for i in items if isinstance(i, Delivery)]
            letters = [i for i in items if isinstance(i, DeadLetter)]
            load_batch(led, batch, letters, catalog)
    return ledger


@pytest.fixture(scope="session")
def clean_ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """No injected faults; seed 3 issues Complimentary Vigorish Forms on both tables."""
    return emulate_day(tmp_path_factory.mktemp("clean"), 3, {})


@pytest.fixture(scope="session")
def faulty_ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every fault kind, every Form faulted and more device faults, on a seed that reuses a
    Form serial, delivers an event twice and delivers events out of order."""
    return emulate_day(tmp_path_factory.mktemp("faulty"), faulty_seed(), FAULTY_RATES)
