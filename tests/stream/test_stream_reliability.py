"""Reliability of the stream path with real processes and the real tansu broker.

* the consumer process is killed with SIGKILL at random moments of a gaming day and
  restarted each time;
* the broker is frozen (SIGSTOP) for longer than the clients' request timeouts while a
  producer and a consumer are working, then resumed;
* tens of thousands of random or mutated messages are interleaved with a valid day.

In every case the final ledger must equal the file-loaded reference ledger of the same
valid events (:func:`pipeline.stream.verify.diff_ledgers`), with every message loaded once.
"""

from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import date
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka_checks import (
    assert_exactly_once,
    assert_same_ledger,
    file_reference,
    unique_settings,
)

from pipeline.events import EventCodec, default_codec
from pipeline.events.convert import to_record
from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import SimulationResult, simulate
from pipeline.stream.broker import _child_env, _wait_ready, free_port, tansu_command
from pipeline.stream.consumer import BatchReport, ConsumerReport, decode_records, run_consumer
from pipeline.stream.producer import EventPublisher
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics
from pipeline.stream.verify import diff_ledgers, ledger_snapshot

pytestmark = [pytest.mark.broker, pytest.mark.slow]

KILLS = int(os.environ.get("STREAM_KILLS", "6"))
"""Kills of the consumer process in the kill test: 6 by default (about 25 s here), each at a
random moment of a batch; ``STREAM_KILLS=20`` is the full trial (about 75 s)."""
FUZZ_MESSAGES = int(os.environ.get("STREAM_FUZZ_MESSAGES", "20000"))
"""Bad messages in the fuzz test: 20,000 by default; ``STREAM_FUZZ_MESSAGES=100000`` is the
full trial (about 40 s here since dead letters are stored in bulk)."""
SESSION_TIMEOUT_MS = 2000
HEARTBEAT_INTERVAL_MS = 500


GAMING_DATE = date(2026, 11, 24)  # as in tests/stream/conftest.py


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def two_hour_day(catalog: Mapping[str, TableRules]) -> SimulationResult:
    """3 tables for 2 hours with every kind of fault: about 9,000 events."""
    return simulate(3, 2, 11, parse_faults("all"), GAMING_DATE, catalog)


@pytest.fixture(scope="module")
def two_hour_reference(
    tmp_path_factory: pytest.TempPathFactory, two_hour_day: SimulationResult
) -> Path:
    """``two_hour_day`` written to Avro files and loaded like ``ingest`` does."""
    db: Path = file_reference(two_hour_day, tmp_path_factory.mktemp("files-2h"), GAMING_DATE)
    return db


@pytest.fixture
def own_broker() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A tansu broker of this test alone (it gets frozen), with its process."""
    port = free_port()
    cmd = tansu_command(port)
    with tempfile.TemporaryFile(prefix="tansu-") as log:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=_child_env(colour=False),
        )
        try:
            _wait_ready(proc, cmd, port, 20.0, log)
            yield f"127.0.0.1:{port}", proc
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def _publish(day: SimulationResult, settings: KafkaSettings) -> int:
    with EventPublisher(settings) as publisher:
        for events in day.events_by_table.values():
            publisher.send_many(events)
        publisher.flush()
        return publisher.sent


# --------------------------------------------------------------------------- 1. kill -9
WORKER = """
import sys
from pipeline.config.catalog import load_catalog
from pipeline.stream.consumer import run_consumer
from pipeline.stream.settings import KafkaSettings

bootstrap, topic, group, db = sys.argv[1:5]
settings = KafkaSettings(bootstrap_servers=bootstrap, topic=topic, group_id=group)

def on_batch(batch):
    print(f"batch {batch.number} {batch.events}", flush=True)

report = run_consumer(
    settings, db, load_catalog(), until_idle=3, max_batch=100, on_batch=on_batch,
    consumer_config={"session_timeout_ms": SESSION_MS, "heartbeat_interval_ms": HEARTBEAT_MS},
)
print(report.summary(), flush=True)
""".replace("SESSION_MS", str(SESSION_TIMEOUT_MS)).replace(
    "HEARTBEAT_MS", str(HEARTBEAT_INTERVAL_MS)
)


def _start_worker(settings: KafkaSettings, db: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BACCARAT_KAFKA_")}
    argv = [sys.executable, "-c", WORKER, settings.bootstrap_servers, settings.topic]
    argv += [settings.group_id, str(db)]
    return subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )


def test_consumer_killed_at_random_moments_resumes_exactly_once(
    kafka_broker: str,
    two_hour_day: SimulationResult,
    two_hour_reference: Path,
    tmp_path: Path,
) -> None:
    """SIGKILL the consumer process ``KILLS`` times at random moments, restart it each time,
    then let it run to idle: the ledger equals the file-loaded reference.

    The ledger keeps the resume offsets per (consumer group, topic, partition) and the
    consumer seeks to them on every assignment; a new group id would find no offsets and
    re-read the topic from the beginning. So every restart keeps the *same* group, as a real
    restarted worker would, and the restarted member waits for the broker to expire the
    killed one. To keep 20 restarts (the full trial) affordable the worker runs
    ``run_consumer`` (what ``baccarat-audit stream`` runs) with a 2 s session timeout instead
    of the CLI's 6 s:
    a restart then joins in about 3 s instead of about 12 s.

    Each kill comes a random 0-0.5 s after the restarted worker reported its first committed
    batch, so it lands anywhere in the batch cycle (polling, decoding, inside the DuckDB
    transaction, between the ledger commit and the Kafka commit) and every run makes
    progress.
    """
    settings = unique_settings(kafka_broker)
    sent = _publish(two_hour_day, settings)
    db = tmp_path / "killed.duckdb"
    rng = random.Random(20261124)
    kills = 0
    started = time.perf_counter()
    for _ in range(KILLS):
        worker = _start_worker(settings, db)
        try:
            assert worker.stdout is not None
            line = worker.stdout.readline()  # blocks until the first committed batch
            if not line.startswith("batch"):
                worker.wait(timeout=30)
                break  # finished the day before this kill: nothing left to interrupt
            time.sleep(rng.uniform(0.0, 0.5))
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=30)
            if worker.returncode == -signal.SIGKILL:
                kills += 1
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    worker = _start_worker(settings, db)
    out, _ = worker.communicate(timeout=120)
    assert worker.returncode == 0, out[-2000:]
    assert kills == KILLS, f"only {kills} kills landed before the day was done"
    assert_exactly_once(db, settings, sent)
    assert_same_ledger(db, two_hour_reference)
    print(f"{kills} kills of {sent} events in {time.perf_counter() - started:.1f} s; {out}")


# --------------------------------------------------------------------------- 2. SIGSTOP
class _CountingHandler(logging.Handler):
    """Counts kafka-python's warnings and errors (timeouts, retries, reconnects)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self.timeouts = 0
        self.samples: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        if "timed out" in record.getMessage().lower():
            self.timeouts += 1
        if len(self.samples) < 3:
            self.samples.append(record.getMessage()[:160])


def test_broker_frozen_longer_than_timeouts_loses_nothing(
    own_broker: tuple[str, subprocess.Popen[bytes]],
    small_day: SimulationResult,
    file_ledger: Path,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """The broker process is frozen with SIGSTOP for longer than the producer's and the
    consumer's request timeouts while both are working, then resumed: both retry with
    backoff, and nothing is lost or duplicated."""
    bootstrap, broker = own_broker
    settings = unique_settings(bootstrap)
    ensure_topics(settings)
    db = tmp_path / "frozen.duckdb"
    producer_timeout_ms, consumer_timeout_ms, frozen_seconds = 3000, 4000, 8.0
    stop = threading.Event()
    loaded: list[int] = []
    reports: list[ConsumerReport] = []
    failures: list[BaseException] = []

    def consume() -> None:
        def on_batch(batch: BatchReport) -> None:
            loaded.append(batch.events)

        try:
            reports.append(
                run_consumer(
                    settings, db, catalog, until_idle=None, max_batch=300, stop=stop,
                    on_batch=on_batch,
                    consumer_config={
                        "session_timeout_ms": SESSION_TIMEOUT_MS,
                        "heartbeat_interval_ms": HEARTBEAT_INTERVAL_MS,
                        "request_timeout_ms": consumer_timeout_ms,
                    },
                )
            )  # fmt: skip
        except BaseException as exc:  # surfaced by the assertions below
            failures.append(exc)

    events = [e for table in small_day.events_by_table.values() for e in table]
    publisher = EventPublisher(
        settings,
        create_topics=False,
        linger_ms=5,
        request_timeout_ms=producer_timeout_ms,
        delivery_timeout_ms=120_000,
        retry_backoff_ms=200,
    )
    publishing_done = threading.Event()

    def produce() -> None:
        try:
            # A first slice gets the consumer going (group joined, batches loading); the
            # rest is spread over about 4 s so that sends go on before, during and after
            # the freeze.
            publisher.send_many(events[:100])
            publisher.flush(timeout=30)
            for i, event in enumerate(events[100:]):
                publisher.send(event)
                if i % 100 == 99:
                    time.sleep(4.0 * 100 / len(events))
            publisher.flush(timeout=90)
        except BaseException as exc:
            failures.append(exc)
        finally:
            publishing_done.set()

    kafka_log = _CountingHandler()
    logging.getLogger("kafka").addHandler(kafka_log)
    consumer_thread = threading.Thread(target=consume, name="consumer")
    producer_thread = threading.Thread(target=produce, name="producer")
    consumer_thread.start()
    producer_thread.start()
    try:
        deadline = time.monotonic() + 20
        while not loaded and time.monotonic() < deadline and not failures:
            time.sleep(0.05)
        assert loaded, f"the consumer loaded nothing: {failures}"
        time.sleep(0.5)
        broker.send_signal(signal.SIGSTOP)
        at_stop = (publisher.sent, publisher.acknowledged, sum(loaded))
        time.sleep(frozen_seconds)
        at_cont = (publisher.sent, publisher.acknowledged, sum(loaded))
        broker.send_signal(signal.SIGCONT)
        assert frozen_seconds * 1000 > max(producer_timeout_ms, consumer_timeout_ms)
        producer_thread.join(timeout=120)
        assert publishing_done.is_set(), "the producer did not finish"
        deadline = time.monotonic() + 60
        while sum(loaded) < len(events) and time.monotonic() < deadline and not failures:
            time.sleep(0.1)
        time.sleep(1.0)  # anything extra (a duplicate) would show up now
    finally:
        broker.send_signal(signal.SIGCONT)
        stop.set()
        consumer_thread.join(timeout=60)
        publisher.close(timeout=10)
        logging.getLogger("kafka").removeHandler(kafka_log)
    # The freeze hit both mid-stream: sends went on while nothing was acknowledged or
    # loaded, and the rest of the day was still to come.
    assert 0 < at_stop[2] < len(events), at_stop
    assert at_cont[1] < at_cont[0], f"events awaiting acknowledgement at SIGCONT: {at_cont}"
    assert at_cont[2] < len(events), at_cont
    assert kafka_log.timeouts > 0, "no client request timed out during the freeze"
    assert not failures, failures
    assert publisher.sent == publisher.acknowledged == len(events)
    assert publisher.failed == 0
    assert reports and reports[0].events == len(events)
    assert_exactly_once(db, settings, len(events))
    assert_same_ledger(db, file_ledger)
    print(
        f"frozen {frozen_seconds:.0f} s at (sent, acked, loaded) {at_stop}, resumed at "
        f"{at_cont}; kafka client warnings {kafka_log.count} ({kafka_log.timeouts} request "
        f"timeouts); "
        f"{reports[0].retries} consumer retries, "
        f"{reports[0].rebalances} rebalances; {reports[0].summary()}"
    )


# --------------------------------------------------------------------------- 3. fuzz
def _zigzag(n: int) -> bytes:
    value = (n << 1) ^ (n >> 63)
    out = bytearray()
    while value & ~0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


class Fuzzer:
    """Random and mutated messages, each kept only if the consumer must reject it."""

    KINDS = (
        "random_bytes",
        "truncated",
        "bit_flip",
        "bad_magic",
        "unknown_schema",
        "negative_union_index",
        "negative_enum_index",
    )

    def __init__(self, codec: EventCodec, good: list[tuple[bytes, bytes]], seed: int) -> None:
        self.codec = codec
        self.good = good
        self.rng = random.Random(seed)
        self.prefix_lengths = [self._prefix_length(value) for _, value in good]
        self.table_opened = [
            i
            for i, (_, value) in enumerate(good)
            if value[5 + self.prefix_lengths[i]] == 0  # union index 0: TableOpened
        ]

    def _prefix_length(self, value: bytes) -> int:
        """Bytes of the five envelope fields before the payload union index."""
        pos = 5
        for _ in range(3):  # event_id, table_id, device_id: zigzag length + bytes
            length, pos = self._read_long(value, pos)
            pos += length
        for _ in range(2):  # seq, occurred_at
            _, pos = self._read_long(value, pos)
        return pos - 5

    @staticmethod
    def _read_long(data: bytes, pos: int) -> tuple[int, int]:
        shift = result = 0
        while True:
            byte = data[pos]
            pos += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return (result >> 1) ^ -(result & 1), pos

    def candidate(self) -> tuple[str, bytes, bytes]:
        rng = self.rng
        kind = rng.choice(self.KINDS)
        i = rng.randrange(len(self.good))
        key, value = self.good[i]
        if kind == "random_bytes":
            value = rng.randbytes(rng.randrange(0, 200))
        elif kind == "truncated":
            value = value[: rng.randrange(0, len(value))]
        elif kind == "bit_flip":
            data = bytearray(value)
            for _ in range(rng.randrange(1, 4)):
                bit = rng.randrange(len(data) * 8)
                data[bit // 8] ^= 1 << (bit % 8)
            value = bytes(data)
        elif kind == "bad_magic":
            value = bytes([rng.randrange(1, 256)]) + value[1:]
        elif kind == "unknown_schema":
            value = b"\x00" + rng.randrange(1000, 2**31).to_bytes(4, "big") + value[5:]
        elif kind == "negative_union_index":
            at = 5 + self.prefix_lengths[i]
            value = value[:at] + _zigzag(-rng.randrange(1, 40)) + value[at + 1 :]
        else:  # negative_enum_index: TableOpened's first field is the `game` enum
            i = rng.choice(self.table_opened)
            key, value = self.good[i]
            at = 5 + self.prefix_lengths[i] + 1
            value = value[:at] + _zigzag(-rng.randrange(1, 5)) + value[at + 1 :]
        return kind, key, value

    def rejected(self, key: bytes, value: bytes) -> bool:
        """Whether the consumer turns this message into a dead letter (a bit flip may
        produce another valid event, which is not a bad message)."""
        rec = SimpleNamespace(topic="t", partition=0, offset=0, key=key, value=value, headers=[])
        return bool(decode_records([rec], self.codec).dead_letters)


def _read_all(settings: KafkaSettings, topic: str, expected: int, timeout: float) -> list[Any]:
    consumer = KafkaConsumer(**settings.client_kwargs(), max_poll_records=10_000)
    try:
        numbers = consumer.partitions_for_topic(topic) or set()
        partitions = [TopicPartition(topic, p) for p in sorted(numbers)]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        records: list[Any] = []
        deadline = time.monotonic() + timeout
        while len(records) < expected and time.monotonic() < deadline:
            for batch in consumer.poll(timeout_ms=200).values():
                records.extend(batch)
        for batch in consumer.poll(timeout_ms=300).values():
            records.extend(batch)
    finally:
        consumer.close()
    return records


def test_fuzzed_messages_become_dead_letters_and_the_day_survives(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    file_ledger: Path,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """``FUZZ_MESSAGES`` random or mutated messages interleaved with a valid day: no crash,
    each one a dead letter (in the ledger, with a reason, and on the DLQ topic), and the
    valid events load as if nothing else were on the topic."""
    settings = stream_settings
    ensure_topics(settings)
    codec = default_codec()
    good = [
        (e.table_id.encode(), codec.encode(to_record(codec, e)))
        for events in small_day.events_by_table.values()
        for e in events
    ]
    fuzzer = Fuzzer(codec, good, seed=5)
    rng = random.Random(6)
    started = time.perf_counter()
    bad: list[tuple[str, bytes, bytes]] = []
    discarded = 0
    while len(bad) < FUZZ_MESSAGES:
        kind, key, value = fuzzer.candidate()
        if fuzzer.rejected(key, value):
            bad.append((kind, key, value))
        else:
            discarded += 1
    # Interleave: the valid messages keep their order; bad ones go anywhere between them.
    slots = sorted(rng.randrange(len(good) + 1) for _ in bad)
    messages: list[tuple[bytes, bytes]] = []
    b = 0
    for g, item in enumerate([*good, None]):
        while b < len(slots) and slots[b] == g:
            messages.append(bad[b][1:])
            b += 1
        if item is not None:
            messages.append(item)
    generated = time.perf_counter() - started

    producer = KafkaProducer(
        **settings.producer_kwargs(
            acks="all", enable_idempotence=True, linger_ms=50, batch_size=1024 * 1024
        )
    )
    try:
        for key, value in messages:
            producer.send(settings.topic, key=key, value=value)
        producer.flush(timeout=120)
    finally:
        producer.close()
    produced = time.perf_counter() - started - generated

    db = tmp_path / "fuzz.duckdb"
    report = run_consumer(settings, db, catalog, until_idle=3, max_batch=5000)
    consumed = time.perf_counter() - started - generated - produced

    assert report.events == len(good)
    assert report.dead_letters == len(bad)
    with Ledger(db, read_only=True) as ledger:
        letters = ledger.con.execute(
            "SELECT count(*), count(DISTINCT (source, position)), count(reason), "
            "count(*) FILTER (WHERE reason = '') FROM dead_letters"
        ).fetchone()
        raw = sorted(
            row[0] for row in ledger.con.execute("SELECT raw_bytes FROM dead_letters").fetchall()
        )
        reasons = dict(
            ledger.con.execute("SELECT reason, count(*) FROM dead_letters GROUP BY 1").fetchall()
        )
    assert letters == (len(bad), len(bad), len(bad), 0), letters
    assert raw == sorted(value for _, _, value in bad), "the dead letters keep the bytes"
    assert_exactly_once_with_dead_letters(db, settings, len(good), len(bad))

    reference = ledger_snapshot(file_ledger)
    streamed = ledger_snapshot(db)
    del reference["dead_letters"], streamed["dead_letters"]
    problems = diff_ledgers(reference, streamed)
    assert not problems, "\n".join(problems)

    dlq = _read_all(settings, settings.dlq_topic, len(bad), timeout=60)
    origins = {
        (dict(r.headers)["dlq.source.partition"], dict(r.headers)["dlq.source.offset"]) for r in dlq
    }
    assert len(dlq) == len(origins) == len(bad)
    assert sorted(r.value for r in dlq) == sorted(v for _, _, v in bad)
    print(
        f"{len(bad):,} bad messages ({discarded:,} mutations discarded as still valid) "
        f"with {len(good):,} valid: generated {generated:.1f} s, produced {produced:.1f} s, "
        f"consumed {consumed:.1f} s; reasons {reasons}; {report.summary()}"
    )


def assert_exactly_once_with_dead_letters(
    db: Path, settings: KafkaSettings, events: int, dead_letters: int
) -> None:
    """Every offset of every partition is either a delivery or a dead letter, exactly once,
    and the stored offsets are just past the last one."""
    with Ledger(db, read_only=True) as ledger:
        rows = ledger.con.execute(
            "SELECT split_part(source, ':', 3)::INTEGER, count(*), count(DISTINCT position), "
            "min(position), max(position) + 1 FROM ("
            "  SELECT source, position FROM deliveries"
            "  UNION ALL SELECT source, position FROM dead_letters"
            ") GROUP BY 1"
        ).fetchall()
        stored = ledger.stored_offsets(settings.group_id, settings.topic)
    assert sum(count for _, count, _, _, _ in rows) == events + dead_letters
    for partition, count, distinct, first, end in rows:
        assert count == distinct and (first, end) == (0, count), f"partition {partition}"
        assert stored[partition] == end
