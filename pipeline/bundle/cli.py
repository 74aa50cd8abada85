"""``baccarat-audit bundle`` and ``baccarat-audit verify-bundle``.

Wire into :func:`pipeline.cli.build_parser` with ``add_bundle_parser(sub)``.
Exit codes follow the CLI's: 0 done and intact, 1 the bundle has problems, 2 bad input.
The commands import the export and the ledger (DuckDB) when they run, so registering them
costs the main CLI's ``--help`` nothing.
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

from pipeline.exits import CommandError
from pipeline.options import add_db_option, add_json_option, print_json, require_known_table

BUNDLE_SUFFIX = ".zip"


def add_bundle_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bundle",
        help="export the evidence bundle (zip) of an exception, a round, a Form or a table",
        description="Write the raw events (Avro), derived rows (CSV), acknowledgements, rule "
        "citations, the evidence as readable lines (README.txt, evidence.html) and a SHA-256 "
        "manifest of one exception, round, Form or table into a zip.",
    )
    add_db_option(p, "the ledger (opened read-only)")
    what = p.add_argument_group("what to export (at least one)")
    what.add_argument(
        "--exception",
        dest="exception_id",
        help="exception id (as `exceptions --json` gives it): its row and exactly the events "
        "it cites",
    )
    what.add_argument("--round", dest="round_id", help="round id, e.g. T01-20261124-S01-R003")
    what.add_argument("--serial", type=int, help="Complimentary Vigorish Form serial")
    what.add_argument("--table", dest="table_id", help="table id (alone: the whole table)")
    what.add_argument("--date", type=date.fromisoformat, help="gaming date (YYYY-MM-DD)")
    p.add_argument(
        "--out",
        default=".",
        help=f"the zip to write (a name ending in {BUNDLE_SUFFIX}), or a directory to write "
        "evidence-<selection>.zip into (any other name, or one ending in '/'; made when "
        "missing)",
    )
    add_json_option(p, "{bundle, bytes, sha256}")
    p.set_defaults(func=cmd_bundle)

    p = sub.add_parser("verify-bundle", help="check an evidence bundle is intact")
    p.add_argument("path", type=Path, help="the bundle (zip) to check")
    p.add_argument(
        "--sha256", dest="expected_sha256", help="the zip's SHA-256 as printed at export"
    )
    add_json_option(p, "{bundle, intact, sha256_checked, problems}")
    p.set_defaults(func=cmd_verify_bundle)


def names_a_directory(out: str) -> bool:
    """Whether ``bundle --out`` names a directory to write into rather than the zip itself:
    a directory that exists, a name ending in '/', or any name not ending in ``.zip``
    (``--out evidence`` would otherwise leave a zip without its suffix, which mail filters
    and file managers do not open as one)."""
    return out.endswith("/") or Path(out).suffix.lower() != BUNDLE_SUFFIX or Path(out).is_dir()


def cmd_bundle(args: argparse.Namespace) -> int:
    from pipeline.bundle.export import export_bundle, file_sha256
    from pipeline.config.catalog import gaming_day_of
    from pipeline.ledger.store import Ledger

    with Ledger(args.db, read_only=True) as ledger:
        if args.table_id is not None:
            require_known_table(ledger, args.table_id, args.date)
        try:
            path = export_bundle(
                ledger,
                round_id=args.round_id,
                serial=args.serial,
                table_id=args.table_id,
                gaming_date=args.date,
                out=Path(args.out),
                into_directory=names_a_directory(args.out),
                exception_id=args.exception_id,
                zone=gaming_day_of().zone,
            )
        except ValueError as err:  # a selection that finds nothing, or a name leaving --out
            raise CommandError(str(err)) from err
    size, digest = path.stat().st_size, file_sha256(path)
    if args.json:
        print_json({"bundle": str(path), "bytes": size, "sha256": digest})
        return 0
    print(f"wrote {path} ({size:,} bytes)")
    print(f"sha256 {digest}  (record it; verify-bundle --sha256 checks it)")
    return 0


def cmd_verify_bundle(args: argparse.Namespace) -> int:
    from pipeline.bundle.export import verify_bundle

    path: Path = args.path
    if not path.is_file():
        what = "is a directory, not a bundle" if path.is_dir() else "no such file"
        raise CommandError(
            f"{path}: {what}; give the zip `baccarat-audit bundle` wrote (its path was printed "
            "with its SHA-256)"
        )
    problems = verify_bundle(path, expected_sha256=args.expected_sha256)
    if args.json:
        print_json(
            {
                "bundle": str(path),
                "intact": not problems,
                "sha256_checked": args.expected_sha256 is not None,
                "problems": problems,
            }
        )
        return 1 if problems else 0
    for problem in problems:
        print(problem)
    if problems:
        print(f"{path}: {len(problems)} problem(s); do not rely on this bundle")
        return 1
    print(f"{path}: intact (every file matches its SHA-256 in the manifest)")
    return 0
