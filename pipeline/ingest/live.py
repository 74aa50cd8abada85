"""The live consumer's table-days, kept replaying in memory between batches.

Without this, every batch re-read each table-day it touched from the ledger and replayed it
from the first event: a day's cost grew with the square of its batches. A
:class:`LiveTableDays` keeps each table-day's deliveries and its
:class:`~pipeline.replay.live.LiveReplay`, so a batch reads nothing back and replays about
its own size.

Its rows are written the same way: a batch inserts the rows of the rounds it ended and
replaces those of the round in play
(:meth:`~pipeline.ledger.store.Ledger.update_table_days`); of the tables a replay rebuilds
whole (Forms, practices, exceptions) only the rows that differ from the last result written
are, and the summary is replaced. A machine that started over (a late event, a new
gap) still rewrites only the rows from the first one that differs from those written: the
rows before the late event come out the same, and rewriting the whole table-day made each
restart cost the day so far (CPU per event grew with the day's length).

The ledger stays the truth. Before a batch, each cached table-day's fingerprint (count and
hash of its delivery keys) is compared with the ledger's; once the batch's deliveries are
in, the cache must hold as many as the ledger, and takes the new fingerprint. A table-day
another writer changed, whose events the gaming-day boundary moved, whose batch failed, or
whose new deliveries sort before ones already held is read again from the ledger. Only the
newest gaming day is kept (about 1.2 kB per event held): a late event for an earlier day has
that day read back from the ledger, as do the events a table still open at the boundary
records after it (:meth:`~pipeline.ledger.store.Ledger.realign_boundary_sessions`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.ingest.conflicts import ConflictWatch
from pipeline.ledger.columns import DeliveryKey, TableDay
from pipeline.ledger.store import Delivery, Ledger, TableDayUpdate
from pipeline.replay.findings import Finding
from pipeline.replay.live import LiveReplay
from pipeline.replay.rows import APPENDED_ROWS, ReplayResult
from pipeline.rules.config import TableRules

Arrival = tuple[str, int, str, int, int]
"""Where a delivery sorts in the ledger's order (:attr:`Delivery.arrival`)."""


def _arrival(delivery: Delivery) -> Arrival:
    return delivery.arrival


@dataclass
class _Written:
    """What the ledger holds of a live replay's rows: the result written, the rows of each
    of its :data:`~pipeline.replay.rows.APPENDED_ROWS` lists, and how many at the start of
    each were the machine's (final until it starts over; the rest are the round then in
    play, to withdraw next time)."""

    restarts: int
    settled: dict[str, int]
    rows: dict[str, list[Any]]
    result: ReplayResult


def _same_start(written: Sequence[Any], now: Sequence[Any]) -> int:
    """How many rows at the start of ``written`` and ``now`` are equal."""
    for index, (before, after) in enumerate(zip(written, now, strict=False)):
        if before is not after and before != after:
            return index
    return min(len(written), len(now))


@dataclass
class _Cached:
    live: LiveReplay
    keys: set[DeliveryKey] = field(default_factory=set)
    last: Arrival = ("", -1, "", -1, -1)
    fingerprint: tuple[int, int] | None = None
    written: _Written | None = None
    watch: ConflictWatch = field(default_factory=ConflictWatch)
    """The event ids held, for copies that disagree: those are withheld from the replay
    (:mod:`pipeline.ingest.conflicts`)."""

    def add(self, deliveries: Sequence[Delivery]) -> None:
        self.watch.add(deliveries)
        self.live.add(d.event for d in self.watch.admitted(deliveries))
        self.keys.update(d.key for d in deliveries)
        if deliveries:
            self.last = deliveries[-1].arrival


class LiveTableDays:
    """Each table-day's :class:`LiveReplay`, in step with the ledger (see the module doc)."""

    def __init__(self, catalog: Mapping[str, TableRules]) -> None:
        self.catalog = catalog
        self._days: dict[TableDay, _Cached] = {}
        self.reads = 0
        """Table-days read (again) from the ledger."""
        self.updates = 0
        """Table-day writes of only the rows that changed."""
        self.rewrites = 0
        """Table-day writes of every row."""
        self.restarted = 0
        """Of the writes of changes, those of a table-day whose machine had started over
        since its last write (a late event or a new gap reordered what it had applied)."""

    def __contains__(self, key: TableDay) -> bool:
        return key in self._days

    def check(self, stored: Mapping[TableDay, tuple[int, int]]) -> None:
        """Forget the table-days whose deliveries in the ledger, by their ``stored``
        fingerprints, are not the ones held. Take them at the start of the batch's
        transaction."""
        for key, fingerprint in stored.items():
            if key in self._days and self._days[key].fingerprint != fingerprint:
                del self._days[key]

    def provisional(self, keys: Iterable[TableDay]) -> set[str]:
        """The ids of the findings of these table-days' last results that only ending the
        day now produced (:attr:`~pipeline.replay.live.LiveReplay.provisional`)."""
        return {
            finding.finding_id
            for key in keys
            if key in self._days
            for finding in self._days[key].live.provisional
        }

    def forget(self, keys: Iterable[TableDay] | None = None) -> None:
        """Forget these table-days (all when ``None``)."""
        if keys is None:
            self._days.clear()
        for key in keys or ():
            self._days.pop(key, None)

    def replay_for(
        self,
        ledger: Ledger,
        key: TableDay,
        batch: Sequence[Delivery],
        *,
        stored: tuple[int, int],
        new_day: bool,
    ) -> LiveReplay:
        """The table-day's replay with this batch's deliveries added. The batch is already in
        the ledger's transaction: ``stored`` is the table-day's fingerprint now, and
        ``new_day`` says the ledger held none of its deliveries before the batch.

        The cache takes the batch's deliveries only when that leaves it holding as many as
        the ledger (a delivery the ledger already held under another gaming day is not
        added there again), in the ledger's order; otherwise the table-day is read back."""
        cached = self._days.get(key)
        if cached is not None:
            new = sorted((d for d in batch if d.key not in cached.keys), key=_arrival)
            in_order = not new or new[0].arrival > cached.last
            # A copy disagreeing with an event the replay applied: start over without it.
            disputed = cached.watch.disputes_applied(new)
            if in_order and not disputed and len(cached.keys) + len(new) == stored[0]:
                cached.add(new)
                cached.fingerprint = stored
                return cached.live
        cached = _Cached(LiveReplay(key[0], self.catalog))
        whole = sorted({d.key: d for d in batch}.values(), key=_arrival)
        if new_day and len(whole) == stored[0]:
            cached.add(whole)
        else:
            cached.add(ledger.deliveries_for(*key))
            self.reads += 1
        cached.fingerprint = stored
        self._days[key] = cached
        self._keep_newest_day(but=key)
        return cached.live

    def conflict_findings(self, key: TableDay) -> list[Finding]:
        """The CRITICAL findings of the table-day's events whose copies disagree."""
        cached = self._days.get(key)
        return cached.watch.findings() if cached is not None else []

    def write(self, ledger: Ledger, results: Mapping[TableDay, ReplayResult]) -> None:
        """Store the table-days' latest results: only the rows that changed since the ledger
        last took one from the same machine (one :meth:`Ledger.update_table_days` for all of
        them), else all of them."""
        updates: list[TableDayUpdate] = []
        for key, result in results.items():
            cached = self._days.get(key)
            settled = cached.live.settled if cached is not None else None
            if cached is None or settled is None:
                # forgotten for a newer gaming day since its replay, or the result did not
                # come from the machine
                if cached is not None:
                    cached.written = None
                ledger.replace_table_day(*key, result)
                self.rewrites += 1
                continue
            restarts, before = cached.live.restarts, cached.written
            rows = {n: getattr(result, n) for n in APPENDED_ROWS}
            if before is None:
                ledger.replace_table_day(*key, result)
                self.rewrites += 1
            else:
                # the same machine only appended to its rows; one that started over gave
                # the same rows up to the first event it applied differently
                kept = (
                    before.settled
                    if before.restarts == restarts
                    else {n: _same_start(before.rows[n], rows[n]) for n in APPENDED_ROWS}
                )
                self.restarted += before.restarts != restarts
                updates.append(
                    TableDayUpdate(
                        key,
                        result,
                        {n: rows[n][kept[n] :] for n in APPENDED_ROWS},
                        {n: before.rows[n][kept[n] :] for n in APPENDED_ROWS},
                        before.result,
                    )
                )
            cached.written = _Written(restarts, dict(settled), rows, result)
        refused = ledger.update_table_days(updates)
        for update in updates:
            if update.key in refused:
                ledger.replace_table_day(*update.key, update.result)
        self.updates += len(updates) - len(refused)
        self.rewrites += len(refused)

    def _keep_newest_day(self, but: TableDay) -> None:
        """Forget the table-days of earlier gaming days than the newest held, except ``but``
        (being replayed now)."""
        newest = max(d for _, d in self._days)
        for key in [k for k in self._days if k[1] < newest and k != but]:
            del self._days[key]


__all__ = ["LiveTableDays"]
