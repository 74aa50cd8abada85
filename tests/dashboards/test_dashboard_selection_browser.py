"""In Chromium, an action on the exception queue applies to exactly the rows the analyst
ticked, and then nothing stays ticked: the grid reports its ticks by row position, and the
rows acknowledged leave it (the Status filter hides them), so ticks left in place slid onto
the rows that moved up (one just escalated, one just assigned) and offered "Record for all 3"
again; after a single acknowledgement the tick slid onto the next row and opened it.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import time
from pathlib import Path

from _chromium import Browser
from browser_harness import Journey, browser_tests, click, signed_in, ticked_rows, type_into
from dashboard_data import DAY

from dashboards import queries as q
from pipeline.bundle.acks import AckJournal
from pipeline.ledger.store import Ledger

pytestmark = browser_tests(__name__)

GRID = ".st-key-queue"
HEADER_PX = 35
ROW_PX = 35
"""The queue grid's header and row heights (Streamlit's default row height)."""


def tick(browser: Browser, row: int) -> None:
    """Click the checkbox of the grid's ``row`` (from 0), as a person does: the grid is
    drawn on a canvas, its row checkboxes in the column at its left edge."""
    box = browser.evaluate(
        f"(() => {{ const g = document.querySelector('{GRID} canvas');"
        " g.scrollIntoView({block: 'center'}); const r = g.getBoundingClientRect();"
        " return {x: r.left, y: r.top}; })()"
    )
    browser.press(box["x"] + 18, box["y"] + HEADER_PX + ROW_PX * row + ROW_PX / 2)
    time.sleep(0.3)
    browser.wait_for()


def opened(browser: Browser) -> str:
    """The exception open on the page (the link names it)."""
    return str(browser.evaluate("new URLSearchParams(location.search).get('exception')"))


def test_an_action_applies_to_the_rows_ticked_and_clears_the_ticks(
    browser: Browser, tmp_path: Path
) -> None:
    """Three rows ticked and acknowledged with one note: three journal records, then no row
    ticked and no bulk form, though the rows that moved up are one escalated and one
    assigned just before (both still in the queue). Then one row ticked (which opens it) and
    acknowledged alone: one record, and the tick does not slide onto the next row."""
    with signed_in(browser, "demo-analyst", tmp_path) as (base, db):
        with Ledger(db, read_only=True) as ledger:
            order = [str(i) for i in q.exception_rows(ledger, DAY)["exception_id"]]
        journal = AckJournal.for_ledger(db)
        escalated, assigned = order[3], order[4]
        for exception_id, action in ((escalated, "ESCALATE"), (assigned, "ASSIGN")):
            journal.append(
                exception_id=exception_id, action=action, note="earlier triage",
                actor="demo-analyst", actor_source="test", gaming_date=DAY,
                assignee="demo-analyst" if action == "ASSIGN" else None,
            )  # fmt: skip

        journey = Journey(browser, base)
        journey.open("/exceptions", "Exception queue", "Act on several")
        for row in range(3):
            tick(browser, row)
        text = browser.wait_for("3 selected", "Record for all 3")
        assert all(f"({i})" in text for i in order[:3]), "the rows ticked are the first three"
        type_into(browser, "Note (why; required)", "three at once", within=".st-key-bulk-note")
        click(browser, "button", "Record for all 3")
        text = journey.acted("ACKNOWLEDGE of 3 exceptions", "recorded by demo-analyst")
        assert "3 selected" not in text
        assert "Live updates pause" not in text, "nothing chosen: the queue follows the ledger"
        records = journal.records()
        assert [(r.exception_id, r.action) for r in records[2:]] == [
            (i, "ACKNOWLEDGE") for i in order[:3]
        ]

        tick(browser, 0)  # now the escalated one: a single tick opens it
        browser.wait_for("· ESCALATED")
        assert ticked_rows(browser, GRID) == 1
        assert opened(browser) == escalated
        type_into(browser, "Note (why; required)", "explained", within=".st-key-ack-note")
        click(browser, "button", "Record")
        journey.acted(f"ACKNOWLEDGE of exception {escalated} recorded by demo-analyst")
        records = journal.records()
        assert [(r.exception_id, r.action) for r in records[5:]] == [(escalated, "ACKNOWLEDGE")]
