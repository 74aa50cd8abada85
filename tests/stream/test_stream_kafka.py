"""Producer -> tansu -> consumer -> ledger, against the real bundled broker.

Every consumer run costs about 3 s of group join (tansu holds a group's join for
session_timeout_ms / 2), so the tests keep runs few and simulations small.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer
from kafka_checks import assert_exactly_once, assert_same_ledger

from pipeline.events import default_codec
from pipeline.events.convert import to_record
from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.simulate.run import SimulationResult
from pipeline.stream.cli import main as stream_main
from pipeline.stream.consumer import ConsumerReport, FaultPoint, run_consumer
from pipeline.stream.producer import EventPublisher, publish
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics, partitions_for

ReadTopic = Callable[[KafkaSettings, str, int], list[Any]]
"""The ``read_topic`` fixture (tests/stream/conftest.py)."""

pytestmark = pytest.mark.broker

IDLE = 1.0


class SimulatedCrash(Exception):
    """Raised by a fault hook: the consumer dies at that point."""


def crash_at(point: str, batch: int) -> Any:
    def hook(where: str, number: int) -> None:
        if where == point and number == batch:
            raise SimulatedCrash(f"{where} of batch {number}")

    return hook


def test_cli_streams_a_day_into_the_same_ledger_as_files(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    file_ledger: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = stream_settings
    started = time.perf_counter()
    sent = publish(small_day, settings.bootstrap_servers, topic=settings.topic)
    produce_seconds = time.perf_counter() - started
    assert sent == small_day.event_count
    assert partitions_for(settings) == 6, "the topic is created with 6 partitions"
    assert partitions_for(settings, settings.dlq_topic) == 6

    db = tmp_path / "stream.duckdb"
    argv = ["stream", "--bootstrap", settings.bootstrap_servers, "--db", str(db)]
    argv += ["--topic", settings.topic, "--group", settings.group_id]
    argv += ["--until-idle", str(IDLE), "--max-batch", "1000"]
    assert stream_main(argv) == 0
    out = capsys.readouterr().out
    assert f"consumed {sent:,} messages from {settings.topic}" in out
    assert f"{sent:,} events loaded, 0 dead letters" in out
    assert "3 table-days" in out
    assert_same_ledger(db, file_ledger)
    assert_exactly_once(db, settings, sent)
    print(f"produced {sent} events at {sent / produce_seconds:,.0f} events/s\n{out}")


def test_bad_messages_go_to_the_dlq_and_dead_letters(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
    read_topic: ReadTopic,
) -> None:
    settings = stream_settings
    ensure_topics(settings, partitions=2)
    codec = default_codec()
    events = small_day.events_by_table["T01"]
    good = [codec.encode(to_record(codec, e)) for e in events]
    bad = {
        b"BAD_MAGIC": b"\x7bnot an event}",
        b"UNKNOWN_SCHEMA_ID": b"\x00\x00\x00\x27\x0f" + good[1][5:],
        b"TRUNCATED": good[1][:-4],
        b"KEY_MISMATCH": good[1],
    }
    producer = KafkaProducer(**settings.producer_kwargs(acks="all"))
    try:
        producer.send(settings.topic, key=b"T01", value=good[0], partition=0)
        for reason, value in bad.items():
            key = b"T99" if reason == b"KEY_MISMATCH" else b"T01"
            producer.send(
                settings.topic, key=key, value=value, partition=0, headers=[("why", reason)]
            )
        for value in good[1:]:
            producer.send(settings.topic, key=b"T01", value=value, partition=0)
        producer.flush()
    finally:
        producer.close()

    db = tmp_path / "dlq.duckdb"
    report = run_consumer(settings, db, catalog, until_idle=IDLE, max_batch=500)

    assert report.events == len(events)
    assert report.dead_letters == len(bad)
    with Ledger(db, read_only=True) as ledger:
        letters = ledger.con.execute(
            "SELECT source, position, reason, raw_bytes, detail FROM dead_letters ORDER BY 2"
        ).fetchall()
        loaded = ledger.con.execute("SELECT count(*) FROM deliveries").fetchone()
        stored = ledger.stored_offsets(settings.group_id, settings.topic)
    assert loaded == (len(events),)
    assert [(s, p, r) for s, p, r, _, _ in letters] == [
        (f"kafka:{settings.topic}:0", offset, reason.decode())
        for offset, reason in enumerate(bad, start=1)
    ]
    assert [raw for _, _, _, raw, _ in letters] == list(bad.values())
    assert "T99" in letters[-1][4]
    assert stored == {0: len(events) + len(bad)}

    dlq = read_topic(settings, settings.dlq_topic, len(bad))
    assert len(dlq) == len(bad)
    for record, (reason, value) in zip(
        sorted(dlq, key=lambda r: int(dict(r.headers)["dlq.source.offset"])),
        bad.items(),
        strict=True,
    ):
        headers = dict(record.headers)
        assert record.value == value
        assert headers["dlq.reason"] == reason
        assert headers["dlq.source.topic"] == settings.topic.encode()
        assert headers["dlq.source.partition"] == b"0"
        assert headers["dlq.original.why"] == reason
        assert headers["dlq.consumer.group"] == settings.group_id.encode()


def test_crash_at_any_point_then_restart_is_exactly_once(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    file_ledger: Path,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    settings = stream_settings
    sent = publish(small_day, settings.bootstrap_servers, topic=settings.topic)
    db = tmp_path / "crash.duckdb"

    def run(**kwargs: Any) -> ConsumerReport:
        return run_consumer(settings, db, catalog, until_idle=IDLE, max_batch=400, **kwargs)

    def stored_events() -> int:
        with Ledger(db, read_only=True) as ledger:
            row = ledger.con.execute("SELECT count(*) FROM deliveries").fetchone()
        return int(row[0]) if row else 0

    # 1. Dies inside the ledger transaction of its 3rd batch: batches 1-2 stay, 3 rolls back.
    batches: list[int] = []
    with pytest.raises(SimulatedCrash):
        run(
            fault_hook=crash_at(FaultPoint.BEFORE_COMMIT, 3),
            on_batch=lambda b: batches.append(b.events),
        )
    assert stored_events() == sum(batches) > 0

    # 2. Dies after the ledger commit of its 2nd batch, before telling Kafka: the ledger is
    #    now ahead of the group's Kafka offsets, and it is what the restart must follow.
    before = stored_events()
    with pytest.raises(SimulatedCrash):
        run(fault_hook=crash_at(FaultPoint.COMMITTED, 2))
    committed = stored_events()
    assert committed > before

    # 3. A clean restart reads exactly the rest: nothing again, nothing skipped.
    report = run()
    assert report.events == sent - committed
    assert_exactly_once(db, settings, sent)
    assert_same_ledger(db, file_ledger)


@pytest.mark.slow
def test_killed_process_resumes_exactly_once(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    file_ledger: Path,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """A real crash: the worker process is killed (os._exit) inside its DuckDB transaction,
    and the group's broker-side membership is left to time out."""
    settings = stream_settings
    sent = publish(small_day, settings.bootstrap_servers, topic=settings.topic)
    db = tmp_path / "killed.duckdb"
    worker = f"""
import os
from pipeline.config.catalog import load_catalog
from pipeline.stream.consumer import FaultPoint, run_consumer
from pipeline.stream.settings import KafkaSettings

def die(point, batch):
    if point == FaultPoint.BEFORE_COMMIT and batch == 2:
        os._exit(137)

settings = KafkaSettings(
    bootstrap_servers={settings.bootstrap_servers!r},
    topic={settings.topic!r},
    group_id={settings.group_id!r},
)
run_consumer(settings, {str(db)!r}, load_catalog(), until_idle=10, max_batch=500,
             fault_hook=die)
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BACCARAT_KAFKA_")}
    killed = subprocess.run(
        [sys.executable, "-c", worker], env=env, capture_output=True, text=True, timeout=60
    )
    assert killed.returncode == 137, killed.stderr[-2000:]
    with Ledger(db, read_only=True) as ledger:
        first = ledger.con.execute("SELECT count(*) FROM deliveries").fetchone()
        stored = ledger.stored_offsets(settings.group_id, settings.topic)
    assert first is not None and 0 < first[0] <= 500
    assert sum(stored.values()) == first[0], "the offsets match the rows that survived"

    report = run_consumer(settings, db, catalog, until_idle=IDLE, max_batch=500)
    assert report.events == sent - first[0]
    assert_exactly_once(db, settings, sent)
    assert_same_ledger(db, file_ledger)
    print(f"restart after a killed member: group join {report.join_seconds:.1f} s")


def test_two_consumers_split_the_partitions(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    file_ledger: Path,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """Scale-out: two workers in one group share the ledger file (each its own connection);
    each table's events go through exactly one of them."""
    settings = stream_settings
    sent = publish(small_day, settings.bootstrap_servers, topic=settings.topic)
    db = tmp_path / "shared.duckdb"
    Ledger(db).close()  # migrate once, before the workers race for it
    reports: dict[str, ConsumerReport] = {}
    failures: list[BaseException] = []

    def worker(name: str) -> None:
        try:
            reports[name] = run_consumer(settings, db, catalog, until_idle=1.5, max_batch=300)
        except BaseException as exc:  # surfaced by the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(n,), name=n) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    a, b = reports["a"], reports["b"]
    assert a.events > 0 and b.events > 0, "both workers got partitions"
    assert a.events + b.events >= sent
    assert a.table_days.isdisjoint(b.table_days) or a.events + b.events > sent
    assert_exactly_once(db, settings, sent)
    assert_same_ledger(db, file_ledger)


def test_publisher_for_a_gateway(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    read_topic: ReadTopic,
) -> None:
    settings = stream_settings.with_overrides(partitions=3)
    events = small_day.events_by_table["T02"][:50]
    codec = default_codec()
    with EventPublisher(settings, linger_ms=0) as publisher:
        for event in events[:25]:
            publisher.send(event)
        for event in events[25:]:
            publisher.send_record(to_record(codec, event))
    assert publisher.acknowledged == 50 and publisher.failed == 0
    records = read_topic(settings, settings.topic, 50)
    assert {r.partition for r in records} == {records[0].partition}, "one table, one partition"
    assert [r.key for r in records] == [b"T02"] * 50
    assert [codec.decode(r.value)["seq"] for r in records] == [e.seq for e in events]
    assert partitions_for(settings) == 3
