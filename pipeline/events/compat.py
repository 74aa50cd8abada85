"""Static Avro schema-resolution check: can a reader schema read what a writer schema wrote?

Implements the resolution rules of the Avro specification ("Schema Resolution") on parsed
schemas, plus one rule of this project's policy: a logical type may not change. The schema
registry uses it to refuse a new version that breaks ``schemas/README.md``; tests use it to
prove the policy's examples.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fastavro.schema import parse_schema

from pipeline.events._binary import collect_names

_NAMED = frozenset({"record", "error", "enum", "fixed"})
_PROMOTIONS = frozenset(
    {
        ("int", "long"),
        ("int", "float"),
        ("int", "double"),
        ("long", "float"),
        ("long", "double"),
        ("float", "double"),
        ("string", "bytes"),
        ("bytes", "string"),
    }
)
"""(writer, reader) pairs the Avro specification promotes."""


class Problem(enum.Enum):
    """Kinds of incompatibility."""

    TYPE_MISMATCH = "TYPE_MISMATCH"
    NAME_MISMATCH = "NAME_MISMATCH"
    LOGICAL_TYPE_CHANGED = "LOGICAL_TYPE_CHANGED"
    FIELD_WITHOUT_DEFAULT = "FIELD_WITHOUT_DEFAULT"
    ENUM_SYMBOL_MISSING = "ENUM_SYMBOL_MISSING"
    UNION_BRANCH_MISSING = "UNION_BRANCH_MISSING"
    FIXED_SIZE_MISMATCH = "FIXED_SIZE_MISMATCH"


@dataclass(frozen=True, slots=True)
class Incompatibility:
    kind: Problem
    path: str
    """Where, e.g. ``payload`` or ``payload<CardDealt>.rank``."""
    message: str
    symbols: tuple[str, ...] = ()
    """For ``ENUM_SYMBOL_MISSING``: the writer's symbols the reader does not know."""
    enum: str = ""
    """For ``ENUM_SYMBOL_MISSING``: the enum's full name."""

    def __str__(self) -> str:
        return f"{self.path or '<root>'}: {self.message} [{self.kind.value}]"


def _kind(schema: Any) -> str:
    if isinstance(schema, list):
        return "union"
    if isinstance(schema, dict):
        kind = schema["type"]
        return kind if isinstance(kind, str) else _kind(kind)
    return str(schema)


def _label(schema: Any) -> str:
    if isinstance(schema, dict) and "name" in schema:
        return str(schema["name"]).rpartition(".")[2]
    return _kind(schema)


def _logical(schema: Any) -> str | None:
    return schema.get("logicalType") if isinstance(schema, dict) else None


def compatibility_problems(reader: Any, writer: Any) -> list[Incompatibility]:
    """Everything that stops ``reader`` from reading data written with ``writer``.

    An empty list means every datum of the writer schema resolves against the reader schema.
    """
    reader = parse_schema(reader)
    writer = parse_schema(writer)
    rnames = collect_names(reader)
    wnames = collect_names(writer)
    seen: set[tuple[str, str]] = set()

    def resolve(schema: Any, names: dict[str, Any]) -> Any:
        if isinstance(schema, str) and schema in names:
            return names[schema]
        if isinstance(schema, dict) and isinstance(schema.get("type"), (dict, list)):
            return resolve(schema["type"], names)
        return schema

    def matches(r: Any, w: Any) -> bool:
        """Whether a reader union branch is the one the writer branch resolves to."""
        rk, wk = _kind(r), _kind(w)
        if rk in _NAMED or wk in _NAMED:
            return rk == wk and r["name"] == w["name"]
        return rk == wk or (wk, rk) in _PROMOTIONS

    def check(r: Any, w: Any, path: str) -> Iterator[Incompatibility]:
        r, w = resolve(r, rnames), resolve(w, wnames)
        if isinstance(w, list):
            for branch in w:
                branch = resolve(branch, wnames)
                sub = f"{path}<{_label(branch)}>" if _kind(branch) in _NAMED else path
                yield from check(r, branch, sub)
            return
        if isinstance(r, list):
            for branch in r:
                branch = resolve(branch, rnames)
                if matches(branch, w):
                    yield from check(branch, w, path)
                    return
            yield Incompatibility(
                Problem.UNION_BRANCH_MISSING,
                path,
                f"the writer's {_label(w)} is not a branch of the reader's union",
            )
            return
        rk, wk = _kind(r), _kind(w)
        if rk != wk:
            if (wk, rk) not in _PROMOTIONS:
                yield Incompatibility(
                    Problem.TYPE_MISMATCH, path, f"writer type {wk} cannot be read as {rk}"
                )
            return
        if _logical(r) != _logical(w):
            yield Incompatibility(
                Problem.LOGICAL_TYPE_CHANGED,
                path,
                f"logical type {_logical(w)} (writer) differs from {_logical(r)} (reader)",
            )
        if rk in _NAMED and r["name"] != w["name"]:
            yield Incompatibility(
                Problem.NAME_MISMATCH, path, f"writer {w['name']} vs reader {r['name']}"
            )
            return
        if rk in ("record", "error"):
            key = (r["name"], w["name"])
            if key in seen:
                return
            seen.add(key)
            written = {f["name"]: f for f in w["fields"]}
            for field in r["fields"]:
                sub = f"{path}.{field['name']}" if path else field["name"]
                if field["name"] in written:
                    yield from check(field["type"], written[field["name"]]["type"], sub)
                elif "default" not in field:
                    yield Incompatibility(
                        Problem.FIELD_WITHOUT_DEFAULT,
                        sub,
                        "the reader's field is missing from the writer and has no default",
                    )
        elif rk == "enum":
            missing = [s for s in w["symbols"] if s not in r["symbols"]]
            if missing and "default" not in r:
                yield Incompatibility(
                    Problem.ENUM_SYMBOL_MISSING,
                    path,
                    f"writer symbols {missing} are unknown to the reader, which has no default",
                    tuple(missing),
                    r["name"],
                )
        elif rk == "fixed":
            if r["size"] != w["size"]:
                yield Incompatibility(
                    Problem.FIXED_SIZE_MISMATCH, path, f"size {w['size']} vs {r['size']}"
                )
        elif rk == "array":
            yield from check(r["items"], w["items"], f"{path}[]")
        elif rk == "map":
            yield from check(r["values"], w["values"], f"{path}{{}}")

    return list(check(reader, writer, ""))
