"""Merge partition shards (:mod:`pipeline.stream.ledgers`) into the accounting ledger.

Each shard is merged in its own transaction with :meth:`Ledger.merge_shard`: deliveries the
ledger lacks are copied (keyed by source and offset, so a delivery is never added twice),
with the shard's derived rows for table-days the ledger had no deliveries for. A table-day
the ledger already held (merged before, and grown in the shard since) is re-derived from
every delivery the ledger now holds. The shard's stored offsets are copied too, moving only
forward. So merging is idempotent: merging the same shards again changes nothing, and
merging them again after they grew gives the ledger a single merge at the end would.

A worker may hold a shard open while it owns the partition. The merge first writes a merge
request next to every shard, so the workers let go of them all at once between batches
(setting the partitions aside); it then waits for each lock with backoff, merges, and withdraws
that shard's request, and its worker resumes.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from pipeline.ingest.pits import judge_pits
from pipeline.ingest.stage import replay_deliveries
from pipeline.ledger import stream_state
from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.stream.ledgers import request_merge, shard_files, withdraw_merge_request
from pipeline.stream.retry import Backoff, retry_transient

log = logging.getLogger(__name__)

MERGE_BACKOFF = Backoff(initial=0.1, factor=1.5, maximum=1.0, attempts=90, deadline=60.0)
"""A worker lets go of a shard within a batch, so the merge looks again often; a shard
still locked after a minute has an owner that is stuck, or is not a worker of ours."""


class NoShardsError(ValueError):
    """The shard directory holds no partition shards."""


@dataclass
class MergeReport:
    """What :func:`merge_partition_shards` did."""

    shards: int = 0
    deliveries: int = 0
    """Deliveries new to the ledger."""
    copied: set[tuple[str, date]] = field(default_factory=set)
    """Table-days whose derived rows came from a shard as they were."""
    rederived: set[tuple[str, date]] = field(default_factory=set)
    """Table-days the ledger held before and replayed again from all their deliveries."""
    retries: int = 0

    def summary(self) -> str:
        return (
            f"merged {self.shards} partition shards: {self.deliveries:,} new deliveries, "
            f"{len(self.copied):,} table-days copied, {len(self.rederived):,} re-derived, "
            f"{self.retries} retries while shards were busy"
        )


def merge_partition_shards(
    ledger: Ledger,
    directory: Path,
    catalog: Mapping[str, TableRules],
    *,
    backoff: Backoff | None = None,
) -> MergeReport:
    """Merge every partition shard in ``directory`` into ``ledger``, one transaction each.

    Raises :class:`NoShardsError` when there are none, and
    :class:`~pipeline.ingest.errors.TransientError` when a shard stays locked past
    ``backoff`` (default :data:`MERGE_BACKOFF`).
    """
    shards = shard_files(directory)
    if not shards:
        raise NoShardsError(
            f"{directory}: no partition shards (<topic>-p<NNN>.duckdb) here; run "
            f"`baccarat-audit stream --shard-dir {directory}` first"
        )
    report = MergeReport()

    def note_retry(_exc: BaseException, _delay: float) -> None:
        report.retries += 1

    for shard in shards:
        request_merge(shard)
    try:
        for shard in shards:
            retry_transient(
                functools.partial(_merge_one, ledger, shard, catalog, report),
                what=f"merging {shard}",
                backoff=backoff or MERGE_BACKOFF,
                on_retry=note_retry,
            )
            withdraw_merge_request(shard)
            report.shards += 1
    finally:
        for shard in shards:
            withdraw_merge_request(shard)
    return report


def _merge_one(
    ledger: Ledger, shard: Path, catalog: Mapping[str, TableRules], report: MergeReport
) -> None:
    with ledger.transaction():
        merged = ledger.merge_shard(shard)
        for table_id, day in sorted(merged.stale):
            result = replay_deliveries(table_id, ledger.deliveries_for(table_id, day), catalog)
            ledger.replace_table_day(table_id, day, result)
        judge_pits(ledger)
        # the ledger now holds every delivery before the shard's offsets: a consumer
        # reading into it in the same group resumes there
        stream_state.copy_shard_offsets(ledger, shard)
    report.deliveries += merged.new_deliveries
    report.copied |= merged.touched - merged.stale
    report.rederived |= merged.stale
    log.info(
        "merged %s: %d table-days, %d re-derived", shard, len(merged.touched), len(merged.stale)
    )
