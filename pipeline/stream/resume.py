"""Before resuming a partition at the offset its ledger stored: is the broker's log still the
one that offset was stored against?

The ledger, not Kafka, says where to resume (:mod:`pipeline.stream.consumer`). That is only
right while the broker's log is the one the ledger read. A broker that lost its log (its
storage wiped, an in-memory broker restarted, another cluster behind the same address)
starts its partitions again at offset 0, and a consumer seeking to the stored offsets would
skip everything below them, or wait past the end for records that will never come, and
report success. A partition whose log start moved past the stored offset (retention, or
records deleted) lost records the ledger never loaded. Either is a loud stop
(:class:`ResumeRefusedError`), before anything is read.

What is checked, per partition with a stored offset ``s`` (``s`` > 0), with a short-lived
consumer of its own (no group) that reads one record:

1. the log start is at most ``s`` (else records ``s`` to start - 1 are gone, never loaded);
2. the high watermark is at least ``s`` (else the log ends before records the ledger holds);
3. the record at ``s - 1`` is the one the ledger loaded from there: the same event id (or
   the same bytes, for a dead letter). A log that was replaced and has grown past ``s``
   fails here.

While the stream runs, a partition's records must go on from where it last read
(:func:`check_continuation`): a Kafka broker that lost its log or deleted records answers
the consumer's next fetch with OFFSET_OUT_OF_RANGE, and kafka-python then moves the position
to the log start, back (a new log) or forward (records skipped); either is the same loud
stop. An offset jump forward within the log (transaction markers, compaction) is fine.

The high watermark is taken from a fetch response, not ListOffsets: tansu 0.6 answers
ListOffsets(latest) with the last batch's base offset + 1, short of the real end.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafka import KafkaConsumer, TopicPartition

from pipeline.events import EventCodec, EventDecodeError
from pipeline.exits import EXIT_NEEDS_PERSON, CommandError
from pipeline.ingest.errors import TransientError
from pipeline.ledger import stream_state
from pipeline.ledger.store import Ledger
from pipeline.stream.settings import KafkaSettings

log = logging.getLogger(__name__)

__all__ = [
    "LogProbe",
    "PartitionLog",
    "ResumeRefusedError",
    "check_continuation",
    "check_resume",
]

PROBE_SECONDS = 5.0
"""How long the probe waits for the broker to answer a fetch."""


class ResumeRefusedError(CommandError):
    """The broker's log does not hold what the ledger's stored offsets say was read: a
    person must decide (exit 1). Nothing was read or written."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_NEEDS_PERSON)


@dataclass(frozen=True)
class PartitionLog:
    """What the broker holds of a partition, as the probe saw it."""

    log_start: int
    high_water: int | None
    """From a fetch response; ``None`` when the broker did not answer in time."""
    first: tuple[int, bytes | None] | None
    """(offset, value) of the first record at or after the offset asked for, if any."""


class LogProbe:
    """Reads one record of a partition with a group-less consumer of its own (made on
    first use), so the consumer in the group keeps its positions and fetches."""

    def __init__(self, settings: KafkaSettings, seconds: float = PROBE_SECONDS) -> None:
        self.settings = settings
        self.seconds = seconds
        self._consumer: KafkaConsumer | None = None

    def look(self, topic: str, partition: int, offset: int) -> PartitionLog:
        if self._consumer is None:
            self._consumer = KafkaConsumer(
                **self.settings.client_kwargs(),
                enable_auto_commit=False,
                auto_offset_reset="earliest",
                check_crcs=self.settings.check_crcs,
            )
        consumer = self._consumer
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        log_start = int(consumer.beginning_offsets([tp])[tp])
        consumer.seek(tp, max(offset, 0))
        deadline = time.monotonic() + self.seconds
        records: list[Any] = []
        while time.monotonic() < deadline:
            records = consumer.poll(timeout_ms=200, max_records=1).get(tp, [])
            high_water = consumer.highwater(tp)
            if records or (high_water is not None and high_water <= offset):
                break
        high_water = consumer.highwater(tp)
        first = (int(records[0].offset), records[0].value) if records else None
        return PartitionLog(log_start, None if high_water is None else int(high_water), first)

    def close(self) -> None:
        if self._consumer is not None:
            self._consumer.close(autocommit=False)
            self._consumer = None


def check_resume(
    ledger: Ledger,
    where: str,
    settings: KafkaSettings,
    partition: int,
    stored: int,
    broker: PartitionLog,
    codec: EventCodec,
) -> None:
    """Raise :class:`ResumeRefusedError` unless resuming ``partition`` at ``stored`` (the
    offset the ledger ``where`` stored) reads on from where the ledger left off."""
    topic, group = settings.topic, settings.group_id
    start, end = broker.log_start, broker.high_water
    place = (
        f"{topic} partition {partition} (group {group}): the ledger {where} stored offset "
        f"{stored}, having loaded every record below it, but the broker at "
        f"{settings.bootstrap_servers} holds "
    )
    holds = (
        f"offsets {start} to {end - 1} (log start {start}, end {end})"
        if end is not None and end > start
        else f"no records (log start {start}, end {end if end is not None else start})"
    )
    todo = (
        "Nothing was read, skipped or written: the stream stopped before reading "
        f"{topic}. What to do: find out what happened to the broker's log. If it was lost "
        "and the devices' events were published again, stream them under a new consumer "
        "group (--group NEW reads each partition from its start; the ledger keys every "
        "delivery by source, offset and event, so events it already holds become "
        "duplicates it reports, not new rows), or load the devices' own files with "
        "`baccarat-audit ingest`. If this is the wrong broker, point --bootstrap at the "
        "right one. Do not delete the stored offsets to make this error go away: they are "
        "the record of what was read."
    )
    if start > stored:
        raise ResumeRefusedError(
            f"cannot resume {place}{holds}: its log start moved past the stored offset, so "
            f"offsets {stored} to {start - 1} ({start - stored:,} records) are gone from the "
            f"broker and were never loaded. {todo}"
        )
    if end is None:
        raise TransientError(
            f"{topic} partition {partition}: the broker at {settings.bootstrap_servers} did "
            f"not answer a fetch at offset {stored - 1} in time, so the stored offset "
            f"{stored} could not be checked against its log"
        )
    if end < stored:
        raise ResumeRefusedError(
            f"cannot resume {place}{holds}: the log ends before records the ledger already "
            "loaded, so it is not the log those offsets were stored against (the broker "
            "lost its log, or this is another cluster). Resuming would skip "
            f"the {max(end - start, 0):,} records it holds now and the next "
            f"{stored - max(end, start):,} published. {todo}"
        )
    if broker.first is None or broker.first[0] != stored - 1:
        return  # no record at stored - 1 (a compacted or control offset): nothing to compare
    loaded = stream_state.loaded_at(ledger, f"kafka:{topic}:{partition}", stored - 1)
    value = broker.first[1]
    if loaded is None or value is None:
        return
    _, what = loaded
    if isinstance(what, str):
        try:
            found = f"event {codec.decode(value).get('event_id')}"
        except EventDecodeError as err:
            found = f"an undecodable message ({err.reason.value})"
        same = found == f"event {what}"
        said = f"event {what}"
    else:
        same = bytes(value) == what
        found = f"{len(value)} bytes that differ from the dead letter's"
        said = f"a dead letter of {len(what)} bytes"
    if not same:
        raise ResumeRefusedError(
            f"cannot resume {place}{holds}, and at offset {stored - 1} it holds {found} where "
            f"the ledger loaded {said}: the log was replaced (the broker lost its log and "
            "was written again, or this is another cluster). Resuming would skip the "
            f"{stored - start:,} records below offset {stored} of the new log. {todo}"
        )


def check_continuation(
    settings: KafkaSettings,
    where: str,
    partition: int,
    expected: int,
    first: int,
    log_start: Callable[[], int],
) -> None:
    """A running stream polled records of ``partition`` starting at ``first`` where it had
    read up to ``expected``: raise :class:`ResumeRefusedError` when the position was moved
    back, or forward past records the broker no longer holds (``log_start()`` asks)."""
    topic, group = settings.topic, settings.group_id
    place = (
        f"{topic} partition {partition} (group {group}, ledger {where}): the stream had read "
        f"up to offset {expected}, but the broker at {settings.bootstrap_servers} "
    )
    todo = (
        f"Nothing from offset {first} on was loaded: the stream stopped. Find out what "
        "happened to the broker's log; if it was lost and the events were published again, "
        "stream them under a new consumer group (--group NEW), or load the devices' own files "
        "with `baccarat-audit ingest`."
    )
    if first < expected:
        raise ResumeRefusedError(
            f"{place}now gives records from offset {first}: its log no longer holds offset "
            f"{expected} (it lost its log, or another cluster answers at that address) and "
            f"the consumer was moved back to its start. {todo}"
        )
    start = log_start()
    if start > expected:
        raise ResumeRefusedError(
            f"{place}now starts its log at {start}: offsets {expected} to {start - 1} "
            f"({start - expected:,} records) are gone from the broker and were never "
            f"loaded. {todo}"
        )
