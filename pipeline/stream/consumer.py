"""Consume table events from Kafka into the ledger with exactly-once effects.

How a batch goes through
------------------------
1. Poll up to ``max_batch`` records (a few polls within ``batch_wait`` seconds).
2. Decode each value with :meth:`EventCodec.decode`. A record that cannot be decoded, has no
   value, or breaks the contract (its key must be its event's ``table_id``, which is what
   keeps a table on one partition and in order) becomes a dead letter: sent to the
   dead-letter topic with its original key and bytes and ``dlq.*`` headers, and waited for.
3. One :func:`~pipeline.ingest.stage.load_batch` call stores the deliveries (keyed
   ``kafka:<topic>:<partition>`` and offset), the dead letters, the replayed table-days
   *and the next offsets of the batch*, in one DuckDB transaction.
4. The offsets are then also committed to Kafka, best effort, for lag monitoring only.

Why nothing is lost or counted twice
------------------------------------
The ledger, not Kafka, is the source of truth for where to resume: on every assignment the
rebalance listener seeks each partition to the offset stored in the ledger (or to the
beginning when the ledger has none). Since the offsets commit with the rows they produced,
a crash before the commit resumes at the batch's start and the rows were never written; a
crash after it resumes after the batch. And deliveries are keyed by (source, offset), so
even a batch processed twice (a partition moving between workers mid-batch) inserts nothing
the second time. Stored offsets only move forward.

The dead-letter *topic* is at-least-once: a crash between sending a dead letter and the
ledger commit sends it again on restart; consumers of the DLQ can de-duplicate on the
``dlq.source.*`` headers. The ledger's ``dead_letters`` table is exactly-once.

Errors
------
Broker timeouts, unreachable brokers, leader elections, ledger write conflicts and locks
are :class:`~pipeline.ingest.errors.TransientError`: retried with exponential backoff
(:mod:`pipeline.stream.retry`), then raised. Bad messages are terminal and become dead
letters; the consumer carries on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from datetime import time as day_time
from pathlib import Path
from typing import Any

from kafka import (
    ConsumerRebalanceListener,
    KafkaConsumer,
    KafkaProducer,
    OffsetAndMetadata,
    TopicPartition,
)

from pipeline.events import EventCodec, EventDecodeError, default_codec
from pipeline.events.convert import from_record
from pipeline.ingest.sources import DeadLetter
from pipeline.ingest.stage import DEFAULT_DAY_STARTS, LoadReport, load_batch
from pipeline.ledger.store import Delivery, Ledger
from pipeline.rules.config import TableRules
from pipeline.stream.retry import Backoff, retry_transient
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics

log = logging.getLogger(__name__)

SESSION_TIMEOUT_MS = 6000
HEARTBEAT_INTERVAL_MS = 2000
"""A third of the session timeout, as Kafka recommends; heartbeats run on kafka-python's
IO thread, so a long batch does not cost the group membership."""
MAX_POLL_INTERVAL_MS = 300_000
POLL_TIMEOUT_MS = 500
DETAIL_HEADER_LIMIT = 2000

# Dead-letter reasons besides the codec's DecodeReason values.
REASON_NO_VALUE = "NO_VALUE"
REASON_KEY_MISMATCH = "KEY_MISMATCH"
REASON_INVALID_EVENT = "INVALID_EVENT"


class FaultPoint:
    """Where :func:`run_consumer` calls its ``fault_hook`` in each batch (for crash tests)."""

    POLLED = "polled"
    """The batch is assembled; nothing has been sent or written."""
    DEAD_LETTERS_SENT = "dead_letters_sent"
    """The batch's dead letters are acknowledged by the DLQ topic; the ledger is untouched."""
    BEFORE_COMMIT = "before_commit"
    """Inside the ledger transaction: rows and offsets written, not committed."""
    COMMITTED = "committed"
    """The ledger transaction is committed; Kafka has not been told."""
    KAFKA_COMMITTED = "kafka_committed"
    """The offsets were also sent to Kafka (best effort); the batch is done."""

    ALL = (POLLED, DEAD_LETTERS_SENT, BEFORE_COMMIT, COMMITTED, KAFKA_COMMITTED)


FaultHook = Callable[[str, int], None]
"""Called as ``hook(point, batch_number)``; raise (or ``os._exit``) to simulate a crash."""


@dataclass(frozen=True)
class BatchReport:
    """One committed batch, as passed to ``on_batch``."""

    number: int
    messages: int
    events: int
    dead_letters: int
    next_offsets: dict[int, int]
    table_days: list[tuple[str, date]]
    exceptions: int
    seconds: float


@dataclass
class ConsumerReport:
    """What :func:`run_consumer` did, in numbers."""

    group: str = ""
    topic: str = ""
    messages: int = 0
    events: int = 0
    dead_letters: int = 0
    batches: int = 0
    table_days_replayed: int = 0
    """Table-day replays (a table-day touched by three batches counts three times)."""
    table_days: set[tuple[str, date]] = field(default_factory=set)
    """Distinct table-days touched."""
    exceptions: int = 0
    """Findings of the last replay of each touched table-day."""
    retries: int = 0
    rebalances: int = 0
    """Assignments after the first (another worker joined or left, or partitions moved)."""
    join_seconds: float | None = None
    """From subscribing to the first partition assignment."""
    partitions: list[int] = field(default_factory=list)
    """The partitions assigned last."""
    next_offsets: dict[int, int] = field(default_factory=dict)
    """The offsets stored in the ledger by this run, per partition."""
    elapsed: float = 0.0
    """Wall time of the whole run, group join and idle wait included."""
    busy_seconds: float = 0.0
    """Time spent on batches: fetching, decoding, dead letters, ledger load and replay,
    commits (waiting for the group or for new messages excluded)."""
    stopped: str = ""
    """Why the loop ended: ``idle``, ``stop requested`` or ``max batches``."""
    _exceptions_by_day: dict[tuple[str, date], int] = field(default_factory=dict, repr=False)

    @property
    def events_per_second(self) -> float:
        """Events loaded per second of batch work (joins and idle waits excluded)."""
        return self.events / self.busy_seconds if self.busy_seconds > 0 else 0.0

    def summary(self) -> str:
        join = f"{self.join_seconds:.1f} s" if self.join_seconds is not None else "never"
        return (
            f"consumed {self.messages:,} messages from {self.topic} (group {self.group}, "
            f"partitions {self.partitions or '-'}) in {self.batches:,} batches: "
            f"{self.events:,} events loaded, {self.dead_letters:,} dead letters, "
            f"{self.table_days_replayed:,} table-day replays of {len(self.table_days):,} "
            f"table-days, {self.exceptions:,} exceptions; {self.busy_seconds:.1f} s of work "
            f"({self.events_per_second:,.0f} events/s) in {self.elapsed:.1f} s, group join {join}, "
            f"{self.retries} retries, {self.rebalances} rebalances; stopped: {self.stopped}"
        )


class _Decoded:
    """A batch split into deliveries and dead letters, with the offsets to store."""

    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []
        self.dead_letters: list[DeadLetter] = []
        self.dead_records: list[Any] = []
        self.next_offsets: dict[int, int] = {}


def decode_records(records: Sequence[Any], codec: EventCodec) -> _Decoded:
    """Deliveries and dead letters for polled ``ConsumerRecord`` s (duplicates dropped)."""
    out = _Decoded()
    seen: set[tuple[int, int]] = set()
    for rec in records:
        if (rec.partition, rec.offset) in seen:
            continue
        seen.add((rec.partition, rec.offset))
        out.next_offsets[rec.partition] = max(
            out.next_offsets.get(rec.partition, 0), rec.offset + 1
        )
        source = f"kafka:{rec.topic}:{rec.partition}"
        letter = _classify(rec, source, codec, out)
        if letter is not None:
            out.dead_letters.append(letter)
            out.dead_records.append(rec)
    return out


def _classify(rec: Any, source: str, codec: EventCodec, out: _Decoded) -> DeadLetter | None:
    """Append the record's delivery to ``out``, or return its dead letter."""
    value = rec.value
    if value is None:
        return DeadLetter(
            source, rec.offset, REASON_NO_VALUE, "the record has no value (a tombstone)"
        )
    try:
        record = codec.decode(value, source=source, offset=rec.offset)
    except EventDecodeError as err:
        return DeadLetter(
            source, rec.offset, err.reason.value, str(err), err.device_id, bytes(value)
        )
    try:
        event = from_record(record)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        return DeadLetter(
            source,
            rec.offset,
            REASON_INVALID_EVENT,
            f"decoded but not a table event: {type(err).__name__}: {err}",
            str(record.get("device_id")) if isinstance(record, Mapping) else None,
            bytes(value),
        )
    key = rec.key
    expected = event.table_id.encode("utf-8")
    if key != expected:
        return DeadLetter(
            source,
            rec.offset,
            REASON_KEY_MISMATCH,
            f"the record key {key!r} is not the event's table_id {event.table_id!r}: a "
            "table's events must share its key to stay on one partition, in order. Fix the "
            f"producer's key (event {event.event_id}, seq {event.seq}).",
            event.device_id,
            bytes(value),
        )
    out.deliveries.append(Delivery(source, rec.offset, event))
    return None


def dlq_headers(rec: Any, letter: DeadLetter, group: str) -> list[tuple[str, bytes]]:
    """Headers of a dead-letter message: where it came from and why it was rejected."""
    headers = [
        ("dlq.source.topic", str(rec.topic).encode()),
        ("dlq.source.partition", str(rec.partition).encode()),
        ("dlq.source.offset", str(rec.offset).encode()),
        ("dlq.reason", letter.reason.encode()),
        ("dlq.detail", letter.detail[:DETAIL_HEADER_LIMIT].encode("utf-8", "replace")),
        ("dlq.consumer.group", group.encode()),
    ]
    if letter.device_id:
        headers.append(("dlq.device_id", letter.device_id.encode("utf-8", "replace")))
    return headers + [(f"dlq.original.{k}", v) for k, v in (rec.headers or [])]


class LedgerSeekListener(ConsumerRebalanceListener):  # type: ignore[misc]
    """On every assignment, seek each partition to the offset stored in the ledger.

    Reads through its own DuckDB cursor: the listener runs on kafka-python's IO thread.
    Partitions the ledger has no offset for start at the beginning of the log, whatever
    the group's Kafka-side committed offset says (the ledger may be new).
    """

    def __init__(self, consumer: KafkaConsumer, ledger: Ledger, group: str, topic: str) -> None:
        self.consumer = consumer
        self.group = group
        self.topic = topic
        self._cursor = ledger.con.cursor()
        self.assigned: list[TopicPartition] = []
        self.generation = 0
        self.first_assigned_at: float | None = None

    def stored_offsets(self) -> dict[int, int]:
        rows = self._cursor.execute(
            "SELECT partition, next_offset FROM consumer_offsets "
            "WHERE consumer_group = ? AND topic = ?",
            [self.group, self.topic],
        ).fetchall()
        return {int(p): int(o) for p, o in rows}

    def on_partitions_revoked(self, revoked: Any) -> None:
        # Nothing to save: every processed batch's offsets are already in the ledger.
        log.info("partitions revoked: %s", sorted(tp.partition for tp in revoked))

    def on_partitions_assigned(self, assigned: Any) -> None:
        stored = self.stored_offsets()
        fresh = []
        for tp in assigned:
            offset = stored.get(tp.partition)
            if offset is None:
                fresh.append(tp)
            else:
                self.consumer.seek(tp, offset)
        if fresh:
            self.consumer.seek_to_beginning(*fresh)
        self.assigned = sorted(assigned, key=lambda tp: tp.partition)
        self.generation += 1
        if self.first_assigned_at is None:
            self.first_assigned_at = time.monotonic()
        log.info(
            "partitions assigned: %s (resuming at %s from the ledger)",
            [tp.partition for tp in self.assigned],
            {tp.partition: stored.get(tp.partition, "beginning") for tp in self.assigned},
        )

    def close(self) -> None:
        self._cursor.close()


def run_consumer(
    settings: KafkaSettings,
    ledger_path: Path | str,
    catalog: Mapping[str, TableRules],
    *,
    until_idle: float | None,
    max_batch: int = 5000,
    on_batch: Callable[[BatchReport], None] | None = None,
    fault_hook: FaultHook | None = None,
    stop: threading.Event | None = None,
    max_batches: int | None = None,
    batch_wait: float = 0.2,
    join_timeout: float = 60.0,
    commit_to_kafka: bool = True,
    create_topics: bool = True,
    day_starts: day_time = DEFAULT_DAY_STARTS,
    codec: EventCodec | None = None,
    backoff: Backoff | None = None,
    consumer_config: Mapping[str, Any] | None = None,
) -> ConsumerReport:
    """Consume ``settings.topic`` in group ``settings.group_id`` into the ledger file.

    ``until_idle``: return after that many seconds without a new message (counted from the
    first partition assignment, so the group join does not count; ``join_timeout`` bounds
    the wait for it). ``None``: run until ``stop`` is set (or KeyboardInterrupt).
    ``max_batch``: most records per ledger transaction. ``on_batch`` is called after each
    committed batch; ``fault_hook`` at each :class:`FaultPoint` (tests). ``max_batches``
    stops after that many batches.
    """
    if max_batch < 1:
        raise ValueError("max_batch must be at least 1")
    settings = settings.validate()
    codec = codec or default_codec()
    retry_policy = backoff or Backoff()
    group, topic = settings.group_id, settings.topic
    report = ConsumerReport(group=group, topic=topic)
    started = time.monotonic()

    def note_retry(_exc: BaseException, _delay: float) -> None:
        report.retries += 1

    def retrying(operation: Callable[[], Any], what: str) -> Any:
        return retry_transient(operation, what=what, backoff=retry_policy, on_retry=note_retry)

    if create_topics:
        retrying(
            lambda: ensure_topics(settings), f"creating topics on {settings.bootstrap_servers}"
        )
    ledger: Ledger = retrying(lambda: Ledger(ledger_path), f"opening the ledger {ledger_path}")
    consumer: KafkaConsumer | None = None
    listener: LedgerSeekListener | None = None
    dlq = _DeadLetterSender(settings, retrying)
    try:
        tuning: dict[str, Any] = {
            "enable_auto_commit": False,
            "auto_offset_reset": "earliest",
            "session_timeout_ms": SESSION_TIMEOUT_MS,
            "heartbeat_interval_ms": HEARTBEAT_INTERVAL_MS,
            "max_poll_interval_ms": MAX_POLL_INTERVAL_MS,
            "max_poll_records": max_batch,
            **(consumer_config or {}),
        }
        consumer = retrying(
            lambda: KafkaConsumer(**settings.consumer_kwargs(**tuning)),
            f"connecting to {settings.bootstrap_servers}",
        )
        listener = LedgerSeekListener(consumer, ledger, group, topic)
        subscribed_at = time.monotonic()
        consumer.subscribe([topic], listener=listener)
        last_activity: float | None = None
        generation = 0
        while not (stop is not None and stop.is_set()):
            polled_at = time.monotonic()
            records = _poll_batch(consumer, max_batch, batch_wait, retrying, listener)
            now = time.monotonic()
            if listener.generation != generation:
                report.rebalances += 1 if generation else 0
                generation = listener.generation
                report.partitions = [tp.partition for tp in listener.assigned]
                last_activity = now
                if report.join_seconds is None and listener.first_assigned_at is not None:
                    report.join_seconds = listener.first_assigned_at - subscribed_at
            if records:
                _process_batch(
                    records, codec, ledger, catalog, settings, dlq, consumer, report,
                    polled_at=polled_at,
                    day_starts=day_starts,
                    on_batch=on_batch,
                    fault_hook=fault_hook,
                    commit_to_kafka=commit_to_kafka,
                    retrying=retrying,
                )  # fmt: skip
                last_activity = time.monotonic()
                if max_batches is not None and report.batches >= max_batches:
                    report.stopped = "max batches"
                    break
                continue
            if until_idle is not None:
                if last_activity is None:
                    if now - subscribed_at > join_timeout + until_idle:
                        report.stopped = f"no partitions assigned within {join_timeout:.0f} s"
                        break
                elif now - last_activity >= until_idle:
                    report.stopped = f"idle for {until_idle:g} s"
                    break
        else:
            report.stopped = "stop requested"
        if commit_to_kafka and report.next_offsets:
            _commit_to_kafka(consumer, topic, report.next_offsets, sync=True)
    except KeyboardInterrupt:
        report.stopped = "interrupted"
    finally:
        report.elapsed = time.monotonic() - started
        try:
            if consumer is not None:
                consumer.close(autocommit=False)
        finally:
            dlq.close()
            if listener is not None:
                listener.close()
            ledger.close()
    return report


def _poll_batch(
    consumer: KafkaConsumer,
    max_batch: int,
    batch_wait: float,
    retrying: Callable[[Callable[[], Any], str], Any],
    listener: LedgerSeekListener,
) -> list[Any]:
    """Up to ``max_batch`` records: one poll, then more for up to ``batch_wait`` seconds
    while records keep coming (a catching-up consumer fills big batches, a live one does
    not wait long). Stops early at a rebalance, which may rewind positions."""

    def poll(timeout_ms: int, max_records: int) -> Any:
        return retrying(
            lambda: consumer.poll(timeout_ms=timeout_ms, max_records=max_records),
            "polling the broker",
        )

    generation = listener.generation
    records: list[Any] = []
    for batch in poll(POLL_TIMEOUT_MS, max_batch).values():
        records.extend(batch)
    if not records:
        return records
    deadline = time.monotonic() + batch_wait
    while len(records) < max_batch and listener.generation == generation:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        more = poll(max(1, int(remaining * 1000)), max_batch - len(records))
        if not more:
            break
        for batch in more.values():
            records.extend(batch)
    return records


def _process_batch(
    records: list[Any],
    codec: EventCodec,
    ledger: Ledger,
    catalog: Mapping[str, TableRules],
    settings: KafkaSettings,
    dlq: _DeadLetterSender,
    consumer: KafkaConsumer,
    report: ConsumerReport,
    *,
    polled_at: float,
    day_starts: day_time,
    on_batch: Callable[[BatchReport], None] | None,
    fault_hook: FaultHook | None,
    commit_to_kafka: bool,
    retrying: Callable[[Callable[[], Any], str], Any],
) -> None:
    started = polled_at
    number = report.batches + 1
    group, topic = settings.group_id, settings.topic

    def fault(point: str) -> None:
        if fault_hook is not None:
            fault_hook(point, number)

    decoded = decode_records(records, codec)
    fault(FaultPoint.POLLED)
    if decoded.dead_letters:
        dlq.send(decoded.dead_records, decoded.dead_letters, group)
    fault(FaultPoint.DEAD_LETTERS_SENT)

    def store_offsets(tx: Ledger) -> None:
        current = tx.stored_offsets(group, topic)
        forward = {p: o for p, o in decoded.next_offsets.items() if o > current.get(p, -1)}
        tx.store_offsets(group, topic, forward)
        fault(FaultPoint.BEFORE_COMMIT)

    loaded: LoadReport = retrying(
        lambda: load_batch(
            ledger,
            decoded.deliveries,
            decoded.dead_letters,
            catalog,
            day_starts=day_starts,
            in_same_transaction=store_offsets,
        ),
        "loading a batch into the ledger",
    )
    fault(FaultPoint.COMMITTED)
    if commit_to_kafka:
        _commit_to_kafka(consumer, topic, decoded.next_offsets, sync=False)
    fault(FaultPoint.KAFKA_COMMITTED)

    report.batches = number
    report.busy_seconds += time.monotonic() - started
    report.messages += len(decoded.deliveries) + len(decoded.dead_letters)
    report.events += len(decoded.deliveries)
    report.dead_letters += len(decoded.dead_letters)
    report.table_days_replayed += len(loaded.table_days)
    report.table_days.update(loaded.table_days)
    for partition, offset in decoded.next_offsets.items():
        report.next_offsets[partition] = max(report.next_offsets.get(partition, 0), offset)
    exceptions_by_day = report._exceptions_by_day
    if loaded.table_days:
        day_counts = _exceptions_per_day(ledger, loaded.table_days)
        exceptions_by_day.update(day_counts)
    report.exceptions = sum(exceptions_by_day.values())
    if on_batch is not None:
        on_batch(
            BatchReport(
                number=number,
                messages=len(decoded.deliveries) + len(decoded.dead_letters),
                events=len(decoded.deliveries),
                dead_letters=len(decoded.dead_letters),
                next_offsets=dict(decoded.next_offsets),
                table_days=list(loaded.table_days),
                exceptions=loaded.exceptions,
                seconds=time.monotonic() - started,
            )
        )


def _exceptions_per_day(
    ledger: Ledger, table_days: list[tuple[str, date]]
) -> dict[tuple[str, date], int]:
    counts: dict[tuple[str, date], int] = dict.fromkeys(table_days, 0)
    for table_id, day in set(table_days):
        row = ledger.con.execute(
            "SELECT count(*) FROM exceptions WHERE table_id = ? AND gaming_date = ?",
            [table_id, day],
        ).fetchone()
        counts[(table_id, day)] = int(row[0]) if row else 0
    return counts


def _commit_to_kafka(
    consumer: KafkaConsumer, topic: str, offsets: Mapping[int, int], *, sync: bool
) -> None:
    """Tell Kafka too (lag dashboards); failures are logged, never relied on."""
    payload = {TopicPartition(topic, p): OffsetAndMetadata(o, "", -1) for p, o in offsets.items()}
    try:
        if sync:
            consumer.commit(payload)
        else:
            consumer.commit_async(payload, callback=_log_commit_failure)
    except Exception as exc:  # best effort by design: the ledger holds the real offsets
        log.info("Kafka offset commit skipped (%s: %s); the ledger has them", type(exc), exc)


def _log_commit_failure(offsets: Any, response: Any) -> None:
    if isinstance(response, BaseException):
        log.info("Kafka offset commit failed (%s); the ledger has the offsets", response)


class _DeadLetterSender:
    """Sends rejected records to the DLQ topic and waits for the acknowledgements."""

    def __init__(
        self, settings: KafkaSettings, retrying: Callable[[Callable[[], Any], str], Any]
    ) -> None:
        self.settings = settings
        self.retrying = retrying
        self._producer: KafkaProducer | None = None
        self.sent = 0

    def _get(self) -> KafkaProducer:
        if self._producer is None:
            self._producer = self.retrying(
                lambda: KafkaProducer(
                    **self.settings.producer_kwargs(
                        acks="all", enable_idempotence=True, linger_ms=5
                    )
                ),
                f"connecting the dead-letter producer to {self.settings.bootstrap_servers}",
            )
        return self._producer

    def send(self, records: Sequence[Any], letters: Sequence[DeadLetter], group: str) -> None:
        def attempt() -> None:
            producer = self._get()
            futures = [
                producer.send(
                    self.settings.dlq_topic,
                    key=rec.key,
                    value=rec.value,
                    headers=dlq_headers(rec, letter, group),
                )
                for rec, letter in zip(records, letters, strict=True)
            ]
            producer.flush()
            for future in futures:
                future.get(timeout=30)

        self.retrying(attempt, f"sending dead letters to {self.settings.dlq_topic}")
        self.sent += len(letters)

    def close(self) -> None:
        if self._producer is not None:
            self._producer.close()
            self._producer = None
