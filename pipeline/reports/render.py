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
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

from pipeline.config.catalog import gaming_day_of
from pipeline.replay.findings import money
from pipeline.reports.labels import heading, money_columns
from pipeline.reports.pits import day_totals, pit_sections, pit_subtotals
from pipeline.rules.gaming_day import GamingDay, instant_of, micros_of
from pipeline.safe_text import csv_cell, visible


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
    revision: int = 0
    """Which close of the day this is, 1 for the first (:mod:`pipeline.reports.revisions`);
    0 for a page drawn from the ledger as it is."""
    reopens: list[dict[str, Any]] = field(default_factory=list)
    """The reopens of the day since its previous close, each with its seal event, time,
    actor and reason (:func:`pipeline.reports.revisions.reopen_record`)."""

    @property
    def status(self) -> str:
        return close_status(self.blocking)


def close_status(blocking: int) -> str:
    """A closed day's status: whether exceptions still blocked it when it was sealed."""
    return "CLOSED" if blocking == 0 else "CLOSED_WITH_BLOCKING_EXCEPTIONS"


DOCUMENT_KEYS = ("report_sha256", "seal", "revision", "reopened_since_previous_close", "rendered")
"""The keys of the JSON report beside the sealed content: what the seal log and the
rendering add to the figures its ``report_sha256`` covers."""


def day_span(gaming_day: GamingDay, gaming_date: date) -> dict[str, Any]:
    """The gaming day's span on the casino's clock, as every report format states it: its
    start and end in ISO 8601 with their UTC offsets, the same as a person reads them (with
    the zone's abbreviation), and its length, 23, 24 or 25 hours across a daylight-saving
    change (:class:`~pipeline.rules.gaming_day.GamingDay`)."""
    start, end = (
        instant_of(micros).astimezone(gaming_day.zone)
        for micros in gaming_day.bounds_micros(gaming_date)
    )
    hours = gaming_day.hours(gaming_date)

    def read(moment: datetime) -> str:
        return f"{moment:%Y-%m-%d %H:%M:%S %Z} (UTC{moment.isoformat()[-6:]})"

    return {
        "zone": gaming_day.zone.key,
        "starts_at": start.isoformat(),
        "ends_at": end.isoformat(),
        "hours": int(hours) if hours.is_integer() else hours,
        "starts": read(start),
        "ends": read(end),
    }


def revision_name(gaming_date: date, revision: int) -> str:
    """The stem of a close's report files: ``close-<date>.r<revision>``; the unnumbered
    ``close-<date>`` holds the day's latest (a copy of its newest revision, or the notice of
    a reopen)."""
    latest = f"close-{gaming_date.isoformat()}"
    return f"{latest}.r{revision}" if revision else latest


def report_files(result: CloseResult, out_dir: Path) -> dict[Path, bytes]:
    """The close-<date>.r<revision>.json/.csv/.html/.xlsx files of a sealed close, by path,
    and the same bytes under the unnumbered names (the day's latest report)."""
    from pipeline.reports.spreadsheet import workbook  # XlsxWriter only when writing one

    report = result.report
    span = day_span(result.gaming_day, result.gaming_date)
    docs = os.path.relpath(result.quality_docs, out_dir) if result.quality_docs else None
    document = {
        **report,
        "report_sha256": result.report_sha256,
        "seal": result.seal,
        "revision": result.revision,
        "reopened_since_previous_close": result.reopens,
        "rendered": {
            "quality_docs": docs,
            "gaming_day_starts": result.gaming_day.starts.isoformat(),
            "gaming_day_zone": result.gaming_day.zone.key,
            "gaming_day_span": span,
            "blocking_exceptions": result.blocking,
        },
    }
    text = io.StringIO(newline="")
    # the day's quality verdict and span on every row, so a spreadsheet of tables carries them
    day = {
        "quality": report["quality"]["verdict"],
        "gaming_day_starts_at": span["starts_at"],
        "gaming_day_ends_at": span["ends_at"],
        "gaming_day_hours": span["hours"],
    }
    columns = [*(report["tables"][0] if report["tables"] else ["table_id"]), *day]
    writer = csv.DictWriter(text, fieldnames=columns)
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in {**t, **day}.items()} for t in report["tables"])
    contents = {
        ".json": json.dumps(document, indent=2, default=str).encode(),
        ".csv": text.getvalue().encode(),
        ".html": render_html(report, result, docs).encode(),
        ".xlsx": workbook(result),
    }
    # the revision's files first, then the latest: a crash between leaves the sealed ones
    stems = dict.fromkeys(revision_name(result.gaming_date, n) for n in (result.revision, 0))
    return {
        out_dir / f"{stem}{suffix}": content
        for stem in stems
        for suffix, content in contents.items()
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


COMP_VIG_CITATION = "N.J.A.C. 19:47-3.3(c)3vii"
"""Where Forms' amounts are reported as complimentaries."""


@functools.cache
def report_templates() -> jinja2.Environment:
    """The Jinja2 environment of the report pages: autoescaping, strict, with the filters
    that make ledger values visible text."""
    import jinja2  # only the commands that write a report pay for it

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("pipeline.reports", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    environment.filters["text"] = lambda value: visible("" if value is None else str(value))
    environment.filters["dollars"] = money
    environment.filters["cell"] = _cell
    environment.filters["heading"] = heading
    return environment


def _cell(value: object, is_money: bool) -> str:
    if value is None:
        return ""
    if is_money and isinstance(value, int):
        return money(value)
    return visible(str(value))


def render_html(report: dict[str, Any], result: CloseResult, quality_docs: str | None) -> str:
    """The close report as one HTML page, from a Jinja2 template with autoescaping; it fits
    a 1400-pixel window without scrolling sideways, and a print stylesheet lays it out on
    landscape pages. Times are shown on the casino's clock too: the day's span
    (:func:`day_span`) and the seal. The tables come by pit, each with its subtotal, then
    the day's totals (:mod:`pipeline.reports.pits`)."""
    day = result.gaming_day
    pits = pit_sections(report["tables"])
    sealed_at = result.seal.get("sealed_at") if result.seal else None
    sealed_local = (
        day.local(micros_of(sealed_at.replace(tzinfo=UTC)))
        if isinstance(sealed_at, datetime)
        else None
    )
    reopens = [
        {**reopen, "local": day.local(micros_of(reopen["reopened_at"].replace(tzinfo=UTC)))}
        for reopen in result.reopens
    ]
    template = report_templates().get_template("close.html.j2")
    return template.render(
        revision=result.revision,
        reopens=reopens,
        report=report,
        totals=report["totals"],
        quality=report["quality"],
        quality_docs=quality_docs,
        status=result.status,
        seal=result.seal,
        report_sha256=result.report_sha256,
        chain_sha256=result.chain_sha256,
        previous_chain_sha256=result.previous_chain_sha256,
        comp_citation=COMP_VIG_CITATION,
        money_columns=money_columns(report),
        no_money=frozenset(),
        span=day_span(day, result.gaming_date),
        blocking=result.blocking,
        pits=pits,
        pit_subtotals=pit_subtotals(pits),
        day_totals=day_totals(pits),
        sealed_local=sealed_local,
    )
