"""Between the Avro record shape (:mod:`pipeline.events.codec`) and the in-memory
:class:`~pipeline.events.model.TableEvent` the emulator and the replay use.

The record shape carries ``uuid.UUID`` and aware ``datetime`` values; the model carries their
string and integer-microsecond forms, which hash, sort and store without time-zone surprises.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping
from typing import Any

from pipeline.events.codec import EventCodec
from pipeline.events.model import TableEvent

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
ONE_MICROSECOND = dt.timedelta(microseconds=1)


def micros_to_datetime(micros: int) -> dt.datetime:
    return EPOCH + dt.timedelta(microseconds=micros)


def datetime_to_micros(moment: dt.datetime) -> int:
    return (moment - EPOCH) // ONE_MICROSECOND


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
    """The model event for a decoded Avro record."""
    full_name, fields = record["payload"]
    return TableEvent(
        str(record["event_id"]),
        record["table_id"],
        record["device_id"],
        int(record["seq"]),
        datetime_to_micros(record["occurred_at"]),
        full_name.rpartition(".")[2],
        dict(fields),
    )
