"""A round's evidence: the deliveries that name it and those an exception cites, as the
devices sent them, each payload given back as ``name=value`` text (``fields``) rather than
the stored JSON. Times stay microseconds since the epoch (``occurred_at``)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd

from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger

_DELIVERY = (
    "SELECT payload_type, device_id, seq, occurred_at, fields_json AS fields, event_id, "
    "source, position FROM deliveries WHERE table_id = ? AND "
)


def fields_text(fields_json: str) -> str:
    """An event's fields as ``name=value`` pairs, nulls left out (text that is not JSON is
    given as it is)."""
    try:
        fields = json.loads(fields_json)
    except (TypeError, ValueError):
        return str(fields_json)
    return ", ".join(f"{k}={v}" for k, v in fields.items() if v is not None)


def with_fields_text(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its ``fields`` column of stored JSON as :func:`fields_text`."""
    df["fields"] = [fields_text(v) for v in df["fields"]]
    return df


def round_events(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    """The deliveries of a table that name the round, in the order they occurred."""
    return with_fields_text(
        frame(
            ledger,
            _DELIVERY + "json_extract_string(fields_json, '$.round_id') = ? "
            "ORDER BY occurred_at, seq, position",
            [table_id, round_id],
        )
    )


def deliveries_of(ledger: Ledger, table_id: str, event_ids: Sequence[str]) -> pd.DataFrame:
    """The stored deliveries of these events of a table: what the devices said, in order."""
    return with_fields_text(
        frame(
            ledger,
            _DELIVERY + "list_contains(?::VARCHAR[], event_id) "
            "ORDER BY occurred_at, device_id, seq, position",
            [table_id, list(event_ids)],
        )
    )
