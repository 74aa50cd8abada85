"""The close report's files (JSON, CSV, HTML): pure functions of the sealed content and its
seal entry, so ``baccarat-audit report`` regenerates them byte for byte, and written
atomically (a temporary file renamed over the target), so a reader never sees half a report.
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from pipeline.config.catalog import gaming_day_of
from pipeline.replay.findings import money
from pipeline.rules.gaming_day import GamingDay, micros_of
from pipeline.safe_text import csv_cell, html_text


@dataclass
class CloseResult:
    gaming_date: date
    report: dict[str, Any]
    report_sha256: str
    chain_sha256: str
    """The seal link (HMAC) of this close: the ledger's head when the day was sealed."""
    previous_chain_sha256: str | None
    """The link before it in the seal log (any day's)."""
    blocking: int
    files: list[Path]
    quality_docs: Path | None = None
    """The Data Docs page of the validation the close relied on."""
    seal: dict[str, Any] = field(default_factory=dict)
    """The seal entry (seq, time, actor, digests...); empty for a page drawn from the ledger
    as it is rather than from a seal."""
    gaming_day: GamingDay = field(default_factory=gaming_day_of)
    """The casino's gaming day (the catalog's), for the local times the report shows."""

    @property
    def status(self) -> str:
        return close_status(self.blocking)


def close_status(blocking: int) -> str:
    """A closed day's status: whether exceptions still blocked it when it was sealed."""
    return "CLOSED" if blocking == 0 else "CLOSED_WITH_BLOCKING_EXCEPTIONS"


def report_files(result: CloseResult, out_dir: Path) -> dict[Path, bytes]:
    """The close-<date>.json/.csv/.html files of a sealed close, by path."""
    stem = out_dir / f"close-{result.gaming_date.isoformat()}"
    report = result.report
    document = {**report, "report_sha256": result.report_sha256, "seal": result.seal}
    text = io.StringIO(newline="")
    # the day's quality verdict on every row, so a spreadsheet of tables carries it
    columns = [*(report["tables"][0] if report["tables"] else ["table_id"]), "quality"]
    writer = csv.DictWriter(text, fieldnames=columns)
    writer.writeheader()
    verdict = report["quality"]["verdict"]
    writer.writerows(
        {k: csv_cell(v) for k, v in {**t, "quality": verdict}.items()} for t in report["tables"]
    )
    docs = os.path.relpath(result.quality_docs, out_dir) if result.quality_docs else None
    return {
        stem.with_suffix(".json"): json.dumps(document, indent=2, default=str).encode(),
        stem.with_suffix(".csv"): text.getvalue().encode(),
        stem.with_suffix(".html"): render_html(report, result, docs).encode(),
    }


def write_atomically(files: dict[Path, bytes]) -> list[Path]:
    """Write each file to a temporary name beside it, flush it to disk, then rename it over
    the target: a crash leaves the old file or the new one, never a torn one."""
    for path, content in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.partial")
        with temporary.open("wb") as fo:
            fo.write(content)
            fo.flush()
            os.fsync(fo.fileno())
        os.replace(temporary, path)
    return list(files)


def _seal_html(result: CloseResult) -> str:
    seal = result.seal
    if not seal:  # a page drawn from the ledger as it is (the dashboards' download)
        return (
            f"<p>Report SHA-256 <code>{html_text(result.report_sha256)}</code>, seal link "
            f"<code>{html_text(result.chain_sha256)}</code>.</p>"
        )
    reason = f"; reason: {html_text(str(seal['reason']))}" if seal["reason"] else ""
    sealed_at = seal["sealed_at"]
    local = (
        f" ({result.gaming_day.local(micros_of(sealed_at.replace(tzinfo=UTC)))})"
        if isinstance(sealed_at, datetime)
        else ""
    )
    return (
        f"<p>Sealed as seal event {seal['seq']} at {html_text(str(sealed_at))} UTC{local} by "
        f"{html_text(str(seal['actor']))} ({html_text(str(seal['actor_source']))}){reason}. "
        f"Report SHA-256 <code>{result.report_sha256}</code>.</p>"
        f"<p>Seal link, the ledger's head when this day was sealed (file it elsewhere; "
        f"<code>baccarat-audit verify --expect-head</code> checks it): "
        f"<code>{result.chain_sha256}</code> (previous <code>{result.previous_chain_sha256}</code>;"
        f" anchored in <code>{html_text(str(seal['anchor_path']))}</code>).</p>"
    )


def _window_html(result: CloseResult) -> str:
    """When the day began and ended on the casino's clock: 23 or 25 hours across a
    daylight-saving change, which the figures below cover."""
    day = result.gaming_day
    start, end = day.bounds_micros(result.gaming_date)
    return (
        f"<p>Gaming day {result.gaming_date}: from {html_text(day.local(start))} to "
        f"{html_text(day.local(end))} ({day.hours(result.gaming_date):g} hours, "
        f"{html_text(day.zone.key)}).</p>"
    )


def render_html(report: dict[str, Any], result: CloseResult, quality_docs: str | None) -> str:
    def table(rows: list[dict[str, Any]], money_cols: set[str]) -> str:
        if not rows:
            return "<p>None.</p>"
        head = "".join(f"<th>{html_text(k)}</th>" for k in rows[0])
        body = "".join(
            "<tr>"
            + "".join(
                f"<td>{html_text(money(v) if k in money_cols and v is not None else str(v))}</td>"
                for k, v in r.items()
            )
            + "</tr>"
            for r in rows
        )
        return f"<table><tr>{head}</tr>{body}</table>"

    cents = {k for k in (report["tables"][0] if report["tables"] else {}) if k.endswith("_cents")}
    cents |= {"recorded_win_cents", "expected_win_cents", "amount_cents"}
    totals = report["totals"]
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>Gaming day close {report["gaming_date"]}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #999;padding:3px 8px;text-align:right}}th{{background:#eee}}</style>
</head><body>
<h1>Gaming day close {report["gaming_date"]}: {result.status}</h1>
{_window_html(result)}
<p>Handle {money(totals["handle_cents"])}; win {money(totals["win_cents"])} (hold
{totals["hold_pct"]} % of handle); vigorish collected {money(totals["vig_collected_cents"])},
uncollected without a Form {money(totals["vig_uncollected_cents"])}, documented on Forms as
complimentaries {money(totals["comp_vig_cents"])} (N.J.A.C. 19:47-3.3(c)3vii).</p>
{_seal_html(result)}
{quality_html(report["quality"], quality_docs)}
<h2>Tables</h2>{table(report["tables"], cents)}
<h2>Win by wager type</h2>{table(report["win_by_wager"], cents)}
<h2>Complimentary Vigorish Forms</h2>{table(report["forms"], cents)}
<h2>Unmatched originals and duplicates</h2>{table(report["unmatched_form_copies"], cents)}
<h2>Exceptions by code</h2>{table(report["exceptions_by_code"], set())}
<h2>Blocking exceptions (critical; not acknowledged, or escalated since)</h2>
{table(report["blocking_exceptions"][:200], set())}
<h2>Dead letters of this gaming day</h2>{table(report["dead_letters"], set())}
</body></html>"""


def quality_html(quality: dict[str, Any], docs: str | None) -> str:
    """The close report's data-quality paragraph: verdict, failures by level, Data Docs link."""
    met = quality["evaluated"] - quality["failed"]
    text = (
        f"<h2>Data quality: {html_text(quality['verdict'])}</h2><p>{met} of "
        f"{quality['evaluated']} expectations met; {len(quality['blocking'])} blocking, "
        f"{len(quality['warnings'])} warnings (reported by the replay as NJ-DATA-* exceptions)."
    )
    if quality["accepted"]:
        text += f" Blocking failures accepted: {html_text(quality['accepted'])}."
    if docs is not None:
        text += f' Details: <a href="{html_text(docs)}">{html_text(docs)}</a>.'
    text += "</p>"
    failures = quality["blocking"] + quality["warnings"]
    if not failures:
        return text
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{html_text(str(f[k]))}</td>"
            for k in ("level", "frame", "expectation", "unexpected_count", "element_count")
        )
        + "</tr>"
        for f in failures
    )
    return (
        f"{text}<table><tr><th>level</th><th>frame</th><th>expectation</th>"
        f"<th>rows failing</th><th>rows</th></tr>{rows}</table>"
    )
