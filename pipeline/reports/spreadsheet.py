"""The close report as a spreadsheet workbook (``close-<date>.xlsx``, XlsxWriter), the form an
accountant files and works in.

The cents in the report are the record; the workbook shows them as dollars: each money cell
holds the cents divided by 100 (the nearest double, which always rounds back to the same
cent) under a two-decimal dollar format. Every string goes in as a string (never a formula
or a link, whatever it starts with) and with invisible characters shown. The workbook's
creation time is the seal's, and nothing else in it varies, so ``baccarat-audit report``
regenerates it byte for byte.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import xlsxwriter
from xlsxwriter.format import Format
from xlsxwriter.worksheet import Worksheet

from pipeline.reports.labels import heading, money_columns
from pipeline.reports.pits import day_totals, pit_sections, pit_subtotals
from pipeline.reports.render import CloseResult, day_span
from pipeline.safe_text import visible

PITS_SHEET = "Pits and totals"
"""The sheet after the summary: each pit's tables with their subtotal, then the day's totals
(:mod:`pipeline.reports.pits`)."""

SHEETS = (
    ("Tables", "tables"),
    ("Win by wager", "win_by_wager"),
    ("Recorded vs recomputed", "reconciliation"),
    ("Forms", "forms"),
    ("Unmatched copies", "unmatched_form_copies"),
    ("Exceptions by code", "exceptions_by_code"),
    ("Blocking exceptions", "blocking_exceptions"),
    ("Dead letters", "dead_letters"),
)
"""Each sheet after the pits', and the report list it holds."""

UNSEALED_TIME = datetime(2000, 1, 1)
"""The creation time of a workbook drawn from the ledger as it is, not from a seal."""

TOTALS = (
    ("Handle", "handle_cents"),
    ("Win", "win_cents"),
    ("Vigorish collected", "vig_collected_cents"),
    ("Vigorish uncollected without a Form", "vig_uncollected_cents"),
    ("Vigorish documented on Forms as complimentaries", "comp_vig_cents"),
)


class _Cells:
    """Writes typed cells: strings as strings, cents as dollars, whole numbers as numbers."""

    def __init__(self, book: xlsxwriter.Workbook) -> None:
        money_format = {"num_format": "$#,##0.00;-$#,##0.00"}
        self.dollars: Format = book.add_format(money_format)
        self.bold_dollars: Format = book.add_format({**money_format, "bold": True})
        self.bold: Format = book.add_format({"bold": True})

    def put(
        self, sheet: Worksheet, row: int, col: int, value: Any, is_money: bool, bold: bool = False
    ) -> None:
        if value is None:
            return
        if is_money and isinstance(value, int):
            sheet.write_number(row, col, value / 100, self.bold_dollars if bold else self.dollars)
        elif isinstance(value, bool) or not isinstance(value, int | float):
            sheet.write_string(row, col, visible(str(value)), self.bold if bold else None)
        else:
            sheet.write_number(row, col, value, self.bold if bold else None)

    def block(
        self,
        sheet: Worksheet,
        top: int,
        rows: Sequence[dict[str, Any]],
        money: frozenset[str],
        total: tuple[str, dict[str, Any]],
    ) -> int:
        """``rows`` under a header at row ``top``, then the labelled total of their added-up
        columns in bold; returns the next free row."""
        columns = list(rows[0])
        for col, column in enumerate(columns):
            sheet.write_string(top, col, heading(column, money), self.bold)
        for r, row in enumerate(rows, start=top + 1):
            for col, column in enumerate(columns):
                self.put(sheet, r, col, row.get(column), column in money)
        label, added = total
        last = top + len(rows) + 1
        sheet.write_string(last, 0, label, self.bold)
        for col, column in enumerate(columns[1:], start=1):
            self.put(sheet, last, col, added.get(column), column in money, bold=True)
        return last + 2

    def grid(self, sheet: Worksheet, rows: Sequence[dict[str, Any]], money: frozenset[str]) -> None:
        if not rows:
            sheet.write_string(0, 0, "None.")
            return
        columns = list(rows[0])
        for col, column in enumerate(columns):
            sheet.write_string(0, col, heading(column, money), self.bold)
            sheet.set_column(col, col, max(12, min(60, len(heading(column, money)) + 2)))
        for r, row in enumerate(rows, start=1):
            for col, column in enumerate(columns):
                self.put(sheet, r, col, row.get(column), column in money)
        sheet.freeze_panes(1, 0)
        sheet.autofilter(0, 0, len(rows), len(columns) - 1)


def workbook(result: CloseResult, draft: str | None = None) -> bytes:
    """The close report of ``result`` as .xlsx bytes; ``draft`` says why the figures are
    not a sealed close (the dashboards' download of a day not closed), on the first line."""
    report = result.report
    money = money_columns(report)
    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(
        buffer,
        {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False},
    )
    sealed_at = result.seal.get("sealed_at") if result.seal else None
    created = UNSEALED_TIME
    if isinstance(sealed_at, datetime):
        created = sealed_at.astimezone(UTC).replace(tzinfo=None) if sealed_at.tzinfo else sealed_at
    book.set_properties({"title": f"Gaming day close {report['gaming_date']}", "created": created})
    cells = _Cells(book)
    summary = book.add_worksheet("Summary")
    summary.set_column(0, 0, 48)
    summary.set_column(1, 1, 70)
    span = day_span(result.gaming_day, result.gaming_date)
    lines: list[tuple[str, Any, bool]] = [
        *((("DRAFT", draft, False),) if draft else ()),
        ("Gaming day", str(report["gaming_date"]), False),
        ("Starts", span["starts"], False),
        ("Ends", span["ends"], False),
        ("Hours", span["hours"], False),
        ("Time zone", span["zone"], False),
        ("Status", result.status, False),
        ("Blocking exceptions", result.blocking, False),
        *((label, report["totals"][key], True) for label, key in TOTALS),
        ("Hold (win over handle, %)", report["totals"]["hold_pct"], False),
        ("Data quality", report["quality"]["verdict"], False),
        ("Report SHA-256", result.report_sha256, False),
        ("Seal link", result.chain_sha256, False),
        ("Previous seal link", result.previous_chain_sha256, False),
    ]
    if result.seal:
        lines += [
            ("Seal event", result.seal["seq"], False),
            ("Sealed at (UTC)", str(result.seal["sealed_at"]), False),
            ("Sealed by", f"{result.seal['actor']} ({result.seal['actor_source']})", False),
        ]
    for row, (label, value, is_money) in enumerate(lines):
        summary.write_string(row, 0, label, cells.bold)
        cells.put(summary, row, 1, value, is_money)
    pits_sheet(book.add_worksheet(PITS_SHEET), cells, report["tables"], money)
    for title, key in SHEETS:
        if key in report:  # a report sealed before a section existed lacks it
            cells.grid(book.add_worksheet(title), report[key], money)
    book.close()
    return buffer.getvalue()


def pits_sheet(
    sheet: Worksheet, cells: _Cells, tables: Sequence[dict[str, Any]], money: frozenset[str]
) -> None:
    """Each pit's tables under the pit's name, with the pit's subtotal, then the pits'
    subtotals and the day's total (:mod:`pipeline.reports.pits`)."""
    sections = pit_sections(tables)
    if not sections:
        sheet.write_string(0, 0, "None.")
        return
    sheet.set_column(0, len(tables[0]), 16)
    row = 0
    for section in sections:
        sheet.write_string(row, 0, f"Pit {visible(section.pit)}", cells.bold)
        total = (f"Pit {visible(section.pit)} subtotal", section.subtotal)
        row = cells.block(sheet, row + 1, section.tables, money, total)
    sheet.write_string(row, 0, "Day totals by pit", cells.bold)
    cells.block(sheet, row + 1, pit_subtotals(sections), money, ("Day total", day_totals(sections)))
