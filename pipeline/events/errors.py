"""Errors of the event codec: every bad input becomes one of these, never a raw library error."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class DecodeReason(enum.StrEnum):
    """Why bytes could not be decoded into an event (a short, stable code)."""

    TRUNCATED = "TRUNCATED"
    BAD_MAGIC = "BAD_MAGIC"
    UNKNOWN_SCHEMA_ID = "UNKNOWN_SCHEMA_ID"
    ENUM_OUT_OF_RANGE = "ENUM_OUT_OF_RANGE"
    UNION_INDEX_OUT_OF_RANGE = "UNION_INDEX_OUT_OF_RANGE"
    INVALID_VALUE = "INVALID_VALUE"
    TRAILING_BYTES = "TRAILING_BYTES"
    SCHEMA_MISMATCH = "SCHEMA_MISMATCH"
    CORRUPT_BLOCK = "CORRUPT_BLOCK"
    UNSUPPORTED_CODEC = "UNSUPPORTED_CODEC"
    CHECKSUM_MISMATCH = "CHECKSUM_MISMATCH"
    UNVERIFIABLE_FILE = "UNVERIFIABLE_FILE"
    DIGEST_MISMATCH = "DIGEST_MISMATCH"
    LOADED_UNVERIFIED = "LOADED_UNVERIFIED"
    """Not a failure: the record that a file was loaded without an integrity check."""


ADVICE: dict[DecodeReason, str] = {
    DecodeReason.TRUNCATED: (
        "The data ends before the event does: it was cut short in transit or storage. "
        "Re-fetch it from the broker or the device's outbox; do not patch the bytes."
    ),
    DecodeReason.BAD_MAGIC: (
        "This is not an event in the expected framing (Confluent wire format: first byte 0; "
        "container file: 'Obj\\x01'). Check that the producer uses the Avro serializer with the "
        "schema registry and that you are reading the right topic or file."
    ),
    DecodeReason.UNKNOWN_SCHEMA_ID: (
        "The producer used a schema id this registry does not know. Deploy the registry "
        "(schemas/registry.json) that contains the id before consuming, or correct the "
        "producer's registry configuration."
    ),
    DecodeReason.ENUM_OUT_OF_RANGE: (
        "An enum index is outside the writer schema's symbols: the producer wrote with a "
        "different schema than its schema id says, or the bytes are corrupt. Compare the "
        "producer's schema with the registered schema of that id."
    ),
    DecodeReason.UNION_INDEX_OUT_OF_RANGE: (
        "A union branch index is outside the writer schema's union: the producer wrote with a "
        "different schema than its schema id says, or the bytes are corrupt."
    ),
    DecodeReason.INVALID_VALUE: (
        "A value cannot be decoded (bad UTF-8, malformed UUID or varint, negative length, "
        "date or timestamp out of range): the bytes are corrupt or the producer does not "
        "follow the schema's types. Quarantine the message and report it to the vendor."
    ),
    DecodeReason.TRAILING_BYTES: (
        "Bytes remain after a complete event: the producer wrote with a different schema "
        "than its schema id says, or messages were concatenated."
    ),
    DecodeReason.SCHEMA_MISMATCH: (
        "The writer's schema cannot be resolved against this pipeline's reader schema. "
        "Upgrade the pipeline's registry and code before producers use a new version "
        "(schemas/README.md), or correct the producer's schema."
    ),
    DecodeReason.CORRUPT_BLOCK: (
        "A block of the container file is damaged (bad sync marker, compression or size); "
        "its events are lost. Recover the file from the device if possible; the tolerant "
        "reader continues with the next intact block."
    ),
    DecodeReason.UNSUPPORTED_CODEC: (
        "The container file uses a compression codec this pipeline does not read; write "
        "files with the 'snappy' codec (block checksums)."
    ),
    DecodeReason.CHECKSUM_MISMATCH: (
        "The block's data no longer matches the checksum written with it: bits changed in "
        "storage or transit, and its events are not used (a changed event could accuse a "
        "dealer). Fetch the file again from the device or gateway and deliver it; the other "
        "blocks of this file were verified and loaded."
    ),
    DecodeReason.UNVERIFIABLE_FILE: (
        "Nothing proves these bytes are the ones the device wrote. Have the producer write "
        "the 'snappy' codec (each block checksummed), or deliver the producer's SHA-256 of "
        "the file as <file>.sha256 beside it; only if neither is possible, load it with "
        "--allow-unverified, which the ledger records."
    ),
    DecodeReason.DIGEST_MISMATCH: (
        "The file differs from the one its producer digested (or the digest is unreadable): "
        "fetch both again from the device or gateway and deliver them together."
    ),
    DecodeReason.LOADED_UNVERIFIED: (
        "Loaded on the operator's --allow-unverified: the events are in the ledger, but "
        "nothing proves they are the bytes the device wrote, so a finding that rests on them "
        "can be challenged. Obtain the producer's digest or a checksummed copy and compare."
    ),
}


class EventDecodeError(Exception):
    """Bytes that are not a valid table event.

    ``reason`` is a :class:`DecodeReason`; ``offset`` is where the bad data is in its source
    (for :func:`~pipeline.events.decode_event` the caller's offset, e.g. a Kafka offset; for a
    container file the byte offset of the damaged block); ``byte_offset`` is the position
    within the message or block where decoding failed; ``field`` the field path being read
    (``payload<CardDealt>.rank``). ``device_id``, ``table_id`` and ``seq`` are filled when
    they could be read before the failure. ``str(error)`` says what, where and what to do.
    """

    def __init__(
        self,
        reason: DecodeReason,
        detail: str,
        *,
        source: str = "",
        offset: int | None = None,
        byte_offset: int | None = None,
        field: str | None = None,
        schema_id: int | None = None,
        device_id: str | None = None,
        table_id: str | None = None,
        seq: int | None = None,
        record_index: int | None = None,
    ) -> None:
        self.reason = reason
        self.detail = detail
        self.source = source
        self.offset = offset
        self.byte_offset = byte_offset
        self.field = field
        self.schema_id = schema_id
        self.device_id = device_id
        self.table_id = table_id
        self.seq = seq
        self.record_index = record_index
        super().__init__(self._compose())

    @property
    def message(self) -> str:
        return str(self)

    def __reduce__(self) -> tuple[Any, ...]:
        """Picklable (it crosses process boundaries in worker pools) despite keyword fields."""
        return (_rebuild, (self.reason, self.detail, self._fields()))

    def _fields(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "offset": self.offset,
            "byte_offset": self.byte_offset,
            "field": self.field,
            "schema_id": self.schema_id,
            "device_id": self.device_id,
            "table_id": self.table_id,
            "seq": self.seq,
            "record_index": self.record_index,
        }

    def _compose(self) -> str:
        where: list[str] = []
        if self.source:
            where.append(f"source {self.source}")
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        if self.record_index is not None:
            where.append(f"record {self.record_index} of the block")
        if self.byte_offset is not None:
            where.append(f"byte {self.byte_offset}")
        if self.field:
            where.append(f"field {self.field}")
        if self.schema_id is not None:
            where.append(f"schema id {self.schema_id}")
        who = [
            f"{name} {value!r}"
            for name, value in (
                ("device", self.device_id),
                ("table", self.table_id),
                ("seq", self.seq),
            )
            if value is not None
        ]
        text = f"{self.reason.value}: {self.detail}"
        if where:
            text += f" (at {', '.join(where)})"
        if who:
            text += f" [event from {', '.join(who)}]"
        return f"{text}. {ADVICE[self.reason]}"


def _rebuild(reason: DecodeReason, detail: str, fields: dict[str, Any]) -> EventDecodeError:
    return EventDecodeError(reason, detail, **fields)


class EventEncodeError(ValueError):
    """An event that does not satisfy the schema, so it cannot be encoded."""


@dataclass(frozen=True, slots=True)
class DecodeError:
    """What the tolerant container reader yields in place of events it could not decode."""

    reason: DecodeReason
    message: str
    source: str
    offset: int | None
    """Byte offset in the file of the damaged block (or of the header)."""
    records_lost: int | None
    """How many events the damaged part held, when the block header could be read."""

    @classmethod
    def from_exception(cls, error: EventDecodeError, records_lost: int | None) -> DecodeError:
        return cls(error.reason, str(error), error.source, error.offset, records_lost)
