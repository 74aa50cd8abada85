"""The close report's HTML page (a Jinja2 template with autoescaping, dollars labelled as
dollars, a print layout, device strings shown as text) and its workbook."""

from __future__ import annotations

import html
import re
import time
from datetime import UTC, date, datetime
from typing import Any

from pipeline.quality.docs import remote_references, unsafe_markup
from pipeline.reports.labels import heading
from pipeline.reports.render import CloseResult, render_html
from pipeline.reports.spreadsheet import PITS_SHEET, SHEETS, workbook
from tests.reports.workbook_cells import sheets

HOSTILE_TABLE = "T01<script>alert(1)</script>\u202e"


def _report(**changes: Any) -> dict[str, Any]:
    report: dict[str, Any] = {
        "gaming_date": "2026-11-24",
        "totals": {
            "handle_cents": 9_412_345_678,
            "win_cents": -12_345,
            "hold_pct": 1.25,
            "vig_collected_cents": 50_025,
            "vig_uncollected_cents": 0,
            "comp_vig_cents": 1_500,
        },
        "quality": {
            "verdict": "PASSED",
            "evaluated": 40,
            "failed": 0,
            "blocking": [],
            "warnings": [],
            "accepted": [],
        },
        "tables": [
            {"table_id": HOSTILE_TABLE, "pit": "PIT-1", "handle_cents": 9_412_345_678, "rounds": 3}
        ],
        "win_by_wager": [{"wager": "BANKER", "recorded_win_cents": -12_345}],
        "reconciliation": [],
        "forms": [],
        "unmatched_form_copies": [],
        "exceptions_by_code": [{"code": "PB-3.3c-VIG", "count": 2}],
        "blocking_exceptions": [],
        "dead_letters": [],
    }
    report.update(changes)
    return report


def _result(report: dict[str, Any], seal: dict[str, Any] | None = None) -> CloseResult:
    return CloseResult(date(2026, 11, 24), report, "a" * 64, "b" * 64, None, 0, [], seal=seal or {})


def test_money_columns_are_headed_and_written_in_dollars() -> None:
    page = render_html(_report(), _result(_report()), None)
    assert "<th>Handle ($)</th>" in page and "handle_cents" not in page
    assert '<td class="money">$94,123,456.78</td>' in page
    assert '<td class="money">-$123.45</td>' in page  # a losing wager type
    assert "<dt>Handle</dt><dd>$94,123,456.78</dd>" in page
    assert "<th>Rounds</th>" in page and "<td>3</td>" in page  # counts stay counts


def test_headings() -> None:
    assert heading("handle_cents", {"handle_cents"}) == "Handle ($)"
    assert heading("table_id") == "Table id"


def test_device_strings_are_escaped_and_shown() -> None:
    page = render_html(_report(), _result(_report()), None)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;[U+202E]" in page
    assert unsafe_markup(page) == [] and remote_references(page) == []


def test_seal_fields_are_escaped_too() -> None:
    seal = {
        "seq": 7,
        "sealed_at": "2026-11-25 07:00:00",
        "actor": "<b>mallory</b>",
        "actor_source": "cli",
        "reason": "",
        "anchor_path": "out/seal-anchors.jsonl",
    }
    page = render_html(_report(), _result(_report(), seal), None)
    assert "by &lt;b&gt;mallory&lt;/b&gt; (cli)" in page and "Sealed as seal event 7" in page


def test_the_page_has_a_print_layout_that_repeats_table_headers() -> None:
    page = render_html(_report(), _result(_report()), None)
    style = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    assert style is not None
    assert "@page{size:A4 landscape" in style.group(1)
    assert "@media print" in style.group(1) and "thead{display:table-header-group}" in style.group(
        1
    )
    assert page.count("<thead>") == page.count("<table>")


def test_the_page_is_the_same_bytes_every_time() -> None:
    first = render_html(_report(), _result(_report()), "quality-2026-11-24.html")
    assert first == render_html(_report(), _result(_report()), "quality-2026-11-24.html")


# ---------------------------------------------------------------------- the workbook
def test_the_workbook_holds_every_part_of_the_report_in_dollars() -> None:
    formula = '=HYPERLINK("http://evil.example","x")'
    report = _report(forms=[{"serial": 1001, "patron_name": formula, "amount_cents": 1_500}])
    book = sheets(workbook(_result(report)))
    assert list(book)[:-1] == ["Summary", PITS_SHEET, *(title for title, _ in SHEETS)]
    strings = html.unescape(book["strings"])
    assert "Handle ($)" in strings and "handle_cents" not in strings
    assert "<v>94123456.78</v>" in book["Tables"]  # the cents, shown as dollars
    assert "<v>-123.45</v>" in book["Win by wager"]
    assert "<v>15</v>" in book["Forms"] and formula in strings
    assert all("<f>" not in xml for xml in book.values())  # a string is never a formula
    assert "T01<script>alert(1)</script>[U+202E]" in strings


def test_money_cells_round_back_to_the_exact_cent() -> None:
    for cents in (1, 5, 10, 99, 12_345, 9_412_345_678, -1, -50, 2**52 // 100):
        assert round(cents / 100 * 100) == cents


def test_the_workbook_is_the_same_bytes_every_time() -> None:
    seal = {
        "seq": 7,
        "sealed_at": datetime(2026, 11, 25, 7, 0, tzinfo=UTC),
        "actor": "demo-controller",
        "actor_source": "cli",
        "reason": "",
        "anchor_path": "out/seal-anchors.jsonl",
    }
    first = workbook(_result(_report(), seal))
    time.sleep(1.1)  # a workbook stamped with the clock would differ now
    assert workbook(_result(_report(), seal)) == first


def test_a_draft_workbook_says_so_first() -> None:
    book = sheets(workbook(_result(_report()), draft="this gaming day is not closed"))
    first_row = re.search(r'<row r="1".*?</row>', book["Summary"], re.DOTALL)
    assert first_row is not None
    strings = re.findall(r"<t[^>]*>([^<]*)</t>", book["strings"])
    cells = [
        strings[int(i)] for i in re.findall(r'<c [^>]*t="s"[^>]*><v>(\d+)</v>', first_row.group(0))
    ]
    assert cells == ["DRAFT", "this gaming day is not closed"]
