"""The close report's page in a real browser: at a 1400-pixel window it never scrolls
sideways, whole or table by table, with a casino's largest figures, long device strings and
long exception messages in it (headless Chromium over the DevTools protocol, as the
dashboards' browser tests drive it; no screenshot needed).

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.reports.render import CloseResult, render_html
from pipeline.rules.gaming_day import gaming_day
from tests.dashboards._chromium import CHROMIUM, chromium

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason=f"{CHROMIUM} not found: apt-get install -y --no-install-recommends chromium",
    ),
]

AUTUMN = date(2026, 10, 31)
LONG_ID = "T" + "9" * 60  # a device string with nowhere to break


def _table(n: int) -> dict[str, Any]:
    return {
        "table_id": f"T{n:02d}" if n else LONG_ID, "pit": f"BACCARAT-{n % 3}",
        "location": "Main floor, high-limit salon, north wall", "game": "CHEMIN_DE_FER",
        "rules_id": "pb-5-per-seat-rounded-quarter", "rounds": 1545, "shoes": 24,
        "handle_cents": 104_754_737_50, "vig_collected_cents": 1_261_726_00,
        "vig_uncollected_cents": -12_345_67, "comp_vig_cents": 3_381_25, "exceptions": 104,
        "recorded_win_cents": -1_257_285_13, "expected_win_cents": -1_257_405_13,
        "win_cents": 4_440_87, "hold_pct": -12.345,
    }  # fmt: skip


def _report() -> dict[str, Any]:
    tables = [_table(n) for n in range(9)]
    totals = {k: sum(t[k] for t in tables) for k in tables[0] if k.endswith("_cents")}
    totals |= {"rounds": 9 * 1545, "hold_pct": 1.338}
    blocking = [
        {"exception_id": "f" * 64, "table_id": LONG_ID, "code": "CF-4.10c-VIG",
         "round_id": f"{LONG_ID}-20261031-S11-R{n:03d}", "seat": 9, "serial": 10_000_001,
         "message": "Seat 9's BANKER wager of $1,200.00 should win and be paid $1,200.00 "
                    "(N.J.A.C. 19:47-4.10(c)); it was recorded WIN paying $1,320.00: overpaid "
                    f"by $120.00. {LONG_ID}"}
        for n in range(40)
    ]  # fmt: skip
    return {
        "gaming_date": AUTUMN.isoformat(),
        "totals": totals,
        "quality": {"verdict": "WARNINGS", "evaluated": 85, "failed": 2, "blocking": [],
                    "warnings": [{"level": "WARN", "frame": "raw_events.deliveries",
                                  "expectation": "each event is delivered once " + LONG_ID,
                                  "unexpected_count": 58, "element_count": 252_321}],
                    "accepted": None},
        "tables": tables,
        "win_by_wager": [{"wager": w, "recorded_win_cents": -9_876_543_21,
                          "expected_win_cents": 9_876_543_21}
                         for w in ("BANKER", "PLAYER", "TIE", "DRAGON_7", "PANDA_8")],
        "forms": [{"table_id": LONG_ID, "status": "ISSUED", "forms": 12,
                   "amount_cents": 3_381_25}],
        "unmatched_form_copies": [{"table_id": LONG_ID, "serial": 10_000_001,
                                   "kind": "DUPLICATE", "amount_cents": 125}],
        "exceptions_by_code": [{"severity": "CRITICAL", "code": "CF-4.10c-VIG", "count": 40}],
        "blocking_exceptions": blocking,
        "dead_letters": [{"reason": "not a registered schema " + LONG_ID, "count": 3,
                          "resolved": 0}],
    }  # fmt: skip


def test_the_close_report_fits_a_1400_pixel_window(tmp_path: Path) -> None:
    report = _report()
    seal = {"seq": 12, "sealed_at": "2026-11-01 12:00:00", "actor": "demo-controller",
            "actor_source": "command line", "reason": None,
            "anchor_path": "out/reports/seal-anchors.jsonl"}  # fmt: skip
    result = CloseResult(
        AUTUMN, report, "a" * 64, "b" * 64, "c" * 64, 40, [], seal=seal,
        gaming_day=gaming_day("06:00", "America/New_York"),
    )  # fmt: skip
    page = tmp_path / "close-2026-10-31.html"
    page.write_text(render_html(report, result, "quality-2026-10-31.html"), encoding="utf-8")
    with chromium() as browser:
        browser.navigate(page.as_uri())
        deadline = time.monotonic() + 30
        while "Day total" not in browser.text() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert browser.evaluate("window.innerWidth") == 1400
        width = browser.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 1400, f"the page is {width} px wide"
        scrolling = browser.evaluate(
            "[...document.querySelectorAll('.wide')]"
            ".filter(e => e.scrollWidth > e.clientWidth).map(e => e.previousElementSibling"
            " ? e.previousElementSibling.innerText : '?')"
        )
        assert scrolling == [], f"these tables scroll sideways: {scrolling}"
