"""The close report states its gaming day and its seal on the casino's clock, with the zone:
an accountant in New Jersey reads 06:00 EST, not 11:00 UTC."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pipeline.reports.render import CloseResult, render_html
from pipeline.rules.gaming_day import gaming_day

DAY = date(2026, 10, 31)  # 25 hours: 06:00 EDT to 06:00 EST


def _page(seal: dict[str, Any]) -> str:
    quality = {"verdict": "PASSED", "evaluated": 3, "failed": 0, "blocking": [],
               "warnings": [], "accepted": None}  # fmt: skip
    totals = {"handle_cents": 100, "win_cents": 5, "hold_pct": 5.0, "vig_collected_cents": 0,
              "vig_uncollected_cents": 0, "comp_vig_cents": 0}  # fmt: skip
    report: dict[str, Any] = {
        "gaming_date": DAY.isoformat(), "totals": totals, "quality": quality, "tables": [],
        "win_by_wager": [], "reconciliation": [], "forms": [], "unmatched_form_copies": [],
        "exceptions_by_code": [], "blocking_exceptions": [], "dead_letters": [],
    }  # fmt: skip
    day = gaming_day("06:00", "America/New_York")
    result = CloseResult(DAY, report, "ab" * 32, "cd" * 32, None, 0, [], seal=seal, gaming_day=day)
    return render_html(report, result, None)


def test_the_day_and_the_seal_are_on_the_casino_s_clock() -> None:
    seal = {"seq": 4, "sealed_at": datetime(2026, 11, 1, 12, 0), "actor": "ann",
            "actor_source": "command line", "reason": None, "anchor_path": "a.jsonl"}  # fmt: skip
    page = _page(seal)
    assert (
        "Gaming day 2026-10-31: from 2026-10-31 06:00:00 EDT (UTC-04:00) to 2026-11-01 "
        "06:00:00 EST (UTC-05:00) (25 hours, America/New_York)"
    ) in page
    assert "at 2026-11-01 12:00:00 UTC (2026-11-01 07:00:00 EST) by ann" in page


def test_a_page_drawn_without_a_seal_still_states_the_day() -> None:
    page = _page({})
    assert "from 2026-10-31 06:00:00 EDT (UTC-04:00) to 2026-11-01 06:00:00 EST" in page
