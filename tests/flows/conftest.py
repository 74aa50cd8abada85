"""Fixtures of the flow tests: ONE Prefect test server for the whole session (it takes
10-25 s to start) and small emulated gaming days as Avro files.

Under pytest-xdist every worker is its own session; the flow-run tests carry
``xdist_group("prefect")`` so that ``--dist loadgroup`` keeps them on one worker and one
server.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from datetime import date
from pathlib import Path

import pytest

from pipeline.cli import write_simulation
from pipeline.config.catalog import load_catalog
from pipeline.simulate.faults import DEFAULT_RATES, FaultKind
from pipeline.simulate.run import simulate
from tests.emulated_days import FAULTY_RATES, faulty_seed

GAMING_DATE = date(2026, 11, 24)


@pytest.fixture(scope="session")
def prefect_api() -> Iterator[str]:
    """A temporary Prefect server (SQLite in a temporary directory) with the ledger writer's
    tag concurrency limit; yields its API URL. Flows run against it for the session."""
    from flows.server import SERVER_SETTINGS

    saved = {k: os.environ.get(k) for k in SERVER_SETTINGS}
    os.environ.update(SERVER_SETTINGS)  # inherited by the harness's server subprocess
    try:
        import prefect.settings as ps
        from prefect.testing.utilities import prefect_test_harness

        from flows.audit import ensure_writer_limit

        with (
            prefect_test_harness(server_startup_timeout=90),
            ps.temporary_settings(updates={ps.PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}),
        ):
            ensure_writer_limit()
            yield str(ps.PREFECT_API_URL.value())
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def emulate_events(
    out: Path, tables: int, hours: float, seed: int, rates: Mapping[FaultKind, float]
) -> Path:
    """Write an emulated gaming day's Avro files under ``out/events/<date>/``, the fault
    manifest to ``out/faults.jsonl``; return ``out/events``."""
    result = simulate(tables, hours, seed, rates, GAMING_DATE, load_catalog())
    write_simulation(result, out, GAMING_DATE)
    return out / "events"


@pytest.fixture(scope="session")
def small_day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 tables, 2 hours, every fault kind at its default rate; returns the events dir."""
    return emulate_events(tmp_path_factory.mktemp("small-day"), 2, 2.0, 1, DEFAULT_RATES)


@pytest.fixture(scope="session")
def faulty_day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Like ``small_day`` with every Form faulted and more device faults, on a seed that
    reuses a Form serial (:func:`tests.emulated_days.faulty_seed`), so the quality suites
    fail; returns the events dir."""
    return emulate_events(
        tmp_path_factory.mktemp("faulty-day"), 2, 2.0, faulty_seed(), FAULTY_RATES
    )
