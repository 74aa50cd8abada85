"""A broker that lost its log (issue 25): offsets stored in the ledger that the broker's log
does not reach, or that point into a log that was replaced, stop the stream loudly (exit 1,
naming topic, partition, stored offset and the broker's log start and end), before anything
is read; nothing is skipped."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest
from kafka import TopicPartition

from pipeline.events import default_codec
from pipeline.events.model import TableEvent
from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.simulate.run import SimulationResult
from pipeline.stream.broker import free_port, local_broker
from pipeline.stream.cli import main as stream_main
from pipeline.stream.consumer import ConsumerReport, _Partitions, run_consumer
from pipeline.stream.producer import EventPublisher
from pipeline.stream.resume import PartitionLog, ResumeRefusedError, check_resume
from pipeline.stream.retry import Backoff
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


def test_a_broker_that_loses_its_log_under_a_running_stream_stops_it(
    stream_settings: KafkaSettings, small_day: SimulationResult, catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:  # fmt: skip
    events = small_day.events_by_table["T01"]
    port = free_port()
    settings = replace(stream_settings, bootstrap_servers=f"127.0.0.1:{port}")
    db = tmp_path / "stream.duckdb"
    loaded, stop = threading.Event(), threading.Event()
    outcome: dict[str, BaseException] = {}

    def stream() -> None:
        try:
            run_consumer(
                settings, db, catalog, until_idle=None, stop=stop,
                on_batch=lambda batch: loaded.set(),
            )  # fmt: skip
        except BaseException as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=stream)
    with local_broker(port):
        publish_to(settings, events[:600])
        worker.start()
        assert loaded.wait(30)
    restarted = time.monotonic()
    with local_broker(port):  # the same address, an empty log
        publish_to(settings, events[600:700])
        worker.join(60)
        stop.set()
        worker.join(10)
    seconds = time.monotonic() - restarted
    error = outcome.get("error")
    assert isinstance(error, ResumeRefusedError), error
    print(f"stopped {seconds:.1f} s after the restart: {error}")
    # Whichever comes first: a fetch from the new log (the position moved back to 0), or
    # the rebalance the new broker forces (the resume check), before or after the new log's
    # 100 records arrived
    said = str(error)
    assert ("had read up to offset 600, but the broker" in said and "from offset 0" in said) or (
        "stored offset 600" in said and re.search(r"\(log start 0, end (0|100)\)", said) is not None
    ), said
    assert deliveries(db) == 600, "nothing of the new log was loaded"


class _Record:
    def __init__(self, offset: int) -> None:
        self.offset = offset


class _Consumer:
    """What ``_Partitions.polled`` asks of the consumer: the log start."""

    def __init__(self, log_start: int) -> None:
        self.log_start = log_start

    def beginning_offsets(self, tps: list[TopicPartition]) -> dict[TopicPartition, int]:
        return dict.fromkeys(tps, self.log_start)


class _Ledgers:
    def describe(self, partition: int) -> str:
        return f"shard {partition}"


@pytest.mark.parametrize(
    ("log_start", "first", "refused"),
    [
        (0, 500, None),  # goes on where it stopped
        (0, 502, None),  # a jump within the log (transaction markers, compaction)
        (0, 0, "now gives records from offset 0: its log no longer holds offset 500"),
        (700, 700, "now starts its log at 700: offsets 500 to 699 (200 records) are gone"),
    ],
)
def test_a_running_stream_stops_when_its_position_is_moved(
    stream_settings: KafkaSettings, log_start: int, first: int, refused: str | None
) -> None:
    """What kafka-python does when a Kafka broker answers OFFSET_OUT_OF_RANGE mid-run (tansu
    answers an empty fetch instead): the position moves to the log start."""
    consumer = _Consumer(log_start)
    partitions = _Partitions(
        consumer,
        _Ledgers(),  # type: ignore[arg-type]
        stream_settings,
        Backoff(),
        ConsumerReport(),
    )
    partitions.open.add(3)
    partitions.read_to[3] = 500
    tp = TopicPartition(stream_settings.topic, 3)
    records = [_Record(first), _Record(first + 1)]
    if refused is None:
        partitions.polled(tp, records)
        assert partitions.read_to[3] == first + 2
        return
    with pytest.raises(ResumeRefusedError, match=re.escape(refused)) as stop:
        partitions.polled(tp, records)
    assert f"{stream_settings.topic} partition 3 (group {stream_settings.group_id}" in str(
        stop.value
    )
    assert "had read up to offset 500" in str(stop.value)
    assert partitions.read_to[3] == 500, "nothing taken from the moved position"
