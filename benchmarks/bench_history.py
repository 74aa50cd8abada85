"""A property's record over many gaming days (issue 26): does the cost of a day grow with
the days stored before it?

    python benchmarks/bench_history.py [--tables 24] [--days 30] [--hours 24] [--faults all]
    python benchmarks/bench_history.py --smoke      # 1 table, 2 short days: that it runs

Day after day, one installation and one ledger: each day is emulated to Avro files (not
measured, seed = the day's number), then replayed (``baccarat-audit replay``: the files and
the pattern stage, whose window is the 7 gaming days before) and closed (``baccarat-audit
close``: the quality gate, the seals, the Iceberg archive, the reports), each in its own
process; the CPU time (user + system) of each is read from the kernel's accounting of the
child. After every day: the ledger file's size, the archive's size on disk, and how long the
dashboard's first page and a refresh take and how many bytes that refresh copies. At the end,
a patron's and a dealer's history across every day.

Every figure is reported as a ratio to day 1 of the same run. On a shared machine the load
drifts over a run of hours, so each checkpoint day (10, 30 and the last) is also replayed and
closed into a fresh installation's empty ledger right after the accumulated one: the ratio of
the two, measured minutes apart, is what the days stored before cost, and the checkpoints'
ratios to each other (day 30's against day 10's) are its growth once the pattern window is
full.
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
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import demo_installation, save, timed

FIRST_DAY = date(2026, 9, 1)
ACCEPTED = "benchmark: an emulated day's own quality failures are measured, not judged"
ACTOR = "demo-controller"
"""The demo installation's accountant, whom its maker's account may act as."""
CHECKPOINTS = (1, 10, 30)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cli(*args: str) -> tuple[float, float, dict[str, Any]]:
    """``baccarat-audit ARGS --json`` in its own process: CPU seconds, wall seconds, and the
    JSON it printed."""
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", *args, "--json"],
        stdout=subprocess.PIPE,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):  # 1: a person must act (blocking exceptions)
        raise SystemExit(f"baccarat-audit {' '.join(args)} failed ({done.returncode})")
    printed = json.loads(done.stdout) if done.stdout.strip() else {}
    return _children_cpu() - cpu, time.perf_counter() - wall, printed


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def one_day(number: int, args: argparse.Namespace, work: Path, db: Path) -> dict[str, Any]:
    from pipeline.simulate.faults import parse_faults
    from pipeline.simulate.sinks import simulate_to_files

    day = FIRST_DAY + timedelta(days=number - 1)
    files = work / f"events-{day}"
    simulate_to_files(args.tables, args.hours, number, parse_faults(args.faults), day, files)
    measured = audited_day(number, day, files, work, db)
    if number in {*CHECKPOINTS, args.days} and number > 1:
        fresh = work / "fresh"
        fresh.mkdir()
        alone = audited_day(number, day, files, fresh, fresh / "ledger.duckdb")
        shutil.rmtree(fresh)
        measured["fresh"] = {k: alone[k] for k in FRESH_FIELDS}
    shutil.rmtree(files)
    return measured


FRESH_FIELDS = ("replay_cpu_s", "close_cpu_s", "day_cpu_s", "first_page_s")


def audited_day(number: int, day: date, files: Path, work: Path, db: Path) -> dict[str, Any]:
    """``files`` replayed into ``db`` and the day closed, each in its own process, then what a
    reader of ``db`` pays."""
    replay_cpu, replay_wall, replayed = _cli("replay", "--db", str(db), str(files))
    close_cpu, close_wall, _ = _cli(
        "close",
        "--db",
        str(db),
        "--gaming-day",
        day.isoformat(),
        "--out",
        str(work / "reports"),
        "--accept-quality-failures",
        ACCEPTED,
        "--actor",
        ACTOR,
    )
    events = int(replayed["events_new"])
    return {
        "day": number,
        "gaming_date": day.isoformat(),
        "events": events,
        "replay_cpu_s": replay_cpu,
        "replay_wall_s": replay_wall,
        "close_cpu_s": close_cpu,
        "close_wall_s": close_wall,
        "day_cpu_s": replay_cpu + close_cpu,
        "ledger_bytes": _size(db),
        "archive_bytes": _size(db.parent / "archive" / "warehouse"),
        **reader_costs(db, day),
    }


def reader_costs(db: Path, day: date) -> dict[str, Any]:
    """What a reader of the ledger pays after the day's close: the dashboard's first page of
    the day (a snapshot, the exception queue and the table board) and a refresh after a
    change (the copy a snapshot takes), with the bytes that copy reads."""
    from dashboards import queries
    from dashboards.source import journal, reader, snapshot
    from pipeline.ledger.snapshots import remove_copy, take_copy

    os.environ["BACCARAT_DB"] = str(db)  # the dashboards' journal is the ledger's
    started = time.perf_counter()
    with reader(snapshot(db)) as ledger:
        acks = journal(ledger.ledger_id)
        queries.exceptions(ledger, day, acks)
        queries.table_board(ledger, day, acks)
    first_page = time.perf_counter() - started
    started = time.perf_counter()
    copy, _ = take_copy(db, db.parent)
    refresh = time.perf_counter() - started
    copied = _size(copy) + _size(copy.with_name(copy.name + ".wal"))
    remove_copy(copy)
    return {"first_page_s": first_page, "refresh_s": refresh, "refresh_bytes": copied}


def histories(db: Path) -> dict[str, float]:
    """A patron's and a dealer's history across every stored day, as the investigator's
    pages ask for them."""
    from pipeline.ledger.history import dealer_days, dealers, patron_days, patrons
    from pipeline.ledger.store import Ledger

    with Ledger(db, read_only=True) as ledger:
        patron, dealer = patrons(ledger)[0], dealers(ledger)[0]
        return {
            "patron_history_s": timed(lambda: patron_days(ledger, patron), repeat=1)[0][0],
            "dealer_history_s": timed(lambda: dealer_days(ledger, dealer), repeat=1)[0][0],
        }


def ratios(days: list[dict[str, Any]], field: str) -> dict[str, float]:
    """``field`` on days 1, 10, 30 and the last, each as a ratio to day 1's."""
    base = days[0][field] or 1
    shown = {*CHECKPOINTS, len(days)}
    return {f"day {d['day']}": d[field] / base for d in days if d["day"] in shown}


def fresh_ratios(days: list[dict[str, Any]], field: str) -> dict[str, float]:
    """``field`` on each checkpoint day as a ratio to the same day audited into an empty
    ledger minutes later."""
    return {f"day {d['day']}": d[field] / (d["fresh"][field] or 1) for d in days if "fresh" in d}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--faults", default="all")
    parser.add_argument("--smoke", action="store_true", help="1 table, 2 days of half an hour")
    parser.add_argument("--save-as", default="history")
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.days, args.hours = 1, 2, 0.5
    work = Path(tempfile.mkdtemp(prefix="bench-history-"))
    demo_installation()
    db = work / "ledger.duckdb"
    try:
        days = []
        stored = 0
        for number in range(1, args.days + 1):
            days.append(one_day(number, args, work, db))
            d = days[-1]
            stored += d["events"]
            d["archive_bytes_per_event"] = d["archive_bytes"] / max(stored, 1)
            print(
                f"day {number:>2}: {d['events']:,} events, replay+close {d['day_cpu_s']:.1f} s "
                f"CPU, ledger {d['ledger_bytes'] / 2**20:.0f} MB, archive "
                f"{d['archive_bytes_per_event']:.0f} B/event, first page "
                f"{d['first_page_s']:.2f} s, refresh {d['refresh_s']:.2f} s "
                f"({d['refresh_bytes'] / 2**20:.0f} MB)",
                flush=True,
            )
        found = histories(db)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = {
        field: ratios(days, field)
        for field in ("day_cpu_s", "first_page_s", "refresh_s", "refresh_bytes")
    }
    against_fresh = {field: fresh_ratios(days, field) for field in FRESH_FIELDS}
    print(f"{args.tables} tables x {args.days} days, ratios to day 1: {json.dumps(summary)}")
    print(f"checkpoints against the same day in an empty ledger: {json.dumps(against_fresh)}")
    print(
        f"patron history {found['patron_history_s']:.2f} s, dealer history "
        f"{found['dealer_history_s']:.2f} s over {args.days} days"
    )
    if args.smoke:
        print("not saved")
        return 0
    path = save(
        args.save_as,
        {
            "command": "python " + " ".join(["benchmarks/bench_history.py", *sys.argv[1:]]),
            "tables": args.tables,
            "hours": args.hours,
            "faults": args.faults,
            "days": days,
            "ratios_to_day_1": summary,
            "ratios_to_a_fresh_ledger": against_fresh,
            "histories": found,
        },
    )
    print(f"-> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
