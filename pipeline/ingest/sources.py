"""Event sources for the load stage: Avro container files (the embedded default)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pipeline.events import DecodeError, EventCodec, default_codec
from pipeline.events.convert import from_record
from pipeline.ledger.columns import Occurrences
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


def file_source(path: Path) -> str:
    """A file's ``source`` in the ledger: its full resolved path, so files of the same name
    in other directories (another day's ``T01.avro``) are other sources."""
    return str(path.resolve())


def read_file(
    path: Path,
    codec: EventCodec | None = None,
) -> Iterator[Delivery | DeadLetter]:
    """Every event of a container file as a delivery, and every damaged stretch as a dead
    letter: one bad block does not stop the file.

    A delivery's position is its index in the file, counting the events a damaged block
    held where its header says how many: the events after it keep the positions they have
    in the repaired file (where the header is damaged too, the repaired file gives them its
    positions when it is loaded: :meth:`~pipeline.ledger.store.Ledger.merge_batch`). Its
    occurrence counts the earlier events of the file with the same event id and seq (a
    device's duplicate inside one file is a delivery of its own)."""
    codec = codec or default_codec()
    source = file_source(path)
    notice = codec.unverified_notice(path)
    if notice is not None:  # loaded on the operator's word: kept on the record
        yield DeadLetter(source, 0, str(notice.reason), notice.message)
    position = 0
    numbered = Occurrences()
    for item in codec.read_model_records_tolerant(path):
        if isinstance(item, DecodeError):
            lost = f" ({item.records_lost} events lost)" if item.records_lost else ""
            yield DeadLetter(
                source,
                item.offset if item.offset is not None else -1,
                str(item.reason),
                item.message + lost,
            )
            position += item.records_lost or 0
            continue
        yield numbered.delivery(source, position, from_record(item))
        position += 1
