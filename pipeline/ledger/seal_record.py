"""The front door to the seal record: the seal log (``seal_log``), the per-row digests of a
day's sealed rows (``close_digests``) and the columns they were digested by.

The seal log holds every close and reopen of a gaming day, in the order they happened, each
entry chained to the one before and signed with the installation's seal key.

Why a log and not a chain of days: a chain ordered by gaming date breaks whenever a day is
closed out of date order, reopened, or closed again after a late file. A log of events only
grows, so each of those is one more entry and every earlier link stays valid; a day's state is
its last entry (CLOSE: sealed; REOPEN: a draft again), whatever ``gaming_days.status`` says.

An entry's link chains the link before it with the SHA-256 of the entry's canonical JSON
(:func:`pipeline.witness.checkpoint.chain_link`), and the link is signed with the
installation's Ed25519 seal key (:mod:`pipeline.config.keys`), which only the service account
holds: an edited entry, an inserted one or a log rewritten from scratch cannot carry valid
signatures, and anyone can check them with the public keyring. Deleting the newest entries
leaves a valid shorter log: :mod:`pipeline.reports.seals` sends each new head to the
installation's witnesses and appends it to the anchor file.

Entries made before signatures carry an HMAC link under the old shared key
(:func:`pipeline.config.keys.legacy_authentic`); they verify only with that key given.

A close digests every row of the day in every table of
:data:`~pipeline.ledger.migrations.SEALED_TABLES` (leaving out the
:data:`~pipeline.ledger.migrations.VOLATILE_COLUMNS`): the per-row digests go to
``close_digests`` (to name a changed row later) and each table's digest into the entry (so
editing ``close_digests`` to match an edited row is caught too). The entry records how a row
was written out to be hashed (:data:`ROW_TEXTS`), so a seal verifies as it was made whatever
a later version writes. The rows are hashed where they are, in DuckDB: only the sorted
digests stream through Python.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from pipeline.config.keys import Keyring, Signer, legacy_authentic
from pipeline.ledger.connection import Source, connection_of, stored_table
from pipeline.ledger.migrations import SEALED_TABLES, VOLATILE_COLUMNS
from pipeline.ledger.store import Ledger, LedgerError
from pipeline.ledger.tables import day_scope, sealed_columns_added_after
from pipeline.ledger.working_store import stored_columns_of
from pipeline.witness.checkpoint import chain_link

if TYPE_CHECKING:
    import duckdb

CLOSE = "CLOSE"
REOPEN = "REOPEN"
GENESIS = "0" * 64
"""The previous link of the first entry."""


@dataclass(frozen=True)
class SealEntry:
    """One event of the seal log, a close or a reopen of a gaming day, as ``seal_log`` keeps
    it (each field one of its columns)."""

    seq: int
    gaming_date: date
    action: str
    actor: str
    actor_source: str
    reason: str | None
    sealed_at: datetime
    status: str | None
    blocking_exceptions: int | None
    report_sha256: str | None
    table_digests_json: str
    anchor_path: str | None
    row_text: str | None
    """How the close wrote out each row to hash it (a key of :data:`ROW_TEXTS`); ``None`` on
    a reopen and on the closes made before entries recorded it."""
    table_columns_json: str | None
    """Each sealed table's columns and their types, in order, as the close read them
    (:func:`table_columns`): the values row text holds a value by its place, so renaming two
    columns would otherwise go unseen. ``None`` where ``row_text`` is."""
    previous_link: str
    link: str
    ledger_id: str | None = None
    """The ledger the entry was made in (``None`` before entries were signed)."""
    roles_sha256: str | None = None
    """The SHA-256 of the installation's roles file that authorized the action."""
    key_id: str | None = None
    """The installation seal key that signed the link; ``None``: a legacy HMAC link."""
    signature: str | None = None
    archive_sha256: str | None = None
    """A close's: the SHA-256 of the manifest of the day's files in the Iceberg archive
    (:class:`pipeline.ledger.archive.ArchiveManifest`); ``None`` on a reopen and on the closes
    made before the archive."""

    def canonical(self) -> bytes:
        """What the link covers: every field but the link and its signature, as canonical
        JSON. The fields added after the first entries (:data:`ADDED_FIELDS`) are left out
        when ``None``, so the entries made before them keep the links they were made with;
        any other value is covered with the rest."""
        body = {
            k: v
            for k, v in asdict(self).items()
            if k not in ("link", "signature") and not (k in ADDED_FIELDS and v is None)
        }
        return json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode()

    @property
    def content_digest(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()

    def authentic(self, keyring: Keyring) -> bool | None:
        """Whether the link chains this entry to the previous link and carries the seal
        key's signature; for a legacy entry, whether its HMAC verifies (``None`` when no
        legacy key was given: it cannot be verified)."""
        if self.signature is None:
            return legacy_authentic(self.previous_link.encode() + self.canonical(), self.link)
        return self.link == chain_link(
            "seal", self.previous_link, self.content_digest
        ) and keyring.verify("seal", self.key_id, self.link.encode(), self.signature)

    @property
    def table_digests(self) -> dict[str, str]:
        digests: dict[str, str] = json.loads(self.table_digests_json)
        return digests

    def anchor_line(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "gaming_date": self.gaming_date.isoformat(),
            "action": self.action,
            "link": self.link,
        }


COLUMNS = tuple(f.name for f in fields(SealEntry))
ADDED_FIELDS = (
    "row_text",
    "table_columns_json",
    "ledger_id",
    "roles_sha256",
    "key_id",
    "archive_sha256",
)
"""The entry's fields added after the first entries were made (migrations 15, 17 and 20)."""


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    """``table``'s columns as the ledger file has them now, in order: name -> type."""
    return dict(stored_columns_of(con, table))


def seal_log(ledger: Source) -> list[SealEntry]:
    """The seal log: every entry, in sequence order. A ledger opened read-only keeps its
    schema (only a writer migrates it): on one from before :data:`ADDED_FIELDS`, they read
    as ``None``, as its entries were made."""
    con = connection_of(ledger)
    present = _columns(con, "seal_log")
    select = ", ".join(c if c in present else f"NULL AS {c}" for c in COLUMNS)
    rows = con.execute(f"SELECT {select} FROM seal_log ORDER BY seq").fetchall()
    return [SealEntry(*row) for row in rows]


def last_entries(log: Iterable[SealEntry]) -> dict[date, SealEntry]:
    """Each day's latest entry: its state (CLOSE: sealed, REOPEN: a draft again)."""
    return {entry.gaming_date: entry for entry in log}


def append_entry(
    ledger: Ledger,
    *,
    gaming_date: date,
    action: str,
    actor: str,
    actor_source: str,
    reason: str | None,
    sealed_at: datetime,
    status: str | None = None,
    blocking_exceptions: int | None = None,
    report_sha256: str | None = None,
    table_digests: dict[str, str] | None = None,
    anchor_path: Path | None = None,
    row_text: str | None = None,
    table_columns: dict[str, str] | None = None,
    signer: Signer,
    ledger_id: str,
    roles_sha256: str | None,
    archive_sha256: str | None = None,
) -> SealEntry:
    """Append one event to the log, chained to the newest entry and signed by ``signer``
    (the installation's seal key). Call inside the transaction that changes the day, so
    the event and the change commit together. ``anchor_path`` is kept as the ledger's
    folder names it (relative where it can be), so a copy of the ledger elsewhere (a restore
    drill) never writes into this installation's anchors."""
    head = ledger.con.execute("SELECT seq, link FROM seal_log ORDER BY seq DESC LIMIT 1").fetchone()
    unsigned = SealEntry(
        seq=head[0] + 1 if head else 1,
        gaming_date=gaming_date,
        action=action,
        actor=actor,
        actor_source=actor_source,
        reason=reason,
        sealed_at=sealed_at,
        status=status,
        blocking_exceptions=blocking_exceptions,
        report_sha256=report_sha256,
        table_digests_json=json.dumps(table_digests or {}, sort_keys=True),
        anchor_path=anchor_path.as_posix() if anchor_path is not None else None,
        row_text=row_text,
        table_columns_json=(
            json.dumps(table_columns, sort_keys=True) if table_columns is not None else None
        ),
        previous_link=head[1] if head else GENESIS,
        link="",
        ledger_id=ledger_id,
        roles_sha256=roles_sha256,
        key_id=signer.key_id,
        archive_sha256=archive_sha256,
    )
    link = chain_link("seal", unsigned.previous_link, unsigned.content_digest)
    entry = SealEntry(**{**asdict(unsigned), "link": link, "signature": signer.sign(link.encode())})
    ledger.con.execute(
        f"INSERT INTO seal_log ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
        [getattr(entry, c) for c in COLUMNS],
    )
    return entry


# ---------------------------------------------------------------------- row digests
ROW_TEXTS: dict[str | None, str] = {
    None: "r::VARCHAR",
    "values": "row(*COLUMNS(*))::VARCHAR",
}
"""How a row is written out to be hashed, by the name its seal entry records (``row_text``),
as a DuckDB expression over the row ``r``. DuckDB quotes a value wherever it could be read
otherwise, so two different rows of a table never read alike.

- ``None``: every close made before the entries recorded it: the row as a struct with its
  column names, ``{'table_id': T01, 'seat': 4, ...}``.
- ``"values"``: the values alone in the table's column order, ``(T01, 4, ...)``; the entry
  records each table's columns once instead (``table_columns_json``). The column names
  repeated on every row were about 40 % of the text hashed (issue 13)."""

ROW_TEXT = "values"
"""How a close writes out the rows it seals now."""


class UnknownRowTextError(ValueError):
    """A seal entry wrote its rows out in a way this version does not know."""

    def __init__(self, row_text: str | None) -> None:
        super().__init__(
            f"the seal wrote its rows out as {row_text!r}, which this version does not know "
            f"(it knows {sorted(map(repr, ROW_TEXTS))}): verify the ledger with the version "
            "that closed the day, or a later one"
        )


def _row_digest(row_text: str | None) -> str:
    """The SQL of a row's digest, written out as ``row_text`` says."""
    if row_text not in ROW_TEXTS:
        raise UnknownRowTextError(row_text)
    return f"sha256({ROW_TEXTS[row_text]})"


SEAL_NAMES_COLUMNS = 15
"""The migration since which a seal entry names the columns it digested
(``table_columns_json``)."""


@dataclass(frozen=True)
class DigestedColumns:
    """A sealed table's columns as a seal digested them, in order, and those added to the
    table since (appended after them), which the seal does not cover."""

    digested: tuple[str, ...]
    added: tuple[str, ...] = ()


def _digested_now(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """``table``'s columns now as a close digests them (not its volatile ones): (name, type)."""
    volatile = VOLATILE_COLUMNS.get(table, ())
    return [(n, kind) for n, kind in _columns(con, table).items() if n not in volatile]


def _column_text(columns: Iterable[tuple[str, str]]) -> str:
    return ", ".join(f"{name} {kind}" for name, kind in columns)


def table_columns(ledger: Ledger) -> dict[str, str]:
    """Each sealed table's columns with their types, in order, as its rows are digested
    (without its volatile columns): ``"table_id VARCHAR, seat INTEGER, ..."``."""
    return {table: _column_text(_digested_now(ledger.con, table)) for table in SEALED_TABLES}


def digested_columns(ledger: Ledger, table: str, recorded: str | None) -> DigestedColumns | None:
    """How a seal digested ``table``'s rows: ``recorded`` is the columns its entry names
    for the table (:func:`table_columns`), ``None`` for an entry from before entries named
    them, which digested every column but those added since
    (:func:`~pipeline.ledger.tables.sealed_columns_added_after`).
    ``None`` when the table's columns now do not begin with those recorded (one renamed,
    retyped or dropped): its rows can no longer be read as they were sealed."""
    now = _digested_now(ledger.con, table)
    names = tuple(name for name, _ in now)
    if recorded is None:
        later = sealed_columns_added_after(table, SEAL_NAMES_COLUMNS)
        return DigestedColumns(
            tuple(n for n in names if n not in later), tuple(n for n in names if n in later)
        )
    for count in range(len(now), 0, -1):  # columns are only ever added at the end
        if _column_text(now[:count]) == recorded:
            return DigestedColumns(names[:count], names[count:])
    return None


def recorded_columns(entry: SealEntry) -> dict[str, str] | None:
    """Each sealed table's columns as the close ``entry`` names them; ``None`` for an entry
    from before entries named them."""
    if entry.table_columns_json is None:
        return None
    recorded: dict[str, str] = json.loads(entry.table_columns_json)
    return recorded


def _day_rows(table: str, columns: DigestedColumns | None) -> str:
    """The SELECT of ``table``'s rows of a day: the ``columns`` a seal digested, else every
    column but its volatile ones."""
    if columns is not None:
        selected = ", ".join(columns.digested)
    else:
        volatile = VOLATILE_COLUMNS.get(table, ())
        selected = f"* EXCLUDE ({', '.join(volatile)})" if volatile else "*"
    return f"SELECT {selected} FROM {table} WHERE {SEALED_TABLES[table]}"


def _day_digests(table: str, row_text: str | None, columns: DigestedColumns | None) -> str:
    """The SELECT of the digest ``d`` of each of ``table``'s rows of a day."""
    return f"SELECT {_row_digest(row_text)} AS d FROM ({_day_rows(table, columns)}) r"


def filled_since(
    ledger: Ledger, table: str, gaming_date: date, sealed_at: datetime, columns: DigestedColumns
) -> int:
    """How many of ``table``'s rows of the day hold a value in a column added since the seal
    (``columns.added``): the seal covers none, as a closed day is never replayed."""
    if not columns.added:
        return 0
    filled = " OR ".join(f"{name} IS NOT NULL" for name in columns.added)
    sql = f"SELECT count(*) FROM {table} WHERE ({SEALED_TABLES[table]}) AND ({filled})"
    rows = ledger.con.execute(sql, day_scope(sql, gaming_date, sealed_at)).fetchall()
    return int(rows[0][0])


def row_digests(
    ledger: Ledger,
    table: str,
    gaming_date: date,
    sealed_at: datetime,
    row_text: str | None,
    columns: DigestedColumns | None = None,
) -> list[str]:
    """The SHA-256 of each of ``table``'s rows of the day (written out as ``row_text``
    says, of the ``columns`` the seal digested), sorted."""
    sql = f"{_day_digests(table, row_text, columns)} ORDER BY d"
    rows = ledger.con.execute(sql, day_scope(sql, gaming_date, sealed_at)).fetchall()
    return [str(r[0]) for r in rows]


DIGEST_BATCH = 65_536
"""Row digests fetched at a time by :func:`sorted_digest` (4 MB of text)."""


def sorted_digest(con: duckdb.DuckDBPyConnection, digests: str, parameters: Any) -> str:
    """A table's digest: the SHA-256 of its sorted row digests, one per line (without a
    final newline), as every seal so far defines it. ``digests`` selects the row digests as
    ``d``; they stream sorted, batch by batch, so a day's digests never need to fit in
    memory at once, and each batch is hashed as the bytes DuckDB hands over, with no Python
    string per row."""
    digest = hashlib.sha256()
    separator = b""
    # a digest is never null; a null one (a constraint dropped) reads as a word, so the table's
    # digest changes instead of the null vanishing from it
    sql = f"SELECT coalesce(d, 'NULL') || chr(10) FROM ({digests}) ORDER BY d"
    for batch in con.sql(sql, params=parameters).to_arrow_reader(DIGEST_BATCH):
        if batch.num_rows:
            lines = _text_bytes(batch.column(0))
            digest.update(separator)
            digest.update(lines[:-1])
            separator = b"\n"
    return digest.hexdigest()


def _text_bytes(array: pa.Array) -> memoryview:
    """The UTF-8 bytes of a string array's values, back to back: its data buffer between
    the first value's offset and the end of the last."""
    array = array.cast(pa.large_string())
    offsets = memoryview(array.buffers()[1]).cast("q")
    start, end = offsets[array.offset], offsets[array.offset + len(array)]
    return memoryview(array.buffers()[2])[start:end]


def current_digest(
    ledger: Ledger,
    table: str,
    gaming_date: date,
    sealed_at: datetime,
    row_text: str | None,
    columns: DigestedColumns | None = None,
) -> str:
    """:func:`sorted_digest` of ``table``'s rows of the day as they are now, written out as
    ``row_text`` says, of the ``columns`` the seal digested."""
    sql = _day_digests(table, row_text, columns)
    return sorted_digest(ledger.con, sql, day_scope(sql, gaming_date, sealed_at))


@dataclass(frozen=True)
class KeptAs:
    """How ``close_digests`` keeps a row digest, by the type of its ``row_sha256``: SQL that
    stores a digest ``d`` (hex text), SQL that reads one back as that text, and SQL true for
    a kept value that is a SHA-256 digest. Every digest is compared as hex text."""

    store: str
    read: str
    well_formed: str


KEPT_AS: dict[str, KeptAs] = {
    # since migration 16: the 32 bytes, which DuckDB writes without compressing them
    "BLOB": KeptAs("unhex(d)", "lower(hex(row_sha256))", "octet_length(row_sha256) = 32"),
    # before it: the hex text, in a ledger no writer has opened since (verify opens it
    # read-only, migrating nothing) or whose column was turned back into text
    "VARCHAR": KeptAs("d", "row_sha256", "regexp_full_match(row_sha256, '[0-9a-f]{64}')"),
}


class KeptDigestsError(LedgerError):
    """``close_digests.row_sha256`` is of a type no version kept digests in."""


def kept_as(con: duckdb.DuckDBPyConnection) -> KeptAs:
    """How this ledger's ``close_digests`` keeps row digests (:data:`KEPT_AS`): a close stores
    them the way they are read back, whatever the column's type."""
    kind = _columns(con, "close_digests").get("row_sha256", "missing")
    if kind not in KEPT_AS:
        raise KeptDigestsError(
            f"close_digests.row_sha256 is {kind}; this version keeps row digests as "
            f"{' or '.join(KEPT_AS)}: restore the table from a backup of the ledger"
        )
    return KEPT_AS[kind]


def _kept_row_digests(
    con: duckdb.DuckDBPyConnection, gaming_date: date, table: str
) -> tuple[str, list[Any]]:
    """The SELECT of the row digests ``d`` ``close_digests`` keeps for ``table``'s rows of
    the day, as hex text, with its parameters."""
    return (
        f"SELECT {kept_as(con).read} AS d FROM close_digests "
        "WHERE gaming_date = ? AND table_name = ?",
        [gaming_date, table],
    )


def kept_row_digests(ledger: Ledger, gaming_date: date, table: str) -> list[str]:
    """The row digests ``close_digests`` keeps for ``table``'s rows of the day, as hex text."""
    rows = ledger.con.execute(*_kept_row_digests(ledger.con, gaming_date, table)).fetchall()
    return [str(digest) for (digest,) in rows]


def kept_tables(ledger: Ledger, gaming_date: date) -> set[str]:
    """The tables ``close_digests`` keeps row digests of for the day."""
    rows = ledger.con.execute(
        "SELECT DISTINCT table_name FROM close_digests WHERE gaming_date = ?", [gaming_date]
    ).fetchall()
    return {str(table) for (table,) in rows}


def digested_days_besides(ledger: Ledger, days: Iterable[date]) -> list[date]:
    """The days, other than ``days``, that ``close_digests`` keeps row digests of, in order."""
    rows = ledger.con.execute(
        "SELECT DISTINCT gaming_date FROM close_digests WHERE gaming_date NOT IN "
        "(SELECT unnest($days::DATE[])) ORDER BY 1",
        {"days": sorted(days)},
    ).fetchall()
    return [day for (day,) in rows]


def malformed_row_digests(ledger: Ledger, gaming_date: date) -> dict[str, int]:
    """Per table, how many values ``close_digests`` keeps for the day that are no SHA-256
    digest (null included). A close writes none: one is an edit, which may also hide others
    (several digests written into one value read as the same lines)."""
    rows = ledger.con.execute(
        f"SELECT table_name, count(*) FROM close_digests WHERE gaming_date = ? "
        f"AND NOT coalesce({kept_as(ledger.con).well_formed}, false) GROUP BY ALL ORDER BY 1",
        [gaming_date],
    ).fetchall()
    return {str(table): int(n) for table, n in rows}


def kept_digest(ledger: Ledger, table: str, gaming_date: date) -> str:
    """:func:`sorted_digest` of the row digests ``close_digests`` keeps for ``table``."""
    return sorted_digest(ledger.con, *_kept_row_digests(ledger.con, gaming_date, table))


SEAL_MEMORY = "384MB"
"""DuckDB's memory while the close digests a day: the rows it reads and the digests it sorts
stay within it (beyond it DuckDB spills to its temporary directory), so the close of a day
of any size fits in bounded memory: under 1 GB with the quality gate's modules loaded (as
:data:`pipeline.quality.run.FRAMES_MEMORY`)."""


def seal_rows(
    ledger: Ledger,
    gaming_date: date,
    sealed_at: datetime,
    row_text: str | None,
    recorded: Mapping[str, str] | None,
) -> dict[str, str]:
    """Digest every row of the day in every sealed table, written out as ``row_text`` says
    (a close: :data:`ROW_TEXT`), of the columns the entry names (``recorded``, as
    :func:`digested_columns` reads them), into ``close_digests`` (replacing the day's earlier
    digests) and return each table's digest. The rows are hashed where they are, in DuckDB,
    within :data:`SEAL_MEMORY`: only the sorted digests stream through Python, to be hashed
    again."""
    con = ledger.con
    with ledger.memory_held_to(SEAL_MEMORY):
        digests = stored_table(con, "close_digests")  # the file's: a draft day's
        con.execute(f"DELETE FROM {digests} WHERE gaming_date = ?", [gaming_date])
        # one statement for every table: DuckDB keeps both cores busy across the small
        # tables, where one statement each cost a 24-table close 0.24 s more
        store = kept_as(con).store
        sql = f"INSERT INTO {digests} " + " UNION ALL ".join(
            f"SELECT $day, '{table}', {store} FROM "
            f"({_day_digests(table, row_text, _as_recorded(ledger, table, recorded))})"
            for table in SEALED_TABLES
        )
        con.execute(sql, day_scope(sql, gaming_date, sealed_at))
        return {table: kept_digest(ledger, table, gaming_date) for table in SEALED_TABLES}


def _as_recorded(
    ledger: Ledger, table: str, recorded: Mapping[str, str] | None
) -> DigestedColumns | None:
    """The columns of ``table`` a seal whose entry names ``recorded`` digests."""
    return digested_columns(ledger, table, None if recorded is None else recorded[table])


def rows_with_digests(
    ledger: Ledger,
    table: str,
    gaming_date: date,
    sealed_at: datetime,
    row_text: str | None,
    digests: Iterable[str],
    columns: DigestedColumns | None = None,
) -> list[str]:
    """The day's rows of ``table`` whose digest (written out as ``row_text`` says, of the
    ``columns`` the seal digested) is one of ``digests``, each as a struct with its column
    names, for a person to read."""
    wanted = sorted(set(digests))
    if not wanted:
        return []
    sql = (
        f"SELECT r::VARCHAR FROM ({_day_rows(table, columns)}) r "
        f"WHERE {_row_digest(row_text)} IN (SELECT unnest($wanted::VARCHAR[])) ORDER BY 1"
    )
    parameters = {**day_scope(sql, gaming_date, sealed_at), "wanted": wanted}
    rows = ledger.con.execute(sql, parameters).fetchall()
    return [str(r[0]) for r in rows]
