"""The audit-exceptions contract: registered like the event contract, Confluent-framed Avro
that round-trips, and bytes that are not a registered notice refused with a reason."""

from __future__ import annotations

import io
import json
import shutil
import struct
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from fastavro import schemaless_writer

from pipeline.events.exception_notices import (
    SUBJECT,
    NoticeCodec,
    NoticeDecodeError,
    notice_registry,
)
from pipeline.events.registry import FileSchemaRegistry, RegistryError, default_schema_dir

NOTICE: dict[str, Any] = {
    "notice_seq": 7, "state": "WITHDRAWN", "finding_id": "f00d", "code": "NJ-DATA-GAP",
    "severity": "HIGH", "section": "N.J.A.C. 19:47-8.2", "table_id": "T01",
    "gaming_date": date(2026, 11, 24), "shoe_id": None, "round_id": "T01-R9", "seat": None,
    "patron_id": None, "serial": None, "expected_cents": None, "actual_cents": 2500,
    "message": "device T01-shoe skipped seq 7", "evidence_event_ids": ["e1", "e2"],
    "recorded_at": datetime(2026, 11, 24, 22, 0, 1, 250, tzinfo=UTC),
    "published_at": datetime(2026, 11, 24, 22, 0, 1, 900, tzinfo=UTC),
    "pit": "BACCARAT-1", "dealer_id": "DLR-101",
    "dashboard_url": "https://audit.example/exceptions?day=2026-11-24&exception=f00d",
}  # fmt: skip
FIRST_VERSION = 1001
"""The notices before they named the pit, the dealer and the dashboards' link."""


def test_the_registered_schema_matches_its_source_and_keeps_clear_of_event_ids() -> None:
    registry = notice_registry()
    assert registry.subject == SUBJECT == "audit-exceptions-value"
    assert registry.id_for_latest() == 1002
    events = FileSchemaRegistry()
    assert not {e.id for e in registry.entries} & {e.id for e in events.entries}


def test_a_notice_round_trips_in_the_confluent_format() -> None:
    codec = NoticeCodec()
    message = codec.encode(NOTICE)
    assert message[0] == 0 and struct.unpack(">I", message[1:5]) == (1002,)
    assert codec.decode(message) == NOTICE


def test_a_notice_of_the_first_version_reads_without_a_place_or_a_link() -> None:
    """A subscriber with the newest schema still reads what an older stream sent: the pit,
    the dealer and the link it did not carry are null (their defaults)."""
    codec = NoticeCodec()
    first = {k: v for k, v in NOTICE.items() if k not in ("pit", "dealer_id", "dashboard_url")}
    written = io.BytesIO()
    written.write(struct.pack(">bI", 0, FIRST_VERSION))  # the Confluent frame
    schemaless_writer(written, codec.registry.schema_for_id(FIRST_VERSION), first)
    assert codec.decode(written.getvalue()) == {**first, "pit": None, "dealer_id": None,
                                     "dashboard_url": None}  # fmt: skip


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda m: b"\x01" + m[1:], "not a Confluent-framed Avro message"),
        (lambda m: m[:1] + struct.pack(">I", 1) + m[5:], "schema id 1 is not registered"),
        (lambda m: m[:-3], "cannot decode"),
        (lambda m: m + b"\x00", "trailing bytes"),
        (lambda m: m[:3], "not a Confluent-framed Avro message"),
    ],
)
def test_bytes_that_are_not_a_registered_notice_are_refused(damage: Any, reason: str) -> None:
    codec = NoticeCodec()
    with pytest.raises(NoticeDecodeError, match=reason):
        codec.decode(damage(codec.encode(NOTICE)))


def test_an_edited_source_without_a_new_id_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "schemas"
    shutil.copytree(default_schema_dir(), copy)
    source = copy / "audit-exceptions" / "audit_exception.avsc"
    schema = json.loads(source.read_text())
    schema["fields"].append({"name": "note", "type": ["null", "string"], "default": None})
    source.write_text(json.dumps(schema))
    with pytest.raises(RegistryError, match="differ from schema id 1002"):
        notice_registry(copy)
