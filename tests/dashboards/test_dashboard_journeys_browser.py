"""Each user's journey through the dashboards in Chromium, as that user signs in (the proxy's
user header from localhost, which each test's installation is set to trust; the packaged
roles file trusts no proxy):

- the analyst triages three exceptions on the queue (acknowledges two, escalates one) and
  sees a new one, published on the exceptions topic, arrive without a click;
- the accountant reviews the gaming-day close: the figures are the ledger's, the count of
  what blocks the close is right, and the downloads hold the ledger's figures;
- the investigator goes from a patron's profile to one of the patron's rounds, builds its
  evidence bundle on the trail page and downloads it, and the bundle verifies.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from _chromium import CHROMIUM, Browser, chromium, free_port
from dashboard_data import DAY, ledger_copy, shown_text, trust_localhost
from test_dashboard_feed import NOTICE, UNCONFIRMED, publish, topics_of_its_own

from dashboards import links
from dashboards.server import running_dashboard
from pipeline.bundle.acks import AckJournal
from pipeline.bundle.export import verify_bundle
from pipeline.ledger.store import Ledger
from pipeline.replay.findings import money
from pipeline.reports.close import day_report
from pipeline.stream.settings import KafkaSettings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("chromium"),
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason=f"{CHROMIUM} not found: apt-get install -y --no-install-recommends chromium",
    ),
]

ARRIVES_WITHIN = 15.0
"""Seconds for the live feed to show a published exception (as in the live browser test)."""
PAGE_TIMEOUT = 90.0


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        b.call("Network.enable")
        yield b


@contextlib.contextmanager
def signed_in(
    browser: Browser, user: str, directory: Path, feed: KafkaSettings | None = None
) -> Iterator[tuple[str, Path]]:
    """A private ledger copy served on a free port (following the exceptions topic of
    ``feed``, if given), the browser signed in as ``user``: the base URL and the ledger."""
    db = ledger_copy(directory, tables=3, hours=2.0)
    trust_localhost()  # the server reads this test's installation
    browser.call("Network.setExtraHTTPHeaders", headers={"X-Forwarded-User": user})
    with (
        (directory / "streamlit.log").open("w") as log,
        running_dashboard(db, free_port(), log=log, feed=feed) as base,
    ):
        yield base, db


def open_page(browser: Browser, url: str, *needles: str) -> str:
    browser.navigate(url)
    text: str = browser.wait_for(*needles, timeout=PAGE_TIMEOUT)
    return text


def type_into(browser: Browser, label: str, value: str, within: str = "body") -> None:
    """Type ``value`` into the text box labelled ``label`` (the first inside the element
    matching ``within``), as React hears a person type."""
    done = browser.evaluate(
        f"""(() => {{
        const scope = document.querySelector({json.dumps(within)});
        const box = scope && scope.querySelector('textarea[aria-label={json.dumps(label)}], '
            + 'input[aria-label={json.dumps(label)}]');
        if (!box) {{ return false; }}
        const proto = box.tagName === 'TEXTAREA' ? HTMLTextAreaElement : HTMLInputElement;
        const setter = Object.getOwnPropertyDescriptor(proto.prototype, 'value').set;
        setter.call(box, {json.dumps(value)});
        box.dispatchEvent(new Event('input', {{bubbles: true}}));
        box.dispatchEvent(new Event('change', {{bubbles: true}}));
        return true; }})()"""
    )
    assert done, f"no text box labelled {label!r}"


def downloaded(browser: Browser, button: str, directory: Path, name: str) -> Path:
    """Click the download button ``button`` and wait for its file ``name`` in ``directory``."""
    browser.call("Page.setDownloadBehavior", behavior="allow", downloadPath=str(directory))
    click(browser, "[data-testid=stDownloadButton] button", button)
    path = directory / name
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{button!r} downloaded no {name}"
        time.sleep(0.2)
    return path


def grid_rows(browser: Browser, *columns: str, timeout: float = 15) -> list[dict[str, str]]:
    """The rows of the one dataframe on the page headed by exactly these ``columns``, read
    from the table Streamlit's grid keeps in the page for screen readers (the grid itself
    is drawn on a canvas). The grid fills that table once drawn, and draws only the rows in
    view: each grid is scrolled into view, as a reader scrolls down to it."""
    deadline = time.monotonic() + timeout
    while True:
        tables = browser.evaluate(
            "[...document.querySelectorAll('[data-testid=stDataFrame]')].map(g => {"
            " g.scrollIntoView({block: 'center'});"
            " return [...g.querySelectorAll('table tr')]"
            ".map(r => [...r.children].map(c => c.innerText.trim())); })"
        )
        found = [body for header, *body in filter(None, tables) if header == list(columns)]
        if len(found) == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert len(found) == 1, f"{len(found)} tables headed {columns} on the page"
    return [dict(zip(columns, row, strict=True)) for row in found[0]]


def click(browser: Browser, selector: str, text: str) -> None:
    """Click the element matching ``selector`` whose visible text is ``text``."""
    done = browser.evaluate(
        f"""(() => {{
        const e = [...document.querySelectorAll({json.dumps(selector)})]
            .find(x => x.innerText.trim() === {json.dumps(text)});
        if (e) {{ e.click(); }} return !!e; }})()"""
    )
    assert done, f"nothing to click: {selector} {text!r}"


def centre_of(browser: Browser, finder: str) -> dict[str, float] | None:
    """The viewport centre of the element the JavaScript expression ``finder`` yields,
    scrolled into view first; None while there is none."""
    point: dict[str, float] | None = browser.evaluate(
        f"""(() => {{ const e = {finder}; if (!e) {{ return null; }}
        e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
        return {{x: r.left + r.width / 2, y: r.top + r.height / 2}}; }})()"""
    )
    return point


def pick(browser: Browser, label: str, needle: str) -> None:
    """Pick the option containing ``needle`` in the multiselect whose label starts with
    ``label``, as a person does: click the box, type, click the option."""
    box = f"document.querySelector('input[aria-label^={json.dumps(label)}]')"
    point = centre_of(browser, box)
    assert point is not None, f"no multiselect labelled {label!r}"
    browser.press(**point)
    browser.call("Input.insertText", text=needle)
    option = (
        f"[...document.querySelectorAll('[role=option]')]"
        f".find(o => o.innerText.includes({json.dumps(needle)}))"
    )
    deadline = time.monotonic() + PAGE_TIMEOUT
    while (point := centre_of(browser, option)) is None:
        assert time.monotonic() < deadline, f"{label!r} never offered {needle!r}"
        time.sleep(0.1)
    browser.press(**point)
    # A pick reruns the page's script (the first also opens the exception); a second pick
    # typed while that rerun redraws the box is lost, so wait until the box holds the pick.
    held = (
        f"({box}.closest('[data-testid=stMultiSelect]').innerText.includes({json.dumps(needle)}))"
    )
    while not browser.evaluate(held):
        assert time.monotonic() < deadline, f"{label!r} never held {needle!r}"
        time.sleep(0.1)
    browser.wait_for()


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

        open_page(browser, f"{base}/exceptions", "Exception queue", "Act on several")
        for exception_id in together:
            pick(browser, "Act on several", exception_id)
        browser.wait_for("2 selected", "Record for all 2", *together)
        type_into(browser, "Note (why; required)", note, within=".st-key-bulk-note")
        click(browser, "button", "Record for all 2")
        text = browser.wait_for("ACKNOWLEDGE of 2 exceptions", "recorded by demo-analyst")
        assert f"({', '.join(together)})" in text
        assert_toast_in_window(browser, together[0])

        open_page(browser, f"{base}/exceptions?exception={escalated}", "Note (why; required)")
        click(browser, "[data-testid=stRadio] label", "Escalate")
        type_into(browser, "Note (why; required)", f"journey: escalate {escalated}")
        click(browser, "button", "Record")
        browser.wait_for(f"ESCALATE of exception {escalated} recorded by demo-analyst")
        assert_toast_in_window(browser, escalated)

        journal = db.with_name(f"{db.stem}.acknowledgements.jsonl")
        records = [json.loads(line) for line in journal.read_text().splitlines() if line]
        assert [(r["exception_id"], r["action"], r["note"]) for r in records] == [
            *((i, "ACKNOWLEDGE", note) for i in together),
            (escalated, "ESCALATE", f"journey: escalate {escalated}"),
        ]
        assert {r["actor"] for r in records} == {"demo-analyst"}

        open_page(browser, f"{base}/exceptions", "Exception queue", "New since you looked")
        assert UNCONFIRMED not in browser.text()
        publish(settings, NOTICE)
        text = browser.wait_for(UNCONFIRMED, timeout=ARRIVES_WITHIN, poll=0.2)
        assert "1 new CRITICAL exception(s)" in text


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
        text = open_page(browser, f"{base}/close", "Gaming-day close", "Downloads")

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
        open_page(browser, f"{base}/people?patron={patron}", "Exceptions naming the patron")
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

        text = open_page(browser, f"{base}/trail?round={round_id}", "Build evidence bundle")
        assert "Nothing in the ledger for round" not in text
        click(browser, "button", "Build evidence bundle")
        text = browser.wait_for("sha256 ", timeout=PAGE_TIMEOUT)
        name = next(w for w in text.split() if w.endswith(f"-{round_id}.zip"))
        digest = text.split("sha256 ", 1)[1].split()[0]
        bundle = downloaded(browser, f"Download {name}", tmp_path / "downloads", name)
        assert verify_bundle(bundle, expected_sha256=digest) == []
        with zipfile.ZipFile(bundle) as z, z.open("rows/wagers.csv") as f:
            wagers = list(csv.DictReader(io.TextIOWrapper(f, "utf-8")))
        assert {w["round_id"] for w in wagers} == {round_id}
        assert patron in {w["patron_id"] for w in wagers}
