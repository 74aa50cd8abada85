"""In Chromium, a queue opened before the first data goes live on its own: opened while there
is no ledger yet, it says so; once the ledger exists without a gaming day, it says there is
nothing to show; once ``baccarat-audit replay`` has written an emulated day, it lists the
day's exceptions. Nobody reloads: the page used to stop before its live check and showed
"Nothing to show" for as long as it stayed open. With the live exceptions feed on, the
server's snapshot refresher (which ends while there is no ledger) is started again.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path

import pytest
from _chromium import Browser, free_port
from browser_harness import browser_tests
from dashboard_data import DAY
from test_dashboard_feed import topics_of_its_own

from dashboards import queries as q
from dashboards.server import running_dashboard
from pipeline.cli import main
from pipeline.ledger.store import Ledger

pytestmark = browser_tests(__name__)

SHOWS_WITHIN = 20.0
"""Seconds from the ledger's change to the page showing it: the live check runs every
second; the rest is the snapshot copy and the page's run on a shared machine."""
OPEN_BEFORE = 3.0
"""Seconds the queue is open before the ledger appears: longer than the server's snapshot
turn with the feed on (1 s here), whose refresher ends while there is no ledger."""
NO_LEDGER = "no ledger here yet"
NO_DAY = "Nothing to show until a gaming day has been replayed"


def cli(*argv: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(list(argv)) == 0, f"baccarat-audit {' '.join(argv)} failed"


def shows_without_reload(browser: Browser, *needles: str) -> tuple[str, float]:
    """The page's text once it shows every needle (within :data:`SHOWS_WITHIN`), and how
    long that took; the page is never navigated again."""
    started = time.monotonic()
    text: str = browser.wait_for(*needles, timeout=SHOWS_WITHIN, poll=0.2)
    return text, time.monotonic() - started


@pytest.mark.parametrize("with_feed", [False, True], ids=["snapshots", "live-feed"])
def test_a_queue_opened_before_the_ledger_exists_shows_the_day_once_replayed(
    browser: Browser,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    with_feed: bool,
) -> None:
    feed = None
    if with_feed:
        feed = topics_of_its_own(request.getfixturevalue("kafka_broker"))
        monkeypatch.setenv("BACCARAT_CONFIRM_SECONDS", "1")  # the server's snapshots
    emulated = tmp_path / "emulated"
    cli("simulate", "--out", str(emulated), "--tables", "2", "--hours", "1",
        "--faults", "all", "--seed", "3", "--date", DAY.isoformat())  # fmt: skip
    db = tmp_path / "ledger.duckdb"
    with (
        (tmp_path / "streamlit.log").open("w") as log,
        running_dashboard(db, free_port(), log=log, feed=feed) as base,
    ):
        browser.navigate(f"{base}/exceptions")
        browser.wait_for(NO_LEDGER, "Live updates", timeout=90)
        time.sleep(OPEN_BEFORE)

        Ledger(db).close()  # a stream starting: the ledger, no gaming day yet
        _, seconds = shows_without_reload(browser, NO_DAY)
        print(f"the empty ledger showed {seconds:.1f} s after it was created")

        cli("replay", "--db", str(db), str(emulated / "events"))
        with Ledger(db, read_only=True) as ledger:
            total = len(q.exception_rows(ledger, DAY))
        assert total > 0, "the emulated day has faults, so exceptions"
        # the metric paints last on a loaded machine: waited for, as the queue's other text
        text, seconds = shows_without_reload(
            browser, "Exception queue", "New since you looked", f"{total} of {total}"
        )
        print(f"{total} exceptions showed {seconds:.1f} s after the replay")
        assert NO_DAY not in text and NO_LEDGER not in text
