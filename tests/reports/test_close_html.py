"""The close report's HTML is drawn by a template with autoescaping: a device string is text,
never markup, and never a terminal or bidi control; amounts are dollars and say so; the page
prints on landscape A4 with the table headers repeated."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pipeline.config.catalog import gaming_day_of
from pipeline.reports.render import CloseResult, render_html

DAY = date(2026, 11, 24)
HOSTILE = '</td><script>alert("x")</script>\x1b[2J\u202e'


def _report(table_id: str) -> dict[str, Any]:
    quality = {"verdict": "PASSED", "evaluated": 3, "failed": 0, "blocking": [],
               "warnings": [], "accepted": None}  # fmt: skip
    return {
        "gaming_date": DAY.isoformat(),
        "totals": {
            "handle_cents": 9_412_345_650,
            "win_cents": -125,
            "hold_pct": 1.3,
            "vig_collected_cents": 2_500,
            "vig_uncollected_cents": 0,
            "comp_vig_cents": 25,
        },
        "quality": quality,
        "tables": [{"table_id": table_id, "handle_cents": 9_412_345_650, "hold_pct": 1.3}],
        "win_by_wager": [{"wager": "BANKER", "recorded_win_cents": 100}],
        "forms": [],
        "unmatched_form_copies": [],
        "exceptions_by_code": [{"code": "PB-3.3c-VIG", "count": 2}],
        "blocking_exceptions": [],
        "dead_letters": [],
    }


def _page(table_id: str, seal: dict[str, Any] | None = None) -> str:
    result = CloseResult(DAY, _report(table_id), "ab" * 32, "cd" * 32, None, 0, [], seal=seal or {})
    return render_html(result.report, result, "quality-2026-11-24.html")


def test_a_device_string_is_text_not_markup_nor_a_control() -> None:
    page = _page(HOSTILE)
    assert "<script>" not in page and "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page
    assert "\x1b" not in page and "\u202e" not in page
    assert "\u241b[2J[U+202E]" in page  # shown, so a reviewer sees what the device sent


def test_amounts_are_dollars_and_labelled_so() -> None:
    page = _page("T01")
    assert "<th>handle ($)</th>" in page and "<th>hold (%)</th>" in page
    assert "<th>recorded win ($)</th>" in page and "handle_cents" not in page
    assert "<td>$94,123,456.50</td>" in page
    assert "Handle $94,123,456.50; win -$1.25" in page


def test_the_page_prints_on_a_landscape_page_with_repeated_headers() -> None:
    page = _page("T01")
    assert "@media print" in page and "size:A4 landscape" in page
    assert "thead{display:table-header-group}" in page and "<thead>" in page


def test_the_day_and_the_seal_are_on_the_casino_s_clock() -> None:
    seal = {"seq": 4, "sealed_at": datetime(2026, 11, 25, 12, 0), "actor": "ann",
            "actor_source": "command line", "reason": None, "anchor_path": "a.jsonl"}  # fmt: skip
    page = _page("T01", seal)
    assert gaming_day_of().zone.key == "America/New_York"
    assert "from 2026-11-24 06:00:00 EST to 2026-11-25 06:00:00 EST (24 hours" in page
    assert "at 2026-11-25 12:00:00 UTC (2026-11-25 07:00:00 EST) by ann" in page
