"""The gaming-day close: figures that reconcile, tamper evidence, and audited reopening.

N.J.A.C. 19:47-3.3(c)3 and (c)3vii (vigorish documented on Forms is a complimentary in table
game win); the identities below are what an accountant relies on when signing the day.
"""

from __future__ import annotations

import shutil
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
from pipeline.reports.figures import canonical
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.tampering import rows_in_the_file

DAY = date(2026, 11, 24)


pytestmark = pytest.mark.xdist_group("closed-six-tables")
"""The day below is built once per process: ``--dist loadgroup`` keeps these tests on one
worker, which builds it once (each build about 5 s)."""


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A day of six tables and four hours with every fault kind, loaded, not closed: copy it
    (:func:`ledger_path`)."""
    directory = tmp_path_factory.mktemp("loaded")
    result = simulate(6, 4, 17, parse_faults("all"), DAY)
    paths = write_simulation(result, directory, DAY)
    db = directory / "ledger.duckdb"
    with Ledger(db) as ledger:
        ingest_paths(ledger, paths, DEFAULT_CATALOG)
    return db


@pytest.fixture()
def ledger_path(loaded: Path, tmp_path: Path) -> Path:
    """The loaded day's ledger, this test's own to close (each test acts in its own copy of
    the installation, so closing a copy of the same ledger is no fork)."""
    db = tmp_path / "ledger.duckdb"
    shutil.copyfile(loaded, db)
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


@pytest.mark.rule("PB-3.3c3-COMP-FORM", "CF-4.7a-ACCEPTED", "PB-3.3a-PLAYER", "PB-3.3c-VIG")
def test_each_difference_is_the_amounts_of_the_findings_that_explain_it(tmp_path: Path) -> None:
    """N.J.A.C. 19:47-3.3, 3.3(c), 3.3(c)3i, 3.3(c)3vii, 4.7(a): on a faulty emulated day the
    close shows each figure of each table and of the day recorded beside recomputed (win,
    paid, vigorish charged, complimentary vigorish), and every difference is the sum of the
    money findings' ``actual - expected`` (for the win, the house's side of what settling moved
    to the patron), named by code and count: nothing is left unexplained."""
    rates = {**parse_faults("all"), **parse_faults("banco_settlement=0.2,overstated_form=0.5")}
    result = simulate(6, 4, 17, rates, DAY)
    paths = write_simulation(result, tmp_path, DAY)
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        ingest_paths(ledger, paths, DEFAULT_CATALOG)
        report = close(ledger, tmp_path / "reports").report
        exceptions = ledger.con.execute(
            "SELECT table_id, code, actual_cents - expected_cents FROM exceptions "
            "WHERE actual_cents > expected_cents AND code IN (?, ?, ?)",
            ["PB-3.3c3-COMP-FORM", "PB-3.3c3-FORM-DEFERRED", "MB-7.3c3-FORM-DEFERRED"],
        ).fetchall()
    rows = {(r["table_id"], r["figure"]): r for r in report["reconciliation"]}
    tables = {t["table_id"]: t for t in report["tables"]}
    assert {table for table, _ in rows} == {*tables, "all tables"}
    for (table, figure), row in rows.items():
        assert row["difference_cents"] == row["recorded_cents"] - row["recomputed_cents"]
        assert row["unexplained_cents"] == 0, row
        assert row["difference_cents"] == row["explained_cents"], row
        assert bool(row["findings"]) == (row["difference_cents"] != 0), row
        if table == "all tables":
            parts = [r for (t, f), r in rows.items() if f == figure and t != "all tables"]
            for column in ("recorded_cents", "recomputed_cents", "explained_cents"):
                assert row[column] == sum(r[column] for r in parts)
    for table, t in tables.items():
        assert rows[(table, "win")]["recorded_cents"] == t["recorded_win_cents"]
        assert rows[(table, "win")]["recomputed_cents"] == t["expected_win_cents"]
        assert rows[(table, "complimentary")]["recomputed_cents"] == t["comp_vig_cents"]
        overstated = sum(amount for t_id, _, amount in exceptions if t_id == table)
        assert rows[(table, "complimentary")]["difference_cents"] == overstated
    for figure in ("win", "paid", "vigorish", "complimentary"):
        assert rows[("all tables", figure)]["difference_cents"] != 0, figure
    assert "CF-4.7a-ACCEPTED" in rows[("all tables", "win")]["findings"]


@pytest.mark.rule("PB-3.2a1-BANKER", "PB-3.3a-PLAYER", "PB-3.3c-VIG", "CF-4.7g-PLAYER")
def test_a_day_of_rounds_settled_as_if_the_other_side_won_reconciles_to_the_cent(
    tmp_path: Path,
) -> None:
    """N.J.A.C. 19:47-3.3, 4.10(b)-(c), 7.3: on a day whose dealers settle rounds as if the
    other side had won (winning wagers collected, losing ones paid, vigorish charged by the
    flipped result), the close explains every figure's difference with the findings' amounts,
    0 cents left over: a flip moves the stake as well as the payout, and the paid figure counts
    only the payout."""
    result = simulate(6, 2, 5, parse_faults("flipped_result=0.05"), DAY)
    flips = [f.detail for f in result.faults]
    paths = write_simulation(result, tmp_path, DAY)
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        ingest_paths(ledger, paths, DEFAULT_CATALOG)
        report = close(ledger, tmp_path / "reports").report
    assert any("should win" in d and "settled LOSE" in d for d in flips), flips
    assert any("should lose" in d and "settled WIN" in d for d in flips), flips
    rows = {(r["table_id"], r["figure"]): r for r in report["reconciliation"]}
    assert [r for r in rows.values() if r["unexplained_cents"] != 0] == []
    for figure, code in (
        ("win", "PB-3.3a-PLAYER"),
        ("paid", "PB-3.3a-PLAYER"),
        ("vigorish", "PB-3.3c-VIG"),
    ):
        day = rows[("all tables", figure)]
        assert day["difference_cents"] != 0, day
        assert day["explained_cents"] == day["difference_cents"], day
        assert code in day["findings"], day


def test_close_writes_reports_and_refuses_a_second_close(ledger_path: Path, tmp_path: Path) -> None:
    with Ledger(ledger_path) as ledger:
        first = close(ledger, tmp_path / "r")
        # revision 1 and the day's latest copy of it, each in the four formats
        assert sorted(p.name for p in first.files) == sorted(
            f"close-{DAY}{revision}{suffix}"
            for revision in (".r1", "")
            for suffix in (".json", ".csv", ".html", ".xlsx")
        )
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


def test_a_day_sealed_before_the_reconciliation_verifies_and_its_edits_are_named(
    ledger_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A day an earlier version sealed, whose sealed figures had no recorded-beside-recomputed
    section (and which wrote no report revisions), still verifies after the upgrade; an
    edited figure of it is still named."""
    import pipeline.reports.close as close_module

    def sealed_then(report: dict[str, object]) -> bytes:
        return canonical({k: v for k, v in report.items() if k != "reconciliation"})

    with Ledger(ledger_path) as ledger:
        with monkeypatch.context() as earlier_version:
            earlier_version.setattr(close_module, "canonical", sealed_then)
            close(ledger, tmp_path / "r")
        for revision in (tmp_path / "r").glob("close-*.r1.*"):
            revision.unlink()  # an earlier version wrote none
        assert verify(ledger) == []
        rows_in_the_file(ledger).con.execute(
            "UPDATE table_day_summary SET handle_cents = handle_cents + 100 "
            "WHERE table_id = (SELECT min(table_id) FROM table_day_summary)"
        )
        assert any("report: the figures recomputed from the rows" in p for p in verify(ledger))
