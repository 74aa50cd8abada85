"""``baccarat-audit``: the command line.

Every command prints what it did in numbers and exits non-zero when something needs a person:
1 for findings that block, 2 for bad input or configuration.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Only what building the parser needs is imported here. DuckDB, pandas, pyarrow, fastavro,
# Great Expectations and Kafka load inside the commands that use them, so `--help`, `odds`
# and `validate-rules` start in a fraction of the time (tests/test_cli_startup.py guards it).
from pipeline.bundle.acks import (
    ACTIONS,
    ASSIGN,
    OPEN,
    STATUS_AFTER,
    AckJournal,
    blocking_after,
)
from pipeline.bundle.cli import add_bundle_parser
from pipeline.config.catalog import DEFAULT_CATALOG, gaming_day_of, load_catalog
from pipeline.config.roles import (
    ACTOR_ENV,
    Action,
    Actor,
    authorize,
    authorized,
    load_roles,
    read_roles,
)
from pipeline.exits import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_NEEDS_PERSON,
    EXIT_TEMPFAIL,
    CommandError,
    explain,
    explain_os,
)
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.options import (
    DB_ENV,
    add_db_option,
    add_json_option,
    print_json,
    require_known_table,
)
from pipeline.oracle.cli import add_odds_parser
from pipeline.progress import progress, stage
from pipeline.replay.findings import Severity, money
from pipeline.rules.codes import RULE_CODES
from pipeline.safe_text import file_stem, inside, visible
from pipeline.simulate.faults import FaultKind, parse_faults
from pipeline.stream.cli import add_merge_shards_parser, add_stream_parser
from pipeline.witness.cli import add_installation_parsers

if TYPE_CHECKING:
    from pipeline.config.catalog import Catalog
    from pipeline.ingest.stage import LoadReport
    from pipeline.ledger.store import Ledger
    from pipeline.patterns.stage import PatternRun
    from pipeline.simulate.run import SimulationResult
    from pipeline.stream.closes import CloseRequest

DEFAULT_OUT = Path("out")
SEAL_SHAPE = "seal: {seq, head_link, anchor_path, reports}"
"""A seal's place in the log as ``--json`` gives it (:func:`_print_seal` says the same)."""


DEMO_GAMING_DATE = date(2026, 11, 24)
"""The gaming date ``demo`` and ``simulate`` emulate unless told otherwise: one fixed date, so
that a run, its reports and the README's walkthrough name the same day."""


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
    rates = args.faults
    catalog = load_catalog(args.rules)
    started = time.perf_counter()
    if args.kafka:
        from pipeline.simulate.run import simulate, write_fault_manifest
        from pipeline.stream.producer import publish

        result = simulate(args.tables, args.hours, args.seed, rates, args.date, catalog)
        sent = publish(result, args.kafka, topic=args.topic)
        write_fault_manifest(args.out, result)
        events, faults = result.event_count, len(result.faults)
        wrote = f"published {sent} events to {args.topic} at {args.kafka}"
    else:
        # The tables are independent: emulate and write them in worker processes, as the demo
        # does (same seed, same events and manifest as one after another).
        from pipeline.simulate.sinks import simulate_to_files

        with progress("emulating tables", total=args.tables) as tick:
            written = simulate_to_files(
                args.tables,
                args.hours,
                args.seed,
                rates,
                args.date,
                args.out,
                catalog,
                args.workers,
                on_table=lambda _: tick(),
            )
        events, faults = written.events, len(written.faults)
        wrote = (
            f"wrote {len(written.paths)} table files ({written.bytes / 1e6:.1f} MB) under "
            f"{args.out / 'events' / args.date.isoformat()}"
        )
    elapsed = time.perf_counter() - started
    if args.json:
        print_json(
            {
                "gaming_date": args.date.isoformat(),
                "tables": args.tables,
                "hours": args.hours,
                "events": events,
                "faults": faults,
                "manifest": str(args.out / "faults.jsonl"),
                "events_dir": None
                if args.kafka
                else str(args.out / "events" / args.date.isoformat()),
                "kafka_topic": args.topic if args.kafka else None,
                "seconds": round(elapsed, 3),
            }
        )
        return 0
    print(wrote)
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
        raise CommandError(f"{err}; give the events directory (e.g. out/events)") from err
    load_catalog(args.rules)  # a catalog error is said before the ledger is created
    with Ledger(args.db) as ledger, progress("loading", total=None):
        started = time.perf_counter()
        stage(f"ingest and replay {len(paths)} files")
        report = ingest_paths(
            ledger,
            paths,
            args.rules,
            strict=args.strict_decoding,
            allow_unverified=args.allow_unverified,
        )
        searched = find_patterns_after(ledger, report.table_days, load_catalog(args.rules))
        elapsed = time.perf_counter() - started
        total = ledger_exceptions.count_all(ledger)
    if args.json:
        print_json(
            {
                "db": str(args.db),
                "files": report.files,
                "files_skipped": report.files_skipped,
                "events_delivered": report.deliveries,
                "events_new": report.new_deliveries,
                "events_redelivered": report.redelivered,
                "dead_letters": report.dead_letters,
                "dead_letters_resolved": report.dead_letters_resolved,
                "table_days": [[t, d.isoformat()] for t, d in sorted(report.table_days)],
                "rounds": report.rounds,
                "exceptions": report.exceptions,
                "exceptions_in_ledger": total,
                "pattern_days": [run.gaming_date.isoformat() for run in searched],
                "pattern_exceptions": sum(len(run.findings) for run in searched),
                "seconds": round(elapsed, 3),
            }
        )
        return 0
    found = sum(len(run.findings) for run in searched)
    days = ", ".join(str(run.gaming_date) for run in searched) or "none open"
    print(
        f"{report.summary()}; {total} exceptions in {args.db}, {found} of them patterns across "
        f"shoes (gaming days searched: {days}) ({elapsed:.1f} s)"
    )
    return 0


def find_patterns_after(
    ledger: Ledger, table_days: Iterable[tuple[str, date]], catalog: Catalog
) -> list[PatternRun]:
    """The pattern stage for every open day the loaded table-days feed (their days, and the
    later days whose window reaches back to them)."""
    from pipeline.patterns.stage import days_to_search, find_patterns

    settings = catalog.patterns
    days = days_to_search(ledger, {d for _, d in table_days}, settings.window_days)
    runs = []
    for day in days:
        stage(f"patterns {day}")
        runs.append(find_patterns(ledger, day, settings, catalog))
    return runs


# ---------------------------------------------------------------------- exceptions
def _queue_item(row: ledger_exceptions.ExceptionRow) -> dict[str, Any]:
    """An exception of the queue as ``exceptions --json`` gives it, in its key order."""
    return {
        "code": row.code,
        "section": row.section,
        "severity": row.severity,
        "table_id": row.table_id,
        "shoe_id": row.shoe_id,
        "round_id": row.round_id,
        "seat": row.seat,
        "patron_id": row.patron_id,
        "serial": row.serial,
        "expected_cents": row.expected_cents,
        "actual_cents": row.actual_cents,
        "event_ids": list(row.source_event_ids),
        "message": row.message,
        "exception_id": row.exception_id,
        "gaming_date": row.gaming_date,
    }


def cmd_exceptions(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger

    if args.code and args.code not in RULE_CODES:
        near = difflib.get_close_matches(args.code.upper(), RULE_CODES, n=3, cutoff=0.5)
        raise CommandError(
            f"--code {args.code!r} is not a rule code"
            + (f"; did you mean {', '.join(near)}?" if near else "")
            + " (`baccarat-audit rules` lists them all)"
        )
    matching = ledger_exceptions.QueueFilter(args.min_rank, args.table, args.code, args.gaming_day)
    with Ledger(args.db, read_only=True) as ledger:
        if args.table is not None:
            require_known_table(ledger, args.table, args.gaming_day)
        page = ledger_exceptions.exception_queue(ledger, matching, args.limit)
        hidden = ledger_exceptions.hidden_by_rank(ledger, matching)
    total, found = page.total, page.rows
    omitted = total - len(found)
    journal = AckJournal.for_ledger(args.db)
    latest, holders = journal.latest_actions(), journal.holders()
    if args.json:
        rows = [_queue_item(r) for r in found]
        for r in rows:
            ack, held = latest.get(r["exception_id"]), holders.get(r["exception_id"])
            r["status"] = OPEN if ack is None else STATUS_AFTER[ack.action]
            r["acknowledgement"] = (
                None
                if ack is None
                else {
                    "action": ack.action,
                    "actor": ack.actor,
                    "at": ack.acted_at,
                    "note": ack.note,
                }
            )
            r["held_by"] = (
                None
                if held is None
                else {
                    "holder": held.assignee,
                    "assigned_by": held.actor,
                    "at": held.acted_at,
                    "note": held.note,
                }
            )
        print_json(
            {
                "total": total,
                "shown": len(rows),
                "omitted": omitted,
                "hidden_below_min_rank": hidden,
                "journal_verifies": not journal.verify(),
                "items": rows,
            }
        )
        return 0
    for row in found:
        ack, held = latest.get(row.exception_id), holders.get(row.exception_id)
        status = OPEN if ack is None else STATUS_AFTER[ack.action]
        holder = "unassigned" if held is None else f"held by {held.assignee}"
        # device strings and holders' names reach a terminal: control characters are shown,
        # never obeyed
        print(visible(f"{row.exception_id} {status}, {holder}: {row.line()}"))
    if omitted:
        print(
            f"{len(found)} of {total} exceptions shown; {omitted} left out by --limit "
            f"{args.limit} (raise it, or narrow with --table, --code, --gaming-day)"
        )
    elif not found:
        print(f"no exceptions match in {args.db}")
    if hidden:
        counts = " and ".join(f"{n} {severity}" for severity, n in hidden.items())
        noun = "exception" if sum(hidden.values()) == 1 else "exceptions"
        print(
            f"{counts} {noun} hidden by --min-rank {args.min_rank} "
            f"({Severity(args.min_rank).name}); --min-rank 0 shows them"
        )
    return 0


def _authorized(args: argparse.Namespace, *actions: Action) -> Actor:
    """Who acts (the operating-system account, or the user ``--actor`` or
    ``$BACCARAT_ACTOR`` names where the installation's ``[accounts]`` lets that account act
    as them), allowed every one of ``actions`` by the installation's roles file; the roles'
    errors say why not (exit 2, :mod:`pipeline.exits`)."""
    return authorized(args.actor, actions, load_roles())


def _print_seal(seal: dict[str, Any]) -> None:
    """A seal's place in the log (:func:`pipeline.reports.close.seal_summary`)."""
    print(
        f"seal event {seal['seq']}; head link (file it elsewhere, check it with "
        f"`verify --expect-head`): {seal['head_link']}"
    )
    print(f"anchored in {seal['anchor_path']}; reports: {', '.join(seal['reports'])}")


def cmd_close(args: argparse.Namespace) -> int:
    from pipeline.stream.closes import CloseRequest, serving

    request = CloseRequest(
        args.gaming_day,
        accept_quality_failures=args.accept_quality_failures,
        allow_empty=args.allow_empty,
    )
    actor = _authorized(args, *request.actions())
    stream = serving(args.db)
    if stream is not None:
        closed = _closed_by_stream(args, replace(request, actor=actor.name), stream)
    else:
        closed = _closed_here(args, request, actor)
    if args.json:
        print_json(closed)
        return 1 if closed["blocking_exceptions"] else 0
    totals, quality = closed["totals"], closed["quality"]
    print(
        f"gaming day {args.gaming_day}: {closed['status']}; handle "
        f"{money(totals['handle_cents'])}, win {money(totals['win_cents'])}, vigorish "
        f"collected {money(totals['vig_collected_cents'])}, complimentary "
        f"{money(totals['comp_vig_cents'])}; {closed['blocking_exceptions']} blocking exceptions"
    )
    print(
        f"data quality {quality['verdict']}: {quality['evaluated'] - quality['failed']} of "
        f"{quality['evaluated']} expectations met; {len(quality['blocking'])} blocking, "
        f"{len(quality['warnings'])} warnings -> {closed['quality_docs']}"
    )
    if quality["accepted"]:
        print(
            f"blocking quality failures accepted by {actor.name} ({actor.source}): "
            f"{quality['accepted']}"
        )
    if closed["empty_reason"]:
        print(f"closed empty by {actor.name}: {closed['empty_reason']}")
    _print_seal(closed["seal"])
    return 1 if closed["blocking_exceptions"] else 0


def _closed_here(args: argparse.Namespace, request: CloseRequest, actor: Actor) -> dict[str, Any]:
    """The close run by this command, no stream serving the ledger; the closes a stream that
    stopped took and left unanswered are answered first, and said."""
    from pipeline.ledger.store import Ledger
    from pipeline.ledger.working_store import compact
    from pipeline.stream.closes import answer_left_over

    catalog = load_catalog(args.rules)
    with Ledger(args.db) as ledger:
        for told in answer_left_over(args.db, ledger):
            print(f"baccarat-audit close: a close request left over: {told}", file=sys.stderr)
        with progress(f"closing gaming day {args.gaming_day}"):
            try:
                closed = request.close(ledger, args.out, actor, catalog)
            except OSError as err:  # ReportsNotWrittenError says what happens after the seal
                raise CommandError(f"{explain_os(err)}; nothing was sealed") from err
    compacted = compact(args.db)  # the day's rows left the file: readers copy open days only
    if compacted.notice:
        print(f"baccarat-audit close: the day is closed, but {compacted.notice}.", file=sys.stderr)
    return closed


def _closed_by_stream(
    args: argparse.Namespace, request: CloseRequest, stream: dict[str, Any]
) -> dict[str, Any]:
    """The close run by the stream that holds the ledger (:mod:`pipeline.stream.closes`),
    which closes the day beside its batches and writes the reports to its own folder."""
    from pipeline.stream.closes import ask

    where = f"the stream serving {args.db} (pid {stream.get('pid')} on {stream.get('host')})"
    with progress(f"closing gaming day {args.gaming_day} by {where}"):
        try:
            answer = ask(args.db, request, wait=args.wait)
        except TimeoutError as err:
            raise CommandError(str(err), EXIT_TEMPFAIL) from err
        except OSError as err:
            raise CommandError(f"{explain_os(err)}: the close was not asked of {where}") from err
    if not answer["ok"]:
        raise CommandError(f"{where}: {answer['error']}", int(answer["exit"]))
    return dict(answer)


def cmd_report(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger
    from pipeline.reports.close import seal_summary, write_reports

    with Ledger(args.db, read_only=True) as ledger:
        written = write_reports(
            ledger, args.gaming_day, args.out, gaming_day_of(load_catalog(args.rules))
        )
    seal = seal_summary(written)
    if args.json:
        print_json(
            {"gaming_date": args.gaming_day.isoformat(), "status": written.status, "seal": seal}
        )
        return 0
    print(f"gaming day {args.gaming_day}: {written.status}, reports written from the seal")
    _print_seal(seal)
    return 0


def cmd_reopen(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger
    from pipeline.reports.close import reopen_gaming_day

    actor = _authorized(args, Action.REOPEN)
    with Ledger(args.db) as ledger:
        entry = reopen_gaming_day(
            ledger, args.gaming_day, args.reason, actor=actor.name, actor_source=actor.source
        )
    if args.json:
        print_json(
            {
                "gaming_date": args.gaming_day.isoformat(),
                "reason": args.reason,
                "reopened_by": {"actor": actor.name, "source": actor.source},
                "seal": {"seq": entry.seq, "head_link": entry.link},
            }
        )
        return 0
    print(
        f"gaming day {args.gaming_day} reopened by {actor.name} ({actor.source}): {args.reason}; "
        f"seal event {entry.seq}, head link {entry.link}"
    )
    return 0


# ---------------------------------------------------------------------- acknowledgements
def cmd_ack(args: argparse.Namespace) -> int:
    """Acknowledge, escalate or assign exceptions from a script, as the dashboards' form does:
    into the ledger's journal, authenticated, by an actor with the analyst role."""
    from pipeline.ledger.store import Ledger, LedgerError

    if not (args.note or "").strip():
        raise CommandError("--note is required: say why (it is kept with the record)")
    if args.re_sign_unkeyed:
        if args.json:
            raise CommandError(
                "--json goes with recording actions, not with --re-sign-unkeyed: a re-signing "
                "is reviewed by two people, who read its dry run"
            )
        return _re_sign(args)
    if args.approved_by or args.plan:
        raise CommandError("--approved-by and --plan go with --re-sign-unkeyed only")
    if not args.exception_ids or not args.action:
        raise CommandError("give --exception ID (one or more) and --action")
    if (args.action == ASSIGN) != bool((args.assignee or "").strip()):
        raise CommandError(
            "--action ASSIGN needs --assignee NAME (who holds the exceptions from now on), "
            "and --assignee goes with --action ASSIGN only"
        )
    actor = _authorized(args, Action[args.action])
    wanted = list(dict.fromkeys(args.exception_ids))
    try:
        with Ledger(args.db, read_only=True) as ledger:
            ledger_id = ledger.ledger_id
            found = ledger_exceptions.places_of(ledger, wanted)
    except LedgerError as err:
        raise CommandError(f"cannot check the exception ids, nothing recorded: {err}") from err
    unknown = [e for e in wanted if e not in found]
    if unknown:
        raise CommandError(
            f"no exception {', '.join(unknown)} in {args.db}; nothing recorded (list them "
            f"with: baccarat-audit exceptions --db {args.db} --json)"
        )
    if ledger_id is None:
        raise CommandError(
            f"{args.db}: the ledger has no identity (ledger_identity), so no acknowledgement "
            "can be bound to it; nothing recorded: open it once for writing (a ledger from "
            "before migration 17), or restore it from a backup",
            EXIT_NEEDS_PERSON,
        )
    journal = AckJournal.for_ledger(args.db, ledger_id)
    problems = journal.verify()
    if problems:
        raise CommandError(
            f"the journal {journal.path} does not verify, nothing recorded: " + "; ".join(problems),
            EXIT_NEEDS_PERSON,
        )
    recorded = []
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
            assignee=args.assignee,
        )
        closed = None if status in (None, "REOPENED") else status
        recorded.append(
            {
                "exception_id": exception_id,
                "table_id": table_id,
                "gaming_date": gaming_date.isoformat(),
                "action": record.action,
                "assignee": record.assignee,
                "ack_id": record.ack_id,
                "acted_at": record.acted_at,
                "closed_day_status": closed,
            }
        )
        if args.json:  # one object once every record is written
            continue
        # said as each record is written: a later one a witness refuses leaves these standing
        held = f" to {record.assignee}" if record.assignee is not None else ""
        # the holder is typed by a person and reaches a terminal: shown, never obeyed
        print(
            visible(
                f"{record.action}{held} of exception {exception_id} (table {table_id}, gaming "
                f"day {gaming_date}) recorded by {actor.name} ({actor.source}) in {journal.path}"
            )
        )
        if closed is not None:
            print(
                f"  gaming day {gaming_date} is closed ({closed}): this counts at its close "
                "only after it is reopened and closed again"
            )
    if args.json:
        print_json(
            {
                "note": args.note,
                "recorded_by": {"actor": actor.name, "source": actor.source},
                "journal": str(journal.path),
                "recorded": recorded,
            }
        )
    return 0


def _re_sign(args: argparse.Namespace) -> int:
    """Re-sign an unkeyed journal: without ``--approved-by``, a dry run listing every record
    it would sign and what the journal's blocking count becomes; with it, the admin
    (``--actor``) re-signs what the dry run listed (``--plan``), approved by another person
    holding the accountant role, both recorded in every re-signed line."""
    from pipeline.ledger.store import Ledger
    from pipeline.reports.figures import BLOCKING_RANK

    if args.exception_ids or args.action:
        raise CommandError("--re-sign-unkeyed takes no --exception or --action")
    actor = _authorized(args, Action.RE_SIGN_JOURNAL)
    with Ledger(args.db, read_only=True) as ledger:
        ledger_id = ledger.ledger_id
        if ledger_id is None:
            raise CommandError(
                f"{args.db}: the ledger has no identity (ledger_identity), so the journal "
                "cannot be bound to it: nothing re-signed",
                EXIT_NEEDS_PERSON,
            )
        journal = AckJournal.for_ledger(args.db, ledger_id)
        plan = journal.plan_re_sign()
        trusted = [r for r in journal.records() if not r.legacy and r.signature]
        before = blocking_after(ledger, trusted, BLOCKING_RANK)
        after = blocking_after(ledger, plan.records, BLOCKING_RANK)
    if not args.approved_by:
        print(f"dry run: re-signing {journal.path} would sign {len(plan.records)} records:")
        for number, r in enumerate(plan.records, 1):
            print(
                visible(
                    f"  {number}. {r.action} of exception {r.exception_id} (table "
                    f"{r.table_id}, gaming day {r.gaming_date}) by {r.actor} "
                    f"({r.actor_source}) at {r.acted_at}: {r.note}"
                )
            )
        cleared = sorted(set(before) - set(after))
        print(
            f"blocking exceptions (CRITICAL, not acknowledged) by the journal: "
            f"{len(before)} now, {len(after)} once re-signed ({len(cleared)} cleared"
            + (f": {', '.join(cleared)}" if cleared else "")
            + ")"
        )
        print(
            "nothing changed. To re-sign, an accountant other than "
            f"{actor.name} reviews this list and approves: baccarat-audit ack --db {args.db} "
            f"--re-sign-unkeyed --actor {actor.name} --approved-by ACCOUNTANT --plan "
            f"{plan.digest} --note WHY"
        )
        return 0
    approver = _approver(args.approved_by, actor)
    if not args.plan:
        raise CommandError(
            "--approved-by needs --plan DIGEST: the digest the dry run printed, so what was "
            "reviewed is what is re-signed (run --re-sign-unkeyed without --approved-by)"
        )
    count = journal.re_sign_unkeyed(
        actor.name,
        actor.source,
        args.note,
        approver=approver.name,
        approver_source=approver.source,
        plan=args.plan,
    )
    print(
        f"re-signed {count} records of {journal.path} as reviewed by {actor.name} "
        f"({actor.source}) and approved by {approver.name} ({approver.source}); the journal's "
        f"blocking count went from {len(before)} to {len(after)}; the unkeyed original is "
        "kept beside it"
    )
    return 0


def _approver(name: str, actor: Actor) -> Actor:
    """The second person of a re-signing: someone else than ``actor``, holding the
    accountant role (who closes the days the re-signed records count in)."""
    approver = Actor(name.strip(), "--approved-by on the command line")
    if approver.name.casefold() == actor.name.casefold():
        raise CommandError(
            f"{actor.name} cannot approve their own re-signing: --approved-by names another "
            "person, an accountant who reviewed the dry run"
        )
    roles = load_roles()
    authorize(approver, Action.CLOSE, roles)
    if "accountant" not in roles.users.get(approver.name, ()):
        raise CommandError(
            f"{approver.name} does not hold the accountant role in {roles.path}: a re-signing "
            "is approved by an accountant"
        )
    return approver


def cmd_verify(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger
    from pipeline.reports.verify import check

    with Ledger(args.db, read_only=True) as ledger:
        checked = check(ledger, args.anchors, args.expect_head, only_day=args.gaming_day)
    if args.gaming_day is not None and not checked.days_checked:
        print(
            f"gaming day {args.gaming_day} is not closed in {args.db} (never closed, or reopened "
            "since): it has no seal to check its rows against; run verify without --gaming-day "
            "to check the seal log",
            file=sys.stderr,
        )
        return 2
    if args.json:
        print_json(
            {
                "intact": not checked.problems,
                "days_checked": checked.days_checked,
                "head": checked.head,
                "anchors": str(checked.anchors),
                "witnesses": checked.witnesses,
                "problems": list(checked.problems),
            }
        )
        return 1 if checked.problems else 0
    for problem in checked.problems:
        print(problem)
    print(
        f"{checked.days_checked} closed gaming days checked against the seal log (head "
        f"{checked.head or 'none'}, anchors {checked.anchors}, witnesses "
        f"{', '.join(checked.witnesses) or 'none'}); "
        f"{'intact' if not checked.problems else f'{len(checked.problems)} problems'}"
    )
    return 1 if checked.problems else 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger
    from pipeline.reports.groundtruth import compare

    with Ledger(args.db, read_only=True) as ledger:
        comparison = compare(ledger, args.manifest)
    if args.json:
        print_json(comparison.to_json())
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
    tests_dir: Path = args.tests
    sources = (
        {p: p.read_text(encoding="utf-8") for p in tests_dir.rglob("test_*.py")}
        if tests_dir.exists()
        else {}
    )
    covering = {
        code: sorted(p.stem for p, text in sources.items() if code in text) for code in RULE_CODES
    }
    if args.json:
        print_json(
            {
                "rules": [
                    {
                        "code": code,
                        "section": r.citation,
                        "statement": r.statement,
                        "tests": covering[code],
                    }
                    for code, r in RULE_CODES.items()
                ]
            }
        )
        return 0
    print("| code | section | statement | tests |")
    print("| --- | --- | --- | --- |")
    for code, r in RULE_CODES.items():
        print(f"| `{code}` | {r.citation} | {r.statement} | {', '.join(covering[code]) or '-'} |")
    return 0


def cmd_validate_rules(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.file)
    print(f"{args.file}: {len(catalog)} rule configurations, all allowed by N.J.A.C. 19:47")
    return 0


def cmd_validate_roles(args: argparse.Namespace) -> int:
    """Check a candidate roles file (read-only: it grants nothing until an administrator
    installs it as the installation's roles.toml)."""
    roles = read_roles(args.file)
    proxies = ", ".join(map(str, roles.trusted_proxies)) or "none"
    print(
        f"{args.file}: {len(roles.users)} users, {len(roles.accounts)} accounts with "
        f"[accounts] entries, trusted proxies: {proxies}; sha256 {roles.sha256} (it takes "
        "effect only as the installation's roles.toml)"
    )
    return 0


# ---------------------------------------------------------------------- demo
def cmd_demo(args: argparse.Namespace) -> int:
    from pipeline.demo import run_demo

    return run_demo(args)


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except where there is none to show (a flag, an option
    without a default) or its help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in text.lower():
            return action.help
        return super()._get_help_string(action)


class _AuditParser(argparse.ArgumentParser):
    """Every command's parser shows defaults (:class:`_HelpFormatter`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


class _Version(argparse.Action):
    """``--version``: read from the installed package's metadata only when asked, so building
    the parser stays cheap."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("baccarat-audit")
        except PackageNotFoundError:  # run from a checkout that was never installed
            found = "unknown (not installed; pip install -e .)"
        print(f"baccarat-audit {found}")  # on stdout, as argparse's own version action does
        parser.exit()


def _nonblank(text: str) -> str:
    """A reason or a note that goes to an audit trail: something must be said."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is blank: it needs a reason, which is kept on record")
    return text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 1 or more, got {value}")
    return value


def _fault_rates(text: str) -> Mapping[FaultKind, float]:
    try:
        return parse_faults(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _gaming_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    # Typed as the base class: the commands' modules register on plain ArgumentParsers, and
    # the subparsers are of the parent's class (_AuditParser) all the same.
    parser: argparse.ArgumentParser = _AuditParser(
        prog="baccarat-audit",
        description="Surveillance and audit pipeline for New Jersey baccarat (N.J.A.C. 19:47).",
        epilog="Exit codes: 0 fine; 1 a person must act (blocking exceptions, broken seals, a "
        "refused close); 2 bad input or configuration; 141 the reader went away.",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)

    def acting(p: argparse.ArgumentParser) -> None:
        """Options of a state-changing command: who acts (the roles that allow it are the
        installation's, never an option)."""
        p.add_argument(
            "--actor",
            metavar="NAME",
            help="act as NAME, where the installation's roles file lets your operating-system "
            f"account act as NAME ([accounts]); default ${ACTOR_ENV}, else your account",
        )

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--rules",
            type=Path,
            default=DEFAULT_CATALOG,
            metavar="FILE",
            help="rule catalog (TOML) of the casino's filed configurations, time zone and "
            "gaming-day start",
        )

    def emulation(p: argparse.ArgumentParser, faults: str) -> None:
        """What to emulate: shared by ``demo`` and ``simulate``, with the same defaults."""
        p.add_argument("--tables", type=_positive, default=6, help="tables to emulate")
        p.add_argument("--hours", type=float, default=24.0, help="hours of play per table")
        p.add_argument("--seed", type=int, default=1, help="random seed; same seed, same events")
        p.add_argument(
            "--faults",
            type=_fault_rates,
            default=faults,
            help="faults to inject: none, all, or KIND[=RATE],... "
            f"({', '.join(k.value for k in FaultKind)})",
        )
        p.add_argument(
            "--date",
            type=_gaming_date,
            default=DEMO_GAMING_DATE,
            metavar="YYYY-MM-DD",
            help="gaming date to emulate (a fixed date, so runs and the README agree)",
        )

    p = sub.add_parser("demo", help="emulate a gaming day, audit it, and show the results")
    common(p)
    p.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="directory for events, ledger, reports"
    )
    emulation(p, faults="all")
    p.add_argument(
        "--plain",
        action="store_true",
        help="run the audit steps as plain functions, without Prefect",
    )
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("simulate", help="emulate tables and write their events")
    common(p)
    emulation(p, faults="none")
    p.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="directory for events/ and faults.jsonl"
    )
    p.add_argument(
        "--workers",
        type=_positive,
        help="processes emulating and writing table files at once (default: one per core, at "
        "most one per table); the files do not depend on it",
    )
    p.add_argument("--kafka", metavar="BOOTSTRAP", help="publish to Kafka instead of files")
    p.add_argument("--topic", default="table-events", help="Kafka topic (with --kafka)")
    add_json_option(
        p,
        "{gaming_date, tables, hours, events, faults, manifest, events_dir, kafka_topic, seconds}",
    )
    p.set_defaults(func=cmd_simulate)

    for name in ("replay", "ingest"):
        p = sub.add_parser(
            name,
            help="load Avro event files (or directories of them) into the "
            "ledger and replay every table-day they touch",
        )
        common(p)
        add_db_option(p, "the ledger to load into (created if missing)")
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
        add_json_option(
            p,
            "{db, files, files_skipped, events_delivered, events_new, events_redelivered, "
            "dead_letters, dead_letters_resolved, table_days, rounds, exceptions, "
            "exceptions_in_ledger, pattern_days, pattern_exceptions, seconds}",
        )
        p.add_argument(
            "paths",
            type=Path,
            nargs="+",
            metavar="PATH",
            help="Avro event files, or directories searched for them",
        )
        p.set_defaults(func=cmd_ingest)

    p = sub.add_parser(
        "close", help="close a gaming day: quality gate, row seals, seal log, reports"
    )
    common(p)
    add_db_option(p)
    p.add_argument(
        "--gaming-day", type=_gaming_date, required=True, metavar="YYYY-MM-DD", help="day to close"
    )
    p.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT / "reports",
        help="directory for the reports (a stream serving the ledger writes them to its own "
        "--reports directory)",
    )
    p.add_argument(
        "--wait",
        type=float,
        default=900.0,
        metavar="SECONDS",
        help="while a stream holds the ledger, it closes the day between its batches: wait "
        "this long for its answer (default %(default)g; exit 75 after)",
    )
    acting(p)
    p.add_argument(
        "--accept-quality-failures",
        type=_nonblank,
        metavar="REASON",
        help="close even though BLOCK data-quality expectations failed; the reason and the "
        "failures accepted go to the gaming day's audit trail",
    )
    p.add_argument(
        "--allow-empty",
        type=_nonblank,
        metavar="REASON",
        help="seal a day that has no events (refused otherwise: a mistyped or future date); "
        "the reason goes to the seal and the audit trail (not used for a day with events)",
    )
    add_json_option(
        p,
        "{gaming_date, status, blocking_exceptions, totals, quality, quality_docs, "
        f"empty_reason, closed_by: {{actor, source}}, {SEAL_SHAPE}}}",
    )
    p.set_defaults(func=cmd_close)

    p = sub.add_parser(
        "report", help="write a closed day's reports again, byte for byte, from its seal"
    )
    common(p)
    add_db_option(p)
    p.add_argument(
        "--gaming-day", type=_gaming_date, required=True, metavar="YYYY-MM-DD", help="closed day"
    )
    p.add_argument(
        "--out", type=Path, default=DEFAULT_OUT / "reports", help="directory for the reports"
    )
    add_json_option(p, f"{{gaming_date, status, {SEAL_SHAPE}}}")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("reopen", help="reopen a closed gaming day (a seal event, audited)")
    add_db_option(p)
    p.add_argument(
        "--gaming-day", type=_gaming_date, required=True, metavar="YYYY-MM-DD", help="day to reopen"
    )
    p.add_argument(
        "--reason", type=_nonblank, required=True, help="why (kept in the day's audit trail)"
    )
    acting(p)
    add_json_option(
        p, "{gaming_date, reason, reopened_by: {actor, source}, seal: {seq, head_link}}"
    )
    p.set_defaults(func=cmd_reopen)

    p = sub.add_parser(
        "ack",
        help="acknowledge, escalate or assign exceptions (for scripts); recorded in the journal",
        description="Record an action on one or more exceptions in the ledger's "
        "acknowledgement journal, as the dashboards' form does; the actor needs the analyst "
        "role. With --re-sign-unkeyed (admin role), authenticate a journal written before "
        "acknowledgements were, after reviewing it.",
    )
    add_db_option(p, "the ledger (opened read-only; the journal lies beside it)")
    p.add_argument(
        "--exception",
        dest="exception_ids",
        action="append",
        metavar="ID",
        help="exception id (repeat for several)",
    )
    p.add_argument(
        "--action", type=str.upper, choices=ACTIONS, help="what is done with the exceptions"
    )
    p.add_argument("--note", help="why (required, kept with the record)")
    p.add_argument(
        "--assignee", metavar="NAME", help="with --action ASSIGN: who holds the exceptions"
    )
    p.add_argument(
        "--re-sign-unkeyed",
        action="store_true",
        help="sign a journal written before acknowledgements were authenticated (admin): "
        "without --approved-by, a dry run listing what would be signed",
    )
    p.add_argument(
        "--approved-by",
        metavar="ACCOUNTANT",
        help="with --re-sign-unkeyed: the accountant (another person) who approves it",
    )
    p.add_argument(
        "--plan",
        metavar="DIGEST",
        help="with --approved-by: the digest the dry run printed (the journal reviewed)",
    )
    acting(p)
    add_json_option(
        p,
        "{note, recorded_by: {actor, source}, journal, recorded: [{exception_id, table_id, "
        "gaming_date, action, assignee, ack_id, acted_at, closed_day_status}]} "
        "(closed_day_status: the status of a closed day the record counts in only once it is "
        "reopened and closed again, else null; not with --re-sign-unkeyed)",
    )
    p.set_defaults(func=cmd_ack)

    p = sub.add_parser(
        "verify", help="recompute closed days from their rows against the seal log and anchors"
    )
    add_db_option(p)
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
    p.add_argument(
        "--gaming-day",
        type=_gaming_date,
        metavar="YYYY-MM-DD",
        help="recompute only this closed day's rows and archive files (the seal log, anchors, "
        "witnesses and journal are still checked whole); its time does not grow with the days "
        "stored",
    )
    add_json_option(
        p,
        "{intact, days_checked, head, anchors, witnesses, problems}",
    )
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("evaluate", help="compare exceptions with an emulator fault manifest")
    add_db_option(p)
    p.add_argument(
        "--manifest", type=Path, required=True, help="the emulator's faults.jsonl (ground truth)"
    )
    add_json_option(
        p,
        "{by_kind, false_positives, precision, injected, exceptions}",
    )
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser(
        "exceptions",
        help="list exceptions from the ledger, most severe first",
        description="List exceptions, most severe first, each with its id, its status (OPEN, "
        "ESCALATED or ACKNOWLEDGED, by the journal's latest disposition) and who holds it, "
        "and say how many the --limit left out and how many --min-rank hid. Each --json item "
        "carries its status, its acknowledgement (the latest journal record, or null) and "
        "held_by (the latest assignment, or null); hidden_below_min_rank counts by severity.",
    )
    add_db_option(p)
    add_json_option(
        p,
        "{total, shown, omitted, hidden_below_min_rank, journal_verifies, items}",
    )
    p.add_argument(
        "--gaming-day", type=_gaming_date, metavar="YYYY-MM-DD", help="only this gaming day"
    )
    p.add_argument("--table", help="only this table id")
    p.add_argument("--code", help="only this rule code (see `baccarat-audit rules`)")
    p.add_argument(
        "--min-rank",
        type=int,
        choices=range(5),
        default=1,
        help="lowest severity shown: 0 info, 1 low, 2 medium, 3 high, 4 critical",
    )
    p.add_argument("--limit", type=_positive, default=50, help="most exceptions shown")
    p.set_defaults(func=cmd_exceptions)

    p = sub.add_parser("rules", help="print the rule-code table (Markdown, or --json)")
    p.add_argument(
        "--tests", type=Path, default=Path("tests"), help="where to look for covering tests"
    )
    add_json_option(
        p,
        "{rules: [{code, section, statement, tests}]}",
    )
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("validate-rules", help="validate a rule catalog file")
    p.add_argument("file", type=Path, help="the rule catalog (TOML)")
    p.set_defaults(func=cmd_validate_rules)

    p = sub.add_parser(
        "validate-roles", help="check a candidate roles file (grants nothing until installed)"
    )
    p.add_argument("file", type=Path, help="the roles file (TOML)")
    p.set_defaults(func=cmd_validate_roles)

    add_odds_parser(sub)
    add_stream_parser(sub)
    add_merge_shards_parser(sub)
    add_bundle_parser(sub)
    _add_optional_commands(sub)
    return parser


def _add_optional_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Commands whose modules import heavier dependencies, loaded only when used."""
    add_installation_parsers(sub)
    p = sub.add_parser("broker", help="run the bundled Kafka-protocol broker (tansu)")
    p.add_argument("--port", type=int, default=9092, help="TCP port to listen on")
    p.set_defaults(func=cmd_broker)
    p = sub.add_parser(
        "archive",
        help="archive the sealed gaming days not archived yet (Apache Iceberg, beside the "
        "ledger unless the installation's archive.toml says where)",
    )
    add_db_option(p)
    p.set_defaults(func=cmd_archive)


def cmd_archive(args: argparse.Namespace) -> int:
    from pipeline.ledger.archive import archive_sealed_days
    from pipeline.ledger.store import Ledger

    with Ledger(args.db) as ledger:
        manifests = archive_sealed_days(ledger)
    for manifest in manifests:
        files = sum(len(t.files) for t in manifest.tables)
        print(
            f"{manifest.gaming_date} (sealed {manifest.sealed_at}): {manifest.rows} rows in "
            f"{files} files, {manifest.total_bytes} bytes; manifest SHA-256 {manifest.sha256}"
        )
        for table in manifest.tables:
            print(f"  {table.table}: {table.rows} rows")
            for file in table.files:
                print(f"    {file.path} ({file.records} rows, {file.bytes} bytes)")
    print(f"{len(manifests)} sealed gaming days archived and read from the archive")
    return 0


def cmd_broker(args: argparse.Namespace) -> int:
    from pipeline.stream.broker import run_broker

    return run_broker(args.port)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; errors of input, configuration or state become one message on stderr
    and an exit code (:func:`pipeline.exits.explain`), not a traceback."""
    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # the shell asks for completions (README: completion)
        import argcomplete

        argcomplete.autocomplete(parser)  # prints them and exits
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # a usage error (said, with the usage), --help or --version
        return stop.code if isinstance(stop.code, int) else EXIT_BAD_INPUT
    try:
        if getattr(args, "needs_db", False) and args.db is None:
            raise CommandError(
                f"no ledger given: pass --db FILE or set {DB_ENV} (the demo's ledger is "
                f"{DEFAULT_OUT / 'ledger.duckdb'})"
            )
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # inside the try: a closed pipe is found at the last flush too
    except BrokenPipeError:
        # Stop quietly; stdout goes to /dev/null so the interpreter's own flush at exit
        # raises nothing either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        print(f"baccarat-audit {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:
        explained = explain(err)
        if explained is None:
            raise  # a bug: its traceback is what a developer needs
        code, message = explained
        shown = "\n".join(map(visible, message.split("\n")))  # names may come from devices
        print(f"baccarat-audit {args.command}: {shown}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
