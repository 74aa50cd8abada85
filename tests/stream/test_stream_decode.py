"""Turning polled records into deliveries and dead letters (no broker needed)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.events import default_codec
from pipeline.events.convert import to_record
from pipeline.ingest.sources import DeadLetter
from pipeline.simulate.run import SimulationResult
from pipeline.stream.consumer import decode_records, dlq_headers


@dataclass
class Record:
    """The fields of kafka-python's ConsumerRecord that the consumer reads."""

    offset: int
    value: bytes | None
    key: bytes | None = b"T01"
    topic: str = "table-events"
    partition: int = 4
    headers: list[tuple[str, bytes]] = field(default_factory=list)


def test_good_and_bad_records(small_day: SimulationResult) -> None:
    codec = default_codec()
    events = small_day.events_by_table["T01"][:3]
    good = [codec.encode(to_record(codec, e)) for e in events]
    records = [
        Record(10, good[0]),
        Record(11, b"not avro at all"),
        Record(12, b"\x00\x00\x00\x27\x0f" + good[1][5:]),  # schema id 9999
        Record(13, good[1][:-4]),
        Record(14, good[1], key=b"T02"),
        Record(15, None),
        Record(16, good[1] + b"\x00"),
        Record(17, good[2], key=None),
        Record(18, good[1]),
        Record(18, good[1]),  # the same record polled twice (after a rebalance seek)
    ]
    out = decode_records(records, codec)

    assert [(d.source, d.position) for d in out.deliveries] == [
        ("kafka:table-events:4", 10),
        ("kafka:table-events:4", 18),
    ]
    assert [d.event for d in out.deliveries] == [events[0], events[1]]
    assert {(d.position, d.reason) for d in out.dead_letters} == {
        (11, "BAD_MAGIC"),
        (12, "UNKNOWN_SCHEMA_ID"),
        (13, "TRUNCATED"),
        (14, "KEY_MISMATCH"),
        (15, "NO_VALUE"),
        (16, "TRAILING_BYTES"),
        (17, "KEY_MISMATCH"),
    }
    assert all(d.source == "kafka:table-events:4" for d in out.dead_letters)
    by_offset = {d.position: d for d in out.dead_letters}
    assert by_offset[11].raw == b"not avro at all"
    assert by_offset[13].raw == good[1][:-4]
    assert by_offset[14].device_id == events[1].device_id
    assert "T02" in by_offset[14].detail
    assert out.next_offsets == {4: 19}
    assert [r.offset for r in out.dead_records] == sorted(by_offset)


def test_dlq_headers_say_where_from_and_why() -> None:
    record = Record(7, b"junk", headers=[("trace", b"abc")])
    letter = DeadLetter("kafka:table-events:4", 7, "BAD_MAGIC", "x" * 5000, "shoe-1", b"junk")
    headers = dict(dlq_headers(record, letter, "auditors"))
    assert headers["dlq.source.topic"] == b"table-events"
    assert headers["dlq.source.partition"] == b"4"
    assert headers["dlq.source.offset"] == b"7"
    assert headers["dlq.reason"] == b"BAD_MAGIC"
    assert headers["dlq.consumer.group"] == b"auditors"
    assert headers["dlq.device_id"] == b"shoe-1"
    assert headers["dlq.original.trace"] == b"abc"
    assert len(headers["dlq.detail"]) == 2000
