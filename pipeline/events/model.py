"""The in-memory form of one table event, shared by the emulator, the codecs and the replay.

Field names follow the Avro envelope (``schemas/table_event.avsc``). ``payload_type`` is the
payload record's short name (``"CardDealt"``) and ``fields`` its fields, with enum symbols as
strings, dates as :class:`datetime.date`, and ``occurred_at`` as integer microseconds since the
Unix epoch (UTC), so events compare and hash without time-zone surprises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class TableEvent:
    event_id: str
    table_id: str
    device_id: str
    seq: int
    occurred_at: int
    payload_type: str
    fields: dict[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    @property
    def round_id(self) -> str | None:
        value = self.fields.get("round_id")
        return str(value) if value is not None else None
