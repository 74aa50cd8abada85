"""Avro container files: round trip, atomic writes, appending, and damaged files."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path
from typing import Any

import fastavro
import pytest

from pipeline.events import (
    CONTAINER_CODECS,
    DecodeError,
    DecodeReason,
    EventCodec,
    EventDecodeError,
    EventEncodeError,
    EventRecord,
    InMemorySchemaRegistry,
    make_event,
)
from pipeline.events.codec import META_SCHEMA_ID

UTC = dt.UTC
START = dt.datetime(2025, 3, 1, 20, 0, tzinfo=UTC)
RANKS = ["ACE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN"]


def shoe_events(count: int, first_seq: int = 1) -> list[EventRecord]:
    return [
        make_event(
            "PB-07",
            "shoe-07",
            seq,
            START + dt.timedelta(seconds=seq),
            "CardDealt",
            shoe_id="S-1",
            round_id=f"R-{seq // 6}",
            position=seq - 1,
            rank=RANKS[seq % 10],
            suit="CLUBS",
            hand="BANKER" if seq % 2 else "PLAYER",
        )
        for seq in range(first_seq, first_seq + count)
    ]


def blocks(path: Path) -> list[tuple[int, int, int]]:
    """(offset, size, events) of every block."""
    with path.open("rb") as fo:
        return [(b.offset, b.size, b.num_records) for b in fastavro.block_reader(fo)]


def corrupt(path: Path, position: int, value: int) -> None:
    data = bytearray(path.read_bytes())
    data[position] = value
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def codec() -> EventCodec:
    """These tests read files of every codec, damaged in every way, with the careful block
    reader: uncompressed files show each damage as it is. Refusing a file nothing vouches
    for is tested in test_event_integrity.py."""
    return EventCodec(allow_unverified=True)


@pytest.fixture
def written(tmp_path: Path, codec: EventCodec) -> tuple[Path, list[EventRecord]]:
    events = shoe_events(400)
    path = tmp_path / "PB-07_2025-03-01.avro"
    assert codec.write_events(path, events, codec="null", sync_interval=2000) == 400
    assert len(blocks(path)) >= 5
    return path, events


@pytest.mark.parametrize("codec_name", CONTAINER_CODECS)
def test_round_trip(tmp_path: Path, codec: EventCodec, codec_name: str) -> None:
    events = shoe_events(1000)
    path = tmp_path / "day.avro"
    assert codec.write_events(path, iter(events), codec=codec_name) == 1000
    assert list(codec.read_events(path)) == events
    with path.open("rb") as fo:
        avro = fastavro.reader(fo)
        assert avro.metadata["avro.codec"] == codec_name
        assert avro.metadata[META_SCHEMA_ID] == str(codec.schema_id)
        assert avro.metadata["nj.baccarat.subject"] == "table-events-value"


def test_failed_write_leaves_the_previous_file(tmp_path: Path, codec: EventCodec) -> None:
    path = tmp_path / "day.avro"
    codec.write_events(path, shoe_events(3))
    before = path.read_bytes()
    bad = shoe_events(10)
    name, fields = bad[5]["payload"]
    bad[5] = {**bad[5], "payload": (name, {**fields, "rank": "JOKER"})}
    with pytest.raises(EventEncodeError, match="JOKER"):
        codec.write_events(path, bad)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["day.avro"]  # no temporary file left


def test_append(tmp_path: Path, codec: EventCodec) -> None:
    path = tmp_path / "day.avro"
    first, second = shoe_events(10), shoe_events(5, first_seq=11)
    codec.write_events(path, first, codec="deflate")
    assert codec.write_events(path, second, append=True) == 5
    assert list(codec.read_events(path)) == first + second
    new = tmp_path / "new.avro"
    assert codec.write_events(new, first, append=True) == 10  # append creates a missing file
    assert list(codec.read_events(new)) == first


def test_append_refuses_a_file_of_another_schema(
    tmp_path: Path, codec: EventCodec, v1_document: dict[str, Any]
) -> None:
    other = {
        "type": "record",
        "name": "Other",
        "fields": [{"name": "x", "type": "int"}],
    }
    path = tmp_path / "other.avro"
    with path.open("wb") as fo:
        fastavro.writer(fo, fastavro.parse_schema(other), [{"x": 1}])
    with pytest.raises(EventEncodeError, match="different schema"):
        codec.write_events(path, shoe_events(1), append=True)
    text = tmp_path / "text.avro"
    text.write_text("not avro")
    with pytest.raises(EventEncodeError, match="not a readable Avro container"):
        codec.write_events(text, shoe_events(1), append=True)


def test_bad_sync_marker_skips_one_block(
    written: tuple[Path, list[EventRecord]], codec: EventCodec
) -> None:
    path, events = written
    layout = blocks(path)
    offset, size, lost = layout[2]
    before = sum(n for _, _, n in layout[:2])
    corrupt(path, offset + size - 1, path.read_bytes()[offset + size - 1] ^ 0xFF)

    items = list(codec.read_events_tolerant(path))
    errors = [i for i in items if isinstance(i, DecodeError)]
    assert len(errors) == 1
    error = errors[0]
    assert (error.reason, error.offset, error.records_lost) == (
        DecodeReason.CORRUPT_BLOCK, offset, lost
    )  # fmt: skip
    assert error.source == str(path) and "sync marker" in error.message
    assert [i for i in items if not isinstance(i, DecodeError)] == (
        events[:before] + events[before + lost :]
    )
    assert items.index(error) == before

    seen: list[EventRecord] = []
    with pytest.raises(EventDecodeError) as caught:
        seen.extend(codec.read_events(path))
    assert caught.value.reason is DecodeReason.CORRUPT_BLOCK and caught.value.offset == offset
    assert seen == events[:before]


@pytest.mark.parametrize("size_byte", [0x7E, 0x01])
def test_corrupt_block_size_skips_one_block(
    written: tuple[Path, list[EventRecord]], codec: EventCodec, size_byte: int
) -> None:
    path, events = written
    layout = blocks(path)
    offset, _size, lost = layout[2]
    data = path.read_bytes()
    _count, size_at = read_varint(data, offset)
    corrupt(path, size_at, size_byte)  # 63 bytes, or a negative size
    items = list(codec.read_events_tolerant(path))
    errors = [i for i in items if isinstance(i, DecodeError)]
    assert [(e.reason, e.offset, e.records_lost) for e in errors] == [
        (DecodeReason.CORRUPT_BLOCK, offset, lost)
    ]
    before = layout[0][2] + layout[1][2]
    assert [i for i in items if not isinstance(i, DecodeError)] == (
        events[:before] + events[before + lost :]
    )


def test_bad_enum_in_a_block_loses_the_rest_of_that_block_only(
    written: tuple[Path, list[EventRecord]], codec: EventCodec
) -> None:
    path, events = written
    layout = blocks(path)
    offset, _size, count = layout[1]
    data = path.read_bytes()
    _count, pos = read_varint(data, offset)
    _length, start = read_varint(data, pos)
    first = layout[0][2]
    records = [codec.encode(e)[5:] for e in events[first : first + count]]
    assert data[start : start + sum(map(len, records))] == b"".join(records)
    # the 3rd event of the block: its hand is the last-but-one byte of the record
    hand_at = start + len(records[0]) + len(records[1]) + len(records[2]) - 2
    corrupt(path, hand_at, 30)  # index 15 of Hand (4 symbols)

    items = list(codec.read_events_tolerant(path))
    errors = [i for i in items if isinstance(i, DecodeError)]
    assert [(e.reason, e.offset, e.records_lost) for e in errors] == [
        (DecodeReason.ENUM_OUT_OF_RANGE, offset, count - 2)
    ]
    assert "payload<CardDealt>.hand" in errors[0].message and "record 2" in errors[0].message
    good = [i for i in items if not isinstance(i, DecodeError)]
    assert good == events[: first + 2] + events[first + count :]


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return (value >> 1) ^ -(value & 1), pos


def test_corrupt_deflate_block(tmp_path: Path, codec: EventCodec) -> None:
    events = shoe_events(300)
    path = tmp_path / "day.avro"
    codec.write_events(path, events, codec="deflate", sync_interval=1500)
    layout = blocks(path)
    offset, _size, lost = layout[1]
    data = bytearray(path.read_bytes())
    for i in range(offset + 6, offset + 40):
        data[i] = 0xFF
    path.write_bytes(bytes(data))
    items = list(codec.read_events_tolerant(path))
    errors = [i for i in items if isinstance(i, DecodeError)]
    assert [(e.reason, e.offset, e.records_lost) for e in errors] == [
        (DecodeReason.CORRUPT_BLOCK, offset, lost)
    ]
    assert len(items) - 1 == len(events) - lost


def test_truncated_file(written: tuple[Path, list[EventRecord]], codec: EventCodec) -> None:
    path, events = written
    layout = blocks(path)
    offset, size, lost = layout[-1]
    data = path.read_bytes()
    assert offset + size == len(data)
    path.write_bytes(data[: offset + size // 2])

    items = list(codec.read_events_tolerant(path))
    assert items[:-1] == events[: len(events) - lost]
    error = items[-1]
    assert isinstance(error, DecodeError)
    assert (error.reason, error.offset, error.records_lost) == (
        DecodeReason.TRUNCATED, offset, lost
    )  # fmt: skip
    assert "the file was cut" in error.message
    seen: list[EventRecord] = []
    with pytest.raises(EventDecodeError) as caught:
        seen.extend(codec.read_events(path))
    assert caught.value.reason is DecodeReason.TRUNCATED
    assert seen == events[: len(events) - lost]


def test_file_cut_inside_a_block_count(tmp_path: Path, codec: EventCodec) -> None:
    """fastavro stops without a word when the file ends inside a block's count; we do not."""
    events = shoe_events(200)
    path = tmp_path / "day.avro"
    codec.write_events(path, events[:100], sync_interval=10**6)
    codec.write_events(path, events[100:], append=True)
    (_, _, first), (offset, _, second) = blocks(path)
    assert (first, second) == (100, 100)
    data = path.read_bytes()
    assert data[offset] & 0x80  # a count of 100 is a two-byte varint
    path.write_bytes(data[: offset + 1])
    items = list(codec.read_events_tolerant(path))
    assert items[:-1] == events[:100]
    assert isinstance(items[-1], DecodeError)
    assert (items[-1].reason, items[-1].offset) == (DecodeReason.TRUNCATED, offset)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"PAR1 not avro at all", DecodeReason.BAD_MAGIC),
        (b"Obj", DecodeReason.TRUNCATED),
        (b"", DecodeReason.TRUNCATED),
    ],
)
def test_not_a_container(
    tmp_path: Path, codec: EventCodec, content: bytes, reason: DecodeReason
) -> None:
    path = tmp_path / "x.avro"
    path.write_bytes(content)
    items = list(codec.read_events_tolerant(path))
    assert len(items) == 1 and isinstance(items[0], DecodeError)
    assert (items[0].reason, items[0].offset) == (reason, 0)
    with pytest.raises(EventDecodeError) as caught:
        list(codec.read_events(path))
    assert caught.value.reason is reason


def test_truncated_header(written: tuple[Path, list[EventRecord]], codec: EventCodec) -> None:
    path, _events = written
    path.write_bytes(path.read_bytes()[:500])
    [error] = list(codec.read_events_tolerant(path))
    assert isinstance(error, DecodeError)
    assert error.reason is DecodeReason.TRUNCATED and "bad container header" in error.message


def test_file_from_another_registered_version_is_resolved(
    tmp_path: Path, v1_document: dict[str, Any]
) -> None:
    """A device still on v1 writes a file; a pipeline on v2 (one more optional field)
    reads it, filling the default."""
    import copy

    v2 = copy.deepcopy(v1_document)
    card = next(
        b for b in v2["fields"][5]["type"] if isinstance(b, dict) and b["name"] == "CardDealt"
    )
    card["fields"].append(
        {"name": "read_confidence", "type": ["null", "int"], "default": None, "doc": "x" * 10}
    )
    registry = InMemorySchemaRegistry({1: v1_document, 2: v2})
    device = EventCodec(registry, reader_schema_id=1)
    pipeline = EventCodec(registry)
    events = shoe_events(50)
    path = tmp_path / "old.avro"
    device.write_events(path, events, sync_interval=1000)
    upgraded = list(pipeline.read_events(path))
    assert len(upgraded) == 50
    for old, new in zip(events, upgraded, strict=True):
        assert new["payload"][1] == {**old["payload"][1], "read_confidence": None}
        assert {k: v for k, v in new.items() if k != "payload"} == {
            k: v for k, v in old.items() if k != "payload"
        }


def in_model_form(item: Any) -> Any:
    """What read_model_records_tolerant should make of one read_events_tolerant item."""
    if isinstance(item, DecodeError):
        return item
    return {
        **item,
        "event_id": str(item["event_id"]),
        "occurred_at": (item["occurred_at"] - EPOCH) // dt.timedelta(microseconds=1),
    }


EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("codec_name", CONTAINER_CODECS)
@pytest.mark.parametrize("verify", [False, True])
def test_model_records_are_the_events_in_model_form(
    tmp_path: Path, codec_name: str, verify: bool
) -> None:
    codec = EventCodec(verify=verify, allow_unverified=True)
    path = tmp_path / "day.avro"
    codec.write_events(path, shoe_events(700), codec=codec_name, sync_interval=2000)
    expected = [in_model_form(i) for i in codec.read_events_tolerant(path)]
    got = list(codec.read_model_records_tolerant(path))
    assert got == expected and len(got) == 700
    first = got[0]
    assert not isinstance(first, DecodeError)
    assert isinstance(first["event_id"], str) and isinstance(first["occurred_at"], int)


def test_model_records_after_a_damaged_block_match_too(
    written: tuple[Path, list[EventRecord]], codec: EventCodec
) -> None:
    path, _events = written
    offset, size, _lost = blocks(path)[2]
    corrupt(path, offset + size - 1, path.read_bytes()[offset + size - 1] ^ 0xFF)
    expected = [in_model_form(i) for i in codec.read_events_tolerant(path)]
    got = list(codec.read_model_records_tolerant(path))
    assert got == expected
    assert sum(isinstance(i, DecodeError) for i in got) == 1


@pytest.mark.parametrize(
    ("event_id", "canonical"),
    [
        ("6126F0CD-8F81-44FD-B518-F682D2C9FF5B", "6126f0cd-8f81-44fd-b518-f682d2c9ff5b"),
        ("{6126f0cd-8f81-44fd-b518-f682d2c9ff5b}", "6126f0cd-8f81-44fd-b518-f682d2c9ff5b"),
        ("not-a-uuid", None),
    ],
)
def test_model_records_read_event_ids_as_fastavro_does(
    tmp_path: Path, codec: EventCodec, event_id: str, canonical: str | None
) -> None:
    """fastavro's uuid logical type reads any UUID spelling and rejects other strings; the
    model reader must agree, or one event would have two ids on two paths."""
    records = [dict(e) for e in shoe_events(3)]
    records[1]["event_id"] = event_id
    path = tmp_path / "odd-id.avro"
    with path.open("wb") as fo:
        fastavro.writer(fo, codec.schema, records, validator=False)
    # the strict codec refuses the non-canonical bytes
    lenient = EventCodec(verify=False, allow_unverified=True)
    expected = [in_model_form(i) for i in lenient.read_events_tolerant(path)]
    got = list(lenient.read_model_records_tolerant(path))
    assert got == expected
    if canonical is None:
        assert any(isinstance(i, DecodeError) for i in got)
    else:
        assert [i["event_id"] for i in got if not isinstance(i, DecodeError)][1] == canonical


@pytest.mark.parametrize("occurred_at", [10**18, -(10**17)])
def test_times_no_datetime_can_hold_are_refused_on_every_path(
    tmp_path: Path, codec: EventCodec, occurred_at: int
) -> None:
    """A timestamp-micros outside the years 1-9999 decodes to no datetime, so the one-by-one
    decoder refuses it (INVALID_VALUE). The readers that keep integer microseconds (a file's
    blocks, a batch of Kafka messages) must refuse it too, not pass it to the ledger. Found
    by review."""
    records = [dict(e) for e in shoe_events(3)]
    records[1]["occurred_at"] = occurred_at
    path = tmp_path / "far-future.avro"
    with path.open("wb") as fo:
        fastavro.writer(fo, codec.schema, records, validator=False)
    expected = [in_model_form(i) for i in codec.read_events_tolerant(path)]
    got = list(codec.read_model_records_tolerant(path))
    assert got == expected
    (bad,) = [i for i in got if isinstance(i, DecodeError)]
    assert bad.reason is DecodeReason.INVALID_VALUE
    messages = [encode_framed(codec, r) for r in records]
    assert codec.decode_intact_messages(messages) is None
    assert codec.decode_intact_messages(messages[::2]) is not None
    with pytest.raises(EventDecodeError) as refused:
        codec.decode(messages[1])
    assert refused.value.reason is DecodeReason.INVALID_VALUE


def encode_framed(codec: EventCodec, record: dict[str, Any]) -> bytes:
    """A Confluent-framed message of ``record`` as fastavro writes it, unchecked."""
    out = io.BytesIO()
    out.write(b"\x00" + codec.schema_id.to_bytes(4, "big"))
    fastavro.schemaless_writer(out, codec.schema, record)
    return out.getvalue()
