"""Publish table events to Kafka: keyed by table, Confluent-framed Avro, in table order.

Every message of a table carries the key ``table_id``, so the default partitioner puts the
table on one partition and the broker keeps its events in the order they were sent. The
value is ``EventCodec.encode(...)``: magic byte 0, the 4-byte schema id, the Avro body.
The producer is idempotent with ``acks=all``, so a retried send is neither duplicated nor
reordered.

:class:`EventPublisher` is the reusable piece (a hardware gateway sends each event as it
happens); :func:`publish` sends a whole :class:`~pipeline.simulate.run.SimulationResult`
(``baccarat-audit simulate --kafka``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any

from kafka import KafkaProducer

from pipeline.events import EventCodec, default_codec
from pipeline.events.convert import to_record
from pipeline.events.model import TableEvent
from pipeline.simulate.run import SimulationResult
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics

log = logging.getLogger(__name__)

DEFAULT_LINGER_MS = 20
DEFAULT_BATCH_SIZE = 512 * 1024
"""Events are ~100-300 bytes: a 512 KiB batch holds a few thousand of them, and 20 ms of
linger fills it when publishing in bulk while adding little latency to a live table."""


class PublishError(RuntimeError):
    """Some events were not acknowledged by the broker; ``failed`` says how many."""

    def __init__(self, failed: int, first: BaseException) -> None:
        self.failed = failed
        self.first = first
        super().__init__(
            f"{failed} event(s) were not acknowledged by the broker; first error: "
            f"{type(first).__name__}: {first}"
        )


class EventPublisher:
    """Send events to the events topic, keyed by table; thread-safe, batches for you.

    ``send`` returns at once (the producer batches in the background); :meth:`flush` waits
    until every event sent so far is acknowledged and raises :class:`PublishError` if any
    was not. Use as a context manager to flush and close::

        with EventPublisher(KafkaSettings.from_env()) as publisher:
            publisher.send(event)          # a model TableEvent
            publisher.send_record(record)  # or an Avro record dict from a device

    An event that does not fit the schema raises ``EventEncodeError`` from ``send``, before
    anything is sent.
    """

    def __init__(
        self,
        settings: KafkaSettings,
        *,
        codec: EventCodec | None = None,
        create_topics: bool = True,
        linger_ms: int = DEFAULT_LINGER_MS,
        batch_size: int = DEFAULT_BATCH_SIZE,
        compression_type: str | None = None,
        **producer_config: Any,
    ) -> None:
        self.settings = settings.validate()
        self.codec = codec or default_codec()
        self.topic = settings.topic
        if create_topics:
            ensure_topics(settings)
        self._producer = KafkaProducer(
            **settings.producer_kwargs(
                acks="all",
                enable_idempotence=True,
                linger_ms=linger_ms,
                batch_size=batch_size,
                compression_type=compression_type,
                **producer_config,
            )
        )
        self._lock = threading.Lock()
        self.sent = 0
        self.acknowledged = 0
        self.failed = 0
        self._first_error: BaseException | None = None

    # ------------------------------------------------------------------ sending
    def send(self, event: TableEvent) -> Any:
        """Send a model event; returns kafka-python's future of its RecordMetadata."""
        return self._send(event.table_id, self.codec.encode(to_record(self.codec, event)))

    def send_record(self, record: Mapping[str, Any]) -> Any:
        """Send an event already in the Avro record shape (see :mod:`pipeline.events.codec`)."""
        return self._send(str(record["table_id"]), self.codec.encode(record))

    def send_many(self, events: Iterable[TableEvent]) -> int:
        """Send events in the given order; return how many were handed to the producer."""
        count = 0
        for event in events:
            self.send(event)
            count += 1
        return count

    def _send(self, table_id: str, value: bytes) -> Any:
        future = self._producer.send(self.topic, key=table_id.encode("utf-8"), value=value)
        future.add_callback(self._on_ack)
        future.add_errback(self._on_error)
        with self._lock:
            self.sent += 1
        return future

    def _on_ack(self, _metadata: Any) -> None:
        with self._lock:
            self.acknowledged += 1

    def _on_error(self, error: BaseException) -> None:
        with self._lock:
            self.failed += 1
            if self._first_error is None:
                self._first_error = error
        log.error("event not acknowledged by the broker: %s", error)

    # ------------------------------------------------------------------ lifecycle
    def flush(self, timeout: float | None = None) -> None:
        """Wait until every event sent so far is acknowledged (or failed for good)."""
        self._producer.flush(timeout=timeout)
        with self._lock:
            failed, first = self.failed, self._first_error
        if failed and first is not None:
            raise PublishError(failed, first)

    def close(self, timeout: float | None = None) -> None:
        self._producer.close(timeout=timeout)

    def __enter__(self) -> EventPublisher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None:
                self.flush()
        finally:
            self.close()


def publish(
    result: SimulationResult,
    bootstrap: str,
    topic: str = "table-events",
    config: KafkaSettings | None = None,
) -> int:
    """Publish every table's events, in each table's order; return how many were sent.

    ``bootstrap`` and ``topic`` win over ``config``, which supplies the rest (security,
    client id, partitions for a topic that must be created). Blocks until the broker has
    acknowledged every event; raises :class:`PublishError` otherwise.
    """
    settings = (config or KafkaSettings(bootstrap_servers=bootstrap)).with_overrides(
        bootstrap_servers=bootstrap, topic=topic
    )
    started = time.perf_counter()
    with EventPublisher(settings) as publisher:
        for events in result.events_by_table.values():
            publisher.send_many(events)
        publisher.flush()
        sent = publisher.sent
    elapsed = time.perf_counter() - started
    log.info(
        "published %d events to %s in %.2f s (%.0f events/s)",
        sent,
        topic,
        elapsed,
        sent / elapsed if elapsed else 0.0,
    )
    return sent
