"""The archive of sealed gaming days (pipeline.ledger.archive), tried with real parts: a small
emulated day replayed and closed, archived into an embedded Iceberg catalog, read back with
pyiceberg and DuckDB alone, tampered with, reopened and closed again.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog import Catalog
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table.update import update_table_metadata

from pipeline.cli import ingest_paths, main, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.ledger.archive import (
    DAY_COLUMN,
    ICEBERG_TYPES,
    TABLE_PROPERTIES,
    ArchiveError,
    ArchiveManifest,
    RowGroupEncoders,
    archive_columns,
    archive_day,
    archive_problems,
    archive_schema,
    archive_sealed_days,
    day_file_uris,
    open_archive,
    partition_spec,
    read_day,
    recorded_manifest,
    sealed_day_rows,
    unarchived_seals,
)
from pipeline.ledger.seal_record import seal_log
from pipeline.ledger.store import Ledger
from pipeline.ledger.tables import ARCHIVED, ON_THE_DAY, TABLE, Column, Kind, Table
from pipeline.reports.close import close_gaming_day, reopen_gaming_day
from pipeline.reports.verify import check
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)
LEDGER = "ledger.duckdb"
ACCEPT = "emulated day with injected faults"


def close(ledger: Ledger, gaming_date: date = DAY) -> None:
    close_gaming_day(
        ledger,
        gaming_date,
        ledger.path.parent / "reports",
        actor="accountant",
        actor_source="command line",
        accept_quality_failures=ACCEPT,
    )


@pytest.fixture(scope="module")
def emulated(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The event files of a day of one table and one hour with every fault kind."""
    directory = tmp_path_factory.mktemp("emulated")
    return write_simulation(simulate(1, 1, 11, parse_faults("all"), DAY), directory, DAY)


def closed_ledger(emulated: list[Path], directory: Path, closing: Callable[[Ledger], None]) -> Path:
    """The day loaded into a ledger in ``directory``, with a dead letter the close stamps with
    the day (so a table whose rows carry no gaming date is archived too), and closed."""
    directory.mkdir(parents=True, exist_ok=True)
    with Ledger(directory / LEDGER) as ledger:
        ingest_paths(ledger, emulated, DEFAULT_CATALOG)
        ledger.con.execute(
            "INSERT INTO dead_letters (source, position, reason, detail, device_id, raw_bytes) "
            "VALUES (?, 1000000000, 'DAMAGED_BLOCK', 'checksum mismatch', 'dev-1', '\\xAA'::BLOB)",
            [str(emulated[0].resolve())],
        )
        closing(ledger)
    return directory / LEDGER


def the_manifest(ledger: Ledger) -> ArchiveManifest:
    """The manifest of the day's newest close."""
    entry = seal_log(ledger)[-1]
    manifest = recorded_manifest(ledger, DAY, entry.sealed_at)
    assert manifest is not None and manifest.sha256 == entry.archive_sha256
    return manifest


@pytest.fixture(scope="module")
def archived(
    emulated: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, ArchiveManifest]:
    """The day closed, which archives it, with its manifest (read-only for its tests)."""
    path = closed_ledger(emulated, tmp_path_factory.mktemp("archived"), close)
    with Ledger(path) as ledger:
        return path, the_manifest(ledger)


@pytest.fixture
def fresh(emulated: list[Path], tmp_path: Path) -> Iterator[tuple[Ledger, ArchiveManifest]]:
    """The day closed for one test to break (Iceberg's metadata names files by absolute
    path, so a copied archive would still be the original's)."""
    with Ledger(closed_ledger(emulated, tmp_path / "day", close)) as ledger:
        yield ledger, the_manifest(ledger)


def close_before_the_archive(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    """A close as this version made it before the archive existed: the same close with its
    archive step left out, so its seal entry names no manifest."""

    class Unarchived:
        sha256 = None

        @staticmethod
        def uris() -> dict[str, list[str]]:
            return {}

    with monkeypatch.context() as patched:
        patched.setattr("pipeline.reports.close.archive_day", lambda *a, **k: Unarchived)
        patched.setattr("pipeline.reports.close.move_out", lambda *a, **k: None)
        close(ledger)


def pyiceberg_catalog(ledger_path: Path) -> Catalog:
    """The embedded archive as pyiceberg alone opens it: the SQL catalog's SQLite file and the
    warehouse beside the ledger, under the catalog name ``baccarat``."""
    folder = ledger_path.parent / "archive"
    return SqlCatalog(
        "baccarat",
        uri=f"sqlite:///{folder / 'catalog.db'}",
        warehouse=(folder / "warehouse").as_uri(),
    )


def canonical(rows: pa.Table) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True, default=str) for r in rows.to_pylist())


def ledger_rows(ledger_path: Path, table: str) -> pa.Table:
    """The day's rows as the ledger reads them: from the archive's files once closed, the
    rows whose digests ``verify`` checks against the seal."""
    with Ledger(ledger_path, read_only=True) as ledger:
        return ledger.con.sql(
            f"SELECT * FROM {table} WHERE gaming_date = ?", params=[DAY]
        ).to_arrow_table()


# ---------------------------------------------------------------------- the table set
def test_every_sealed_table_has_an_archive_schema_partitioned_by_its_day() -> None:
    """Each sealed table's declared columns, in order, with the declared nullability; those
    whose day selector is not the plain one get the day they are archived under."""
    added = []
    for table in ARCHIVED:
        schema = archive_schema(table)
        names = [f.name for f in schema.fields]
        assert names[: len(table.columns)] == list(table.column_names)
        assert [f.required for f in schema.fields][: len(table.columns)] == [
            c.not_null for c in table.columns
        ]
        assert DAY_COLUMN in names
        if table.day_rows != ON_THE_DAY:
            added.append(table.name)
            assert names[-1] == DAY_COLUMN and schema.fields[-1].required
    assert added == ["input_files", "acknowledgements", "dead_letters"]
    assert str(archive_schema(TABLE["wagers"]).find_field("source_event_ids").field_type) == (
        "list<string>"
    )


def test_a_type_the_archive_does_not_map_is_refused() -> None:
    odd = Table(
        "odd",
        Kind.SEALED,
        (Column("gaming_date", "DATE", True), Column("amount", "DECIMAL(18,2)")),
        day_rows=ON_THE_DAY,
    )
    with pytest.raises(ArchiveError, match=r"odd\.amount is declared DECIMAL\(18,2\)"):
        archive_schema(odd)
    assert "DECIMAL(18,2)" not in ICEBERG_TYPES


def test_a_gaming_date_that_does_not_select_the_day_is_refused() -> None:
    odd = Table(
        "odd",
        Kind.SEALED,
        (Column("gaming_date", "DATE"), Column("received_on", "DATE")),
        day_rows="received_on = $day",
    )
    with pytest.raises(ArchiveError, match="odd has a gaming_date column but selects"):
        archive_columns(odd)


# ---------------------------------------------------------------------- writing a day
def test_a_closed_day_is_archived_with_a_manifest_of_its_files(
    archived: tuple[Path, ArchiveManifest],
) -> None:
    path, manifest = archived
    assert [t.table for t in manifest.tables] == [t.name for t in ARCHIVED]
    for table in manifest.tables:
        assert sum(f.records for f in table.files) == table.rows
        for file in table.files:
            assert file.path.startswith(f"baccarat/{table.table}/data/gaming_date={DAY}/")
            assert (path.parent / "archive" / "warehouse" / file.path).stat().st_size == file.bytes
    assert manifest.table("deliveries").rows > 1000
    assert manifest.table("dead_letters").rows == 1
    assert manifest.total_bytes == sum(f.bytes for t in manifest.tables for f in t.files)
    # the canonical JSON round-trips, and the ledger keeps it by its seal
    assert ArchiveManifest.from_json(manifest.as_json()) == manifest
    with Ledger(path, read_only=True) as ledger:
        assert recorded_manifest(ledger, DAY, manifest.sealed_at) == manifest
        assert unarchived_seals(ledger) == []
        assert archive_problems(open_archive(path), manifest, DAY) == []
    # the files are Parquet compressed with zstd
    first = path.parent / "archive" / "warehouse" / manifest.table("deliveries").files[0].path
    assert pq.ParquetFile(first).metadata.row_group(0).column(0).compression == "ZSTD"


def test_a_table_made_before_a_write_property_is_given_it(tmp_path: Path) -> None:
    """A table an earlier version made with the codec only writes its next files at the
    compression level :data:`TABLE_PROPERTIES` states."""
    archive = open_archive(tmp_path / LEDGER)
    table = TABLE["rounds"]
    archive.catalog.create_namespace_if_not_exists(archive.namespace)
    schema = archive_schema(table)
    archive.catalog.create_table(
        archive.identifier(table.name),
        schema=schema,
        partition_spec=partition_spec(schema),
        properties={"write.parquet.compression-codec": "zstd"},
    )
    written = archive.writable(table)
    assert written.properties.items() >= TABLE_PROPERTIES.items()
    assert TABLE_PROPERTIES["write.parquet.compression-level"] == "9"


def test_a_day_is_archived_once_per_seal(fresh: tuple[Ledger, ArchiveManifest]) -> None:
    ledger, manifest = fresh
    with pytest.raises(ArchiveError, match="archived already for its seal"):
        archive_day(ledger, DAY, manifest.sealed_at)
    assert archive_sealed_days(ledger) == []


def test_a_ledger_sealed_before_the_archive_is_moved_into_it_and_still_verifies(
    emulated: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 26's migration: `baccarat-audit archive` archives every day sealed before the
    archive existed, as its close sealed it; the day verifies before and after, and a file
    of the migrated archive edited afterwards is named."""
    path = closed_ledger(
        emulated, tmp_path / "day", lambda ledger: close_before_the_archive(ledger, monkeypatch)
    )
    with Ledger(path) as ledger:
        assert seal_log(ledger)[-1].archive_sha256 is None
        assert check(ledger).problems == []
    assert main(["archive", "--db", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{DAY} (sealed " in out
    assert "1 sealed gaming days archived and read from the archive" in out
    assert f"baccarat/deliveries/data/gaming_date={DAY}/" in out
    assert main(["archive", "--db", str(path)]) == 0
    assert capsys.readouterr().out == "0 sealed gaming days archived and read from the archive\n"
    with Ledger(path) as ledger:
        assert check(ledger).problems == []
        manifest = recorded_manifest(ledger, DAY, seal_log(ledger)[-1].sealed_at)
        assert manifest is not None
        edited = path.parent / "archive" / "warehouse" / manifest.table("rounds").files[0].path
        edited.write_bytes(edited.read_bytes()[:-1] + b"?")
        assert any(
            "rounds" in p and "was edited since the seal" in p for p in check(ledger).problems
        )


def test_the_close_archives_the_day_and_verify_checks_the_archive_against_the_seal(
    fresh: tuple[Ledger, ArchiveManifest],
) -> None:
    """Issue 26: the seal covers the archive. The close's entry carries the manifest's SHA-256;
    a manifest rewritten, or deleted, is named by verify, and so is a data file edited."""
    ledger, manifest = fresh
    assert check(ledger).problems == []
    edited = (
        ledger.path.parent / "archive" / "warehouse" / manifest.table("settlements").files[0].path
    )
    original = edited.read_bytes()
    edited.write_bytes(original[:-1] + b"?")
    sealed = manifest.table("settlements").files[0]
    problems = check(ledger).problems
    assert [p for p in problems if "archive settlements" in p] == [
        f"{DAY}: archive settlements {DAY}: data file {sealed.path} was edited since the seal "
        f"(SHA-256 {hashlib.sha256(edited.read_bytes()).hexdigest()}, sealed {sealed.sha256})"
    ]
    # the working store reads the day from that file: its rows cannot be read, said as such
    assert any(
        p.startswith(f"{DAY}: settlements: its rows cannot be read") and "restore it" in p
        for p in problems
    )
    # the file restored, and the manifest rewritten to vouch for an edited file instead
    edited.write_bytes(original)
    ledger.con.execute(
        "UPDATE archive_manifests SET manifest_json = replace(manifest_json, ?, ?)",
        [sealed.sha256, "0" * 64],
    )
    assert any(
        "the manifest of the close" in p and "was altered" in p for p in check(ledger).problems
    )
    ledger.con.execute("DELETE FROM archive_manifests")
    assert any(
        "the manifest of the close" in p and "is missing" in p for p in check(ledger).problems
    )


# ---------------------------------------------------------------------- reading it back
@pytest.mark.parametrize("table", ["rounds", "settlements", "exceptions"])
def test_a_closed_day_reads_back_with_pyiceberg_alone(
    archived: tuple[Path, ArchiveManifest], table: str
) -> None:
    """Nothing of this package: pyiceberg's SQL catalog, a scan of the day, and the same rows
    as the ledger's of that day."""
    path, _ = archived
    iceberg = pyiceberg_catalog(path).load_table(("baccarat", table))
    rows = iceberg.scan(row_filter=f"gaming_date = '{DAY}'").to_arrow()
    expected = ledger_rows(path, table)
    assert expected.num_rows > 0
    assert canonical(rows) == canonical(expected)


def test_a_closed_day_reads_with_plain_duckdb(archived: tuple[Path, ArchiveManifest]) -> None:
    """DuckDB's read_parquet over the day's partition folder (one archive: its files are the
    day's), and over the files the archive's scan lists."""
    path, manifest = archived
    partition = path.parent / "archive" / "warehouse" / "baccarat" / "settlements" / "data"
    files = sorted(str(p) for p in (partition / f"gaming_date={DAY}").glob("*.parquet"))
    assert len(files) == len(manifest.table("settlements").files) == 1
    with duckdb.connect() as con:
        rows = con.sql("SELECT * FROM read_parquet(?)", params=[files]).to_arrow_table()
        uris = day_file_uris(open_archive(path), "exceptions", DAY)
        exceptions = con.sql("SELECT * FROM read_parquet(?)", params=[uris]).to_arrow_table()
    assert canonical(rows) == canonical(ledger_rows(path, "settlements"))
    assert canonical(exceptions) == canonical(ledger_rows(path, "exceptions"))


def test_read_day_gives_the_rows_of_a_table_without_a_gaming_date(
    archived: tuple[Path, ArchiveManifest],
) -> None:
    path, _ = archived
    rows = read_day(open_archive(path), "dead_letters", DAY).to_pylist()
    assert len(rows) == 1
    assert rows[0]["received_on"] == rows[0]["gaming_date"] == DAY
    assert rows[0]["raw_bytes"] == b"\xaa"


# ---------------------------------------------------------------------- tampering
def test_an_edited_data_file_is_named(fresh: tuple[Ledger, ArchiveManifest]) -> None:
    ledger, manifest = fresh
    file = manifest.table("deliveries").files[0]
    target = ledger.path.parent / "archive" / "warehouse" / file.path
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF  # the same size, one byte changed
    target.write_bytes(bytes(data))
    (problem,) = archive_problems(open_archive(ledger.path), manifest, DAY)
    assert f"archive deliveries {DAY}: data file {file.path} was edited since the seal" in problem


def test_a_data_file_removed_from_storage_is_named(fresh: tuple[Ledger, ArchiveManifest]) -> None:
    ledger, manifest = fresh
    file = manifest.table("rounds").files[0]
    (ledger.path.parent / "archive" / "warehouse" / file.path).unlink()
    assert archive_problems(open_archive(ledger.path), manifest, DAY) == [
        f"archive rounds {DAY}: data file {file.path} was removed from storage"
    ]


def test_a_data_file_added_to_the_day_is_named(fresh: tuple[Ledger, ArchiveManifest]) -> None:
    """A foreign Parquet file appended to the day's partition with pyiceberg alone."""
    ledger, manifest = fresh
    iceberg = pyiceberg_catalog(ledger.path).load_table(("baccarat", "exceptions"))
    one = iceberg.scan(row_filter=f"gaming_date = '{DAY}'", limit=1).to_arrow()
    iceberg.append(one.cast(iceberg.schema().as_arrow()))
    problems = archive_problems(open_archive(ledger.path), manifest, DAY)
    sealed = manifest.table("exceptions").rows
    assert len(problems) == 2
    assert problems[0].startswith(f"archive exceptions {DAY}: data file baccarat/exceptions/data/")
    assert problems[0].endswith("(1 rows) was added since the seal")
    assert (
        problems[1]
        == f"archive exceptions {DAY}: {sealed + 1} rows in the archive, {sealed} sealed"
    )


def test_a_data_file_removed_from_the_table_is_named(fresh: tuple[Ledger, ArchiveManifest]) -> None:
    """The day's settlements deleted with pyiceberg: a new snapshot without the file."""
    ledger, manifest = fresh
    iceberg = pyiceberg_catalog(ledger.path).load_table(("baccarat", "settlements"))
    iceberg.delete(f"gaming_date = '{DAY}'")
    file = manifest.table("settlements").files[0]
    assert archive_problems(open_archive(ledger.path), manifest, DAY) == [
        f"archive settlements {DAY}: data file {file.path} ({file.records} rows) was removed "
        "from the table since the seal",
        f"archive settlements {DAY}: 0 rows in the archive, {file.records} sealed",
    ]


def test_a_manifest_is_checked_against_its_own_day(
    archived: tuple[Path, ArchiveManifest],
) -> None:
    path, manifest = archived
    other = DAY + timedelta(days=1)
    assert archive_problems(open_archive(path), manifest, other) == [
        f"the archive manifest checked for {other} is of {DAY}"
    ]


# ---------------------------------------------------------------------- reopen, re-close
@pytest.mark.slow
def test_a_reclosed_day_is_a_new_snapshot_and_the_earlier_one_stays_readable(
    fresh: tuple[Ledger, ArchiveManifest],
) -> None:
    ledger, first = fresh
    reopen_gaming_day(ledger, DAY, "a late file", actor="accountant", actor_source="command line")
    assert unarchived_seals(ledger) == []  # a reopened day is a draft: nothing to archive
    close(ledger)
    second = the_manifest(ledger)
    assert second.sealed_at > first.sealed_at
    archive = open_archive(ledger.path)
    before, after = first.table("gaming_day_audit"), second.table("gaming_day_audit")
    assert before.snapshot_id != after.snapshot_id
    assert (before.rows, after.rows) == (1, 3)  # CLOSE; then REOPEN and CLOSE added
    then = read_day(archive, "gaming_day_audit", DAY, snapshot_id=before.snapshot_id)
    now = read_day(archive, "gaming_day_audit", DAY)
    assert then.column("action").to_pylist() == ["CLOSE"]
    assert sorted(now.column("action").to_pylist()) == ["CLOSE", "CLOSE", "REOPEN"]
    # the earlier snapshot's files are still there to read, as the earlier seal named them
    uris = day_file_uris(archive, "gaming_day_audit", DAY, snapshot_id=before.snapshot_id)
    with duckdb.connect() as con:
        assert con.sql("SELECT action FROM read_parquet(?)", params=[uris]).fetchall() == [
            ("CLOSE",)
        ]
    # the new seal's archive verifies; the earlier one no longer describes the day's files
    assert archive_problems(archive, second, DAY) == []
    assert any(
        "was removed from the table since the seal" in p
        for p in archive_problems(archive, first, DAY)
    )
    assert recorded_manifest(ledger, DAY, first.sealed_at) == first


# ---------------------------------------------------------------------- a check's cost
@pytest.mark.slow
def test_a_day_check_reads_only_that_days_files(tmp_path: Path) -> None:
    """Eight days archived into one table set; every data file of the other seven removed
    from storage: the first day's check still finds nothing wrong (it never read them), and
    the eighth day's names its files gone."""
    days = [DAY + timedelta(days=i) for i in range(8)]
    with Ledger(tmp_path / LEDGER) as ledger:
        for i, day in enumerate(days):
            events = simulate(1, 0.25, 30 + i, parse_faults("none"), day)
            ingest_paths(ledger, write_simulation(events, tmp_path / "sim", day), DEFAULT_CATALOG)
        archive = open_archive(ledger.path)
        sealed_at = datetime(2026, 12, 5, 6, 0)
        manifests = {day: archive_day(ledger, day, sealed_at, archive=archive) for day in days}
    assert archive_problems(archive, manifests[days[0]], days[0]) == []
    warehouse = tmp_path / "archive" / "warehouse"
    others = [p for p in warehouse.rglob("*.parquet") if f"gaming_date={days[0]}" not in str(p)]
    assert len(others) == 7 * len(list(warehouse.rglob(f"gaming_date={days[0]}/*.parquet")))
    for path in others:
        path.unlink()
    assert archive_problems(archive, manifests[days[0]], days[0]) == []
    last = manifests[days[-1]]
    assert archive_problems(archive, last, days[-1]) == [
        f"archive {t.table} {days[-1]}: data file {f.path} was removed from storage"
        for t in last.tables
        for f in t.files
    ]


def test_a_days_commit_costs_the_same_whatever_the_days_archived_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: a day's archive works each table's metadata (every snapshot, one per day,
    all kept for the seals) out as often on the fourth day as on the first, once per change
    it stages rather than at each of pyiceberg's reads, and leaves no metadata file behind
    that the table does not list; every day archived before still verifies, and the snapshot
    its seal names still reads its rows."""
    worked_out: list[int] = []

    def counted(base: Any, updates: Any, *args: Any, **kwargs: Any) -> Any:
        worked_out.append(len(base.snapshots))
        return update_table_metadata(base, updates, *args, **kwargs)

    monkeypatch.setattr("pipeline.ledger.archive.update_table_metadata", counted)
    days = [DAY + timedelta(days=i) for i in range(4)]
    archive = open_archive(tmp_path / LEDGER)
    manifests, per_day = {}, []
    with Ledger(tmp_path / LEDGER) as ledger:
        for i, day in enumerate(days):
            events = simulate(1, 0.25, 40 + i, parse_faults("none"), day)
            ingest_paths(ledger, write_simulation(events, tmp_path / "sim", day), DEFAULT_CATALOG)
            worked_out.clear()
            manifests[day] = archive_day(ledger, day, datetime(2026, 12, 5, 6, i), archive=archive)
            per_day.append(len(worked_out))
            # every table's snapshots grow by the day's one: the copies worked out had them all
            assert min(worked_out) == i
    # worked out before its append is staged and after; the first day also stages each new
    # table's name mapping
    assert per_day[1:] == [2 * len(ARCHIVED)] * (len(days) - 1)
    assert per_day[0] == 3 * len(ARCHIVED)
    for day, manifest in manifests.items():
        assert archive_problems(archive, manifest, day) == []
        for sealed in manifest.tables:
            then = read_day(archive, sealed.table, day, snapshot_id=sealed.snapshot_id)
            assert then.num_rows == sealed.rows
    for table in ARCHIVED:
        metadata = archive.table(table.name).metadata
        listed = {entry.metadata_file for entry in metadata.metadata_log}
        folder = tmp_path / "archive" / "warehouse" / "baccarat" / table.name / "metadata"
        on_disk = {p.as_uri() for p in folder.glob("*.metadata.json")}
        assert len(on_disk - listed) == 1, f"{table.name}: only the current one is not listed"


# ---------------------------------------------------------------------- schema evolution
def test_a_column_declared_after_the_archive_was_made_is_added_to_it(tmp_path: Path) -> None:
    rounds = TABLE["rounds"]
    grown = Table(
        rounds.name, rounds.kind, (*rounds.columns, Column("note", "VARCHAR")), day_rows=ON_THE_DAY
    )
    archive = open_archive(tmp_path / LEDGER)
    archive.writable(rounds)
    assert "note" not in archive.table("rounds").schema().column_names
    archive.writable(grown)
    assert archive.table("rounds").schema().column_names[-1] == "note"


def test_a_day_larger_than_a_row_group_is_one_data_file_of_several_row_groups(
    emulated: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The archive holds a row group of a table's day at a time, never the whole day
    (:data:`ROW_GROUP_BYTES`), and still writes the day as one data file per table, whose
    rows are the ledger's."""
    monkeypatch.setattr("pipeline.ledger.archive.ARCHIVE_BATCH_ROWS", 64)
    monkeypatch.setattr("pipeline.ledger.archive.ROW_GROUP_BYTES", 16 << 10)
    path = closed_ledger(emulated, tmp_path / "day", close)
    with Ledger(path) as ledger:
        manifest = the_manifest(ledger)
    assert all(len(table.files) <= 1 for table in manifest.tables)
    deliveries = manifest.table("deliveries")
    (file,) = deliveries.files
    parquet = pq.ParquetFile(path.parent / "archive" / "warehouse" / file.path).metadata
    assert parquet.num_row_groups > 1
    assert parquet.num_rows == file.records == deliveries.rows
    archived_rows = read_day(open_archive(path), "deliveries", DAY)
    assert canonical(archived_rows) == canonical(ledger_rows(path, "deliveries"))


def test_the_archive_reads_the_ledger_within_its_memory_and_leaves_the_usual_limit(
    emulated: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13's bound at the close: DuckDB reads each sealed table for the archive held to
    :data:`ARCHIVE_MEMORY` (its default kept every block read, 500 MB of a 96-table day's),
    squeezed here to a few megabytes, and the connection has its usual limit after the
    close."""
    monkeypatch.setattr("pipeline.ledger.archive.ARCHIVE_MEMORY", "8MB")
    limits: list[str] = []

    def limit(ledger: Ledger) -> str:
        ((setting,),) = ledger.con.execute("SELECT current_setting('memory_limit')").fetchall()
        return str(setting)

    def read_recording_the_limit(ledger: Ledger, *args: Any) -> pa.RecordBatchReader:
        limits.append(limit(ledger))
        return sealed_day_rows(ledger, *args)

    def close_between_limits(ledger: Ledger) -> None:
        limits.append(limit(ledger))
        close(ledger)
        limits.append(limit(ledger))

    monkeypatch.setattr("pipeline.ledger.archive.sealed_day_rows", read_recording_the_limit)
    path = closed_ledger(emulated, tmp_path / "day", close_between_limits)
    usual, *while_archiving, after = limits
    assert len(while_archiving) == len(ARCHIVED)
    assert set(while_archiving) == {"7.6 MiB"}  # DuckDB's name for 8 MB
    assert after == usual != "7.6 MiB"
    with Ledger(path) as ledger:
        assert check(ledger).problems == []


def test_the_encoders_hold_no_more_row_groups_than_threads() -> None:
    """Issue 26: the close compresses the archive's row groups on threads beside the one
    reading the ledger; a row group handed over while every thread is busy waits, so the
    archive's memory stays a few row groups whatever the day's size."""
    release = threading.Event()
    started: list[int] = []

    def held(n: int) -> None:
        started.append(n)
        release.wait(30)

    with RowGroupEncoders(2) as encoders:
        for n in range(2):
            encoders.submit(held, n)
        third = threading.Thread(target=encoders.submit, args=(started.append, 2))
        third.start()
        third.join(0.3)
        assert third.is_alive(), "a third row group was taken while both threads were busy"
        release.set()
        third.join(30)
    assert sorted(started) == [0, 1, 2]


def test_a_row_group_that_cannot_be_written_fails_the_close_and_seals_nothing(
    emulated: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: a row group whose write fails on an encoder's thread (a full disk) fails the
    close with that error; the day stays open, no snapshot or manifest names the file, and the
    next close archives the day whole."""
    monkeypatch.setattr("pipeline.ledger.archive.ARCHIVE_BATCH_ROWS", 64)
    monkeypatch.setattr("pipeline.ledger.archive.ROW_GROUP_BYTES", 16 << 10)
    writes = pq.ParquetWriter.write_table

    def second_write_fails(self: pq.ParquetWriter, *args: Any, **kwargs: Any) -> None:
        failing.append(1)
        if len(failing) == 2:
            raise OSError(28, "No space left on device")
        writes(self, *args, **kwargs)

    failing: list[int] = []
    with monkeypatch.context() as patched:
        patched.setattr(pq.ParquetWriter, "write_table", second_write_fails)
        with pytest.raises(OSError, match="No space left"):
            closed_ledger(emulated, tmp_path / "day", close)
    path = tmp_path / "day" / LEDGER
    with Ledger(path) as ledger:
        assert seal_log(ledger) == []
        assert ledger.con.execute("SELECT count(*) FROM archive_manifests").fetchone() == (0,)
        close(ledger)
        assert check(ledger).problems == []
        manifest = the_manifest(ledger)
    assert canonical(read_day(open_archive(path), "deliveries", DAY)) == canonical(
        ledger_rows(path, "deliveries")
    )
    assert manifest.table("deliveries").rows == ledger_rows(path, "deliveries").num_rows
