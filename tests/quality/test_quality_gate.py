"""The quality gate of the gaming-day close: every expectation is BLOCK or WARN for a stated
reason; a BLOCK failure refuses the close, naming the expectation, its frame and rows, unless
it is accepted with a reason that goes to the audit trail; WARN failures (stream faults the
replay already reports as NJ-DATA-* exceptions) are reported and the day closes; every
validation is stored with its gaming day; the Data Docs page reads offline."""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import date
from pathlib import Path

import duckdb
import pytest

from pipeline.cli import main
from pipeline.config.catalog import gaming_day_of, load_catalog
from pipeline.events import default_codec
from pipeline.ledger.quality_frames import TableDay, event_contract
from pipeline.ledger.quality_results import results_of_day
from pipeline.ledger.store import Ledger
from pipeline.quality.docs import remote_references
from pipeline.quality.gate import ACCEPT_ACTION, stored_section
from pipeline.quality.run import run_quality
from pipeline.quality.suites import (
    Level,
    RawSuiteParams,
    ledger_suite,
    level_of,
    raw_events_suite,
)
from pipeline.reports.close import close_gaming_day
from pipeline.rules.codes import RULE_CODES
from pipeline.safe_text import html_text

DAY = date(2026, 11, 24)
FORM_SERIALS = "ledger.comp_vig_forms: a Form serial is used once per status (3.3(c)3ii)"


def _every_expectation() -> list[tuple[str, object]]:
    catalog = load_catalog()
    contract = event_contract(default_codec())
    rules_id, rules = next(iter(catalog.items()))
    table = TableDay("T01", rules_id, DAY, gaming_day_of(), rules)
    suites = {
        "raw_events": raw_events_suite(RawSuiteParams(contract, [table], catalog)),
        "ledger": ledger_suite(contract, catalog),
    }
    return [
        (f"{suite}.{frame}", e)
        for suite, frames in suites.items()
        for frame, expectations in frames.items()
        for e in expectations
    ]


def test_every_expectation_declares_a_level_and_why() -> None:
    warned = set()
    for frame, e in _every_expectation():
        meta = e.meta or {}  # type: ignore[attr-defined]
        level = level_of(meta)
        assert len(meta["why"]) > 40, (frame, e.description)  # type: ignore[attr-defined]
        if level is Level.WARN:
            assert meta["replay_code"] in RULE_CODES
            assert meta["replay_code"].startswith("NJ-DATA-")
            warned.add((frame, e.column, meta["replay_code"]))  # type: ignore[attr-defined]
    # Only stream imperfections the replay repairs and reports warn; everything else blocks.
    assert warned == {
        ("raw_events.deliveries", "event_id", "NJ-DATA-DUPLICATE"),
        ("raw_events.events", "seq_step", "NJ-DATA-REORDERED"),
        ("raw_events.deliveries", "outside_s", "NJ-DATA-CLOCK-SKEW"),
    }


def test_an_expectation_without_a_level_is_refused() -> None:
    with pytest.raises(ValueError, match="declares no level"):
        level_of({"why": "forgot the level"})
    with pytest.raises(ValueError, match="declares no level"):
        level_of(None)
    assert level_of({"level": "WARN"}) is Level.WARN


def test_verdicts_follow_the_levels(
    clean_ledger: Path, faulty_ledger: Path, tmp_path: Path
) -> None:
    clean = run_quality(clean_ledger, DAY, tmp_path / "clean")
    assert clean.verdict == "PASSED" and not clean.blocking() and not clean.warnings()

    faulty = run_quality(faulty_ledger, DAY, tmp_path / "faulty")
    assert faulty.verdict == "BLOCKED"
    assert FORM_SERIALS in {o.name for o in faulty.blocking()}
    assert {o.level for o in faulty.warnings()} == {Level.WARN}
    assert {o.frame for o in faulty.warnings()} == {"deliveries", "events"}
    written = json.loads((tmp_path / "faulty" / "quality-2026-11-24.json").read_text())
    assert written["verdict"] == "BLOCKED"
    assert written["blocking"] == len(faulty.blocking())
    levels = {f["level"] for s in written["suites"] for f in s["failures"]}
    assert levels == {"BLOCK", "WARN"}


def _copy(ledger: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "ledger.duckdb"
    shutil.copy(ledger, copy)
    return copy


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with Ledger(db, read_only=True) as ledger:
        return ledger.con.execute(sql).fetchall()


def test_a_block_failure_refuses_the_close_until_accepted(
    faulty_ledger: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _copy(faulty_ledger, tmp_path)
    reports = tmp_path / "reports"
    close = ["close", "--db", str(db), "--gaming-day", "2026-11-24", "--out", str(reports)]
    close += ["--actor", "demo-controller"]

    assert main(close) == 1
    refusal = capsys.readouterr().err
    assert "gaming day 2026-11-24 is not closed" in refusal
    assert FORM_SERIALS in refusal  # the expectation and its frame
    assert re.search(r"2 of \d+ rows fail, e\.g\. \[\{'serial': \d+, 'table_id': 'T0\d'", refusal)
    assert "why it blocks: a Form serial standing for two Forms" in refusal
    assert "replay the day" in refusal and "--accept-quality-failures" in refusal
    assert str(reports / "quality-2026-11-24.html") in refusal
    assert _rows(db, "SELECT count(*) FROM gaming_days") == [(0,)]
    assert _rows(db, "SELECT verdict FROM quality_results") == [("BLOCKED",)]

    assert main([*close, "--accept-quality-failures", "  "]) == 2  # a reason is required
    assert "needs a reason" in capsys.readouterr().err

    reason = "serial 1002 reissued by the pit clerk; count room confirmed one Form"
    code = main([*close, "--accept-quality-failures", reason])
    assert code in (0, 1)  # 1 only for blocking exceptions of the replay, not for quality
    out = capsys.readouterr().out
    assert "data quality BLOCKED" in out
    assert "accepted by demo-controller (--actor on operating-system account" in out
    assert f"allowed by [accounts] of {os.environ['BACCARAT_INSTALLATION']}/roles.toml): " in out
    assert reason in out
    audit = _rows(db, "SELECT action, actor, reason FROM gaming_day_audit ORDER BY acted_at")
    assert [a[:2] for a in audit] == [
        (ACCEPT_ACTION, "demo-controller"),
        ("CLOSE", "demo-controller"),
    ]
    assert str(audit[0][2]).startswith(reason) and FORM_SERIALS in str(audit[0][2])
    close_json = json.loads((reports / "close-2026-11-24.json").read_text())
    assert close_json["quality"]["verdict"] == "BLOCKED"
    assert close_json["quality"]["accepted"] == audit[0][2]
    assert "Data quality: BLOCKED" in (reports / "close-2026-11-24.html").read_text()
    assert ",quality" in (reports / "close-2026-11-24.csv").read_text().splitlines()[0]


def _deliver_twice(db: Path) -> None:
    """A device delivers one event a second time: a WARN finding, not a broken contract."""
    con = duckdb.connect(str(db))
    try:
        con.execute(
            "INSERT INTO deliveries SELECT source, 1000000, event_id, table_id, device_id, seq, "
            "occurred_at, gaming_date, payload_type, fields_json, occurrence + 1 FROM deliveries "
            "WHERE payload_type = 'CardDealt' ORDER BY source, position LIMIT 1"
        )
    finally:
        con.close()


def test_a_day_with_warnings_only_closes_and_its_result_is_stored(
    clean_ledger: Path, tmp_path: Path
) -> None:
    db = _copy(clean_ledger, tmp_path)
    reports = tmp_path / "reports"
    before = run_quality(db, DAY, reports)  # validated before the ledger changed
    _deliver_twice(db)

    with Ledger(db) as ledger:
        closed = close_gaming_day(
            ledger, DAY, reports, actor="controller", actor_source="test", quality=before
        )
        stored = results_of_day(ledger, DAY)
        section = stored_section(ledger, DAY)
        audit = ledger.con.execute("SELECT action FROM gaming_day_audit").fetchall()

    # the stale validation was not trusted: the close validated the day again
    assert closed.report["quality"]["verdict"] == "WARNINGS"
    assert closed.report["quality"]["blocking"] == []
    (warning,) = closed.report["quality"]["warnings"]
    assert warning["frame"] == "raw_events.deliveries" and warning["unexpected_count"] == 2
    assert audit == [("CLOSE",)]
    assert closed.quality_docs == reports / "quality-2026-11-24.html"
    # the stored result, queryable with the day
    (result,) = stored
    assert result["gaming_date"] == DAY and result["verdict"] == "WARNINGS"
    assert (result["blocking"], result["warnings"]) == (0, 1)
    assert result["evaluated"] == len(result["expectations"]) == before.evaluated
    failed = [e for e in result["expectations"] if not e["success"]]
    assert [(e["level"], e["frame"], e["unexpected_count"]) for e in failed] == [
        ("WARN", "deliveries", 2)
    ]
    assert result["summary"]["suites"][0]["name"] == "raw_events"
    # what the dashboards show: the stored validation as the close report states it
    assert section == {**closed.report["quality"], "accepted": None}
    assert _rows(
        db,
        "SELECT q.verdict FROM quality_results q JOIN gaming_days d USING (gaming_date)",
    ) == [("WARNINGS",)]


def test_data_docs_read_offline_and_show_every_result(faulty_ledger: Path, tmp_path: Path) -> None:
    report = run_quality(faulty_ledger, DAY, tmp_path)
    assert report.docs_file == tmp_path / "quality-2026-11-24.html"
    assert report.docs_problem is None  # GX rendered it, not the plain fallback
    page = report.docs_file.read_text()

    assert remote_references(page) == []
    assert not re.search(r"<(script|link)\b[^>]*(src|href)=[\"']?(https?:)?//", page, re.I)
    assert "<script" not in page.lower()
    assert "Data quality, gaming day 2026-11-24: BLOCKED" in page
    for outcome in (o for s in report.suites for o in s.expectations):
        assert html_text(outcome.description or "") in page  # as HTML text: ' is &#x27;
    assert "a Form serial is used once per status" in page
    assert "Unexpected Value" in page  # GX's own rendering of the offending values

    # the check means something: GX's stock page loads its CSS and JS from CDNs
    from great_expectations.render.renderer.page_renderer import ValidationResultsPageRenderer
    from great_expectations.render.view.view import DefaultJinjaPageView

    document = ValidationResultsPageRenderer().render(report.gx_results[0])
    stock = DefaultJinjaPageView().render(document)  # type: ignore[no-untyped-call]
    assert any("cdn" in r for r in remote_references(stock))
