"""Checks shared by the Kafka tests: the same ledger as the files give, every message
loaded exactly once, and a topic and group no other test uses."""

from __future__ import annotations

import uuid
from datetime import date
from pathlib import Path

from pipeline.cli import ingest_paths, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.ledger.store import Ledger
from pipeline.simulate.run import SimulationResult
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.verify import diff_ledgers, ledger_snapshot


def file_reference(day: SimulationResult, out: Path, gaming_date: date) -> Path:
    """The reference ledger: ``day`` written to Avro files under ``out`` and loaded like
    ``baccarat-audit ingest`` does."""
    paths = write_simulation(day, out, gaming_date)
    db = out / "ledger.duckdb"
    with Ledger(db) as ledger:
        ingest_paths(ledger, paths, DEFAULT_CATALOG)
    return db


def unique_settings(bootstrap: str) -> KafkaSettings:
    """Settings for a topic and group no other test uses."""
    suffix = uuid.uuid4().hex[:8]
    return KafkaSettings(
        bootstrap_servers=bootstrap,
        topic=f"table-events-{suffix}",
        exceptions_topic=f"audit-exceptions-{suffix}",
        group_id=f"auditors-{suffix}",
        client_id=f"test-{suffix}",
    )


def assert_same_ledger(streamed: Path, reference: Path) -> None:
    problems = diff_ledgers(ledger_snapshot(reference), ledger_snapshot(streamed))
    assert not problems, "\n".join(problems)


def assert_exactly_once(db: Path, settings: KafkaSettings, expected_events: int) -> None:
    """Every message loaded once, none skipped, the stored offsets just past the last one,
    and each table's events on one partition.

    (Checked against the ledger's own positions rather than the broker's end offsets:
    tansu 0.6 answers ListOffsets(latest) with the last *batch's* base offset + 1.)
    """
    with Ledger(db, read_only=True) as ledger:
        rows = ledger.con.execute(
            "SELECT count(*), count(DISTINCT (source, position)) FROM deliveries"
        ).fetchone()
        stored = ledger.stored_offsets(settings.group_id, settings.topic)
        partitions = ledger.con.execute(
            "SELECT split_part(source, ':', 3)::INTEGER, count(*), min(position), "
            "max(position) + 1 FROM deliveries GROUP BY 1"
        ).fetchall()
        per_table = ledger.con.execute(
            "SELECT table_id, count(DISTINCT source) FROM deliveries GROUP BY 1"
        ).fetchall()
    assert rows is not None and rows[0] == rows[1] == expected_events
    for partition, count, first, end in partitions:
        assert (first, end) == (0, count), f"partition {partition}: a gap or a duplicate"
        assert stored[partition] == end
    assert all(sources == 1 for _, sources in per_table), per_table
