"""The ledger file holds the open gaming days; a closed day is read in place from its archive.

The DuckDB file is the working store: the open days' rows, the seal record and the ledger's
own bookkeeping. When a close has archived a day (:mod:`pipeline.ledger.archive`) and its
seal entry covers the archive, the day's rows of every sealed table and their row digests
(:data:`~pipeline.ledger.tables.LEAVING`) leave the file
(:func:`move_out`, in the close's transaction), and ``archived_days`` names the Parquet files
each table's rows of the day are read from. So the file grows with the open days, not with
the property's years, and a reader that copies it (the dashboards) copies only those.

The row digests are not archived. They only serve to name a changed row; what proves the
rows are those sealed is each table's digest in the seal entry (recomputed from the rows) and
each file's SHA-256 in the manifest the entry covers, which names a changed file. Kept, their
32 random bytes a row were half the archive's bytes. (Days an earlier version archived with
their row digests still read them from their files.)

Every connection to the ledger shadows each archived table with a temporary view of the same
name (:func:`shadow_sql`): the table's rows in the file and, read in place with DuckDB's
Parquet reader, those of the archived days. Every question is asked as before and sees every
day, closed or open; ``verify`` recomputes a closed day's row digests from the archive's files
themselves, so a file edited, or rows put back into the working store for a closed day, are
named as rows changed since the seal. A view takes no rows: writes name the working store's
table itself (:func:`stored_table`).

A reopen moves the day's rows back (:func:`move_in`): it is a draft in the working store
again, and its archive's files stay as the earlier seal's trail (Iceberg time travel).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TypeAlias

import duckdb

from pipeline.ledger.connection import (
    Source,
    connection_of,
    quoted_name,
    stored_table,
    table_of,
)
from pipeline.ledger.tables import (
    ARCHIVED,
    LEAVING,
    Table,
    day_scope,
    sealed_columns_added_after,
)
from pipeline.safe_text import sql_literal

ARCHIVED_DAYS = "archived_days"

UnreadableRows = duckdb.Error
"""A read of a sealed table that failed: a data file of an archived day it reads is damaged
or gone (so its bytes, not its rows, are at fault; ``verify`` names which)."""


ArchivedDays: TypeAlias = Mapping[date, tuple[datetime, dict[str, list[str]]]]
"""Each day read from the archive: the seal it was archived for and each table's data files,
by URI (:func:`archived_days`)."""


def archived_days(ledger: Source) -> dict[date, tuple[datetime, dict[str, list[str]]]]:
    """Each day read from the archive: the seal it was archived for and each table's data
    files, by URI; empty on a ledger from before ``archived_days`` (migration 21). Its rows
    grow with the days stored, so a check of many days reads it once and passes it on."""
    try:
        rows = (
            connection_of(ledger)
            .execute(f"SELECT gaming_date, sealed_at, files_json FROM {ARCHIVED_DAYS}")
            .fetchall()
        )
    except duckdb.CatalogException:
        return {}
    return {day: (sealed_at, json.loads(str(text))) for day, sealed_at, text in rows}


def keeps_row_digests(archived: ArchivedDays, gaming_date: date) -> bool:
    """Whether the ledger whose :func:`archived_days` are ``archived`` keeps a closed day's
    row digests: in the working store, or in the archive of a day an earlier version archived
    with them. A day archived since keeps none (why: the module's docstring)."""
    read_from = archived.get(gaming_date)
    return read_from is None or any(
        t.leaves_with_the_day and t.name in read_from[1] for t in LEAVING
    )


def stored_rows(ledger: Source, table: str, gaming_date: date) -> int:
    """How many rows of ``gaming_date`` the ledger file itself holds in ``table`` (one with a
    ``gaming_date`` column)."""
    con = connection_of(ledger)
    row = con.execute(
        f"SELECT count(*) FROM {stored_table(con, table)} WHERE gaming_date = ?", [gaming_date]
    ).fetchone()
    return int(row[0]) if row else 0


FileColumns = tuple[str, ...] | None
"""The columns a day's files of a table were written with, as ``archived_days`` recorded them
(``None``: a day moved out before it recorded them, migration 22)."""


def archived_reads(con: duckdb.DuckDBPyConnection) -> dict[str, dict[FileColumns, list[str]]]:
    """Each archived table's data files of every archived day, grouped by the columns they
    were written with; empty on a ledger from before ``archived_days`` (migration 21)."""
    try:
        rows = con.execute(
            f"SELECT files_json, columns_json FROM {ARCHIVED_DAYS} ORDER BY gaming_date"
        ).fetchall()
    except duckdb.CatalogException:
        return {}
    except duckdb.BinderException:  # a ledger no writer migrated since 21, read-only
        rows = [
            (text, None)
            for (text,) in con.execute(
                f"SELECT files_json FROM {ARCHIVED_DAYS} ORDER BY gaming_date"
            ).fetchall()
        ]
    reads: dict[str, dict[FileColumns, list[str]]] = {}
    for files_text, columns_text in rows:
        of_day = json.loads(str(columns_text)) if columns_text else {}
        for table, uris in json.loads(str(files_text)).items():
            written = of_day.get(table)
            key = tuple(written) if written else None
            reads.setdefault(table, {}).setdefault(key, []).extend(uris)
    return reads


def file_columns(con: duckdb.DuckDBPyConnection, uri: str) -> list[str]:
    """The columns of an archive data file, from its footer."""
    return [
        str(name)
        for name, *_ in con.execute(
            f"DESCRIBE SELECT * FROM read_parquet({sql_literal(uri)}, hive_partitioning = false)"
        ).fetchall()
    ]


PARTITION_SEGMENT = "/gaming_date="
"""The path segment of an archive data file's partition (Iceberg's identity partition, written
Hive-style: ``.../data/gaming_date=2026-09-01/...``)."""


FILES_NAME_COLUMNS = 22
"""The migration since which ``archived_days`` records the columns of each day's files."""


def _archived_rows(
    columns: Sequence[tuple[str, str]],
    uris: Sequence[str],
    written: FileColumns = None,
    lacking: Collection[str] = (),
) -> str:
    """A table's rows in ``uris`` (Parquet files of its archive) as ``columns`` (name, type:
    the working store's table's, so the view reads as the table does); a column added after
    a file was written reads as null.

    Files whose columns are known alike (``written``) are read without opening each one to
    learn them; otherwise DuckDB reads every file's columns (``union_by_name``), which a
    question then pays for each file it names, and the columns ``lacking`` from all of them
    read as null (:func:`_lacking`). Where every file's path names its gaming date
    (:data:`PARTITION_SEGMENT`), DuckDB reads it as a Hive partition, so a question about
    some days opens only their files. Either way, a question's cost grew with the days
    stored before. The path's date is the file's own (the partition it was written to; a file
    moved under another date is one its seal does not name)."""
    casts = ", ".join(
        f"CAST({name} AS {kind}) AS {name}"
        if (name in written if written is not None else name not in lacking)
        else f"CAST(NULL AS {kind}) AS {name}"
        for name, kind in columns
    )
    listed = ", ".join(sql_literal(u) for u in uris)
    by_day = "true" if all(PARTITION_SEGMENT in u for u in uris) else "false"
    by_name = "true" if written is None else "false"
    return (
        f"SELECT {casts} FROM read_parquet([{listed}], union_by_name = {by_name}, "
        f"hive_partitioning = {by_day})"
    )


def stored_columns(
    con: duckdb.DuckDBPyConnection, table: str | None = None
) -> dict[str, list[tuple[str, str]]]:
    """Each table's columns in the ledger file itself (only ``table``'s, when given), in
    order: (name, type). Read from the catalog, not through a view, so no archived file is
    opened."""
    columns: dict[str, list[tuple[str, str]]] = {}
    for table_name, name, kind in con.execute(
        "SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name "
        "= current_database() AND schema_name = 'main' AND (? IS NULL OR table_name = ?) "
        "ORDER BY table_name, column_index",
        [table, table],
    ).fetchall():
        columns.setdefault(str(table_name), []).append((str(name), str(kind)))
    return columns


def stored_columns_of(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """``table``'s columns in the ledger file itself, in order (none when it has no such
    table). One table's are asked for about 50 times in a close and as often in a verify:
    reading them alone takes half the time of reading every table's."""
    return stored_columns(con, table).get(table, [])


def _a_set_of_rows(table: Table) -> bool:
    """Whether a row of ``table`` may be another day's too (an input file holding events of
    two days): archived under a closed day, it may still be in the file for an open one, so
    the table's rows are read as a set."""
    return table.shared_with is not None


def _lacking(con: duckdb.DuckDBPyConnection, table: str, uris: Sequence[str]) -> list[str]:
    """The columns added to ``table`` since ``archived_days`` recorded the columns of days'
    files that the files of days moved out before then (``uris``) lack: as those days were
    archived alike, their first file tells (opened only when the table has such columns)."""
    added = sealed_columns_added_after(table, FILES_NAME_COLUMNS)
    if not added:
        return []
    first = file_columns(con, uris[0])
    return [name for name in added if name not in first]


def shadow_sql(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The statements that shadow each archived table with the view of its working rows and its
    archived days' files (a table without archived files has none)."""
    reads = archived_reads(con)
    columns = stored_columns(con) if reads else {}
    statements = []
    for table in LEAVING:
        groups = reads.get(table.name)
        if not groups:
            statements.append(f"DROP VIEW IF EXISTS temp.main.{table.name}")
            continue
        union = " UNION " if _a_set_of_rows(table) else " UNION ALL "
        stored = columns[table.name]
        archived = union.join(
            _archived_rows(
                stored, uris, written, _lacking(con, table.name, uris) if written is None else ()
            )
            for written, uris in groups.items()
        )
        statements.append(
            f"CREATE OR REPLACE TEMP VIEW {table.name} AS "
            f"SELECT {', '.join(n for n, _ in stored)} FROM {stored_table(con, table.name)}"
            f"{union}{archived}"
        )
    return statements


def shadowed_state(con: duckdb.DuckDBPyConnection) -> int:
    """A number that changes when the archived days or their files do: views made while it
    was the same still read what :func:`shadow` would make now."""
    try:
        # fetched to the end: a result left open keeps the connection from registering
        # the next batch's rows
        rows = con.execute(f"SELECT count(*), sum(hash(d)) FROM {ARCHIVED_DAYS} d").fetchall()
    except (duckdb.CatalogException, duckdb.InvalidInputException):
        return 0  # before migration 21 (DuckDB's Python replacement scan may say so)
    return hash(tuple(rows[0]))


def shadow(con: duckdb.DuckDBPyConnection) -> None:
    """Shadow the archived tables on ``con`` (each connection and cursor has its own views)."""
    for statement in shadow_sql(con):
        con.execute(statement)


def _leaving(table: Table) -> str:
    """The condition selecting the rows of day ``$day`` that leave the working store with it:
    its day's rows, but for those another open day also selects (an input file of two days)."""
    assert table.day_rows is not None, "a table whose rows leave with the day selects them"
    if table.shared_with is None:
        return table.day_rows
    return f"({table.day_rows}) AND NOT ({table.shared_with})"


def rows_put_back(ledger: Source, gaming_date: date, sealed_at: datetime) -> dict[str, list[str]]:
    """Per archived table, the rows of an archived day the ledger file holds again (those
    :func:`move_out` took out, selected as it selected them), each as a struct with its column
    names for a person to read: none belong there, as the day is read from its files."""
    con = connection_of(ledger)
    found = {}
    for table in ARCHIVED:
        sql = (
            f"SELECT r::VARCHAR FROM {stored_table(con, table.name)} r "
            f"WHERE {_leaving(table)} ORDER BY 1"
        )
        rows = con.execute(sql, day_scope(sql, gaming_date, sealed_at)).fetchall()
        if rows:
            found[table.name] = [str(row) for (row,) in rows]
    return found


def move_out(
    ledger: Source,
    gaming_date: date,
    sealed_at: datetime,
    files: Mapping[str, Sequence[str]],
) -> None:
    """Take a closed day's rows out of the working store: ``files`` (each sealed table's data
    files of the day, by URI) hold them now, as the seal made at ``sealed_at`` selected them;
    the day's row digests go (the seal entry covers the rows and the files without them).
    Inside the close's transaction, after the archive and the seal entry; the views are made
    again.

    Tables go in the reverse of the close's order, as a day selector reads tables sealed
    before its own (the day's exceptions, its deliveries). A row another open day also
    selects (an input file of two days) stays for that day."""
    con = connection_of(ledger)
    for table in reversed(LEAVING):
        if table.archived and table.name not in files:  # no rows that day, or not archived
            continue  # when the day was (a table sealed since)
        sql = f"DELETE FROM {stored_table(con, table.name)} WHERE {_leaving(table)}"
        con.execute(sql, day_scope(sql, gaming_date, sealed_at))
    moved_at = datetime.now(UTC).replace(tzinfo=None)
    # a day's files of a table are written in one commit, so with one set of columns
    written = {table: file_columns(con, uris[0]) for table, uris in files.items() if uris}
    con.execute(
        f"INSERT OR REPLACE INTO {ARCHIVED_DAYS} "
        "(gaming_date, sealed_at, files_json, moved_at, columns_json) VALUES (?, ?, ?, ?, ?)",
        [
            gaming_date,
            sealed_at,
            json.dumps(dict(files), sort_keys=True),
            moved_at,
            json.dumps(written, sort_keys=True),
        ],
    )
    shadow(con)


def move_in(ledger: Source, gaming_date: date) -> None:
    """Bring an archived day's rows back into the working store (a reopen); nothing when the
    day is not archived. Its row digests stay gone (unless an earlier version archived them):
    a reopened day's seal no longer holds, and its next close digests its rows again."""
    con = connection_of(ledger)
    archived = archived_days(con).get(gaming_date)
    if archived is None:
        return
    _, files = archived
    columns = stored_columns(con)
    for table in LEAVING:
        uris = files.get(table.name)
        if not uris:
            continue
        target = stored_table(con, table.name)
        # a day's files of a table are written in one commit, so with one set of columns
        written = tuple(file_columns(con, uris[0]))
        rows = _archived_rows(columns[table.name], uris, written)
        if _a_set_of_rows(table):  # a row still stored for an open day is not doubled
            rows += f" EXCEPT SELECT * FROM {target}"
        con.execute(f"INSERT INTO {target} {rows}")
    con.execute(f"DELETE FROM {ARCHIVED_DAYS} WHERE gaming_date = ?", [gaming_date])
    shadow(con)


_CATALOG = (
    "SELECT 'table', table_name, sql FROM duckdb_tables() WHERE database_name = $db",
    "SELECT 'view', view_name, sql FROM duckdb_views() WHERE database_name = $db AND NOT internal",
    "SELECT 'sequence', sequence_name, "
    "format('{} {} {}', start_value, increment_by, last_value) "
    "FROM duckdb_sequences() WHERE database_name = $db",
    "SELECT 'index', index_name, sql FROM duckdb_indexes() WHERE database_name = $db",
    "SELECT 'constraint', table_name, format('{} {}', constraint_type, constraint_text) "
    "FROM duckdb_constraints() WHERE database_name = $db",
    "SELECT 'macro', function_name, macro_definition FROM duckdb_functions() "
    "WHERE database_name = $db AND NOT internal",
)
"""What a database holds besides rows, each as (kind, name, definition)."""


@dataclass(frozen=True, slots=True)
class Compaction:
    """What :func:`compact` did to a ledger file: its size before and after (bytes), or why
    it left the file as it was (``skipped``); ``failed`` when that was not the ledger's state
    (held, another's, nothing free) but the copy going wrong, which its operator should see."""

    before: int
    after: int
    skipped: str | None = None
    failed: bool = False

    @property
    def notice(self) -> str | None:
        """What the operator of a close is told when the copy went wrong (``failed``): the
        close command prints it, the close flow logs it; ``None`` otherwise."""
        if not self.failed:
            return None
        return (
            f"the ledger file was not compacted: {self.skipped}. Readers copy its free space "
            "until a later close compacts it; check the disk and the ledger's directory"
        )


_ALONE: dict[str, str | bool | int | float | list[str]] = {"checkpoint_threshold": "1GB"}
"""The configuration :func:`compact` opens the ledger with: any setting other connections do
not have, for DuckDB refuses a second connection of one process to a file open with another
configuration (and with this one it checkpoints only when told to)."""


def _catalog(con: duckdb.DuckDBPyConnection, database: str) -> list[tuple[str, ...]]:
    return sorted(
        tuple(map(str, row))
        for sql in _CATALOG
        for row in con.execute(sql, {"db": database}).fetchall()
    )


def _contents(con: duckdb.DuckDBPyConnection, database: str) -> list[tuple[str, ...]]:
    """Every table's name, row count and a digest of its rows (a sum of their hashes, so
    that rows in any order, each as often as it is there, give the same), and the catalog."""
    counted = []
    for (table,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY 1", [database]
    ).fetchall():
        name = table_of(quoted_name(database), quoted_name(str(table)))
        ((rows, digest),) = con.execute(
            f"SELECT count(*), coalesce(sum(hash(t)::HUGEINT), 0) FROM {name} AS t"
        ).fetchall()
        counted.append(("rows", str(table), f"{rows} {digest}"))
    return counted + _catalog(con, database)


def compact(path: Path) -> Compaction:
    """Rewrite the ledger file at ``path`` without the free space the closes left in it.

    A close moves its day's rows out to the archive (:func:`move_out`); DuckDB reuses the
    blocks they held but does not give them back, so the file stays as large as the largest
    open day made it, and every reader's snapshot (:mod:`pipeline.ledger.snapshots`) copies
    the free space too. So when any block is free, the database is copied (``COPY FROM
    DATABASE``: tables, constraints, sequences with their values) into a new file beside it,
    which replaces the old one once its tables, rows and catalog are found identical. A
    compaction that fails leaves the ledger as it was and says why (``skipped``): the close
    that asked for it is done either way.

    Only a ledger nobody holds is rewritten: the file is opened for writing (DuckDB's lock:
    no other process has it open) with a setting no other connection of this process can
    share (so none has it open either), and the new file takes its name while that lock is
    held; a process opening the ledger meanwhile is refused, as by any writer, and opens the
    new file when it tries again. A ledger held elsewhere (a stream running a close beside
    its batches) is left as it is (``skipped`` says why): its free space is reused by the
    next day's rows, and the next close that holds the file alone compacts it. So is a file
    another account owns: the new file would be this account's. A ``path`` that is a link
    compacts the file it leads to (the link keeps leading to it)."""
    path = path.resolve()
    owned = path.stat()
    before = owned.st_size
    if owned.st_uid != os.geteuid():  # the new file would change hands
        return Compaction(before, before, f"the file belongs to account {owned.st_uid}")
    try:
        con = duckdb.connect(str(path), config=_ALONE)
    except duckdb.Error as err:
        return Compaction(before, before, f"the ledger is held by another connection ({err})")
    target = path.with_name(f".{path.name}.compacting")
    try:
        return _compacted(con, path, target, before)
    except (duckdb.Error, OSError) as err:
        return Compaction(
            before, before, f"the copy failed ({type(err).__name__}: {err})", failed=True
        )
    finally:
        con.close()
        with contextlib.suppress(OSError):  # a directory of that name: the failure says so
            target.unlink(missing_ok=True)


def _compacted(con: duckdb.DuckDBPyConnection, path: Path, target: Path, before: int) -> Compaction:
    """:func:`compact`'s copy of ``path`` (``before`` bytes), made through ``con``, the
    ledger's connection of its own."""
    con.execute("PRAGMA disable_checkpoint_on_shutdown")  # the old file is left untouched
    database = str(con.execute("SELECT current_database()").fetchall()[0][0])
    con.execute("CHECKPOINT")
    ((total, free),) = con.execute(
        "SELECT total_blocks, free_blocks FROM pragma_database_size() WHERE database_name = ?",
        [database],
    ).fetchall()
    if not free:
        return Compaction(before, before, f"none of its {total} blocks is free")
    if wal_of(path).exists():
        return Compaction(before, before, "its write-ahead log was not checkpointed")
    for leftover in (target, wal_of(target)):
        leftover.unlink(missing_ok=True)  # from a compaction stopped in the middle
    con.execute(f"ATTACH {sql_literal(str(target))} AS {_COPY}")
    try:
        con.execute(f"COPY FROM DATABASE {quoted_name(database)} TO {_COPY}")
        con.execute(f"CHECKPOINT {_COPY}")
        same = _contents(con, database) == _contents(con, _COPY)
    finally:
        con.execute(f"DETACH {_COPY}")
    if not same or wal_of(target).exists():
        return Compaction(
            before, before, "the copy did not hold the same tables and rows", failed=True
        )
    target.chmod(stat.S_IMODE(path.stat().st_mode))
    target.replace(path)
    return Compaction(before, path.stat().st_size)


_COPY = "compacted_ledger"


def wal_of(path: Path) -> Path:
    """The write-ahead log DuckDB keeps beside the database file ``path``."""
    return path.with_name(path.name + ".wal")
