"""The gaming-day close: figures that reconcile, tamper evidence, and audited reopening.

N.J.A.C. 19:47-3.3(c)3 and (c)3vii (vigorish documented on Forms is a complimentary in table
game win); the identities below are what an accountant relies on when signing the day.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pytest

from pipeline.cli import ingest_paths, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.ledger.store import Ledger
from pipeline.reports.close import (
    CloseResult,
    DayClosedError,
    close_gaming_day,
    reopen_gaming_day,
    verify,
)
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.tampering import rows_in_the_file

DAY = date(2026, 11, 24)


@pytest.fixture()
def ledger_path(tmp_path: Path) -> Path:
    result = simulate(6, 4, 17, parse_faults("all"), DAY)
    paths = write_simulation(result, tmp_path, DAY)
    db = tmp_path / "ledger.duckdb"
    with Ledger(db) as ledger:
        ingest_paths(ledger, paths, DEFAULT_CATALOG)
    return db


def close(ledger: Ledger, out: Path) -> CloseResult:
    return close_gaming_day(ledger, DAY, out, actor="accountant", actor_source="test")


def scalar(ledger: Ledger, sql: str, *params: object) -> int:
    row = ledger.con.execute(sql, list(params)).fetchone()
    assert row is not None
    return int(row[0] or 0)


def test_figures_reconcile(ledger_path: Path, tmp_path: Path) -> None:
    """Win by table is the sum of its settlements; the casino total is the sum of tables;
    every deferred cent is collected, documented (PB-3.3c3vii-COMPLIMENTARY) or written off
    (PB-3.3c4-DEFERRED-DEADLINE)."""
    with Ledger(ledger_path) as ledger:
        closed = close(ledger, tmp_path / "reports")
        report = closed.report
        for t in report["tables"]:
            recorded = scalar(
                ledger,
                """
                SELECT sum(CASE recorded_result WHEN 'LOSE' THEN stake_cents
                           WHEN 'WIN' THEN -recorded_paid_cents ELSE 0 END)
                FROM settlements WHERE table_id = ?""",
                t["table_id"],
            )
            assert t["recorded_win_cents"] == recorded
            collected = scalar(
                ledger,
                """
                SELECT sum(amount_cents) FROM vig_ledger WHERE table_id = ?
                AND kind IN ('COLLECTED', 'DEFERRED_COLLECTED')""",
                t["table_id"],
            )
            assert t["vig_collected_cents"] == collected
            assert t["win_cents"] == t["recorded_win_cents"] + t["vig_collected_cents"]
            deferred, later, documented, written_off = (
                scalar(
                    ledger,
                    "SELECT sum(amount_cents) FROM vig_ledger WHERE table_id = ? AND kind = ?",
                    t["table_id"],
                    kind,
                )
                for kind in ("DEFERRED", "DEFERRED_COLLECTED", "DOCUMENTED", "WRITTEN_OFF")
            )
            assert deferred == later + documented + written_off
            assert t["vig_uncollected_cents"] == written_off
            forms = scalar(
                ledger,
                "SELECT sum(amount_cents) FROM comp_vig_forms WHERE "
                "table_id = ? AND status = 'ISSUED'",
                t["table_id"],
            )
            assert t["comp_vig_cents"] == forms
        totals = report["totals"]
        for key in (
            "handle_cents",
            "recorded_win_cents",
            "vig_collected_cents",
            "comp_vig_cents",
            "win_cents",
            "rounds",
        ):
            assert totals[key] == sum(t[key] for t in report["tables"])
        by_wager = sum(w["recorded_win_cents"] for w in report["win_by_wager"])
        assert by_wager == totals["recorded_win_cents"]
        assert totals["handle_cents"] > 0 and totals["rounds"] > 1000


def test_close_writes_reports_and_refuses_a_second_close(ledger_path: Path, tmp_path: Path) -> None:
    with Ledger(ledger_path) as ledger:
        first = close(ledger, tmp_path / "r")
        assert [p.suffix for p in first.files] == [".json", ".csv", ".html", ".xlsx"]
        assert all(p.stat().st_size > 0 for p in first.files)
        html_page = next(p for p in first.files if p.suffix == ".html")
        assert "N.J.A.C. 19:47-3.3(c)3vii" in html_page.read_text()
        with pytest.raises(DayClosedError, match="reopen it with a reason"):
            close(ledger, tmp_path / "r")
        with pytest.raises(ValueError, match="needs a reason"):
            reopen_gaming_day(ledger, DAY, "  ", actor="auditor", actor_source="test")
        reopen_gaming_day(
            ledger, DAY, "late duplicate forms from the cage", actor="auditor", actor_source="test"
        )
        audit = ledger.con.execute(
            "SELECT action, actor, actor_source, reason FROM gaming_day_audit ORDER BY acted_at"
        ).fetchall()
        assert [a[0] for a in audit] == ["CLOSE", "REOPEN"]
        assert audit[1][1:] == ("auditor", "test", "late duplicate forms from the cage")
        second = close(ledger, tmp_path / "r")
        assert second.report_sha256 == first.report_sha256  # nothing changed in between
        assert verify(ledger) == []


def test_verify_names_the_table_and_row_edited_after_close(
    ledger_path: Path, tmp_path: Path
) -> None:
    with Ledger(ledger_path) as ledger:
        close(ledger, tmp_path / "r")
        assert verify(ledger) == []
        rows_in_the_file(ledger).con.execute(
            "UPDATE rounds SET winner = 'PLAYER' WHERE round_id = "
            "(SELECT min(round_id) FROM rounds WHERE winner = 'BANKER')"
        )
        ledger.con.execute(
            "DELETE FROM exceptions WHERE exception_id = (SELECT min(exception_id) FROM exceptions)"
        )
        problems = verify(ledger)
    assert any(
        "rounds: row changed or added after the close" in p and "PLAYER" in p for p in problems
    )
    assert any("exceptions: 1 row(s) sealed at the close are gone" in p for p in problems)


def test_verify_names_a_day_row_that_disagrees_with_its_seal(
    ledger_path: Path, tmp_path: Path
) -> None:
    with Ledger(ledger_path) as ledger:
        close(ledger, tmp_path / "r")
        ledger.con.execute("UPDATE gaming_days SET report_sha256 = 'x'")
        assert any(
            "gaming_days: report_sha256 is 'x' but the close (seq 1) sealed" in p
            for p in verify(ledger)
        )


def test_close_records_the_input_file_digests(ledger_path: Path, tmp_path: Path) -> None:
    with Ledger(ledger_path) as ledger:
        closed = close(ledger, tmp_path / "r")
    inputs = closed.report["inputs"]
    assert len(inputs) == 6
    assert all(len(i["sha256"]) == 64 and i["events"] > 0 for i in inputs)


def test_readers_see_closed_results_read_only(ledger_path: Path, tmp_path: Path) -> None:
    with Ledger(ledger_path) as ledger:
        close(ledger, tmp_path / "r")
    con = duckdb.connect(str(ledger_path), read_only=True)
    try:
        status = con.execute("SELECT status FROM gaming_days").fetchone()
    finally:
        con.close()
    assert status is not None and status[0].startswith("CLOSED")
