"""The close report by pit, its totals, its blocking count and its day's span, in every format.

An accountant signs the day's win per table, per pit and for the casino; the complimentaries
documented on Forms count in table game win (N.J.A.C. 19:47-3.3(c)3vii) and the Form copies
are compared at the end of the gaming day (3.3(c)3iv), so each total must be the sum of the
rows above it, to the cent, and the report must say which hours the gaming day covered.
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import date
from pathlib import Path
from typing import Any

from pipeline.replay.findings import money
from pipeline.reports.pits import COUNTED, day_totals, pit_sections
from pipeline.reports.render import CloseResult, day_span, render_html, report_files
from pipeline.reports.spreadsheet import PITS_SHEET, workbook
from pipeline.rules.gaming_day import gaming_day
from tests.reports.workbook_cells import rows_of, sheets, summary_of

NEW_YORK = gaming_day("06:00", "America/New_York")
SPRING = date(2026, 3, 7)  # 06:00 EST to 06:00 EDT: 23 hours


def _table(table_id: str, pit: str, handle: int, win: int, vig: int, comp: int) -> dict[str, Any]:
    return {
        "table_id": table_id, "pit": pit, "location": "floor", "game": "PUNTO_BANCO",
        "rules_id": "pb-5-classic", "rounds": handle % 97 + 3, "shoes": 2,
        "handle_cents": handle, "vig_collected_cents": vig, "vig_uncollected_cents": 25,
        "comp_vig_cents": comp, "exceptions": handle % 7,
        "recorded_win_cents": win, "expected_win_cents": win + 5,
        "win_cents": win + vig, "hold_pct": round(100 * (win + vig) / handle, 3),
    }  # fmt: skip


TABLES = [
    _table("T01", "BACCARAT-1", 7_468_750_00, 240_016_00, 12_025, 1_500),
    _table("T03", "BACCARAT-1", 3_682_025_00, -100_370_05, 9_975, 0),
    _table("T02", "MINI-1", 1_688_906_25, 591_25, 120, 325),
]
BLOCKING = [
    {"exception_id": f"x{n}", "table_id": "T01", "code": "PB-3.3c-VIG", "round_id": f"R{n}",
     "seat": 1, "serial": None, "message": "vigorish short"}
    for n in range(3)
]  # fmt: skip


def _report() -> dict[str, Any]:
    totals = {
        key: sum(t[key] for t in TABLES)
        for key in ("rounds", "handle_cents", "recorded_win_cents", "expected_win_cents",
                    "vig_collected_cents", "vig_uncollected_cents", "comp_vig_cents", "win_cents")
    }  # fmt: skip
    totals["hold_pct"] = round(100 * totals["win_cents"] / totals["handle_cents"], 3)
    return {
        "gaming_date": SPRING.isoformat(),
        "totals": totals,
        "quality": {"verdict": "PASSED", "evaluated": 4, "failed": 0, "blocking": [],
                    "warnings": [], "accepted": None},
        "tables": TABLES, "win_by_wager": [], "forms": [], "unmatched_form_copies": [],
        "exceptions_by_code": [], "blocking_exceptions": BLOCKING, "dead_letters": [],
    }  # fmt: skip


def _result() -> CloseResult:
    report = _report()
    return CloseResult(
        SPRING, report, "a" * 64, "b" * 64, None, len(BLOCKING), [], gaming_day=NEW_YORK
    )


def test_each_pit_s_subtotal_and_the_day_s_total_are_the_sums_of_theirrows_of() -> None:
    """N.J.A.C. 19:47-3.3(c)3vii: the win, vigorish and complimentaries of a pit and of the
    day add up from the tables, cent for cent; the day's totals are those of the report."""
    sections = pit_sections(TABLES)
    assert [(s.pit, [t["table_id"] for t in s.tables]) for s in sections] == [
        ("BACCARAT-1", ["T01", "T03"]),
        ("MINI-1", ["T02"]),
    ]
    added = [c for c in TABLES[0] if c in COUNTED or c.endswith("_cents")]
    for section in sections:
        for column in added:
            assert section.subtotal[column] == sum(t[column] for t in section.tables)
            assert isinstance(section.subtotal[column], int), "cents stay integer"
    totals = day_totals(sections)
    for column in added:
        assert totals[column] == sum(t[column] for t in TABLES)
    report_totals = _report()["totals"]
    assert {k: totals[k] for k in report_totals} == report_totals


def test_the_page_shows_every_pit_with_its_subtotal_then_the_day_s_total_in_dollars() -> None:
    """N.J.A.C. 19:47-3.3(c)3vii: each footer of the page is the sum of its rows."""
    result = _result()
    page = render_html(result.report, result, None)
    footers = re.findall(r"<tfoot><tr><th>([^<]*)</th>(.*?)</tr></tfoot>", page)
    assert [label for label, _ in footers] == [
        "Pit BACCARAT-1 subtotal", "Pit MINI-1 subtotal", "Day total",
    ]  # fmt: skip
    handles = {label: re.findall(r'<td class="money">([^<]*)</td>', cells)[0]
               for label, cells in footers}  # fmt: skip
    assert handles == {
        "Pit BACCARAT-1 subtotal": money(7_468_750_00 + 3_682_025_00),
        "Pit MINI-1 subtotal": money(1_688_906_25),
        "Day total": money(sum(t["handle_cents"] for t in TABLES)),
    }
    assert "<h3>Pit BACCARAT-1: 2 tables</h3>" in page and "<h3>Pit MINI-1: 1 table</h3>" in page


def test_the_page_and_the_workbook_count_the_blocking_exceptions() -> None:
    """PB-3.3c-VIG and every CRITICAL exception not acknowledged block the close: how many is
    stated beside the totals, not left for the reader to count."""
    result = _result()
    page = render_html(result.report, result, None)
    assert "<dt>Blocking exceptions</dt><dd>3</dd>" in page
    assert "<h2>Blocking exceptions: 3 (critical;" in page
    summary = summary_of(sheets(workbook(result)))
    assert summary["Blocking exceptions"] == "3"


def test_every_format_states_the_day_s_span_with_offsets_and_hours(tmp_path: Path) -> None:
    """The spring gaming day of 2026 runs 06:00 EST to 06:00 EDT: 23 hours, and each of the
    JSON, CSV, HTML and Excel files says so."""
    span = day_span(NEW_YORK, SPRING)
    assert span == {
        "zone": "America/New_York",
        "starts_at": "2026-03-07T06:00:00-05:00",
        "ends_at": "2026-03-08T06:00:00-04:00",
        "hours": 23,
        "starts": "2026-03-07 06:00:00 EST (UTC-05:00)",
        "ends": "2026-03-08 06:00:00 EDT (UTC-04:00)",
    }
    files = {
        p.suffix: b for p, b in report_files(_result(), tmp_path).items() if ".r" not in p.name
    }
    assert json.loads(files[".json"])["rendered"]["gaming_day_span"] == span
    rows = list(csv.DictReader(io.StringIO(files[".csv"].decode())))
    assert {(r["gaming_day_starts_at"], r["gaming_day_ends_at"], r["gaming_day_hours"])
            for r in rows} == {(span["starts_at"], span["ends_at"], "23")}  # fmt: skip
    assert (
        "from 2026-03-07 06:00:00 EST (UTC-05:00) to 2026-03-08 06:00:00 EDT (UTC-04:00) "
        "(23 hours, America/New_York)"
    ) in files[".html"].decode()
    summary = summary_of(sheets(files[".xlsx"]))
    assert (summary["Starts"], summary["Ends"], summary["Hours"], summary["Time zone"]) == (
        span["starts"], span["ends"], "23", "America/New_York",
    )  # fmt: skip


def test_the_workbook_s_pit_sheet_adds_up_like_the_page() -> None:
    """N.J.A.C. 19:47-3.3(c)3vii: the pits sheet holds each pit's subtotal and the day's total
    as the dollars of the summed cents."""
    book = sheets(workbook(_result()))
    rows = rows_of(book[PITS_SHEET], book["strings"])
    labelled = {row[0]: row for row in rows if row and row[0].endswith(("subtotal", "total"))}
    assert set(labelled) == {"Pit BACCARAT-1 subtotal", "Pit MINI-1 subtotal", "Day total"}
    by_table = next(row for row in rows if row and row[0] == "Table id").index("Handle ($)")
    by_pit = next(row for row in rows if row and row[0] == "Pit").index("Handle ($)")
    assert labelled["Pit MINI-1 subtotal"][by_table] == str(1_688_906_25 / 100)
    assert labelled["Day total"][by_pit] == str(sum(t["handle_cents"] for t in TABLES) / 100)
