"""The close report's files (JSON, CSV, HTML): pure functions of the sealed content and its
seal entry, so ``baccarat-audit report`` regenerates them byte for byte, and written
atomically (a temporary file renamed over the target), so a reader never sees half a report.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.config.catalog import gaming_day_of
from pipeline.replay.findings import money
from pipeline.rules.gaming_day import GamingDay, micros_of
from pipeline.safe_text import csv_cell, visible

if TYPE_CHECKING:
    import jinja2  # loaded when a report is drawn, not when the command line starts


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


MONEY_COLUMNS = frozenset({"recorded_win_cents", "expected_win_cents", "amount_cents"})
"""Integer-cent columns beyond the ``*_cents`` of the tables' rows: shown as dollars."""


def _label(column: str, money_columns: Collection[str]) -> str:
    """A column header an accountant reads: ``handle_cents`` is "handle ($)", ``hold_pct``
    "hold (%)"."""
    if column in money_columns:
        return f"{column.removesuffix('_cents').replace('_', ' ')} ($)"
    if column.endswith("_pct"):
        return f"{column.removesuffix('_pct').replace('_', ' ')} (%)"
    return column.replace("_", " ")


def _shown(value: object) -> object:
    """Every value the template prints, before autoescaping: control characters and bidi
    overrides from device strings made visible, never obeyed."""
    return visible(value) if isinstance(value, str) else value


@functools.cache
def _template() -> jinja2.Template:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pipeline.reports", "templates"),
        autoescape=True,
        finalize=_shown,
        undefined=jinja2.StrictUndefined,  # a field the report lacks is an error, not ""
        keep_trailing_newline=True,
    )
    env.filters["dollars"] = money
    env.filters["label"] = _label
    return env.get_template("close.html.j2")


def render_html(report: dict[str, Any], result: CloseResult, quality_docs: str | None) -> str:
    """The close report as HTML (``templates/close.html.j2``, autoescaped), with a print
    stylesheet that fits a landscape A4 page."""
    day = result.gaming_day
    start, end = day.bounds_micros(result.gaming_date)
    sealed_at = result.seal.get("sealed_at")
    rows = report["tables"][0] if report["tables"] else {}
    return _template().render(
        report=report,
        result=result,
        totals=report["totals"],
        quality=report["quality"],
        quality_docs=quality_docs,
        seal=result.seal,
        sealed_local=(
            day.local(micros_of(sealed_at.replace(tzinfo=UTC)))
            if isinstance(sealed_at, datetime)
            else None
        ),
        day_start=day.local(start),
        day_end=day.local(end),
        day_hours=f"{day.hours(result.gaming_date):g}",
        zone=day.zone.key,
        money_columns=MONEY_COLUMNS | {k for k in rows if k.endswith("_cents")},
    )
