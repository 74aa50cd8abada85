"""A slow, careful Avro binary walker that says exactly what is wrong with bad bytes.

fastavro decodes the good events fast; when it fails, its exception (``EOFError``,
``IndexError``, ``UnicodeDecodeError``...) says little. This module walks the same bytes
against the writer schema in pure Python and reports the first problem: its
:class:`DecodeReason`, byte offset and field path. It also reads the envelope's leading
fields so the error can name the device. It is only used on the failure path.
"""

from __future__ import annotations

import datetime as dt
import re
import struct
from dataclasses import dataclass, field
from typing import Any

from pipeline.events.errors import DecodeReason

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_DATE = dt.date(1970, 1, 1)
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_NAMED = frozenset({"record", "error", "enum", "fixed"})
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class BadBytes(Exception):
    """The first problem found in the bytes."""

    def __init__(self, reason: DecodeReason, position: int, path: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.position = position
        self.path = path
        self.detail = detail


def collect_names(schema: Any, into: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every named type defined in a parsed schema, by full name."""
    names: dict[str, Any] = {} if into is None else into
    if isinstance(schema, list):
        for branch in schema:
            collect_names(branch, names)
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if kind in _NAMED:
            names[schema["name"]] = schema
            for fld in schema.get("fields", ()):
                collect_names(fld["type"], names)
        elif kind == "array":
            collect_names(schema["items"], names)
        elif kind == "map":
            collect_names(schema["values"], names)
        elif isinstance(kind, (dict, list)):
            collect_names(kind, names)
    return names


def read_long(data: bytes, pos: int, path: str = "") -> tuple[int, int]:
    """A zig-zag varint at ``pos``: (value, position after it)."""
    start = pos
    shift = 0
    accum = 0
    while True:
        if pos >= len(data):
            raise BadBytes(
                DecodeReason.TRUNCATED, pos, path, f"the data ends inside a number at byte {start}"
            )
        byte = data[pos]
        pos += 1
        accum |= (byte & 0x7F) << shift
        if not byte & 0x80:
            if byte == 0 and pos - start > 1:
                raise BadBytes(
                    DecodeReason.INVALID_VALUE,
                    start,
                    path,
                    "a variable-length number is not minimally encoded",
                )
            break
        shift += 7
        if shift >= 70:
            raise BadBytes(
                DecodeReason.INVALID_VALUE, start, path, "a variable-length number is too long"
            )
    return (accum >> 1) ^ -(accum & 1), pos


@dataclass
class Walker:
    """Walks one datum of ``schema`` in ``data`` from ``pos``."""

    data: bytes
    pos: int
    names: dict[str, Any] = field(default_factory=dict)
    envelope: dict[str, Any] = field(default_factory=dict)
    """Top-level string and long fields read before any problem (device_id, seq...)."""

    def need(self, count: int, path: str, what: str) -> bytes:
        end = self.pos + count
        if end > len(self.data):
            raise BadBytes(
                DecodeReason.TRUNCATED,
                self.pos,
                path,
                f"{what} needs {count} bytes but only {len(self.data) - self.pos} remain",
            )
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def long(self, path: str) -> int:
        value, self.pos = read_long(self.data, self.pos, path)
        return value

    def walk(self, schema: Any, path: str, depth: int = 0) -> Any:
        if isinstance(schema, str):
            if schema in self.names:
                return self.walk(self.names[schema], path, depth)
            return self.primitive(schema, None, path)
        if isinstance(schema, list):
            start = self.pos
            index = self.long(path)
            if not 0 <= index < len(schema):
                raise BadBytes(
                    DecodeReason.UNION_INDEX_OUT_OF_RANGE,
                    start,
                    path,
                    f"union branch index {index}, but the union has {len(schema)} branches "
                    f"(0-{len(schema) - 1})",
                )
            branch = schema[index]
            if isinstance(branch, str) and branch in self.names:
                branch = self.names[branch]
            if isinstance(branch, dict) and branch.get("type") in ("record", "error"):
                path = f"{path}<{str(branch['name']).rpartition('.')[2]}>"
            return self.walk(branch, path, depth)
        kind = schema["type"]
        if isinstance(kind, (dict, list)):
            return self.walk(kind, path, depth)
        if kind in ("record", "error"):
            for fld in schema["fields"]:
                sub = f"{path}.{fld['name']}" if path else fld["name"]
                value = self.walk(fld["type"], sub, depth + 1)
                if depth == 0 and isinstance(value, (str, int)):
                    self.envelope[fld["name"]] = value
            return None
        if kind == "enum":
            start = self.pos
            index = self.long(path)
            symbols = schema["symbols"]
            if not 0 <= index < len(symbols):
                name = str(schema["name"]).rpartition(".")[2]
                raise BadBytes(
                    DecodeReason.ENUM_OUT_OF_RANGE,
                    start,
                    path,
                    f"enum {name} index {index}, but it has {len(symbols)} symbols "
                    f"(0-{len(symbols) - 1})",
                )
            return symbols[index]
        if kind == "fixed":
            self.need(int(schema["size"]), path, "a fixed value")
            return None
        if kind in ("array", "map"):
            while True:
                count = self.long(path)
                if count == 0:
                    return None
                if count < 0:
                    count = -count
                    self.long(path)  # block size in bytes
                for _ in range(count):
                    if kind == "map":
                        self.primitive("string", None, path)
                        self.walk(schema["values"], f"{path}{{}}", depth + 1)
                    else:
                        self.walk(schema["items"], f"{path}[]", depth + 1)
        return self.primitive(kind, schema.get("logicalType"), path)

    def primitive(self, kind: str, logical: str | None, path: str) -> Any:
        start = self.pos
        if kind == "null":
            return None
        if kind == "boolean":
            byte = self.need(1, path, "a boolean")[0]
            if byte > 1:
                raise BadBytes(
                    DecodeReason.INVALID_VALUE, start, path, f"boolean byte {byte} is not 0 or 1"
                )
            return None
        if kind in ("int", "long"):
            value = self.long(path)
            if kind == "int" and not _INT_MIN <= value <= _INT_MAX:
                raise BadBytes(
                    DecodeReason.INVALID_VALUE, start, path, f"{value} does not fit an Avro int"
                )
            self.check_logical(value, logical, start, path)
            return value
        if kind == "float":
            struct.unpack("<f", self.need(4, path, "a float"))
            return None
        if kind == "double":
            struct.unpack("<d", self.need(8, path, "a double"))
            return None
        if kind in ("bytes", "string"):
            size = self.long(path)
            if size < 0:
                raise BadBytes(DecodeReason.INVALID_VALUE, start, path, f"negative length {size}")
            raw = self.need(size, path, f"a {kind} of length {size}")
            if kind == "bytes":
                return None
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BadBytes(
                    DecodeReason.INVALID_VALUE, start, path, f"string is not UTF-8 ({exc.reason})"
                ) from None
            if logical == "uuid" and not _CANONICAL_UUID.fullmatch(text):
                raise BadBytes(
                    DecodeReason.INVALID_VALUE,
                    start,
                    path,
                    f"{text!r:.60} is not a UUID in canonical form (lower-case 8-4-4-4-12 hex)",
                )
            return text
        raise BadBytes(DecodeReason.SCHEMA_MISMATCH, start, path, f"unknown type {kind!r}")

    def check_logical(self, value: int, logical: str | None, start: int, path: str) -> None:
        try:
            if logical == "date":
                _EPOCH_DATE + dt.timedelta(days=value)
            elif logical == "timestamp-micros":
                _EPOCH + dt.timedelta(microseconds=value)
            elif logical == "timestamp-millis":
                _EPOCH + dt.timedelta(milliseconds=value)
        except OverflowError:
            raise BadBytes(
                DecodeReason.INVALID_VALUE,
                start,
                path,
                f"{logical} value {value} is outside the dates Python can represent",
            ) from None


def diagnose(
    data: bytes, pos: int, schema: Any, *, to_end: bool = True
) -> tuple[BadBytes | None, int, dict[str, Any]]:
    """The first problem decoding one ``schema`` datum from ``data[pos:]``, the position after
    the datum, and the envelope fields read before any problem.

    With ``to_end``, bytes left after the datum are a ``TRAILING_BYTES`` problem.
    """
    walker = Walker(bytes(data), pos, collect_names(schema))
    try:
        walker.walk(schema, "")
    except BadBytes as bad:
        return bad, walker.pos, walker.envelope
    except (KeyError, TypeError, ValueError, RecursionError) as exc:
        unreadable = BadBytes(
            DecodeReason.SCHEMA_MISMATCH, walker.pos, "", f"unreadable schema: {exc}"
        )
        return unreadable, walker.pos, walker.envelope
    if to_end and walker.pos != len(walker.data):
        trailing = BadBytes(
            DecodeReason.TRAILING_BYTES,
            walker.pos,
            "",
            f"{len(walker.data) - walker.pos} bytes remain after a complete event",
        )
        return trailing, walker.pos, walker.envelope
    return None, walker.pos, walker.envelope
