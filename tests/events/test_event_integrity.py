"""Integrity of container files: a flipped bit never passes as data.

Files are written with the ``snappy`` codec, whose blocks carry a CRC-32 of their data; the
reader checks it. A file without block checksums is read only with a matching producer
digest (``<file>.sha256``) or on the operator's explicit ``allow_unverified``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import fastavro
import pytest

from pipeline.events import (
    DecodeError,
    DecodeReason,
    EventCodec,
    EventDecodeError,
    EventRecord,
    make_event,
)
from pipeline.events.codec import DEFAULT_CONTAINER_CODEC, FileIntegrity

START = dt.datetime(2026, 11, 24, 14, 0, tzinfo=dt.UTC)


def rounds(count: int) -> list[EventRecord]:
    """``count`` cards with round ids like the emulator's (``...S01-R062``); the same each
    run (a flip that passed would pass again)."""
    ids = random.Random(count)
    return [
        make_event(
            "T01",
            "T01-shoe",
            seq,
            START + dt.timedelta(seconds=seq),
            "CardDealt",
            shoe_id="T01-S01",
            round_id=f"T01-2026-11-24-S01-R{seq // 6:03d}",
            position=seq,
            rank="NINE",
            suit="HEARTS",
            hand="PLAYER" if seq % 2 else "BANKER",
            event_id=uuid.UUID(int=ids.getrandbits(128), version=4),
        )
        for seq in range(1, count + 1)
    ]


def block_layout(path: Path) -> list[tuple[int, int, int]]:
    """(offset, size with sync marker, events) of every block."""
    with path.open("rb") as fo:
        return [(b.offset, b.size, b.num_records) for b in fastavro.block_reader(fo)]


def flipped(data: bytes, byte: int, bit: int) -> bytes:
    damaged = bytearray(data)
    damaged[byte] ^= 1 << bit
    return bytes(damaged)


@pytest.fixture(scope="module")
def events() -> list[EventRecord]:
    return rounds(300)


@pytest.fixture
def snappy_file(tmp_path: Path, events: list[EventRecord]) -> Path:
    path = tmp_path / "T01.avro"
    EventCodec().write_events(path, events, sync_interval=2000)
    assert len(block_layout(path)) >= 5
    return path


def test_files_are_written_with_block_checksums_by_default(snappy_file: Path) -> None:
    assert DEFAULT_CONTAINER_CODEC == "snappy"
    with snappy_file.open("rb") as fo:
        assert fastavro.reader(fo).metadata["avro.codec"] == "snappy"
    assert EventCodec().integrity(snappy_file) is FileIntegrity.BLOCK_CHECKSUMS


def damaged_stretches(snappy_file: Path) -> Iterator[tuple[str, int]]:
    """(what, byte) for a few bytes of every part of the third block: its header (count and
    size), its compressed data, its CRC-32, and the sync marker after it."""
    offset, size, _events = block_layout(snappy_file)[2]
    end = offset + size  # after the sync marker
    yield "count", offset
    yield "size", offset + 1
    yield "size", offset + 2
    for byte in (offset + 3, offset + size // 2, end - 21):
        yield "data", byte
    for byte in range(end - 20, end - 16):
        yield "crc", byte
    yield "sync", end - 16
    yield "sync", end - 1


def test_every_flipped_bit_is_a_dead_letter_never_a_changed_event(
    snappy_file: Path, events: list[EventRecord]
) -> None:
    """Each bit of the block's header, data, checksum and sync marker, flipped one at a time:
    the reader yields only events exactly as written, plus at least one error; the blocks
    around the damaged one load in full. (A null-codec file took the same flip in a round
    id, ``-R062`` to ``,R062``, as data.)"""
    codec = EventCodec()
    original = snappy_file.read_bytes()
    by_id = {e["event_id"]: e for e in events}
    layout = block_layout(snappy_file)
    before = sum(n for _, _, n in layout[:2])
    after = sum(n for _, _, n in layout[3:])
    checked = 0
    for what, byte in damaged_stretches(snappy_file):
        for bit in range(8):
            snappy_file.write_bytes(flipped(original, byte, bit))
            items = list(codec.read_events_tolerant(snappy_file))
            got = [i for i in items if not isinstance(i, DecodeError)]
            errors = [i for i in items if isinstance(i, DecodeError)]
            where = f"{what} byte {byte} bit {bit}"
            assert errors, f"{where}: no error"
            assert all(by_id[e["event_id"]] == e for e in got), f"{where}: an event changed"
            assert got[:before] == events[:before], f"{where}: a block before was lost"
            assert got[-after:] == events[-after:], f"{where}: a block after was lost"
            with pytest.raises(EventDecodeError):
                list(codec.read_events(snappy_file))
            checked += 1
    assert checked == 12 * 8
    snappy_file.write_bytes(original)  # the repaired file
    assert list(codec.read_events(snappy_file)) == events


def test_a_damaged_header_stops_the_file_instead_of_changing_its_events(
    tmp_path: Path, events: list[EventRecord]
) -> None:
    """Avro keeps no checksum of the header. A flipped field name in its schema would be read
    as a schema of its own and give the field the reader's default (``face_up`` False read as
    True); the header declares the registered schema id, so it must carry that schema. A
    flipped header sync marker matches no block: every event is counted lost."""
    codec = EventCodec()
    face_down = [dict(e, payload=(e["payload"][0], {**e["payload"][1], "face_up": False}))
                 for e in events]  # fmt: skip
    path = tmp_path / "T01.avro"
    codec.write_events(path, face_down, sync_interval=2000)
    original = path.read_bytes()
    name = original.index(b'"face_up"')
    path.write_bytes(flipped(original, name + 7, 1))  # face_up -> face_wp
    [error] = list(codec.read_events_tolerant(path))
    assert isinstance(error, DecodeError) and error.reason is DecodeReason.SCHEMA_MISMATCH
    assert f"declares schema id {codec.schema_id}" in error.message and error.records_lost == len(
        events
    )
    sync = original.index(original[-16:])  # the header's copy of the marker comes first
    path.write_bytes(flipped(original, sync, 0))
    errors = [i for i in codec.read_events_tolerant(path) if isinstance(i, DecodeError)]
    assert len(errors) == 1 and errors[0].records_lost == len(events)
    assert "the rest of the file is lost too" in errors[0].message
    assert len(list(codec.read_events_tolerant(path))) == 1  # and no event


def test_a_checksum_mismatch_names_the_file_the_block_and_the_events_lost(
    snappy_file: Path, events: list[EventRecord]
) -> None:
    offset, size, lost = block_layout(snappy_file)[2]
    snappy_file.write_bytes(flipped(snappy_file.read_bytes(), offset + size - 21, 0))
    items = list(EventCodec().read_events_tolerant(snappy_file))
    [error] = [i for i in items if isinstance(i, DecodeError)]
    assert error.reason is DecodeReason.CHECKSUM_MISMATCH
    assert error.offset == offset and error.records_lost == lost
    assert str(snappy_file) in error.message and "CRC-32" in error.message
    assert len(items) - 1 == len(events) - lost


def test_a_file_without_block_checksums_is_refused_whole(
    tmp_path: Path, events: list[EventRecord]
) -> None:
    """null and deflate carry no checksum: without a producer digest nothing proves the
    bytes, so the reader refuses every event of the file, saying how many and what to do."""
    codec = EventCodec()
    for name in ("null", "deflate"):
        path = tmp_path / f"{name}.avro"
        codec.write_events(path, events, codec=name, sync_interval=2000)
        assert codec.integrity(path) is FileIntegrity.UNVERIFIED
        [refusal] = list(codec.read_events_tolerant(path))
        assert isinstance(refusal, DecodeError)
        assert refusal.reason is DecodeReason.UNVERIFIABLE_FILE
        assert refusal.records_lost == len(events)
        assert f"{name}.avro.sha256" in refusal.message and "--allow-unverified" in refusal.message
        with pytest.raises(EventDecodeError, match="UNVERIFIABLE_FILE"):
            list(codec.read_events(path))
        assert codec.unverified_notice(path) is None


def test_a_matching_producer_digest_vouches_for_a_file(
    tmp_path: Path, events: list[EventRecord]
) -> None:
    codec = EventCodec()
    path = tmp_path / "T01.avro"
    codec.write_events(path, events, codec="null")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    sidecar = tmp_path / "T01.avro.sha256"
    sidecar.write_text(f"{digest}  T01.avro\n")  # sha256sum's own format
    assert codec.integrity(path) is FileIntegrity.PRODUCER_DIGEST
    assert list(codec.read_events(path)) == events
    sidecar.write_text(digest.upper())
    assert list(codec.read_events(path)) == events


def test_a_digest_that_does_not_match_refuses_the_file_even_when_unverified_is_allowed(
    tmp_path: Path, events: list[EventRecord]
) -> None:
    path = tmp_path / "T01.avro"
    EventCodec().write_events(path, events, codec="null")
    (tmp_path / "T01.avro.sha256").write_text(hashlib.sha256(path.read_bytes()).hexdigest())
    data = path.read_bytes()
    round_id = data.index(b"S01-R042")
    path.write_bytes(data[: round_id + 3] + b"," + data[round_id + 4 :])  # -R042 -> ,R042
    lenient = EventCodec(allow_unverified=True)
    [refusal] = list(lenient.read_events_tolerant(path))
    assert isinstance(refusal, DecodeError)
    assert refusal.reason is DecodeReason.DIGEST_MISMATCH
    assert refusal.records_lost == len(events)
    with pytest.raises(EventDecodeError, match="DIGEST_MISMATCH"):
        lenient.integrity(path)
    (tmp_path / "T01.avro.sha256").write_text("not a digest")
    with pytest.raises(EventDecodeError, match="DIGEST_MISMATCH"):
        list(lenient.read_events(path))
    (tmp_path / "T01.avro.sha256").unlink()  # what the digest guards against:
    changed = [e for e in lenient.read_events(path) if e not in events]
    assert [e["payload"][1]["round_id"] for e in changed] == ["T01-2026-11-24-S01,R042"]


def test_allowing_unverified_files_reads_them_and_leaves_a_notice(
    tmp_path: Path, events: list[EventRecord], snappy_file: Path
) -> None:
    path = tmp_path / "old-device.avro"
    lenient = EventCodec(allow_unverified=True)
    lenient.write_events(path, events, codec="null")
    assert list(lenient.read_events(path)) == events
    notice = lenient.unverified_notice(path)
    assert notice is not None and notice.reason is DecodeReason.LOADED_UNVERIFIED
    assert notice.records_lost == 0 and str(path) in notice.message
    assert lenient.unverified_notice(snappy_file) is None  # checksummed: nothing to note
