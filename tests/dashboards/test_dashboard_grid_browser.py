"""In Chromium at 1600 x 900, the exception queue's first screen is the queue: its grid shows
each row's message, status and holder without scrolling sideways, at least five rows before
any scrolling down, and an empty cell as an em dash, never the word "None" or "nan" a
device could have sent.

The grid is drawn on a canvas; it keeps a table for screen readers that holds exactly the
rows and columns it draws in its visible area (glide-data-grid), which is what this test
reads.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from _chromium import Browser
from browser_harness import browser_tests

from dashboards import triage

pytestmark = browser_tests(__name__)

WIDTH, HEIGHT = 1600, 900
HEADER_PX = ROW_PX = 35
"""The grid's header and row heights (Streamlit's default row height)."""
DRAWN_WITHIN = 10.0
MISSING_WORDS = {"None", "none", "nan", "NaN", "<NA>", "NaT", "null"}

GRID_LAYOUT = f"""(() => {{
  window.scrollTo(0, 0);
  const grid = document.querySelector('.st-key-{triage.GRID_KEY} canvas');
  if (!grid) {{ return null; }}
  const box = grid.getBoundingClientRect();
  const headers = [...grid.querySelectorAll('th[role=columnheader]')].map(e => e.innerText);
  const rows = [...grid.querySelectorAll('tbody tr')].map(
    r => [...r.querySelectorAll('td')].map(c => c.innerText));
  return {{left: box.left, right: box.right, top: box.top, headers, rows}};
}})()"""


@pytest.fixture(scope="module")
def queue_layout(browser: Browser, served_dashboard: tuple[str, Path]) -> dict[str, Any]:
    """The queue grid as Chromium lays it out on a 1600 x 900 screen, with the default
    filters (open and escalated exceptions)."""
    base, _db = served_dashboard
    screen(browser)
    browser.navigate(f"{base}/exceptions")
    browser.wait_for("Exception queue", "Shown", "Inspect exception", timeout=90)
    deadline = time.monotonic() + DRAWN_WITHIN
    layout: dict[str, Any] = browser.evaluate(GRID_LAYOUT)
    while not (layout and layout["rows"]) and time.monotonic() < deadline:
        time.sleep(0.2)  # the grid fills its table once it has drawn, after the run
        layout = browser.evaluate(GRID_LAYOUT)
    return layout


def screen(browser: Browser) -> None:
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=WIDTH,
        height=HEIGHT,
        deviceScaleFactor=1,
        mobile=False,
    )


def test_message_status_and_holder_are_on_screen_at_1600_px(
    queue_layout: dict[str, Any],
) -> None:
    """The grid lies within the screen's width, and among the columns it draws there are
    the message, the status and the holder, each followed by another column, so none of
    them is cut at the grid's right edge."""
    assert queue_layout is not None, "no queue grid on the page"
    assert 0 <= queue_layout["left"] < queue_layout["right"] <= WIDTH
    headers: list[str] = queue_layout["headers"]
    for column in ("message", "status", "held by"):
        assert column in headers, f"{column!r} is off-screen; the grid draws {headers}"
        assert headers.index(column) < len(headers) - 1, f"{column!r} is cut at the right edge"


def test_the_first_screen_shows_at_least_five_rows(queue_layout: dict[str, Any]) -> None:
    """Summaries, filters and the chart leave room: five whole rows end above 900 px."""
    top = queue_layout["top"]
    drawn = len(queue_layout["rows"])
    whole = sum(1 for i in range(drawn) if top + HEADER_PX + ROW_PX * (i + 1) <= HEIGHT)
    assert whole >= 5, f"the grid starts at {top:.0f} px: {whole} whole rows on the first screen"


def test_no_cell_reads_none_or_nan(queue_layout: dict[str, Any]) -> None:
    """A missing round, seat, serial, amount or holder is an empty cell (drawn as an em
    dash), not a word that reads like data."""
    cells = [cell for row in queue_layout["rows"] for cell in row]
    assert cells, "the grid drew no cell"
    assert "" in cells, "the ledger has rows without a round, a serial or a holder"
    shown = {cell.strip() for cell in cells} & MISSING_WORDS
    assert not shown, f"cells read {shown}"
