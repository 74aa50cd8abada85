"""The live consumer's table-days, kept replaying in memory between batches.

Without this, every batch re-read each table-day it touched from the ledger and replayed it
from the first event: a day's cost grew with the square of its batches. A
:class:`LiveTableDays` keeps each table-day's deliveries and its
:class:`~pipeline.replay.live.LiveReplay`, so a batch reads nothing back and replays about
its own size.

Its rows are written the same way: a batch inserts the rows of the rounds it ended and
replaces those of the round in play (:meth:`~pipeline.ledger.store.Ledger.update_table_day`);
the small tables (Forms, exceptions, the summary) are rebuilt whole.

The ledger stays the truth. Before a batch, each cached table-day's fingerprint (count and
hash of its delivery keys) is compared with the ledger's; after a batch commits, it is taken
again. A table-day another writer changed, whose events the gaming-day boundary moved, whose
batch failed, or whose new deliveries sort before ones already held is read again from the
ledger. Only the newest gaming day is kept (about 1.2 kB per event held): a late event for
an earlier day has that day read back from the ledger, as do the events a table still open
at the boundary records after it (:meth:`~pipeline.ledger.store.Ledger.realign_boundary_sessions`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pipeline.ledger.columns import TableDay
from pipeline.ledger.store import Delivery, Ledger
from pipeline.replay.live import LiveReplay
from pipeline.replay.rows import APPENDED_ROWS, ReplayResult
from pipeline.rules.config import TableRules

DeliveryKey = tuple[str, int]


@dataclass
class _Written:
    """What the ledger holds of a live replay's rows: the machine's rows it has (a count per
    list) and the rows it has of the round then in play (to withdraw next time)."""

    restarts: int
    settled: dict[str, int]
    in_play: dict[str, list[Any]]


@dataclass
class _Cached:
    live: LiveReplay
    keys: set[DeliveryKey] = field(default_factory=set)
    last: DeliveryKey = ("", -1)
    fingerprint: tuple[int, int] | None = None
    written: _Written | None = None

    def add(self, deliveries: Sequence[Delivery]) -> None:
        self.live.add(d.event for d in deliveries)
        self.keys.update((d.source, d.position) for d in deliveries)
        if deliveries:
            self.last = (deliveries[-1].source, deliveries[-1].position)


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

    def __contains__(self, key: TableDay) -> bool:
        return key in self._days

    def check(self, ledger: Ledger, keys: Iterable[TableDay]) -> None:
        """Forget the table-days among ``keys`` whose deliveries in the ledger are not the
        ones held. Call at the start of the batch's transaction."""
        held = [key for key in set(keys) if key in self._days]
        for key, stored in ledger.delivery_fingerprints(held).items():
            if self._days[key].fingerprint != stored:
                del self._days[key]

    def forget(self, keys: Iterable[TableDay] | None = None) -> None:
        """Forget these table-days (all when ``None``)."""
        if keys is None:
            self._days.clear()
        for key in keys or ():
            self._days.pop(key, None)

    def replay_for(
        self, ledger: Ledger, key: TableDay, batch: Sequence[Delivery], *, new_day: bool
    ) -> LiveReplay:
        """The table-day's replay with this batch's deliveries added (the batch is already
        in the ledger's transaction). ``new_day``: the ledger held none of the table-day's
        deliveries before this batch, so the batch is all of them."""
        cached = self._days.get(key)
        new = sorted(
            (d for d in batch if cached is None or (d.source, d.position) not in cached.keys),
            key=lambda d: (d.source, d.position),
        )
        if cached is None or (new and (new[0].source, new[0].position) < cached.last):
            cached = _Cached(LiveReplay(key[0], self.catalog))
            if new_day:
                cached.add(new)
            else:
                cached.add(ledger.deliveries_for(*key))
                self.reads += 1
            self._days[key] = cached
            self._keep_newest_day(but=key)
        else:
            cached.add(new)
        return cached.live

    def write(self, ledger: Ledger, key: TableDay, result: ReplayResult) -> None:
        """Store the table-day's latest result: only the rows that changed since the ledger
        last took one from the same machine (:meth:`Ledger.update_table_day`), else all of
        them."""
        cached = self._days[key]
        live, before = cached.live, cached.written
        cached.written = None
        if live.settled is None:  # the result did not come from the machine
            ledger.replace_table_day(*key, result)
            self.rewrites += 1
            return
        if (
            before is not None
            and before.restarts == live.restarts
            and ledger.update_table_day(
                *key,
                result,
                added={n: getattr(result, n)[before.settled[n] :] for n in APPENDED_ROWS},
                withdrawn=before.in_play,
            )
        ):
            self.updates += 1
        else:
            ledger.replace_table_day(*key, result)
            self.rewrites += 1
        cached.written = _Written(
            live.restarts,
            dict(live.settled),
            {n: getattr(result, n)[live.settled[n] :] for n in APPENDED_ROWS},
        )

    def committed(self, ledger: Ledger, keys: Iterable[TableDay]) -> None:
        """Take the fingerprints of ``keys`` as stored by the batch (inside its transaction,
        just before the commit)."""
        held = [key for key in set(keys) if key in self._days]
        for key, stored in ledger.delivery_fingerprints(held).items():
            self._days[key].fingerprint = stored

    def _keep_newest_day(self, but: TableDay) -> None:
        """Forget the table-days of earlier gaming days than the newest held, except ``but``
        (being replayed now)."""
        newest = max(d for _, d in self._days)
        for key in [k for k in self._days if k[1] < newest and k != but]:
            del self._days[key]


__all__ = ["LiveTableDays"]
