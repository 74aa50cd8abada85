"""The quality gate of the gaming-day close: a day whose data fails a BLOCK expectation is not
closed, and every validation is stored in the ledger with its gaming day.

The close (:func:`pipeline.reports.close.close_gaming_day`) calls :func:`checked_for_close`
first. A failure stops it with :class:`QualityBlockedError`, whose message names each
failing expectation, its frame and sample rows, and the two ways forward: fix the input and
replay the day, or close with an explicit, audited acceptance of the failures.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.ledger.quality_results import add_result, day_fingerprint, results_of_day
from pipeline.ledger.store import Ledger
from pipeline.quality.levels import Level
from pipeline.rules.config import TableRules
from pipeline.safe_text import visible

if TYPE_CHECKING:  # Great Expectations loads in seconds: only when a day is validated
    from pipeline.quality.run import ExpectationOutcome, QualityReport

ACCEPT_ACTION = "ACCEPT_QUALITY_FAILURES"
"""``gaming_day_audit.action`` of a close that went ahead despite BLOCK failures."""

SAMPLE_ROWS = 3
"""How many offending rows the refusal quotes per expectation (the JSON file has more)."""


class QualityBlockedError(RuntimeError):
    """The day's data fails a BLOCK expectation; the close is refused."""

    def __init__(self, report: QualityReport) -> None:
        self.report = report
        super().__init__(refusal(report))


def refusal(report: QualityReport) -> str:
    """Why the close is refused and what to do, naming every blocking failure."""
    day = report.gaming_date.isoformat()
    blocking = report.blocking()
    lines = [
        f"gaming day {day} is not closed: {len(blocking)} blocking data-quality "
        f"expectation(s) failed ({report.evaluated - report.failed} of {report.evaluated} "
        "met); the day's figures cannot be trusted as they stand:"
    ]
    for outcome in blocking:
        lines.append(f"  - {_failure(outcome)}")
        lines.append(f"    why it blocks: {outcome.why}")
    if report.warnings():
        lines.append(
            f"  ({len(report.warnings())} warning(s) also failed; they do not block: "
            f"{', '.join(w.name for w in report.warnings())})"
        )
    files = [str(p) for p in (report.result_file, report.docs_file) if p is not None]
    if files:
        lines.append(f"Every result and offending row: {' and '.join(files)}.")
    lines.append(
        "Fix the input (the event files, or the ledger rows named above) and replay the day "
        "(baccarat-audit replay), then close again; or, if the failure is understood, close "
        f"with a reason (baccarat-audit close --db LEDGER --gaming-day {day} "
        "--accept-quality-failures 'REASON'), which the gaming day's audit trail keeps."
    )
    # printed to a terminal: a device string's ESC or bidi override must not act on it
    return "\n".join(visible(line) for line in lines)


def _failure(o: ExpectationOutcome) -> str:
    if o.error:
        return f"{o.name}: could not be evaluated ({o.error})"
    if o.unexpected_count is None:
        return f"{o.name}: observed {o.observed_value!r}"
    rows = o.unexpected_rows[:SAMPLE_ROWS] or o.unexpected_sample[:SAMPLE_ROWS]
    return f"{o.name}: {o.unexpected_count} of {o.element_count} rows fail, e.g. {rows}"


def checked_for_close(
    ledger: Ledger,
    gaming_date: date,
    out_dir: Path,
    catalog: Mapping[str, TableRules],
    given: QualityReport | None = None,
) -> QualityReport:
    """The validation the close relies on: ``given`` when it was run on the ledger as it is
    now (same :func:`~pipeline.ledger.quality_results.day_fingerprint`), else a fresh one on the
    close's own connection, with its files written to ``out_dir``. Either way it is stored
    with the day (:func:`store_result`) before the close looks at it."""
    report = given
    from pipeline.quality.run import validate_day, write_results

    if report is None or report.fingerprint != day_fingerprint(ledger, gaming_date):
        report = validate_day(ledger, gaming_date, catalog)
        write_results(report, out_dir)
    with ledger.transaction():
        store_result(ledger, report)
    return report


def admit(report: QualityReport, accept_reason: str | None) -> str | None:
    """Raise :class:`QualityBlockedError` when ``report`` has BLOCK failures and no reason to
    accept them; return what the audit trail must record when they were accepted."""
    if accept_reason is not None and not accept_reason.strip():
        raise ValueError("--accept-quality-failures needs a reason; it is kept in the audit trail")
    blocking = report.blocking()
    if not blocking:
        return None
    if accept_reason is None:
        raise QualityBlockedError(report)
    return f"{accept_reason.strip()} (accepted: {'; '.join(o.name for o in blocking)})"


def store_result(ledger: Ledger, report: QualityReport) -> None:
    """Keep a validation in ``quality_results`` with its gaming day: the verdict and counts,
    and every expectation's outcome (level, counts, sample rows) as JSON. Every run is kept;
    the close reports the one it relied on."""
    from pipeline.quality.run import json_default

    summary = {k: v for k, v in report.to_json(with_passing=False).items() if k != "suites"}
    summary["suites"] = [
        {k: s[k] for k in ("name", "success", "evaluated", "failed", "rows", "seconds")}
        for s in report.to_json(with_passing=False)["suites"]
    ]
    summary["files"] = [str(p) for p in (report.result_file, report.docs_file) if p]
    outcomes = [asdict(o) for s in report.suites for o in s.expectations]
    add_result(
        ledger,
        gaming_date=report.gaming_date,
        validated_at=datetime.now(UTC),
        verdict=report.verdict,
        evaluated=report.evaluated,
        failed=report.failed,
        blocking=len(report.blocking()),
        warnings=len(report.warnings()),
        fingerprint=report.fingerprint,
        summary_json=json.dumps(summary, default=json_default),
        expectations_json=json.dumps(outcomes, default=json_default),
    )


def close_section(report: QualityReport, accepted: str | None) -> dict[str, Any]:
    """What the close report states about the data quality (hashed with the close, so only
    what the data determines: no timings or paths)."""
    return {
        "verdict": report.verdict,
        "evaluated": report.evaluated,
        "failed": report.failed,
        "blocking": [_brief(o) for o in report.blocking()],
        "warnings": [_brief(o) for o in report.warnings()],
        "accepted": accepted,
    }


def stored_section(ledger: Ledger, gaming_date: date) -> dict[str, Any]:
    """:func:`close_section` for the latest validation stored with the day (what the
    dashboards show before the close); ``NOT VALIDATED`` when none is stored."""
    stored = results_of_day(ledger, gaming_date)
    if not stored:
        return {
            "verdict": "NOT VALIDATED",
            "evaluated": 0,
            "failed": 0,
            "blocking": [],
            "warnings": [],
            "accepted": None,
        }
    latest = stored[-1]
    failing = [o for o in latest["expectations"] if not o["success"]]
    return {
        "verdict": latest["verdict"],
        "evaluated": latest["evaluated"],
        "failed": latest["failed"],
        "blocking": [_brief(o) for o in failing if o["level"] == Level.BLOCK],
        "warnings": [_brief(o) for o in failing if o["level"] == Level.WARN],
        "accepted": None,
    }


def _brief(outcome: ExpectationOutcome | Mapping[str, Any]) -> dict[str, Any]:
    """An expectation's outcome as the close report states it, from the outcome or from its
    stored form (``dataclasses.asdict``)."""
    o = outcome if isinstance(outcome, Mapping) else asdict(outcome)
    return {
        "level": str(o["level"]),
        "frame": f"{o['suite']}.{o['frame']}",
        "expectation": o["description"] or o["expectation"],
        "unexpected_count": o["unexpected_count"],
        "element_count": o["element_count"],
    }
