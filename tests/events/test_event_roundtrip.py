"""Property: every event of every payload type survives encode -> decode -> encode unchanged.

Events are generated from the Avro schema itself (see conftest.strategy_for), so a field or
record added to the schema is covered without touching this file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.events import (
    CONTAINER_CODECS,
    EventCodec,
    decode_event,
    default_codec,
    encode_event,
    payload_type,
)

PAYLOAD_TYPES = default_codec().payload_types


def test_every_payload_type_is_covered() -> None:
    assert len(PAYLOAD_TYPES) == 36


@pytest.mark.parametrize("kind", PAYLOAD_TYPES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_message_round_trip(
    kind: str,
    data: st.DataObject,
    event_strategy: Callable[[str], st.SearchStrategy[dict[str, Any]]],
) -> None:
    event = data.draw(event_strategy(kind))
    encoded = encode_event(event)
    decoded = decode_event(encoded)
    assert decoded == event
    assert payload_type(decoded) == kind
    assert tuple(decoded["payload"][1]) == default_codec().payload_fields(kind)  # schema order
    assert encode_event(decoded) == encoded


@pytest.mark.parametrize("codec_name", CONTAINER_CODECS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_container_round_trip(
    codec_name: str,
    data: st.DataObject,
    event_strategy: Callable[[str], st.SearchStrategy[dict[str, Any]]],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Every codec round-trips; a file without block checksums only for a codec told to read
    such files (test_event_integrity.py tests the refusal)."""
    codec = EventCodec(allow_unverified=True)
    kinds = data.draw(st.lists(st.sampled_from(PAYLOAD_TYPES), min_size=0, max_size=40))
    events = [data.draw(event_strategy(kind)) for kind in kinds]
    path: Path = tmp_path_factory.mktemp("roundtrip") / "table.avro"
    assert codec.write_events(path, events, codec=codec_name, sync_interval=500) == len(events)
    assert list(codec.read_events(path)) == events
    assert list(codec.read_events_tolerant(path)) == events
