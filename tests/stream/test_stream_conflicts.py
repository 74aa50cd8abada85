"""Two copies of one event that disagree (issue 25), on the Kafka path: a CRITICAL conflict
naming both deliveries by topic, partition and offset, neither copy applied, whichever came
first (also when the second copy arrives batches after the first was applied)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.stream.consumer import run_consumer
from pipeline.stream.producer import EventPublisher
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics
from tests.ingest.doctored import DOCTORED, FACTOR, doctor, genuine_day
from tests.ingest.test_conflicting_copies import exceptions, load, recorded_paid, write

pytestmark = [pytest.mark.broker, pytest.mark.rule("NJ-DATA-CONFLICT")]


@pytest.mark.parametrize("first", ["doctored", "genuine"])
def test_stream_copies_that_disagree_are_a_critical_conflict(
    first: str,
    stream_settings: KafkaSettings,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    settings = stream_settings
    ensure_topics(settings, partitions=1)
    events = genuine_day()
    doctored = doctor(events)
    order = doctored + events if first == "doctored" else events + doctored
    with EventPublisher(settings, create_topics=False) as publisher:
        publisher.send_many(order)
    offsets: dict[str, list[int]] = {}
    for offset, event in enumerate(order):
        offsets.setdefault(event.event_id, []).append(offset)

    db = tmp_path / "stream.duckdb"
    # batches of 300: the second copy comes batches after the first was replayed
    report = run_consumer(settings, db, catalog, until_idle=1.0, max_batch=300)
    assert report.events == len(order)
    assert report.batches >= 4

    conflicts = exceptions(db, "NJ-DATA-CONFLICT")
    assert len(conflicts) == DOCTORED
    for severity, message, ids in conflicts:
        assert severity == "CRITICAL"
        (event_id,) = ids
        for offset in offsets[event_id]:
            assert f"Kafka topic {settings.topic} partition 0 offset {offset}" in message
    disputed = {e.event_id for e in doctored}
    assert not [d for d in exceptions(db, "NJ-DATA-DUPLICATE") if set(d[2]) & disputed]

    reference = tmp_path / "genuine.duckdb"
    load(reference, write(tmp_path / "genuine" / "T01.avro", events))
    rounds = {e.round_id for e in doctored if e.round_id}
    assert recorded_paid(db, rounds) == 0
    assert recorded_paid(db) == recorded_paid(reference, rounds, outside=True)
    doctored_extra = sum(e.fields["paid_cents"] for e in doctored) * (FACTOR - 1) // FACTOR
    with Ledger(db, read_only=True) as ledger:
        row = ledger.con.execute("SELECT count(*) FROM deliveries").fetchone()
    assert row is not None and row[0] == len(order), "both copies stay in the ledger"
    print(
        f"{first} first: {report.batches} batches, {len(rounds)} rounds held, recorded "
        f"payouts ${recorded_paid(db) / 100:,.2f} (not +${doctored_extra / 100:,.2f})"
    )
