"""Drill-down in Chromium: from an exception on the queue to its round, from the round to
each id it shows (table, shoe, dealer, patron, trail, exception), and back with the browser's
Back button to the very view left: the queue's filters and the exception it had open.

Before, the queue opened a round by a button that kept the choice in the session, and Back
landed on a queue that had lost its filters and opened another exception.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import time
from pathlib import Path

from _chromium import Browser
from browser_harness import (
    PAGE_TIMEOUT,
    browser_tests,
    choose,
    follow,
    open_page,
    page_links,
    shown_in,
    shown_in_when_drawn,
    through_history,
    url_params,
)
from dashboard_data import DAY

from pipeline.ledger.store import Ledger

pytestmark = browser_tests(__name__)

ROUND_IDS = {"Table": "table", "Shoe": "shoe", "Dealer": "dealer", "Patron": "patron",
             "Trail": "round", "Exception": "exception"}  # fmt: skip
"""Each kind of id the round page links (its label's first word) and the URL parameter that
carries it to its page."""
OPENS = {"Table": "Exception queue", "Shoe": "Roads", "Dealer": "Patrons and dealers",
         "Patron": "Patrons and dealers", "Trail": "Trail and evidence bundle",
         "Exception": "Exception queue"}  # fmt: skip
"""The page each kind of link opens (its heading)."""


def a_round_with_everything(db: Path) -> tuple[str, str, str, str]:
    """(code, exception, round, patron): an exception of a rule code that has several on the
    day, the only one of its code in its round, in a round where a patron wagered; not the
    first of its code, so the queue would not open it by itself."""
    with Ledger(db, read_only=True) as ledger:
        rows = ledger.con.execute(
            """
            WITH one AS (
                SELECT code, round_id, min(exception_id) AS exception_id FROM exceptions
                WHERE gaming_date = ? AND round_id IS NOT NULL AND severity = 'CRITICAL'
                GROUP BY ALL HAVING count(*) = 1
            )
            SELECT o.code, o.exception_id, o.round_id, min(w.patron_id)
            FROM one o JOIN settlements w USING (round_id)
            WHERE w.patron_id IS NOT NULL
              AND (SELECT count(*) FROM exceptions e WHERE e.code = o.code) > 2
            GROUP BY ALL ORDER BY o.code, o.exception_id DESC LIMIT 1""",
            [DAY],
        ).fetchall()
    assert rows, "the emulated day has no exception fit for the journey"
    code, exception_id, round_id, patron = (str(v) for v in rows[0])
    return code, exception_id, round_id, patron


def test_queue_exception_round_patron_and_back_to_the_same_queue(
    browser: Browser, served_dashboard: tuple[str, Path]
) -> None:
    """The analyst filters the queue by rule code, opens one exception, follows its round,
    checks each id of the round opens its page (N.J.A.C. 19:47-3.9: the round as dealt;
    table, shoe, dealer, patron, trail and exception each one click away), follows a patron,
    then presses Back twice: the queue shows the same filter and the same exception."""
    base, db = served_dashboard
    code, exception_id, round_id, patron = a_round_with_everything(db)
    day = DAY.isoformat()
    open_page(browser, f"{base}/exceptions?code={code}&day={day}", "Inspect exception")
    choose(browser, "Inspect exception", round_id)
    browser.wait_for(f"Round {round_id}")
    queue_url = url_params(browser)
    assert queue_url == {"code": [code], "day": [day], "exception": [exception_id]}

    follow(browser, f"Round {round_id}", "Round reconstruction", "Draw rules, recomputed")
    assert url_params(browser)["round"] == [round_id]
    linked = page_links(browser)
    kinds = {link["label"].split(" ")[0] for link in linked}
    assert set(ROUND_IDS) <= kinds, linked
    assert all(link["params"].get("day") == [day] for link in linked)
    assert {"label": f"Patron {patron}", "path": "/people",
            "params": {"patron": [patron], "day": [day]}} in linked  # fmt: skip

    for kind, opens in OPENS.items():
        if kind == "Patron":
            continue  # followed last, to go Back from it to the queue
        link = next(x for x in linked if x["label"].split(" ")[0] == kind)
        follow(browser, link["label"], opens)
        assert browser.heading() == opens
        param = ROUND_IDS[kind]
        assert url_params(browser)[param] == link["params"][param], kind
        through_history(browser, -1, "Draw rules, recomputed", round_id)
        assert url_params(browser)["round"] == [round_id]

    follow(browser, f"Patron {patron}", "Patrons and dealers", "Exceptions naming")
    assert url_params(browser)["patron"] == [patron]
    assert patron in shown_in_when_drawn(browser, "stSelectbox", "Patron", patron)

    through_history(browser, -1, "Round reconstruction", "Draw rules, recomputed", round_id)
    assert url_params(browser)["round"] == [round_id]
    through_history(browser, -1, "Exception queue", "Inspect exception", f"Round {round_id}")
    assert url_params(browser) == queue_url
    shown = shown_in_when_drawn(browser, "stMultiSelect", "Rule code", code)
    assert code in shown, "the filter was lost"
    opened = shown_in(browser, "stSelectbox", "Inspect exception")
    assert round_id in opened and code in opened, "the queue opened another exception"


GRID = "[...document.querySelectorAll('canvas')].find(c => c.querySelector('tbody td'))"
"""The page's first grid: its canvas, which holds the table it keeps for screen readers."""
GRID_LINKS = f"""(() => {{
  const grid = {GRID};
  if (!grid) {{ return null; }}
  grid.scrollIntoView({{block: 'center'}});
  const box = grid.getBoundingClientRect();
  window.__opened = [];  // the grid opens a link in a new tab; the test follows it in this one
  window.open = (url) => {{ window.__opened.push(new URL(url, location.href).href); return null; }};
  return {{left: box.left, right: box.right, top: box.top}};
}})()"""
GRID_HEADER_PX = GRID_ROW_PX = 35
"""The grid's header and row heights (Streamlit's default)."""


def links_in_first_row(browser: Browser) -> list[str]:
    """Click, as a person does, every link the page's first grid draws in its first row,
    left to right, and return the URLs they open: the mouse runs along the row, and where
    the grid shows the pointer (over a link's text) it clicks."""
    deadline = time.monotonic() + PAGE_TIMEOUT
    while (box := browser.evaluate(GRID_LINKS)) is None:
        assert time.monotonic() < deadline, "no grid on the page"
        time.sleep(0.2)  # the grid's script loads after the page's run
    time.sleep(0.5)  # and it draws once laid out
    y = box["top"] + GRID_HEADER_PX + GRID_ROW_PX / 2
    over_link = False
    x = box["left"] + 2
    while x < box["right"] - 2:
        browser.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        time.sleep(0.03)
        pointer = browser.evaluate(f"{GRID}.style.cursor") == "pointer"
        if pointer and not over_link:
            browser.press(x, y)
        over_link = pointer
        x += 6
    opened: list[str] = browser.evaluate("window.__opened")
    return opened


def test_an_id_in_a_grid_opens_its_page(
    browser: Browser, served_dashboard: tuple[str, Path]
) -> None:
    """On the table board, the ids in the grid are links (the table and the dealer at it,
    both named on a Complimentary Vigorish Form, N.J.A.C. 19:47-3.3(c)3i): a click on the
    dealer's id opens the dealer's record with the dealer chosen, and a click on the table's
    id opens its exceptions, on the board's gaming day."""
    base, _db = served_dashboard
    day = DAY.isoformat()
    open_page(browser, f"{base}/tables?day={day}", "Table board", "Every table")
    opened = links_in_first_row(browser)
    paths = [url.removeprefix(base + "/").split("?")[0] for url in opened]
    assert paths[:2] == ["exceptions", "people"], opened  # table first, then its dealer
    params = []
    for url, heading in zip(opened[:2], ("Exception queue", "Patrons and dealers"), strict=True):
        open_page(browser, url, heading)
        assert browser.heading() == heading
        params.append(url_params(browser))
    table, dealer = params[0]["table"][0], params[1]["dealer"][0]
    assert params[0]["day"] == params[1]["day"] == [day]
    assert dealer in shown_in_when_drawn(browser, "stSelectbox", "Dealer", dealer)
    open_page(browser, opened[0], "Exception queue", "Inspect exception")
    assert table in shown_in_when_drawn(browser, "stMultiSelect", "Table", table)
