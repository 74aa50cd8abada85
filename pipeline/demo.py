"""The main job on the embedded default: emulate a gaming day into Avro files, run the nightly
audit flow (ingest and replay into a DuckDB ledger, Great Expectations, close the day), and
check the findings against the emulator's ground truth.

The flow runs on a local Prefect server that the first run starts and later runs reuse (no
temporary server per run); ``--plain`` runs the same steps without Prefect.

The demo acts in ``$BACCARAT_INSTALLATION`` when it is set; otherwise in a demo installation
it makes afresh under ``out/installation`` (:func:`demo_installation`), as it makes its
ledger afresh: keys, roles and witness labelled DEMO, defending against nobody.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Collection, Sequence
from pathlib import Path

from pipeline.config.catalog import load_catalog
from pipeline.config.installation import INSTALLATION_ENV, Installation, InstallationError
from pipeline.ingest.errors import TerminalError
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.archive import recorded_manifest
from pipeline.ledger.seal_record import last_entries, seal_log
from pipeline.ledger.store import Ledger
from pipeline.progress import progress
from pipeline.replay.findings import money
from pipeline.reports.groundtruth import compare
from pipeline.simulate.sinks import simulate_to_files


def run_demo(args: argparse.Namespace) -> int:
    from flows.server import run_nightly_audit_via_server
    from flows.steps import run_audit_plain

    out: Path = args.out
    db = out / "ledger.duckdb"
    started = time.perf_counter()
    with progress("1. emulating tables", total=args.tables) as tick:
        written = simulate_to_files(
            args.tables,
            args.hours,
            args.seed,
            args.faults,
            args.date,
            out,
            load_catalog(args.rules),
            on_table=lambda _: tick(),
        )
    t_sim = time.perf_counter()
    print(
        f"1. emulated {args.tables} tables for {args.hours:g} h of gaming day {args.date}: "
        f"{written.events:,} events, {len(written.faults)} injected faults "
        f"({t_sim - started:.1f} s) -> {written.paths[0].parent}"
    )

    db.unlink(missing_ok=True)
    for stale in (out / "reports").glob(f"*{args.date.isoformat()}*"):
        stale.unlink()
    (out / "reports" / "seal-anchors.jsonl").unlink(missing_ok=True)
    shutil.rmtree(out / "archive", ignore_errors=True)  # the embedded archive of that ledger
    acting_in = demo_installation(out)
    print(f"   acting in the installation {shown_path(acting_in)}")
    events_dir = out / "events"
    how = "as plain functions" if args.plain else "as a Prefect flow run on the local server"
    print(f"2. nightly audit {how} (ingest + replay, patterns, quality, close) ...", flush=True)
    try:
        with progress("   auditing"):
            if args.plain:
                audit = run_audit_plain(events_dir, db, args.date, out / "reports", args.rules)
            else:
                audit = run_nightly_audit_via_server(
                    events_dir, db, args.date, out / "reports", args.rules
                )
    except TerminalError as err:  # e.g. the quality gate refused the close: say why, no trace
        print(f"   the nightly audit stopped: {err}")
        return 1
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in audit.seconds.items())
    print(
        f"   replayed {audit.deliveries:,} events into {db}; {audit.dead_letters} dead "
        f"letters ({steps})"
    )
    if audit.patterns is not None:
        print(f"   {audit.patterns.summary()}")
    totals = audit.close.totals
    print(
        f"3. closed gaming day {args.date}: handle {money(totals['handle_cents'])}, win "
        f"{money(totals['win_cents'])} ({totals['hold_pct']} % of handle), vigorish "
        f"collected {money(totals['vig_collected_cents'])}, complimentary (Forms) "
        f"{money(totals['comp_vig_cents'])}; {audit.close.blocking} blocking exceptions"
    )
    print(f"   report {audit.close.files[-1]} (seal link {audit.close.chain_sha256[:16]})")
    with Ledger(db, read_only=True) as ledger:
        sealed = last_entries(seal_log(ledger))[args.date]
        manifest = recorded_manifest(ledger, args.date, sealed.sealed_at)
    if manifest is not None:
        files = sum(len(t.files) for t in manifest.tables)
        print(
            f"   archived as {files} Parquet files of Apache Iceberg tables in {out / 'archive'}: "
            f"{manifest.total_bytes / 2**20:.1f} MB, "
            f"{manifest.total_bytes / max(audit.deliveries, 1):.0f} B an event, in the seal"
        )
    quality = audit.close.report["quality"]
    print(
        f"   data quality (checked before the close): {quality['verdict']} "
        f"({audit.quality.evaluated - audit.quality.failed}/{audit.quality.evaluated} "
        f"expectations met; {len(quality['blocking'])} blocking, {len(quality['warnings'])} "
        f"warnings) -> {audit.quality.docs_file}"
    )
    for line in audit.quality.failing[:5]:
        print(f"     {line}")
    print()
    for line in text_table(
        ("table", "game", "rounds", "handle", "win", "exceptions"),
        [
            (t["table_id"], t["game"], t["rounds"], money(t["handle_cents"]),
             money(t["win_cents"]), t["exceptions"])
            for t in audit.close.report["tables"]
        ],
        right={"rounds", "handle", "win", "exceptions"},
    ):  # fmt: skip
        print(f"   {line}")
    with Ledger(db, read_only=True) as ledger:
        print("\n   exceptions by code:")
        for code, severity, count in ledger_exceptions.counts_by_code(ledger, 8):
            print(f"   {count:>5}  {severity:<8} {code}")
        sample = ledger_exceptions.most_severe_of_rounds(ledger, 3, 3)
        print("\n   for example:")
        for e in sample:
            place = ledger_exceptions.exception_place(e.table_id, e.round_id)
            line = ledger_exceptions.exception_line(
                e.severity, e.code, place, e.message, sep=":\n      "
            )
            print(f"   {line}")
        truth = compare(ledger, out / "faults.jsonl")
    print(f"\n4. ground truth: {truth.summary()}")
    dashboard = "make dashboard" + ("" if db == DEFAULT_DB else f" DASHBOARD_DB={db}")
    print(
        f"\nDone in {time.perf_counter() - started:.1f} s. Next: `export "
        f"{INSTALLATION_ENV}={shown_path(acting_in, '$PWD/')}` (the installation the record "
        "was signed in), "
        f"`{installed_command()} exceptions --db {db}`, `{dashboard}`."
    )
    return 0 if truth.exact else 1


def demo_installation(out: Path) -> Path:
    """The installation the demo acts in: ``$BACCARAT_INSTALLATION`` when set; else a demo
    installation made afresh at ``out/installation`` (with the ledger it starts afresh, so
    its witness holds no checkpoint of the ledger it replaces), set for this process and
    what it starts. A folder there that is not a demo installation is never removed."""
    if os.environ.get(INSTALLATION_ENV, "").strip():
        return Path(os.environ[INSTALLATION_ENV])
    from pipeline.witness.provision import init_demo_installation

    root = (out / "installation").resolve()
    if root.exists():
        if not Installation(root).is_demo:
            raise InstallationError(
                f"{root}: not a demo installation (no DEMO file), so the demo does not replace "
                f"it: move it away, or set {INSTALLATION_ENV} to the installation to act in"
            )
        shutil.rmtree(root)
    init_demo_installation(root)
    os.environ[INSTALLATION_ENV] = str(root)
    return root


def shown_path(path: Path, relative_prefix: str = "") -> str:
    """``path`` as a person types it here: relative to the working directory (after
    ``relative_prefix``) when it is below it."""
    try:
        return relative_prefix + str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


DEFAULT_DB = Path("out") / "ledger.duckdb"
"""The ledger ``make dashboard`` shows unless told another (its DASHBOARD_DB)."""


def installed_command() -> str:
    """How to reach ``baccarat-audit`` from a fresh shell: the script beside this Python
    (``.venv/bin/baccarat-audit`` after ``make run``, relative when it is under the current
    directory), else ``python -m pipeline``."""
    scripts = Path(sys.executable).parent
    script = scripts / "baccarat-audit"
    if not script.exists():
        return f"{sys.executable} -m pipeline"
    with contextlib.suppress(ValueError):
        return str(script.relative_to(Path.cwd()))
    return str(script)


def text_table(
    header: Sequence[str], rows: Sequence[Sequence[object]], right: Collection[str]
) -> list[str]:
    """Rows as aligned text: each column as wide as its widest cell (a $94,000,000.00
    handle included); the ``right`` columns (numbers, amounts) right-aligned."""
    cells = [list(header), *([str(v) for v in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    return [
        " ".join(
            cell.rjust(width) if name in right else cell.ljust(width)
            for cell, width, name in zip(row, widths, header, strict=True)
        ).rstrip()
        for row in cells
    ]
