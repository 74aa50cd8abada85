"""File load into a ledger that holds a closed gaming day, against the same load into the same
ledger with no day closed, measured in the same run (issue 13: a closed day made the load
hold every file's rows in memory before writing any).

    python benchmarks/bench_closed_day_load.py [--tables 24] [--hours 24]
    python benchmarks/bench_closed_day_load.py --smoke   # 1 table, 30 minutes, no file

Two days are emulated (no injected faults); the first is loaded into a ledger and closed
there for real (``close_gaming_day``, as ``baccarat-audit close``: quality gate, seal, reports,
in a demo installation unless ``$BACCARAT_INSTALLATION`` names one), and a copy of that ledger
has it reopened (``reopen_gaming_day``, as ``baccarat-audit reopen``). The second day's files
are then loaded twice, each time into one of the two ledgers in its own child process
(``ingest_files``, as ``baccarat-audit replay``): once with the first day closed, once with it
reopened. Each reports its wall time and the peak resident memory of the process holding the
ledger (its workers are reported apart).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SMOKE_HELP, demo_installation, save

DAY = date(2026, 11, 24)


# An emulated day may fail its own BLOCK expectations; what is measured is the load next to
# the close, not the day's quality.
ACCEPTED = "benchmark: an emulated day's own quality failures are not what is measured"
ACTOR = "benchmark"


def prepare(tables: int, hours: float, work: Path) -> int:
    """Emulate both days, load the first into ``work/closed.duckdb`` and close it there, and
    reopen it in a copy, ``work/reopened.duckdb``."""
    from pipeline.config.catalog import DEFAULT_CATALOG
    from pipeline.ingest.files import ingest_files
    from pipeline.ledger.store import Ledger
    from pipeline.reports.close import close_gaming_day, reopen_gaming_day
    from pipeline.simulate.faults import parse_faults
    from pipeline.simulate.sinks import simulate_to_files

    first = simulate_to_files(tables, hours, 3, parse_faults("none"), DAY, work / "first")
    simulate_to_files(tables, hours, 4, parse_faults("none"), DAY + timedelta(1), work / "next")
    with Ledger(work / "closed.duckdb") as ledger:
        ingest_files(ledger, first.paths, DEFAULT_CATALOG)
        close_gaming_day(
            ledger,
            DAY,
            work / "reports",
            accept_quality_failures=ACCEPTED,
            actor=ACTOR,
            actor_source=ACTOR,
        )
    # reopened here, not in the child, so both children do the same work: the load alone
    shutil.copy(work / "closed.duckdb", work / "reopened.duckdb")
    with Ledger(work / "reopened.duckdb") as ledger:
        reopen_gaming_day(
            ledger,
            DAY,
            "benchmark: the same load with no day closed",
            actor=ACTOR,
            actor_source=ACTOR,
        )
    return first.events


def load(work: Path, closed: bool) -> dict[str, Any]:
    """Child process: load the second day into the ledger with the first day closed, or
    into its copy with the first day reopened."""
    from pipeline.config.catalog import DEFAULT_CATALOG
    from pipeline.ingest.files import ingest_files
    from pipeline.ledger.store import Ledger

    with Ledger(work / f"{'closed' if closed else 'reopened'}.duckdb") as ledger:
        assert ledger.closed_days() == ({DAY} if closed else set())
        started = time.perf_counter()
        events = ingest_files(
            ledger, sorted((work / "next").rglob("*.avro")), DEFAULT_CATALOG
        ).deliveries
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "events": events,
        "seconds": time.perf_counter() - started,
        "peak_rss_mb": own / 1024,  # ru_maxrss is in kB on Linux
        "workers_peak_rss_mb": workers / 1024,
    }


def _child(work: Path, closed: bool) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(work), "closed" if closed else "open"],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def main() -> int:
    demo_installation()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--smoke", action="store_true", help=SMOKE_HELP)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(load(Path(args.child[0]), args.child[1] == "closed")))
        return 0
    if args.smoke:
        args.tables, args.hours = 1, 0.5
    work = Path(tempfile.mkdtemp(prefix="bench-closed-day-"))
    try:
        prepare(args.tables, args.hours, work)
        closed, reopened = _child(work, closed=True), _child(work, closed=False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ratio = closed["peak_rss_mb"] / reopened["peak_rss_mb"]
    result = {
        "command": "python " + " ".join(["benchmarks/bench_closed_day_load.py", *sys.argv[1:]]),
        "tables": args.tables,
        "hours": args.hours,
        "with_a_closed_day": closed,
        "without": reopened,
        "peak_rss_ratio": ratio,
    }
    path = "not saved (--smoke)" if args.smoke else save("closed_day_load", result)
    print(
        f"{closed['events']:,} events loaded next to a closed day: {closed['seconds']:.1f} s, "
        f"peak {closed['peak_rss_mb']:.0f} MB; with no day closed {reopened['seconds']:.1f} s, "
        f"peak {reopened['peak_rss_mb']:.0f} MB: ratio {ratio:.2f} -> {path}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
