"""Retry is a type question (the dlt taxonomy): a terminal error will fail the same way again
and its input goes to dead letters; a transient error (a broker timeout, a locked file) is
retried by the orchestrator."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path


class PipelineError(Exception):
    """Base of the pipeline's own errors."""


class TerminalError(PipelineError):
    """Retrying cannot help: bad bytes, an unknown schema, a contract violation, illegal
    rules. The input is kept as a dead letter and the pipeline carries on."""


class TransientError(PipelineError):
    """Retrying may help: the broker timed out, the ledger file is locked."""


@dataclass(frozen=True)
class LateDelivery:
    """Events of one input file for a gaming day already closed."""

    file: str
    gaming_date: date
    events: int


class ClosedGamingDayError(PipelineError):
    """Input files hold events for gaming days already closed: the whole load is refused
    before anything is written (a closed day's rows are sealed; adding to them silently would
    leave ``verify`` reporting tampering). The day must be reopened first."""

    def __init__(self, db: Path, late: Sequence[LateDelivery]) -> None:
        self.db = db
        self.late = tuple(late)
        days = sorted({d.gaming_date for d in self.late})
        files = sorted({d.file for d in self.late})
        events = sum(d.events for d in self.late)
        listing = "\n".join(
            f"  {d.file}: {d.events:,} events for {d.gaming_date.isoformat()}" for d in self.late
        )
        reopen = "\n".join(
            f"  baccarat-audit reopen --db {db} --gaming-day {day.isoformat()} --reason '...'"
            for day in days
        )
        super().__init__(
            f"refused: {events:,} events of {len(files)} file(s) belong to closed gaming "
            f"day(s) {', '.join(d.isoformat() for d in days)}; nothing was written to {db}.\n"
            f"{listing}\n"
            "A closed day's rows are sealed. To add these events, reopen the day (the reason "
            f"goes to its audit trail), then run the same replay again:\n{reopen}"
        )
