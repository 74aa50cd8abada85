"""The ``audit-exceptions`` contract: exception notices as Avro, registered like the events.

Schema: ``schemas/audit-exceptions/audit_exception.avsc`` (record
``nj.baccarat.audit.v1.AuditExceptionNotice``), registered in its own manifest
``schemas/audit-exceptions/registry.json`` with the same :class:`FileSchemaRegistry` (ids from
1001 on, so they never collide with the table-event ids in one Confluent registry). Messages
use the Confluent wire format: byte ``0``, the 4-byte big-endian schema id, then the Avro
binary encoding of one notice.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastavro import schemaless_reader, schemaless_writer

from pipeline.events.registry import FileSchemaRegistry, ParsedSchema, default_schema_dir

SUBJECT = "audit-exceptions-value"
DIRECTORY = "audit-exceptions"
_MAGIC = 0
_HEADER = struct.Struct(">bI")


class NoticeDecodeError(ValueError):
    """Bytes that are not a registered exception notice; the message says why."""


def notice_registry(schema_dir: Path | None = None) -> FileSchemaRegistry:
    """The audit-exceptions registry (``schemas/audit-exceptions`` of the schema directory),
    verified against its source like the event contract's."""
    return FileSchemaRegistry((schema_dir or default_schema_dir()) / DIRECTORY)


class NoticeCodec:
    """Encodes notices with the latest registered schema; decodes any registered version."""

    def __init__(self, registry: FileSchemaRegistry | None = None) -> None:
        self.registry = registry or notice_registry()
        self.schema_id = self.registry.id_for_latest()
        self.schema: ParsedSchema = self.registry.schema_for_id(self.schema_id)

    def encode(self, notice: Mapping[str, Any]) -> bytes:
        """A notice (a mapping of the schema's fields) in the Confluent wire format."""
        out = io.BytesIO()
        out.write(_HEADER.pack(_MAGIC, self.schema_id))
        schemaless_writer(out, self.schema, dict(notice))
        return out.getvalue()

    def decode(self, message: bytes) -> dict[str, Any]:
        """The notice a message holds; raises :class:`NoticeDecodeError`."""
        if len(message) < _HEADER.size or message[0] != _MAGIC:
            raise NoticeDecodeError(
                f"not a Confluent-framed Avro message (first bytes {message[:5]!r})"
            )
        _, schema_id = _HEADER.unpack_from(message)
        try:
            writer = self.registry.schema_for_id(schema_id)
        except LookupError as err:
            raise NoticeDecodeError(str(err)) from err
        stream = io.BytesIO(message[_HEADER.size :])
        try:
            record = schemaless_reader(stream, writer, self.schema)
        except Exception as err:  # fastavro raises several types for bad bytes
            raise NoticeDecodeError(f"schema id {schema_id}: cannot decode: {err}") from err
        if not isinstance(record, dict) or stream.tell() != len(message) - _HEADER.size:
            raise NoticeDecodeError(f"schema id {schema_id}: trailing bytes after the notice")
        return record


def utc(moment: datetime) -> datetime:
    """A ledger timestamp (naive UTC) as an aware one, as Avro's timestamp-micros wants."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


__all__ = ["SUBJECT", "NoticeCodec", "NoticeDecodeError", "notice_registry", "utc"]
