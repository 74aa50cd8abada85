"""The load stage: a batch of deliveries in, every table-day it touched replayed, in one
transaction, so the ledger never holds events without the rows derived from them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, time

from pipeline.ingest.sources import DeadLetter
from pipeline.ledger.store import Delivery, Ledger
from pipeline.replay.findings import Finding, Severity
from pipeline.replay.machine import UnknownRulesError, replay_table
from pipeline.replay.rows import ReplayResult
from pipeline.rules.config import TableRules

DEFAULT_DAY_STARTS = time(6, 0)


@dataclass
class LoadReport:
    deliveries: int = 0
    dead_letters: int = 0
    table_days: list[tuple[str, date]] = field(default_factory=list)
    exceptions: int = 0
    rounds: int = 0


def load_batch(
    ledger: Ledger,
    deliveries: Sequence[Delivery],
    dead_letters: Iterable[DeadLetter],
    catalog: Mapping[str, TableRules],
    *,
    day_starts: time = DEFAULT_DAY_STARTS,
    in_same_transaction: Callable[[Ledger], None] | None = None,
) -> LoadReport:
    """Store a batch and re-derive the table-days it touched, atomically.

    ``in_same_transaction`` runs inside the same transaction (the Kafka consumer stores its
    offsets there), so a crash anywhere leaves either everything or nothing.
    """
    report = LoadReport()
    dead = list(dead_letters)
    with ledger.transaction():
        touched = ledger.add_deliveries(deliveries, day_starts)
        report.dead_letters = ledger.add_dead_letters(
            (d.source, d.position, d.reason, d.detail, d.device_id, d.raw, None) for d in dead
        )
        report.deliveries = len(deliveries)
        for table_id, day in sorted(touched, key=lambda td: (td[1], td[0])):
            events = ledger.events_for(table_id, day)
            try:
                result = replay_table(table_id, events, catalog)
            except UnknownRulesError as err:
                result = ReplayResult(table_id, event_count=len(events))
                result.findings.append(
                    Finding(
                        "NJ-DATA-CONTRACT",
                        Severity.HIGH,
                        table_id,
                        str(err),
                        event_ids=tuple(e.event_id for e in events[:1]),
                    )
                )
            ledger.replace_table_day(table_id, day, result)
            report.table_days.append((table_id, day))
            report.exceptions += len(result.findings)
            report.rounds += len(result.rounds)
        if in_same_transaction is not None:
            in_same_transaction(ledger)
    return report
