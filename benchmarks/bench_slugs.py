"""The slug search (the pattern stage, :mod:`pipeline.patterns.stage`) per shoe and its growth
with the window of earlier days, against the replay of the same day (issue 16: the search
stays far below the replay's own cost; an index of card runs, not pairwise comparison).

    python benchmarks/bench_slugs.py [--tables 6] [--hours 24] [--windows 1 7 30] [--seed 3]
    python benchmarks/bench_slugs.py --smoke        # 1 table, 1 hour, windows 1 and 2

One gaming day is emulated (no faults) and replayed into a fresh ledger (``ingest_files``, as
``baccarat-audit replay``): the replay's wall time is the yardstick. The earlier days of each
window are then emulated for real, each with its own seed (the measured day's plus how many
days back it is) on its own date, as many tables for as many hours as the measured day, and
loaded into the same ledger as the measured day was, so the stage reads and indexes what a
real window holds. The stage then runs for the day with each window once unmeasured, which
carries the earlier days' evidence as their own nightly runs would have, and then as the
nightly audit runs it (reading the ledger, carrying the day itself, searching, writing the
day's pattern exceptions), and reports
its time per shoe searched and as a ratio to the replay; the stage's time includes informed
betting over the day's settlements and dealer-patron pairs over the window's seat-rounds.
Clean days must raise nothing: the false alarms found are printed too. The earlier days cost
their emulation and load before anything is measured (a 30-day window: 30 days emulated
and replayed).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SMOKE_HELP, save, summary, timed

DAY = date(2026, 11, 24)


def load_earlier_days(
    ledger: Any, days: int, tables: int, hours: float, seed: int, work: Path
) -> None:
    """Emulate ``days`` gaming days before the measured one (seeds ``seed + 1``...) and load
    them into the ledger."""
    from pipeline.config.catalog import DEFAULT_CATALOG
    from pipeline.ingest.files import ingest_files
    from pipeline.simulate.sinks import simulate_to_files

    paths: list[Path] = []
    for back in range(1, days + 1):
        day = DAY - timedelta(days=back)
        paths += simulate_to_files(tables, hours, seed + back, {}, day, work / f"{day}").paths
    ingest_files(ledger, paths, DEFAULT_CATALOG)


def measure(
    tables: int, hours: float, seed: int, windows: list[int], repeat: int
) -> dict[str, Any]:
    from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
    from pipeline.config.patterns import PatternSettings
    from pipeline.ingest.files import ingest_files
    from pipeline.ledger.pattern_inputs import forget_carried
    from pipeline.ledger.store import Ledger
    from pipeline.patterns.stage import find_patterns
    from pipeline.simulate.sinks import simulate_to_files

    with tempfile.TemporaryDirectory(prefix="bench-slugs-") as tmp:
        work = Path(tmp)
        simulate_to_files(tables, hours, seed, {}, DAY, work / "events")
        started = time.perf_counter()
        with Ledger(work / "ledger.duckdb") as ledger:
            events = ingest_files(
                ledger, sorted((work / "events").rglob("*.avro")), DEFAULT_CATALOG
            )
            replay_seconds = time.perf_counter() - started
            load_earlier_days(ledger, max(windows), tables, hours, seed, work / "earlier")
            rows = []
            catalog = load_catalog(DEFAULT_CATALOG)
            for window in windows:
                settings = PatternSettings(window_days=window, slug_false_alarm_rate=1e-6)
                # the earlier days' nightly runs carried them; each measured run carries the
                # day itself, as its own nightly run does
                find_patterns(ledger, DAY, settings, catalog)

                def nightly(s: PatternSettings = settings) -> Any:
                    forget_carried(ledger, DAY)
                    return find_patterns(ledger, DAY, s, catalog)

                times, run = timed(nightly, repeat)
                seconds = min(times)
                rows.append(
                    {
                        "window_days": window,
                        "shoes_searched": run.shoes_searched,
                        "shoes_in_window": run.shoes_in_window,
                        "false_alarms": len(run.findings),
                        **summary(times),
                        "ms_per_shoe": 1000 * seconds / max(1, run.shoes_searched),
                        "ratio_to_replay": seconds / replay_seconds,
                    }
                )
    return {
        "tables": tables,
        "hours": hours,
        "events": events.deliveries,
        "replay_seconds": replay_seconds,
        "windows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--hours", type=float, default=24)
    parser.add_argument("--windows", type=int, nargs="+", default=[1, 7, 30])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help=SMOKE_HELP)
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.hours, args.windows, args.repeat = 1, 1.0, [1, 2], 1
    result = measure(args.tables, args.hours, args.seed, sorted(args.windows), args.repeat)
    print(
        f"{result['tables']} tables x {result['hours']:g} h, {result['events']:,} events: "
        f"replay {result['replay_seconds']:.2f} s"
    )
    for row in result["windows"]:
        print(
            f"  window {row['window_days']:>3} days: {row['shoes_searched']} shoes against "
            f"{row['shoes_in_window'] - row['shoes_searched']} earlier, min {row['min_s']:.3f} s, "
            f"{row['ms_per_shoe']:.2f} ms per shoe, ratio to the replay "
            f"{row['ratio_to_replay']:.3f}, {row['false_alarms']} false alarms"
        )
    if args.smoke:
        print("not saved")
        return 0
    print(f"saved {save('slugs', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
