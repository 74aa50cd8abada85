"""Typed payload records, generated from the registered envelope schema.

:mod:`pipeline.events.payloads` holds one frozen dataclass per payload record of the latest
registered schema, so code that reads an event sees its fields' names and types (mypy checks
them) instead of ``dict[str, Any]``. The module is generated, never edited: ``python -m
pipeline.events register`` rewrites it with the schema it registers, ``python -m
pipeline.events payloads`` rewrites it from the latest registered schema, and
``tests/events/test_event_payloads.py`` fails when it differs from what :func:`render` makes of
the registered schema.

Avro types map to Python as the decoders return them: ``string`` to ``str``, ``int`` and
``long`` to ``int``, ``boolean`` to ``bool``, ``int`` with logical type ``date`` to
:class:`datetime.date`, an enum to a ``Literal`` of its symbols (the strings the decoders
return), an array to a ``list``, ``["null", T]`` to ``T | None``. A type the generator does
not know (a map, a nested record, a float) stops it with :class:`PayloadCodegenError` rather
than producing ``Any``.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

MODULE_PATH = Path(__file__).resolve().parent / "payloads.py"
"""Where the generated module lives."""

_PRIMITIVES = {"string": "str", "int": "int", "long": "int", "boolean": "bool"}
_LOGICAL = {("int", "date"): "dt.date"}
_WIDTH = 100


class PayloadCodegenError(Exception):
    """The schema holds a type the generator cannot map to a Python type."""


def payload_records(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The payload record schemas of an inlined envelope document, in union order."""
    for field in document["fields"]:
        if field["name"] == "payload":
            return [branch for branch in field["type"] if isinstance(branch, dict)]
    raise PayloadCodegenError("the envelope has no payload field")


def _short(name: str) -> str:
    return name.rpartition(".")[2]


def _literal(value: Any) -> str:
    """Python source for a default or symbol, in the quotes ruff format keeps."""
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _docstring(text: str, indent: str) -> list[str]:
    words = " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if not words:
        return []
    single = f'{indent}"""{words}"""'
    if len(single) <= _WIDTH:
        return [single]
    lines = textwrap.wrap(
        '"""' + words, width=_WIDTH - len(indent), break_long_words=False, break_on_hyphens=False
    )
    return [f"{indent}{line}" for line in lines] + [f'{indent}"""']


class _Types:
    """Python annotations for Avro types, collecting the enums met on the way."""

    def __init__(self) -> None:
        self.enums: dict[str, list[str]] = {}

    def annotation(self, schema: Any, where: str) -> str:
        if isinstance(schema, list):
            branches = [b for b in schema if b != "null"]
            if len(branches) != 1 or len(schema) != 2:
                raise PayloadCodegenError(f"{where}: only [null, T] unions are supported")
            return f"{self.annotation(branches[0], where)} | None"
        if isinstance(schema, str):
            if schema in _PRIMITIVES:
                return _PRIMITIVES[schema]
            if _short(schema) in self.enums:
                return _short(schema)
            raise PayloadCodegenError(f"{where}: unknown type {schema!r}")
        kind = schema["type"]
        if isinstance(kind, (dict, list)):
            return self.annotation(kind, where)
        logical = _LOGICAL.get((kind, schema.get("logicalType", "")))
        if logical is not None:
            return logical
        if kind == "array":
            return f"list[{self.annotation(schema['items'], f'{where}[]')}]"
        if kind == "enum":
            self.enums[schema["name"]] = list(schema["symbols"])
            return str(schema["name"])
        if kind in _PRIMITIVES and "logicalType" not in schema:
            return _PRIMITIVES[kind]
        raise PayloadCodegenError(
            f"{where}: no Python type for {kind!r}"
            f"{' (' + schema['logicalType'] + ')' if 'logicalType' in schema else ''}; "
            "extend pipeline/events/payload_codegen.py"
        )


def _record(record: Mapping[str, Any], types: _Types) -> Iterator[str]:
    name = record["name"]
    yield ""
    yield ""
    yield "@dataclass(frozen=True, slots=True, kw_only=True)"
    yield f"class {name}:"
    yield from _docstring(record.get("doc", name), "    ")
    for field in record["fields"]:
        annotation = types.annotation(field["type"], f"{name}.{field['name']}")
        default = f" = {_literal(field['default'])}" if "default" in field else ""
        yield ""
        yield f"    {field['name']}: {annotation}{default}"
        yield from _docstring(field.get("doc", ""), "    ")


def _enum_lines(name: str, symbols: list[str]) -> Iterator[str]:
    one_line = f"{name} = Literal[{', '.join(map(_literal, symbols))}]"
    if len(one_line) <= _WIDTH:
        yield one_line
        return
    yield f"{name} = Literal["
    for symbol in symbols:
        yield f"    {_literal(symbol)},"
    yield "]"


def render(document: Mapping[str, Any], schema_id: int) -> str:
    """The source of :mod:`pipeline.events.payloads` for the envelope ``document``."""
    records = payload_records(document)
    types = _Types()
    bodies = [line for record in records for line in _record(record, types)]
    names = [str(record["name"]) for record in records]
    head = [
        f'"""Typed payload records of the table-event contract, schema id {schema_id}.',
        "",
        "GENERATED by pipeline/events/payload_codegen.py from the registered schema: do not",
        "edit. Read an event's payload with ``event.payload_as(CardDealt)``.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import datetime as dt",
        "from dataclasses import dataclass",
        "from typing import Literal",
        "",
        f"SCHEMA_ID = {schema_id}",
        '"""The registered schema these records were generated from."""',
        "",
    ]
    enums = [line for name, symbols in types.enums.items() for line in _enum_lines(name, symbols)]
    tail = [
        "",
        "",
        "Payload = (",
        f"    {names[0]}",
        *(f"    | {name}" for name in names[1:]),
        ")",
        "",
        "PAYLOAD_TYPES: dict[str, type[Payload]] = {",
        *(f'    "{name}": {name},' for name in names),
        "}",
        '"""Every payload record type by its short name (``TableEvent.payload_type``)."""',
        "",
    ]
    return "\n".join([*head, *enums, *bodies, *tail])


def write(path: Path = MODULE_PATH) -> Path:
    """Regenerate the module from the repository's latest registered schema."""
    from pipeline.events.registry import FileSchemaRegistry

    registry = FileSchemaRegistry()
    latest = registry.id_for_latest()
    path.write_text(render(registry.document(latest), latest))
    return path
