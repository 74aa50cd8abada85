"""Each user's journey through the dashboards in Chromium, as that user signs in (the proxy's
user header from localhost, which each test's installation is set to trust; the packaged
roles file trusts no proxy), each with the checks every journey makes
(:class:`browser_harness.Journey`): no page shows a traceback, nothing stays selected after
an action, and every link on the pages visited opens a page that is not an error.

- the analyst triages three exceptions on the queue (acknowledges two, escalates one) and
  sees a new one, published on the exceptions topic, arrive without a click;
- the accountant reviews the gaming-day close: the figures are the ledger's, the count of
  what blocks the close is right, and the downloads hold the ledger's figures; and on the
  autumn gaming day of 25 hours closes, reopens with a reason and closes again, each
  revision's report kept and the reopen's notice in between;
- the investigator goes from a patron's profile to one of the patron's rounds, builds its
  evidence bundle on the trail page and downloads it, and the bundle verifies.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from _chromium import Browser
from browser_harness import (
    Journey,
    browser_tests,
    choose,
    click,
    downloaded,
    grid_rows,
    shown_in,
    shown_in_when_drawn,
    signed_in,
    through_history,
    type_into,
    url_params,
)
from dashboard_data import (
    AUTUMN_DAY,
    AUTUMN_LEDGER_GROUP,
    DAY,
    built_ledger,
    ledger_copy,
    shown_text,
)
from test_dashboard_feed import NOTICE, UNCONFIRMED, publish, topics_of_its_own

from dashboards import links
from pipeline.bundle.acks import AckJournal
from pipeline.bundle.export import verify_bundle
from pipeline.cli import main
from pipeline.ledger.store import Ledger
from pipeline.replay.findings import money
from pipeline.reports.close import day_report

pytestmark = browser_tests(None)  # each journey serves its own copy of a ledger
ON_THE_AUTUMN_LEDGER: pytest.MarkDecorator = pytest.mark.xdist_group(AUTUMN_LEDGER_GROUP)
"""On the worker that runs every test of the autumn day's ledger, which it builds once."""

ARRIVES_WITHIN = 15.0
"""Seconds for the live feed to show a published exception (as in the live browser test)."""


def test_the_analyst_triages_three_exceptions_and_sees_a_new_one_arrive(
    kafka_broker: str, browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three critical exceptions of the day: two picked from the queue's list and
    acknowledged together with one note, the third opened by its link and escalated. Each
    confirmation pops up where the analyst looks (a toast in the window, not only atop the
    page) and the journal holds exactly those three records, by the analyst. Then one the
    stream publishes on the exceptions topic shows on the queue without a click."""
    settings = topics_of_its_own(kafka_broker)
    monkeypatch.setenv("BACCARAT_CONFIRM_SECONDS", "1")
    with signed_in(browser, "demo-analyst", tmp_path, feed=settings) as (base, db):
        with Ledger(db, read_only=True) as ledger:
            open_ids = [
                str(r[0])
                for r in ledger.con.execute(
                    "SELECT exception_id FROM exceptions WHERE gaming_date = ? AND "
                    "severity = 'CRITICAL' ORDER BY table_id, exception_id LIMIT 3",
                    [DAY],
                ).fetchall()
            ]
        assert len(open_ids) == 3
        together, escalated = open_ids[:2], open_ids[2]
        note = "journey: acknowledged together"
        journey = Journey(browser, base)

        journey.open("/exceptions", "Exception queue", "Act on several")
        for exception_id in together:
            choose(browser, "Act on several", exception_id)
        journey.arrived("2 selected", "Record for all 2", *together)
        type_into(browser, "Note (why; required)", note, within=".st-key-bulk-note")
        click(browser, "button", "Record for all 2")
        text = journey.acted("ACKNOWLEDGE of 2 exceptions", "recorded by demo-analyst")
        assert f"({', '.join(together)})" in text
        assert "2 selected" not in text, "the picks survive the action"
        assert_toast_in_window(browser, together[0])

        journey.open(f"/exceptions?exception={escalated}", "Note (why; required)")
        click(browser, "[data-testid=stRadio] label", "Escalate")
        type_into(browser, "Note (why; required)", f"journey: escalate {escalated}")
        click(browser, "button", "Record")
        journey.acted(f"ESCALATE of exception {escalated} recorded by demo-analyst")
        assert_toast_in_window(browser, escalated)

        journal = db.with_name(f"{db.stem}.acknowledgements.jsonl")
        records = [json.loads(line) for line in journal.read_text().splitlines() if line]
        assert [(r["exception_id"], r["action"], r["note"]) for r in records] == [
            *((i, "ACKNOWLEDGE", note) for i in together),
            (escalated, "ESCALATE", f"journey: escalate {escalated}"),
        ]
        assert {r["actor"] for r in records} == {"demo-analyst"}

        journey.open("/exceptions", "Exception queue", "New since you looked")
        assert UNCONFIRMED not in browser.text()
        publish(settings, NOTICE)
        text = browser.wait_for(UNCONFIRMED, timeout=ARRIVES_WITHIN, poll=0.2)
        assert "1 new CRITICAL exception(s)" in text
        journey.arrived()
        journey.links_answer()


def assert_toast_in_window(browser: Browser, exception_id: str) -> None:
    """The confirmation naming ``exception_id`` is a toast inside the window."""
    toast = browser.evaluate(
        "(() => { const t = document.querySelector('[data-testid=stToast]');"
        " if (!t) { return null; } const r = t.getBoundingClientRect();"
        " return {text: t.innerText, top: r.top, bottom: r.bottom,"
        " height: window.innerHeight}; })()"
    )
    assert toast is not None, "no toast: the confirmation is only at the top"
    assert exception_id in toast["text"]
    assert toast["top"] >= 0 and toast["bottom"] <= toast["height"], toast


def test_the_accountant_reviews_the_close(browser: Browser, tmp_path: Path) -> None:
    """The close page of the day shows the ledger's close figures (the close report, read
    from the ledger by the test), counts what blocks the close in the ledger and once the
    journal's acknowledgements are imported, and its downloads hold the same figures."""
    with signed_in(browser, "demo-controller", tmp_path) as (base, db):
        with Ledger(db, read_only=True) as ledger:
            report = day_report(ledger, DAY)
        blocking = [str(b["exception_id"]) for b in report["blocking_exceptions"]]
        assert len(blocking) > 1
        AckJournal.for_ledger(db).append(  # one explained since the close
            exception_id=blocking[0],
            action="ACKNOWLEDGE",
            note="explained by the pit",
            actor="demo-analyst",
            actor_source="test",
            table_id=str(report["blocking_exceptions"][0]["table_id"]),
            gaming_date=DAY,
        )
        journey = Journey(browser, base)
        journey.open("/close", "Gaming-day close", "Per table")

        totals = report["totals"]
        metrics = dict(
            browser.evaluate(
                "[...document.querySelectorAll('[data-testid=stMetric]')].map(m => ["
                "m.querySelector('[data-testid=stMetricLabel]').innerText.trim(),"
                "m.querySelector('[data-testid=stMetricValue]').innerText.trim()])"
            )
        )
        assert metrics == {
            "Handle": money(totals["handle_cents"]),
            "Win": money(totals["win_cents"]),
            "Hold": f"{totals['hold_pct']} %",
            "Vigorish collected": money(totals["vig_collected_cents"]),
            "Uncollected (no Form)": money(totals["vig_uncollected_cents"]),
            "Complimentary (Forms)": money(totals["comp_vig_cents"]),
        }
        text = journey.open("/close?tab=blocking", "Critical exceptions without")
        assert f"({len(blocking)} block there)" in text
        assert f"leave {len(blocking) - 1} blocking once imported" in text
        # the grid puts only the rows in view into the page: those are blocking, the one
        # acknowledged is not among them
        shown = {
            r["exception_id"]
            for r in grid_rows(
                browser, "exception_id", "table_id", "code", "round_id", "seat", "serial", "message"
            )
        }
        assert shown and shown <= set(blocking[1:])

        journey.open("/close?tab=downloads", "Day report (Excel)")
        labels = browser.evaluate(
            "[...document.querySelectorAll('[data-testid=stDownloadButton]')]"
            ".map(b => b.innerText.trim())"
        )
        assert labels == [
            "Tables (CSV)",
            "Win by wager (CSV)",
            "Day report (HTML)",
            "Day report (Excel)",
        ]
        tables = downloaded(
            browser, "Tables (CSV)", tmp_path / "downloads", f"close-{DAY}-tables.csv"
        )
        with tables.open(newline="") as f:
            rows = list(csv.DictReader(f))
        assert {r["table_id"]: int(r["handle_cents"]) for r in rows} == {
            str(t["table_id"]): t["handle_cents"] for t in report["tables"]
        }
        assert sum(int(r["win_cents"]) for r in rows) == totals["win_cents"]

        # the view is in the URL: Back and Forward return to the pit and the tab left
        pit = str(report["tables"][0]["pit"])
        journey.open("/close", "Gaming-day close", "Per table")
        choose(browser, "Pit", pit)
        click(browser, "[role=tab]", "Win by wager type")
        journey.arrived("Recorded against expected")
        assert url_params(browser) == {"pit": [pit], "tab": ["wagers"]}
        through_history(browser, -1, "Per table")
        assert url_params(browser) == {"pit": [pit]}
        assert pit in shown_in_when_drawn(browser, "stMultiSelect", "Pit", pit)
        through_history(browser, -1, "Per table")
        assert url_params(browser) == {}
        assert pit not in shown_in(browser, "stMultiSelect", "Pit")
        through_history(browser, 1, "Per table")
        through_history(browser, 1, "Recorded against expected")
        journey.arrived()
        assert url_params(browser) == {"pit": [pit], "tab": ["wagers"]}
        assert pit in shown_in_when_drawn(browser, "stMultiSelect", "Pit", pit)
        journey.links_answer()


CHARTED_PAGES = {
    "exceptions": "Exception queue",
    "statistics": "Statistical alarms",
    "close": "Gaming-day close",
    "people": "Patrons and dealers",
}
"""The pages that draw charts, by address and heading: the queue's exceptions by hour and a
patron's play, both in the casino's time zone, and the hold bands of the statistics and the
close. Chromium draws them on the autumn day; every page renders both daylight-saving days
through AppTest (``tests/e2e/test_daylight_saving.py``), and every page renders in Chromium on
an ordinary day (``test_dashboard_browser.py``)."""


def cli(*argv: object) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        code = main([str(a) for a in argv])
    assert code in (0, 1), (
        f"baccarat-audit {' '.join(map(str, argv))} exited {code}"
    )  # 1: closed, blocked


def sealed_digest(document: Path) -> str:
    """The start of the report digest a close's JSON file holds, as the close page shows it."""
    digest: str = json.loads(document.read_bytes())["report_sha256"]
    return digest[:16]


@ON_THE_AUTUMN_LEDGER
def test_the_accountant_closes_reopens_and_closes_the_autumn_day_again(
    browser: Browser, tmp_path: Path
) -> None:
    """On 2026-10-31, the gaming day of 25 hours (New York's clocks go back in its night),
    closed once: the close page serves revision 1's sealed report; reopened with a reason,
    the page says the figures are a draft again and the day's latest report is the notice
    naming the reason, revision 1's files kept; closed again, the page serves revision 2,
    which states the reopen. The pages that draw charts render on the way, without a
    traceback (N.J.A.C. 19:47-3.3(c)3vii: the day's win, per table and pit, as its close
    reports it)."""
    directory = tmp_path / "ledger"
    db = ledger_copy(directory, tables=2, hours=25.0, day=AUTUMN_DAY)
    reports = directory / "reports"
    for sealed in (built_ledger(2, 25.0, day=AUTUMN_DAY).parent / "reports").glob("close-*"):
        shutil.copyfile(sealed, reports / sealed.name)  # the first close's own files
    day = AUTUMN_DAY.isoformat()
    stem = f"close-{day}"
    reason = "count sheet of pit 2 keyed again"
    with signed_in(browser, "demo-controller", tmp_path, db=db) as (base, _):
        journey = Journey(browser, base)
        for path, heading in CHARTED_PAGES.items():
            journey.open(f"/{path}?day={day}", heading)
            assert day in shown_in_when_drawn(browser, "stSelectbox", "Gaming day", day), path
        text = journey.open(f"/close?day={day}&tab=downloads", "Closed ", "Day report (HTML)")
        assert sealed_digest(reports / f"{stem}.r1.json") in text
        first = downloaded(browser, "Day report (HTML)", tmp_path / "r1", f"{stem}.r1.html")
        assert first.read_bytes() == (reports / f"{stem}.r1.html").read_bytes()

        cli("reopen", "--db", db, "--gaming-day", day, "--reason", reason,
            "--actor", "demo-controller")  # fmt: skip
        text = journey.open(f"/close?day={day}&tab=downloads", "was reopened", "Day report")
        assert f"Gaming day {day} was reopened: these figures are a draft again." in text
        notice = (reports / f"{stem}.html").read_text(encoding="utf-8")
        assert f"Gaming day close {day}: REOPENED" in notice and reason in notice
        assert not (reports / f"{stem}.xlsx").exists(), "an unnumbered file still says CLOSED"
        assert sorted(p.name for p in reports.glob(f"{stem}.r*")) == [
            f"{stem}.r1.{suffix}" for suffix in ("csv", "html", "json", "xlsx")
        ]
        draft = downloaded(browser, "Day report (HTML)", tmp_path / "draft", f"{stem}-draft.html")
        assert "DRAFT: this gaming day is not closed" in draft.read_text(encoding="utf-8")

        cli("close", "--db", db, "--gaming-day", day, "--out", reports,
            "--actor", "demo-controller")  # fmt: skip
        text = journey.open(f"/close?day={day}&tab=downloads", "Closed ", "Day report (HTML)")
        assert "was reopened" not in text
        assert sealed_digest(reports / f"{stem}.r2.json") in text
        second = downloaded(browser, "Day report (HTML)", tmp_path / "r2", f"{stem}.r2.html")
        page = second.read_text(encoding="utf-8")
        assert second.read_bytes() == (reports / f"{stem}.r2.html").read_bytes()
        assert f"Gaming day close {day}, revision 2" in page and reason in page
        assert "25 hours" in page
        assert (reports / f"{stem}.r1.html").read_bytes() == first.read_bytes(), "r1 rewritten"
        journey.acted("Gaming-day close")
        journey.links_answer()


def test_the_investigator_goes_from_a_patron_to_a_verified_bundle(
    browser: Browser, tmp_path: Path
) -> None:
    """The patron with the most exceptions: the profile lists the rounds they name; the
    trail of the first shows its raw events, and the evidence bundle built and downloaded
    there verifies (every file against its SHA-256 manifest, and the zip against the digest
    the page shows)."""
    with signed_in(browser, "demo-investigator", tmp_path) as (base, db):
        with Ledger(db, read_only=True) as ledger:
            patron, named = ledger.con.execute(
                "SELECT patron_id, count(*) FROM exceptions WHERE patron_id IS NOT NULL "
                "GROUP BY ALL ORDER BY 2 DESC, 1 LIMIT 1"
            ).fetchone() or ("", 0)
        journey = Journey(browser, base)
        journey.open(f"/people?patron={patron}", "Exceptions naming the patron")
        findings = grid_rows(
            browser, "gaming day", "table_id", "round_id", "seat", "severity", "code", "message"
        )
        assert len(findings) == named
        # a screen reader's table holds a link cell's URL; the grid shows the id it carries
        link = next(f["round_id"] for f in findings if f["round_id"])
        round_id = shown_text(link, links.id_pattern("round"))
        with Ledger(db, read_only=True) as ledger:
            seats = ledger.con.execute(
                "SELECT count(*) FROM wagers WHERE round_id = ? AND patron_id = ?",
                [round_id, patron],
            ).fetchone()
        assert seats is not None and seats[0] > 0, f"{patron} did not wager in {round_id}"

        text = journey.open(f"/trail?round={round_id}", "Build evidence bundle")
        assert "Nothing in the ledger for round" not in text
        click(browser, "button", "Build evidence bundle")
        text = journey.acted("sha256 ")
        name = next(w for w in text.split() if w.endswith(f"-{round_id}.zip"))
        digest = text.split("sha256 ", 1)[1].split()[0]
        bundle = downloaded(browser, f"Download {name}", tmp_path / "downloads", name)
        assert verify_bundle(bundle, expected_sha256=digest) == []
        with zipfile.ZipFile(bundle) as z, z.open("rows/wagers.csv") as f:
            wagers = list(csv.DictReader(io.TextIOWrapper(f, "utf-8")))
        assert {w["round_id"] for w in wagers} == {round_id}
        assert patron in {w["patron_id"] for w in wagers}
        journey.links_answer()
