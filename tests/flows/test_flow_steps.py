"""The nightly audit's steps as plain functions (no Prefect server): the error taxonomy that
drives retries, the steps themselves on a small emulated day, and the retry condition."""

from __future__ import annotations

import subprocess
import sys
import uuid
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from flows import steps
from pipeline.config.catalog import CatalogError, gaming_day_of, load_catalog
from pipeline.ingest.errors import TerminalError, TransientError
from pipeline.ingest.sources import read_file
from pipeline.ledger.store import Delivery, Ledger, LedgerError
from pipeline.reports.groundtruth import compare

GAMING_DATE = date(2026, 11, 24)


def _ledger_error_from_lock() -> LedgerError:
    try:
        try:
            raise duckdb.IOException('Could not set lock on file "x.duckdb"')
        except duckdb.IOException as err:
            raise LedgerError("cannot open the ledger") from err
    except LedgerError as wrapped:
        return wrapped


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (duckdb.IOException("Could not set lock on file"), TransientError),
        (_ledger_error_from_lock(), TransientError),
        (TimeoutError("slow"), TransientError),
        (LedgerError("schema version 9 is newer than this program"), TerminalError),
        (CatalogError("[x] must state ['decks']"), TerminalError),
        (FileNotFoundError("no such file"), TerminalError),
        (ValueError("bad rate"), TerminalError),
        (RuntimeError("anything else"), TerminalError),
    ],
)
def test_errors_are_classified_transient_or_terminal(exc: Exception, kind: type) -> None:
    classified = steps.classify(exc)
    assert type(classified) is kind
    assert str(exc) in str(classified)


def test_kafka_errors_follow_kafka_pythons_retriable_flag() -> None:
    from kafka.errors import KafkaConfigurationError, KafkaTimeoutError

    assert isinstance(steps.classify(KafkaTimeoutError("Unable to bootstrap")), TransientError)
    assert isinstance(steps.classify(KafkaConfigurationError("bad config")), TerminalError)


def test_pipeline_errors_keep_their_class() -> None:
    transient, terminal = TransientError("locked"), TerminalError("bad bytes")
    assert steps.classify(transient) is transient
    assert steps.classify(terminal) is terminal
    with pytest.raises(TransientError) as raised, steps.classified():
        raise duckdb.IOException("Could not set lock on file")
    assert isinstance(raised.value.__cause__, duckdb.IOException)


def test_retry_condition_retries_transient_errors_only() -> None:
    from prefect.states import Completed, Failed

    from flows.audit import retry_transient

    def retried(state: Any) -> bool:
        return retry_transient(None, None, state)  # type: ignore[arg-type]

    assert retried(Failed(data=TransientError("the ledger is busy")))
    assert not retried(Failed(data=TerminalError("bad bytes")))
    assert not retried(Failed(data=ValueError("unclassified")))
    assert not retried(Completed(data=1))


def test_writer_tasks_are_guarded_and_retry_transient_errors() -> None:
    from prefect import Task

    from flows import audit

    writers: list[Task[Any, Any]] = [
        audit.ingest_files_task,
        audit.ingest_kafka_task,
        audit.replay_table_day_task,
        audit.close_day_task,
    ]
    readers: list[Task[Any, Any]] = [audit.list_tables_task, audit.quality_task]
    for t in writers + readers:
        assert t.retry_condition_fn is audit.retry_transient, t.name
        assert t.retries == audit.RETRIES, t.name
    assert all(audit.WRITER_TAG in t.tags for t in writers)
    assert not any(audit.WRITER_TAG in t.tags for t in readers)


def test_last_closed_gaming_date_turns_at_the_local_boundary() -> None:
    """06:00 in New York is 11:00 UTC in November (EST) and 10:00 UTC in July (EDT)."""
    day = gaming_day_of()
    assert day.describe() == "06:00 America/New_York"
    after = datetime(2026, 11, 25, 11, 0, 1, tzinfo=UTC)
    assert steps.last_closed_gaming_date(day, after) == date(2026, 11, 24)
    before = datetime(2026, 11, 25, 10, 59, tzinfo=UTC)
    assert steps.last_closed_gaming_date(day, before) == date(2026, 11, 23)
    summer = datetime(2026, 7, 2, 10, 0, 1, tzinfo=UTC)
    assert steps.last_closed_gaming_date(day, summer) == date(2026, 7, 1)


def test_event_paths_prefer_the_gaming_date_directory(small_day: Path) -> None:
    dated = steps.event_paths(small_day, GAMING_DATE)
    assert [p.name for p in dated] == ["T01.avro", "T02.avro"]
    assert steps.event_paths(small_day, date(2000, 1, 1)) == dated  # falls back to all files
    with pytest.raises(TerminalError):
        steps.event_paths(small_day / "missing", GAMING_DATE)


def test_to_replay_skips_what_ingest_replayed() -> None:
    ingested = [steps.IngestResult("T01.avro", table_days=[("T01", GAMING_DATE)])]
    assert steps.to_replay(["T01", "T02"], GAMING_DATE, ingested, False) == ["T02"]
    assert steps.to_replay(["T01", "T02"], GAMING_DATE, ingested, True) == ["T01", "T02"]


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with Ledger(db, read_only=True) as ledger:
        return ledger.con.execute(sql).fetchall()


def test_plain_audit_of_a_small_day(small_day: Path, tmp_path: Path) -> None:
    db = tmp_path / "ledger.duckdb"
    reports = tmp_path / "reports"
    events = sum(
        isinstance(i, Delivery) for p in steps.event_paths(small_day) for i in read_file(p)
    )

    first = steps.run_audit_plain(small_day, db, GAMING_DATE, reports)

    assert first.files == 2
    assert first.deliveries == events
    assert first.replayed == []  # ingest replayed both table-days already
    assert {p.name for p in first.close.files} == {
        f"close-2026-11-24{revision}.{suffix}"
        for revision in (".r1", "")  # the first close's revision, and the latest
        for suffix in ("json", "csv", "html", "xlsx")
    }
    assert all(p.exists() for p in first.close.files)
    assert first.quality.result_file == reports / "quality-2026-11-24.json"
    assert first.quality.docs_file == reports / "quality-2026-11-24.html"
    assert first.quality.evaluated > 60
    # the quality gate ran before the close; stream faults only warn, so the day closed
    assert first.quality.verdict in {"PASSED", "WARNINGS"}
    assert first.close.report["quality"]["verdict"] == first.quality.verdict
    assert set(first.seconds) == {"ingest", "replay", "patterns", "close", "quality"}
    # the pattern stage searched the day's shoes before the close
    assert first.patterns is not None and first.patterns.gaming_date == GAMING_DATE
    assert first.patterns.shoes_searched > 0
    with Ledger(db, read_only=True) as ledger:
        truth = compare(ledger, small_day.parent / "faults.jsonl")
    assert truth.exact, truth.summary()

    with pytest.raises(TerminalError, match="reopen it with a reason"):
        steps.run_audit_plain(small_day, db, GAMING_DATE, reports)
    again = steps.run_audit_plain(
        small_day, db, GAMING_DATE, reports, reopen_reason="test: close again"
    )

    assert all(i.table_days == [] for i in again.ingested)  # nothing new was loaded
    assert sorted(r.table_id for r in again.replayed) == ["T01", "T02"]
    assert again.close.report_sha256 == first.close.report_sha256
    # the reopen and the re-close are seal events of their own, each with its own link
    assert again.close.chain_sha256 != first.close.chain_sha256
    assert _rows(db, "SELECT action FROM seal_log ORDER BY seq") == [
        ("CLOSE",),
        ("REOPEN",),
        ("CLOSE",),
    ]
    assert _rows(db, "SELECT action, actor, reason FROM gaming_day_audit ORDER BY acted_at") == [
        ("CLOSE", "demo-controller", first.close.status),  # the roles file's scheduled_actor
        ("REOPEN", "demo-controller", "test: close again"),
        ("CLOSE", "demo-controller", again.close.status),
    ]
    # each close stored the validation it relied on with the day
    assert _rows(db, "SELECT gaming_date, verdict FROM quality_results") == [
        (GAMING_DATE, first.quality.verdict),
        (GAMING_DATE, again.quality.verdict),
    ]


def test_plain_audit_refuses_a_day_that_fails_a_block_expectation(
    faulty_day: Path, tmp_path: Path
) -> None:
    db = tmp_path / "ledger.duckdb"
    reports = tmp_path / "reports"

    with pytest.raises(TerminalError) as refused:
        steps.run_audit_plain(faulty_day, db, GAMING_DATE, reports)

    message = str(refused.value)
    assert "gaming day 2026-11-24 is not closed" in message
    assert "ledger.comp_vig_forms: a Form serial is used once per status" in message
    assert "--accept-quality-failures" in message
    assert _rows(db, "SELECT count(*) FROM gaming_days") == [(0,)]
    assert _rows(db, "SELECT verdict FROM quality_results") == [("BLOCKED",)]

    accepted = steps.run_audit_plain(
        faulty_day,
        db,
        GAMING_DATE,
        reports,
        accept_quality_failures="test: the reused serial was investigated",
    )

    assert accepted.quality.verdict == "BLOCKED"
    assert accepted.close.report["quality"]["accepted"].startswith("test: the reused serial")
    # one instant, the seal's: the acceptance and the close are one event
    assert [
        a for (a,) in _rows(db, "SELECT action FROM gaming_day_audit ORDER BY acted_at, action")
    ] == [
        "ACCEPT_QUALITY_FAILURES",
        "CLOSE",
    ]


def test_replaying_a_table_day_reproduces_its_rows(small_day: Path, tmp_path: Path) -> None:
    db = tmp_path / "ledger.duckdb"
    steps.load_files(db, steps.event_paths(small_day, GAMING_DATE))
    queries = [
        "SELECT * FROM rounds ORDER BY ALL",
        "SELECT * FROM settlements ORDER BY ALL",
        "SELECT * EXCLUDE (replayed_at) FROM table_day_summary ORDER BY ALL",
        "SELECT * FROM exceptions ORDER BY ALL",
    ]
    before = [_rows(db, q) for q in queries]

    counts = steps.replay_table_day(db, "T01", GAMING_DATE)

    assert counts.rounds > 0 and counts.events > counts.rounds
    assert [_rows(db, q) for q in queries] == before
    assert steps.gaming_day_tables(db, GAMING_DATE) == ["T01", "T02"]


def test_a_ledger_locked_by_another_process_is_transient(tmp_path: Path) -> None:
    db = tmp_path / "ledger.duckdb"
    with Ledger(db):
        pass
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time\n"
            f"con = duckdb.connect({str(db)!r})\n"
            "print('locked', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(TransientError, match="busy"):
            steps.replay_table_day(db, "T01", GAMING_DATE)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    steps.replay_table_day(db, "T01", GAMING_DATE)  # the lock is gone: the same call works


def test_a_bad_catalog_is_terminal(small_day: Path, tmp_path: Path) -> None:
    bad = tmp_path / "catalog.toml"
    bad.write_text("[broken]\ngame = 'PUNTO_BANCO'\n")
    with pytest.raises(CatalogError):
        load_catalog(bad)
    with pytest.raises(TerminalError, match="must state"):
        steps.load_files(tmp_path / "l.duckdb", steps.event_paths(small_day)[:1], bad)


@pytest.mark.broker
def test_kafka_ingest_consumes_a_topic_until_idle(kafka_broker: str, tmp_path: Path) -> None:
    from pipeline.simulate.faults import parse_faults
    from pipeline.simulate.run import simulate
    from pipeline.stream.producer import publish

    topic = f"table-events-{uuid.uuid4().hex[:8]}"
    day = simulate(2, 0.5, 4, parse_faults("none"), GAMING_DATE, load_catalog())
    sent = publish(day, kafka_broker, topic=topic)
    db = tmp_path / "ledger.duckdb"

    first = steps.ingest_kafka(db, kafka_broker, topic, "flows-test", until_idle=1.0, max_batch=100)
    again = steps.ingest_kafka(db, kafka_broker, topic, "flows-test", until_idle=1.0)

    assert first.deliveries == first.messages == sent
    assert first.batches >= 2
    assert sorted(first.table_days) == [("T01", GAMING_DATE), ("T02", GAMING_DATE)]
    assert sum(first.next_offsets.values()) == sent
    assert again.messages == 0  # resumed at the offsets stored in the ledger
    assert _rows(db, "SELECT count(*) FROM deliveries") == [(sent,)]
