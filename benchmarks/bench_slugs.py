"""The slug search (the pattern stage, :mod:`pipeline.patterns.stage`) per shoe and its growth
with the window of earlier days, against the replay of the same day (issue 16: the search
stays far below the replay's own cost; an index of card runs, not pairwise comparison).

    python benchmarks/bench_slugs.py [--tables 6] [--hours 24] [--windows 1 7 30] [--seed 3]
    python benchmarks/bench_slugs.py --smoke        # 1 table, 1 hour, windows 1 and 2
    python benchmarks/bench_slugs.py --ledger DIR   # build the ledger in DIR, or reuse it

One gaming day is emulated (no faults) and replayed into a fresh ledger (``ingest_files``, as
``baccarat-audit replay``). The earlier days of each window are then emulated for real, each
with its own seed (the measured day's plus how many days back it is) on its own date, as many
tables for as many hours as the measured day, and loaded into the same ledger as the measured
day was, so the stage reads and indexes what a real window holds. The yardstick is the wall
time of a replay of the same day into a scratch ledger, just before the stage is measured
(under the same load). The stage then runs for the day with each window once unmeasured, which
carries the earlier days' evidence as their own nightly runs would have, and then as the
nightly audit runs it (reading the ledger, carrying the day itself, searching, writing the
day's pattern exceptions), and reports
its time per shoe searched and as a ratio to the replay; the stage's time includes informed
betting over the day's settlements and dealer-patron pairs over the window's seat-rounds.
Clean days must raise nothing: the false alarms found are printed too. The earlier days cost
their emulation and load before anything is measured (a 30-day window: 30 days emulated
and replayed). ``--ledger DIR`` keeps the ledger built in ``DIR`` and measures on the one
``DIR`` holds when it holds one, so that two versions of the code can be measured on copies
of one ledger, one after the other.
"""

from __future__ import annotations

import argparse
import json
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


BUILT = "built.json"
"""In a kept ledger's folder: the tables, hours and seed it was built with."""


def replay_day(ledger_path: Path, tables: int, hours: float, seed: int) -> tuple[int, float]:
    """Emulate the measured day (the same seed gives the same events) and replay it into the
    ledger at ``ledger_path``: its events and the replay's wall time."""
    from pipeline.config.catalog import DEFAULT_CATALOG
    from pipeline.ingest.files import ingest_files
    from pipeline.ledger.store import Ledger
    from pipeline.simulate.sinks import simulate_to_files

    with tempfile.TemporaryDirectory(prefix="bench-slugs-") as tmp:
        files = simulate_to_files(tables, hours, seed, {}, DAY, Path(tmp)).paths
        started = time.perf_counter()
        with Ledger(ledger_path) as ledger:
            events = ingest_files(ledger, sorted(files), DEFAULT_CATALOG)
        return events.deliveries, time.perf_counter() - started


def build_ledger(
    folder: Path, tables: int, hours: float, seed: int, earlier_days: int
) -> dict[str, Any]:
    """Replay the measured day into ``folder/ledger.duckdb`` and load ``earlier_days`` days
    before it; what it was built with is kept in ``folder`` too."""
    from pipeline.ledger.store import Ledger

    replay_day(folder / "ledger.duckdb", tables, hours, seed)
    with (
        tempfile.TemporaryDirectory(prefix="bench-slugs-") as tmp,
        Ledger(folder / "ledger.duckdb") as ledger,
    ):
        load_earlier_days(ledger, earlier_days, tables, hours, seed, Path(tmp))
    built = {"tables": tables, "hours": hours, "seed": seed, "earlier_days": earlier_days}
    (folder / BUILT).write_text(json.dumps(built, indent=2) + "\n")
    return built


def measure_windows(ledger_path: Path, windows: list[int], repeat: int) -> list[dict[str, Any]]:
    """The stage's times for the measured day of the ledger at ``ledger_path`` with each
    window."""
    from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
    from pipeline.config.patterns import PatternSettings
    from pipeline.ledger.pattern_inputs import forget_carried
    from pipeline.ledger.store import Ledger
    from pipeline.patterns.stage import find_patterns

    rows = []
    catalog = load_catalog(DEFAULT_CATALOG)
    with Ledger(ledger_path) as ledger:
        for window in windows:
            settings = PatternSettings(window_days=window, slug_false_alarm_rate=1e-6)
            # the earlier days' nightly runs carried them; each measured run carries the
            # day itself, as its own nightly run does
            find_patterns(ledger, DAY, settings, catalog)

            cpu: list[float] = []

            def nightly(s: PatternSettings = settings, cpu: list[float] = cpu) -> Any:
                forget_carried(ledger, DAY)
                started = time.process_time()
                run = find_patterns(ledger, DAY, s, catalog)
                cpu.append(time.process_time() - started)
                return run

            times, run = timed(nightly, repeat)
            rows.append(
                {
                    "window_days": window,
                    "shoes_searched": run.shoes_searched,
                    "shoes_in_window": run.shoes_in_window,
                    "false_alarms": len(run.findings),
                    **summary(times),
                    "ms_per_shoe": 1000 * min(times) / max(1, run.shoes_searched),
                    # the CPU of this process (its ledger's threads too): what a machine
                    # shared with other work inflates far less than the wall time
                    "cpu_min_s": min(cpu),
                }
            )
    return rows


def measure(
    tables: int, hours: float, seed: int, windows: list[int], repeat: int, kept: Path | None
) -> dict[str, Any]:
    """Build the ledger (in ``kept``, or a temporary folder) unless ``kept`` holds one, and
    measure the stage on it."""
    with tempfile.TemporaryDirectory(prefix="bench-slugs-ledger-") as tmp:
        folder = kept or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if (folder / BUILT).exists():
            built = json.loads((folder / BUILT).read_text())
            if built["earlier_days"] < max(windows):
                raise SystemExit(
                    f"{folder} holds {built['earlier_days']} earlier days, fewer than the "
                    f"window of {max(windows)}: use another folder, or a smaller window"
                )
        else:
            built = build_ledger(folder, tables, hours, seed, max(windows))
        events, replay_seconds = replay_day(
            Path(tmp) / "replayed.duckdb", built["tables"], built["hours"], built["seed"]
        )
        rows = measure_windows(folder / "ledger.duckdb", windows, repeat)
    for row in rows:
        row["ratio_to_replay"] = row["min_s"] / replay_seconds
    return {
        "tables": built["tables"],
        "hours": built["hours"],
        "events": events,
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
    parser.add_argument(
        "--ledger",
        type=Path,
        help="a folder to keep the ledger built in, or that holds one built before: measured "
        "there without building it again (its tables, hours and seed are the ones it was "
        "built with)",
    )
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.hours, args.windows, args.repeat = 1, 1.0, [1, 2], 1
    result = measure(
        args.tables, args.hours, args.seed, sorted(args.windows), args.repeat, args.ledger
    )
    print(
        f"{result['tables']} tables x {result['hours']:g} h, {result['events']:,} events: "
        f"replay {result['replay_seconds']:.2f} s"
    )
    for row in result["windows"]:
        print(
            f"  window {row['window_days']:>3} days: {row['shoes_searched']} shoes against "
            f"{row['shoes_in_window'] - row['shoes_searched']} earlier, min {row['min_s']:.3f} s "
            f"(CPU {row['cpu_min_s']:.3f} s), "
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
