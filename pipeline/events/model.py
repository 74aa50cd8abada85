"""The in-memory form of one table event, shared by the emulator, the codecs and the replay.

Field names follow the Avro envelope (``schemas/table_event.avsc``). ``payload_type`` is the
payload record's short name (``"CardDealt"``) and ``fields`` its fields, with enum symbols as
strings, dates as :class:`datetime.date`, and ``occurred_at`` as integer microseconds since the
Unix epoch (UTC), so events compare and hash without time-zone surprises.

:meth:`TableEvent.payload_as` reads the fields as the typed record generated from the schema
(:mod:`pipeline.events.payloads`), which is what new code should use instead of :meth:`get`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

P = TypeVar("P")


class PayloadTypeError(TypeError):
    """An event was read as a payload record it does not hold."""


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

    def payload_as(self, kind: type[P]) -> P:
        """The payload as the record ``kind`` (``event.payload_as(CardDealt)``).

        Built on each call (about a microsecond; the replay's hot paths keep :meth:`get`).
        Fields an in-memory event leaves out take the schema's default; a payload of another
        type, or fields the record lacks or does not know, raise :class:`PayloadTypeError`
        naming the event.
        """
        if kind.__name__ != self.payload_type:
            raise PayloadTypeError(
                f"event {self.event_id} (table {self.table_id}, device {self.device_id}, "
                f"seq {self.seq}) is a {self.payload_type}, not a {kind.__name__}"
            )
        try:
            return kind(**self.fields)
        except TypeError as exc:
            raise PayloadTypeError(
                f"event {self.event_id} (table {self.table_id}, device {self.device_id}, "
                f"seq {self.seq}): its {self.payload_type} fields do not fit the schema: {exc}"
            ) from exc

    @property
    def round_id(self) -> str | None:
        value = self.fields.get("round_id")
        return str(value) if value is not None else None
