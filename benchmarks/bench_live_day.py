"""A live gaming day: the cost of each consumer batch as the day grows, with the table-days
kept replaying in memory (:mod:`pipeline.ingest.live`, what ``run_consumer`` does) against
reading each touched table-day back from the ledger and replaying it whole (the behaviour
without it), in the same run on the same batches.

    python benchmarks/bench_live_day.py [--tables 4] [--hours 24] [--batch 2000]
    python benchmarks/bench_live_day.py --smoke     # 1 table, 1 hour, batches of 200

No broker: the day's events, in time order as one partition delivers them, go through
:func:`pipeline.ingest.stage.load_batch` batch by batch into a fresh DuckDB ledger, each
batch one transaction. Both runs must end with identical ledgers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SMOKE_HELP, save, scratch_folder

from pipeline.config.catalog import load_catalog
from pipeline.ingest.live import LiveTableDays
from pipeline.ingest.stage import load_batch
from pipeline.ledger.store import Delivery, Ledger
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from pipeline.stream.verify import diff_ledgers, ledger_snapshot

DAY = date(2026, 11, 24)


def run(batches: list[list[Delivery]], db: Path, live: LiveTableDays | None) -> list[float]:
    """Seconds per batch."""
    catalog = load_catalog()
    seconds = []
    with Ledger(db) as ledger:
        for batch in batches:
            started = time.perf_counter()
            load_batch(ledger, batch, [], catalog, live=live)
            seconds.append(time.perf_counter() - started)
    return seconds


def by_quarter(seconds: list[float]) -> list[float]:
    """Median batch seconds in each quarter of the day."""
    size = max(1, len(seconds) // 4)
    return [statistics.median(seconds[i : i + size]) for i in range(0, size * 4, size)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--smoke", action="store_true", help=SMOKE_HELP)
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.hours, args.batch = 1, 1.0, 200
    catalog = load_catalog()
    day = simulate(args.tables, args.hours, 3, parse_faults("all"), DAY, catalog)
    stream = sorted(
        (e for events in day.events_by_table.values() for e in events), key=lambda e: e.occurred_at
    )
    deliveries = [Delivery("kafka:table-events:0", i, e, i) for i, e in enumerate(stream)]
    batches = [deliveries[i : i + args.batch] for i in range(0, len(deliveries), args.batch)]
    work = scratch_folder("bench-live-day-")
    live = LiveTableDays(catalog)
    kept = run(batches, work / "live.duckdb", live)
    reread = run(batches, work / "reread.duckdb", None)
    problems = diff_ledgers(
        ledger_snapshot(work / "reread.duckdb"), ledger_snapshot(work / "live.duckdb")
    )
    if problems:
        raise RuntimeError(f"the two ledgers differ: {problems}")
    result: dict[str, Any] = {
        "tables": args.tables,
        "hours": args.hours,
        "events": len(deliveries),
        "batch_events": args.batch,
        "batches": len(batches),
        "kept_live": {
            "total_s": sum(kept),
            "median_batch_s_by_quarter": by_quarter(kept),
            "table_days_read_back": live.reads,
            "table_day_writes_of_changes": live.updates,
            "table_day_writes_whole": live.rewrites,
        },
        "read_back_and_replayed_whole": {
            "total_s": sum(reread),
            "median_batch_s_by_quarter": by_quarter(reread),
        },
        "speedup_total": sum(reread) / sum(kept),
        "speedup_last_quarter": by_quarter(reread)[-1] / by_quarter(kept)[-1],
        "ledgers_identical": True,
    }
    path = "not saved (--smoke)" if args.smoke else save("live_day", result)
    quarters = " / ".join(
        f"{a * 1000:.0f} vs {b * 1000:.0f} ms"
        for a, b in zip(by_quarter(kept), by_quarter(reread), strict=True)
    )
    print(
        f"{len(deliveries):,} events in {len(batches)} batches of {args.batch}: kept live "
        f"{sum(kept):.1f} s, read back {sum(reread):.1f} s ({result['speedup_total']:.1f}x); "
        f"median batch by quarter of the day, live vs read back: {quarters} -> {path}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
