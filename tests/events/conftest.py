"""Shared fixtures for the event-contract tests, including Hypothesis strategies generated
from the Avro schema itself (so every record type, field and enum is covered)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import strategies as st

from pipeline.events import EventCodec, FileSchemaRegistry, default_codec, default_registry
from pipeline.events._binary import collect_names

UTC = dt.UTC


def strategy_for(schema: Any, names: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A strategy for values of a parsed Avro schema in fastavro's decoded representation."""
    if isinstance(schema, str):
        if schema in names:
            return strategy_for(names[schema], names)
        return {
            "null": st.none(),
            "boolean": st.booleans(),
            "int": st.integers(-(2**31), 2**31 - 1),
            "long": st.integers(-(2**63), 2**63 - 1),
            "string": st.text(),
            "bytes": st.binary(),
            "double": st.floats(allow_nan=False),
        }[schema]
    if isinstance(schema, list):
        branches = []
        for branch in schema:
            resolved = names.get(branch, branch) if isinstance(branch, str) else branch
            inner = strategy_for(resolved, names)
            if isinstance(resolved, dict) and resolved.get("type") == "record":
                inner = st.tuples(st.just(resolved["name"]), inner)
            branches.append(inner)
        return st.one_of(branches)
    kind = schema["type"]
    if isinstance(kind, (dict, list)):
        return strategy_for(kind, names)
    logical = schema.get("logicalType")
    if logical == "uuid":
        return st.uuids()
    if logical == "timestamp-micros":
        return st.datetimes(
            min_value=dt.datetime(1, 1, 2),
            max_value=dt.datetime(9999, 12, 30),
            timezones=st.just(UTC),
        )
    if logical == "date":
        return st.dates()
    if kind == "enum":
        return st.sampled_from(schema["symbols"])
    if kind == "array":
        return st.lists(strategy_for(schema["items"], names), max_size=6)
    if kind == "record":
        return st.fixed_dictionaries(
            {f["name"]: strategy_for(f["type"], names) for f in schema["fields"]}
        )
    return strategy_for(kind, names)


@pytest.fixture(scope="session")
def codec() -> EventCodec:
    return default_codec()


@pytest.fixture(scope="session")
def registry() -> FileSchemaRegistry:
    return default_registry()


@pytest.fixture(scope="session")
def v1_document(registry: FileSchemaRegistry) -> dict[str, Any]:
    """The registered v1 envelope as JSON (docs included). Tests that change it deep-copy it."""
    document: dict[str, Any] = json.loads(json.dumps(registry.document(1)))
    return document


@pytest.fixture(scope="session")
def event_strategy(codec: EventCodec) -> Callable[[str], st.SearchStrategy[dict[str, Any]]]:
    """``event_strategy("CardDealt")``: whole events with that payload type."""
    names = collect_names(codec.schema)
    envelope = {f["name"]: f for f in codec.schema["fields"]}

    def build(payload_type: str) -> st.SearchStrategy[dict[str, Any]]:
        fullname = f"nj.baccarat.v1.{payload_type}"
        return st.fixed_dictionaries(
            {
                "event_id": strategy_for(envelope["event_id"]["type"], names),
                "table_id": st.text(),
                "device_id": st.text(),
                "seq": st.integers(1, 2**63 - 1),
                "occurred_at": strategy_for(envelope["occurred_at"]["type"], names),
                "payload": st.tuples(st.just(fullname), strategy_for(names[fullname], names)),
            }
        )

    return build
