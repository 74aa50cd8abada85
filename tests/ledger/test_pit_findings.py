"""The gaming day's pit findings (N.J.A.C. 19:47-3.5(b), 4.4(b), 7.5(c), 3.10(c)1) in the
ledger: judged from every table-day's practice rows each time a table-day is written, so that
replaying one table-day again recomputes them, never loses nor repeats one, and they sit in
the same exceptions table as every other finding."""

from __future__ import annotations

from pathlib import Path

from pipeline.ingest.pits import judge_pits
from pipeline.ingest.stage import load_batch
from pipeline.ledger.columns import source_deliveries
from pipeline.ledger.migrations import MIGRATIONS
from pipeline.ledger.store import Ledger
from pipeline.replay.rows import ReplayResult
from tests.ledger.conftest import ledger_at_schema
from tests.replay.builder import GAMING_DATE
from tests.replay.test_pit_rules import FILED, table_day, table_events

PIT_PROCEDURE = "PB-3.10c1-PIT-PROCEDURE"


def pit_exceptions(ledger: Ledger) -> list[tuple[str, str, str]]:
    """(table, code, exception id) of the day's pit findings."""
    return [
        (str(t), str(c), str(i))
        for t, c, i in ledger.con.execute(
            "SELECT table_id, code, exception_id FROM exceptions WHERE gaming_date = ? "
            "AND code LIKE '%-PIT%' ORDER BY ALL",
            [GAMING_DATE],
        ).fetchall()
    ]


def write(ledger: Ledger, *days: ReplayResult) -> None:
    with ledger.transaction():
        for day in days:
            ledger.replace_table_day(day.table_id, GAMING_DATE, day)
        judge_pits(ledger)


def test_replaying_one_table_day_recomputes_the_pit(tmp_path: Path) -> None:
    """PB-3.10c1-PIT-PROCEDURE, N.J.A.C. 19:47-3.10(c)1: T01 settles by (b)1, T03 of the same
    pit by (b)3. Whichever of them is written again, the day holds the one finding at T03, with
    the same id; T03 replayed keeping to (b)1 withdraws it; two more (b)3 tables make T01 the
    table off its pit's procedure."""
    first, off = table_day("T01", "pb-5-classic"), table_day("T03", "pb-5-per-seat")
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        write(ledger, first, off)
        ((table, code, exception_id),) = pit_exceptions(ledger)
        assert (table, code) == ("T03", PIT_PROCEDURE)

        write(ledger, off)
        assert pit_exceptions(ledger) == [("T03", PIT_PROCEDURE, exception_id)]
        write(ledger, first)
        assert pit_exceptions(ledger) == [("T03", PIT_PROCEDURE, exception_id)]

        write(ledger, table_day("T03", "pb-5-classic"))
        assert pit_exceptions(ledger) == []

        write(ledger, off, table_day("T02", "pb-5-per-seat"))
        assert [(t, c) for t, c, _ in pit_exceptions(ledger)] == [("T01", PIT_PROCEDURE)]
        assert ledger.con.execute(
            "SELECT count(*) FROM exceptions WHERE gaming_date = ?", [GAMING_DATE]
        ).fetchone() == (1,), "the table-days' own findings are none: only the pit's"
        assert ledger.con.execute(
            "SELECT table_id, exceptions FROM table_day_summary ORDER BY table_id"
        ).fetchall() == [("T01", 1), ("T02", 0), ("T03", 0)], "the close report counts it"


def test_events_loaded_for_a_pit_raise_the_finding_with_the_others(tmp_path: Path) -> None:
    """PB-3.5b-SHUFFLE-PIT, N.J.A.C. 19:47-3.5(b): two tables' events loaded as the ingest
    loads them: the washing table's finding is a row of ``exceptions`` like any other, citing
    its section, with the practice rows it was judged from in ``table_practices``; loading
    the same events again changes nothing."""
    events = {
        "T01": table_events("T01", "pb-5-classic"),
        "T02": table_events("T02", "pb-5-wash"),
    }
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        for _ in range(2):
            for table_id, recorded in events.items():
                load_batch(ledger, source_deliveries(f"{table_id}.avro", recorded), [], FILED)
            rows = ledger.con.execute(
                "SELECT table_id, code, section, severity, shoe_id FROM exceptions"
            ).fetchall()
            assert rows == [
                ("T02", "PB-3.5b-SHUFFLE-PIT", "N.J.A.C. 19:47-3.5(b)", "MEDIUM", "T02-S01")
            ]
        practices = ledger.con.execute(
            "SELECT table_id, subject, practice, breaks FROM table_practices ORDER BY ALL"
        ).fetchall()
    # the round (b)1 settled shows it against each other procedure, whose order it breaks
    settled_by_1 = [("SETTLEMENT", "1", breaks) for breaks in ("2", "3", "4", None)]
    assert practices == [
        *(("T01", *row) for row in settled_by_1),
        ("T01", "SHUFFLE", "MANUAL_LACE", None),
        *(("T02", *row) for row in settled_by_1),
        ("T02", "SHUFFLE", "MANUAL_WASH", None),
    ]


def test_a_ledger_from_before_gains_the_practice_table(tmp_path: Path) -> None:
    """A ledger written before migration 10 migrates: its exceptions stay, and it gains
    ``table_practices`` (empty until a table-day is replayed again)."""
    path = tmp_path / "v9.duckdb"
    con = ledger_at_schema(path, 9)
    con.execute(
        "INSERT INTO exceptions VALUES ('x1', 'T01', ?, 'NJ-DATA-GAP', 'N.J.A.C. 19:47-3.7-3.10', "
        "'HIGH', 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'gap', ['e1'])",
        [GAMING_DATE],
    )
    con.close()
    with Ledger(path) as ledger:
        assert ledger.schema_version() == MIGRATIONS[-1][0] >= 10
        assert ledger.con.execute("SELECT code FROM exceptions").fetchall() == [("NJ-DATA-GAP",)]
        assert ledger.con.execute("SELECT count(*) FROM table_practices").fetchone() == (0,)
        write(ledger, table_day("T01", "pb-5-classic"), table_day("T02", "pb-5-wash"))
        assert [(t, c) for t, c, _ in pit_exceptions(ledger)] == [("T02", "PB-3.5b-SHUFFLE-PIT")]
