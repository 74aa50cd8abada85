"""The emulated devices' event stream for one table, before encoding."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import Any

from pipeline.events.model import TableEvent


@dataclass(slots=True)
class Devices:
    """The hardware at one table (names are what ``device_id`` carries)."""

    shoe: str
    bets: str
    pit: str
    accounting: str

    @classmethod
    def at(cls, table_id: str) -> Devices:
        return cls(f"{table_id}-shoe", f"{table_id}-bets", f"{table_id}-pit", f"{table_id}-acct")


@dataclass
class TableStream:
    """Collects one table's events with per-device sequence numbers and a moving clock."""

    table_id: str
    rng: random.Random
    clock_micros: int
    events: list[TableEvent] = field(default_factory=list)
    _seq: dict[str, int] = field(default_factory=dict)

    def advance(self, seconds: float) -> None:
        self.clock_micros += int(seconds * 1_000_000)

    def emit(self, device: str, payload_type: str, **fields: Any) -> str:
        """Append an event ``payload_type`` from ``device`` a moment after the previous one."""
        self.clock_micros += self.rng.randint(200_000, 1_500_000)
        return self._append(self.rng, device, payload_type, fields)

    def emit_with(self, rng: random.Random, device: str, payload_type: str, **fields: Any) -> str:
        """Append an event ``payload_type`` from ``device`` at the moment of the previous one,
        its id drawn from ``rng``: an event a fault adds from its own stream leaves the
        table's stream, and so every later draw and moment of the day, as it was."""
        return self._append(rng, device, payload_type, fields)

    def _append(
        self, rng: random.Random, device: str, payload_type: str, fields: dict[str, Any]
    ) -> str:
        seq = self._seq.get(device, 0) + 1
        self._seq[device] = seq
        event_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        self.events.append(
            TableEvent(
                event_id, self.table_id, device, seq, self.clock_micros, payload_type, fields
            )
        )
        return event_id
