"""The seal log and ``verify``, tried the way an insider with write access to the ledger file
(but not the application key) or a clumsy operator would break them.

Small emulated days (2 tables, 1 hour) are built and closed once per module; each case edits
its own copy of the files.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.bundle.acks import AckJournal
from pipeline.cli import ingest_paths, main, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.config.installation import installation
from pipeline.config.keys import Signer, signer
from pipeline.ingest.errors import ClosedGamingDayError
from pipeline.ledger import seal_record
from pipeline.ledger.migrations import (
    SEAL_RECORD_TABLES,
    SEALED_TABLES,
    UNSEALED_TABLES,
    VOLATILE_COLUMNS,
)
from pipeline.ledger.seal_record import DIGEST_BATCH, GENESIS, SealEntry, seal_log
from pipeline.ledger.store import Ledger, LedgerError
from pipeline.reports import seals
from pipeline.reports.close import (
    CloseResult,
    EmptyDayError,
    close_gaming_day,
    reopen_gaming_day,
    verify,
    witness_seal_log,
)
from pipeline.reports.seals import ANCHOR_FILE
from pipeline.reports.verify import check
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from pipeline.witness.checkpoint import chain_link
from tests.ledger.conftest import ledger_at_schema
from tests.tampering import rows_in_the_file

DAY = date(2026, 11, 24)
NEXT_DAY = date(2026, 11, 25)
LEDGER = "ledger.duckdb"
ACCEPT = "emulated day with injected faults"


def emulate(out: Path, day: date, tables: int) -> list[Path]:
    """One small emulated day's files, named by day."""
    written = write_simulation(simulate(tables, 1, 11, parse_faults("all"), day), out / "sim", day)
    events = out / "events"
    events.mkdir(parents=True, exist_ok=True)
    return [p.rename(events / f"{day.isoformat()}-{p.name}") for p in written]


def load(directory: Path, paths: list[Path]) -> None:
    with Ledger(directory / LEDGER) as ledger:
        ingest_paths(ledger, paths, DEFAULT_CATALOG)


def dead_letter(ledger: Ledger, source: str, position: int) -> None:
    """A damaged stretch of ``source`` (no day stamped: a loader cannot read one from it)."""
    ledger.con.execute(
        f"INSERT INTO {ledger.stored('dead_letters')} (source, position, reason, detail, "
        "device_id) "
        "VALUES (?, ?, 'DAMAGED_BLOCK', 'checksum mismatch', 'dev-1')",
        [source, position],
    )


def close(ledger: Ledger, day: date, out: Path) -> CloseResult:
    return close_gaming_day(
        ledger,
        day,
        out,
        actor="accountant",
        actor_source="command line",
        accept_quality_failures=ACCEPT,
    )


def copy(source: Path, target: Path) -> Path:
    """A copy of a fixture's folder. A copy of a ledger no close has sealed yet is another
    ledger (:func:`as_new_ledger`): closed in its own way, it is not a fork of the module's
    ``closed`` copy of the same ledger, which the witness would rightly refuse."""
    shutil.copytree(source, target)
    with Ledger(target / LEDGER, read_only=True) as ledger:
        unsealed = not seal_log(ledger)
    if unsealed:
        as_new_ledger(target / LEDGER)
    return target


def as_new_ledger(path: Path) -> None:
    """Give the ledger at ``path`` an identity of its own, and its journal's records again
    under it (a journal names the ledger it acknowledges in)."""
    with Ledger(path) as ledger:
        ledger.con.execute("UPDATE ledger_identity SET ledger_id = CAST(uuid() AS VARCHAR)")
        ledger_id = ledger.ledger_id
    journal = AckJournal.for_ledger(path, ledger_id=ledger_id)
    records = journal.records() if journal.path.exists() else []
    if journal.path.exists():
        journal.path.unlink()
    for record in records:
        journal.append(
            exception_id=record.exception_id,
            action=record.action,
            note=record.note,
            actor=record.actor,
            actor_source=record.actor_source,
            table_id=record.table_id,
            gaming_date=record.gaming_date,
            assignee=record.assignee,
            now=record.acted_at_utc,
        )


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A day's ledger, not closed: events, a dead letter of one of its files, and an
    acknowledgement in the journal."""
    directory = tmp_path_factory.mktemp("loaded")
    paths = emulate(directory, DAY, 2)
    load(directory, paths)
    with Ledger(directory / LEDGER) as ledger:
        dead_letter(ledger, str(paths[0].resolve()), 10**9)
        row = ledger.con.execute(
            "SELECT exception_id, table_id FROM exceptions ORDER BY exception_id LIMIT 1"
        ).fetchone()
        ledger_id = ledger.ledger_id
    assert row is not None
    AckJournal.for_ledger(directory / LEDGER, ledger_id=ledger_id).append(
        exception_id=row[0],
        action="ESCALATE",
        note="to the shift manager",
        actor="analyst",
        actor_source="command line",
    )
    return directory


@pytest.fixture(scope="module")
def closed(loaded: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = copy(loaded, tmp_path_factory.mktemp("closed") / "day")
    with Ledger(directory / LEDGER) as ledger:
        close(ledger, DAY, directory / "reports")
    return directory


@contextmanager
def ledger_copy(closed: Path, tmp_path: Path) -> Iterator[tuple[Ledger, Path]]:
    """A writable copy of the closed ledger and the path of its copy of the anchor file."""
    directory = copy(closed, tmp_path / "copy")
    with Ledger(directory / LEDGER) as ledger:
        yield rows_in_the_file(ledger), directory / "reports" / ANCHOR_FILE


def the_seal(ledger: Ledger) -> SealEntry:
    log = seal_log(ledger)
    assert log, "the fixture's day is sealed"
    return log[-1]


# ---------------------------------------------------------------------- the schema
def schema_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {
        str(t)
        for (t,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
    }


def test_every_table_of_the_schema_is_sealed_or_says_why_not(closed: Path) -> None:
    """A migration that adds a table must decide whether its rows are sealed."""
    with Ledger(closed / LEDGER, read_only=True) as ledger:
        tables = schema_tables(ledger.con)
    classified = [*SEALED_TABLES, *SEAL_RECORD_TABLES, *UNSEALED_TABLES]
    assert len(classified) == len(set(classified)), "a table is classified twice"
    assert tables == set(classified)


DAY_TABLES = sorted((*SEALED_TABLES, *SEAL_RECORD_TABLES))
"""Every table with rows of a closed day (the schema test above keeps this complete)."""

KEYED_BY_THE_DAY = {
    "gaming_days": "keyed by the gaming date",
}
"""Tables where a second row of the same day is refused by the ledger's own key."""


def scope(table: str) -> str:
    return SEALED_TABLES.get(table, "gaming_date = $day")


def scope_columns(table: str) -> set[str]:
    """The columns that tie a row to its day (left alone by a forged insert)."""
    return {
        c for c in ("gaming_date", "received_on", "exception_id", "source") if c in scope(table)
    }


def one_row(ledger: Ledger, table: str) -> int:
    """The rowid of one of the day's rows of ``table`` (there must be one)."""
    sql = f"SELECT rowid FROM {table} WHERE {scope(table)} ORDER BY rowid LIMIT 1"
    params = {"day": DAY, "sealed_at": the_seal(ledger).sealed_at}
    row = ledger.con.execute(sql, {k: v for k, v in params.items() if f"${k}" in sql}).fetchone()
    assert row is not None, f"the fixture's day has no row in {table}: the case would be vacuous"
    return int(row[0])


def changed(column: str, kind: str, by: str) -> str:
    """SQL for a changed value of ``column``."""
    if kind == "VARCHAR":
        return f"{column} || '{by}'"
    if kind in ("BIGINT", "INTEGER"):
        return f"{column} + 1000003"
    if kind == "DATE":
        return f"{column} + 3650"
    if kind == "TIMESTAMP":
        return f"{column} + INTERVAL 1 SECOND"
    raise AssertionError(f"no forgery for {kind}")


def edit_column(ledger: Ledger, table: str, rowid: int) -> tuple[str, str]:
    """The last plain column of the row with a value (volatile and day columns excepted)."""
    columns = [
        (str(name), str(kind))
        for name, kind, *_ in ledger.con.execute(f"DESCRIBE {table}").fetchall()
        if kind in ("VARCHAR", "BIGINT", "INTEGER")
        and name not in VOLATILE_COLUMNS.get(table, ())
        and name not in scope_columns(table)
    ]
    for name, kind in reversed(columns):
        value = ledger.con.execute(f"SELECT {name} FROM {table} WHERE rowid = ?", [rowid])
        if (value.fetchone() or (None,))[0] is not None:
            return name, kind
    raise AssertionError(f"{table}: no column to edit")


def primary_key(ledger: Ledger, table: str) -> list[str]:
    row = ledger.con.execute(
        "SELECT constraint_column_names FROM duckdb_constraints() WHERE table_name = ? "
        "AND constraint_type = 'PRIMARY KEY'",
        [table],
    ).fetchone()
    return list(row[0]) if row else []


def tamper(ledger: Ledger, table: str, change: str) -> None:
    rowid = one_row(ledger, table)
    if change == "delete":
        ledger.con.execute(f"DELETE FROM {table} WHERE rowid = ?", [rowid])
    elif change == "edit":
        column, kind = edit_column(ledger, table, rowid)
        value = changed(column, kind, "~forged")
        ledger.con.execute(f"UPDATE {table} SET {column} = {value} WHERE rowid = ?", [rowid])
    else:
        kinds = dict(
            (str(name), str(kind))
            for name, kind, *_ in ledger.con.execute(f"DESCRIBE {table}").fetchall()
        )
        key = [c for c in primary_key(ledger, table) if c not in scope_columns(table)]
        replace = ", ".join(f"{changed(c, kinds[c], '~forged')} AS {c}" for c in key)
        ledger.con.execute(
            f"INSERT INTO {table} SELECT * {f'REPLACE ({replace})' if replace else ''} "
            f"FROM {table} WHERE rowid = ?",
            [rowid],
        )


def test_an_untouched_copy_verifies(closed: Path, tmp_path: Path) -> None:
    """The copy each tampering test starts from, its archived rows put back into the file,
    verifies clean: what verify names after a tampering is the tampering's."""
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        assert verify(ledger, anchors) == []


@pytest.mark.parametrize("change", ["edit", "insert", "delete"])
@pytest.mark.parametrize("table", DAY_TABLES)
def test_tamper_matrix(closed: Path, tmp_path: Path, table: str, change: str) -> None:
    """Edit, insert or delete one of the closed day's rows in any table: verify names the
    table (and, for the sealed tables, the row or how many rows went); the untouched copy
    verifies clean (:func:`test_an_untouched_copy_verifies`)."""
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        if change == "insert" and table in KEYED_BY_THE_DAY:
            with pytest.raises(duckdb.ConstraintException):
                tamper(ledger, table, change)
            return
        tamper(ledger, table, change)
        problems = verify(ledger, anchors)
    assert any(table in p for p in problems), problems
    if table in SEALED_TABLES:
        added = f"{table}: row changed or added after the close"
        gone = f"{table}: 1 row(s) sealed at the close are gone"
        expected = {"edit": [added, gone], "insert": [added], "delete": [gone]}[change]
        for text in expected:
            assert any(text in p for p in problems), problems


def test_a_named_row_shows_the_forged_value(closed: Path, tmp_path: Path) -> None:
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        ledger.con.execute(
            "UPDATE table_day_summary SET handle_cents = 2 * handle_cents WHERE rowid = "
            "(SELECT min(rowid) FROM table_day_summary)"
        )
        doubled = ledger.con.execute(
            "SELECT max(handle_cents) FROM table_day_summary WHERE rowid = "
            "(SELECT min(rowid) FROM table_day_summary)"
        ).fetchone()
        problems = verify(ledger, anchors)
    assert doubled is not None
    assert any(
        "table_day_summary: row changed or added" in p and f"'handle_cents': {doubled[0]}" in p
        for p in problems
    ), problems
    assert any("report: the figures recomputed from the rows" in p for p in problems)


def test_a_replay_timestamp_is_not_a_figure(closed: Path, tmp_path: Path) -> None:
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        ledger.con.execute("UPDATE table_day_summary SET replayed_at = now()")
        assert verify(ledger, anchors) == []


def _digest_as_first_defined(row_digests: list[str]) -> str:
    """A table's digest as the seals made before digests were computed in DuckDB defined it
    (the SHA-256 of the sorted row digests joined by newlines, computed in Python)."""
    return hashlib.sha256("\n".join(sorted(row_digests)).encode()).hexdigest()


@pytest.mark.parametrize("batch", [1, 2, 7, DIGEST_BATCH])
def test_a_seal_digests_the_rows_as_every_earlier_seal_did(
    closed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    """Seals made by earlier versions must still verify: each table's digest, now streamed
    from DuckDB batch by batch, is the one the first definition gives on the same rows,
    whatever the batch boundaries (one row, two, an odd size), for empty tables and for
    tables holding the same row twice."""
    monkeypatch.setattr(seal_record, "DIGEST_BATCH", batch)
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        entry = the_seal(ledger)
        first = {
            table: _digest_as_first_defined(
                seal_record.row_digests(ledger, table, DAY, entry.sealed_at, entry.row_text)
            )
            for table in SEALED_TABLES
        }
        assert entry.table_digests == first
        # the same row twice (two equal digests, both counted) and a table emptied
        ledger.con.execute("INSERT INTO gaming_day_audit SELECT * FROM gaming_day_audit LIMIT 1")
        ledger.con.execute("DELETE FROM form_series")
        for table in ("gaming_day_audit", "form_series"):
            now = seal_record.row_digests(ledger, table, DAY, entry.sealed_at, entry.row_text)
            assert seal_record.current_digest(
                ledger, table, DAY, entry.sealed_at, entry.row_text
            ) == _digest_as_first_defined(now)
            assert (len(now) != len(set(now))) if table == "gaming_day_audit" else now == []
        problems = verify(ledger, anchors)
    assert any("gaming_day_audit: row changed or added after the close" in p for p in problems)
    assert any(
        "form_series: " in p and "row(s) sealed at the close are gone" in p for p in problems
    )


@pytest.fixture(scope="module")
def closed_the_earlier_way(
    loaded: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The day closed as every close before seal entries recorded their row text: each row
    hashed as a struct with its column names, the entry without ``row_text``. Its rows hold
    nothing in the columns added since (``rounds.dealer_id``), as that version wrote them."""
    directory = copy(loaded, tmp_path_factory.mktemp("earlier") / "day")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("pipeline.reports.close.ROW_TEXT", None)
        patch.setattr("pipeline.reports.close.table_columns", lambda ledger: None)
        with Ledger(directory / LEDGER) as ledger:
            ledger.con.execute("UPDATE rounds SET dealer_id = NULL")
            close(ledger, DAY, directory / "reports")
    yield directory


def test_a_close_hashes_each_row_as_its_values_and_records_it(closed: Path) -> None:
    """A table's digest in the entry is the SHA-256 of its sorted row digests, each the
    SHA-256 of the row's values in column order (no column names), and the signed entry says
    so, with each table's columns. (The day is archived, and keeps no row digests.)"""
    with Ledger(closed / LEDGER, read_only=True) as ledger:
        entry = the_seal(ledger)
        values = ledger.con.execute(
            "SELECT sha256(row(*COLUMNS(*))::VARCHAR) FROM rounds ORDER BY 1"
        ).fetchall()
        named = ledger.con.execute("SELECT sha256(r::VARCHAR) FROM rounds r").fetchall()
        kept = ledger.con.execute("SELECT count(*) FROM close_digests").fetchall()
    assert entry.row_text == seal_record.ROW_TEXT == "values"
    assert b'"row_text":"values"' in entry.canonical()
    columns = json.loads(entry.table_columns_json or "null")
    assert columns.keys() == SEALED_TABLES.keys()
    assert columns["rounds"].startswith("table_id VARCHAR, gaming_date DATE, ")
    assert "replayed_at" not in columns["table_day_summary"]  # volatile, as in the digests
    lines = "\n".join(d for (d,) in values).encode()
    digests = json.loads(entry.table_digests_json)
    assert digests["rounds"] == hashlib.sha256(lines).hexdigest() and len(values) > 10
    assert not set(values) & set(named)
    assert kept == [(0,)]


_TRICKY_TEXT = st.one_of(
    st.none(), st.text(alphabet=" ,'\"\\()[]{}:\nNULab", max_size=8), st.just("NULL")
)
_ROWS = st.tuples(_TRICKY_TEXT, st.lists(_TRICKY_TEXT, max_size=3), _TRICKY_TEXT)


@settings(max_examples=300, deadline=None)
@given(first=_ROWS, second=_ROWS)
def test_two_different_rows_are_never_written_out_alike(
    first: tuple[str | None, list[str | None], str | None],
    second: tuple[str | None, list[str | None], str | None],
) -> None:
    """Whichever way a seal writes rows out, the text is the row: values holding the
    separators, quotes, brackets, the word NULL or nothing at all never make two different
    rows read alike (else an edit could keep a row's digest)."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a VARCHAR, b VARCHAR[], c VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [list(first), list(second)])
    con.execute("CREATE TABLE one (a VARCHAR)")  # a row of one value: no separator at all
    con.executemany("INSERT INTO one VALUES (?)", [[first[0]], [second[0]]])
    for table, same in (("t", first == second), ("one", first[0] == second[0])):
        for row_text, expression in seal_record.ROW_TEXTS.items():
            texts = [
                t
                for (t,) in con.execute(
                    f"SELECT {expression} FROM {table} r ORDER BY rowid"
                ).fetchall()
            ]
            assert (texts[0] == texts[1]) == same, (table, row_text, texts)


def test_an_entry_without_row_text_authenticates_the_bytes_it_was_made_with() -> None:
    """Entries made before the field existed keep their links: without ``row_text`` the
    canonical form is byte for byte the one they were linked with (taken from that
    version's code)."""
    entry = SealEntry(
        seq=7,
        gaming_date=DAY,
        action="CLOSE",
        actor="pc-1",
        actor_source="command line",
        reason=None,
        sealed_at=datetime(2026, 11, 25, 10, 30, 0, 123456),
        status="CLOSED",
        blocking_exceptions=0,
        report_sha256="ab" * 32,
        table_digests_json=json.dumps({"rounds": "cd" * 32}),
        anchor_path="/r/seal-anchors.jsonl",
        row_text=None,
        table_columns_json=None,
        previous_link="ef" * 32,
        link="",
    )
    assert hashlib.sha256(entry.canonical()).hexdigest() == (
        "9733cc2085d3fa3fc6e8ee2e761db4e13dcfceeea8fd825b14b9ac405d11945f"
    )


def test_a_seal_made_the_earlier_way_still_verifies_and_names_an_edited_row(
    closed_the_earlier_way: Path, tmp_path: Path
) -> None:
    """A day sealed with named row text verifies as it was sealed; an edited row is named
    by the digest of its named text."""
    with ledger_copy(closed_the_earlier_way, tmp_path) as (ledger, anchors):
        entry = the_seal(ledger)
        assert entry.row_text is None and b"row_text" not in entry.canonical()
        assert verify(ledger, anchors) == []
        ledger.con.execute(
            "UPDATE rounds SET winner = CASE winner WHEN 'PLAYER' THEN 'BANKER' ELSE 'PLAYER' "
            "END WHERE rowid = (SELECT min(rowid) FROM rounds)"
        )
        problems = verify(ledger, anchors)
    assert any("rounds: row changed or added after the close: {'table_id':" in p for p in problems)
    assert any("rounds: 1 row(s) sealed at the close are gone" in p for p in problems)


@pytest.mark.parametrize("forged", [None, "named"])
def test_a_row_text_edited_in_the_log_breaks_the_link(
    closed: Path, tmp_path: Path, forged: str | None
) -> None:
    """The row text is authenticated with the entry: set back to the earlier way (NULL), or
    to any other name, the link no longer holds."""
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        ledger.con.execute("UPDATE seal_log SET row_text = ?", [forged])
        problems = verify(ledger, anchors)
    assert any("seal_log seq 1" in p and "does not verify" in p for p in problems)


def test_a_seal_written_out_in_a_way_this_version_does_not_know_is_named(
    closed: Path, tmp_path: Path
) -> None:
    """A later version's row text (its entry authentic) is named with what to do, and the
    rest of the ledger is still checked."""
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        with ledger.transaction():
            entry = seal_record.append_entry(
                ledger,
                gaming_date=NEXT_DAY,
                action="CLOSE",
                actor="a later version",
                actor_source="command line",
                reason=None,
                sealed_at=datetime(2026, 11, 26, 12, 0),
                status="CLOSED",
                blocking_exceptions=0,
                report_sha256="0" * 64,
                table_digests={"rounds": "0" * 64},
                row_text="columnar",
                signer=signer("seal"),
                ledger_id=str(ledger.ledger_id),
                roles_sha256=installation().roles_sha256(),
            )
        seals.append_anchors(anchors, [entry])
        witness_seal_log(ledger)
        problems = verify(ledger, anchors)
    unknown = [p for p in problems if "'columnar', which this version does not know" in p]
    assert len(unknown) == 1 and unknown[0].startswith(f"{NEXT_DAY}: the seal wrote its rows")
    assert "verify the ledger with the version that closed the day" in unknown[0]
    # what does not depend on the row text is still checked: its kept digests and report
    assert f"{NEXT_DAY}: close_digests: the row digests of rounds were altered" in " ".join(
        problems
    )
    assert any(p.startswith(f"{NEXT_DAY}: report: the figures recomputed") for p in problems)
    assert not any("rounds: row" in p or "rounds: rows" in p for p in problems)
    assert not any(p.startswith(f"{DAY}:") for p in problems)


def test_two_columns_swapped_by_renaming_them_are_named(closed: Path, tmp_path: Path) -> None:
    """The values row text holds a value by its place: renaming the expected and recorded
    payouts into each other keeps every row digest, and the columns the entry sealed
    catch it."""
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        for old, new in (
            ("expected_paid_cents", "swapping"),
            ("recorded_paid_cents", "expected_paid_cents"),
            ("swapping", "recorded_paid_cents"),
        ):
            ledger.con.execute(f"ALTER TABLE settlements RENAME COLUMN {old} TO {new}")
        problems = verify(ledger, anchors)
    swapped = [p for p in problems if "settlements: its columns changed since the close" in p]
    assert len(swapped) == 1, problems
    sealed, _, now = swapped[0].partition("now (")
    middle = "{} BIGINT, expected_vig_cents BIGINT, recorded_result VARCHAR, {} BIGINT"
    assert middle.format("expected_paid_cents", "recorded_paid_cents") in sealed
    assert middle.format("recorded_paid_cents", "expected_paid_cents") in now
    assert "a value may now be read under another column's name" in swapped[0]


def test_a_ledger_from_before_the_row_text_verifies_read_only(
    closed_the_earlier_way: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ledger a version before migration 15 closed, never opened by a writer since: its
    seal log has no row_text column, its row digests are hex text (migration 16 keeps their
    bytes), and `verify` (which opens it read-only, migrating nothing) checks it as it was
    sealed."""
    directory = copy(closed_the_earlier_way, tmp_path / "old")
    # the columns of migration 15; the entry signed with neither (closed the earlier way)
    earlier = ", ".join(
        c for c in seal_record.COLUMNS if c not in ("row_text", "table_columns_json")
    )
    with Ledger(directory / LEDGER) as ledger:
        con = rows_in_the_file(ledger).con  # a version before the archive kept them there
        con.execute(f"CREATE TABLE seal_log_before AS SELECT {earlier} FROM seal_log")
        con.execute("DROP TABLE seal_log")
        con.execute("ALTER TABLE seal_log_before RENAME TO seal_log")
        digests_as_text(con)
        con.execute("DELETE FROM schema_migrations WHERE version >= 15")
    anchors = directory / "reports" / ANCHOR_FILE
    code = main(["verify", "--db", str(directory / LEDGER), "--anchors", str(anchors)])
    out = capsys.readouterr().out
    assert code == 0 and "1 closed gaming days checked" in out and "intact" in out, out
    with Ledger(directory / LEDGER, read_only=True) as ledger:
        assert ledger.schema_version() == 14
        assert the_seal(ledger).row_text is None
        assert digest_type(ledger.con) == "VARCHAR"


def digests_as_text(con: duckdb.DuckDBPyConnection) -> None:
    """``close_digests`` as a version before migration 16 kept it: each row digest's hex."""
    con.execute(
        "CREATE TABLE close_digests_text AS SELECT gaming_date, table_name, "
        f"{seal_record.KEPT_AS['BLOB'].read} AS row_sha256 FROM close_digests"
    )
    con.execute("DROP TABLE close_digests")
    con.execute("ALTER TABLE close_digests_text RENAME TO close_digests")


def digest_type(con: duckdb.DuckDBPyConnection) -> str:
    ((kind,),) = con.execute(
        "SELECT type FROM pragma_table_info('close_digests') WHERE name = 'row_sha256'"
    ).fetchall()
    return str(kind)


@pytest.mark.parametrize(
    "altered", [None, "'not a digest'", "upper(row_sha256)", "row_sha256 || ' '", "NULL"]
)
def test_migration_16_keeps_each_day_verifying_as_it_did(
    closed: Path, tmp_path: Path, altered: str | None
) -> None:
    """A ledger closed before migration 16 kept its row digests as hex text. A writer
    converts them to their bytes, and the day verifies as it did: intact, or, with a digest
    of rounds altered before the migration (to text that is no digest's lowercase hex, or to
    null), with that alteration still named."""
    directory = copy(closed, tmp_path / "old")
    with Ledger(directory / LEDGER) as ledger:
        digests_as_text(rows_in_the_file(ledger).con)  # before the archive, all in the file
        if altered is not None:
            ledger.con.execute(
                f"UPDATE close_digests SET row_sha256 = {altered} WHERE rowid = "
                "(SELECT min(rowid) FROM close_digests WHERE table_name = 'rounds')"
            )
        before = verify(ledger, directory / "reports" / ANCHOR_FILE)
        ledger.con.execute("DELETE FROM schema_migrations WHERE version >= 16")
    with Ledger(directory / LEDGER) as ledger:  # a writer migrates
        assert digest_type(ledger.con) == "BLOB"
        after = verify(ledger, directory / "reports" / ANCHOR_FILE)
    altered_rounds = [
        f"{DAY}: close_digests: 1 value(s) kept for rounds are no SHA-256 digest: edited since "
        "the close (seq 1)",
        f"{DAY}: close_digests: the row digests of rounds were altered since the close (seq 1); "
        "the HMAC'd seal entry still holds the table's digest",
    ]
    assert after == before == ([] if altered is None else altered_rounds)


def test_migration_16_refuses_a_close_digests_it_would_not_copy_whole(
    closed: Path, tmp_path: Path
) -> None:
    """A column someone added to close_digests is not dropped by the migration's copy: the
    writer refuses to open the ledger, says why, and leaves it as it was."""
    directory = copy(closed, tmp_path / "old")
    with Ledger(directory / LEDGER) as ledger:
        digests_as_text(rows_in_the_file(ledger).con)  # before the archive, all in the file
        ledger.con.execute("ALTER TABLE close_digests ADD COLUMN note VARCHAR DEFAULT 'kept'")
        ledger.con.execute("DELETE FROM schema_migrations WHERE version >= 16")
    with pytest.raises(LedgerError) as refused:
        Ledger(directory / LEDGER)
    message = str(refused.value)
    assert "cannot be migrated to schema version 16" in message
    assert "close_digests does not have the columns" in message
    assert "the ledger is at version 15, as this migration found it" in message
    assert "restore the ledger from a backup" in message
    with Ledger(directory / LEDGER, read_only=True) as ledger:
        assert ledger.schema_version() == 15
        assert digest_type(ledger.con) == "VARCHAR"
        ((notes,),) = ledger.con.execute("SELECT count(note) FROM close_digests").fetchall()
        assert notes > 0
        assert verify(ledger, directory / "reports" / ANCHOR_FILE) == []


def test_a_close_keeps_its_digests_as_the_column_reads_them(loaded: Path, tmp_path: Path) -> None:
    """A migrated ledger whose close_digests column was turned back into hex text (by hand, or
    restored from an export): a close keeps its digests as that text, so the day verifies;
    several digests written into one value are named, not read as lines of the kept digest."""
    directory = copy(loaded, tmp_path / "text")
    with Ledger(directory / LEDGER) as ledger:
        ledger.con.execute(
            "ALTER TABLE close_digests ALTER row_sha256 TYPE VARCHAR USING "
            f"{seal_record.KEPT_AS['BLOB'].read}"
        )
        close(ledger, DAY, directory / "reports")
        anchors = directory / "reports" / ANCHOR_FILE
        assert digest_type(ledger.con) == "VARCHAR"
        assert verify(ledger, anchors) == []
        rows_in_the_file(ledger).con.execute(
            "CREATE TABLE squeezed AS SELECT gaming_date, table_name, "
            "string_agg(row_sha256, chr(10) ORDER BY row_sha256) AS row_sha256 "
            "FROM close_digests WHERE table_name = 'rounds' GROUP BY ALL"
        )
        ledger.con.execute("DELETE FROM close_digests WHERE table_name = 'rounds'")
        ledger.con.execute("INSERT INTO close_digests SELECT * FROM squeezed")
        assert verify(ledger, anchors) == [
            f"{DAY}: close_digests: 1 value(s) kept for rounds are no SHA-256 digest: edited "
            "since the close (seq 1)"
        ]


def test_a_close_refuses_digests_it_cannot_keep(loaded: Path, tmp_path: Path) -> None:
    """close_digests.row_sha256 of a type no version kept digests in: the close says so, with
    what to do, and seals nothing."""
    directory = copy(loaded, tmp_path / "int")
    with Ledger(directory / LEDGER) as ledger:
        ledger.con.execute("ALTER TABLE close_digests ALTER row_sha256 TYPE INTEGER USING 0")
        with pytest.raises(
            seal_record.KeptDigestsError, match=r"row_sha256 is INTEGER.*from a backup"
        ):
            close(ledger, DAY, directory / "reports")
        assert seal_log(ledger) == []


def test_verify_names_digests_it_cannot_read_and_still_checks_the_rows(
    closed: Path, tmp_path: Path
) -> None:
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        ledger.con.execute("ALTER TABLE close_digests ALTER row_sha256 TYPE INTEGER USING 0")
        assert verify(ledger, anchors) == [
            f"{DAY}: close_digests.row_sha256 is INTEGER; this version keeps row digests as "
            "BLOB or VARCHAR: restore the table from a backup of the ledger (seq 1)"
        ]
        ledger.con.execute("UPDATE rounds SET winner = 'TIE' WHERE winner <> 'TIE'")
        assert any("rounds: rows changed since the close" in p for p in verify(ledger, anchors))


@pytest.mark.parametrize("field", ["table_digests_json", "table_columns_json"])
@pytest.mark.parametrize("forged", ["{not json", "[1, 2]", '{"rounds": 7}'])
def test_a_seal_entry_holding_garbage_is_named_not_a_crash(
    closed: Path, tmp_path: Path, field: str, forged: str
) -> None:
    """What an entry holds is read from a file anyone with access can write: garbage in
    its digests or columns is named, with the broken link, and verify goes on."""
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        ledger.con.execute(f"UPDATE seal_log SET {field} = ?", [forged])
        problems = verify(ledger, anchors)
    assert any("seal_log seq 1" in p and "does not verify" in p for p in problems)
    assert f"{DAY}: seal_log seq 1: its {field} is not what a close writes" in " ".join(problems)


def test_a_null_row_digest_changes_the_kept_digest(closed: Path, tmp_path: Path) -> None:
    """With the constraint dropped, a null row digest added to close_digests is named as an
    alteration of the kept digests, not dropped from them unseen."""
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        ledger.con.execute("ALTER TABLE close_digests ALTER COLUMN row_sha256 DROP NOT NULL")
        ledger.con.execute("INSERT INTO close_digests VALUES (?, 'rounds', NULL)", [DAY])
        problems = verify(ledger, anchors)
    assert problems == [
        f"{DAY}: close_digests: 1 value(s) kept for rounds are no SHA-256 digest: edited since "
        "the close (seq 1)",
        f"{DAY}: close_digests: the row digests of rounds were altered since the close (seq 1); "
        "the HMAC'd seal entry still holds the table's digest",
    ]


@pytest.mark.parametrize(
    ("row_text", "text", "digest"),
    [
        (
            None,
            "{'id': 'T01, seat', 'n': 4, 'day': 2026-11-24, 'at': '2026-11-24 06:05:00.5', "
            "'ids': [a, NULL, 'it\\'s'], 'none': NULL, 'word': 'NULL'}",
            "ceac10187ff5d28ef9ddd6ba16ce52435a108af19d3c6cd649c52abae065a877",
        ),
        (
            "values",
            "('T01, seat', 4, 2026-11-24, '2026-11-24 06:05:00.5', [a, NULL, 'it\\'s'], NULL, "
            "'NULL')",
            "6d0eec4935e902c13ab16bde61a19f0160011bdbd6493db497b1263a616ebe4a",
        ),
    ],
)
def test_a_row_is_written_out_as_it_was_when_sealed(
    row_text: str | None, text: str, digest: str
) -> None:
    """A fixed row's text and digest, pinned for each row text: a DuckDB that wrote rows
    out otherwise would fail every earlier seal, and shows here first."""
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t AS SELECT 'T01, seat' AS id, 4::BIGINT AS n, DATE '2026-11-24' AS day, "
        "TIMESTAMP '2026-11-24 06:05:00.5' AS at, ['a', NULL, 'it''s'] AS ids, "
        "NULL::VARCHAR AS none, 'NULL' AS word"
    )
    expression = seal_record.ROW_TEXTS[row_text]
    ((written, hashed),) = con.execute(
        f"SELECT {expression}, sha256({expression}) FROM t r"
    ).fetchall()
    assert written == text
    assert hashed == digest == hashlib.sha256(text.encode()).hexdigest()


def test_a_day_seals_the_same_in_little_memory_and_the_limit_is_restored(
    loaded: Path, closed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows are digested within SEAL_MEMORY and spill beyond it: squeezed to a few MB,
    the close seals the same rows to the same digests (but for the tables that record the
    close itself), verifies, and leaves the connection its usual limit."""
    directory = copy(loaded, tmp_path / "squeezed")
    monkeypatch.setattr(seal_record, "SEAL_MEMORY", "24MB")
    with Ledger(directory / LEDGER) as ledger:
        ((usual,),) = ledger.con.execute("SELECT current_setting('memory_limit')").fetchall()
        close(ledger, DAY, directory / "reports")
        ((limit,),) = ledger.con.execute("SELECT current_setting('memory_limit')").fetchall()
        squeezed = the_seal(ledger).table_digests
        problems = verify(ledger, directory / "reports" / ANCHOR_FILE)
    with Ledger(closed / LEDGER, read_only=True) as ledger:
        roomy = the_seal(ledger).table_digests
    # when the close validated and acted; and the journal records, which chain under each
    # copy's own ledger id (a copy of an unsealed ledger is another ledger)
    timed = ("quality_results", "gaming_day_audit", "acknowledgements")
    assert {t: d for t, d in squeezed.items() if t not in timed} == {
        t: d for t, d in roomy.items() if t not in timed
    }
    assert squeezed.keys() == roomy.keys() == SEALED_TABLES.keys()
    assert problems == []
    assert limit == usual


def test_editing_a_row_and_its_close_digest_is_still_caught(closed: Path, tmp_path: Path) -> None:
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        digest = (
            "sha256(row(*COLUMNS(*))::VARCHAR) FROM rounds "
            "WHERE rowid = (SELECT min(rowid) FROM rounds)"
        )
        before = ledger.con.execute(f"SELECT {digest}").fetchone()
        ledger.con.execute(  # whatever the first round's winner was, it now reads otherwise
            "UPDATE rounds SET winner = CASE winner WHEN 'PLAYER' THEN 'BANKER' ELSE 'PLAYER' END "
            "WHERE rowid = (SELECT min(rowid) FROM rounds)"
        )
        after = ledger.con.execute(f"SELECT {digest}").fetchone()
        assert before and after and before != after
        ledger.con.execute(
            "UPDATE close_digests SET row_sha256 = unhex(?) WHERE row_sha256 = unhex(?)",
            [after[0], before[0]],
        )
        problems = verify(ledger, anchors)
    assert any(
        "close_digests: the row digests of rounds were altered" in p
        and "HMAC'd seal entry still holds" in p
        for p in problems
    ), problems
    assert any("rounds: rows changed since the close" in p for p in problems)


def test_a_status_edited_to_reopened_is_named_and_skips_nothing(
    closed: Path, tmp_path: Path
) -> None:
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        ledger.con.execute("UPDATE gaming_days SET status = 'REOPENED'")
        ledger.con.execute("UPDATE settlements SET recorded_paid_cents = 0")
        checked = check(ledger, anchors)
    assert checked.days_checked == 1
    assert any("gaming_days: status is 'REOPENED'" in p for p in checked.problems)
    assert any("settlements: row changed or added" in p for p in checked.problems)


def test_a_status_edited_to_reopened_lets_no_late_file_in(closed: Path, tmp_path: Path) -> None:
    """Whether a day takes deliveries is decided by its last seal event, not by the status
    column: a status edited to REOPENED opens nothing, and the late file is refused whole."""
    late = emulate(tmp_path / "late", DAY, 1)
    with ledger_copy(closed, tmp_path) as (ledger, _):
        ledger.con.execute("UPDATE gaming_days SET status = 'REOPENED'")
        before = ledger.con.execute("SELECT count(*) FROM deliveries").fetchone()
        with pytest.raises(ClosedGamingDayError, match=f"closed gaming day\\(s\\) {DAY}"):
            ingest_paths(ledger, late, DEFAULT_CATALOG)
        assert ledger.con.execute("SELECT count(*) FROM deliveries").fetchone() == before


def test_deleting_the_newest_seal_and_day_row_cannot_verify_as_nothing(
    closed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Today's "0 closed days checked; intact" after a delete: the anchor file remembers."""
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        ledger.con.execute("DELETE FROM seal_log")
        ledger.con.execute("DELETE FROM gaming_days")
        ledger.con.execute("DELETE FROM close_digests")
    code = main(["verify", "--db", str(tmp_path / "copy" / LEDGER), "--anchors", str(anchors)])
    out = capsys.readouterr().out
    assert code == 1
    assert "0 closed gaming days checked" in out and "intact" not in out
    assert "which the ledger's seal_log does not have: the newest seal events were deleted" in out


def test_a_seal_log_rewritten_without_the_key_does_not_authenticate(
    closed: Path, tmp_path: Path
) -> None:
    """Rewritten consistently (sequence, previous links, gaming_days, anchor file) with a
    key of the forger's own: every link is named."""
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        entry = the_seal(ledger)
        # a key of the forger's own, claiming the installation's key id
        forger = Signer("seal", str(entry.key_id), Ed25519PrivateKey.generate())
        forged = SealEntry(**{**asdict(entry), "report_sha256": "0" * 64, "link": ""})
        link = chain_link("seal", GENESIS, forged.content_digest)
        ledger.con.execute(
            "UPDATE seal_log SET report_sha256 = ?, link = ?, signature = ?",
            [forged.report_sha256, link, forger.sign(link.encode())],
        )
        ledger.con.execute(
            "UPDATE gaming_days SET report_sha256 = ?, chain_sha256 = ?",
            [forged.report_sha256, link],
        )
        anchors.write_text(json.dumps({**entry.anchor_line(), "link": link}) + "\n")
        problems = verify(ledger, anchors)
    assert any("seal_log seq 1" in p and "does not verify" in p for p in problems)


def test_a_missing_anchor_file_is_named(closed: Path, tmp_path: Path) -> None:
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        anchors.unlink()
        problems = verify(ledger, anchors)
    assert problems == [
        f"{anchors}: the anchor file is missing (the ledger has 1 seal events, the newest seq "
        "1): restore it, or name it with --anchors"
    ]


def test_an_anchor_file_short_of_its_last_line_is_named(closed: Path, tmp_path: Path) -> None:
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        lines = anchors.read_text().splitlines(keepends=True)
        assert len(lines) == 1
        anchors.write_text("".join(lines[:-1]))
        problems = verify(ledger, anchors)
    assert len(problems) == 1 and "is not anchored; seal events 1 are missing" in problems[0]


def test_the_head_filed_elsewhere_is_checked(closed: Path, tmp_path: Path) -> None:
    with ledger_copy(closed, tmp_path) as (ledger, anchors):
        head = the_seal(ledger).link
        assert verify(ledger, anchors, expect_head=head) == []
        problems = verify(ledger, anchors, expect_head="ab" * 32)
    assert any(
        "no seal event has the link " + "ab" * 32 in p and f"head is {head}" in p for p in problems
    )


@pytest.mark.parametrize("damage", ["emptied", "last line removed"])
def test_a_journal_emptied_or_cut_after_the_close_is_named(
    closed: Path, tmp_path: Path, damage: str
) -> None:
    """The close imported the journal's acknowledgements and sealed them; the journal losing
    them afterwards is named by verify (the journal is authenticated line by line)."""
    with ledger_copy(closed, tmp_path) as (ledger, _):
        assert verify(ledger) == []
        journal = AckJournal.for_ledger(ledger.path).path
        lines = journal.read_text().splitlines(keepends=True)
        assert lines, "the fixture's journal holds an escalation"
        journal.write_text("" if damage == "emptied" else "".join(lines[:-1]))
        problems = verify(ledger)
    assert problems and any("journal" in p for p in problems)


# ---------------------------------------------------------------------- legitimate operations
def test_out_of_order_reopen_late_file_and_reclose_all_verify(tmp_path: Path) -> None:
    """Close day 2, close day 1, reopen day 1, load a late file into it, close it again:
    verify is intact after each step; a dead letter belongs to its own day's report, and one
    arriving after the close of its source's day does not break that day's seal."""
    first = emulate(tmp_path, DAY, 3)
    late, first = first[-1], first[:-1]
    second = emulate(tmp_path, NEXT_DAY, 2)
    load(tmp_path, first + second)
    out = tmp_path / "reports"
    anchors = out / ANCHOR_FILE
    with Ledger(tmp_path / LEDGER) as ledger:
        dead_letter(ledger, str(second[0].resolve()), 10**9)
        day2 = close(ledger, NEXT_DAY, out)
        assert day2.report["dead_letters"] == [
            {"reason": "DAMAGED_BLOCK", "count": 1, "resolved": 0}
        ]
        assert verify(ledger, anchors) == []
        day1 = close(ledger, DAY, out)
        assert day1.report["dead_letters"] == []
        assert verify(ledger, anchors) == []
        dead_letter(ledger, str(second[0].resolve()), 10**9 + 1)
        assert verify(ledger, anchors) == []
        reopen_gaming_day(
            ledger, DAY, "late file from T03", actor="accountant", actor_source="test"
        )
        assert verify(ledger, anchors) == []
    load(tmp_path, [late])
    with Ledger(tmp_path / LEDGER) as ledger:
        assert verify(ledger, anchors) == []
        again = close(ledger, DAY, out)
        checked = check(ledger)  # the anchor file the seal log names
        assert len(again.report["tables"]) == len(day1.report["tables"]) + 1
        assert [e.action for e in seal_log(ledger)] == ["CLOSE", "CLOSE", "REOPEN", "CLOSE"]
    assert checked.problems == [] and checked.days_checked == 2
    assert (
        checked.head
        == again.chain_sha256
        == json.loads(anchors.read_text().splitlines()[-1])["link"]
    )


# ---------------------------------------------------------------------- refusals
def test_a_day_without_events_is_refused_unless_a_reason_is_given(
    loaded: Path, tmp_path: Path
) -> None:
    directory = copy(loaded, tmp_path / "copy")
    future = date(2027, 1, 1)
    with Ledger(directory / LEDGER) as ledger:
        with pytest.raises(EmptyDayError, match=f"gaming day {future} has no events") as refused:
            close_gaming_day(
                ledger, future, tmp_path / "r", actor="accountant", actor_source="test"
            )
        assert f"The nearest days with events: {DAY}" in str(refused.value)
        assert "--allow-empty" in str(refused.value)
        for table in ("seal_log", "gaming_days", "quality_results", "gaming_day_audit"):
            count = ledger.con.execute(f"SELECT count(*) FROM {table}").fetchone()
            assert count == (0,), f"{table} was written by a refused close"
        assert not (tmp_path / "r").exists()
        closed = close_gaming_day(
            ledger,
            future,
            tmp_path / "r",
            actor="accountant",
            actor_source="test",
            accept_quality_failures=ACCEPT,
            allow_empty="casino closed for the storm",
        )
        audit = ledger.con.execute(
            "SELECT reason FROM gaming_day_audit WHERE action = 'CLOSE_EMPTY_DAY'"
        ).fetchall()
        assert verify(ledger) == []
    assert closed.seal["reason"] == "casino closed for the storm"
    assert audit == [("casino closed for the storm",)]


def test_cli_close_of_an_empty_day_exits_2(
    loaded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = copy(loaded, tmp_path / "copy")
    code = main(
        [
            "close",
            "--db",
            str(directory / LEDGER),
            "--gaming-day",
            "2062-11-24",
            "--out",
            str(tmp_path / "r"),
            "--actor",
            "demo-controller",
        ]
    )
    assert code == 2
    assert "gaming day 2062-11-24 has no events" in capsys.readouterr().err


# ---------------------------------------------------------------------- the last action stands
@pytest.mark.parametrize(
    ("actions", "blocks"),
    [(("ACKNOWLEDGE", "ESCALATE"), True), (("ESCALATE", "ACKNOWLEDGE"), False)],
)
def test_the_last_acknowledgement_action_stands(
    loaded: Path, tmp_path: Path, actions: tuple[str, str], blocks: bool
) -> None:
    directory = copy(loaded, tmp_path / "copy")
    with Ledger(directory / LEDGER) as ledger:
        critical = ledger.con.execute(
            "SELECT max(exception_id) FROM exceptions WHERE severity_rank >= 4"
        ).fetchone()
        ledger_id = ledger.ledger_id
    assert critical is not None and critical[0] is not None
    journal = AckJournal.for_ledger(directory / LEDGER, ledger_id=ledger_id)
    for minute, action in enumerate(actions):
        journal.append(
            exception_id=critical[0],
            action=action,
            note="reviewed",
            actor="analyst",
            actor_source="command line",
            now=datetime(2026, 11, 25, 8, minute, tzinfo=UTC),
        )
    with Ledger(directory / LEDGER) as ledger:
        closed = close(ledger, DAY, tmp_path / "r")
    blocking = {b["exception_id"] for b in closed.report["blocking_exceptions"]}
    assert (critical[0] in blocking) is blocks
    assert closed.blocking == len(blocking)


# ---------------------------------------------------------------------- reports from the seal
def test_report_regenerates_the_close_files_byte_for_byte(loaded: Path, tmp_path: Path) -> None:
    directory = copy(loaded, tmp_path / "copy")
    out = directory / "reports"
    with Ledger(directory / LEDGER) as ledger:
        closed = close(ledger, DAY, out)
    sealed = {p.name: p.read_bytes() for p in closed.files}
    assert sorted(sealed) == sorted(
        f"close-{DAY}{r}.{s}" for r in ("", ".r1") for s in ("csv", "html", "json", "xlsx")
    )
    for p in closed.files:
        p.unlink()
    db = str(directory / LEDGER)
    assert main(["report", "--db", db, "--gaming-day", str(DAY), "--out", str(out)]) == 0
    assert {p.name: p.read_bytes() for p in out.glob("close-*")} == sealed
    head = json.loads(sealed[f"close-{DAY}.json"])["seal"]["link"]
    assert f"<code>{head}</code>" in sealed[f"close-{DAY}.html"].decode()
    assert not list(out.glob(".*partial"))


def test_report_refuses_a_day_not_closed_or_no_longer_sealed(
    closed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = copy(closed, tmp_path / "copy")
    db = str(directory / LEDGER)
    assert (
        main(["report", "--db", db, "--gaming-day", str(NEXT_DAY), "--out", str(tmp_path / "r")])
        == 2
    )
    assert f"gaming day {NEXT_DAY} is not closed" in capsys.readouterr().err
    with Ledger(db) as ledger:
        rows_in_the_file(ledger).con.execute(
            "UPDATE table_day_summary SET handle_cents = 2 * handle_cents"
        )
    assert main(["report", "--db", db, "--gaming-day", str(DAY), "--out", str(tmp_path / "r")]) == 1
    assert "table_day_summary: row changed or added" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


CRASHING_CLOSE = """
import os, signal, sys
from datetime import datetime

import pipeline.reports.close as close
from pipeline.cli import main

# the seal time is fixed so that a normal close of an identical ledger seals the same entry
close.seal_time = lambda: datetime.fromisoformat(sys.argv[1])


def killed_after_the_commit(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)


close.append_anchors = killed_after_the_commit  # the first step after the seal's commit
sys.exit(main(sys.argv[2:]))
"""


def test_a_close_killed_between_its_seal_and_its_reports_loses_nothing(
    loaded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kill -9 of a real `baccarat-audit close` right after the seal commits: `report`
    finishes it (anchor and files), verify is intact, and the files are byte for byte those
    of an uninterrupted close of an identical ledger at the same seal time, but for the two
    values that carry the quality validation's own wall-clock time (``quality_results`` keeps
    when it ran and how long it took): that table's digest, and so the seal link and its
    signature."""
    import subprocess
    import sys

    import pipeline.reports.close as close_module

    sealed_at = datetime(2026, 11, 25, 7, 0, 0, 250000)
    # one ledger twice: the normal close runs under a copy of the installation (its own
    # witness), where it is not a fork of the crashed copy's close
    crashed = copy(loaded, tmp_path / "crashed")
    normal = shutil.copytree(crashed, tmp_path / "normal")
    elsewhere = shutil.copytree(installation().root, tmp_path / "installation-elsewhere")
    out = tmp_path / "reports"
    script = tmp_path / "crashing_close.py"
    script.write_text(CRASHING_CLOSE)
    arguments = ["--gaming-day", str(DAY), "--out", str(out), "--actor", "demo-controller"]
    run = subprocess.run(
        [
            sys.executable,
            str(script),
            sealed_at.isoformat(),
            "close",
            "--db",
            str(crashed / LEDGER),
            *arguments,
            "--accept-quality-failures",
            ACCEPT,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == -9, run.stderr
    with Ledger(crashed / LEDGER, read_only=True) as ledger:
        assert [e.action for e in seal_log(ledger)] == ["CLOSE"]  # the seal committed
        acting_as = the_seal(ledger).actor_source  # the operating-system account, on the CLI
    assert not list(out.glob("close-*"))
    assert (out / ANCHOR_FILE).read_text() == ""
    cli = [sys.executable, "-m", "pipeline.cli"]
    report = subprocess.run(
        [
            *cli,
            "report",
            "--db",
            str(crashed / LEDGER),
            "--gaming-day",
            str(DAY),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert report.returncode == 0, report.stderr
    checked = subprocess.run(
        [*cli, "verify", "--db", str(crashed / LEDGER)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert checked.returncode == 0 and "1 closed gaming days checked" in checked.stdout, (
        checked.stdout
    )
    regenerated = {p.name: _unzipped(p) for p in out.glob("close-*")}
    anchored = (out / ANCHOR_FILE).read_bytes()
    out.rename(tmp_path / "regenerated")

    monkeypatch.setattr(close_module, "seal_time", lambda: sealed_at)
    monkeypatch.setenv("BACCARAT_INSTALLATION", str(elsewhere))
    with Ledger(normal / LEDGER) as ledger:
        closed = close_gaming_day(
            ledger,
            DAY,
            out,
            actor="demo-controller",
            actor_source=acting_as,
            accept_quality_failures=ACCEPT,
        )
    theirs = json.loads(regenerated[f"close-{DAY}.json"])["seal"]
    ours = closed.seal

    def as_theirs(content: bytes) -> bytes:
        validation = (
            ours["table_digests"]["quality_results"],
            theirs["table_digests"]["quality_results"],
        )
        content = content.replace(ours["link"].encode(), theirs["link"].encode())
        content = content.replace(ours["signature"].encode(), theirs["signature"].encode())
        # each close writes its own Iceberg files (named by random ids), so its own manifest
        content = content.replace(
            ours["archive_sha256"].encode(), theirs["archive_sha256"].encode()
        )
        return content.replace(validation[0].encode(), validation[1].encode())

    assert {k: v for k, v in ours["table_digests"].items() if k != "quality_results"} == {
        k: v for k, v in theirs["table_digests"].items() if k != "quality_results"
    }
    assert {p.name: as_theirs(_unzipped(p)) for p in closed.files} == regenerated
    assert as_theirs((out / ANCHOR_FILE).read_bytes()) == anchored


def _unzipped(path: Path) -> bytes:
    """A report file's bytes; a workbook's members unzipped, so the seal links in them can
    be compared."""
    if path.suffix != ".xlsx":
        return path.read_bytes()
    with zipfile.ZipFile(path) as book:
        return b"".join(book.read(name) for name in sorted(book.namelist()))


def test_a_ledger_closed_before_the_seal_log_migrates_and_says_how_to_reseal(
    tmp_path: Path,
) -> None:
    """A schema-4 ledger with a day closed under the old date-ordered chain: it migrates, the
    old close is named (not silently trusted), and a reopen and re-close seal it."""
    from pipeline.ledger.migrations import MIGRATIONS

    db = tmp_path / LEDGER
    con = ledger_at_schema(db, 4)
    con.execute(
        "INSERT INTO gaming_days VALUES (?, 'CLOSED', now(), 'r', NULL, 'c', 0, 'rows', 'inputs')",
        [DAY],
    )
    con.close()
    with Ledger(db) as ledger:
        assert ledger.schema_version() == MIGRATIONS[-1][0]
        problems = verify(ledger, tmp_path / "none.jsonl")
        assert problems == [
            f"{DAY}: gaming_days: status 'CLOSED' but the seal log has no event for the day (a "
            "row inserted, its seal events deleted, or a close made before the seal log: reopen "
            "the day and close it again to seal it)"
        ]
        reopen_gaming_day(
            ledger, DAY, "re-seal under the seal log", actor="accountant", actor_source="test"
        )
        close_gaming_day(
            ledger,
            DAY,
            tmp_path / "reports",
            actor="accountant",
            actor_source="test",
            accept_quality_failures=ACCEPT,
            allow_empty="an old close without events kept",
        )
        assert verify(ledger) == []


def test_reports_that_cannot_be_written_after_the_seal_are_written_by_report(
    loaded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = copy(loaded, tmp_path / "copy")
    out = tmp_path / "reports"
    blocker = out / f"close-{DAY}.json"
    blocker.mkdir(parents=True)  # a directory where the report goes: the rename fails
    db = str(directory / LEDGER)
    close = ["close", "--db", db, "--gaming-day", str(DAY), "--out", str(out)]
    assert main([*close, "--actor", "demo-controller", "--accept-quality-failures", ACCEPT]) == 2
    refusal = capsys.readouterr().err
    assert f"gaming day {DAY} is sealed (seal event 1" in refusal
    assert f"run baccarat-audit report --db {db} --gaming-day {DAY}" in refusal
    blocker.rmdir()
    assert main(["report", "--db", db, "--gaming-day", str(DAY), "--out", str(out)]) == 0
    assert main(["verify", "--db", db]) == 0
    assert json.loads(blocker.read_text())["seal"]["seq"] == 1


def test_a_close_to_a_place_it_cannot_write_seals_nothing(
    loaded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = copy(loaded, tmp_path / "copy")
    out = tmp_path / "a-file"
    out.write_text("not a directory")
    db = str(directory / LEDGER)
    close = ["close", "--db", db, "--gaming-day", str(DAY), "--out", str(out)]
    assert main([*close, "--actor", "demo-controller", "--accept-quality-failures", ACCEPT]) == 2
    assert "nothing was sealed" in capsys.readouterr().err
    with Ledger(db, read_only=True) as ledger:
        assert seal_log(ledger) == []


def test_a_close_killed_at_any_moment_is_recovered_by_report_or_a_new_close(
    loaded: Path, tmp_path: Path
) -> None:
    """kill -9 of a real `baccarat-audit close` at moments spread over its run (quality gate,
    seal, anchor, reports): afterwards the day is either not sealed, and closing it again
    works, or sealed, and `report` completes its anchor line and files; either way verify is
    intact. The moments are fractions of an uninterrupted close's duration, measured first
    (the faster of two)."""
    import random
    import subprocess
    import sys
    import time

    cli = [sys.executable, "-m", "pipeline.cli"]

    def command(directory: Path, *extra: str) -> list[str]:
        return [*cli, *extra, "--db", str(directory / LEDGER), "--gaming-day", str(DAY)]

    def closing(directory: Path) -> list[str]:
        return [
            *command(directory, "close"),
            *("--out", str(directory / "reports"), "--actor", "demo-controller"),
            *("--accept-quality-failures", ACCEPT),
        ]

    def finished(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, capture_output=True, text=True, timeout=600, check=False)

    def uninterrupted(name: str) -> float:
        started = time.monotonic()
        assert finished(closing(copy(loaded, tmp_path / name))).returncode in (0, 1)
        return time.monotonic() - started

    # the faster of two: the first close of a fresh process tree pays cold caches, and kill
    # moments taken from it fell after the later, warm closes had ended
    duration = min(uninterrupted("reference"), uninterrupted("reference-warm"))
    chance = random.Random(11)
    moments = sorted(chance.uniform(0.2, 0.95) for _ in range(3))
    killed = 0
    for attempt, fraction in enumerate(moments):
        directory = copy(loaded, tmp_path / f"killed-{attempt}")
        process = subprocess.Popen(
            closing(directory), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(fraction * duration)
        process.kill()
        if process.wait() == -9:
            killed += 1
        elif len(moments) < 6:
            # the close ended first: on a machine whose load fell since the reference ran,
            # a close runs faster than it; try a moment as much earlier again
            moments.append(fraction / 2)
        with Ledger(directory / LEDGER, read_only=True) as ledger:
            sealed = [e.action for e in seal_log(ledger)] == ["CLOSE"]
        recovery = (
            finished([*command(directory, "report"), "--out", str(directory / "reports")])
            if sealed
            else finished(closing(directory))
        )
        assert recovery.returncode in (0, 1), (fraction, sealed, recovery.stderr)
        checked = finished([*cli, "verify", "--db", str(directory / LEDGER)])
        assert checked.returncode == 0, (fraction, sealed, checked.stdout)
        assert (directory / "reports" / f"close-{DAY}.html").exists()
    assert killed >= 2, "the moments chosen fell after the close had ended"
