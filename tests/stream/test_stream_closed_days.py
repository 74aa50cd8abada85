"""A closed gaming day on the Kafka path: a stream cannot be refused, so its late events are
held apart as CLOSED_GAMING_DAY dead letters (bytes, partition and offset kept), the offsets
advance, and the other days' events load as usual. Against the real bundled broker."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path

import pytest
from kafka import KafkaProducer

from pipeline.config.catalog import gaming_day_of
from pipeline.events import default_codec
from pipeline.events.convert import to_record
from pipeline.ledger.store import CLOSED_GAMING_DAY, Ledger
from pipeline.rules.config import TableRules
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import SimulationResult, simulate
from pipeline.stream.consumer import run_consumer
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics

pytestmark = pytest.mark.broker


def test_late_events_for_a_closed_day_are_held_apart_as_dead_letters(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    settings = stream_settings
    ensure_topics(settings, partitions=1)
    codec = default_codec()
    late = small_day.events_by_table["T01"][:40]
    closed = gaming_day_of().date_of(late[0].occurred_at)
    next_day = simulate(1, 0.5, 3, parse_faults("none"), closed + timedelta(days=1))
    current = next_day.events_by_table["T01"]
    sent = [codec.encode(to_record(codec, e)) for e in late + current]
    producer = KafkaProducer(**settings.producer_kwargs(acks="all"))
    try:
        for value in sent:
            producer.send(settings.topic, key=b"T01", value=value, partition=0)
        producer.flush()
    finally:
        producer.close()
    db = tmp_path / "ledger.duckdb"
    with Ledger(db) as ledger:
        ledger.con.execute(
            "INSERT INTO gaming_days (gaming_date, status) VALUES (?, 'CLOSED')", [closed]
        )

    report = run_consumer(settings, db, catalog, until_idle=1.0, max_batch=500)

    assert (report.events, report.dead_letters) == (len(current), len(late))
    with Ledger(db, read_only=True) as ledger:
        letters = ledger.con.execute(
            "SELECT source, position, reason, raw_bytes, device_id, detail FROM dead_letters "
            "ORDER BY position"
        ).fetchall()
        days = ledger.con.execute(
            "SELECT gaming_date, count(*) FROM deliveries GROUP BY 1"
        ).fetchall()
        stored = ledger.stored_offsets(settings.group_id, settings.topic)
    assert [(s, p, r, raw, d) for s, p, r, raw, d, _ in letters] == [
        (f"kafka:{settings.topic}:0", offset, CLOSED_GAMING_DAY, sent[offset], e.device_id)
        for offset, e in enumerate(late)
    ]
    assert f"belongs to gaming day {closed}, which is closed" in letters[0][5]
    assert late[0].event_id in letters[0][5]
    assert days == [(closed + timedelta(days=1), len(current))]
    assert stored == {0: len(sent)}  # the offsets advanced past the held-apart messages
