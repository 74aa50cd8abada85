"""The load stage: a batch of deliveries in, every table-day it touched replayed, in one
transaction, so the ledger never holds events without the rows derived from them.

Two steps, so the expensive one can run in other processes:

- :func:`prepare` is pure: it groups a batch by table-day and replays each group. For a
  table-day the ledger has not seen before, that replay is final.
- :func:`load_batch` stores the batch and, in the same transaction, writes the derived rows of
  every table-day it touched: the prepared result where the day is new, otherwise a fresh
  replay of everything the ledger now holds for that day (late data re-derives only the
  table-days it touches).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from operator import attrgetter

from pipeline.config.catalog import gaming_day_of
from pipeline.events.model import TableEvent
from pipeline.ingest.conflicts import ConflictWatch
from pipeline.ingest.live import LiveTableDays
from pipeline.ingest.pits import judge_pits
from pipeline.ingest.sources import DeadLetter
from pipeline.ledger.store import Delivery, Ledger
from pipeline.replay.findings import Finding, Severity
from pipeline.replay.live import LiveReplay
from pipeline.replay.machine import UnknownRulesError, replay_table
from pipeline.replay.rows import ReplayResult
from pipeline.rules.config import TableRules
from pipeline.rules.gaming_day import GamingDay

DEFAULT_SKEW_TOLERANCE = timedelta(minutes=10)
"""How long after a gaming-day boundary a table's open session keeps its events (see
:meth:`~pipeline.ledger.store.Ledger.realign_boundary_sessions`); the raw-events quality suite
accepts timestamps this far outside the gaming day."""

_ARRIVAL_ORDER = attrgetter("arrival")

TableDay = tuple[str, date]


@dataclass
class LoadReport:
    deliveries: int = 0
    """Events the inputs read delivered, whether the ledger held them or not."""
    redelivered: int = 0
    """Of those, the ones the ledger already held (delivered again: nothing to add)."""
    files: int = 0
    """Input files read."""
    files_skipped: int = 0
    """Input files not read: the ledger holds the same file, same path and content."""
    dead_letters: int = 0
    dead_letters_resolved: int = 0
    """Earlier dead letters resolved by a sound version of the same file."""
    table_days: list[TableDay] = field(default_factory=list)
    exceptions: int = 0
    rounds: int = 0

    @property
    def new_deliveries(self) -> int:
        """Events added to the ledger."""
        return self.deliveries - self.redelivered

    def summary(self) -> str:
        """The counts, exact, in one line (the file path's wording)."""
        resolved = (
            f" ({self.dead_letters_resolved:,} earlier ones resolved)"
            if self.dead_letters_resolved
            else ""
        )
        return (
            f"loaded {self.new_deliveries:,} new events from {self.files:,} files "
            f"({self.redelivered:,} already in the ledger, {self.files_skipped:,} files "
            f"skipped as already loaded); {self.dead_letters:,} dead letters{resolved}"
        )


def replay_or_explain(
    table_id: str,
    events: list[TableEvent],
    catalog: Mapping[str, TableRules],
    live: LiveReplay | None = None,
) -> ReplayResult:
    """Replay a table-day (``live``: its :class:`~pipeline.replay.live.LiveReplay`, holding
    ``events``); a table opened under rules the catalog lacks becomes one
    NJ-DATA-CONTRACT exception instead of stopping the pipeline. A table-day left without
    events (they moved to the day before, see
    :meth:`~pipeline.ledger.store.Ledger.realign_boundary_sessions`) has no rows."""
    if not events:
        return ReplayResult(table_id)
    try:
        return live.result() if live is not None else replay_table(table_id, events, catalog)
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
        return result


def replay_deliveries(
    table_id: str, deliveries: Sequence[Delivery], catalog: Mapping[str, TableRules]
) -> ReplayResult:
    """Replay a table-day from its deliveries in arrival order: :func:`replay_or_explain`
    of their events, less every copy of an event whose copies disagree, which is withheld
    and reported CRITICAL instead (:mod:`pipeline.ingest.conflicts`)."""
    watch = ConflictWatch()
    watch.add(deliveries)
    result = replay_or_explain(table_id, [d.event for d in watch.admitted(deliveries)], catalog)
    result.findings.extend(watch.findings())
    return result


def group_by_table_day(
    deliveries: Sequence[Delivery],
    gaming_day: GamingDay,
) -> dict[TableDay, list[Delivery]]:
    groups: dict[TableDay, list[Delivery]] = defaultdict(list)
    for d in deliveries:
        groups[(d.event.table_id, gaming_day.date_of(d.event.occurred_at))].append(d)
    return groups


def prepare(
    deliveries: Sequence[Delivery], catalog: Mapping[str, TableRules]
) -> dict[TableDay, ReplayResult]:
    """Replay each table-day of a batch on its own (pure; safe to run in a worker process);
    days as the catalog's gaming day draws them."""
    return {
        key: replay_deliveries(key[0], sorted(group, key=_ARRIVAL_ORDER), catalog)
        for key, group in group_by_table_day(deliveries, gaming_day_of(catalog)).items()
    }


def load_batch(
    ledger: Ledger,
    deliveries: Sequence[Delivery],
    dead_letters: Iterable[DeadLetter],
    catalog: Mapping[str, TableRules],
    *,
    skew_tolerance: timedelta = DEFAULT_SKEW_TOLERANCE,
    prepared: Mapping[TableDay, ReplayResult] | None = None,
    live: LiveTableDays | None = None,
    in_same_transaction: Callable[[Ledger], None] | None = None,
) -> LoadReport:
    """Store a batch and re-derive the table-days it touched, atomically.

    ``prepared`` holds :func:`prepare`'s results for this batch, used where the ledger had no
    earlier delivery for the table-day. ``live`` keeps table-days replaying between batches
    (the live consumer: :mod:`pipeline.ingest.live`); without it a table-day with earlier
    deliveries is read back from the ledger and replayed whole. ``in_same_transaction`` runs
    inside the same transaction (the Kafka consumer stores its offsets there), so a crash
    anywhere leaves either everything or nothing.
    """
    report = LoadReport()
    dead = list(dead_letters)
    gaming_day = gaming_day_of(catalog)
    groups = group_by_table_day(deliveries, gaming_day)
    try:
        with ledger.transaction():
            before = ledger.delivery_fingerprints(groups)
            if live is not None:
                live.check(before)
            seen_before = {key for key, (count, _) in before.items() if count}
            added, new = ledger.add_deliveries(deliveries, gaming_day)
            realigned = ledger.realign_boundary_sessions(
                {t for t, _ in added}, gaming_day, skew_tolerance
            )
            touched = set(added) | realigned
            rederive = seen_before | realigned
            report.dead_letters = ledger.add_dead_letters(
                (d.source, d.position, d.reason, d.detail, d.device_id, d.raw, None) for d in dead
            )
            report.deliveries = len(deliveries)
            report.redelivered = len(deliveries) - new
            if live is not None:
                live.forget(realigned)
                # what the batch added to the fingerprints taken before it, unless the
                # realignment moved deliveries in or out (asked again: that reads the day)
                grown = {k for k in touched - realigned if k in before}
                stored = ledger.delivery_fingerprints(touched - grown)
                stored.update(
                    (k, (before[k][0] + added[k][0], before[k][1] + added[k][1])) for k in grown
                )
            live_results: dict[TableDay, ReplayResult] = {}
            for key in sorted(touched, key=lambda td: (td[1], td[0])):
                if live is not None:
                    replay = live.replay_for(
                        ledger,
                        key,
                        groups.get(key, []),
                        stored=stored[key],
                        new_day=key not in rederive,
                    )
                    result = replay_or_explain(key[0], replay.arrived, catalog, replay)
                    result.findings.extend(live.conflict_findings(key))
                    live_results[key] = result
                else:
                    prepared_result = (prepared or {}).get(key)
                    result = (
                        replay_deliveries(key[0], ledger.deliveries_for(*key), catalog)
                        if prepared_result is None or key in rederive
                        else prepared_result
                    )
                    ledger.replace_table_day(*key, result)
                report.table_days.append(key)
                report.exceptions += len(result.findings)
                report.rounds += len(result.rounds)
            if live is not None:
                live.write(ledger, live_results)
            judge_pits(ledger)
            if in_same_transaction is not None:
                in_same_transaction(ledger)
    except BaseException:
        if live is not None:
            live.forget()  # some table-days took this batch's events; the ledger did not
        raise
    return report
