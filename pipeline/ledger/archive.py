"""The archive of sealed gaming days: each sealed table's rows of a closed day as immutable
Parquet files (zstd) in an Apache Iceberg table set, partitioned by gaming date.

Iceberg is an open table format: Spark, Trino, Snowflake, DuckDB or pyiceberg read the archive
without this package (a casino group's investigators query years across properties that way),
and a day's files are found by Iceberg's scan planning, which prunes by partition, so reading
or checking a day does not grow with the days stored. Where the catalog and the warehouse
are is configuration (:mod:`pipeline.config.archive`): by default a SQL catalog on SQLite and
a warehouse of local files beside the ledger, so ``make run`` needs no server.

The table set: one Iceberg table per archived ledger table
(:data:`~pipeline.ledger.tables.ARCHIVED`: the sealed ones, in the order a close digests
them; the row digests are not archived, :mod:`pipeline.ledger.working_store` says why), named
as it, with its declared columns
(:mod:`pipeline.ledger.tables`) in Iceberg's types (:data:`ICEBERG_TYPES`; a NOT NULL column
is a required field), partitioned by ``identity(gaming_date)``. A table whose day selector
is not the plain ``gaming_date = $day`` (``input_files``: the files the day's events came
from; ``acknowledgements``: the actions on the day's exceptions up to the seal;
``dead_letters``: those the day claimed by ``received_on``) has no gaming date of its own,
or not one that selects its day: its archive table gets a last column ``gaming_date``, the
day whose seal selected the row. A row may so be archived under two days (a file holding
events of both), as both seals digest it.

A day is archived as its close seals it (:func:`archive_day`): the rows the day selectors pick
(``$day``, ``$sealed_at``) replace that day's partition of each table in one commit per
table, and the :class:`ArchiveManifest` lists, per table, the snapshot written, the rows and
each data file of the day with its size, row count and SHA-256. The manifest's canonical JSON
and its SHA-256 are what a seal entry carries; the ledger keeps the manifest
(``archive_manifests``) by the seal it was made for. :func:`archive_problems` checks a day's
files against its manifest. A reopened day closed again is archived again: a new snapshot,
while the earlier one stays readable (``read_day(..., snapshot_id=...)``), the reopen's
trail in the archive itself.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import threading
import uuid
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.catalog import Catalog, load_catalog
from pyiceberg.exceptions import NoSuchTableError
from pyiceberg.expressions import EqualTo, Reference
from pyiceberg.expressions.literals import literal
from pyiceberg.io import OutputStream
from pyiceberg.partitioning import PartitionField, PartitionFieldValue, PartitionKey, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table import FileScanTask, TableProperties, Transaction
from pyiceberg.table import Table as IcebergTable
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.table.update import TableUpdate, update_table_metadata
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import (
    BinaryType,
    BooleanType,
    DateType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
)

from pipeline.config.archive import CATALOG_NAME, ArchiveSettings, archive_settings
from pipeline.ledger.store import Ledger, LedgerError
from pipeline.ledger.tables import ARCHIVED, ON_THE_DAY, Column, Table, day_scope
from pipeline.ledger.working_store import move_out

DAY_COLUMN = "gaming_date"
"""The partition column of every archive table."""


TABLE_PROPERTIES = {
    "write.parquet.compression-codec": "zstd",
    # level 9 against pyarrow's default: 6 % fewer bytes a day (the events' JSON and ids), for
    # about 0.04 s more CPU per 60,000 events at the close
    "write.parquet.compression-level": "9",
    # each commit writes the table's metadata again, every snapshot listed: kept, those files
    # grow with the square of the days archived (a tenth of a 6-table archive by day 28).
    # Only the newest few are kept; the snapshots they list, each day's seal among them, stay.
    "write.metadata.delete-after-commit.enabled": "true",
    "write.metadata.previous-versions-max": "10",
}
"""How the archive's tables write their files; a table made before a property was set is
given it when next written to."""

MANIFEST_VERSION = 1
"""The manifest's format, in its JSON: a later format is told apart from this one."""

_READ_CHUNK = 1 << 20

ARCHIVE_BATCH_ROWS = 16_384
"""Rows of a sealed table read from the ledger at a time. DuckDB reads ahead of the
batch asked for: at 48 tables, 65,536-row batches raise the close's peak by 75 MB more."""

ARCHIVE_MEMORY = "128MB"
"""DuckDB's memory while the close reads a day's sealed rows for the archive
(:meth:`~pipeline.ledger.store.Ledger.memory_held_to`): the reads are scans, which need a few
blocks at a time (128 DuckDB threads read within it), and DuckDB's default kept every block
read. A 96-table close peaked at 1,227 MB without it, of which 501 MB of table blocks after
the archive, and at 828 MB with it; its archive took 17.3 s and 18.4 s."""

ENCODERS = min(os.cpu_count() or 1, 4)
"""Threads compressing the archive's row groups at the close, beside the thread reading the
ledger (:class:`RowGroupEncoders`): the archive holds this many row groups and the one being read
at most (320 MB at four), whatever the day's size."""

ROW_GROUP_BYTES = 64 << 20
"""Arrow bytes of a sealed table's rows written to the day's Parquet file as one row group:
what the archive holds in memory, whatever the day's size (64 MB is 218,000 deliveries).
Smaller groups compress worse: a 24-table day's deliveries in row groups of 65,536 rows
are 10 % more bytes than in one group, in groups of this size 2.6 % (128 MB: 0.9 %, for
70 MB more at the close's peak)."""


class ArchiveError(LedgerError):
    """The archive cannot be used as asked; the message says why and what to do."""


# ---------------------------------------------------------------------- the table set
ICEBERG_TYPES: dict[str, IcebergType] = {
    "VARCHAR": StringType(),
    "BIGINT": LongType(),
    "INTEGER": IntegerType(),
    "BOOLEAN": BooleanType(),
    "DATE": DateType(),
    "TIMESTAMP": TimestampType(),  # the ledger's are UTC without a zone, as Iceberg's
    "BLOB": BinaryType(),
}
"""The Iceberg type of a ledger column of each DuckDB type; ``TYPE[]`` is a list of the
type's (elements optional, as DuckDB's). A declared type not here is refused
(:func:`archive_schema`), never guessed at."""


def day_added(table: Table) -> bool:
    """Whether ``table``'s archive adds the ``gaming_date`` its rows are archived under (its
    day selector is not the plain ``gaming_date = $day``); :class:`ArchiveError` when the
    table has a ``gaming_date`` column that does not select its day, which the partition
    column would contradict."""
    if table.day_rows == ON_THE_DAY:
        return False
    if DAY_COLUMN in table.column_names:
        raise ArchiveError(
            f"{table.name} has a {DAY_COLUMN} column but selects a day's rows by "
            f"{table.day_rows!r}: its archive cannot be partitioned by the day it is sealed "
            f"under; declare its day selector as {ON_THE_DAY!r} or rename the column"
        )
    return True


def archive_columns(table: Table) -> tuple[Column, ...]:
    """The columns of ``table``'s archive: its declared ones, and the day it is archived
    under when it has none of its own (:func:`day_added`)."""
    added = (Column(DAY_COLUMN, "DATE", not_null=True),) if day_added(table) else ()
    return (*table.columns, *added)


def archive_schema(table: Table) -> Schema:
    """The Iceberg schema of ``table``'s archive, field ids in column order."""
    columns = archive_columns(table)
    ids = iter(range(len(columns) + 1, 10_000))

    def iceberg_type(column: Column) -> IcebergType:
        element = column.type.removesuffix("[]")
        kind = ICEBERG_TYPES.get(element)
        if kind is None:
            raise ArchiveError(
                f"{table.name}.{column.name} is declared {column.type}, a type the archive "
                f"has no Iceberg type for (it maps {', '.join(ICEBERG_TYPES)} and lists of "
                "them): add it to pipeline.ledger.archive.ICEBERG_TYPES"
            )
        if element == column.type:
            return kind
        return ListType(next(ids), kind, element_required=False)

    def field(number: int, column: Column) -> NestedField:
        return NestedField(number, column.name, iceberg_type(column), required=column.not_null)

    return Schema(*(field(i, c) for i, c in enumerate(columns, start=1)))


def partition_spec(schema: Schema) -> PartitionSpec:
    """``identity(gaming_date)``."""
    source = schema.find_field(DAY_COLUMN).field_id
    return PartitionSpec(PartitionField(source, 1000, IdentityTransform(), DAY_COLUMN))


def on_the_day(gaming_date: date) -> EqualTo:
    """The rows of ``gaming_date``: what a day's partition holds, and how Iceberg's scan
    planning prunes the other days' manifests and files."""
    return EqualTo(term=Reference(DAY_COLUMN), value=literal(gaming_date))


class MetadataOnceTransaction(Transaction):
    """pyiceberg's transaction, its table metadata worked out once per change staged.

    pyiceberg 0.12 works the metadata out again, and deep-copies it whole, each time it is
    read (``Transaction.table_metadata``), about 28 times for a day's delete and append;
    the copy holds every snapshot the table has, one per archived day, all kept (the seals
    and a reopen's trail name them): 1.2 ms a copy at 29 snapshots, some 500 copies a
    close, so the close grew with the days stored (``docs/property-history.md``). The
    metadata is a function of the table's (replaced, not changed, by a commit) and of the
    staged updates (a tuple, replaced by each change), so it is kept while both are the same
    objects (as apache/iceberg-python#3302 and #3784 propose upstream)."""

    _worked_out: tuple[TableMetadata, tuple[TableUpdate, ...], TableMetadata] | None = None

    @property
    def table_metadata(self) -> TableMetadata:
        base, updates = self._table.metadata, self._updates
        kept = self._worked_out
        if kept is None or kept[0] is not base or kept[1] is not updates:
            kept = (base, updates, update_table_metadata(base, updates))
            self._worked_out = kept
        return kept[2]


# ---------------------------------------------------------------------- where it is
@dataclass(frozen=True)
class Archive:
    """An open archive: its catalog, the namespace of this ledger's tables and the warehouse
    its file paths are given relative to."""

    catalog: Catalog
    namespace: str
    warehouse: str | None
    """The warehouse's URI (``None``: the catalog's server chooses it); a data file under it
    is named in a manifest relative to it, so a warehouse moved elsewhere still verifies."""

    def identifier(self, table: str) -> tuple[str, ...]:
        return (*self.namespace.split("."), table)

    def table(self, name: str) -> IcebergTable:
        """The archive table of the sealed ledger table ``name``."""
        try:
            return self.catalog.load_table(self.identifier(name))
        except NoSuchTableError as err:
            raise ArchiveError(
                f"the archive has no table {'.'.join(self.identifier(name))}: no day was "
                "archived there yet (baccarat-audit archive), or the archive's configuration "
                "points elsewhere"
            ) from err

    def writable(self, table: Table) -> IcebergTable:
        """The archive table of ``table``, created on first use; a column declared since it
        was created is added to it (Iceberg's schema evolution: the files written before read
        it as null)."""
        schema = archive_schema(table)
        try:
            # loaded before any create: pyiceberg's create_table_if_not_exists writes a new
            # table's metadata file before it finds the table exists, one more file no
            # snapshot lists at every close
            iceberg = self.catalog.load_table(self.identifier(table.name))
        except NoSuchTableError:
            self.catalog.create_namespace_if_not_exists(self.namespace)
            iceberg = self.catalog.create_table_if_not_exists(
                self.identifier(table.name),
                schema=schema,
                partition_spec=partition_spec(schema),
                properties=TABLE_PROPERTIES,
            )
        if set(schema.column_names) - set(iceberg.schema().column_names):
            with iceberg.update_schema() as update:
                update.union_by_name(schema)
        if any(iceberg.properties.get(k) != v for k, v in TABLE_PROPERTIES.items()):
            with MetadataOnceTransaction(iceberg) as change:
                change.set_properties(TABLE_PROPERTIES)
            iceberg = self.catalog.load_table(self.identifier(table.name))
        return iceberg

    def relative(self, uri: str) -> str:
        """A data file's path as a manifest names it: relative to the warehouse, else from
        the namespace's folder on, else the URI. Iceberg's metadata names files by absolute
        URI, so a copy of a ledger's folder (a snapshot, a restore drill) still lists the
        original's files: named from the namespace on, they are the same files."""
        if self.warehouse:
            prefix = self.warehouse.rstrip("/") + "/"
            if uri.startswith(prefix):
                return uri[len(prefix) :]
        folder = "/" + "/".join(self.namespace.split(".")) + "/"
        if folder in uri:
            return uri[uri.rindex(folder) + 1 :]
        return uri

    def sha256(self, table: IcebergTable, uri: str) -> str:
        """The SHA-256 of a data file's bytes, read through the table's file IO (a local
        file or any object store pyiceberg reads)."""
        digest = hashlib.sha256()
        with table.io.new_input(uri).open() as stream:
            while chunk := stream.read(_READ_CHUNK):
                digest.update(chunk)
        return digest.hexdigest()


def open_archive(ledger_path: Path, settings: ArchiveSettings | None = None) -> Archive:
    """The archive of the ledger at ``ledger_path``, as the installation's ``archive.toml``
    says (:func:`pipeline.config.archive.archive_settings`), else embedded beside it."""
    settings = settings if settings is not None else archive_settings()
    folder = settings.embedded_folder(ledger_path)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    properties = settings.catalog_properties(ledger_path)
    where = settings.source or f"the embedded catalog in {folder}"
    try:
        catalog = load_catalog(CATALOG_NAME, **properties)
    except Exception as err:  # pyiceberg raises what its catalog's client does
        raise ArchiveError(
            f"the archive's catalog ({where}) cannot be opened: {type(err).__name__}: {err}; "
            "check its properties and that its service is reachable"
        ) from err
    return Archive(catalog, settings.namespace, properties.get("warehouse"))


# ---------------------------------------------------------------------- the manifest
@dataclass(frozen=True)
class ArchivedFile:
    path: str
    """Relative to the warehouse where it is under it (:meth:`Archive.relative`)."""
    bytes: int
    records: int
    sha256: str
    uri: str = field(default="", compare=False)
    """Where it was written, as the catalog names it (not in the manifest, which stays valid
    when the warehouse moves): what the working store reads a closed day from."""


@dataclass(frozen=True)
class ArchivedTable:
    table: str
    snapshot_id: int
    """The table's snapshot the archive wrote (a later day's archive moves the table on; the
    day's files stay the same)."""
    rows: int
    files: tuple[ArchivedFile, ...]
    """The day's data files, by path."""


@dataclass(frozen=True)
class ArchiveManifest:
    """Which files hold a sealed day in the archive."""

    gaming_date: date
    sealed_at: datetime
    """The seal the day was archived for (UTC, naive as the ledger keeps it)."""
    tables: tuple[ArchivedTable, ...]

    def as_json(self) -> str:
        """The canonical JSON: keys sorted, no spaces, ASCII; tables in the order a close
        digests them, files by path. What a seal entry's digest covers."""
        body = {
            "version": MANIFEST_VERSION,
            "gaming_date": self.gaming_date.isoformat(),
            "sealed_at": self.sealed_at.isoformat(),
            "tables": [
                {
                    "table": t.table,
                    "snapshot_id": t.snapshot_id,
                    "rows": t.rows,
                    "files": [
                        {"path": f.path, "bytes": f.bytes, "records": f.records, "sha256": f.sha256}
                        for f in t.files
                    ],
                }
                for t in self.tables
            ],
        }
        return json.dumps(body, sort_keys=True, separators=(",", ":"))

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.as_json().encode()).hexdigest()

    @property
    def total_bytes(self) -> int:
        """The bytes of the day's data files, all tables."""
        return sum(f.bytes for t in self.tables for f in t.files)

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)

    def uris(self) -> dict[str, list[str]]:
        """Each table's data files of the day as written (:attr:`ArchivedFile.uri`)."""
        return {t.table: [f.uri for f in t.files] for t in self.tables if t.files}

    def table(self, name: str) -> ArchivedTable:
        for archived in self.tables:
            if archived.table == name:
                return archived
        raise KeyError(f"the {self.gaming_date} archive has no table {name}")

    @classmethod
    def from_json(cls, text: str) -> ArchiveManifest:
        """A manifest from its JSON; :class:`ArchiveError` for one of another format."""
        try:
            body = json.loads(text)
            if body["version"] != MANIFEST_VERSION:
                raise ArchiveError(
                    f"an archive manifest of format {body['version']!r}; this version reads "
                    f"format {MANIFEST_VERSION}: upgrade baccarat-audit"
                )
            return cls(
                date.fromisoformat(body["gaming_date"]),
                datetime.fromisoformat(body["sealed_at"]),
                tuple(
                    ArchivedTable(
                        t["table"],
                        int(t["snapshot_id"]),
                        int(t["rows"]),
                        tuple(
                            ArchivedFile(f["path"], int(f["bytes"]), int(f["records"]), f["sha256"])
                            for f in t["files"]
                        ),
                    )
                    for t in body["tables"]
                ),
            )
        except (ValueError, KeyError, TypeError) as err:
            raise ArchiveError(f"not an archive manifest ({err!r})") from err


# ---------------------------------------------------------------------- the ledger's side
def sealed_day_rows(
    ledger: Ledger, table: Table, gaming_date: date, sealed_at: datetime
) -> pa.RecordBatchReader:
    """A sealed table's rows of a day as a seal at ``sealed_at`` selects them, in its archive's
    columns (:func:`archive_columns`), streamed :data:`ARCHIVE_BATCH_ROWS` at a time. The
    ledger's connection runs nothing else until the reader is drained."""
    added = f", $day::DATE AS {DAY_COLUMN}" if day_added(table) else ""
    sql = f"SELECT {', '.join(table.column_names)}{added} FROM {table.name} WHERE {table.day_rows}"
    relation = ledger.con.sql(sql, params=day_scope(sql, gaming_date, sealed_at))
    return relation.to_arrow_reader(ARCHIVE_BATCH_ROWS)


def record_manifest(ledger: Ledger, manifest: ArchiveManifest) -> None:
    """Keep a day's manifest by the seal it was archived for."""
    archived_at = datetime.now(UTC).replace(tzinfo=None)  # UTC, naive, as the seal's time
    ledger.con.execute(
        "INSERT INTO archive_manifests VALUES (?, ?, ?, ?, ?)",
        [
            manifest.gaming_date,
            manifest.sealed_at,
            manifest.as_json(),
            manifest.sha256,
            archived_at,
        ],
    )


def recorded_manifest(
    ledger: Ledger, gaming_date: date, sealed_at: datetime
) -> ArchiveManifest | None:
    """A day's manifest as archived for the seal made at ``sealed_at``; ``None`` when the day
    was not archived for it (or the ledger is from before archives)."""
    try:
        row = ledger.con.execute(
            "SELECT manifest_json FROM archive_manifests WHERE gaming_date = ? AND sealed_at = ?",
            [gaming_date, sealed_at],
        ).fetchone()
    except duckdb.CatalogException:  # a ledger opened read-only, from before migration 19
        return None
    return ArchiveManifest.from_json(str(row[0])) if row else None


def unarchived_seals(ledger: Ledger) -> list[tuple[date, datetime]]:
    """The sealed days whose seal has no archive yet: each day whose last seal entry is a
    CLOSE, with that close's time, when no manifest was recorded for it; by date."""
    return [
        (day, sealed_at)
        for day, sealed_at in ledger.con.execute(
            """
            SELECT gaming_date, sealed_at FROM seal_log s
            WHERE seq = (SELECT max(seq) FROM seal_log l WHERE l.gaming_date = s.gaming_date)
              AND action = 'CLOSE'
              AND NOT EXISTS (SELECT 1 FROM archive_manifests a
                              WHERE a.gaming_date = s.gaming_date AND a.sealed_at = s.sealed_at)
            ORDER BY gaming_date
            """
        ).fetchall()
    ]


# ---------------------------------------------------------------------- writing a day
def archive_day(
    ledger: Ledger, gaming_date: date, sealed_at: datetime, *, archive: Archive | None = None
) -> ArchiveManifest:
    """Archive a gaming day as the seal made at ``sealed_at`` selects its rows: in each
    archive table, the day's partition is replaced by them (one Parquet file, zstd, streamed
    from the ledger a row group at a time: the archive's memory is a row group's, not the
    day's), one commit per table (a delete snapshot, when the day was archived before, and
    an append snapshot), and the manifest of the day's files is recorded in the ledger and
    returned.

    Called by the close with the seal's time, before it writes the seal entry (which carries
    :attr:`ArchiveManifest.sha256`), inside its transaction: the rows archived are the rows
    sealed. Iceberg's commits are not the ledger's: a close that rolls back after this leaves
    snapshots no seal names, and its retry (a new seal time) replaces the day's partition
    again. A day is archived once per seal: :class:`ArchiveError` when it was archived for
    this one already (a day is archived again by reopening and closing it again).

    The snapshots' summaries carry the day and the seal time (``baccarat.gaming-date``,
    ``baccarat.sealed-at``), so the table's history reads as the days' seals."""
    archive = archive if archive is not None else open_archive(ledger.path)
    if recorded_manifest(ledger, gaming_date, sealed_at) is not None:
        raise ArchiveError(
            f"gaming day {gaming_date} is archived already for its seal of {sealed_at}; to "
            "archive it again, reopen it and close it again"
        )
    summary = {
        "baccarat.gaming-date": gaming_date.isoformat(),
        "baccarat.sealed-at": str(sealed_at),
    }
    archived = []
    # the encoders' exit waits for every row group under way, then the files are closed
    with (
        ExitStack() as open_files,
        RowGroupEncoders(ENCODERS) as encoders,
        ledger.memory_held_to(ARCHIVE_MEMORY),
    ):
        writing = []
        for table in ARCHIVED:
            iceberg = archive.writable(table)
            # closed whatever happens: a result left open on the ledger's connection refuses
            # the rollback that a failed write needs
            with sealed_day_rows(ledger, table, gaming_date, sealed_at) as rows:
                day_file = _write_day_file(open_files, encoders, iceberg, gaming_date, rows)
            writing.append((table, iceberg, day_file))
        written_files = [(t, iceberg, f.finish()) for t, iceberg, f in writing]
    for table, iceberg, (written, count) in written_files:
        with MetadataOnceTransaction(iceberg) as change:
            with warnings.catch_warnings():
                # the first archive of a day has nothing to replace
                warnings.filterwarnings("ignore", "Delete operation did not match any records")
                change.delete(on_the_day(gaming_date), snapshot_properties=summary)
            # the file's name is new: checking the table's other files for it would read
            # every day's manifests
            change.add_files(written, snapshot_properties=summary, check_duplicate_files=False)
        snapshot = iceberg.current_snapshot()
        assert snapshot is not None, "an append commits a snapshot"
        files = tuple(
            sorted(
                (
                    _archived_file(archive, iceberg, task)
                    for task in _day_tasks(iceberg, gaming_date)
                ),
                key=lambda f: f.path,
            )
        )
        archived.append(ArchivedTable(table.name, snapshot.snapshot_id, count, files))
    manifest = ArchiveManifest(gaming_date, sealed_at, tuple(archived))
    record_manifest(ledger, manifest)
    return manifest


def _write_day_file(
    open_files: ExitStack,
    encoders: RowGroupEncoders,
    iceberg: IcebergTable,
    gaming_date: date,
    rows: pa.RecordBatchReader,
) -> _DayFile:
    """Write a day's rows into one Parquet file of the day's partition, a row group at a time
    (:data:`ROW_GROUP_BYTES`), as the table's properties say (codec, level; Iceberg's field
    ids in its schema), and return it to be finished (:meth:`_DayFile.finish`). The rows are
    read here, from the ledger's connection; each row group is encoded and compressed on one
    of the ``encoders`` while the next is read, and the file's last one while the next
    table's rows are (pyarrow lets go of the interpreter while it encodes). pyiceberg's own
    writer holds a partitioned table's rows all at once, several times over as it converts
    them (a day's deliveries alone are 1.2 GB of Arrow at 96 tables). A write that fails
    leaves a file no snapshot lists, as a failed Iceberg write does."""
    schema = iceberg.schema()
    arrow_schema = schema.as_arrow()
    groups = _row_groups(batch.cast(arrow_schema) for batch in rows if batch.num_rows)
    first = next(groups, None)
    if first is None:
        return _DayFile(None)
    spec = iceberg.spec()
    day = PartitionKey([PartitionFieldValue(spec.fields[0], gaming_date)], spec, schema)
    uri = iceberg.location_provider().new_data_location(f"{uuid.uuid4()}.parquet", day)
    properties = iceberg.properties
    stream = open_files.enter_context(iceberg.io.new_output(uri).create())
    writer = open_files.enter_context(
        pq.ParquetWriter(
            stream,
            arrow_schema,
            compression=properties[TableProperties.PARQUET_COMPRESSION],
            compression_level=int(properties[TableProperties.PARQUET_COMPRESSION_LEVEL]),
        )
    )
    day_file = _DayFile(uri, stream, writer)
    for group in itertools.chain([first], groups):
        day_file.write(encoders, pa.Table.from_batches(group, arrow_schema))
    return day_file


class RowGroupEncoders:
    """Threads that compress row groups, at most as many handed to them at once as there are
    threads: a row group read while they are all busy waits for one to finish, so the archive
    holds :data:`ENCODERS` row groups and the one being read, whatever the day's size."""

    def __init__(self, threads: int) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="archive-encoder")
        self._slots = threading.BoundedSemaphore(threads)

    def submit(self, write: Callable[..., None], *args: Any) -> Future[None]:
        self._slots.acquire()
        try:
            job = self._pool.submit(write, *args)
        except BaseException:
            self._slots.release()
            raise
        job.add_done_callback(lambda _: self._slots.release())
        return job

    def __enter__(self) -> RowGroupEncoders:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True)


@dataclass
class _DayFile:
    """A day's data file being written: its row groups go to the file one after another, each
    written once the one before it is, so the file holds at most one row group waiting."""

    uri: str | None
    stream: OutputStream | None = None
    writer: pq.ParquetWriter | None = None
    rows: int = 0
    encoding: Future[None] | None = None

    def write(self, encoders: RowGroupEncoders, group: pa.Table) -> None:
        assert self.writer is not None, "a file without rows is never written to"
        if self.encoding is not None:
            self.encoding.result()
        self.encoding = encoders.submit(self.writer.write_table, group, group.num_rows)
        self.rows += group.num_rows

    def finish(self) -> tuple[list[str], int]:
        """The file complete (its last row group written, its footer, the stream closed): its
        URI (none for a day without rows) and the rows written."""
        if self.uri is None or self.writer is None or self.stream is None:
            return [], 0
        if self.encoding is not None:
            self.encoding.result()
        self.writer.close()
        self.stream.close()
        return [self.uri], self.rows


def _row_groups(batches: Iterator[pa.RecordBatch]) -> Iterator[list[pa.RecordBatch]]:
    """The batches gathered into row groups of about :data:`ROW_GROUP_BYTES`."""
    group: list[pa.RecordBatch] = []
    size = 0
    for batch in batches:
        group.append(batch)
        size += batch.nbytes
        if size >= ROW_GROUP_BYTES:
            yield group
            group, size = [], 0
    if group:
        yield group


def archive_sealed_days(ledger: Ledger, *, archive: Archive | None = None) -> list[ArchiveManifest]:
    """Archive every sealed day whose seal has no archive yet (:func:`unarchived_seals`): an
    existing ledger's sealed days, moved into the archive as their closes sealed them.
    Days sealed before the seal log existed (``gaming_days`` alone) have no seal time to
    select their rows with and are left out."""
    archive = archive if archive is not None else open_archive(ledger.path)
    manifests = []
    for day, sealed_at in unarchived_seals(ledger):
        with ledger.transaction():
            manifest = archive_day(ledger, day, sealed_at, archive=archive)
            move_out(ledger, day, sealed_at, manifest.uris())
        manifests.append(manifest)
    for manifest in archived_in_place(ledger):
        with ledger.transaction():
            move_out(
                ledger,
                manifest.gaming_date,
                manifest.sealed_at,
                {
                    t.table: day_file_uris(archive, t.table, manifest.gaming_date)
                    for t in manifest.tables
                    if t.files
                },
            )
        manifests.append(manifest)
    return manifests


def archived_in_place(ledger: Ledger) -> list[ArchiveManifest]:
    """The manifests of the closed days archived whose rows are still in the working store
    (archived before closed days left it): each day whose last seal entry is a CLOSE with a
    manifest, not yet in ``archived_days``."""
    return [
        ArchiveManifest.from_json(str(text))
        for (text,) in ledger.con.execute(
            """
            SELECT a.manifest_json FROM seal_log s JOIN archive_manifests a
              ON a.gaming_date = s.gaming_date AND a.sealed_at = s.sealed_at
            WHERE s.seq = (SELECT max(seq) FROM seal_log l WHERE l.gaming_date = s.gaming_date)
              AND s.action = 'CLOSE'
              AND s.gaming_date NOT IN (SELECT gaming_date FROM archived_days)
            ORDER BY s.gaming_date
            """
        ).fetchall()
    ]


def _day_tasks(
    iceberg: IcebergTable, gaming_date: date, snapshot_id: int | None = None
) -> list[FileScanTask]:
    """The scan tasks of a day's partition: Iceberg prunes the manifests by their partition
    ranges, so only the day's manifests and files are listed."""
    scan = iceberg.scan(row_filter=on_the_day(gaming_date), snapshot_id=snapshot_id)
    return list(scan.plan_files())


def _archived_file(archive: Archive, iceberg: IcebergTable, task: FileScanTask) -> ArchivedFile:
    data = task.file
    return ArchivedFile(
        archive.relative(data.file_path),
        int(data.file_size_in_bytes),
        int(data.record_count),
        archive.sha256(iceberg, data.file_path),
        data.file_path,
    )


# ---------------------------------------------------------------------- checking a day
def archive_problems(archive: Archive, sealed: ArchiveManifest, gaming_date: date) -> list[str]:
    """Every way the archive of ``gaming_date`` differs from its manifest: a data file edited
    (its SHA-256 differs), removed (sealed, but no longer in the table's scan of the day, or
    gone from storage), added (in the scan but not sealed), rows deleted by a delete file,
    and a table whose rows of the day differ in number. Empty when it matches.

    Reads only that day's files: each table's scan of the day is planned with a
    ``gaming_date`` filter, which Iceberg answers from the table's metadata and the
    manifests whose partition range holds the day, and only the files it lists are hashed.
    Its cost does not grow with the days stored beyond that manifest planning (the table's
    metadata file and manifest list grow by a few hundred bytes per archived day)."""
    if sealed.gaming_date != gaming_date:
        return [f"the archive manifest checked for {gaming_date} is of {sealed.gaming_date}"]
    problems: list[str] = []
    for table in sealed.tables:
        where = f"archive {table.table} {gaming_date}"
        try:
            iceberg = archive.table(table.table)
        except ArchiveError as err:
            problems.append(f"{where}: {err}")
            continue
        tasks = {archive.relative(t.file.file_path): t for t in _day_tasks(iceberg, gaming_date)}
        for file in table.files:
            task = tasks.get(file.path)
            if task is None:
                problems.append(
                    f"{where}: data file {file.path} ({file.records} rows) was removed from "
                    "the table since the seal"
                )
                continue
            problems += _file_problems(archive, iceberg, where, file, task)
        sealed_paths = {f.path for f in table.files}
        problems += [
            f"{where}: data file {path} ({task.file.record_count} rows) was added since the seal"
            for path, task in sorted(tasks.items())
            if path not in sealed_paths
        ]
        rows = sum(int(t.file.record_count) for t in tasks.values())
        if rows != table.rows:
            problems.append(f"{where}: {rows} rows in the archive, {table.rows} sealed")
    return problems


def _file_problems(
    archive: Archive, iceberg: IcebergTable, where: str, file: ArchivedFile, task: FileScanTask
) -> list[str]:
    """What differs in a sealed data file the day's scan still lists."""
    problems = [
        f"{where}: rows of data file {file.path} are deleted by "
        f"{archive.relative(deletes.file_path)} since the seal"
        for deletes in sorted(task.delete_files, key=lambda d: d.file_path)
    ]
    try:
        digest = archive.sha256(iceberg, task.file.file_path)
    except FileNotFoundError:
        return [*problems, f"{where}: data file {file.path} was removed from storage"]
    except OSError as err:
        return [*problems, f"{where}: data file {file.path} cannot be read ({err})"]
    if digest != file.sha256:
        problems.append(
            f"{where}: data file {file.path} was edited since the seal (SHA-256 {digest}, "
            f"sealed {file.sha256})"
        )
    return problems


# ---------------------------------------------------------------------- reading a day
def read_day(
    archive: Archive, table: str, gaming_date: date, snapshot_id: int | None = None
) -> pa.Table:
    """A sealed table's rows of a day from the archive, as of ``snapshot_id`` (default: now;
    an earlier snapshot shows the day as an earlier seal archived it)."""
    scan = archive.table(table).scan(row_filter=on_the_day(gaming_date), snapshot_id=snapshot_id)
    return scan.to_arrow()


def day_file_uris(
    archive: Archive, table: str, gaming_date: date, snapshot_id: int | None = None
) -> list[str]:
    """The URIs of a sealed table's data files of a day, for DuckDB's ``read_parquet`` (which
    reads ``file://`` and object-store URIs) or any Parquet reader; empty: no rows that day.
    :class:`ArchiveError` when rows of them are deleted by a delete file (a reader of the
    files alone would show them): read those with :func:`read_day`."""
    tasks = _day_tasks(archive.table(table), gaming_date, snapshot_id)
    deleted = [t.file.file_path for t in tasks if t.delete_files]
    if deleted:
        raise ArchiveError(
            f"rows of {table}'s data files of {gaming_date} are deleted by delete files "
            f"({', '.join(deleted)}): read the day with pyiceberg (read_day), not the files"
        )
    return sorted(t.file.file_path for t in tasks)
