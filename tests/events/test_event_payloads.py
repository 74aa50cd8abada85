"""The typed payload records (pipeline/events/payloads.py) are the registered schema's, and
every event the decoders and the emulator produce reads as its record."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.events import FileSchemaRegistry, payloads
from pipeline.events.convert import from_record
from pipeline.events.model import PayloadTypeError, TableEvent
from pipeline.events.payload_codegen import (
    MODULE_PATH,
    PayloadCodegenError,
    payload_records,
    render,
)
from pipeline.events.payloads import PAYLOAD_TYPES, CardDealt, CompVigFormIssued
from pipeline.simulate.run import plan_floor, simulate_table


def test_the_module_is_generated_from_the_latest_registered_schema(
    registry: FileSchemaRegistry,
) -> None:
    """A schema registered without regenerating the records (or a hand edit of the module)
    fails here: ``python -m pipeline.events payloads`` regenerates it."""
    latest = registry.id_for_latest()
    assert latest == payloads.SCHEMA_ID
    assert Path(MODULE_PATH).read_text() == render(registry.document(latest), latest), (
        "pipeline/events/payloads.py differs from the registered schema; run "
        "`python -m pipeline.events payloads`"
    )


def test_one_record_per_payload_type_with_the_schema_fields(
    registry: FileSchemaRegistry,
) -> None:
    records = payload_records(registry.document(registry.id_for_latest()))
    assert list(PAYLOAD_TYPES) == [r["name"] for r in records]
    for record in records:
        cls = PAYLOAD_TYPES[record["name"]]
        assert [f.name for f in dataclasses.fields(cls)] == [f["name"] for f in record["fields"]]
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(cls.__new__(cls), record["fields"][0]["name"], None)


def test_avro_types_become_python_types() -> None:
    hints = typing.get_type_hints(CompVigFormIssued, vars(payloads))
    assert hints["serial"] is int
    assert hints["gaming_date"] is dt.date
    assert hints["patron_name"] == str | None
    card = typing.get_type_hints(CardDealt, vars(payloads))
    assert typing.get_args(card["rank"])[0] == "ACE" and len(typing.get_args(card["rank"])) == 13
    assert typing.get_args(card["round_id"]) == (str, type(None))


def test_a_schema_change_changes_the_records(registry: FileSchemaRegistry) -> None:
    document = copy.deepcopy(registry.document(registry.id_for_latest()))
    card = next(r for r in payload_records(document) if r["name"] == "CardDealt")
    card["fields"].append(
        {"name": "read_confidence", "type": ["null", "int"], "default": None, "doc": "0-100."}
    )
    text = render(document, 99)
    assert "    read_confidence: int | None = None" in text
    assert text != Path(MODULE_PATH).read_text()


def test_a_type_without_a_python_mapping_stops_the_generator(
    registry: FileSchemaRegistry,
) -> None:
    document = copy.deepcopy(registry.document(registry.id_for_latest()))
    card = next(r for r in payload_records(document) if r["name"] == "CardDealt")
    card["fields"].append({"name": "weights", "type": {"type": "map", "values": "long"}})
    with pytest.raises(PayloadCodegenError, match=r"CardDealt\.weights: no Python type"):
        render(document, 99)


def _event(payload_type: str, **fields: Any) -> TableEvent:
    return TableEvent("e-1", "PB-01", "PB-01-shoe", 7, 0, payload_type, fields)


def test_payload_as_fills_schema_defaults_and_refuses_the_wrong_type() -> None:
    card = _event(
        "CardDealt", shoe_id="S1", position=3, rank="KING", suit="CLUBS", hand="BANKER"
    ).payload_as(CardDealt)
    assert (card.rank, card.round_id, card.face_up) == ("KING", None, True)
    with pytest.raises(PayloadTypeError, match=r"event e-1 .*PB-01.* is a CardDealt, not a Comp"):
        _event("CardDealt").payload_as(CompVigFormIssued)
    with pytest.raises(PayloadTypeError, match=r"seq 7.*CardDealt fields do not fit.*'colour'"):
        _event(
            "CardDealt", shoe_id="S1", position=3, rank="KING", suit="CLUBS", hand="BANKER",
            colour="red",
        ).payload_as(CardDealt)  # fmt: skip
    with pytest.raises(PayloadTypeError, match=r"missing.*'position'"):
        _event("CardDealt", shoe_id="S1", rank="KING", suit="CLUBS", hand="BANKER").payload_as(
            CardDealt
        )
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.rank = "ACE"  # type: ignore[misc]


@pytest.mark.parametrize("payload_type", list(PAYLOAD_TYPES))
def test_every_decoded_payload_reads_as_its_record(
    payload_type: str, event_strategy: Callable[[str], st.SearchStrategy[dict[str, Any]]]
) -> None:
    @settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow], deadline=None)
    @given(event_strategy(payload_type))
    def check(record: dict[str, Any]) -> None:
        event = from_record(record)
        typed = event.payload_as(PAYLOAD_TYPES[payload_type])
        assert dataclasses.asdict(typed) == record["payload"][1]

    check()


def test_every_emulated_event_reads_as_its_record() -> None:
    """The emulator leaves optional fields out; the records fill them with the schema's
    defaults, for every payload type a day at each game produces."""
    seen: set[str] = set()
    for plan in plan_floor(4):
        events, _ = simulate_table(plan, dt.date(2025, 3, 1), 1.0, seed=5, rates={})
        for event in events:
            typed = event.payload_as(PAYLOAD_TYPES[event.payload_type])
            for name, value in event.fields.items():
                assert getattr(typed, name) == value, (event.payload_type, name)
            seen.add(event.payload_type)
    assert {"CardDealt", "WagerSettled", "CompVigFormIssued", "BankerWager"} <= seen
