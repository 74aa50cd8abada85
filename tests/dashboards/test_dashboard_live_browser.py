"""In Chromium: an exception written to the ledger while the analyst watches the queue (or
the table board) shows up on its own, within seconds, announced as new; nobody clicks. With
the live exceptions feed, one published on the exceptions topic shows before the ledger
holds it, unconfirmed, and the ledger's snapshot then confirms it.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from _chromium import Browser, free_port
from browser_harness import browser_tests
from dashboard_data import ledger_copy
from test_dashboard_feed import NOTICE, UNCONFIRMED, commit, publish, topics_of_its_own
from test_dashboard_live import add_exception

from dashboards.server import running_dashboard

pytestmark = browser_tests(__name__)

ARRIVES_WITHIN = 15.0
"""Seconds: the page checks the ledger every second; the rest is the snapshot copy and the
page's rerun on a machine shared with other test runs."""


@pytest.mark.parametrize(
    ("url", "title"), [("exceptions", "Exception queue"), ("tables", "Table board")]
)
def test_a_new_critical_exception_appears_without_a_click(
    served_dashboard: tuple[str, Path], browser: Browser, url: str, title: str, tmp_path: Path
) -> None:
    base, db = served_dashboard
    browser.navigate(f"{base}/{url}")
    browser.wait_for(title, "New since you looked", timeout=90)
    assert "new CRITICAL exception(s)" not in browser.text()

    add_exception(db, f"live-browser-{url}")
    written = time.monotonic()
    text = browser.wait_for("1 new CRITICAL exception(s)", timeout=ARRIVES_WITHIN, poll=0.2)
    seconds = time.monotonic() - written
    assert "PB-3.10b-SETTLEMENT at table T01, round R-LIVE-1" in text
    print(f"{title}: the new exception showed {seconds:.1f} s after it was written")
    browser.screenshot(tmp_path / f"live-{url}.png")


def test_a_published_exception_shows_unconfirmed_and_the_snapshot_confirms_it(
    kafka_broker: str,
    browser: Browser,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = topics_of_its_own(kafka_broker)
    monkeypatch.setenv("BACCARAT_CONFIRM_SECONDS", "1")  # the server's snapshots, every 1 s
    db = ledger_copy(tmp_path, tables=3, hours=2.0)
    with (
        (tmp_path / "streamlit.log").open("w") as log,
        running_dashboard(db, free_port(), log=log, feed=settings) as base,
    ):
        browser.navigate(f"{base}/exceptions")
        browser.wait_for("Exception queue", "New since you looked", timeout=90)
        assert UNCONFIRMED not in browser.text()

        publish(settings, NOTICE)
        published = time.monotonic()
        text = browser.wait_for(UNCONFIRMED, timeout=ARRIVES_WITHIN, poll=0.2)
        print(f"unconfirmed {time.monotonic() - published:.1f} s after it was published")
        assert "1 new CRITICAL exception(s)" in text
        browser.screenshot(tmp_path / "live-unconfirmed.png")

        commit(db, NOTICE)
        deadline = time.monotonic() + ARRIVES_WITHIN
        while UNCONFIRMED in browser.text():
            assert time.monotonic() < deadline, "the snapshot never confirmed it"
            time.sleep(0.2)
        assert "1 new CRITICAL exception(s)" in browser.wait_for("New since you looked")
