"""``baccarat-audit``: the command line.

Every command prints what it did in numbers and exits non-zero when something needs a person:
1 for findings that block, 2 for bad input or configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

# Only what building the parser needs is imported here. DuckDB, pandas, pyarrow, fastavro,
# Great Expectations and Kafka load inside the commands that use them, so `--help`, `odds`
# and `validate-rules` start in a fraction of the time (tests/test_cli_startup.py guards it).
from pipeline.bundle.acks import ACTIONS, AckJournal, JournalError
from pipeline.bundle.cli import add_bundle_parser
from pipeline.config.catalog import DEFAULT_CATALOG, CatalogError, load_catalog
from pipeline.config.roles import (
    ACTOR_ENV,
    ROLES_ENV,
    Action,
    Actor,
    ActorMissingError,
    NotAuthorizedError,
    RolesError,
    actor_from,
    authorize,
    load_roles,
)
from pipeline.ingest.errors import ClosedGamingDayError
from pipeline.oracle.cli import add_odds_parser
from pipeline.replay.findings import money
from pipeline.reports.render import CloseResult
from pipeline.rules.codes import RULE_CODES
from pipeline.rules.config import TableRules
from pipeline.safe_text import file_stem, inside, visible
from pipeline.simulate.faults import parse_faults
from pipeline.stream.cli import add_merge_shards_parser, add_stream_parser

if TYPE_CHECKING:
    from pipeline.ingest.stage import LoadReport
    from pipeline.ledger.store import Ledger
    from pipeline.simulate.run import SimulationResult

DEFAULT_OUT = Path("out")


def _yesterday() -> date:
    return date.today() - timedelta(days=1)


# ---------------------------------------------------------------------- simulate
def write_simulation(result: SimulationResult, out_dir: Path, gaming_date: date) -> list[Path]:
    """One Avro container file per table per gaming day, plus the fault manifest."""
    from pipeline.events import default_codec
    from pipeline.events.convert import to_record
    from pipeline.simulate.run import write_fault_manifest

    codec = default_codec()
    day_dir = out_dir / "events" / gaming_date.isoformat()
    day_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for table_id, events in result.events_by_table.items():
        path = inside(day_dir, f"{file_stem(table_id)}.avro")
        codec.write_events(path, (to_record(codec, e) for e in events))
        paths.append(path)
    write_fault_manifest(out_dir, result)
    return paths


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.workers is not None and args.workers < 1:
        print(f"simulate: --workers {args.workers}: give 1 or more processes", file=sys.stderr)
        return 2
    rates = parse_faults(args.faults)
    catalog = _catalog(args)
    started = time.perf_counter()
    if args.kafka:
        from pipeline.simulate.run import simulate, write_fault_manifest
        from pipeline.stream.producer import publish

        result = simulate(args.tables, args.hours, args.seed, rates, args.date, catalog)
        sent = publish(result, args.kafka, topic=args.topic)
        print(f"published {sent} events to {args.topic} at {args.kafka}")
        write_fault_manifest(args.out, result)
        events, faults = result.event_count, len(result.faults)
    else:
        # The tables are independent: emulate and write them in worker processes, as the demo
        # does (same seed, same events and manifest as one after another).
        from pipeline.simulate.sinks import simulate_to_files

        written = simulate_to_files(
            args.tables, args.hours, args.seed, rates, args.date, args.out, catalog, args.workers
        )
        print(
            f"wrote {len(written.paths)} table files ({written.bytes / 1e6:.1f} MB) under "
            f"{args.out / 'events' / args.date.isoformat()}"
        )
        events, faults = written.events, len(written.faults)
    elapsed = time.perf_counter() - started
    print(
        f"{events} events from {args.tables} tables over {args.hours} h in "
        f"{elapsed:.1f} s ({events / elapsed:,.0f} events/s); "
        f"{faults} faults injected -> {args.out / 'faults.jsonl'}"
    )
    return 0


# ---------------------------------------------------------------------- ingest
def ingest_paths(
    ledger: Ledger,
    paths: Sequence[Path],
    catalog_path: Path,
    *,
    strict: bool = False,
    allow_unverified: bool = False,
) -> LoadReport:
    """Load files into the ledger; what was loaded, in exact counts."""
    from pipeline.ingest.files import ingest_files

    return ingest_files(
        ledger, paths, catalog_path, strict=strict, allow_unverified=allow_unverified
    )


def cmd_ingest(args: argparse.Namespace) -> int:
    from pipeline.ingest.sources import event_files
    from pipeline.ledger.store import Ledger

    try:
        paths = [p for given in args.paths for p in event_files(given)]
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    with Ledger(args.db) as ledger:
        started = time.perf_counter()
        try:
            report = ingest_paths(
                ledger,
                paths,
                args.rules,
                strict=args.strict_decoding,
                allow_unverified=args.allow_unverified,
            )
        except ClosedGamingDayError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        elapsed = time.perf_counter() - started
        total = ledger.con.execute("SELECT count(*) FROM exceptions").fetchone()
    print(
        f"{report.summary()}; {total[0] if total else 0} exceptions in {args.db} ({elapsed:.1f} s)"
    )
    return 0


# ---------------------------------------------------------------------- exceptions
def cmd_exceptions(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger

    where, params = ["severity_rank >= ?"], [args.min_rank]
    for column, value in (
        ("table_id", args.table),
        ("code", args.code),
        ("gaming_date", args.gaming_day),
    ):
        if value:
            where.append(f"{column} = ?")
            params.append(value)
    with Ledger(args.db, read_only=True) as ledger:
        cursor = ledger.con.execute(
            "SELECT code, section, severity, table_id, shoe_id, round_id, seat, patron_id, "
            "serial, expected_cents, actual_cents, source_event_ids AS event_ids, message, "
            f"exception_id, gaming_date FROM exceptions WHERE {' AND '.join(where)} "
            "ORDER BY severity_rank DESC, table_id, round_id, code LIMIT ?",
            [*params, args.limit],
        )
        names = [d[0] for d in cursor.description or ()]
        rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
        return 0
    for r in rows:
        where_text = " ".join(
            f"{k} {r[c]}"
            for k, c in (
                ("table", "table_id"),
                ("round", "round_id"),
                ("seat", "seat"),
                ("form", "serial"),
            )
            if r[c] is not None
        )
        # device strings reach a terminal: control characters are shown, never obeyed
        print(visible(f"[{r['severity']}] {r['code']} {where_text}: {r['message']}"))
    return 0


def _authorized(args: argparse.Namespace, *actions: Action) -> Actor | None:
    """Who acts (``--actor`` or ``$BACCARAT_ACTOR``), allowed every one of ``actions`` by the
    roles file; None, having said why, when not (the command then exits 2)."""
    try:
        actor = actor_from(args.actor)
        roles = load_roles(args.roles_file)
        for action in actions:
            authorize(actor, action, roles)
    except (ActorMissingError, RolesError, NotAuthorizedError) as err:
        print(err, file=sys.stderr)
        return None
    return actor


def _print_seal(closed: CloseResult) -> None:
    print(
        f"seal event {closed.seal['seq']}; head link (file it elsewhere, check it with "
        f"`verify --expect-head`): {closed.chain_sha256}"
    )
    print(f"anchored in {closed.seal['anchor_path']}; reports: {', '.join(map(str, closed.files))}")


def cmd_close(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger
    from pipeline.quality.gate import QualityBlockedError
    from pipeline.reports.close import DayClosedError, ReportsNotWrittenError, close_gaming_day

    accepting = [Action.ACCEPT_QUALITY_FAILURES] if args.accept_quality_failures else []
    actor = _authorized(args, Action.CLOSE, *accepting)
    if actor is None:
        return 2
    catalog = _catalog(args)
    with Ledger(args.db) as ledger:
        try:
            closed = close_gaming_day(
                ledger,
                args.gaming_day,
                args.out,
                actor=actor.name,
                actor_source=actor.source,
                accept_quality_failures=args.accept_quality_failures,
                allow_empty=args.allow_empty,
                catalog=catalog,
            )
        except (QualityBlockedError, JournalError) as err:  # a person must act on either
            print(err, file=sys.stderr)
            return 1
        except (DayClosedError, ReportsNotWrittenError, ValueError) as err:
            print(err, file=sys.stderr)
            return 2
        except OSError as err:  # before the seal: nothing was sealed
            print(f"cannot write to {args.out} ({err}); nothing was sealed", file=sys.stderr)
            return 2
    totals = closed.report["totals"]
    quality = closed.report["quality"]
    print(
        f"gaming day {args.gaming_day}: {closed.status}; handle "
        f"{money(totals['handle_cents'])}, win {money(totals['win_cents'])}, vigorish "
        f"collected {money(totals['vig_collected_cents'])}, complimentary "
        f"{money(totals['comp_vig_cents'])}; {closed.blocking} blocking exceptions"
    )
    print(
        f"data quality {quality['verdict']}: {quality['evaluated'] - quality['failed']} of "
        f"{quality['evaluated']} expectations met; {len(quality['blocking'])} blocking, "
        f"{len(quality['warnings'])} warnings -> {closed.quality_docs}"
    )
    if quality["accepted"]:
        print(
            f"blocking quality failures accepted by {actor.name} ({actor.source}): "
            f"{quality['accepted']}"
        )
    if closed.seal["reason"]:
        print(f"closed empty by {actor.name}: {closed.seal['reason']}")
    _print_seal(closed)
    return 1 if closed.blocking else 0


def cmd_report(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger
    from pipeline.reports.close import SealBrokenError, write_reports

    with Ledger(args.db, read_only=True) as ledger:
        try:
            written = write_reports(ledger, args.gaming_day, args.out)
        except SealBrokenError as err:
            print(err, file=sys.stderr)
            return 1
        except ValueError as err:
            print(err, file=sys.stderr)
            return 2
    print(f"gaming day {args.gaming_day}: {written.status}, reports written from the seal")
    _print_seal(written)
    return 0


def cmd_reopen(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger
    from pipeline.reports.close import reopen_gaming_day

    actor = _authorized(args, Action.REOPEN)
    if actor is None:
        return 2
    with Ledger(args.db) as ledger:
        try:
            entry = reopen_gaming_day(
                ledger, args.gaming_day, args.reason, actor=actor.name, actor_source=actor.source
            )
        except ValueError as err:
            print(err, file=sys.stderr)
            return 2
    print(
        f"gaming day {args.gaming_day} reopened by {actor.name} ({actor.source}): {args.reason}; "
        f"seal event {entry.seq}, head link {entry.link}"
    )
    return 0


# ---------------------------------------------------------------------- acknowledgements
def cmd_ack(args: argparse.Namespace) -> int:
    """Acknowledge or escalate exceptions from a script, as the dashboards' form does: into
    the ledger's journal, authenticated, by an actor with the analyst role."""
    from pipeline.ledger.store import Ledger, LedgerError

    journal = AckJournal.for_ledger(args.db)
    if not (args.note or "").strip():
        print("ack: --note is required: say why (it is kept with the record)", file=sys.stderr)
        return 2
    if args.re_sign_unkeyed:
        return _re_sign(args, journal)
    if not args.exception_ids or not args.action:
        print("ack: give --exception ID (one or more) and --action", file=sys.stderr)
        return 2
    actor = _authorized(args, Action[args.action])
    if actor is None:
        return 2
    wanted = list(dict.fromkeys(args.exception_ids))
    try:
        with Ledger(args.db, read_only=True) as ledger:
            found = {
                str(e): (t, d, s)
                for e, t, d, s in ledger.con.execute(
                    "SELECT e.exception_id, e.table_id, e.gaming_date, g.status "
                    "FROM exceptions e LEFT JOIN gaming_days g USING (gaming_date) "
                    "WHERE list_contains(?::VARCHAR[], e.exception_id)",
                    [wanted],
                ).fetchall()
            }
    except LedgerError as err:
        print(f"ack: cannot check the exception ids, nothing recorded: {err}", file=sys.stderr)
        return 2
    unknown = [e for e in wanted if e not in found]
    if unknown:
        print(
            f"ack: no exception {', '.join(unknown)} in {args.db}; nothing recorded (list them "
            f"with: baccarat-audit exceptions --db {args.db} --json)",
            file=sys.stderr,
        )
        return 2
    problems = journal.verify()
    if problems:
        print(
            f"ack: the journal {journal.path} does not verify, nothing recorded: "
            + "; ".join(problems),
            file=sys.stderr,
        )
        return 1
    for exception_id in wanted:
        table_id, gaming_date, status = found[exception_id]
        record = journal.append(
            exception_id=exception_id,
            action=args.action,
            note=args.note,
            actor=actor.name,
            actor_source=actor.source,
            table_id=table_id,
            gaming_date=gaming_date,
        )
        print(
            f"{record.action} of exception {exception_id} (table {table_id}, gaming day "
            f"{gaming_date}) recorded by {actor.name} ({actor.source}) in {journal.path}"
        )
        if status is not None and status != "REOPENED":
            print(
                f"  gaming day {gaming_date} is closed ({status}): this counts at its close "
                "only after it is reopened and closed again"
            )
    return 0


def _re_sign(args: argparse.Namespace, journal: AckJournal) -> int:
    if args.exception_ids or args.action:
        print("ack: --re-sign-unkeyed takes no --exception or --action", file=sys.stderr)
        return 2
    actor = _authorized(args, Action.RE_SIGN_JOURNAL)
    if actor is None:
        return 2
    try:
        count = journal.re_sign_unkeyed(actor.name, actor.source, args.note)
    except JournalError as err:
        print(err, file=sys.stderr)
        return 1
    print(
        f"re-signed {count} records of {journal.path} as reviewed by {actor.name} "
        f"({actor.source}); the unkeyed original is kept beside it"
    )
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger
    from pipeline.reports.verify import check

    with Ledger(args.db, read_only=True) as ledger:
        checked = check(ledger, args.anchors, args.expect_head)
    for problem in checked.problems:
        print(problem)
    print(
        f"{checked.days_checked} closed gaming days checked against the seal log (head "
        f"{checked.head or 'none'}, anchors {checked.anchors}); "
        f"{'intact' if not checked.problems else f'{len(checked.problems)} problems'}"
    )
    return 1 if checked.problems else 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger
    from pipeline.reports.groundtruth import compare

    with Ledger(args.db, read_only=True) as ledger:
        comparison = compare(ledger, args.manifest)
    if args.json:
        print(json.dumps(comparison.to_json(), indent=2, sort_keys=True))
    else:
        print(comparison.summary())
        for kind, stats in sorted(comparison.by_kind.items()):
            print(
                f"  {kind:<14} injected {stats['injected']:>5.0f} found "
                f"{stats['found']:>5.0f} recall {stats['recall']:.3f}"
            )
        print(f"  precision {comparison.precision:.3f}")
    return 0 if comparison.exact else 1


# ---------------------------------------------------------------------- rules
def cmd_rules(args: argparse.Namespace) -> int:
    tests_dir = Path(args.tests)
    sources = (
        {p: p.read_text(encoding="utf-8") for p in tests_dir.rglob("test_*.py")}
        if tests_dir.exists()
        else {}
    )
    print("| code | section | statement | tests |")
    print("| --- | --- | --- | --- |")
    for code, r in RULE_CODES.items():
        covering = sorted(p.stem for p, text in sources.items() if code in text)
        print(f"| `{code}` | {r.citation} | {r.statement} | {', '.join(covering) or '-'} |")
    return 0


def cmd_validate_rules(args: argparse.Namespace) -> int:
    try:
        catalog = load_catalog(args.file)
    except CatalogError as err:
        print(err, file=sys.stderr)
        return 2
    print(f"{args.file}: {len(catalog)} rule configurations, all allowed by N.J.A.C. 19:47")
    return 0


# ---------------------------------------------------------------------- demo
def cmd_demo(args: argparse.Namespace) -> int:
    from pipeline.demo import run_demo

    return run_demo(args)


def _catalog(args: argparse.Namespace) -> Mapping[str, TableRules]:
    try:
        return load_catalog(args.rules)
    except CatalogError as err:
        print(err, file=sys.stderr)
        raise SystemExit(2) from err


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="baccarat-audit",
        description="Surveillance and audit pipeline for New Jersey baccarat (N.J.A.C. 19:47).",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def acting(p: argparse.ArgumentParser) -> None:
        """Options of a state-changing command: who acts, and the roles that allow it."""
        p.add_argument(
            "--actor",
            help=f"who acts, recorded with the action (default ${ACTOR_ENV}; required)",
        )
        p.add_argument(
            "--roles-file",
            type=Path,
            help=f"users and their roles (TOML; default ${ROLES_ENV}, else the packaged example)",
        )

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--rules",
            type=Path,
            default=DEFAULT_CATALOG,
            help="rule catalog (TOML) of the casino's filed configurations",
        )

    p = sub.add_parser("demo", help="emulate a gaming day, audit it, and show the results")
    common(p)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--tables", type=int, default=6)
    p.add_argument("--hours", type=float, default=24.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--faults", default="all")
    p.add_argument("--date", type=date.fromisoformat, default=date(2026, 11, 24))
    p.add_argument(
        "--plain",
        action="store_true",
        help="run the audit steps as plain functions, without Prefect",
    )
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("simulate", help="emulate tables and write their events")
    common(p)
    p.add_argument("--tables", type=int, default=6)
    p.add_argument("--hours", type=float, default=24.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--faults",
        default="none",
        help="none, all, or KIND[=RATE],... (payout, vigorish, third_card, "
        "late_wager, deferred_vig, forms, announcement, shoe, irregularity, "
        "device)",
    )
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument(
        "--date", type=date.fromisoformat, default=_yesterday(), help="gaming date (YYYY-MM-DD)"
    )
    p.add_argument(
        "--workers",
        type=int,
        help="processes emulating and writing table files at once (default: one per core, at "
        "most one per table); the files do not depend on it",
    )
    p.add_argument("--kafka", metavar="BOOTSTRAP", help="publish to Kafka instead of files")
    p.add_argument("--topic", default="table-events")
    p.set_defaults(func=cmd_simulate)

    for name in ("replay", "ingest"):
        p = sub.add_parser(
            name,
            help="load Avro event files (or directories of them) into the "
            "ledger and replay every table-day they touch",
        )
        common(p)
        p.add_argument("--db", type=Path, required=True)
        p.add_argument(
            "--strict-decoding",
            action="store_true",
            help="re-verify that every event's bytes are canonical Avro (slower)",
        )
        p.add_argument(
            "--allow-unverified",
            action="store_true",
            help="load files that neither block checksums (codec snappy) nor a producer "
            "digest <file>.sha256 vouch for, instead of refusing them as UNVERIFIABLE_FILE "
            "dead letters; each such file is recorded as a LOADED_UNVERIFIED dead letter",
        )
        p.add_argument("paths", type=Path, nargs="+")
        p.set_defaults(func=cmd_ingest)

    p = sub.add_parser(
        "close", help="close a gaming day: quality gate, row seals, seal log, reports"
    )
    common(p)
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--gaming-day", type=date.fromisoformat, required=True)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT / "reports")
    acting(p)
    p.add_argument(
        "--accept-quality-failures",
        metavar="REASON",
        help="close even though BLOCK data-quality expectations failed; the reason and the "
        "failures accepted go to the gaming day's audit trail",
    )
    p.add_argument(
        "--allow-empty",
        metavar="REASON",
        help="seal a day that has no events (refused otherwise: a mistyped or future date); "
        "the reason goes to the seal and the audit trail (not used for a day with events)",
    )
    p.set_defaults(func=cmd_close)

    p = sub.add_parser(
        "report", help="write a closed day's reports again, byte for byte, from its seal"
    )
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--gaming-day", type=date.fromisoformat, required=True)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT / "reports")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("reopen", help="reopen a closed gaming day (a seal event, audited)")
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--gaming-day", type=date.fromisoformat, required=True)
    p.add_argument("--reason", required=True)
    acting(p)
    p.set_defaults(func=cmd_reopen)

    p = sub.add_parser(
        "ack",
        help="acknowledge or escalate exceptions (for scripts); recorded in the journal",
        description="Record an action on one or more exceptions in the ledger's "
        "acknowledgement journal, as the dashboards' form does; the actor needs the analyst "
        "role. With --re-sign-unkeyed (admin role), authenticate a journal written before "
        "acknowledgements were, after reviewing it.",
    )
    p.add_argument("--db", type=Path, required=True, help="the ledger (opened read-only)")
    p.add_argument(
        "--exception",
        dest="exception_ids",
        action="append",
        metavar="ID",
        help="exception id (repeat for several)",
    )
    p.add_argument("--action", type=str.upper, choices=ACTIONS)
    p.add_argument("--note", help="why (required, kept with the record)")
    p.add_argument("--re-sign-unkeyed", action="store_true")
    acting(p)
    p.set_defaults(func=cmd_ack)

    p = sub.add_parser(
        "verify", help="recompute closed days from their rows against the seal log and anchors"
    )
    p.add_argument("--db", type=Path, required=True)
    p.add_argument(
        "--anchors",
        type=Path,
        help="the anchor file (default: the one the newest seal event names, else "
        "reports/seal-anchors.jsonl beside the ledger)",
    )
    p.add_argument(
        "--expect-head",
        metavar="HEX",
        help="the head link filed elsewhere (printed by the last close or reopen)",
    )
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("evaluate", help="compare exceptions with an emulator fault manifest")
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--manifest", type=Path, required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("exceptions", help="list exceptions from the ledger")
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--json", action="store_true")
    p.add_argument("--gaming-day", type=date.fromisoformat)
    p.add_argument("--table")
    p.add_argument("--code")
    p.add_argument("--min-rank", type=int, default=1, help="0 info .. 4 critical")
    p.add_argument("--limit", type=int, default=50)
    p.set_defaults(func=cmd_exceptions)

    p = sub.add_parser("rules", help="print the rule-code table (Markdown)")
    p.add_argument("--tests", default="tests")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("validate-rules", help="validate a rule catalog file")
    p.add_argument("file", type=Path)
    p.set_defaults(func=cmd_validate_rules)

    add_odds_parser(sub)
    add_stream_parser(sub)
    add_merge_shards_parser(sub)
    add_bundle_parser(sub)
    _add_optional_commands(sub)
    return parser


def _add_optional_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Commands whose modules import heavier dependencies, loaded only when used."""
    p = sub.add_parser("broker", help="run the bundled Kafka-protocol broker (tansu)")
    p.add_argument("--port", type=int, default=9092)
    p.set_defaults(func=cmd_broker)


def cmd_broker(args: argparse.Namespace) -> int:
    from pipeline.stream.broker import run_broker

    return run_broker(args.port)


EXIT_BROKEN_PIPE = 128 + 13
"""What a Unix tool exits with when its reader went away (SIGPIPE): ``... | head -1``."""


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # inside the try: a closed pipe is found at the last flush too
    except BrokenPipeError:
        # Stop quietly; stdout goes to /dev/null so the interpreter's own flush at exit
        # raises nothing either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return code


if __name__ == "__main__":
    sys.exit(main())
