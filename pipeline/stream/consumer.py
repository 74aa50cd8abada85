"""Consume table events from Kafka into the ledger with exactly-once effects.

How a batch goes through
------------------------
1. Poll up to ``max_batch`` records (more polls within ``batch_wait`` seconds while the broker
   holds more: a live consumer takes what has arrived and goes on).
2. Decode the values, a chunk at a time where every message in it is sound
   (:meth:`EventCodec.decode_intact_messages`), else one by one with
   :meth:`EventCodec.decode`, which says what is wrong. A record that cannot be decoded, has no
   value, or breaks the contract (its key must be its event's ``table_id``, which is what
   keeps a table on one partition and in order) becomes a dead letter: sent to the
   dead-letter topic with its original key and bytes and ``dlq.*`` headers, and waited for.
3. For each ledger the batch's partitions go to (one ledger file, or one shard file per
   partition: :mod:`pipeline.stream.ledgers`), one :func:`~pipeline.ingest.stage.load_batch`
   call stores the deliveries (keyed ``kafka:<topic>:<partition>`` and offset), the dead
   letters, the replayed table-days *and the next offsets of those partitions*, in one
   DuckDB transaction. The table-days keep replaying in memory between batches
   (:mod:`pipeline.ingest.live`), so a batch costs about its own size, not its day's.
4. The same transaction searches the shoes that ended in the batch (a ShoeEnded, or the
   next shoe's ShoeStarted) for slugs against their pits' earlier shoes
   (:func:`~pipeline.patterns.stage.search_ended_shoes`; the day's informed-betting and
   dealer-patron tests run at the latest when it closes), and records what changed in
   those table-days' exceptions (raised, or withdrawn because a later event explained
   them) as notices (:mod:`pipeline.ledger.notices`); once it is committed they are sent
   to the exceptions topic and handed to the alerts (:mod:`pipeline.stream.notices`).
5. The offsets are then also committed to Kafka, best effort, for lag monitoring only.

Why nothing is lost or counted twice
------------------------------------
The ledger, not Kafka, is the source of truth for where to resume. The rebalance listener
notes the partitions it is given; the consumer's own thread then opens each partition's
ledger (waiting while another process holds it) and seeks to the offset stored there (or to
the beginning when there is none). Until then the partition's records are dropped, and a
rebalance abandons the batch being assembled: those records are read again from the stored
offsets. Since the offsets commit
with the rows they produced, a crash before the commit resumes at the batch's start and the
rows were never written; a crash after it resumes after the batch. And deliveries are keyed
by source and offset (with the event's id and seq), so even a batch processed twice (a
partition moving between workers mid-batch) inserts nothing the second time. Stored offsets
only move forward. Before seeking to a stored offset, the broker's log is checked to be the
one it was stored against (:mod:`pipeline.stream.resume`): a log that ends before it,
starts after it, or holds another record just below it (a broker that lost its log) stops
the stream with :class:`~pipeline.stream.resume.ResumeRefusedError` before anything is read.

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

import gc
import logging
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from kafka import (
    ConsumerRebalanceListener,
    KafkaConsumer,
    OffsetAndMetadata,
    TopicPartition,
)

from pipeline.collector import batch_collection
from pipeline.config.catalog import gaming_day_of
from pipeline.config.dashboard_links import DashboardLinks
from pipeline.events import EventCodec, EventDecodeError, default_codec
from pipeline.events.convert import from_record
from pipeline.ingest.errors import TransientError
from pipeline.ingest.live import LiveTableDays
from pipeline.ingest.sources import DeadLetter
from pipeline.ingest.stage import LoadReport, load_batch
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.notices import record_notices
from pipeline.ledger.store import CLOSED_GAMING_DAY, Delivery, Ledger
from pipeline.patterns.stage import KnownShoes, search_ended_shoes, settings_of, shoes_ended
from pipeline.rules.config import TableRules
from pipeline.rules.gaming_day import GamingDay
from pipeline.stream.alerts import AlertDispatcher
from pipeline.stream.closes import CloseServer
from pipeline.stream.ledgers import (
    OneLedger,
    PartitionLedgers,
    PartitionShards,
    ShardDirectory,
    open_for_batches,
)
from pipeline.stream.notices import NoticePublisher, notice_days
from pipeline.stream.reach import wait_for_broker
from pipeline.stream.resume import LogProbe, check_continuation, check_resume
from pipeline.stream.retry import Backoff, is_transient, retry_transient
from pipeline.stream.sender import AcknowledgedSender
from pipeline.stream.settings import DEFAULT_COPY_EVERY, DEFAULT_MAX_BATCH, KafkaSettings
from pipeline.stream.topics import ensure_topics

log = logging.getLogger(__name__)

SESSION_TIMEOUT_MS = 6000
HEARTBEAT_INTERVAL_MS = 2000
"""A third of the session timeout, as Kafka recommends; heartbeats run on kafka-python's
IO thread, so a long batch does not cost the group membership."""
MAX_POLL_INTERVAL_MS = 300_000
POLL_TIMEOUT_MS = 500
DETAIL_HEADER_LIMIT = 2000
MERGE_WAIT_WARNING_SECONDS = 30.0
"""How often a partition waiting for a merge says so in the log (a merge request left by a
killed merge keeps it waiting until someone removes the request file)."""

# Dead-letter reasons besides the codec's DecodeReason values.
REASON_NO_VALUE = "NO_VALUE"
REASON_KEY_MISMATCH = "KEY_MISMATCH"
REASON_INVALID_EVENT = "INVALID_EVENT"
# (a message for a closed gaming day: pipeline.ledger.store.CLOSED_GAMING_DAY, shared with
# the merge of partition shards)


class FaultPoint:
    """Where :func:`run_consumer` calls its ``fault_hook`` in each batch (for crash tests)."""

    POLLED = "polled"
    """The batch is assembled; nothing has been sent or written."""
    DEAD_LETTERS_SENT = "dead_letters_sent"
    """The batch's dead letters are acknowledged by the DLQ topic; the ledger is untouched."""
    BEFORE_COMMIT = "before_commit"
    """Inside a ledger transaction (one per partition shard): rows and offsets written, not
    committed."""
    COMMITTED = "committed"
    """Every ledger transaction of the batch is committed; its exception notices are not
    sent yet and Kafka has not been told."""
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
    notices: int = 0
    """Exception notices (raised or withdrawn) sent to the exceptions topic."""
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
            f"table-days, {self.exceptions:,} exceptions ({self.notices:,} raised or "
            f"withdrawn on the exceptions topic); {self.busy_seconds:.1f} s of work "
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


DECODE_CHUNK = 256
"""Messages decoded at once (:meth:`EventCodec.decode_intact_messages`); a chunk holding a bad
message is decoded again one message at a time, to say which is bad and why."""


def decode_records(records: Sequence[Any], codec: EventCodec) -> _Decoded:
    """Deliveries and dead letters for polled ``ConsumerRecord`` s (duplicates dropped)."""
    out = _Decoded()
    seen: set[tuple[int, int]] = set()
    unique = []
    for rec in records:
        if (rec.partition, rec.offset) in seen:
            continue
        seen.add((rec.partition, rec.offset))
        unique.append(rec)
        out.next_offsets[rec.partition] = max(
            out.next_offsets.get(rec.partition, 0), rec.offset + 1
        )
    for start in range(0, len(unique), DECODE_CHUNK):
        chunk = unique[start : start + DECODE_CHUNK]
        intact = (
            codec.decode_intact_messages([rec.value for rec in chunk])
            if all(rec.value is not None for rec in chunk)
            else None
        )
        for index, rec in enumerate(chunk):
            source = f"kafka:{rec.topic}:{rec.partition}"
            letter = _classify(rec, source, codec, out, None if intact is None else intact[index])
            if letter is not None:
                out.dead_letters.append(letter)
                out.dead_records.append(rec)
    return out


def hold_closed_days(
    decoded: _Decoded, records: Sequence[Any], closed: set[date], gaming_day: GamingDay
) -> None:
    """Move the deliveries for a ``closed`` gaming day to dead letters (CLOSED_GAMING_DAY),
    with their bytes, partition and offset. A stream cannot be refused like a file, and a
    closed day's sealed rows must not change; held apart, the events are visible and
    nothing is lost, while the offsets still advance. Once the day is reopened, the
    dead letters' bytes can be delivered again."""
    if not closed:
        return
    days = [gaming_day.date_of(d.event.occurred_at) for d in decoded.deliveries]
    if not closed.intersection(days):
        return
    by_place = {(f"kafka:{rec.topic}:{rec.partition}", rec.offset): rec for rec in records}
    kept = []
    for delivery, day in zip(decoded.deliveries, days, strict=True):
        if day not in closed:
            kept.append(delivery)
            continue
        rec = by_place[(delivery.source, delivery.position)]
        event = delivery.event
        decoded.dead_letters.append(
            DeadLetter(
                delivery.source,
                delivery.position,
                CLOSED_GAMING_DAY,
                f"event {event.event_id} (table {event.table_id}, device {event.device_id}, "
                f"seq {event.seq}) belongs to gaming day {day.isoformat()}, which is closed; "
                f"reopen the day (`baccarat-audit reopen --gaming-day {day.isoformat()} "
                "...`) and deliver this message's bytes again to add it",
                event.device_id,
                bytes(rec.value),
            )
        )
        decoded.dead_records.append(rec)
    decoded.deliveries = kept


def _classify(
    rec: Any, source: str, codec: EventCodec, out: _Decoded, record: Mapping[str, Any] | None
) -> DeadLetter | None:
    """Append the record's delivery to ``out``, or return its dead letter. ``record`` is the
    value already decoded, if it was."""
    value = rec.value
    if value is None:
        return DeadLetter(
            source, rec.offset, REASON_NO_VALUE, "the record has no value (a tombstone)"
        )
    if record is None:
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
    out.deliveries.append(Delivery(source, rec.offset, event, rec.offset))
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


class AssignmentListener(ConsumerRebalanceListener):  # type: ignore[misc]
    """Notes assignment changes for the consumer loop, which seeks each partition to the
    offset stored in its ledger.

    Runs on kafka-python's IO thread while the loop waits in ``poll``. Opening a ledger may
    wait for another process to let go of it, so that happens on the loop's own thread and
    heartbeats go on meanwhile.
    """

    def __init__(self, consumer: KafkaConsumer) -> None:
        self.consumer = consumer
        self.generation = 0
        self.first_assigned_at: float | None = None
        self._lock = threading.Lock()
        self._assigned: set[int] = set()
        self._revoked: set[int] = set()

    def on_partitions_revoked(self, revoked: Any) -> None:
        partitions = {tp.partition for tp in revoked}
        with self._lock:
            self._assigned -= partitions
            self._revoked |= partitions
        log.info("partitions revoked: %s", sorted(partitions))

    def on_partitions_assigned(self, assigned: Any) -> None:
        with self._lock:
            self._assigned |= {tp.partition for tp in assigned}
            self.generation += 1
            if self.first_assigned_at is None:
                self.first_assigned_at = time.monotonic()
        log.info("partitions assigned: %s", sorted(tp.partition for tp in assigned))

    def take_changes(self) -> tuple[set[int], set[int]]:
        """(partitions revoked since the last call, partitions assigned now)."""
        with self._lock:
            revoked, self._revoked = self._revoked, set()
            return revoked, set(self._assigned)


@dataclass
class _LedgerWait:
    """A partition waiting for its ledger: for a merge to finish, or for the
    process holding the file's lock (the partition's previous owner) to let go."""

    since: float
    attempts: int = 0
    next_try: float = 0.0
    warned: float = 0.0


class _Partitions:
    """The consumer loop's view of its partitions: records of open ones are written, those
    of waiting ones dropped until their ledger is open and they are sought.

    Waiting partitions are not paused: kafka-python 3.0 keeps the records it had fetched for
    a partition when it is paused and, once another partition's records were in line, never
    hands them back after ``resume``, nor fetches that partition again. Dropping the records
    costs only fetches; the seek puts the position back.
    """

    def __init__(
        self,
        consumer: KafkaConsumer,
        ledgers: PartitionLedgers,
        settings: KafkaSettings,
        backoff: Backoff,
        report: ConsumerReport,
        codec: EventCodec | None = None,
    ) -> None:
        self.consumer = consumer
        self.ledgers = ledgers
        self.group, self.topic = settings.group_id, settings.topic
        self.backoff = backoff
        self.report = report
        self.settings = settings
        self.probe = LogProbe(settings)
        self.codec = codec or default_codec()
        self.open: set[int] = set()
        self.waiting: dict[int, _LedgerWait] = {}
        self.read_to: dict[int, int] = {}
        """Per open partition, the offset after the last record polled (or sought to)."""

    def _tp(self, partition: int) -> TopicPartition:
        return TopicPartition(self.topic, partition)

    def reassign(self, revoked: set[int], assigned: set[int]) -> None:
        """After a rebalance: let go of partitions this worker lost; seek every assigned
        one again from its ledger, since the batch in flight is abandoned."""
        for partition in revoked - assigned:
            self.ledgers.release(partition)
            self.open.discard(partition)
            self.read_to.pop(partition, None)
            self.waiting.pop(partition, None)
        now = time.monotonic()
        for partition in assigned:
            self.open.discard(partition)
            self.read_to.pop(partition, None)
            self.waiting.setdefault(partition, _LedgerWait(since=now))

    def settle(self) -> None:
        """Hand partitions asked for by a merge over to it; seek waiting partitions whose
        ledger can be opened now."""
        now = time.monotonic()
        for partition in sorted(self.open):
            if self.ledgers.merge_requested(partition):
                self.ledgers.release(partition)
                self.open.discard(partition)
                self.read_to.pop(partition, None)
                self.waiting[partition] = _LedgerWait(since=now)
                log.info("partition %d waits for a merge", partition)
        for partition, wait in sorted(self.waiting.items()):
            if now >= wait.next_try and self._try_open(partition, wait, now):
                del self.waiting[partition]

    def _try_open(self, partition: int, wait: _LedgerWait, now: float) -> bool:
        try:
            ready = self.ledgers.open(partition)
        except Exception as exc:
            if not is_transient(exc):
                raise
            self._schedule_retry(partition, wait, now, exc)
            return False
        if not ready:
            if now - wait.warned >= MERGE_WAIT_WARNING_SECONDS:
                wait.warned = now
                log.warning(
                    "partition %d has waited %.0f s for a merge of %s; if no merge is "
                    "running, remove its .merge-request file",
                    partition, now - wait.since, self.ledgers.describe(partition),
                )  # fmt: skip
            return False
        ledger = self.ledgers.ledger(partition)
        stored = ledger.stored_offsets(self.group, self.topic)
        tp = self._tp(partition)
        if stored.get(partition, 0) > 0:  # the broker's log must be the one it was read from
            offset = stored[partition]
            broker = self.probe.look(self.topic, partition, offset - 1)
            check_resume(
                ledger, self.ledgers.describe(partition), self.settings, partition, offset,
                broker, self.codec,
            )  # fmt: skip
        if partition in stored:
            self.consumer.seek(tp, stored[partition])
            self.read_to[partition] = stored[partition]
        else:
            self.consumer.seek_to_beginning(tp)
        self.open.add(partition)
        log.info(
            "partition %d resumes at %s from %s",
            partition, stored.get(partition, "the beginning"), self.ledgers.describe(partition),
        )  # fmt: skip
        return True

    def polled(self, tp: TopicPartition, records: list[Any]) -> None:
        """Note how far an open partition has been read; raise
        :class:`~pipeline.stream.resume.ResumeRefusedError` when its records do not go on
        from there (:func:`~pipeline.stream.resume.check_continuation`)."""
        if tp.partition in self.open:
            expected = self.read_to.get(tp.partition)
            first = int(records[0].offset)
            if expected is not None and first != expected:
                check_continuation(
                    self.settings, self.ledgers.describe(tp.partition), tp.partition, expected,
                    first, lambda: int(self.consumer.beginning_offsets([tp])[tp]),
                )  # fmt: skip
            self.read_to[tp.partition] = records[-1].offset + 1

    def behind(self) -> bool:
        """Whether the broker holds records of an open partition not polled yet, by the high
        watermark of its last fetch response (unknown before the first: behind)."""
        for partition in self.open:
            highwater = self.consumer.highwater(self._tp(partition))
            if highwater is None or highwater > self.read_to.get(partition, 0):
                return True
        return False

    def _schedule_retry(
        self, partition: int, wait: _LedgerWait, now: float, exc: BaseException
    ) -> None:
        delays = self.backoff.delays()
        if wait.attempts >= len(delays):
            raise TransientError(
                f"{self.ledgers.describe(partition)}: still locked after {wait.attempts + 1} "
                f"attempts over {now - wait.since:.0f} s ({type(exc).__name__}: {exc}). "
                f"Another process holds partition {partition}'s ledger: its previous owner "
                "(it lets go after its current batch) or a merge. If neither is running, "
                "the file is free and a restart will pick it up."
            ) from exc
        wait.next_try = now + delays[wait.attempts]
        wait.attempts += 1
        self.report.retries += 1
        log.info(
            "partition %d: %s is busy (%s); trying again in %.1f s",
            partition, self.ledgers.describe(partition), exc, delays[wait.attempts - 1],
        )  # fmt: skip


@batch_collection()
def run_consumer(
    settings: KafkaSettings,
    ledger: Path | str | ShardDirectory,
    catalog: Mapping[str, TableRules],
    *,
    until_idle: float | None,
    max_batch: int = DEFAULT_MAX_BATCH,
    on_batch: Callable[[BatchReport], None] | None = None,
    on_assignment: Callable[[list[int]], None] | None = None,
    fault_hook: FaultHook | None = None,
    stop: threading.Event | None = None,
    max_batches: int | None = None,
    batch_wait: float = 0.2,
    join_timeout: float = 60.0,
    commit_to_kafka: bool = True,
    create_topics: bool = True,
    codec: EventCodec | None = None,
    backoff: Backoff | None = None,
    consumer_config: Mapping[str, Any] | None = None,
    alerts: AlertDispatcher | None = None,
    lend_every: float = 0.0,
    connect_timeout: float | None = None,
    closes: CloseServer | None = None,
    links: DashboardLinks | None = None,
    copy_every: float = DEFAULT_COPY_EVERY,
) -> ConsumerReport:
    """Consume ``settings.topic`` in group ``settings.group_id`` into ``ledger``: a ledger
    file, or a :class:`~pipeline.stream.ledgers.ShardDirectory` with one ledger file per
    partition (what lets worker processes, on one machine or several, share a group).

    ``until_idle``: return after that many seconds without a new message (counted from the
    first partition assignment, so the group join does not count; ``join_timeout`` bounds
    the wait for it). ``None``: run until ``stop`` is set (or KeyboardInterrupt).
    ``max_batch``: most records per batch. ``on_batch`` is called after each committed
    batch, ``on_assignment`` with the partitions after each (re)assignment; ``fault_hook``
    at each :class:`FaultPoint` (tests). ``max_batches`` stops after that many batches.
    ``alerts`` delivers the exception notices the ledgers' outboxes hold undelivered, once
    they are on the exceptions topic, and marks each delivery in the ledger; it is drained
    before the ledgers close. ``lend_every``: with one ledger file, let readers copy it between
    batches, at most once per that many seconds (:class:`~pipeline.stream.ledgers.OneLedger`);
    0: never. ``connect_timeout``: give up with
    :class:`~pipeline.stream.reach.BrokerUnreachableError` when no broker answers at the
    bootstrap address within that many seconds of the start (``None``: wait as the retries
    do; ``stream`` passes ``--connect-timeout``, default
    :data:`~pipeline.stream.settings.DEFAULT_CONNECT_TIMEOUT`). ``closes``: with one ledger
    file, close the gaming days ``baccarat-audit close`` asks for between batches, beside them
    (:mod:`pipeline.stream.closes`); ``copy_every``: meanwhile, when a reader asks, write the
    readers' copy of the ledger at most once per that many seconds (0: never). ``links``: the
    dashboards' base URL the notices on the exceptions topic link to
    (:mod:`pipeline.config.dashboard_links`; none by default).
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

    if connect_timeout is not None:
        wait_for_broker(settings, connect_timeout)
    if create_topics:
        retrying(
            lambda: ensure_topics(settings), f"creating topics on {settings.bootstrap_servers}"
        )
    ledgers: PartitionLedgers
    if isinstance(ledger, ShardDirectory):
        if closes is not None:
            raise ValueError("a stream into partition shards closes no days: close the merged one")
        ledgers = PartitionShards(ledger.path, topic)
    else:
        path = ledger
        ledgers = OneLedger(
            lambda: retrying(lambda: open_for_batches(Path(path)), f"opening the ledger {path}"),
            lend_every,
            copy_every if closes is not None else 0.0,
        )
    consumer: KafkaConsumer | None = None
    partitions: _Partitions | None = None
    dlq = AcknowledgedSender(settings, settings.dlq_topic, retrying)
    notices = NoticePublisher(
        settings,
        retrying,
        on_sent=(lambda held: alerts.sync(held, new_notices=True)) if alerts is not None else None,
        links=links,
    )
    if closes is not None:
        closes.start()
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
        listener = AssignmentListener(consumer)
        partitions = _Partitions(consumer, ledgers, settings, retry_policy, report, codec)
        live = LiveTableDays(catalog)
        known_shoes = KnownShoes()
        subscribed_at = time.monotonic()
        consumer.subscribe([topic], listener=listener)
        last_activity: float | None = None
        generation = 0
        outboxes_sent: weakref.WeakSet[Ledger] = weakref.WeakSet()
        while not (stop is not None and stop.is_set()):
            partitions.settle()
            _send_outboxes(ledgers, notices, alerts, outboxes_sent, report)
            closing: set[date] = set()
            if closes is not None:
                closes.serve()
                closing = closes.closing()
            if closing:  # a close holds the file open in this process: no reader gets in
                ledgers.copy_for_readers()
            else:
                ledgers.lend()
            polled_at = time.monotonic()
            # Until a partition is open its records are dropped (it is sought from its
            # ledger first), so take one record, not a batch that would be unpacked for
            # nothing: at the first assignment that was a whole fetch, read twice.
            wanted = max_batch if partitions.open else 1
            records = _poll_batch(consumer, wanted, batch_wait, retrying, listener, partitions)
            now = time.monotonic()
            if listener.generation != generation:
                report.rebalances += 1 if generation else 0
                generation = listener.generation
                revoked, assigned = listener.take_changes()
                partitions.reassign(revoked, assigned)
                report.partitions = sorted(assigned)
                last_activity = now
                if report.join_seconds is None and listener.first_assigned_at is not None:
                    report.join_seconds = listener.first_assigned_at - subscribed_at
                if on_assignment is not None:
                    on_assignment(report.partitions)
                continue  # the batch in flight is abandoned: read again from the ledgers
            records = [r for r in records if r.partition in partitions.open]
            if records:
                _process_batch(
                    records, codec, ledgers, live, settings, dlq, notices, consumer, report,
                    closing=closing,
                    known_shoes=known_shoes,
                    polled_at=polled_at,
                    on_batch=on_batch,
                    fault_hook=fault_hook,
                    commit_to_kafka=commit_to_kafka,
                    retrying=retrying,
                )  # fmt: skip
                _keep_out_of_collections(report.batches)
                last_activity = time.monotonic()
                if max_batches is not None and report.batches >= max_batches:
                    report.stopped = "max batches"
                    break
                continue
            if partitions.waiting and last_activity is not None:
                last_activity = now  # waiting for a lock or a merge, not idle
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
        gc.unfreeze()
        report.elapsed = time.monotonic() - started
        try:
            if partitions is not None:
                partitions.probe.close()
            if consumer is not None:
                consumer.close(autocommit=False)
        finally:
            dlq.close()
            notices.close()
            try:
                if alerts is not None:
                    alerts.close()
                    for held in ledgers.held(reopen=alerts.unmarked > 0):
                        alerts.sync(held)
            finally:
                if closes is not None:
                    closes.stop()
                ledgers.close()
    return report


BATCHES_PER_FULL_COLLECTION = 64
"""Batches after which the objects kept out of the collector are handed back to it
(:func:`_keep_out_of_collections`)."""


def _keep_out_of_collections(batches: int) -> None:
    """Move what survived the batch out of the cyclic collector's reach (``gc.freeze``). The
    day held in memory (:class:`~pipeline.ingest.live.LiveTableDays`: about 1.2 kB an event)
    survives every batch, and every full collection traversed all of it: about a fifth of a
    24-hour day's CPU. Reference counting still frees what the batches drop; only cycles
    among the frozen objects wait, for the full collection every
    :data:`BATCHES_PER_FULL_COLLECTION` batches."""
    if batches % BATCHES_PER_FULL_COLLECTION == 0:
        gc.unfreeze()
        gc.collect()
    gc.freeze()


def _send_outboxes(
    ledgers: PartitionLedgers,
    notices: NoticePublisher,
    alerts: AlertDispatcher | None,
    sent: weakref.WeakSet[Ledger],
    report: ConsumerReport,
) -> None:
    """Between batches: on a ledger just opened, publish the notices its outbox kept from
    before (a crash between a batch's commit and its sending) and queue its undelivered
    alerts; on every held ledger, mark the alerts delivered since the last turn (taking back
    a lent ledger for it). See :mod:`pipeline.stream.alerts`."""
    for ledger in ledgers.held(reopen=alerts is not None and alerts.unmarked > 0):
        if ledger not in sent:
            sent.add(ledger)
            report.notices += notices.publish_pending(ledger)
        if alerts is not None:
            alerts.sync(ledger)


def _poll_batch(
    consumer: KafkaConsumer,
    max_batch: int,
    batch_wait: float,
    retrying: Callable[[Callable[[], Any], str], Any],
    listener: AssignmentListener,
    partitions: _Partitions,
) -> list[Any]:
    """Up to ``max_batch`` records: one poll, then more for up to ``batch_wait`` seconds
    while the broker holds more of an open partition than was polled (a catching-up
    consumer fills big batches). A live consumer has read up to the broker's high
    watermark after one poll, so its batch ends there: waiting for more would only add the
    wait to every event's latency. Stops early at a rebalance, which may rewind
    positions."""

    def poll(timeout_ms: int, max_records: int) -> dict[TopicPartition, list[Any]]:
        polled: dict[TopicPartition, list[Any]] = retrying(
            lambda: consumer.poll(timeout_ms=timeout_ms, max_records=max_records),
            "polling the broker",
        )
        for tp, batch in polled.items():
            records.extend(batch)
            partitions.polled(tp, batch)
        return polled

    generation = listener.generation
    records: list[Any] = []
    if not poll(POLL_TIMEOUT_MS, max_batch):
        return records
    deadline = time.monotonic() + batch_wait
    while len(records) < max_batch and listener.generation == generation and partitions.behind():
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poll(max(1, int(remaining * 1000)), max_batch - len(records)):
            break
    return records


def _process_batch(
    records: list[Any],
    codec: EventCodec,
    ledgers: PartitionLedgers,
    live: LiveTableDays,
    settings: KafkaSettings,
    dlq: AcknowledgedSender,
    notices: NoticePublisher,
    consumer: KafkaConsumer,
    report: ConsumerReport,
    *,
    closing: set[date],
    known_shoes: KnownShoes,
    polled_at: float,
    on_batch: Callable[[BatchReport], None] | None,
    fault_hook: FaultHook | None,
    commit_to_kafka: bool,
    retrying: Callable[[Callable[[], Any], str], Any],
) -> None:
    """Decode the batch, send its dead letters, then load each ledger's share of it with
    that share's offsets and exception notices in one transaction; then send the notices.
    The events of a day ``closing`` (a close running beside the batches) are held apart as
    those of a closed day are."""
    started = polled_at
    number = report.batches + 1
    group, topic = settings.group_id, settings.topic

    def fault(point: str) -> None:
        if fault_hook is not None:
            fault_hook(point, number)

    shares = []
    for ledger, part in ledgers.split(records):
        decoded = decode_records(part, codec)
        sealed = ledger.closed_days() | closing
        hold_closed_days(decoded, part, sealed, gaming_day_of(live.catalog))
        shares.append((ledger, decoded))
    fault(FaultPoint.POLLED)
    dead_records = [rec for _, decoded in shares for rec in decoded.dead_records]
    if dead_records:
        letters = [letter for _, decoded in shares for letter in decoded.dead_letters]
        dlq.send(
            [
                (rec.key, rec.value, dlq_headers(rec, letter, group))
                for rec, letter in zip(dead_records, letters, strict=True)
            ],
            "dead letters",
        )
    fault(FaultPoint.DEAD_LETTERS_SENT)

    next_offsets: dict[int, int] = {}
    table_days: list[tuple[str, date]] = []
    events = dead_letters = exceptions = 0
    for ledger, decoded in shares:
        loaded = _load_share(ledger, decoded, live, known_shoes, group, topic, fault, retrying)
        next_offsets.update(decoded.next_offsets)
        table_days += loaded.table_days
        events += len(decoded.deliveries)
        dead_letters += len(decoded.dead_letters)
        exceptions += loaded.exceptions
        if loaded.table_days:
            report._exceptions_by_day.update(_exceptions_per_day(ledger, loaded.table_days))
    fault(FaultPoint.COMMITTED)
    for ledger, _ in shares:
        report.notices += notices.publish_pending(ledger)
    if commit_to_kafka:
        _commit_to_kafka(consumer, topic, next_offsets, sync=False)
    fault(FaultPoint.KAFKA_COMMITTED)

    report.batches = number
    report.busy_seconds += time.monotonic() - started
    report.messages += events + dead_letters
    report.events += events
    report.dead_letters += dead_letters
    report.table_days_replayed += len(table_days)
    report.table_days.update(table_days)
    for partition, offset in next_offsets.items():
        report.next_offsets[partition] = max(report.next_offsets.get(partition, 0), offset)
    report.exceptions = sum(report._exceptions_by_day.values())
    if on_batch is not None:
        on_batch(
            BatchReport(
                number=number,
                messages=events + dead_letters,
                events=events,
                dead_letters=dead_letters,
                next_offsets=next_offsets,
                table_days=table_days,
                exceptions=exceptions,
                seconds=time.monotonic() - started,
            )
        )


def _load_share(
    ledger: Ledger,
    decoded: _Decoded,
    live: LiveTableDays,
    known_shoes: KnownShoes,
    group: str,
    topic: str,
    fault: Callable[[str], None],
    retrying: Callable[[Callable[[], Any], str], Any],
) -> LoadReport:
    """One ledger transaction: deliveries, dead letters, replayed table-days, offsets,
    exception notices, the slugs of the shoes the batch ended."""

    def store_offsets(tx: Ledger) -> None:
        current = tx.stored_offsets(group, topic)
        forward = {p: o for p, o in decoded.next_offsets.items() if o > current.get(p, -1)}
        tx.store_offsets(group, topic, forward)
        days = notice_days(decoded.deliveries, gaming_day_of(live.catalog))
        record_notices(tx, days, live.provisional(days))
        # the shoes that ended in the batch are searched for slugs now, not at the close
        ended = shoes_ended(tx, decoded.deliveries)
        if ended:
            search_ended_shoes(tx, ended, settings_of(live.catalog), known_shoes)
        fault(FaultPoint.BEFORE_COMMIT)

    def load() -> LoadReport:
        try:
            return load_batch(
                ledger,
                decoded.deliveries,
                decoded.dead_letters,
                live.catalog,
                live=live,
                in_same_transaction=store_offsets,
            )
        except BaseException:
            known_shoes.forget()  # cards read inside the transaction rolled back
            raise

    loaded: LoadReport = retrying(load, f"loading a batch into {ledger.path}")
    return loaded


def _exceptions_per_day(
    ledger: Ledger, table_days: list[tuple[str, date]]
) -> dict[tuple[str, date], int]:
    counts: dict[tuple[str, date], int] = dict.fromkeys(table_days, 0)
    for table_id, day in set(table_days):
        counts[(table_id, day)] = ledger_exceptions.count_table_day(ledger, table_id, day)
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
