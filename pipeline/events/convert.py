"""Between the Avro record shape (:mod:`pipeline.events.codec`) and the in-memory
:class:`~pipeline.events.model.TableEvent` the emulator and the replay use.

The record shape carries ``uuid.UUID`` and aware ``datetime`` values; the model carries their
string and integer-microsecond forms, which hash, sort and store without time-zone surprises.
"""

from __future__ import annotations

import datetime as dt
import functools
import uuid
from collections.abc import Mapping
from typing import Any

from pipeline.events.codec import EPOCH, NAMESPACE, EventCodec, datetime_to_micros
from pipeline.events.model import MAX_DEVICE_STRING, TableEvent, bounded


def micros_to_datetime(micros: int) -> dt.datetime:
    return EPOCH + dt.timedelta(microseconds=micros)


def to_record(codec: EventCodec, event: TableEvent) -> dict[str, Any]:
    """The Avro record for ``event``; fields are checked and defaults filled by the codec."""
    record = codec.make_event(
        event.table_id,
        event.device_id,
        event.seq,
        micros_to_datetime(event.occurred_at),
        event.payload_type,
        event_id=uuid.UUID(event.event_id),
        **event.fields,
    )
    return dict(record)


def from_record(record: Mapping[str, Any]) -> TableEvent:
    """The model event for a decoded record, in either shape the codec reads
    (:class:`~pipeline.events.codec.EventRecord` or
    :class:`~pipeline.events.codec.ModelRecord`). The event takes the record's payload fields
    as they are (decoders return a fresh dict per record), except that a string longer than
    :data:`~pipeline.events.model.MAX_DEVICE_STRING` is cut at intake
    (:func:`~pipeline.events.model.bounded`); the replay reports each cut."""
    full_name, fields = record["payload"]
    event_id = record["event_id"]
    occurred_at = record["occurred_at"]
    for name, value in fields.items():
        if type(value) is str and len(value) > MAX_DEVICE_STRING:
            fields[name] = bounded(value)
    return TableEvent(
        bounded(event_id if isinstance(event_id, str) else str(event_id)),
        bounded(record["table_id"]),
        bounded(record["device_id"]),
        record["seq"],
        occurred_at if isinstance(occurred_at, int) else datetime_to_micros(occurred_at),
        _short_name(full_name),
        fields,
    )


@functools.lru_cache(maxsize=256)
def _short_name(full_name: str) -> str:
    return full_name.rpartition(".")[2]


class RecordBuilder:
    """Avro records from trusted in-memory events (the emulator's), without
    :meth:`EventCodec.make_event`'s per-field checks: the container writer still checks
    every record against the schema. Fields an event leaves out are written as null."""

    def __init__(self, codec: EventCodec) -> None:
        self._fields = {t: codec.payload_fields(t) for t in codec.payload_types}
        self._fullname = {t: f"{NAMESPACE}.{t}" for t in codec.payload_types}

    def __call__(self, event: TableEvent) -> dict[str, Any]:
        given = event.fields
        return {
            "event_id": event.event_id,
            "table_id": event.table_id,
            "device_id": event.device_id,
            "seq": event.seq,
            "occurred_at": event.occurred_at,
            "payload": (
                self._fullname[event.payload_type],
                {name: given.get(name) for name in self._fields[event.payload_type]},
            ),
        }
