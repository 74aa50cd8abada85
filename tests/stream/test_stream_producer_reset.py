"""A broker restarted under a running stream forgets its producers (issue 25:
``UnknownProducerIdError`` as a traceback). The dead-letter and exceptions sender drops the
forgotten producer and sends the call again with a new one."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kafka import KafkaConsumer, TopicPartition

from pipeline.stream.broker import free_port, local_broker
from pipeline.stream.retry import Backoff, retry_transient
from pipeline.stream.sender import AcknowledgedSender
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics


def read_all(settings: KafkaSettings, topic: str) -> list[bytes]:
    consumer = KafkaConsumer(**settings.client_kwargs(), auto_offset_reset="earliest")
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        values: list[bytes] = []
        for _ in range(10):
            batch = consumer.poll(timeout_ms=300).get(tp, [])
            values += [r.value for r in batch]
            if not batch and values:
                break
        return values
    finally:
        consumer.close()


def test_a_restarted_broker_gets_the_messages_from_a_new_producer(
    stream_settings: KafkaSettings,
) -> None:
    port = free_port()
    retries: list[str] = []

    def retrying(operation: Callable[[], Any], what: str) -> Any:
        return retry_transient(
            operation,
            what=what,
            backoff=Backoff(initial=0.05, attempts=4),
            on_retry=lambda exc, _delay: retries.append(type(exc).__name__),
        )

    with local_broker(port) as first:
        settings = replace(stream_settings, bootstrap_servers=first)
        ensure_topics(settings, partitions=1)
        sender = AcknowledgedSender(settings, settings.dlq_topic, retrying)
        sender.send([(b"T01", b"before", [])], "dead letters")
        assert retries == []
    with local_broker(port) as restarted:  # same address, nothing remembered
        try:
            ensure_topics(settings, partitions=1)
            started = time.monotonic()
            sender.send([(b"T01", b"after", [])], "dead letters")
            seconds = time.monotonic() - started
            sender.send([(b"T01", b"and on", [])], "dead letters")
            assert read_all(settings, settings.dlq_topic) == [b"after", b"and on"]
            assert restarted == first
        finally:
            sender.close()
    print(f"sent again by a new producer in {seconds:.2f} s")
    print(f"retries after the restart: {retries}")
    assert retries == ["ProducerForgottenError"]
    assert sender.sent == 3
