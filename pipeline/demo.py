"""The main job on the embedded default: emulate a gaming day into Avro files, load and replay
it into a DuckDB ledger, close the day, and check the findings against the ground truth."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from pipeline.config.catalog import load_catalog
from pipeline.ledger.store import Ledger
from pipeline.replay.findings import money
from pipeline.reports.close import close_gaming_day
from pipeline.reports.groundtruth import compare
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate


def run_demo(args: argparse.Namespace) -> int:
    from pipeline.cli import ingest_paths, write_simulation

    out: Path = args.out
    db = out / "ledger.duckdb"
    started = time.perf_counter()
    result = simulate(
        args.tables,
        args.hours,
        args.seed,
        parse_faults(args.faults),
        args.date,
        load_catalog(args.rules),
    )
    paths = write_simulation(result, out, args.date)
    t_sim = time.perf_counter()
    print(
        f"1. emulated {args.tables} tables for {args.hours:g} h of gaming day {args.date}: "
        f"{result.event_count:,} events, {len(result.faults)} injected faults "
        f"({t_sim - started:.1f} s) -> {paths[0].parent}"
    )

    db.unlink(missing_ok=True)
    with Ledger(db) as ledger:
        deliveries, dead, exceptions = ingest_paths(ledger, paths, args.rules)
        t_load = time.perf_counter()
        rounds = ledger.con.execute("SELECT count(*) FROM rounds WHERE NOT simulated").fetchone()
        print(
            f"2. replayed {deliveries:,} events ({rounds[0] if rounds else 0:,} rounds) into "
            f"{db}: {exceptions} exceptions, {dead} dead letters ({t_load - t_sim:.1f} s)"
        )
        closed = close_gaming_day(ledger, args.date, out / "reports")
        totals = closed.report["totals"]
        print(
            f"3. closed gaming day {args.date}: handle {money(totals['handle_cents'])}, win "
            f"{money(totals['win_cents'])} ({totals['hold_pct']} % of handle), vigorish "
            f"collected {money(totals['vig_collected_cents'])}, complimentary (Forms) "
            f"{money(totals['comp_vig_cents'])}; {closed.blocking} blocking exceptions; "
            f"report {closed.files[-1]} sha256 {closed.report_sha256[:16]}"
        )
        print("\n   table  game           rounds      handle         win    exceptions")
        for t in closed.report["tables"]:
            print(
                f"   {t['table_id']:<6} {t['game']:<14} {t['rounds']:>6} "
                f"{money(t['handle_cents']):>13} {money(t['win_cents']):>11} "
                f"{t['exceptions']:>10}"
            )
        print("\n   exceptions by code:")
        for row in closed.report["exceptions_by_code"][:8]:
            print(f"   {row['count']:>5}  {row['severity']:<8} {row['code']}")
        sample = ledger.con.execute(
            "SELECT severity, code, table_id, round_id, message FROM exceptions "
            "WHERE severity_rank >= 3 ORDER BY severity_rank DESC, table_id, round_id "
            "LIMIT 3"
        ).fetchall()
        print("\n   for example:")
        for severity, code, table, rnd, message in sample:
            print(f"   [{severity}] {code} table {table} round {rnd}:\n      {message}")
        truth = compare(ledger, out / "faults.jsonl")
    print(f"\n4. ground truth: {truth.summary()}")
    print(
        f"\nDone in {time.perf_counter() - started:.1f} s. Explore with "
        f"`baccarat-audit exceptions --db {db}` or `make dashboard`."
    )
    return 0 if truth.exact else 1
