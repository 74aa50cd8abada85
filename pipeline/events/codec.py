"""Encode and decode table events: Confluent-framed messages and Avro container files.

The event shape
---------------
An event is a plain ``dict`` (typed as :class:`EventRecord`) in fastavro's representation of
the ``nj.baccarat.v1.TableEvent`` record::

    {
        "event_id": UUID("5f0c..."),                      # uuid.UUID
        "table_id": "PB-07",
        "device_id": "shoe-07",
        "seq": 42,                                        # int, >= 1
        "occurred_at": datetime(..., tzinfo=UTC),         # aware datetime, microseconds
        "payload": ("nj.baccarat.v1.CardDealt", {         # (full record name, fields)
            "shoe_id": "S-0001", "round_id": "R-0001-003", "position": 17,
            "rank": "NINE", "suit": "HEARTS", "hand": "PLAYER", "face_up": True,
        }),
    }

- ``payload`` is fastavro's tuple notation for a union of records: the record's full name
  and a dict with *every* field of that record in schema order (optional fields present,
  ``None`` when absent). :func:`payload_type` gives the short name (``"CardDealt"``).
- Enums are their symbol names as ``str`` (``"NINE"``; the symbols are the member names of
  ``pipeline.rules`` enums such as ``Rank`` and ``Suit``). :func:`make_event` also accepts
  the Python enum members.
- ``timestamp-micros`` fields are timezone-aware ``datetime`` in UTC, ``date`` fields are
  ``datetime.date``, the ``uuid`` field is ``uuid.UUID``. Amounts are ``int`` cents.

:func:`decode_event` returns exactly this shape and :func:`encode_event` accepts it, so
``decode_event(encode_event(e)) == e`` for any event built by :func:`make_event`, and
``encode_event(decode_event(b)) == b`` for every message ``b`` the decoder accepts: it accepts
only the canonical encoding (minimal varints, lower-case UUID text, booleans 0/1, indexes in
range), so an event has exactly one byte form.

Wire formats
------------
- A message (Kafka value): magic byte ``0``, the 4-byte big-endian schema id, then the Avro
  binary encoding of the event (Confluent wire format).
- A container file: an Avro Object Container File (one per table per gaming day is the
  embedded devices' transport) whose header carries the writer schema and, in metadata
  ``nj.baccarat.schema_id``, its registry id. Written with the ``snappy`` codec, whose blocks
  carry a CRC-32 of their data; a file is read only when its bytes are vouched for (see
  :meth:`EventCodec.integrity` and schemas/README.md, "Integrity of files").

Errors: bad bytes raise :class:`~pipeline.events.errors.EventDecodeError` with a
:class:`~pipeline.events.errors.DecodeReason`, never a raw fastavro/struct error; events that
do not fit the schema raise :class:`~pipeline.events.errors.EventEncodeError`.

Performance: schemas are parsed once per :class:`EventCodec`; a message whose schema id is
the reader's own is not resolved; a sound container file's blocks are each checked and then
decoded in one go by fastavro (the checksums cost about 1 % of decoding).
Every decoded event is verified by re-encoding it (see :class:`EventCodec` ``verify``), which
roughly doubles decoding time. Measured (fastavro 1.13, one core, mixed events): make_event
≈7 µs, encode ≈12 µs, decode ≈26 µs (≈14 µs with ``verify=False``), container write ≈10 µs
and read ≈22 µs (≈10 µs unverified) per event.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
import hashlib
import io
import json
import os
import re
import tempfile
import uuid
import zlib
from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypedDict, cast

import fastavro
from cramjam import snappy
from fastavro import schemaless_reader, schemaless_writer
from fastavro.validation import validate

from pipeline.events._binary import BadBytes, Walker, collect_names, diagnose, read_long
from pipeline.events.errors import DecodeError, DecodeReason, EventDecodeError, EventEncodeError
from pipeline.events.registry import (
    ParsedSchema,
    SchemaRegistry,
    UnknownSchemaIdError,
    canonical_sha256,
    default_registry,
)

NAMESPACE = "nj.baccarat.v1"
MAGIC_BYTE = 0
HEADER_SIZE = 5
"""Magic byte plus the 4-byte schema id."""
CONTAINER_CODECS = ("null", "deflate", "snappy")
CHECKSUMMED_CODECS = frozenset({"snappy"})
"""Codecs whose blocks carry a checksum of their data: Avro's ``snappy`` stores the CRC-32 of
each block's uncompressed data after it. ``null`` and ``deflate`` carry none (deflate's raw
stream has no check), so a bit flipped in their data can decode as a different event."""
DEFAULT_CONTAINER_CODEC = "snappy"
"""Files are written with block checksums, so the ingest can prove each block is the one the
device wrote (see schemas/README.md, "Integrity of files")."""
DIGEST_SUFFIX = ".sha256"
"""A producer digest sits beside a file as ``<file>.sha256``: the hex SHA-256 of the whole
file (``sha256sum`` output is accepted). It vouches for a file without block checksums."""
_CRC_SIZE = 4
META_SCHEMA_ID = "nj.baccarat.schema_id"
META_SUBJECT = "nj.baccarat.subject"
_OCF_MAGIC = b"Obj\x01"


def _read_one(stream: IO[bytes], schema: ParsedSchema) -> Any:
    """One datum, the payload union as a (name, fields) tuple and an optional enum as its
    symbol (fastavro's return_record_name and return_record_name_override)."""
    return schemaless_reader(stream, schema, None, True, True)


_SYNC_SIZE = 16


class EventRecord(TypedDict):
    """One decoded event; see the module docstring for the shape of ``payload``."""

    event_id: uuid.UUID
    table_id: str
    device_id: str
    seq: int
    occurred_at: dt.datetime
    payload: tuple[str, dict[str, Any]]


class ModelRecord(TypedDict):
    """:class:`EventRecord` with the envelope as the model keeps it: the canonical UUID
    string and integer microseconds since the Unix epoch (UTC)."""

    event_id: str
    table_id: str
    device_id: str
    seq: int
    occurred_at: int
    payload: tuple[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class _PayloadSpec:
    """What make_event needs to know about one payload record, computed once."""

    fullname: str
    fields: tuple[str, ...]
    field_set: frozenset[str]
    required: frozenset[str]
    defaults: Mapping[str, Any]
    enums: Mapping[str, frozenset[str]]
    dates: frozenset[str]


def _payload_specs(schema: ParsedSchema) -> dict[str, _PayloadSpec]:
    names = collect_names(schema)
    payload_field = next(f for f in schema["fields"] if f["name"] == "payload")
    specs: dict[str, _PayloadSpec] = {}
    for branch in payload_field["type"]:
        record = names[branch] if isinstance(branch, str) else branch
        enums: dict[str, frozenset[str]] = {}
        dates: set[str] = set()
        for fld in record["fields"]:
            for option in fld["type"] if isinstance(fld["type"], list) else [fld["type"]]:
                resolved = names.get(option, option) if isinstance(option, str) else option
                if isinstance(resolved, dict) and resolved.get("type") == "enum":
                    enums[fld["name"]] = frozenset(resolved["symbols"])
                if isinstance(resolved, dict) and resolved.get("logicalType") == "date":
                    dates.add(fld["name"])
        specs[record["name"]] = _PayloadSpec(
            fullname=record["name"],
            fields=tuple(f["name"] for f in record["fields"]),
            field_set=frozenset(f["name"] for f in record["fields"]),
            required=frozenset(f["name"] for f in record["fields"] if "default" not in f),
            defaults={f["name"]: f["default"] for f in record["fields"] if "default" in f},
            enums=enums,
            dates=frozenset(dates),
        )
    return specs


def payload_type(event: Mapping[str, Any]) -> str:
    """The short name of the event's payload record, e.g. ``"CardDealt"``."""
    name: str = event["payload"][0]
    return name.rpartition(".")[2]


def _check_envelope(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """What fastavro would accept silently but write wrongly (cheap, runs on every encode).

    Returns the event to write: a string ``event_id`` is replaced by its ``uuid.UUID`` so the
    canonical lower-case form goes on the wire, the only form decoders accept.
    """
    event_id = event.get("event_id")
    if not isinstance(event_id, uuid.UUID):
        try:
            event = {**event, "event_id": uuid.UUID(event_id)}
        except (TypeError, ValueError, AttributeError):
            raise EventEncodeError(
                f"event_id {event_id!r} is not a UUID (use uuid.UUID or its string form)"
            ) from None
    occurred_at = event.get("occurred_at")
    if isinstance(occurred_at, dt.datetime):
        if occurred_at.utcoffset() is None:
            raise EventEncodeError(
                f"occurred_at {occurred_at!r} has no timezone; fastavro would read it as local "
                "time. Use an aware datetime (e.g. datetime.now(UTC))."
            )
    elif not isinstance(occurred_at, int) or isinstance(occurred_at, bool):
        raise EventEncodeError(
            f"occurred_at {occurred_at!r} must be an aware datetime (or microseconds since "
            "the epoch)"
        )
    payload = event.get("payload")
    if not (isinstance(payload, tuple) and len(payload) == 2 and isinstance(payload[1], dict)):
        raise EventEncodeError(
            "payload must be a (record name, fields dict) tuple, e.g. "
            f"('{NAMESPACE}.CardDealt', {{...}}); got {type(payload).__name__}"
        )
    return event


class EventCodec:
    """Encoder and decoder bound to a schema registry and one reader/writer schema.

    ``reader_schema_id`` (default: the registry's latest) is the schema events are written
    with and decoded into; messages written with another registered id are resolved into it.

    ``verify`` (default on) re-encodes every decoded event and compares it with the bytes it
    came from. fastavro reads a negative enum or union index as Python does a negative list
    index — ``-1`` silently becomes the last symbol — so without this check a producer bug
    could turn into a wrong card or wager. It roughly doubles the cost of decoding; turn it
    off only for data this pipeline wrote and verified itself.

    Container files are read only when their bytes are vouched for (see :meth:`integrity`):
    each ``snappy`` block's checksum is checked as it is read, and a file without block
    checksums needs a matching producer digest beside it. ``allow_unverified`` reads such a
    file without one (the operator's ``--allow-unverified``); a digest that does not match
    refuses the file regardless.
    """

    def __init__(
        self,
        registry: SchemaRegistry | None = None,
        *,
        reader_schema_id: int | None = None,
        verify: bool = True,
        allow_unverified: bool = False,
    ) -> None:
        self.registry: SchemaRegistry = registry if registry is not None else default_registry()
        self.verify = verify
        self.allow_unverified = allow_unverified
        self.schema_id = (
            reader_schema_id if reader_schema_id is not None else self.registry.id_for_latest()
        )
        self.schema = self.registry.schema_for_id(self.schema_id)
        self._frame = bytes([MAGIC_BYTE]) + self.schema_id.to_bytes(4, "big")
        self._writers: dict[int, ParsedSchema] = {self.schema_id: self.schema}
        self._by_fingerprint: dict[str, ParsedSchema] = {canonical_sha256(self.schema): self.schema}
        self._stripped = _strip(self.schema)
        self._model_schema = fastavro.parse_schema(_without_envelope_logical_types(self._stripped))
        self._specs = _payload_specs(self.schema)
        self._short = {name.rpartition(".")[2]: name for name in self._specs}

    # -- building events ------------------------------------------------------------------
    @property
    def payload_types(self) -> tuple[str, ...]:
        """Short names of the payload records, in union order."""
        return tuple(self._short)

    def payload_fields(self, payload_type: str) -> tuple[str, ...]:
        """The fields of a payload record, in schema order."""
        return self._spec(payload_type).fields

    def _spec(self, payload_type: str) -> _PayloadSpec:
        spec = self._specs.get(self._short.get(payload_type, payload_type))
        if spec is None:
            raise EventEncodeError(
                f"unknown payload type {payload_type!r}; known: {', '.join(self._short)}"
            )
        return spec

    def make_event(
        self,
        table_id: str,
        device_id: str,
        seq: int,
        occurred_at: dt.datetime,
        payload_type: str,
        /,
        *,
        event_id: uuid.UUID | str | None = None,
        **fields: Any,
    ) -> EventRecord:
        """A complete event: payload fields checked by name, defaults filled, enum members
        converted to symbols, a fresh ``uuid4`` event id unless one is given."""
        spec = self._spec(payload_type)
        if not isinstance(occurred_at, dt.datetime) or occurred_at.utcoffset() is None:
            raise EventEncodeError(
                f"occurred_at must be a timezone-aware datetime, got {occurred_at!r}"
            )
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise EventEncodeError(f"seq must be an int >= 1, got {seq!r}")
        short = spec.fullname.rpartition(".")[2]
        unknown = fields.keys() - spec.field_set
        if unknown:
            raise EventEncodeError(
                f"{short} has no field(s) {sorted(unknown)}; its fields are {list(spec.fields)}"
            )
        missing = spec.required - fields.keys()
        if missing:
            raise EventEncodeError(f"{short} requires field(s) {sorted(missing)}")
        payload: dict[str, Any] = {}
        for name in spec.fields:
            if name not in fields:
                payload[name] = spec.defaults[name]
                continue
            value = fields[name]
            symbols = spec.enums.get(name)
            if symbols is not None and value is not None:
                value = self._symbol(short, name, value, symbols)
            elif name in spec.dates and isinstance(value, dt.datetime):
                raise EventEncodeError(
                    f"{short}.{name} is a date: pass datetime.date, not a datetime ({value!r})"
                )
            payload[name] = value
        if event_id is None:
            eid = uuid.uuid4()
        elif isinstance(event_id, uuid.UUID):
            eid = event_id
        else:
            try:
                eid = uuid.UUID(event_id)
            except (TypeError, ValueError, AttributeError):
                raise EventEncodeError(f"event_id {event_id!r} is not a UUID") from None
        return {
            "event_id": eid,
            "table_id": table_id,
            "device_id": device_id,
            "seq": seq,
            "occurred_at": occurred_at.astimezone(dt.UTC),
            "payload": (spec.fullname, payload),
        }

    @staticmethod
    def _symbol(record: str, name: str, value: Any, symbols: frozenset[str]) -> str:
        if isinstance(value, enum.Enum):
            if value.name in symbols:
                return value.name
            if isinstance(value.value, str) and value.value in symbols:
                return value.value
        elif isinstance(value, str) and value in symbols:
            return value
        raise EventEncodeError(f"{record}.{name}: {value!r} is not one of {sorted(symbols)}")

    # -- messages -------------------------------------------------------------------------
    def encode(self, event: Mapping[str, Any]) -> bytes:
        """The Confluent-framed message for ``event`` (written with this codec's schema)."""
        event = _check_envelope(event)
        out = io.BytesIO()
        out.write(self._frame)
        try:
            schemaless_writer(out, self.schema, event, strict_allow_default=True)
        except Exception as exc:  # fastavro raises ValueError, TypeError, KeyError...
            raise self._encode_error(event, exc) from exc
        return out.getvalue()

    def _encode_error(self, event: Mapping[str, Any], exc: Exception) -> EventEncodeError:
        detail = f"{type(exc).__name__}: {exc}"
        try:
            validate(dict(event), self.schema, raise_errors=True)
        except Exception as invalid:  # ValidationError lists every failing field
            detail = str(invalid)
        kind = "?"
        with contextlib.suppress(KeyError, IndexError, TypeError, AttributeError):
            kind = payload_type(event)
        return EventEncodeError(
            f"cannot encode {kind} event seq {event.get('seq')!r} from device "
            f"{event.get('device_id')!r}: {detail}"
        )

    def decode(
        self, data: bytes | bytearray | memoryview, *, source: str = "", offset: int | None = None
    ) -> EventRecord:
        """The event in a Confluent-framed message. ``source`` and ``offset`` (e.g. topic
        partition and Kafka offset) only label errors."""
        if not isinstance(data, bytes):
            data = bytes(data)
        if len(data) < HEADER_SIZE or data[0] != MAGIC_BYTE:
            raise self._frame_error(data, source, offset)
        schema_id = int.from_bytes(data[1:HEADER_SIZE], "big")
        writer = self._writers.get(schema_id)
        if writer is None:
            writer = self._writer_for(schema_id, source, offset)
        stream = io.BytesIO(data)
        stream.seek(HEADER_SIZE)
        return self._read_datum(data, stream, writer, schema_id, source, offset, to_end=True)

    def decode_intact_messages(
        self, messages: Sequence[bytes | bytearray | memoryview]
    ) -> list[ModelRecord] | None:
        """Every message's event in the model's forms (see :meth:`read_model_records_tolerant`),
        or ``None`` unless *all* of them are sound: framed with this codec's own schema id,
        one datum each, nothing left over, times a ``datetime`` can hold, and (with
        ``verify``) the canonical encoding of what they decode to. On ``None``,
        :meth:`decode` each message to learn what is wrong with which.

        The same block-at-a-time decoding as a sound container file's: the bodies are read
        from one buffer and re-encoded in one go, which is about half the cost of decoding
        messages one by one.
        """
        frame = self._frame
        bodies: list[bytes] = []
        for message in messages:
            data = message if isinstance(message, bytes) else bytes(message)
            if data[:HEADER_SIZE] != frame or len(data) == HEADER_SIZE:
                return None
            bodies.append(data[HEADER_SIZE:])
        block = io.BytesIO(b"".join(bodies))
        try:
            records: list[ModelRecord] = []
            end = 0
            for body in bodies:
                records.append(schemaless_reader(block, self._model_schema, None, True, True))  # type: ignore[arg-type]
                end += len(body)
                if block.tell() != end:
                    return None
            for record in records:
                record["event_id"] = canonical_uuid(record["event_id"])
        except Exception:  # damaged somewhere: the one-by-one decoder explains it
            return None
        if not _representable_times(records):
            return None
        if self.verify and not self._reencodes_to(records, block.getvalue()):
            return None
        return records

    def _read_datum(
        self,
        data: bytes,
        stream: io.BytesIO,
        writer: ParsedSchema,
        schema_id: int | None,
        source: str,
        offset: int | None,
        *,
        to_end: bool,
        record_index: int | None = None,
    ) -> EventRecord:
        """One event from ``stream`` (positioned in ``data``): read with the writer schema,
        verified, then resolved into the reader schema if that differs."""
        start = stream.tell()
        where: dict[str, Any] = {
            "source": source,
            "offset": offset,
            "start": start,
            "to_end": to_end,
            "record_index": record_index,
        }
        try:
            event = schemaless_reader(stream, writer, None, True, True)
        except Exception as exc:  # any fastavro failure is explained by the walker
            raise self._decode_error(data, writer, schema_id, exc, **where) from exc
        end = stream.tell()
        if to_end and end != len(data):
            raise self._decode_error(data, writer, schema_id, None, **where)
        if self.verify:
            out = io.BytesIO()
            try:
                schemaless_writer(out, writer, event)
                canonical = out.getvalue() == data[start:end]
            except Exception:  # cannot happen for a datum fastavro just read; be safe
                canonical = False
            if not canonical:
                problem, _end, envelope = diagnose(data, start, writer, to_end=to_end)
                if problem is None:  # not expected: the walker rejects every non-canonical form
                    problem = BadBytes(
                        DecodeReason.INVALID_VALUE,
                        start,
                        "",
                        "the bytes are not the canonical encoding of the event they decode to",
                    )
                raise self._error(problem, envelope, schema_id, **where)
        if writer is not self.schema:
            stream.seek(start)
            try:
                event = schemaless_reader(stream, writer, self.schema, True, True)
            except Exception as exc:  # the bytes are sound: the schemas do not resolve
                problem = BadBytes(
                    DecodeReason.SCHEMA_MISMATCH,
                    start,
                    "",
                    f"the writer schema (id {schema_id}) cannot be resolved against the reader "
                    f"schema (id {self.schema_id}): {type(exc).__name__}: {exc}",
                )
                _p, _e, envelope = diagnose(data, start, writer, to_end=to_end)
                raise self._error(problem, envelope, schema_id, **where) from exc
        return cast(EventRecord, event)

    def _writer_for(self, schema_id: int, source: str, offset: int | None) -> ParsedSchema:
        try:
            writer = self.registry.schema_for_id(schema_id)
        except UnknownSchemaIdError as exc:
            raise EventDecodeError(
                DecodeReason.UNKNOWN_SCHEMA_ID,
                f"schema id {schema_id} is not in the registry (known: "
                f"{', '.join(map(str, exc.known)) or 'none'})",
                source=source,
                offset=offset,
                byte_offset=1,
                schema_id=schema_id,
            ) from None
        self._writers[schema_id] = writer
        return writer

    @staticmethod
    def _frame_error(
        data: bytes | bytearray | memoryview, source: str, offset: int | None
    ) -> EventDecodeError:
        if len(data) == 0:
            return EventDecodeError(
                DecodeReason.TRUNCATED,
                "the message is empty",
                source=source,
                offset=offset,
                byte_offset=0,
            )
        if data[0] != MAGIC_BYTE:
            head = bytes(data[:4])
            hint = ""
            if head == _OCF_MAGIC:
                hint = "; it looks like an Avro container file, read it with read_events"
            elif head[:1] in (b"{", b"["):
                hint = "; it looks like JSON"
            return EventDecodeError(
                DecodeReason.BAD_MAGIC,
                f"the first byte is 0x{data[0]:02x}, expected the magic byte 0x00{hint}",
                source=source,
                offset=offset,
                byte_offset=0,
            )
        return EventDecodeError(
            DecodeReason.TRUNCATED,
            f"the message has {len(data)} bytes, fewer than the {HEADER_SIZE}-byte header "
            "(magic byte and schema id)",
            source=source,
            offset=offset,
            byte_offset=len(data),
        )

    def _decode_error(
        self,
        data: bytes,
        writer: ParsedSchema,
        schema_id: int | None,
        exc: Exception | None,
        *,
        source: str,
        offset: int | None,
        start: int,
        to_end: bool,
        record_index: int | None,
    ) -> EventDecodeError:
        """Explain why fastavro failed (or left bytes over) by walking the bytes."""
        problem, _end, envelope = diagnose(data, start, writer, to_end=to_end)
        if problem is None:  # the walker accepts what fastavro rejected: report fastavro's word
            problem = BadBytes(
                DecodeReason.INVALID_VALUE, start, "", f"{type(exc).__name__}: {exc}"
            )
        return self._error(
            problem,
            envelope,
            schema_id,
            source=source,
            offset=offset,
            start=start,
            to_end=to_end,
            record_index=record_index,
        )

    @staticmethod
    def _error(
        problem: BadBytes,
        envelope: Mapping[str, Any],
        schema_id: int | None,
        *,
        source: str,
        offset: int | None,
        start: int,
        to_end: bool,
        record_index: int | None,
    ) -> EventDecodeError:
        device_id = envelope.get("device_id")
        table_id = envelope.get("table_id")
        seq = envelope.get("seq")
        return EventDecodeError(
            problem.reason,
            problem.detail,
            source=source,
            offset=offset,
            byte_offset=problem.position,
            field=problem.path or None,
            schema_id=schema_id,
            device_id=device_id if isinstance(device_id, str) else None,
            table_id=table_id if isinstance(table_id, str) else None,
            seq=seq if isinstance(seq, int) else None,
            record_index=record_index,
        )

    # -- container files ------------------------------------------------------------------
    def write_events(
        self,
        path: str | os.PathLike[str],
        events: Iterable[Mapping[str, Any]],
        *,
        codec: str = DEFAULT_CONTAINER_CODEC,
        append: bool = False,
        sync_interval: int = 16000,
    ) -> int:
        """Write ``events`` to an Avro container file; returns how many were written.

        A new file is written to a temporary name and renamed into place, so readers never
        see half a file and a failure leaves any previous file untouched. With ``append``, an
        existing file written with the same schema is extended in place (its codec is kept);
        on failure, blocks completed before the bad event remain.
        """
        if codec not in CONTAINER_CODECS:
            raise ValueError(f"codec {codec!r}: use one of {CONTAINER_CODECS}")
        target = Path(path)
        count = 0

        def checked() -> Iterator[Mapping[str, Any]]:
            nonlocal count
            for event in events:
                count += 1
                yield _check_envelope(event)

        metadata = {META_SCHEMA_ID: str(self.schema_id), META_SUBJECT: "table-events-value"}
        if append and target.exists() and target.stat().st_size > 0:
            self._check_appendable(target)
            with target.open("a+b") as fo:
                self._write_container(fo, checked(), codec, sync_interval, metadata)
            return count
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                self._write_container(out, checked(), codec, sync_interval, metadata)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp_name, target)
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        return count

    def _write_container(
        self,
        fo: IO[bytes],
        events: Iterator[Mapping[str, Any]],
        codec: str,
        sync_interval: int,
        metadata: dict[str, str],
    ) -> None:
        current: list[Mapping[str, Any]] = []

        def remember() -> Iterator[Mapping[str, Any]]:
            for event in events:
                current[:] = [event]
                yield event

        try:
            fastavro.writer(
                fo,
                self.schema,
                remember(),
                codec=codec,
                sync_interval=sync_interval,
                metadata=metadata,
                strict_allow_default=True,
            )
        except EventEncodeError:
            raise
        except Exception as exc:  # fastavro's error for the event being written
            if current:
                raise self._encode_error(current[0], exc) from exc
            raise EventEncodeError(f"cannot write the container file: {exc}") from exc

    def _check_appendable(self, path: Path) -> None:
        try:
            with path.open("rb") as fo:
                header_schema = fastavro.reader(fo).writer_schema
        except Exception as exc:
            raise EventEncodeError(
                f"cannot append to {path}: it is not a readable Avro container file ({exc})"
            ) from exc
        if canonical_sha256(header_schema) != canonical_sha256(self.schema):
            raise EventEncodeError(
                f"cannot append to {path}: it was written with a different schema than schema "
                f"id {self.schema_id}; start a new file"
            )

    def read_events(self, path: str | os.PathLike[str]) -> Iterator[EventRecord]:
        """The events of a container file; raises :class:`EventDecodeError` at the first
        damaged part (after yielding every event before it)."""
        for item in self._read_container(path, tolerant=False):
            if isinstance(item, DecodeError):  # pragma: no cover - strict mode raises
                raise AssertionError(item)
            yield item

    def read_events_tolerant(
        self, path: str | os.PathLike[str]
    ) -> Iterator[EventRecord | DecodeError]:
        """The events of a container file, with a :class:`DecodeError` in place of each
        damaged block (or the rest of a block from a bad record on), then carrying on with the
        next intact block. A damaged header ends the file with one DecodeError."""
        return self._read_container(path, tolerant=True)

    def read_model_records_tolerant(
        self, path: str | os.PathLike[str]
    ) -> Iterator[ModelRecord | DecodeError]:
        """:meth:`read_events_tolerant` with the envelope in the model's forms: ``event_id``
        as its canonical UUID string and ``occurred_at`` as integer microseconds, as
        :class:`~pipeline.events.model.TableEvent` keeps them. Intact blocks are decoded
        straight into those forms, without the ``UUID`` and ``datetime`` objects in between
        (about a fifth of the decoding time)."""
        return self._read_container(path, tolerant=True, model_values=True)

    def _read_container(
        self, path: str | os.PathLike[str], *, tolerant: bool, model_values: bool = False
    ) -> Iterator[Any]:
        """Refuse a file whose integrity cannot be established (see :meth:`integrity`), then
        read it block by block, each block's checksum verified before its events are decoded.
        While the blocks are sound and written with this codec's schema, a block's events are
        decoded in one go; from the first block that fails (or for any other writer schema),
        the careful reader explains each problem and carries on with the next block."""
        try:
            file = self._open_container(path)
            self._check_verifiable(file)
        except EventDecodeError as error:
            if not tolerant:
                raise
            yield DecodeError.from_exception(error, _announced_events(Path(path).read_bytes()))
            return
        pos = file.first_block
        if file.writer is self.schema:
            pos = yield from self._read_sound_blocks(file, model_values)
        careful = self._read_blocks_carefully(file, pos, tolerant=tolerant)
        if not model_values:
            yield from careful
            return
        for item in careful:
            yield item if isinstance(item, DecodeError) else _model_values(item)

    def integrity(self, path: str | os.PathLike[str]) -> FileIntegrity:
        """How the bytes of a container file are known to be the ones its producer wrote:
        its codec's block checksums, else a matching producer digest beside it, else not at
        all (readable only by a codec made with ``allow_unverified``). Raises
        :class:`EventDecodeError` for a file whose header cannot be read or whose producer
        digest does not match."""
        return _integrity_of(self._open_container(path))

    def unverified_notice(self, path: str | os.PathLike[str]) -> DecodeError | None:
        """For a codec that reads unverifiable files: the record that this one was read
        without an integrity check (``LOADED_UNVERIFIED``, no events lost), to keep with the
        other dead letters; ``None`` for a file that is verified or cannot be read at all."""
        if not self.allow_unverified:
            return None
        try:
            if self.integrity(path) is not FileIntegrity.UNVERIFIED:
                return None
        except EventDecodeError:  # reading the file reports it
            return None
        notice = EventDecodeError(
            DecodeReason.LOADED_UNVERIFIED,
            "the file has no block checksums and no producer digest; its events were loaded "
            "because the operator allowed unverified files",
            source=os.fspath(path),
            offset=0,
        )
        return DecodeError.from_exception(notice, 0)

    def _check_verifiable(self, file: _Container) -> None:
        """Raise :class:`EventDecodeError` when none of the file may be read: it has no block
        checksums and its producer digest is missing (unless ``allow_unverified``) or does
        not match."""
        if _integrity_of(file) is not FileIntegrity.UNVERIFIED or self.allow_unverified:
            return
        raise EventDecodeError(
            DecodeReason.UNVERIFIABLE_FILE,
            f"the file is written with codec {file.codec!r}, which carries no block "
            f"checksums, and has no producer digest {_digest_path(file.source).name} beside "
            "it; none of its events is used",
            source=file.source,
            offset=0,
            schema_id=file.schema_id,
        )

    def _open_container(self, path: str | os.PathLike[str]) -> _Container:
        """A container file's bytes and header; raises :class:`EventDecodeError` for a header
        that cannot be read or a codec this pipeline does not read."""
        source = os.fspath(path)
        data = Path(path).read_bytes()
        try:
            pos, meta, sync = _read_header(data)
        except BadBytes as problem:
            raise EventDecodeError(
                problem.reason,
                f"bad container header: {problem.detail}",
                source=source,
                offset=0,
                byte_offset=problem.position,
            ) from None
        codec = meta.get("avro.codec", b"null").decode("utf-8", "replace")
        if codec not in CONTAINER_CODECS:
            raise EventDecodeError(
                DecodeReason.UNSUPPORTED_CODEC,
                f"the file uses codec {codec!r}",
                source=source,
                offset=0,
            )
        writer, schema_id = self._container_writer(meta, source)
        return _Container(data, source, pos, sync, codec, writer, schema_id)

    def _read_sound_blocks(self, file: _Container, model_values: bool) -> Generator[Any, None, int]:
        """The events of each sound block from the first, decoded a block at a time; returns
        where the first block that is not sound starts (the end of the file if none)."""
        pos, end_of_file = file.first_block, len(file.data)
        while pos < end_of_file:
            try:
                count, raw, next_block = _block_at(file, pos)
                stream = io.BytesIO(raw)
                events = (
                    self._model_records(stream, count)
                    if model_values
                    else [_read_one(stream, self.schema) for _ in range(count)]
                )
            except Exception:  # damaged: the careful reader explains it
                return pos
            if stream.tell() != len(raw) or (self.verify and not self._reencodes_to(events, raw)):
                return pos
            yield from events
            pos = next_block
        return pos

    def _model_records(self, raw: io.BytesIO, count: int) -> list[Any]:
        raw.seek(0)
        records: list[dict[str, Any]] = [
            schemaless_reader(raw, self._model_schema, None, True, True)  # type: ignore[misc]
            for _ in range(count)
        ]
        for record in records:
            record["event_id"] = canonical_uuid(record["event_id"])
        if not _representable_times(records):
            raise ValueError("an occurred_at outside the dates Python can represent")
        return records

    def _reencodes_to(self, events: list[Any], block: bytes) -> bool:
        out = io.BytesIO()
        try:
            for event in events:
                schemaless_writer(out, self.schema, event)
        except Exception:  # treat as a mismatch; the careful reader explains it
            return False
        return out.getvalue() == block

    def _read_blocks_carefully(
        self, file: _Container, pos: int, *, tolerant: bool
    ) -> Iterator[EventRecord | DecodeError]:
        """Block by block from ``pos``, each event read, verified and resolved on its own."""
        source, schema_id = file.source, file.schema_id

        def failure(error: EventDecodeError, lost: int | None) -> DecodeError:
            if not tolerant:
                raise error
            return DecodeError.from_exception(error, lost)

        while pos < len(file.data):
            block_start = pos
            try:
                count, raw, pos = _block_at(file, block_start)
            except _DamagedBlock as damage:
                problem, lost = damage.problem, damage.count
                pos = _resync(file.data, file.sync, block_start, damage.next_block)
                detail = problem.detail
                if pos < 0 and (damage.next_block or 0) < len(file.data):
                    # No intact block follows (e.g. the header's sync marker is damaged): the
                    # rest of the file goes with this block, counted by its block headers.
                    detail += "; no intact block follows, so the rest of the file is lost too"
                    lost = _events_from(file.data, block_start) or lost
                yield failure(
                    EventDecodeError(
                        problem.reason,
                        detail,
                        source=source,
                        offset=block_start,
                        byte_offset=problem.position,
                        schema_id=schema_id,
                    ),
                    lost,
                )
                if pos < 0:
                    return
                continue
            stream = io.BytesIO(raw)
            for index in range(count):
                try:
                    event = self._read_datum(
                        raw,
                        stream,
                        file.writer,
                        schema_id,
                        source,
                        block_start,
                        to_end=False,
                        record_index=index,
                    )
                except EventDecodeError as error:
                    yield failure(error, count - index)
                    break
                yield event
            else:
                if stream.tell() != len(raw):
                    yield failure(
                        EventDecodeError(
                            DecodeReason.TRAILING_BYTES,
                            f"{len(raw) - stream.tell()} bytes remain after the block's "
                            f"{count} events: its header's count is wrong (the count is "
                            "outside the checksum) or the writer's schema differs; whatever "
                            "events they hold are not used",
                            source=source,
                            offset=block_start,
                            byte_offset=stream.tell(),
                            schema_id=schema_id,
                        ),
                        None,  # how many events the bytes hold is unknown
                    )

    def _container_writer(
        self, meta: Mapping[str, bytes], source: str
    ) -> tuple[ParsedSchema, int | None]:
        """The writer schema of a container file, preferring the registered copy.

        A header that declares a registered schema id must carry that schema: Avro keeps no
        checksum of the header, and a flipped bit in a field name would otherwise be read as
        a schema of its own, silently giving that field the reader's default."""
        try:
            document = json.loads(meta["avro.schema"])
            fingerprint = canonical_sha256(document)
        except Exception as exc:  # missing key, bad JSON, or not a schema
            raise EventDecodeError(
                DecodeReason.SCHEMA_MISMATCH,
                f"the header has no readable writer schema: {exc}",
                source=source,
                offset=0,
            ) from None
        schema_id: int | None = None
        declared = meta.get(META_SCHEMA_ID)
        if declared is not None:
            try:
                declared_id = int(declared)
                registered = self._writers.get(declared_id) or self.registry.schema_for_id(
                    declared_id
                )
            except (ValueError, UnknownSchemaIdError):
                registered = None
            else:
                schema_id = declared_id
            if registered is not None:
                if canonical_sha256(registered) != fingerprint:
                    raise EventDecodeError(
                        DecodeReason.SCHEMA_MISMATCH,
                        f"the header declares schema id {declared_id} but its writer schema "
                        "is not that registered schema: the header was damaged or the "
                        "producer mislabelled its schema; none of its events is used",
                        source=source,
                        offset=0,
                        schema_id=declared_id,
                    )
                self._writers[declared_id] = registered
                return registered, declared_id
        known = self._by_fingerprint.get(fingerprint)
        if known is None:
            known = cast(ParsedSchema, fastavro.parse_schema(document))
            self._by_fingerprint[fingerprint] = known
        return known, schema_id


CANONICAL_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
"""How a UUID is written on the wire and stored: lowercase, hyphenated."""
_UUID_FORM = re.compile(CANONICAL_UUID)


def canonical_uuid(text: str) -> str:
    """``text`` as the lowercase hyphenated UUID string, what fastavro's ``uuid`` logical
    type reads it as; raises ``ValueError`` for a string that is no UUID."""
    if _UUID_FORM.fullmatch(text):
        return text
    return str(uuid.UUID(text))


def datetime_to_micros(moment: dt.datetime) -> int:
    """Integer microseconds since the Unix epoch, exactly (no float in between)."""
    since = moment - EPOCH
    return (since.days * 86_400 + since.seconds) * 1_000_000 + since.microseconds


def _model_values(record: EventRecord) -> ModelRecord:
    """A record read with fastavro's logical types, in the model's forms (see
    :meth:`EventCodec.read_model_records_tolerant`)."""
    return {
        "event_id": str(record["event_id"]),
        "table_id": record["table_id"],
        "device_id": record["device_id"],
        "seq": record["seq"],
        "occurred_at": datetime_to_micros(record["occurred_at"]),
        "payload": record["payload"],
    }


EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

_REPRESENTABLE_MICROS = range(
    datetime_to_micros(dt.datetime.min.replace(tzinfo=dt.UTC)),
    datetime_to_micros(dt.datetime.max.replace(tzinfo=dt.UTC)) + 1,
)
"""The ``occurred_at`` values a ``datetime`` can hold; :meth:`EventCodec.decode` refuses the
others (INVALID_VALUE), so the readers that keep integer microseconds must too."""


def _representable_times(records: Iterable[Mapping[str, Any]]) -> bool:
    return all(r["occurred_at"] in _REPRESENTABLE_MICROS for r in records)


_MODEL_KEEPS_AS_IS = frozenset({"uuid", "timestamp-micros"})
"""Logical types of the envelope whose Avro base values (string, long) are the model's."""


def _without_envelope_logical_types(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            k: _without_envelope_logical_types(v)
            for k, v in schema.items()
            if not (k == "logicalType" and v in _MODEL_KEEPS_AS_IS)
        }
    if isinstance(schema, list):
        return [_without_envelope_logical_types(v) for v in schema]
    return schema


def _strip(schema: Any) -> Any:
    """A parsed schema without fastavro's private keys, for comparing two schemas."""
    if isinstance(schema, dict):
        return {k: _strip(v) for k, v in schema.items() if not k.startswith("__")}
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


class FileIntegrity(enum.StrEnum):
    """What vouches for a container file's bytes (see :meth:`EventCodec.integrity`)."""

    BLOCK_CHECKSUMS = "BLOCK_CHECKSUMS"
    """Each block carries a CRC-32 of its data (codec ``snappy``), checked as it is read."""
    PRODUCER_DIGEST = "PRODUCER_DIGEST"
    """The producer's SHA-256 of the whole file, in ``<file>.sha256`` beside it, matches."""
    UNVERIFIED = "UNVERIFIED"
    """Nothing: read only when the operator allowed it (``--allow-unverified``)."""


@dataclass(frozen=True, slots=True)
class _Container:
    """A container file's bytes and what its header says."""

    data: bytes
    source: str
    first_block: int
    sync: bytes
    codec: str
    writer: ParsedSchema
    schema_id: int | None


class _DamagedBlock(Exception):
    """A block whose header, sync marker, compression or checksum is bad."""

    def __init__(self, problem: BadBytes, count: int | None, next_block: int | None) -> None:
        super().__init__(problem.detail)
        self.problem = problem
        self.count = count
        """The events the block held, when its header could be read."""
        self.next_block = next_block
        """Where the block's header says the next one starts, if it got that far."""


def _block_at(file: _Container, start: int) -> tuple[int, bytes, int]:
    """The block at ``start``: its event count, its data (decompressed, checksum verified)
    and where the next block starts. Raises :class:`_DamagedBlock`."""
    data, count, block_end = file.data, None, 0
    try:
        count, body = read_long(data, start, "block count")
        size, body = read_long(data, body, "block size")
        if count < 0 or size < 0:
            raise BadBytes(
                DecodeReason.CORRUPT_BLOCK,
                start,
                "",
                f"block header says {count} events in {size} bytes",
            )
        block_end = body + size
        if block_end + _SYNC_SIZE > len(data):
            cut = data.find(file.sync, start) < 0
            raise BadBytes(
                DecodeReason.TRUNCATED if cut else DecodeReason.CORRUPT_BLOCK,
                start,
                "",
                f"the block of {size} bytes at byte {start} runs past the end of the file "
                f"({len(data)} bytes)" + (": the file was cut" if cut else ": its size is corrupt"),
            )
        if data[block_end : block_end + _SYNC_SIZE] != file.sync:
            raise BadBytes(
                DecodeReason.CORRUPT_BLOCK,
                block_end,
                "",
                "the sync marker after the block does not match the file's",
            )
        return count, _block_data(file.codec, data, body, block_end), block_end + _SYNC_SIZE
    except BadBytes as problem:
        next_block = block_end + _SYNC_SIZE if block_end > start else None
        raise _DamagedBlock(
            problem, count if count is not None and count >= 0 else None, next_block
        ) from None


def _block_data(codec: str, data: bytes, body: int, end: int) -> bytes:
    """A block's uncompressed data from its stored bytes ``data[body:end]``; a ``snappy``
    block's CRC-32 (the last 4 bytes, big-endian, of the uncompressed data) must match."""
    if codec == "null":
        return data[body:end]
    if codec == "deflate":
        try:
            return zlib.decompress(data[body:end], -15)
        except zlib.error as exc:
            raise BadBytes(
                DecodeReason.CORRUPT_BLOCK, body, "", f"deflate data is corrupt: {exc}"
            ) from None
    if end - body < _CRC_SIZE:
        raise BadBytes(
            DecodeReason.CORRUPT_BLOCK,
            body,
            "",
            f"a snappy block of {end - body} bytes has no room for its 4-byte checksum",
        )
    try:
        raw = bytes(snappy.decompress_raw(data[body : end - _CRC_SIZE]))
    except Exception as exc:  # cramjam.DecompressionError and kin
        raise BadBytes(
            DecodeReason.CORRUPT_BLOCK, body, "", f"snappy data is corrupt: {exc}"
        ) from None
    stored = int.from_bytes(data[end - _CRC_SIZE : end], "big")
    actual = zlib.crc32(raw)
    if stored != actual:
        raise BadBytes(
            DecodeReason.CHECKSUM_MISMATCH,
            end - _CRC_SIZE,
            "",
            f"the block's CRC-32 says 0x{stored:08x} but its data's is 0x{actual:08x}: the "
            "block changed after it was written",
        )
    return raw


def _announced_events(data: bytes) -> int | None:
    """How many events a container file's block headers announce (``None`` if its header
    cannot be read): what a file refused whole takes with it."""
    try:
        first_block, _meta, _sync = _read_header(data)
    except BadBytes:
        return None
    return _events_from(data, first_block)


def _events_from(data: bytes, pos: int) -> int | None:
    """How many events the block headers from ``pos`` on announce (``None`` if the first
    cannot be read)."""
    total = None
    try:
        while pos < len(data):
            count, body = read_long(data, pos)
            size, body = read_long(data, body)
            if count < 0 or size < 0:
                break
            total = (total or 0) + count
            pos = body + size + _SYNC_SIZE
    except BadBytes:
        pass
    return total if total is not None else (0 if pos >= len(data) else None)


def _integrity_of(file: _Container) -> FileIntegrity:
    """See :meth:`EventCodec.integrity`; a ``snappy`` file's blocks are checked as read."""
    if file.codec in CHECKSUMMED_CODECS:
        return FileIntegrity.BLOCK_CHECKSUMS
    if _has_producer_digest(file):
        return FileIntegrity.PRODUCER_DIGEST
    return FileIntegrity.UNVERIFIED


def _digest_path(source: str) -> Path:
    return Path(source + DIGEST_SUFFIX)


def _has_producer_digest(file: _Container) -> bool:
    """Whether a producer digest is beside the file; raises :class:`EventDecodeError` when it
    does not match the file's bytes (or cannot be read)."""
    sidecar = _digest_path(file.source)
    try:
        text = sidecar.read_text("ascii", errors="replace")
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise EventDecodeError(
            DecodeReason.DIGEST_MISMATCH,
            f"the producer digest {sidecar.name} cannot be read ({exc})",
            source=file.source,
            offset=0,
        ) from None
    claimed = (text.split() or [""])[0].lower()  # "<hex>" or sha256sum's "<hex>  <name>"
    actual = hashlib.sha256(file.data).hexdigest()
    if claimed != actual:
        raise EventDecodeError(
            DecodeReason.DIGEST_MISMATCH,
            f"the producer digest {sidecar.name} says SHA-256 {claimed[:64]!r} but the file's "
            f"is {actual!r}: the file is not the one its producer wrote; none of its events "
            "is used",
            source=file.source,
            offset=0,
            schema_id=file.schema_id,
        )
    return True


def _resync(data: bytes, sync: bytes, damaged: int, guess: int | None) -> int:
    """Where the next intact block starts after a damaged one at ``damaged`` (-1: none).

    ``guess`` is where the damaged block's header says the next one starts; it is taken if a
    complete block with a good sync marker starts there (the damage was only in the marker).
    Otherwise the next block starts right after the next sync marker in the file.
    """
    if guess is not None and damaged < guess < len(data):
        try:
            count, body = read_long(data, guess)
            size, body = read_long(data, body)
        except BadBytes:
            pass
        else:
            end = body + size
            # A guess a byte early can read the sync marker's last byte and the real count as
            # one (negative) count, then the real size: the sync matches, the count cannot.
            if count > 0 and size >= 0 and data[end : end + _SYNC_SIZE] == sync:
                return guess
    found = data.find(sync, damaged)
    return -1 if found < 0 else found + _SYNC_SIZE


def _read_header(data: bytes) -> tuple[int, dict[str, bytes], bytes]:
    """Position after the header, its metadata and its sync marker."""
    if data[: len(_OCF_MAGIC)] != _OCF_MAGIC:
        if _OCF_MAGIC.startswith(data):
            raise BadBytes(DecodeReason.TRUNCATED, len(data), "", "the file ends in its header")
        raise BadBytes(
            DecodeReason.BAD_MAGIC,
            0,
            "",
            f"the file starts with {data[:4]!r}, not the Avro container magic b'Obj\\x01'",
        )
    walker = Walker(data, len(_OCF_MAGIC))
    meta: dict[str, bytes] = {}
    while True:
        count = walker.long("header.meta")
        if count == 0:
            break
        if count < 0:
            count = -count
            walker.long("header.meta")
        for _ in range(count):
            key_size = walker.long("header.meta")
            key = walker.need(max(key_size, 0), "header.meta", "a metadata key")
            value_size = walker.long("header.meta")
            meta[key.decode("utf-8", "replace")] = walker.need(
                max(value_size, 0), "header.meta", "a metadata value"
            )
    sync = walker.need(_SYNC_SIZE, "header.sync", "the sync marker")
    return walker.pos, meta, sync


_default_codec: EventCodec | None = None


def default_codec() -> EventCodec:
    """The codec for the repository's registry and latest schema, built once per process."""
    global _default_codec
    if _default_codec is None:
        _default_codec = EventCodec()
    return _default_codec


def make_event(
    table_id: str,
    device_id: str,
    seq: int,
    occurred_at: dt.datetime,
    payload_type: str,
    /,
    *,
    event_id: uuid.UUID | str | None = None,
    **fields: Any,
) -> EventRecord:
    """Build an event (see :meth:`EventCodec.make_event`), e.g.
    ``make_event("PB-07", "shoe-07", 42, now, "CardDealt", shoe_id="S1", round_id="R1",
    position=17, rank=Rank.NINE, suit=Suit.HEARTS, hand="PLAYER")``."""
    return default_codec().make_event(
        table_id, device_id, seq, occurred_at, payload_type, event_id=event_id, **fields
    )


def encode_event(event: Mapping[str, Any]) -> bytes:
    """The Confluent-framed message for ``event`` (latest schema)."""
    return default_codec().encode(event)


def decode_event(
    data: bytes | bytearray | memoryview, *, source: str = "", offset: int | None = None
) -> EventRecord:
    """The event in a Confluent-framed message; raises :class:`EventDecodeError`."""
    return default_codec().decode(data, source=source, offset=offset)


def write_events(
    path: str | os.PathLike[str],
    events: Iterable[Mapping[str, Any]],
    *,
    codec: str = DEFAULT_CONTAINER_CODEC,
    append: bool = False,
) -> int:
    """Write events to an Avro container file (see :meth:`EventCodec.write_events`)."""
    return default_codec().write_events(path, events, codec=codec, append=append)


def read_events(path: str | os.PathLike[str]) -> Iterator[EventRecord]:
    """The events of a container file; raises :class:`EventDecodeError` on damage."""
    return default_codec().read_events(path)


def read_events_tolerant(path: str | os.PathLike[str]) -> Iterator[EventRecord | DecodeError]:
    """Events and :class:`DecodeError` records; one bad block does not stop the file."""
    return default_codec().read_events_tolerant(path)


def payload_types() -> tuple[str, ...]:
    """Short names of every payload record of the latest schema, in union order."""
    return default_codec().payload_types
