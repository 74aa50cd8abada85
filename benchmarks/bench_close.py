"""The gaming-day close (quality gate, seals, reports) against the replay of the same day in
the same run (issue 13: the close costs at most half of the replay; its peak memory stays
under 1 GB whatever the number of tables), and how the day's replay+close scales with worker
processes (issue 26: no serial step over 3 minutes projected at 500 tables).

    python benchmarks/bench_close.py [--tables 6 24 96] [--hours 24] [--seed 3] [--faults all]
    python benchmarks/bench_close.py --tables 96 --workers 1 2 --save-as close-workers
    python benchmarks/bench_close.py --smoke        # 1 table, 1 hour: that it still runs

With ``--workers`` the replay runs once per worker count (the counts alternating, the first
count's replay feeding the close), each into its own fresh ledger. Each replay reports its
wall time and where its CPU went: the worker processes (decoding and replaying files: the
part more cores share) and the main process (the ledger's single writer and the pattern
stage). The pattern stage and the close each run in one process, but not on one core:
DuckDB's statements and the archive's compression spread over the machine's. So a copy of
the replayed ledger runs them again pinned to one core (``sched_setaffinity``), and by
Amdahl's law each step's time on one core and on all of them give the share that runs in
parallel. From the run with the most workers the steps are projected linearly to 500
tables: the writer (one DuckDB thread, the same on any machine), and the pattern stage and
the close on 2, 8 and 16 cores (their one-core share, plus the rest shared by the cores).
The day's wall time on those cores adds the workers' CPU shared by the cores, or the
writer where it is longer (the writer overlaps the decoding, so this is an upper bound).

For each size the day is emulated to Avro files once, then two child processes run one
after the other, each measured on its own (wall time, peak RSS): the replay
(``ingest_files`` and the pattern stage, as ``baccarat-audit replay``) into a fresh ledger,
and the close
(``close_gaming_day``, as ``baccarat-audit close``) of that ledger. An emulated day may fail
its own BLOCK expectations (issue 13); the close then goes ahead with an accepted reason, so
the gate is measured all the same.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import demo_installation, save

from pipeline.config.installation import INSTALLATION_ENV

DAY = date(2026, 11, 24)
ACCEPTED = "benchmark: an emulated day's own quality failures are measured, not judged"


def _peak_rss_mb() -> float:
    """Peak resident memory of this process and of the worker processes it waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, workers) / 1024  # ru_maxrss is in kB on Linux


def _cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def _replay(files: Path, db: Path, workers: Path) -> dict[str, Any]:
    """The replay as ``baccarat-audit replay`` runs it: the files, then the pattern stage
    over the days they touched (which the close would otherwise run itself). ``workers`` is
    the worker count (a path only because every child argument is one)."""
    from pipeline.cli import find_patterns_after
    from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
    from pipeline.ingest.files import ingest_files
    from pipeline.ledger.store import Ledger

    paths = sorted(files.rglob("*.avro"))
    started = time.perf_counter()
    main_cpu = _cpu_seconds(resource.RUSAGE_SELF)
    with Ledger(db) as ledger:
        report = ingest_files(ledger, paths, DEFAULT_CATALOG, workers=int(workers.name))
        loaded = time.perf_counter()
        load_main_cpu = _cpu_seconds(resource.RUSAGE_SELF) - main_cpu
        find_patterns_after(ledger, report.table_days, load_catalog())
    return {
        "seconds": time.perf_counter() - started,
        "events": report.deliveries,
        "workers": int(workers.name),
        "load_seconds": loaded - started,
        "patterns_seconds": time.perf_counter() - loaded,
        # the pool's processes have been reaped when ingest_files returns
        "workers_cpu_s": _cpu_seconds(resource.RUSAGE_CHILDREN),
        "load_main_cpu_s": load_main_cpu,
    }


CORES = (2, 8, 16)
"""The machines a 500-table day is projected to."""


def amdahl(one_core_s: float, all_cores_s: float, cores: int) -> dict[str, Any]:
    """A step measured on one core and on ``cores``: the share of it that ran in parallel
    (Amdahl's law, within 0 and 1: a noisy pair can say a little more or less) and the seconds
    that stay on one core whatever the machine."""
    if cores < 2 or one_core_s <= 0:
        parallel = 0.0
    else:
        parallel = min(1.0, max(0.0, (1 - all_cores_s / one_core_s) / (1 - 1 / cores)))
    return {
        "one_core_s": one_core_s,
        "all_cores_s": all_cores_s,
        "cores": cores,
        "parallel_share": parallel,
        "serial_s": one_core_s * (1 - parallel),
    }


def _on_cores(step: dict[str, Any], scale: float) -> dict[str, float]:
    """A step's seconds at ``scale`` times the events on each of :data:`CORES` cores."""
    return {
        str(cores): scale * (step["serial_s"] + step["one_core_s"] * step["parallel_share"] / cores)
        for cores in CORES
    }


def _projection(run: dict[str, Any], tables: int) -> dict[str, Any]:
    """Each step and the day's wall time at 500 tables, linear in the tables from the replay
    with the most workers (its main process did only the writing and the pattern stage) and
    the steps' one-core runs."""
    scale = 500 / tables
    replay = max(run["replays"], key=lambda r: r["workers"])
    writer_s = replay["load_main_cpu_s"] * scale
    steps = {"patterns": run["amdahl"]["patterns"], "close": run["amdahl"]["close"]}
    walls = {name: _on_cores(step, scale) for name, step in steps.items()}
    shared = replay["workers_cpu_s"] * scale
    longest = {str(c): max(writer_s, *(w[str(c)] for w in walls.values())) for c in CORES}
    return {
        "tables": 500,
        "writer_s": writer_s,
        "steps_s": walls,
        "serial_s": {name: step["serial_s"] * scale for name, step in steps.items()},
        "longest_step_s": longest,
        "day_wall_s": {
            str(c): max(writer_s, shared / c) + walls["patterns"][str(c)] + walls["close"][str(c)]
            for c in CORES
        },
    }


def _one_core() -> None:
    """Pin this process (and the threads it starts) to one of the cores it may use."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _patterns(db: Path) -> dict[str, Any]:
    """The pattern stage of the day, again, on a replayed ledger (it replaces the day's
    pattern exceptions with the same ones)."""
    from pipeline.config.catalog import load_catalog
    from pipeline.ledger.store import Ledger
    from pipeline.patterns.stage import find_patterns

    catalog = load_catalog()
    started = time.perf_counter()
    with Ledger(db) as ledger:
        find_patterns(ledger, DAY, catalog.patterns, catalog)
    return {"seconds": time.perf_counter() - started}


def _close(db: Path, out: Path) -> dict[str, Any]:
    """The close as the flows run it: the quality step, then the close relying on it."""
    from pipeline.config.catalog import load_catalog
    from pipeline.ledger.store import Ledger
    from pipeline.quality.run import validate_day, write_results
    from pipeline.reports.close import close_gaming_day

    started = time.perf_counter()
    with Ledger(db) as ledger:
        report = validate_day(ledger, DAY, load_catalog())
        write_results(report, out)
        gate = {"seconds": time.perf_counter() - started, "peak_rss_mb": _peak_rss_mb()}
        result = close_gaming_day(
            ledger,
            DAY,
            out,
            actor="benchmark",
            actor_source="benchmark",
            quality=report,
            accept_quality_failures=ACCEPTED,
        )
    quality = result.report["quality"]
    return {
        "quality_gate": gate,
        "seconds": time.perf_counter() - started,
        "verdict": quality["verdict"],
        "evaluated": quality["evaluated"],
        "failed": quality["failed"],
    }


def _child(step: str, *args: Path, one_core: bool = False) -> dict[str, Any]:
    """Run one step in a fresh interpreter (imports and memory counted from zero), on one
    core if asked. A close runs in an installation of its own: the witness refuses a second
    close of a copy of the same ledger as a fork of its record."""
    environment = dict(os.environ)
    if step == "close":
        environment.pop(INSTALLATION_ENV, None)
    pinned = ["--one-core"] if one_core else []
    done = subprocess.run(
        [sys.executable, __file__, *pinned, "--child", step, *map(str, args)],
        check=True,
        stdout=subprocess.PIPE,  # a failing step's traceback goes to stderr as it is
        text=True,
        env=environment,
    )
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def measure(
    tables: int, hours: float, seed: int, faults: str, workers: list[int], work: Path
) -> dict[str, Any]:
    from pipeline.simulate.faults import parse_faults
    from pipeline.simulate.sinks import simulate_to_files

    files = work / f"day-{tables}"
    simulate_to_files(tables, hours, seed, parse_faults(faults), DAY, files)
    replays = [
        _child("replay", files, work / f"ledger-{tables}-{n}.duckdb", Path(str(n))) for n in workers
    ]
    replay = replays[0]
    close = _child(
        "close", work / f"ledger-{tables}-{workers[0]}.duckdb", work / f"reports-{tables}"
    )
    run = {
        "tables": tables,
        "hours": hours,
        "events": replay["events"],
        "replay": replay,
        "replays": replays,
        "close": close,
        "close_to_replay": close["seconds"] / replay["seconds"],
        "close_peak_rss_mb": close["peak_rss_mb"],
        "close_peak_rss_bytes_per_event": close["peak_rss_mb"] * 2**20 / replay["events"],
    }
    if len(workers) > 1:
        one = next(r for r in replays if r["workers"] == min(workers))
        most = next(r for r in replays if r["workers"] == max(workers))
        run["replay_close_wall_ratio"] = (most["seconds"] + close["seconds"]) / (
            one["seconds"] + close["seconds"]
        )
        pinned = work / f"pinned-{tables}.duckdb"
        shutil.copyfile(work / f"ledger-{tables}-{max(workers)}.duckdb", pinned)
        # both runs of the stage in a fresh process of their own (the replay's includes its
        # first imports)
        patterns_all = _child("patterns", pinned)
        patterns_one = _child("patterns", pinned, one_core=True)
        close_one = _child("close", pinned, work / f"reports-pinned-{tables}", one_core=True)
        cores = len(os.sched_getaffinity(0))
        run["amdahl"] = {
            "patterns": amdahl(patterns_one["seconds"], patterns_all["seconds"], cores),
            "close": amdahl(close_one["seconds"], close["seconds"], cores),
        }
        run["at_500_tables"] = _projection(run, tables)
    return run


def _workers_summary(run: dict[str, Any]) -> str:
    replays = "; ".join(
        f"{r['workers']} workers {r['seconds']:.2f} s (workers' CPU {r['workers_cpu_s']:.2f} s, "
        f"writer {r['load_main_cpu_s']:.2f} s, patterns {r['patterns_seconds']:.2f} s)"
        for r in run["replays"]
    )
    shares = ", ".join(
        f"{name} {step['one_core_s']:.2f} s on one core, {step['all_cores_s']:.2f} s on "
        f"{step['cores']} ({step['parallel_share']:.0%} in parallel)"
        for name, step in run["amdahl"].items()
    )
    at_500 = run["at_500_tables"]
    steps = "; ".join(
        f"{cores} cores: patterns {at_500['steps_s']['patterns'][str(cores)]:.0f} s, close "
        f"{at_500['steps_s']['close'][str(cores)]:.0f} s, the day "
        f"{at_500['day_wall_s'][str(cores)]:.0f} s"
        for cores in CORES
    )
    return (
        f"  replay: {replays}\n"
        f"  replay+close wall, most workers against fewest: {run['replay_close_wall_ratio']:.2f}\n"
        f"  steps: {shares}\n"
        f"  at 500 tables: writer {at_500['writer_s']:.0f} s on any machine; {steps}; longest "
        f"step {at_500['longest_step_s']['16']:.0f} s on 16 cores, target <= 180"
    )


def main() -> int:
    demo_installation()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, nargs="+", default=[6, 24])
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--faults", default="all")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[os.cpu_count() or 1],
        help="worker counts to replay with, each into its own ledger (default: one per core)",
    )
    parser.add_argument(
        "--smoke", action="store_true", help="1 table, 1 hour, workers 1 and 2; saves nothing"
    )
    parser.add_argument(
        "--save-as", default="close", help="results file name (e.g. close-main for a baseline)"
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--one-core", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        step, *paths = args.child
        if args.one_core:
            _one_core()
        steps: dict[str, Callable[..., dict[str, Any]]] = {
            "replay": _replay,
            "patterns": _patterns,
            "close": _close,
        }
        run = steps[step]
        measured = run(*map(Path, paths))
        print(json.dumps({**measured, "peak_rss_mb": _peak_rss_mb()}))
        return 0
    sizes, hours = ([1], 1.0) if args.smoke else (args.tables, args.hours)
    workers = [1, 2] if args.smoke else args.workers
    work = Path(tempfile.mkdtemp(prefix="bench-close-"))
    try:
        runs = [measure(t, hours, args.seed, args.faults, workers, work) for t in sizes]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for r in runs:
        print(
            f"{r['tables']} tables, {r['events']:,} events: replay {r['replay']['seconds']:.2f} s "
            f"({r['replay']['peak_rss_mb']:.0f} MB), close {r['close']['seconds']:.2f} s "
            f"({r['close_peak_rss_mb']:.0f} MB, quality {r['close']['verdict']}; the gate "
            f"{r['close']['quality_gate']['seconds']:.2f} s, "
            f"{r['close']['quality_gate']['peak_rss_mb']:.0f} MB): "
            f"close/replay {r['close_to_replay']:.2f} (target <= 0.5)"
        )
        if "at_500_tables" in r:
            print(_workers_summary(r))
    if not args.smoke:
        path = save(
            args.save_as,
            {
                "command": "python " + " ".join(["benchmarks/bench_close.py", *sys.argv[1:]]),
                "seed": args.seed,
                "faults": args.faults,
                "runs": runs,
                "workers": workers,
                "note": "replay = ingest_files of the emulated day and the pattern stage over it "
                "(as baccarat-audit replay) into a fresh ledger (worker "
                "processes included in its peak RSS); close = the quality gate (validate_day "
                "and its files, measured on its own as quality_gate: time and peak RSS so far) "
                "then close_gaming_day relying on it (seals, reports), as the flows run it; "
                "replay and close each in its own child process, one after the other",
            },
        )
        print(f"-> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
