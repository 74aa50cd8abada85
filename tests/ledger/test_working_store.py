"""The working store holds the open days (issue 26: storage that grows with the open days, not
the years): a closed day's rows leave the ledger file once archived and sealed, every reader
reads them in place from the archive's Parquet files, a reopen brings them back, and every
way of forging that move is named by ``verify``. Real parts: an emulated day replayed, closed
into the embedded Iceberg archive, the ledger file opened with plain DuckDB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from pipeline.cli import ingest_paths, main, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.ledger.archive import recorded_manifest
from pipeline.ledger.connection import Source
from pipeline.ledger.seal_record import seal_log
from pipeline.ledger.snapshots import (
    WRITERS_COPY,
    CopyWriter,
    frame,
    open_writers_folder,
    take_copy,
    writers_folder,
)
from pipeline.ledger.store import Ledger
from pipeline.ledger.tables import ARCHIVED
from pipeline.ledger.working_store import (
    ArchivedDays,
    Compaction,
    archived_days,
    compact,
    file_columns,
    keeps_row_digests,
    move_out,
    shadow_sql,
)
from pipeline.reports.close import reopen_gaming_day
from pipeline.reports.verify import check
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.ledger.test_archive import DAY, LEDGER, close
from tests.tampering import rows_in_the_file

NEXT_DAY = DAY + timedelta(days=1)


@pytest.fixture(scope="module")
def two_days(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Event files of two gaming days of one table and one hour, every fault kind."""
    directory = tmp_path_factory.mktemp("two_days")
    return [
        path
        for seed, day in ((11, DAY), (12, NEXT_DAY))
        for path in write_simulation(
            simulate(1, 1, seed, parse_faults("all"), day), directory / str(day), day
        )
    ]


@pytest.fixture
def ledger(two_days: list[Path], tmp_path: Path) -> Iterator[Ledger]:
    """Both days loaded; the first closed (archived and moved out), the second open."""
    with Ledger(tmp_path / LEDGER) as ledger:
        ingest_paths(ledger, two_days, DEFAULT_CATALOG)
        close(ledger)
        yield ledger


def working_rows(ledger: Ledger, table: str, day: object) -> int:
    """The rows of ``day`` in the ledger file itself (its own table, not the view)."""
    row = ledger.con.execute(
        f"SELECT count(*) FROM {ledger.stored(table)} WHERE gaming_date = ?", [day]
    ).fetchone()
    return int(row[0]) if row else 0


def ledger_rows(ledger: Ledger, table: str, day: object) -> int:
    row = ledger.con.execute(
        f"SELECT count(*) FROM {table} WHERE gaming_date = ?", [day]
    ).fetchone()
    return int(row[0]) if row else 0


def test_a_closed_day_leaves_the_working_store_and_is_read_from_the_archive(
    ledger: Ledger,
) -> None:
    manifest = recorded_manifest(ledger, DAY, seal_log(ledger)[-1].sealed_at)
    assert manifest is not None
    read_from = archived_days(ledger)
    assert list(read_from) == [DAY] and read_from[DAY][0] == manifest.sealed_at
    for table in ("deliveries", "rounds", "settlements", "exceptions", "table_day_summary"):
        assert working_rows(ledger, table, DAY) == 0, table
        assert ledger_rows(ledger, table, DAY) == manifest.table(table).rows > 0, table
        # the open day stays in the working store, and reads the same through the view
        assert working_rows(ledger, table, NEXT_DAY) == ledger_rows(ledger, table, NEXT_DAY)
        assert ledger_rows(ledger, table, NEXT_DAY) > 0, table
    assert check(ledger).problems == []


def test_every_reader_reads_the_closed_day_a_copy_included(ledger: Ledger, tmp_path: Path) -> None:
    """A read-only connection, a cursor of another thread, and the dashboards' copy of the
    file (which holds only the open day) all read the closed day from the archive in place."""
    expected = ledger_rows(ledger, "settlements", DAY)
    ledger.con.execute("CHECKPOINT")
    ledger.close()
    with Ledger(ledger.path, read_only=True) as reader:
        assert ledger_rows(reader, "settlements", DAY) == expected
        counted = frame(
            reader, "SELECT count(*) AS n FROM settlements WHERE gaming_date = ?", [DAY]
        )
        assert int(counted["n"][0]) == expected
    copy, _ = take_copy(ledger.path, tmp_path)
    with Ledger(copy, read_only=True) as reader:
        assert ledger_rows(reader, "settlements", DAY) == expected


def test_the_writers_copy_holds_the_open_days_and_reads_the_closed_day_from_the_archive(
    ledger: Ledger,
) -> None:
    """The copy the writer writes for its readers while it holds the file (a close beside the
    stream's batches) copies the stored tables, so it costs what the open day weighs: the
    closed day's rows stay in the archive, where the copy's own views read them."""
    open_writers_folder(ledger.path)
    writer = CopyWriter(ledger)
    try:
        written = writer.write()
    finally:
        writer.close()
    assert written.path == writers_folder(ledger.path) / WRITERS_COPY
    assert written.size == written.path.stat().st_size and not Path(f"{written.path}.wal").exists()
    assert written.path.stat().st_mtime == pytest.approx(written.read_at, abs=1e-3)
    with Ledger(written.path, read_only=True) as copy:
        assert archived_days(copy) == archived_days(ledger)
        for table in ("deliveries", "rounds", "settlements", "table_day_summary"):
            assert working_rows(copy, table, DAY) == 0, table
            assert ledger_rows(copy, table, DAY) == ledger_rows(ledger, table, DAY) > 0, table
            assert working_rows(copy, table, NEXT_DAY) == working_rows(ledger, table, NEXT_DAY)


def test_a_reopen_moves_the_day_back_and_a_second_close_out_again(ledger: Ledger) -> None:
    dated = [t.name for t in ARCHIVED if "gaming_date" in t.column_names]
    before = {table: ledger_rows(ledger, table, DAY) for table in dated}
    reopen_gaming_day(ledger, DAY, "late fill slip", actor="accountant", actor_source="cli")
    assert archived_days(ledger) == {}
    for table, rows in before.items():
        assert working_rows(ledger, table, DAY) == ledger_rows(ledger, table, DAY), table
        assert ledger_rows(ledger, table, DAY) >= rows, table  # the reopen adds an audit row
    assert check(ledger).problems == []
    close(ledger)
    assert list(archived_days(ledger)) == [DAY]
    assert working_rows(ledger, "rounds", DAY) == 0
    assert ledger_rows(ledger, "rounds", DAY) == before["rounds"]
    assert check(ledger).problems == []


def test_a_row_put_back_into_the_working_store_is_named(ledger: Ledger) -> None:
    """The attacker adds a settlement of the closed day to the ledger file: read with the
    archived ones, it is a row put back after the close, named as it reads, and the table no
    longer matches its seal (``pipeline.ledger.working_store.rows_put_back``)."""
    ledger.con.execute(
        f"INSERT INTO {ledger.stored('settlements')} SELECT * REPLACE (stake_cents * 2 AS "
        "stake_cents) FROM settlements WHERE gaming_date = ? LIMIT 1",
        [DAY],
    )
    problems = check(ledger).problems
    put_back = [p for p in problems if "row put back into the ledger file" in p]
    assert len(put_back) == 1 and put_back[0].startswith(f"{DAY}: settlements: ")
    assert any(p.startswith(f"{DAY}: settlements: rows changed since the close") for p in problems)


def test_archived_days_forged_are_named(ledger: Ledger, tmp_path: Path) -> None:
    """Pointed at another file, the day is read from rows its seal does not name; deleted, its
    rows are gone from every reader; listed for a day not closed, it would be read twice.
    Each forgery is read as the next connection to the ledger reads it."""
    sealed_at, files = archived_days(ledger)[DAY]
    forged = tmp_path / "forged.parquet"
    first = files["rounds"][0].removeprefix("file://")
    ledger.con.execute(f"COPY (SELECT * FROM read_parquet('{first}') LIMIT 1) TO '{forged}'")

    def forge_and_check(*statements: tuple[str, list[object]]) -> list[str]:
        for sql, params in statements:
            ledger.con.execute(sql, params)
        with Ledger(ledger.path) as reread:  # the same process: a second connection
            return check(reread).problems

    problems = forge_and_check(
        (
            "UPDATE archived_days SET files_json = ?",
            [json.dumps({**files, "rounds": [forged.as_uri()]})],
        )
    )
    assert (
        f"{DAY}: archived_days: rounds is read from {forged.as_uri()}, a file its seal does "
        "not name" in problems
    )
    assert any(p.startswith(f"{DAY}: rounds: rows changed since the close") for p in problems)

    problems = forge_and_check(("DELETE FROM archived_days", []))
    assert (
        f"{DAY}: archived_days: the day is read from neither the ledger file nor the archive "
        "(its row in archived_days was deleted): run baccarat-audit archive to read it from the "
        "archive again (its files are checked against the seal)" in problems
    )
    assert any(p.startswith(f"{DAY}: deliveries: ") and "rows changed" in p for p in problems)
    # the repair the message names reads the day from its sealed files again
    assert main(["archive", "--db", str(ledger.path)]) == 0
    problems = forge_and_check()
    assert problems == []

    problems = forge_and_check(
        (
            "INSERT INTO archived_days VALUES (?, ?, ?, now()::TIMESTAMP, NULL)",
            [NEXT_DAY, sealed_at, json.dumps(files)],
        )
    )
    assert (
        f"{NEXT_DAY}: archived_days: the day is read from the archive, but its last seal event "
        "is none: the list was edited; restore it from a backup" in problems
    )


def test_the_archive_command_moves_days_archived_in_place_out(
    two_days: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ledger whose closes archived their days but kept the rows (made before closed days
    left the working store): `baccarat-audit archive` moves them out, and they verify."""
    with Ledger(tmp_path / LEDGER) as ledger:
        ingest_paths(ledger, two_days, DEFAULT_CATALOG)
        with monkeypatch.context() as patched:
            patched.setattr("pipeline.reports.close.move_out", lambda *a, **k: None)
            close(ledger)
        assert archived_days(ledger) == {}
        assert check(ledger).problems == []
    assert main(["archive", "--db", str(tmp_path / LEDGER)]) == 0
    with Ledger(tmp_path / LEDGER) as ledger:
        assert list(archived_days(ledger)) == [DAY]
        assert working_rows(ledger, "rounds", DAY) == 0
        assert ledger_rows(ledger, "rounds", DAY) > 0
        assert check(ledger).problems == []


def test_the_archive_keeps_no_row_digests(ledger: Ledger) -> None:
    """The close digests every row, seals each table's digest, then the day's row digests
    leave the file with its rows and are not archived: the archive holds the rows and the
    seal entry's digests cover them."""
    _, files = archived_days(ledger)[DAY]
    assert "close_digests" not in files
    assert working_rows(ledger, "close_digests", DAY) == 0
    assert not keeps_row_digests(archived_days(ledger), DAY)
    assert keeps_row_digests(archived_days(ledger), NEXT_DAY)  # open: digested when it closes
    assert check(ledger).problems == []


def test_a_day_archived_with_its_row_digests_still_reads_them(
    ledger: Ledger, tmp_path: Path
) -> None:
    """A day an earlier version archived with its row digests reads them from their file,
    and the day's digests check against its seal as they did."""
    sealed_at, files = archived_days(ledger)[DAY]
    rows_in_the_file(ledger)  # the rows and the digests the close made, in the file
    digests = tmp_path / "digests.parquet"
    ledger.con.execute(
        f"COPY (SELECT * FROM {ledger.stored('close_digests')} WHERE gaming_date = ?) "
        f"TO '{digests}'",
        [DAY],
    )
    move_out(ledger, DAY, sealed_at, {**files, "close_digests": [digests.as_uri()]})
    assert keeps_row_digests(archived_days(ledger), DAY)
    assert working_rows(ledger, "close_digests", DAY) == 0
    assert ledger_rows(ledger, "close_digests", DAY) > 10  # read from the file
    problems = check(ledger).problems
    # that version's manifest listed the digests' file; this one's does not
    assert problems == [
        f"{DAY}: archived_days: close_digests is read from {digests.as_uri()}, a file its "
        "seal does not name"
    ]


def test_a_question_about_one_closed_day_opens_only_its_files(ledger: Ledger) -> None:
    """With both days closed, a question about one reads that day's files only: each
    archive file's path names its day, read as a Hive partition, so a question's cost does
    not grow with the days stored."""
    close(ledger, NEXT_DAY)
    assert sorted(archived_days(ledger)) == [DAY, NEXT_DAY]
    (plan,) = ledger.con.execute(
        "EXPLAIN ANALYZE SELECT count(*) FROM rounds WHERE gaming_date = ?", [NEXT_DAY]
    ).fetchall()
    assert "Scanning Files: 1/2" in plan[1]
    assert check(ledger).problems == []


def test_a_verify_reads_the_archived_days_once_however_many_days_it_checks(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """History never slows today (the design's decision): ``archived_days`` grows with the
    days stored, so read for each day checked, a verify's cost grew with their square. Read
    once and passed on, a verify of both closed days and a verify of one (``--gaming-day``)
    read it once each, and find nothing wrong."""
    close(ledger, NEXT_DAY)
    reads: list[object] = []

    def counted(source: Source) -> ArchivedDays:
        reads.append(source)
        return archived_days(source)

    # under both names it is called by: the ledger package's own and the verify's import
    monkeypatch.setattr("pipeline.ledger.working_store.archived_days", counted)
    monkeypatch.setattr("pipeline.reports.verify.archived_days", counted)
    whole = check(ledger)
    assert (whole.problems, whole.days_checked, len(reads)) == ([], 2, 1)
    reads.clear()
    one_day = check(ledger, only_day=NEXT_DAY)
    assert (one_day.problems, one_day.days_checked, len(reads)) == ([], 1, 1)


def test_a_thread_keeps_its_cursor_until_the_archived_days_change(ledger: Ledger) -> None:
    """A page's questions share the thread's cursor (its views are made once); after a day
    moves in or out, the cursor reads the working store as it is then."""
    cursor = ledger.cursor()
    assert ledger.cursor() is cursor
    before = frame(ledger, "SELECT count(*) AS n FROM rounds WHERE gaming_date = ?", [DAY])
    reopen_gaming_day(ledger, DAY, "late fill slip", actor="accountant", actor_source="cli")
    assert ledger.cursor() is cursor
    after = frame(ledger, "SELECT count(*) AS n FROM rounds WHERE gaming_date = ?", [DAY])
    assert int(after["n"][0]) == int(before["n"][0]) == working_rows(ledger, "rounds", DAY)
    other: list[object] = []
    worker = threading.Thread(target=lambda: other.append(ledger.cursor()))
    worker.start()
    worker.join()
    assert other and other[0] is not cursor


def test_the_views_read_files_of_known_columns_without_opening_each(ledger: Ledger) -> None:
    """Each archived day records the columns its files were written with, so the views read
    a table's files of alike days without opening every one to learn its columns; a day moved
    out before they were recorded (migration 22) is read by opening its files, and reads the
    same rows."""
    _, files = archived_days(ledger)[DAY]
    ((recorded,),) = ledger.con.execute("SELECT columns_json FROM archived_days").fetchall()
    written = json.loads(recorded)
    assert written.keys() == files.keys()
    assert written["rounds"] == file_columns(ledger.con, files["rounds"][0])
    assert "union_by_name = false" in " ".join(shadow_sql(ledger.con))
    before = {t: ledger_rows(ledger, t, DAY) for t in ("rounds", "settlements", "exceptions")}
    ledger.con.execute("UPDATE archived_days SET columns_json = NULL")
    with Ledger(ledger.path) as reread:
        assert "union_by_name = false" not in " ".join(shadow_sql(reread.con))
        assert {t: ledger_rows(reread, t, DAY) for t in before} == before
        assert check(reread).problems == []


def test_another_connection_of_the_process_follows_a_close_and_a_reopen(ledger: Ledger) -> None:
    """The stream's connection, while a close runs on a second one in its process
    (:mod:`pipeline.stream.closes`): once the day moves to the archive or back, its next
    question reads the day from where it is now, not from neither place; a transaction it
    began before keeps reading its own snapshot."""
    rounds = ledger_rows(ledger, "rounds", DAY)
    with Ledger(ledger.path) as stream:
        assert ledger_rows(stream, "rounds", DAY) == rounds
        reopen_gaming_day(ledger, DAY, "late fill slip", actor="accountant", actor_source="cli")
        assert working_rows(stream, "rounds", DAY) == ledger_rows(stream, "rounds", DAY) == rounds
        with stream.transaction():
            close(ledger)
            assert ledger_rows(stream, "rounds", DAY) == rounds  # its snapshot: still open
        assert working_rows(stream, "rounds", DAY) == 0
        assert ledger_rows(stream, "rounds", DAY) == rounds
        assert check(stream).problems == []


def free_blocks(path: Path) -> int:
    """How many of the ledger file's blocks are free."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        ((free,),) = con.execute(
            "SELECT free_blocks FROM pragma_database_size() "
            "WHERE database_name = current_database()"
        ).fetchall()
    finally:
        con.close()
    return int(free)


def file_contents(path: Path) -> list[tuple[object, ...]]:
    """Every stored table's rows (sorted) and the file's catalog, read with plain DuckDB."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [str(t) for (t,) in con.execute("SHOW TABLES").fetchall()]
        rows = [
            (t, sorted(map(repr, con.execute(f'SELECT * FROM "{t}"').fetchall()))) for t in tables
        ]
        catalog = (
            con.execute("SELECT table_name, sql FROM duckdb_tables() ORDER BY 1").fetchall()
            + con.execute(
                "SELECT sequence_name, last_value FROM duckdb_sequences() ORDER BY 1"
            ).fetchall()
            + con.execute(
                "SELECT table_name, constraint_text FROM duckdb_constraints() ORDER BY 1, 2"
            ).fetchall()
        )
    finally:
        con.close()
    return [*rows, *catalog]


def test_a_compacted_ledger_holds_the_same_rows_in_less_space_and_still_verifies(
    ledger: Ledger,
) -> None:
    """The close moved the first day's rows out; the blocks they held stay in the file as
    free space, which every reader's snapshot would copy. Compacted, the file holds the same
    tables, rows, constraints and sequences without it, and every sealed day verifies."""
    ledger.close()
    assert free_blocks(ledger.path) > 0  # what the close left
    size, contents = ledger.path.stat().st_size, file_contents(ledger.path)
    done = compact(ledger.path)
    assert done == Compaction(size, ledger.path.stat().st_size) and done.after < size
    assert free_blocks(ledger.path) == 0
    assert file_contents(ledger.path) == contents
    with Ledger(ledger.path) as reopened:
        assert check(reopened).problems == []
        assert working_rows(reopened, "rounds", NEXT_DAY) > 0
    assert compact(ledger.path).skipped is not None  # nothing left to give back
    assert sorted(p.name for p in ledger.path.parent.iterdir() if "compact" in p.name) == []


def test_the_close_command_compacts_the_ledger_it_closed(
    two_days: list[Path], tmp_path: Path
) -> None:
    db = tmp_path / LEDGER
    with Ledger(db) as ledger:
        ingest_paths(ledger, two_days, DEFAULT_CATALOG)
    closing = ["close", "--db", str(db), "--gaming-day", str(DAY), "--out", str(tmp_path / "r")]
    assert main([*closing, "--actor", "demo-controller", "--accept-quality-failures", "test"]) in (
        0,
        1,
    )
    assert free_blocks(db) == 0
    with Ledger(db, read_only=True) as ledger:
        assert list(archived_days(ledger)) == [DAY]
        assert check(ledger).problems == []


def test_a_ledger_someone_holds_is_not_compacted(ledger: Ledger, tmp_path: Path) -> None:
    """Held by a connection of this process, or read by another process: the file is left
    byte for byte as it was, and the compaction says why."""
    held = compact(ledger.path)
    assert held.skipped is not None and "held by another connection" in held.skipped
    ledger.close()
    before = ledger.path.read_bytes()
    reader = subprocess.Popen(
        [sys.executable, "-c", HOLD_READ_ONLY, str(ledger.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "open"
        refused = compact(ledger.path)
    finally:
        reader.communicate("")
    assert refused.skipped is not None and "held by another connection" in refused.skipped
    assert ledger.path.read_bytes() == before


HOLD_READ_ONLY = """
import sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
print("open", flush=True)
sys.stdin.read()
"""


def test_a_compaction_stopped_in_the_middle_leaves_the_ledger_whole(ledger: Ledger) -> None:
    """A stopped compaction leaves at most its unfinished copy beside the ledger, never in its
    place; the next one removes it and compacts."""
    ledger.close()
    leftover = ledger.path.with_name(f".{ledger.path.name}.compacting")
    leftover.write_bytes(b"half a copy")
    with Ledger(ledger.path, read_only=True) as reader:
        assert check(reader).problems == []
    assert compact(ledger.path).skipped is None
    assert not leftover.exists()
    with Ledger(ledger.path, read_only=True) as reader:
        assert check(reader).problems == []


def test_a_compaction_that_cannot_write_its_copy_says_so_and_leaves_the_ledger_whole(
    ledger: Ledger, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A clumsy operator's directory where the copy goes: the compaction fails, says why and
    that it failed, and the ledger is as it was, byte for byte; the close command closes the
    day and says on stderr that the file was not compacted and what to check."""
    ledger.close()
    in_the_way = ledger.path.with_name(f".{ledger.path.name}.compacting")
    in_the_way.mkdir()
    (in_the_way / "notes.txt").write_text("kept")
    before = ledger.path.read_bytes()
    failed = compact(ledger.path)
    assert failed.failed and failed.skipped is not None
    assert "the copy failed (IsADirectoryError" in failed.skipped
    assert failed.notice is not None and failed.skipped in failed.notice  # what the flow logs
    assert ledger.path.read_bytes() == before
    assert (in_the_way / "notes.txt").read_text() == "kept"
    held = Ledger(ledger.path)  # a ledger held by another is skipped, not failed
    try:
        skipped = compact(ledger.path)
        assert not skipped.failed and skipped.notice is None
    finally:
        held.close()

    closing = ["close", "--db", str(ledger.path), "--gaming-day", str(NEXT_DAY)]
    closing += ["--out", str(tmp_path / "r"), "--actor", "demo-controller"]
    assert main([*closing, "--accept-quality-failures", "test"]) in (0, 1)
    said = capsys.readouterr().err
    assert "the day is closed, but the ledger file was not compacted: the copy failed" in said
    assert "check the disk and the ledger's directory" in said
    with Ledger(ledger.path, read_only=True) as reader:
        assert sorted(archived_days(reader)) == [DAY, NEXT_DAY]
        assert check(reader).problems == []


def test_a_ledger_reached_through_a_link_is_compacted_where_it_lies(
    ledger: Ledger, tmp_path: Path
) -> None:
    """An operator's ``--db`` that is a symbolic link: the file it leads to is compacted and
    the link still leads to it (replacing the link with a file would leave the ledger
    behind it as it was, and the link's next writer on a copy)."""
    ledger.close()
    link = tmp_path / "elsewhere" / "ledger-link.duckdb"
    link.parent.mkdir()
    link.symlink_to(ledger.path)
    contents = file_contents(ledger.path)
    assert compact(link).skipped is None
    assert link.is_symlink() and link.resolve() == ledger.path.resolve()
    assert free_blocks(ledger.path) == 0
    assert file_contents(ledger.path) == contents
    assert sorted(p.name for p in link.parent.iterdir()) == ["ledger-link.duckdb"]
