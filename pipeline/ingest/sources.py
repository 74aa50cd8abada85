"""Event sources for the load stage: Avro container files (the embedded default)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pipeline.events import DecodeError, EventCodec, default_codec
from pipeline.events.convert import from_record
from pipeline.ledger.store import Delivery


@dataclass(frozen=True)
class DeadLetter:
    """Input that could not be used, kept with the reason (never dropped silently)."""

    source: str
    position: int
    reason: str
    detail: str
    device_id: str | None = None
    raw: bytes | None = None


def event_files(path: Path) -> list[Path]:
    """One file, or every ``*.avro`` under a directory, in name order."""
    if path.is_dir():
        return sorted(path.rglob("*.avro"))
    if path.exists():
        return [path]
    raise FileNotFoundError(f"{path}: no such file or directory of Avro event files")


def read_file(
    path: Path,
    codec: EventCodec | None = None,
) -> Iterator[Delivery | DeadLetter]:
    """Every event of a container file as a delivery keyed by (file name, index), and every
    damaged stretch as a dead letter: one bad block does not stop the file."""
    codec = codec or default_codec()
    source = path.name
    notice = codec.unverified_notice(path)
    if notice is not None:  # loaded on the operator's word: kept on the record
        yield DeadLetter(source, 0, str(notice.reason), notice.message)
    position = 0
    for item in codec.read_model_records_tolerant(path):
        if isinstance(item, DecodeError):
            lost = f" ({item.records_lost} events lost)" if item.records_lost else ""
            yield DeadLetter(
                source,
                item.offset if item.offset is not None else -1,
                str(item.reason),
                item.message + lost,
            )
            continue
        yield Delivery(source, position, from_record(item))
        position += 1
