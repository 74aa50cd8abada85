"""``baccarat-audit bundle`` and ``baccarat-audit verify-bundle``.

Wire into :func:`pipeline.cli.build_parser` with ``add_bundle_parser(sub)``.
Exit codes follow the CLI's: 0 done and intact, 1 the bundle has problems, 2 bad input.
The commands import the export and the ledger (DuckDB) when they run, so registering them
costs the main CLI's ``--help`` nothing.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from pipeline.options import add_db_option


def add_bundle_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bundle",
        help="export the evidence bundle (zip) of a round, a Form or a table",
        description="Write the raw events (Avro), derived rows (CSV), acknowledgements, rule "
        "citations and a SHA-256 manifest of one round, Form or table into a zip.",
    )
    add_db_option(p, "the ledger (opened read-only)")
    what = p.add_argument_group("what to export (at least one)")
    what.add_argument("--round", dest="round_id", help="round id, e.g. T01-20261124-S01-R003")
    what.add_argument("--serial", type=int, help="Complimentary Vigorish Form serial")
    what.add_argument("--table", dest="table_id", help="table id (alone: the whole table)")
    what.add_argument("--date", type=date.fromisoformat, help="gaming date (YYYY-MM-DD)")
    p.add_argument(
        "--out", type=Path, default=Path("."), help="zip file, or a directory to write it into"
    )
    p.set_defaults(func=cmd_bundle)

    p = sub.add_parser("verify-bundle", help="check an evidence bundle is intact")
    p.add_argument("path", type=Path, help="the bundle (zip) to check")
    p.add_argument(
        "--sha256", dest="expected_sha256", help="the zip's SHA-256 as printed at export"
    )
    p.set_defaults(func=cmd_verify_bundle)


def cmd_bundle(args: argparse.Namespace) -> int:
    from pipeline.bundle.export import BundleError, export_bundle, file_sha256
    from pipeline.ledger.store import Ledger, LedgerError

    try:
        with Ledger(args.db, read_only=True) as ledger:
            path = export_bundle(
                ledger,
                round_id=args.round_id,
                serial=args.serial,
                table_id=args.table_id,
                gaming_date=args.date,
                out=args.out,
            )
    except (BundleError, LedgerError, ValueError) as err:  # ValueError: a path that leaves --out
        print(err, file=sys.stderr)
        return 2
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    print(f"sha256 {file_sha256(path)}  (record it; verify-bundle --sha256 checks it)")
    return 0


def cmd_verify_bundle(args: argparse.Namespace) -> int:
    from pipeline.bundle.export import verify_bundle

    problems = verify_bundle(args.path, expected_sha256=args.expected_sha256)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{args.path}: {len(problems)} problem(s); do not rely on this bundle")
        return 1
    print(f"{args.path}: intact (every file matches its SHA-256 in the manifest)")
    return 0
