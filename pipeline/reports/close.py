"""The gaming-day close: the accountant's figures per pit and table, the Form register, the
exceptions that block the close, and the seal that makes any later change visible.

Order of a close, and why:
1. refused when the day is closed (its last seal event is a CLOSE) or has no deliveries (a
   mistyped or future date) unless an empty close is asked for with a reason;
   the pattern stage (:func:`pipeline.patterns.stage.find_patterns_if_changed`) searches
   the day when it has not since the rows of its window last changed: a streamed day gets
   its informed-betting and dealer-patron exceptions, a replayed one keeps those its replay
   found;
2. the quality gate (:mod:`pipeline.quality.gate`): a failed BLOCK expectation refuses the
   close unless accepted with a reason (audited);
3. one transaction: the day claims its dead letters, the audit trail gets the close, every
   row of the day in every sealed table is digested (:mod:`pipeline.ledger.seal_record`), and a
   CLOSE event is appended to the seal log with the report's SHA-256;
4. after the commit: the new link is appended to the anchor file, then the reports are
   rendered from the sealed ledger and written atomically. A crash here loses nothing that
   ``baccarat-audit report`` (:func:`write_reports`) cannot redo byte for byte.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.bundle.acks import AckJournal
from pipeline.collector import batch_collection
from pipeline.config.catalog import gaming_day_of, load_catalog
from pipeline.config.installation import installation
from pipeline.config.keys import load_keyring, signer
from pipeline.ledger.archive import archive_day
from pipeline.ledger.close_state import (
    claim_dead_letters,
    has_deliveries,
    nearest_days_with_deliveries,
    record_audit,
    record_closed,
    record_reopened,
)
from pipeline.ledger.seal_record import (
    CLOSE,
    REOPEN,
    ROW_TEXT,
    SealEntry,
    append_entry,
    last_entries,
    seal_log,
    seal_rows,
    table_columns,
)
from pipeline.ledger.store import Ledger
from pipeline.ledger.working_store import archived_days, move_in, move_out
from pipeline.patterns.stage import find_patterns_if_changed, settings_of
from pipeline.quality.gate import ACCEPT_ACTION, admit, checked_for_close
from pipeline.reports.figures import (
    BLOCKING_RANK,
    canonical,
    day_report,
    quality_docs,
    sealed_content,
)
from pipeline.reports.render import (
    CloseResult,
    close_status,
    render_html,
    report_files,
    write_atomically,
)
from pipeline.reports.revisions import close_result, write_reopen_notice
from pipeline.reports.seals import (
    ANCHOR_FILE,
    anchor_reference,
    append_anchors,
    default_anchor_path,
    log_state,
    read_anchors,
    seal_time,
    unanchored,
)
from pipeline.reports.verify import day_problems, log_problems, verify
from pipeline.rules.config import TableRules
from pipeline.rules.gaming_day import GamingDay
from pipeline.witness.record import publish

if TYPE_CHECKING:  # Great Expectations loads only when a day is validated
    from pipeline.quality.run import QualityReport

__all__ = [  # what the dashboards and flows use from here
    "BLOCKING_RANK",
    "CloseResult",
    "DayClosedError",
    "EmptyDayError",
    "NotClosedError",
    "ReportsNotWrittenError",
    "SealBrokenError",
    "close_gaming_day",
    "close_summary",
    "day_report",
    "is_closed",
    "render_html",
    "reopen_gaming_day",
    "seal_summary",
    "verify",
    "write_reports",
]

EMPTY_ACTION = "CLOSE_EMPTY_DAY"
"""``gaming_day_audit.action`` of a close of a day without deliveries, with its reason."""


class DayClosedError(RuntimeError):
    """The day is closed; closing it again needs an explicit, audited reopen."""


class EmptyDayError(ValueError):
    """The day has no deliveries: a mistyped or future date, unless said otherwise."""


class NotClosedError(ValueError):
    """The day has no close to report or to reopen."""


class ReportsNotWrittenError(RuntimeError):
    """The day is sealed but its anchor or reports could not be written; ``report`` can."""


class SealBrokenError(RuntimeError):
    """The sealed rows no longer verify; the message lists what changed."""


def is_closed(ledger: Ledger, gaming_date: date) -> bool:
    """Whether the day is sealed (:meth:`~pipeline.ledger.store.Ledger.closed_days`)."""
    return gaming_date in ledger.closed_days()


def _refuse_empty(ledger: Ledger, gaming_date: date) -> None:
    nearest = [str(d) for d in nearest_days_with_deliveries(ledger, gaming_date, 3)]
    raise EmptyDayError(
        f"gaming day {gaming_date} has no events in {ledger.path}: nothing to close (a "
        "mistyped or future date?). "
        + (
            f"The nearest days with events: {', '.join(nearest)}. "
            if nearest
            else "The ledger holds no events at all. "
        )
        + "To seal the day empty anyway, say why: --allow-empty 'REASON' (kept in the seal "
        "and the audit trail)."
    )


@batch_collection()
def close_gaming_day(
    ledger: Ledger,
    gaming_date: date,
    out_dir: Path,
    *,
    actor: str,
    actor_source: str,
    quality: QualityReport | None = None,
    accept_quality_failures: str | None = None,
    allow_empty: str | None = None,
    catalog: Mapping[str, TableRules] | None = None,
) -> CloseResult:
    """Close one gaming day (the steps are in the module docstring).

    ``actor`` closes it; ``actor_source`` says where the name came from (``command line``,
    ``environment``, ``proxy``...); both go to the seal entry and the audit trail.
    ``quality`` is a validation of the day already run (the flows run it as their own step);
    without one, or when the ledger changed since, the day is validated here against
    ``catalog`` (default: the packaged rule catalog). A failed BLOCK expectation raises
    :class:`~pipeline.quality.gate.QualityBlockedError` unless ``accept_quality_failures``
    gives the reason to close anyway. A day without deliveries raises
    :class:`EmptyDayError` unless ``allow_empty`` gives the reason to seal it empty.
    """
    if not actor.strip() or not actor_source.strip():
        raise ValueError("a close needs an actor and where the name came from")
    if is_closed(ledger, gaming_date):
        raise DayClosedError(
            f"gaming day {gaming_date} is closed; to close it again, reopen it with a reason: "
            f"baccarat-audit reopen --gaming-day {gaming_date} --reason '...'"
        )
    if allow_empty is not None and not allow_empty.strip():
        raise ValueError("--allow-empty needs a reason; it is kept in the seal")
    empty = not has_deliveries(ledger, gaming_date)
    if empty and allow_empty is None:
        _refuse_empty(ledger, gaming_date)
    catalog = catalog if catalog is not None else load_catalog()
    if not empty:
        # a day whose patterns were not searched since its rows last changed (a streamed
        # day) gets its informed-betting and dealer-patron exceptions before it is sealed
        find_patterns_if_changed(ledger, gaming_date, settings_of(catalog), catalog)
    checked = checked_for_close(ledger, gaming_date, out_dir, catalog, quality)
    accepted = admit(checked, accept_quality_failures)
    # acknowledgements recorded in the dashboards' journal count at the close
    AckJournal.for_ledger(ledger.path).import_into(ledger, gaming_date)
    sealing = sealing_for(ledger)
    sealed_at = seal_time()
    anchor_path = (out_dir / ANCHOR_FILE).resolve()
    # the anchor file exists before the seal commits, so after a crash between the two
    # `baccarat-audit report` can tell a missing tail from a deleted file
    anchor_path.parent.mkdir(parents=True, exist_ok=True)
    anchor_path.touch()
    reasons = {
        ACCEPT_ACTION: accepted,
        EMPTY_ACTION: allow_empty.strip() if empty and allow_empty else None,
    }

    with ledger.transaction():
        claim_dead_letters(ledger, gaming_date)
        for action, reason in reasons.items():
            if reason is not None:
                record_audit(ledger, gaming_date, action, actor, actor_source, reason, sealed_at)
        content = sealed_content(ledger, gaming_date, sealed_at)
        blocking = len(content["blocking_exceptions"])
        status = close_status(blocking)
        record_audit(ledger, gaming_date, CLOSE, actor, actor_source, status, sealed_at)
        columns = table_columns(ledger)
        table_digests = seal_rows(ledger, gaming_date, sealed_at, ROW_TEXT, columns)
        # the rows sealed become the day's Iceberg partition; the entry covers its manifest
        manifest = archive_day(ledger, gaming_date, sealed_at)
        entry = append_entry(
            ledger,
            gaming_date=gaming_date,
            action=CLOSE,
            actor=actor,
            actor_source=actor_source,
            reason=reasons[EMPTY_ACTION],
            sealed_at=sealed_at,
            status=status,
            blocking_exceptions=blocking,
            report_sha256=hashlib.sha256(canonical(content)).hexdigest(),
            table_digests=table_digests,
            anchor_path=anchor_reference(anchor_path, ledger.path),
            row_text=ROW_TEXT,
            table_columns=columns,
            archive_sha256=manifest.sha256,
            **sealing,
        )
        record_closed(ledger, entry)
        # the sealed rows are read from the archive from now on
        move_out(ledger, gaming_date, sealed_at, manifest.uris())
    try:
        append_anchors(anchor_path, [entry])
        result = sealed_result(ledger, entry, gaming_day_of(catalog))
        result.files = write_atomically(report_files(result, out_dir))
    except OSError as err:
        raise ReportsNotWrittenError(
            f"gaming day {gaming_date} is sealed (seal event {entry.seq}, head link "
            f"{entry.link}), but its anchor or reports could not be written to {out_dir} "
            f"({err}). Nothing is lost: once the place is writable, run baccarat-audit report "
            f"--db {ledger.path} --gaming-day {gaming_date} --out {out_dir}"
        ) from err
    witness_seal_log(ledger)
    return result


def close_summary(closed: CloseResult, actor: str, actor_source: str) -> dict[str, Any]:
    """What a close tells whoever asked for it (``close --json``, and a close a stream ran
    for the command: :mod:`pipeline.stream.closes`): status, totals, quality, who, the seal."""
    return {
        "gaming_date": closed.gaming_date.isoformat(),
        "status": closed.status,
        "blocking_exceptions": closed.blocking,
        "totals": closed.report["totals"],
        "quality": closed.report["quality"],
        "quality_docs": str(closed.quality_docs) if closed.quality_docs else None,
        "empty_reason": closed.seal["reason"],
        "closed_by": {"actor": actor, "source": actor_source},
        "seal": seal_summary(closed),
    }


def seal_summary(closed: CloseResult) -> dict[str, Any]:
    """A seal's place in the log: its event, the head link, the anchor, the reports."""
    return {
        "seq": closed.seal["seq"],
        "head_link": closed.chain_sha256,
        "anchor_path": str(closed.seal["anchor_path"]),
        "reports": [str(f) for f in closed.files],
    }


def sealed_result(ledger: Ledger, entry: SealEntry, gaming_day: GamingDay) -> CloseResult:
    """The close report of a seal entry, computed from the sealed rows, as the revision of
    the day's report it makes (:mod:`pipeline.reports.revisions`); local times on
    ``gaming_day``'s clock."""
    content = sealed_content(ledger, entry.gaming_date, entry.sealed_at)
    docs = quality_docs(ledger, entry.gaming_date)
    return close_result(seal_log(ledger), entry, content, docs, gaming_day)


def write_reports(
    ledger: Ledger, gaming_date: date, out_dir: Path, gaming_day: GamingDay | None = None
) -> CloseResult:
    """Write the close reports of a sealed day again (``baccarat-audit report``), byte for
    byte as its close wrote them (its revision's files and the unnumbered latest; earlier
    revisions are left as they are), and anchor the seal events a close did not get to
    anchor.

    Refused for a day whose last seal event is not a close (:class:`NotClosedError`) and for
    one whose seal log or rows no longer verify (:class:`SealBrokenError`): a report must
    state what was sealed, not what the ledger holds now."""
    log = seal_log(ledger)
    entry = last_entries(log).get(gaming_date)
    if entry is None or entry.action != CLOSE:
        folder = default_anchor_path(log, ledger.path).parent
        raise NotClosedError(
            f"gaming day {gaming_date} is not closed"
            + (
                f" (reopened at seal event {entry.seq}: {folder / 'close-'}{gaming_date}.html "
                "says so, and each earlier close's revision is kept as "
                f"close-{gaming_date}.r<n>.*)"
                if entry
                else ""
            )
            + f"; close it first: baccarat-audit close --gaming-day {gaming_date}"
        )
    problems = log_problems(log, load_keyring())
    problems += day_problems(ledger, entry, archived_days(ledger))
    if problems:
        raise SealBrokenError(
            f"gaming day {gaming_date}: the ledger no longer matches its seal, so no report "
            "is written:\n" + "\n".join(problems)
        )
    anchor_path = default_anchor_path(log, ledger.path)
    # only a tail the file lacks: a missing file is not re-created from the ledger (that
    # would anchor whatever the ledger holds now); the close creates it before sealing
    if anchor_path.exists():
        keyring = load_keyring()
        append_anchors(anchor_path, unanchored(log, read_anchors(anchor_path)[0], keyring))
    result = sealed_result(ledger, entry, gaming_day or gaming_day_of())
    result.files = write_atomically(report_files(result, out_dir))
    witness_seal_log(ledger)
    return result


def reopen_gaming_day(
    ledger: Ledger,
    gaming_date: date,
    reason: str,
    *,
    actor: str,
    actor_source: str,
    gaming_day: GamingDay | None = None,
) -> SealEntry:
    """Reopen a closed day for late data or corrections: a REOPEN seal event (anchored like
    a close) and an audit row; the day is a draft again until it is closed again. The day's
    latest report, beside the anchors, becomes the reopen's notice (local time on
    ``gaming_day``'s clock, default the catalog's): the revision it supersedes keeps its
    files (:mod:`pipeline.reports.revisions`)."""
    if not reason.strip():
        raise ValueError("a reopen needs a reason; it is kept in the audit trail")
    if not actor.strip() or not actor_source.strip():
        raise ValueError("a reopen needs an actor and where the name came from")
    if not is_closed(ledger, gaming_date):
        raise NotClosedError(f"gaming day {gaming_date} is not closed; nothing to reopen")
    sealing = sealing_for(ledger)
    reopened_at = seal_time()
    anchor_path = default_anchor_path(seal_log(ledger), ledger.path)
    with ledger.transaction():
        move_in(ledger, gaming_date)  # a draft again, in the working store
        record_reopened(ledger, gaming_date)
        record_audit(ledger, gaming_date, REOPEN, actor, actor_source, reason, reopened_at)
        entry = append_entry(
            ledger,
            gaming_date=gaming_date,
            action=REOPEN,
            actor=actor,
            actor_source=actor_source,
            reason=reason,
            sealed_at=reopened_at,
            anchor_path=anchor_reference(anchor_path, ledger.path),
            **sealing,
        )
    append_anchors(anchor_path, [entry])
    witness_seal_log(ledger)
    try:
        write_reopen_notice(
            seal_log(ledger), entry, anchor_path.parent, gaming_day or gaming_day_of()
        )
    except OSError as err:
        raise ReportsNotWrittenError(
            f"gaming day {gaming_date} is reopened (seal event {entry.seq}, head link "
            f"{entry.link}), but the notice that says so could not be written to "
            f"{anchor_path.parent} ({err}): its close-{gaming_date}.* files there still state "
            "the last close; the next close writes them anew"
        ) from err
    return entry


def sealing_for(ledger: Ledger) -> dict[str, Any]:
    """What a seal entry is signed and bound with: the installation's seal key (refused
    when this account cannot read it), the ledger's identity and the roles file's digest."""
    inst = installation()
    ledger_id = ledger.ledger_id
    if ledger_id is None:
        raise SealBrokenError(
            f"{ledger.path}: the ledger has no identity (ledger_identity is empty): it was "
            "edited; restore it from a backup before sealing anything"
        )
    return {
        "signer": signer("seal", inst),
        "ledger_id": ledger_id,
        "roles_sha256": inst.roles_sha256(),
    }


def witness_seal_log(ledger: Ledger) -> None:
    """Send the seal log's new head to the installation's witnesses (see
    :func:`pipeline.witness.record.publish`); :class:`NotWitnessedError` when one did not
    keep it (the entry stands; ``witness sync`` sends it again)."""
    ledger_id = ledger.ledger_id
    if ledger_id is not None:
        publish(log_state(seal_log(ledger), ledger_id, ledger.path), installation())
