"""A round's evidence: the deliveries that name it and those an exception cites, as the
devices sent them, each payload told as a person reads it (``what``, by
:func:`pipeline.ledger.evidence_text.event_text`) rather than the stored JSON. Times stay
microseconds since the epoch (``occurred_at``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from pipeline.ledger.evidence_text import CitedEvent, event_text
from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger

_DELIVERY = (
    "SELECT payload_type, device_id, seq, occurred_at, fields_json AS fields, event_id, "
    "source, position FROM deliveries WHERE table_id = ? AND "
)
_CITED = "list_contains(?::VARCHAR[], event_id) ORDER BY occurred_at, device_id, seq, position"


def parsed_fields(fields_json: str) -> dict[str, Any]:
    """A delivery's stored payload; text that is not a JSON object is kept as ``text``."""
    try:
        fields = json.loads(fields_json)
    except (TypeError, ValueError):
        return {"text": str(fields_json)}
    return fields if isinstance(fields, dict) else {"text": str(fields_json)}


def with_event_text(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its ``fields`` column of stored JSON told as ``what`` the event says."""
    df["fields"] = [
        event_text(str(t), parsed_fields(v))
        for t, v in zip(df["payload_type"], df["fields"], strict=True)
    ]
    return df.rename(columns={"fields": "what"})


def round_events(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    """The deliveries of a table that name the round, in the order they occurred."""
    return with_event_text(
        frame(
            ledger,
            _DELIVERY + "json_extract_string(fields_json, '$.round_id') = ? "
            "ORDER BY occurred_at, seq, position",
            [table_id, round_id],
        )
    )


def deliveries_of(ledger: Ledger, table_id: str, event_ids: Sequence[str]) -> pd.DataFrame:
    """The stored deliveries of these events of a table: what the devices said, in order."""
    return with_event_text(frame(ledger, _DELIVERY + _CITED, [table_id, list(event_ids)]))


def cited_events(ledger: Ledger, table_id: str, event_ids: Sequence[str]) -> list[CitedEvent]:
    """These events of a table, once each however often they were delivered (as first
    delivered), in the order they occurred: what
    :func:`pipeline.ledger.evidence_text.evidence_lines` reads."""
    rows = ledger.con.execute(
        "SELECT event_id, payload_type, occurred_at, fields_json FROM deliveries "
        "WHERE table_id = ? AND " + _CITED,
        [table_id, list(event_ids)],
    ).fetchall()
    once: dict[str, CitedEvent] = {}
    for event_id, payload_type, occurred_at, fields_json in rows:
        once.setdefault(
            str(event_id),
            CitedEvent(
                str(event_id), str(payload_type), int(occurred_at), parsed_fields(fields_json)
            ),
        )
    return list(once.values())
