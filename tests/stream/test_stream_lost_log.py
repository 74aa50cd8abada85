"""A broker that lost its log (issue 25): offsets stored in the ledger that the broker's log
does not reach, or that point into a log that was replaced, stop the stream loudly (exit 1,
naming topic, partition, stored offset and the broker's log start and end), before anything
is read; nothing is skipped."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.events import default_codec
from pipeline.events.model import TableEvent
from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.simulate.run import SimulationResult
from pipeline.stream.broker import local_broker
from pipeline.stream.cli import main as stream_main
from pipeline.stream.consumer import run_consumer
from pipeline.stream.producer import EventPublisher
from pipeline.stream.resume import PartitionLog, ResumeRefusedError, check_resume
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics

pytestmark = pytest.mark.broker

IDLE = 1.0


def publish_to(settings: KafkaSettings, events: list[TableEvent]) -> None:
    ensure_topics(settings, partitions=1)
    with EventPublisher(settings, create_topics=False) as publisher:
        publisher.send_many(events)


def argv(settings: KafkaSettings, db: Path) -> list[str]:
    return [
        "stream", "--bootstrap", settings.bootstrap_servers, "--db", str(db),
        "--topic", settings.topic, "--group", settings.group_id, "--until-idle", str(IDLE),
    ]  # fmt: skip


@pytest.fixture
def streamed(
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> tuple[Path, list[TableEvent]]:
    """A ledger that streamed T01's day (one partition) from the session's broker."""
    events = small_day.events_by_table["T01"]
    publish_to(stream_settings, events)
    db = tmp_path / "stream.duckdb"
    report = run_consumer(stream_settings, db, catalog, until_idle=IDLE)
    assert report.events == len(events)
    return db, events


def deliveries(db: Path) -> int:
    with Ledger(db, read_only=True) as ledger:
        row = ledger.con.execute("SELECT count(*) FROM deliveries").fetchone()
    return int(row[0]) if row else 0


def test_offsets_past_the_end_of_a_fresh_brokers_log_stop_the_stream(
    stream_settings: KafkaSettings,
    streamed: tuple[Path, list[TableEvent]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    db, events = streamed
    stored = len(events)
    with local_broker() as fresh:  # the broker lost its log; 100 events came since
        settings = replace(stream_settings, bootstrap_servers=fresh)
        publish_to(settings, events[:100])
        capsys.readouterr()
        assert stream_main(argv(settings, db)) == 1
    err = capsys.readouterr().err
    print(err)
    assert f"cannot resume {settings.topic} partition 0 (group {settings.group_id})" in err
    assert f"stored offset {stored}" in err
    assert "holds offsets 0 to 99 (log start 0, end 100)" in err
    assert "Nothing was read, skipped or written" in err
    assert "--group NEW" in err
    assert deliveries(db) == stored, "nothing was loaded from the fresh broker"


def test_offsets_into_a_replaced_log_stop_the_stream(
    stream_settings: KafkaSettings,
    streamed: tuple[Path, list[TableEvent]],
    small_day: SimulationResult,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db, events = streamed
    stored = len(events)
    with local_broker() as fresh:  # the new log is longer, but holds other events
        settings = replace(stream_settings, bootstrap_servers=fresh)
        publish_to(settings, events[50:] + events[:50] + events[:10])
        capsys.readouterr()
        assert stream_main(argv(settings, db)) == 1
    err = capsys.readouterr().err
    assert f"stored offset {stored}" in err
    assert f"at offset {stored - 1} it holds event {events[49].event_id}" in err
    assert f"the ledger loaded event {events[-1].event_id}" in err
    assert deliveries(db) == stored


def test_a_log_start_past_the_stored_offset_is_refused(
    stream_settings: KafkaSettings, streamed: tuple[Path, list[TableEvent]]
) -> None:
    db, events = streamed
    stored = len(events)
    with Ledger(db) as ledger, pytest.raises(ResumeRefusedError) as refused:
        check_resume(
            ledger, str(db), stream_settings, 0, stored,
            PartitionLog(log_start=stored + 40, high_water=stored + 90, first=None),
            default_codec(),
        )  # fmt: skip
    message = str(refused.value)
    assert f"offsets {stored} to {stored + 39} ({40:,} records) are gone" in message
    assert f"(log start {stored + 40}, end {stored + 90})" in message
    assert refused.value.exit_code == 1


def test_a_resume_on_the_same_log_goes_on(
    stream_settings: KafkaSettings,
    streamed: tuple[Path, list[TableEvent]],
    catalog: Mapping[str, TableRules],
    small_day: SimulationResult,
) -> None:
    db, events = streamed
    more = small_day.events_by_table["T02"][:30]
    with EventPublisher(stream_settings, create_topics=False) as publisher:
        publisher.send_many(more)
    report = run_consumer(stream_settings, db, catalog, until_idle=IDLE)
    assert report.events == len(more)
    assert deliveries(db) == len(events) + len(more)
