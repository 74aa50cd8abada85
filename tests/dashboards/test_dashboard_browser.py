"""End to end in a real browser: ``streamlit run dashboards/app.py`` against an emulated
ledger (3 tables, 2 hours), driven by headless Chromium over the DevTools protocol.

Checks that the exception queue shows the chosen exception's message, regulation section and
rule statement, and that a round reconstruction shows the card-by-card deal, the Table 1/2
decisions recomputed from the ledger's cards and the recorded settlement that differs from the
expected one. Screenshots of every view are saved to a temporary directory (printed), and also
to ``$DASHBOARD_SCREENSHOTS`` when set (the README's come from there: docs/screenshots).

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _chromium import Browser
from browser_harness import browser_tests
from dashboard_data import DAY, SETTLED_WRONGLY

from dashboards import queries as q
from dashboards.reconstruct import reconstruct
from pipeline.bundle.acks import AckJournal
from pipeline.ledger.store import Ledger
from pipeline.replay.findings import money
from pipeline.rules.codes import RULE_CODES
from pipeline.rules.games import Game

pytestmark = browser_tests(__name__)

VIEWS = (
    ("exceptions", "Exception queue"),
    ("tables", "Table board"),
    ("round", "Round reconstruction"),
    ("roads", "Roads"),
    ("statistics", "Statistical alarms"),
    ("slugs", "False shuffles"),
    ("close", "Gaming-day close"),
    ("forms", "Form register"),
    ("search", "Search"),
    ("people", "Patrons and dealers"),
    ("trail", "Trail and evidence bundle"),
)


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("screenshots")
    yield directory
    print(f"\nscreenshots: {directory}")
    copy_to = os.environ.get("DASHBOARD_SCREENSHOTS")
    if copy_to:
        target = Path(copy_to)
        target.mkdir(parents=True, exist_ok=True)
        for png in directory.glob("*.png"):
            shutil.copy2(png, target / png.name)
        print(f"copied to {target}")


def _open(browser: Browser, url: str, *needles: str) -> str:
    browser.navigate(url)
    text: str = browser.wait_for(*needles, timeout=90)
    time.sleep(1.0)  # let the last elements paint before a screenshot
    return text


def test_exception_queue_in_chromium(
    served_dashboard: tuple[str, Path], browser: Browser, shots: Path
) -> None:
    base, db = served_dashboard
    with Ledger(db, read_only=True) as ledger:
        rows = q.exceptions(ledger, DAY, AckJournal(db.with_suffix(".none.jsonl")))
    chosen = rows[rows["round_id"].notna()].iloc[0]
    statement = RULE_CODES[str(chosen["code"])].statement
    text = _open(
        browser,
        f"{base}/exceptions?exception={chosen['exception_id']}",
        "Exception queue",
        str(chosen["message"]),
        str(chosen["section"]),
        statement,
        f"{len(rows)} of {len(rows)}",  # the metric paints last on a loaded machine
    )
    assert "Page not found" not in text
    assert f"Table {chosen['table_id']}" in text.replace("\n", " ")
    assert "Evidence: the events this exception rests on" in text
    browser.screenshot(shots / "exception-queue.png")


def test_a_link_to_the_root_opens_the_queue_with_its_filters(
    served_dashboard: tuple[str, Path], browser: Browser
) -> None:
    """Links written before the queue had its own address (``/?code=...``) still open it,
    with their filters and open exception, and without a "Page not found" notice."""
    base, db = served_dashboard
    with Ledger(db, read_only=True) as ledger:
        rows = q.exceptions(ledger, DAY, AckJournal(db.with_suffix(".none.jsonl")))
    chosen = rows[rows["round_id"].notna()].iloc[0]
    code, exception_id = str(chosen["code"]), str(chosen["exception_id"])
    shown = rows[rows["code"] == code]
    text = _open(
        browser,
        f"{base}/?code={code}&exception={exception_id}",
        str(chosen["message"]),
        f"{len(shown)} of {len(rows)}",  # the code filter applies; the metric paints last
    )
    assert "Page not found" not in text
    assert "Exception queue" in text
    search = str(browser.evaluate("location.search"))
    assert f"code={code}" in search and f"exception={exception_id}" in search


def test_round_reconstruction_in_chromium(
    served_dashboard: tuple[str, Path], browser: Browser, shots: Path
) -> None:
    base, db = served_dashboard
    with Ledger(db, read_only=True) as ledger:
        (round_id, table_id, game) = ledger.con.execute(
            "SELECT e.round_id, e.table_id, s.game FROM exceptions e JOIN table_day_summary s "
            "USING (table_id, gaming_date) WHERE (e.code LIKE '%-VIG' OR e.code LIKE '%PLAYER') "
            f"AND {SETTLED_WRONGLY} ORDER BY e.severity_rank DESC, e.round_id LIMIT 1"
        ).fetchone() or (None, None, None)
        assert round_id is not None
        cards = q.round_cards(ledger, str(table_id), str(round_id))
        settlements = q.round_settlements(ledger, str(table_id), str(round_id))
    rebuilt = reconstruct(
        Game(str(game)),
        [(int(c.position), str(c.rank), str(c.suit), str(c.hand)) for c in cards.itertuples()],
    )
    wrong = settlements[~settlements["matches"]].iloc[0]
    expected_texts = [d.text for d in rebuilt.decisions]
    text = _open(
        browser,
        f"{base}/round?round={round_id}",
        "Draw rules, recomputed",
        *expected_texts,
        money(int(wrong["recorded_paid_cents"])),
    )
    assert str(round_id) in text
    assert all(c.label in text for c in rebuilt.cards)  # every card, with its suit
    assert "NO" in text.split()  # the settlement that disagrees is marked
    assert expected_texts[0].startswith(("Table 1:", "Natural:", "4.9(a):"))
    browser.screenshot(shots / "round-reconstruction.png")


def test_every_view_renders_in_chromium(
    served_dashboard: tuple[str, Path], browser: Browser, shots: Path
) -> None:
    base, db = served_dashboard
    with Ledger(db, read_only=True) as ledger:
        (round_id, patron) = ledger.con.execute(
            "SELECT round_id, patron_id FROM exceptions WHERE round_id IS NOT NULL AND "
            "patron_id IS NOT NULL ORDER BY severity_rank DESC, round_id LIMIT 1"
        ).fetchone() or ("", "")
    links = {"search": f"search?patron={patron}", "trail": f"trail?round={round_id}"}
    for url, title in VIEWS:
        if url in ("exceptions", "round"):
            continue  # shot above with a chosen exception and round
        text = _open(browser, f"{base}/{links.get(url, url)}", title, "Gaming day")
        assert "Traceback" not in text and "Error" not in text.split("\n")[0]
        browser.screenshot(shots / f"{url}.png")
    shot_here = {url for url, _ in VIEWS if url not in ("exceptions", "round")}
    assert shot_here <= {p.stem for p in shots.glob("*.png")}
