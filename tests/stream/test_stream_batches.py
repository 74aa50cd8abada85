"""How the consumer cuts its batches (issue 13): a batch ends once the consumer has read up to
the broker's high watermark, so a live consumer never sits out ``batch_wait`` with events in
hand (that wait was added to every event's latency), while a consumer that is behind keeps
polling until its batch is full."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from kafka_checks import assert_exactly_once

from pipeline.rules.config import TableRules
from pipeline.simulate.run import SimulationResult
from pipeline.stream.consumer import BatchReport, run_consumer
from pipeline.stream.producer import publish
from pipeline.stream.settings import KafkaSettings

LONG_WAIT = 60.0
"""A ``batch_wait`` no test could sit out unnoticed."""


def test_a_batch_ends_once_everything_on_the_broker_is_read(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """Everything published is read by the first polls; with nothing more on the broker the
    batch is loaded at once, not after polling ``batch_wait`` seconds for more."""
    sent = publish(small_day, stream_settings.bootstrap_servers, topic=stream_settings.topic)
    assigned: list[float] = []
    committed: list[tuple[float, BatchReport]] = []
    report = run_consumer(
        stream_settings,
        tmp_path / "live.duckdb",
        catalog,
        until_idle=None,
        max_batches=1,
        max_batch=10 * sent,
        batch_wait=LONG_WAIT,
        on_assignment=lambda _: assigned.append(time.monotonic()),
        on_batch=lambda batch: committed.append((time.monotonic(), batch)),
    )
    assert report.stopped == "max batches"
    [(at, batch)] = committed
    assert batch.events == sent, "the batch stopped before the broker's high watermark"
    assert at - assigned[-1] < LONG_WAIT / 3, "the consumer waited for events nobody sent"
    assert_exactly_once(tmp_path / "live.duckdb", stream_settings, sent)


def test_a_consumer_behind_fills_its_batches_from_many_small_fetches(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """Fetches of 2 kB per partition hand over a few records per poll; the broker holds
    more, so the consumer keeps polling until ``max_batch`` (one transaction, not one per
    fetch)."""
    sent = publish(small_day, stream_settings.bootstrap_servers, topic=stream_settings.topic)
    max_batch = 1000
    assert sent > 2 * max_batch
    sizes: list[int] = []
    report = run_consumer(
        stream_settings,
        tmp_path / "behind.duckdb",
        catalog,
        until_idle=3.0,
        max_batch=max_batch,
        batch_wait=LONG_WAIT,
        consumer_config={"max_partition_fetch_bytes": 2048},
        on_batch=lambda batch: sizes.append(batch.messages),
    )
    assert report.events + report.dead_letters == sent
    assert sizes[:2] == [max_batch, max_batch]
    assert_exactly_once(tmp_path / "behind.duckdb", stream_settings, sent)
