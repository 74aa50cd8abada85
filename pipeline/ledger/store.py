"""The DuckDB ledger: raw deliveries in, derived table-day rows out, all idempotent.

Invariants (each checked by tests):
1. Loading the same deliveries again changes nothing: a delivery is keyed by where it came
   from in full and what it is (:attr:`~pipeline.ledger.columns.Delivery.key`), so a file
   of the same name from another day, or a repaired version of a damaged file, adds exactly
   the deliveries the ledger lacks.
2. Derived rows of a table-day depend only on the set of deliveries for it, so loading a day
   whole, in halves, or in either order gives identical query results.
3. A table-day's derived rows are replaced in one transaction: readers never see half a day.
4. Every derived row keeps the ids of the events it came from.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import duckdb
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.events.model import PLAUSIBLE_TIMES, TableEvent
from pipeline.ledger.columns import (
    ARRIVAL_ORDER_SQL,
    DELIVERY_KEY_SQL,
    DERIVED_ROWS,
    LedgerBatch,
    Row,
    TableDay,
    arrow_rows,
    dead_letter_table,
    delivery_table,
    derived_tables,
    exception_row,
    exception_rows,
)
from pipeline.ledger.columns import Delivery as Delivery
from pipeline.ledger.connection import ledger_database, table_of
from pipeline.ledger.migrations import MIGRATIONS
from pipeline.ledger.tables import DERIVED_TABLES, REPLAYED_TABLES
from pipeline.ledger.working_store import shadow, shadowed_state, stored_columns_of
from pipeline.replay.findings import Finding
from pipeline.replay.rows import APPENDED_ROWS, ReplayResult
from pipeline.replay.sequencer import redelivered_file
from pipeline.rules.codes import PATTERN_CODES
from pipeline.rules.gaming_day import GamingDay
from pipeline.safe_text import sql_literal

DATE_FIELDS = frozenset({"gaming_date"})


CLOSED_GAMING_DAY = "CLOSED_GAMING_DAY"
"""The dead-letter reason of an event that arrived for a gaming day already closed."""


_PATTERN_CODE = "list_contains(?::VARCHAR[], code)"
"""An exception of the pattern stage (:data:`~pipeline.rules.codes.PATTERN_CODES`). Those span
shoes, tables and days, so a table-day's replay, which cannot find them again, keeps them; the
pattern stage replaces them for a whole gaming day (:meth:`Ledger.replace_pattern_findings`)."""


Fingerprint = tuple[int, int]
"""Of some deliveries: how many, and the sum of the hashes of their keys
(:meth:`Ledger.delivery_fingerprints`)."""

_FINGERPRINT_SQL = (
    "count(*), sum(hash("
    + ", ".join("{prefix}" + column for column in DELIVERY_KEY_SQL.split(", "))
    + "))"
)
"""A :data:`Fingerprint` as the aggregates of a query of deliveries (``{prefix}``: their
relation's alias and a dot, or nothing)."""


class LedgerError(RuntimeError):
    """The ledger file cannot be used as it is; the message says why and what to do."""


LedgerConflict = duckdb.TransactionException
"""A transaction that conflicted with another writer's: run again, it may succeed."""
LedgerIOError = duckdb.IOException
"""The ledger file could not be opened, read or written: the disk, or another process's lock."""

_archive_moves: Counter[Path] = Counter()
"""Per ledger file, how often a connection of this process committed a move of days between
the file and the archive (a close or a reopen): another connection of the same file (the
stream's, while a close runs beside it: :mod:`pipeline.stream.closes`) makes its views again
before its next question or transaction."""


@dataclass(frozen=True)
class Merged:
    """What :meth:`Ledger.merge_batch` did."""

    touched: set[TableDay]
    """Table-days that received new deliveries."""
    stale: set[TableDay]
    """Those of them whose derived rows the caller must re-derive from all deliveries."""
    new_deliveries: int
    """Deliveries the ledger did not hold (the others were delivered again)."""
    resolved_dead_letters: int
    """Earlier dead letters of the batch's input file that its sound version resolved."""


class CardChanges(NamedTuple):
    """Where a connection wrote rows of the ``cards`` table (:meth:`Ledger.take_card_changes`)."""

    table_days: set[TableDay]
    """Table-days whose every card row was written again."""
    shoes: set[tuple[str, date, str]]
    """``(table_id, gaming_date, shoe_id)`` of the shoes some of whose card rows were added
    or withdrawn."""


@dataclass(frozen=True)
class TableDayUpdate:
    """A table-day's rows to bring to ``result`` from those of an earlier result of the same
    live replay (:meth:`Ledger.update_table_days`)."""

    key: TableDay
    result: ReplayResult
    added: Mapping[str, Sequence[Any]]
    """Rows of :data:`~pipeline.replay.rows.APPENDED_ROWS` lists to insert, by list name."""
    withdrawn: Mapping[str, Sequence[Any]]
    """Rows written last time that ``result`` does not hold at their place (the round then
    in play, or every row after the first that a machine started over gave differently),
    to delete first."""
    written: ReplayResult
    """The result whose rows the ledger holds: of the tables rebuilt whole, only the rows
    that differ from ``result``'s are deleted and inserted."""


_DIFFED: tuple[str, ...] = tuple(
    table for table in DERIVED_ROWS if table not in APPENDED_ROWS and table != "table_day_summary"
)
"""The tables a live table-day's replay rebuilds whole whose rows :meth:`Ledger.update_table_days`
changes one by one (a table-day's exceptions grow with its day; a batch changes a few).
Its summary is replaced: the ledger recounts its exceptions after it is written, so the row
the ledger holds is not the one written."""


def _row_changes(before: Sequence[Row], after: Sequence[Row]) -> tuple[list[Row], list[Row]]:
    """The rows of ``before`` that ``after`` lacks, and those ``after`` adds (as multisets)."""
    old, new = Counter(map(_hashable, before)), Counter(map(_hashable, after))
    row_of = {_hashable(row): row for row in (*before, *after)}
    return (
        [row_of[key] for key, times in (old - new).items() for _ in range(times)],
        [row_of[key] for key, times in (new - old).items() for _ in range(times)],
    )


def _fields_from_json(text: str) -> dict[str, Any]:
    fields: dict[str, Any] = orjson.loads(text)
    for name in DATE_FIELDS & fields.keys():
        if fields[name] is not None:
            fields[name] = date.fromisoformat(fields[name])
    return fields


def _hashable(row: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(tuple(v) if isinstance(v, list) else v for v in row)


def _placeholders(values: Sequence[Any]) -> str:
    return ", ".join("?" * len(values))


def _rows_only(table_id: str, lists: Mapping[str, Sequence[Any]]) -> ReplayResult:
    """A result holding only these rows (by list name), to turn into ledger rows."""
    result = ReplayResult(table_id)
    for name, rows in lists.items():
        setattr(result, name, list(rows))
    return result


_WIN_SUMS = (
    "sum((CASE t.expected_result WHEN 'LOSE' THEN t.stake_cents "
    "WHEN 'WIN' THEN -t.expected_paid_cents ELSE 0 END){sign}), "
    "sum((CASE t.recorded_result WHEN 'LOSE' THEN t.stake_cents "
    "WHEN 'WIN' THEN -t.recorded_paid_cents ELSE 0 END){sign})"
)
"""A wager's win for the house, expected and recorded, as the sums over its settlements
``t`` (each taken ``{sign}``: nothing, or times a column saying whether it is added or
withdrawn): a lost stake is won, a payout is lost."""


LOG_PER_CHECKPOINT = "64MB"
"""How much write-ahead log a writer of many batches lets grow before DuckDB checkpoints it
(:meth:`Ledger.checkpoint_per_batches`)."""


class Ledger:
    """A connection to the ledger file. Writers migrate it; readers open it read-only."""

    def __init__(self, path: Path | str, *, read_only: bool = False, lent: bool = False) -> None:
        """``lent``: the ledger is lent to one thread at a time (the dashboards keep a few
        open on each snapshot and lend them to page runs, each on a thread of its own), so
        every question goes through its own connection (:meth:`cursor`): a cursor per
        thread would be made, with its views over the archived days, on every run."""
        self.path = Path(path)
        self._lent = lent
        self._column_names: dict[str, tuple[str, ...]] = {}
        self._database: str | None = None
        """The connection's name of the ledger's database, quoted (:meth:`stored`)."""
        self._cursors: dict[int, tuple[int, duckdb.DuckDBPyConnection]] = {}
        """Each thread's cursor (:meth:`cursor`), with the archived days its views read."""
        self._key = self.path.resolve()
        self._moves_seen = _archive_moves[self._key]
        self._in_transaction = False
        self._watching_moves = False
        """Whether a transaction looks for a move of days (a writer, once migrated: before,
        there is no ``archived_days`` to look at, and a failed look aborts the transaction)."""
        self._unjudged: set[date] = set()
        """Gaming days whose table-days were written since their pits were last judged
        (:func:`pipeline.ingest.pits.judge_pits` judges them, in the same transaction)."""
        self._memory_reset_owed = False
        """A step's memory limit DuckDB refused to reset in a transaction an error aborted
        (:meth:`memory_held_to`): the transaction's rollback resets it."""
        self._card_changes = CardChanges(set(), set())
        """What this connection wrote of the ``cards`` table since :meth:`take_card_changes`."""
        if read_only and not self.path.exists():
            raise LedgerError(
                f"{self.path}: no ledger here yet; run `baccarat-audit demo` or "
                "`baccarat-audit ingest` first"
            )
        try:
            self._con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as err:
            raise LedgerError(
                f"{self.path}: cannot open the ledger ({err}). Another process "
                "may hold the write lock; readers should open it read-only."
            ) from err
        try:
            if not read_only:
                self.migrate()
                self._watching_moves = True
            self._shadow()
        except BaseException:
            self._con.close()  # the file stays free for a reader or a later writer
            raise

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The ledger's own connection. Outside a transaction, when another connection of
        this process moved days between the file and the archive since this one made its
        views, the views are made again first: made before, they would read a closed day
        from neither place. (A transaction keeps the views it began with, which read its
        snapshot.)"""
        if not self._in_transaction and self._moves_seen != _archive_moves[self._key]:
            self._shadow()
        return self._con

    def _shadow(self) -> None:
        self._moves_seen = _archive_moves[self._key]
        shadow(self._con)

    def close(self) -> None:
        for _, cursor in self._cursors.values():
            cursor.close()
        self._con.close()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's own connection to the ledger (a DuckDB connection serves one thread
        at a time), which reads the archived days as this one does
        (:mod:`pipeline.ledger.working_store`). Kept for the thread, its views made again
        only when the archived days changed: making them binds every archived file, so a
        page that asked its questions on new cursors paid that once a question."""
        if self._lent:
            return self.con
        thread = threading.get_ident()
        state, cursor = self._cursors.get(thread, (None, None))
        if cursor is None:
            cursor = self.con.cursor()
        now = shadowed_state(cursor)
        if now != state:
            shadow(cursor)
            self._cursors[thread] = (now, cursor)
        return cursor

    def stored(self, table: str) -> str:
        """``table`` in the working store itself, for a write: the name alone reads the
        view that adds the archived days (:mod:`pipeline.ledger.working_store`). The
        connection's database is named after the file once, when it opens: a live batch
        names a stored table some forty times, and asking each time was a query each."""
        con = self.con
        if self._database is None:
            self._database = ledger_database(con)
        return table_of(self._database, table)

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ schema
    def schema_version(self) -> int:
        exists = self.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_migrations'"
        ).fetchone()
        if not exists or not exists[0]:
            return 0
        row = self.con.execute("SELECT max(version) FROM schema_migrations").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    @property
    def ledger_id(self) -> str | None:
        """The ledger's identity (migration 17): what its witnessed checkpoints and its
        journal's records name, so a copy's journal or checkpoints are told apart. ``None``
        on a ledger from before it that no writer has opened, or whose identity was
        deleted."""
        try:
            row = self.con.execute("SELECT min(ledger_id) FROM ledger_identity").fetchone()
        except duckdb.CatalogException:
            return None
        return str(row[0]) if row and row[0] is not None else None

    def migrate(self) -> int:
        self.con.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY "
            "KEY, name VARCHAR, applied_at TIMESTAMP)"
        )
        current = self.schema_version()
        latest = MIGRATIONS[-1][0]
        if current > latest:
            raise LedgerError(
                f"{self.path} is at schema version {current}, newer than this "
                f"program ({latest}); upgrade baccarat-audit"
            )
        reached = current
        for version, name, sql in MIGRATIONS:
            if version <= current:
                continue
            try:
                with self.transaction():
                    self.con.execute(sql)
                    self.con.execute(
                        "INSERT INTO schema_migrations VALUES (?, ?, now())", [version, name]
                    )
            except duckdb.IOException:
                raise  # the disk, not the schema: said as such (pipeline.exits)
            except duckdb.Error as err:
                raise LedgerError(
                    f"{self.path} cannot be migrated to schema version {version} ({name}): "
                    f"{err}. The migration rolled back: the ledger is at version {reached}, "
                    "as this migration found it. Its schema is not one this program made: restore "
                    "the ledger from a backup, or open it read-only (verify, report) with "
                    "this version meanwhile"
                ) from err
            reached = version
        return latest

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """One transaction. It commits only when every gaming day whose table-days it wrote
        had its pits judged again (:func:`pipeline.ingest.pits.judge_pits`): a table-day's rows
        without its pit's findings would be a ledger the pipeline never makes."""
        con = self.con
        con.execute("BEGIN TRANSACTION")
        self._in_transaction = True
        try:
            archived = shadowed_state(con) if self._watching_moves else None
            yield con
            if self._unjudged:
                days = ", ".join(str(d) for d in sorted(self._unjudged))
                raise LedgerError(
                    f"table-days of {days} were written and their pits not judged again; "
                    "call pipeline.ingest.pits.judge_pits(ledger) before the transaction ends"
                )
            # it closed or reopened a day
            moved = self._watching_moves and shadowed_state(con) != archived
        except BaseException:
            self._unjudged.clear()
            self._in_transaction = False
            con.execute("ROLLBACK")
            if self._memory_reset_owed:
                self._memory_reset_owed = False
                con.execute("RESET memory_limit")
            raise
        self._in_transaction = False
        con.execute("COMMIT")
        if moved:  # its views are made (move_out, move_in): the others' are not
            _archive_moves[self._key] += 1
            self._moves_seen = _archive_moves[self._key]

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Settings for a load of many files: while workers keep both cores busy, the writer
        uses one DuckDB thread, and checkpoints per 64 MB of log rather than per 16 MB: each
        checkpoint recompresses what changed, and a load changes everything (measured: a
        third of the writer's time for a 24-table day). Restored after, then a checkpoint
        when the load succeeded."""
        self.con.execute("SET threads = 1")
        self.checkpoint_per_batches()
        try:
            yield
        finally:
            self.con.execute("RESET checkpoint_threshold")
            self.con.execute("RESET threads")
        # another connection of this process may be writing (a close beside the stream's
        # batches): DuckDB then checkpoints after it
        with suppress(duckdb.TransactionException):
            self.con.execute("CHECKPOINT")

    @contextmanager
    def memory_held_to(self, limit: str) -> Iterator[None]:
        """DuckDB's memory held to ``limit`` (``"384MB"``) for a step that reads a whole day
        (the quality gate's frames, the seal's digests, the archive, the pattern stage):
        beyond it DuckDB lets go of the table blocks it read and spills what it builds to its
        temporary directory. The ledger sets no limit of its own, and DuckDB's default (80 %
        of the machine's memory) keeps every block a step reads: a 96-table close held
        500 MB of them after its archive. DuckDB's default again after the step.

        DuckDB refuses every statement, ``RESET`` too, in a transaction an error aborted: a
        step that fails so raises its own error, and the limit is reset by the transaction's
        rollback (:meth:`transaction`), not left for the rest of a long-lived process (the
        stream's writer)."""
        self.con.execute(f"SET memory_limit = '{limit}'")
        try:
            yield
        except BaseException:
            try:
                self.con.execute("RESET memory_limit")
            except duckdb.TransactionException:
                self._memory_reset_owed = True
            raise
        self.con.execute("RESET memory_limit")

    def checkpoint_per_batches(self) -> None:
        """Checkpoint per :data:`LOG_PER_CHECKPOINT` of log rather than DuckDB's 16 MB, for a
        writer of many batches (a load of files, the stream): each checkpoint recompresses
        the row groups written since the last, and a live batch's commit that crossed 16 MB
        paid for it (measured: half the stream's commit time on a 24-hour day). The setting
        holds for every connection of this process to the file."""
        self.con.execute(f"SET checkpoint_threshold = '{LOG_PER_CHECKPOINT}'")

    # ------------------------------------------------------------------ raw deliveries
    def add_deliveries(
        self,
        deliveries: Sequence[Delivery],
        gaming_day: GamingDay,
    ) -> tuple[dict[TableDay, Fingerprint], int]:
        """Store the deliveries the ledger does not hold yet; return the (table_id,
        gaming_date) pairs they touched, each with the :meth:`delivery_fingerprints` of the
        deliveries added to it (what its fingerprint grew by), and how many were new.

        Call inside :meth:`transaction` to commit them with the rows they produce.
        """
        if not deliveries:
            return {}, 0
        self.con.register("incoming_deliveries", delivery_table(deliveries, gaming_day))
        try:
            return self._insert_new_deliveries("incoming_deliveries")
        finally:
            self.con.unregister("incoming_deliveries")

    def _insert_new_deliveries(self, relation: str) -> tuple[dict[TableDay, Fingerprint], int]:
        """Insert the deliveries of ``relation`` not stored yet (by their key); return the
        table-days they touched, with the fingerprints of those added to each, and how many
        were inserted."""
        ((sources, first, last),) = self.con.execute(
            f"SELECT list(DISTINCT source), min(occurrence), max(occurrence) FROM {relation}"
        ).fetchall()
        if not sources:
            return {}, 0
        # Constant sources let zone maps skip the stored deliveries of every other source: the
        # ledger grows by a file or a partition's batch at a time. A stored delivery with an
        # incoming one's key has its occurrence (for a Kafka message, its offset), so only
        # those within the batch's are compared: the stream's day so far is not hashed again
        # for each batch. Only the open days' are compared: a delivery for a closed day was
        # held apart before it came here.
        stored = (
            f"(SELECT {DELIVERY_KEY_SQL} FROM {self.stored('deliveries')} WHERE source IN "
            f"({', '.join('?' * len(sources))}) AND occurrence BETWEEN ? AND ?)"
        )
        params = [*sources, first, last]
        new = f"{relation} i ANTI JOIN {stored} d USING ({DELIVERY_KEY_SQL})"
        added = self.con.execute(
            f"SELECT i.table_id, i.gaming_date, {_FINGERPRINT_SQL.format(prefix='i.')} "
            f"FROM {new} GROUP BY ALL",
            params,
        ).fetchall()
        inserted = self.con.execute(
            f"INSERT INTO {self.stored('deliveries')} SELECT i.* FROM {new}", params
        ).fetchone()
        return (
            {(str(t), d): (int(n), int(h)) for t, d, n, h in added},
            int(inserted[0]) if inserted else 0,
        )

    def new_deliveries_by_day(self, deliveries: pa.Table, days: set[date]) -> dict[date, int]:
        """How many of ``deliveries`` (rows of ``deliveries``, as a worker made them) the
        ledger does not hold yet, per gaming day, counting only ``days``."""
        if not days:
            return {}
        in_days = deliveries.filter(
            pc.is_in(deliveries["gaming_date"], pa.array(sorted(days), pa.date32()))
        )
        if not in_days.num_rows:
            return {}
        self.con.register("incoming_deliveries", in_days)
        try:
            # the constant days let a closed day's archived files be skipped but for those
            rows = self.con.execute(
                "SELECT i.gaming_date, count(*) FROM incoming_deliveries i ANTI JOIN "
                f"(SELECT {DELIVERY_KEY_SQL} FROM deliveries WHERE gaming_date IN "
                f"({_placeholders(sorted(days))})) d USING ({DELIVERY_KEY_SQL}) GROUP BY 1",
                sorted(days),
            ).fetchall()
        finally:
            self.con.unregister("incoming_deliveries")
        return {d: int(n) for d, n in rows}

    def closed_days(self) -> set[date]:
        """The gaming days that are sealed and take no new deliveries: those whose last seal
        event (``seal_log``, :mod:`pipeline.reports.seals`) is a CLOSE; for a day closed
        before the seal log existed, its ``gaming_days`` status. The log, not the status, is
        what counts, so a status edited to REOPENED opens nothing."""
        return {
            d
            for (d,) in self.con.execute(
                """
                SELECT gaming_date FROM seal_log
                GROUP BY gaming_date HAVING arg_max(action, seq) = 'CLOSE'
                UNION
                SELECT gaming_date FROM gaming_days
                WHERE status <> 'REOPENED'
                  AND gaming_date NOT IN (SELECT gaming_date FROM seal_log)
                """
            ).fetchall()
        }

    def tables_of_day(self, gaming_date: date) -> list[str]:
        """The tables with stored deliveries on ``gaming_date``, sorted."""
        return [
            str(t)
            for (t,) in self.con.execute(
                "SELECT DISTINCT table_id FROM deliveries WHERE gaming_date = ? ORDER BY 1",
                [gaming_date],
            ).fetchall()
        ]

    def input_files(self) -> set[tuple[str, str, int]]:
        """Every version of every input file loaded: (source, sha256, size in bytes)."""
        return {
            (str(source), str(sha256), int(size))
            for source, sha256, size in self.con.execute(
                "SELECT source, sha256, bytes FROM input_files"
            ).fetchall()
        }

    def add_dead_letters(
        self, rows: Iterable[tuple[str, int, str, str, str | None, bytes | None, date | None]]
    ) -> int:
        """Store dead letters in bulk; one already stored (same source and position) is kept."""
        rows = list(rows)
        if not rows:
            return 0
        self._insert_relation("dead_letters", dead_letter_table(rows), "ON CONFLICT DO NOTHING")
        return len(rows)

    def events_for(self, table_id: str, gaming_date: date) -> list[TableEvent]:
        """Every delivery's event of a table-day, in arrival order
        (:attr:`~pipeline.ledger.columns.Delivery.arrival`)."""
        return [d.event for d in self.deliveries_for(table_id, gaming_date)]

    def deliveries_for(self, table_id: str, gaming_date: date) -> list[Delivery]:
        """Every delivery of a table-day, in arrival order
        (:attr:`~pipeline.ledger.columns.Delivery.arrival`)."""
        rows = self.con.execute(
            "SELECT source, position, event_id, table_id, device_id, seq, occurred_at, "
            "payload_type, fields_json, occurrence FROM deliveries "
            f"WHERE table_id = ? AND gaming_date = ? ORDER BY {ARRIVAL_ORDER_SQL}",
            [table_id, gaming_date],
        ).fetchall()
        return [
            Delivery(
                r[0],
                r[1],
                TableEvent(r[2], r[3], r[4], int(r[5]), int(r[6]), r[7], _fields_from_json(r[8])),
                int(r[9]),
            )
            for r in rows
        ]

    def delivery_fingerprints(self, keys: Iterable[TableDay]) -> dict[TableDay, Fingerprint]:
        """For each table-day, a fingerprint of which deliveries it holds (how many, and a
        sum of hashes of their keys): what tells a cache of them it is out of date. Adding
        deliveries adds their fingerprint (:meth:`add_deliveries`)."""
        wanted = set(keys)
        if not wanted:
            return {}
        tables, days = sorted({t for t, _ in wanted}), sorted({d for _, d in wanted})
        # the days too: a table's deliveries of every other day would be hashed for nothing
        rows = self.con.execute(
            f"SELECT table_id, gaming_date, {_FINGERPRINT_SQL.format(prefix='')} "
            f"FROM deliveries WHERE table_id IN ({_placeholders(tables)}) "
            f"AND gaming_date IN ({_placeholders(days)}) GROUP BY ALL",
            [*tables, *days],
        ).fetchall()
        found = {(str(t), d): (int(n), int(h)) for t, d, n, h in rows}
        return {key: found.get(key, (0, 0)) for key in wanted}

    def realign_boundary_sessions(
        self, tables: Iterable[str], gaming_day: GamingDay, tolerance: timedelta
    ) -> set[TableDay]:
        """Give a table's events stamped just after a gaming-day boundary to the day whose
        session they end; return the table-days whose deliveries changed.

        Events are assigned to gaming days by their time. A round dealt across the boundary,
        or a device clock running a little fast, would otherwise split the last round (and the
        table's closing) over two days, each then reporting half a round. So an event stamped
        less than ``tolerance`` after a boundary belongs to the earlier day when the table was
        open at the boundary and the event comes before the table's next ``TableOpened``.
        Depends only on the stored deliveries, so it is idempotent and order-insensitive.
        A closed day's deliveries are sealed: no event is moved into or out of a closed day
        (such an event stays where its time puts it, and the next day's replay reports the
        fragment it makes).

        An event stamped outside :data:`~pipeline.events.model.PLAUSIBLE_TIMES` (a broken
        clock) goes to the table-day of its device's events around it (:meth:`_date_by_seq`),
        whose replay withholds it with a finding; it never makes a gaming day of its own.
        """
        wanted = sorted(set(tables))
        if not wanted:
            return set()
        changed = self._date_by_seq(wanted)
        window = tolerance // timedelta(microseconds=1)
        placeholders = ", ".join("?" * len(wanted))
        # a closed day's deliveries never move: only the open days' (in the file) are read
        deliveries = self.stored("deliveries")
        # fetchall, not fetchone: a result left open refuses the next register() on the
        # connection (a stream batch's rows, when no statement runs between)
        ((low, high),) = self.con.execute(
            f"SELECT min(occurred_at), max(occurred_at) FROM {deliveries} "
            f"WHERE table_id IN ({placeholders}) AND occurred_at >= ? AND occurred_at < ?",
            [*wanted, *PLAUSIBLE_TIMES],
        ).fetchall()
        if low is None:
            return changed
        # Day starts are local times: days across a daylight-saving change last 23 or 25
        # hours, so the boundaries are listed, not computed as multiples of 24 hours.
        # A boundary next to a closed day moves nothing (a closed day's deliveries are
        # sealed), so only the open days' boundaries are searched: the work is bounded by
        # the open days, not by the days stored.
        closed = self.closed_days()
        boundaries = [
            b
            for b in gaming_day.boundaries_micros(int(low) - window, int(high))
            if not closed & {gaming_day.date_of(b - 1), gaming_day.date_of(b)}
        ]
        if not boundaries:
            return changed
        rows = self.con.execute(
            f"""
            SELECT d.table_id, d.gaming_date, d.occurred_at, d.payload_type,
                   b.boundary, {", ".join(f"d.{c}" for c in DELIVERY_KEY_SQL.split(", "))}
            FROM {deliveries} d
            JOIN unnest(?::BIGINT[]) AS b(boundary)
              ON d.occurred_at >= b.boundary AND d.occurred_at < b.boundary + ?
            WHERE d.table_id IN ({placeholders})
            ORDER BY d.table_id, d.occurred_at, {
                ", ".join(f"d.{c}" for c in ARRIVAL_ORDER_SQL.split(", "))
            }
            """,
            [boundaries, window, *wanted],
        ).fetchall()
        windows: dict[tuple[str, int], list[tuple[Any, ...]]] = {}
        for row in rows:
            windows.setdefault((row[0], row[4]), []).append(row)
        moves: list[tuple[date, *tuple[Any, ...]]] = []
        for (table_id, boundary), events in windows.items():
            open_at_boundary = self._open_at(table_id, boundary)
            reopened = next((e[2] for e in events if e[3] == "TableOpened"), None)
            later_day = gaming_day.date_of(boundary)
            earlier_day = gaming_day.date_of(boundary - 1)
            for _, stored, occurred_at, _, _, *key in events:
                keeps_session = open_at_boundary and (reopened is None or occurred_at < reopened)
                assigned = earlier_day if keeps_session else later_day
                if assigned != stored and not closed & {assigned, stored}:
                    moves.append((assigned, *key))
                    changed |= {(table_id, stored), (table_id, assigned)}
        if moves:
            self.con.executemany(
                f"UPDATE {self.stored('deliveries')} SET gaming_date = ? WHERE source = ? "
                "AND event_id = ? AND seq = ? AND occurrence = ?",
                moves,
            )
        return changed

    def _date_by_seq(self, tables: Sequence[str]) -> set[TableDay]:
        """Give each delivery of ``tables`` stamped outside
        :data:`~pipeline.events.model.PLAUSIBLE_TIMES` the gaming date of its device's
        nearest plausible event by seq (the one before it, else the one after), else of the
        nearest plausible event of its input at the table; return the table-days whose
        deliveries changed. Its time says nothing about its day (9999-12-31 is no gaming day
        anybody will close); its place in the device's sequence does. Nothing moves into or
        out of a closed day, so only the open days' deliveries (those in the ledger file) are
        read, neighbours included: the work does not grow with the days stored."""
        low, high = PLAUSIBLE_TIMES
        plausible = "p.occurred_at >= ? AND p.occurred_at < ?"
        deliveries = self.stored("deliveries")
        in_tables = f"table_id IN ({_placeholders(tables)})"
        # The search of neighbours reads every delivery of the tables (its subqueries are
        # joined for all of them): asked first whether any is out of range, zone maps on the
        # time answer without reading the day, and a day without a broken clock pays no more.
        if not self.con.execute(
            f"SELECT 1 FROM {deliveries} WHERE {in_tables} "
            "AND (occurred_at < ? OR occurred_at >= ?) LIMIT 1",
            [*tables, low, high],
        ).fetchall():
            return set()
        rows = self.con.execute(
            f"""
            SELECT d.table_id, d.gaming_date, coalesce(
                (SELECT arg_max(p.gaming_date, p.seq) FROM {deliveries} p
                 WHERE p.table_id = d.table_id AND p.device_id = d.device_id
                   AND p.seq < d.seq AND {plausible}),
                (SELECT arg_min(p.gaming_date, p.seq) FROM {deliveries} p
                 WHERE p.table_id = d.table_id AND p.device_id = d.device_id
                   AND p.seq > d.seq AND {plausible}),
                (SELECT arg_min(p.gaming_date, abs(p.position - d.position)) FROM {deliveries} p
                 WHERE p.table_id = d.table_id AND p.source = d.source AND {plausible})
              ), d.source, d.event_id, d.seq, d.occurrence
            FROM {deliveries} d
            WHERE d.{in_tables} AND (d.occurred_at < ? OR d.occurred_at >= ?)
            """,
            [low, high, low, high, low, high, *tables, low, high],
        ).fetchall()
        closed = self.closed_days()
        moves = [
            (assigned, *key)
            for _, stored, assigned, *key in rows
            if assigned is not None and assigned != stored and not closed & {assigned, stored}
        ]
        if moves:
            self.con.executemany(
                f"UPDATE {self.stored('deliveries')} SET gaming_date = ? WHERE source = ? "
                "AND event_id = ? AND seq = ? AND occurrence = ?",
                moves,
            )
        return {
            (str(table_id), day)
            for table_id, stored, assigned, *_ in rows
            if assigned is not None and assigned != stored and not closed & {assigned, stored}
            for day in (stored, assigned)
        }

    def _open_at(self, table_id: str, instant: int) -> bool:
        """Whether the table's last opening or closing stamped before ``instant`` opened it."""
        row = self.con.execute(
            "SELECT payload_type FROM deliveries WHERE table_id = ? AND occurred_at < ? "
            "AND payload_type IN ('TableOpened', 'TableClosed') "
            "ORDER BY occurred_at DESC, source DESC, position DESC LIMIT 1",
            [table_id, instant],
        ).fetchall()  # not fetchone: see realign_boundary_sessions
        return bool(row and row[0][0] == "TableOpened")

    def table_days_present(self, keys: Iterable[tuple[str, date]]) -> set[tuple[str, date]]:
        """Which of these (table_id, gaming_date) pairs already have deliveries."""
        return {key for key, (count, _) in self.delivery_fingerprints(keys).items() if count}

    def table_days(self) -> list[tuple[str, date]]:
        return [
            (str(t), d)
            for t, d in self.con.execute(
                "SELECT DISTINCT table_id, gaming_date FROM deliveries ORDER BY 2, 1"
            ).fetchall()
        ]

    # ------------------------------------------------------------------ derived rows
    def replace_table_day(self, table_id: str, gaming_date: date, result: ReplayResult) -> None:
        """Replace every derived row of one table-day. Call inside :meth:`transaction`."""
        key = (table_id, gaming_date)
        self._write_derived([key], derived_tables(table_id, gaming_date, result))

    def take_card_changes(self) -> CardChanges:
        """Where this connection wrote card rows since it was last asked (a rolled-back
        transaction's writes included). A reader that keeps cards it read across
        transactions (the stream's slug search:
        :class:`~pipeline.patterns.stage.KnownShoes`) reads these shoes and table-days again
        to stay the same as the ledger; the writer holds the file, so no other process
        writes it meanwhile."""
        changes, self._card_changes = self._card_changes, CardChanges(set(), set())
        return changes

    def update_table_days(self, updates: Sequence[TableDayUpdate]) -> set[TableDay]:
        """Bring table-days' rows to their results when the ledger holds the rows of an
        earlier result of the same live replay (:mod:`pipeline.ingest.live`): in each table
        of :data:`~pipeline.replay.rows.APPENDED_ROWS`, delete the ``withdrawn`` rows and
        insert the ``added`` ones; add their change to each wager's win
        (:meth:`_add_win_changes`); in the tables of :data:`_DIFFED`, delete the rows of
        ``written`` that ``result`` lacks and insert those it adds; replace the summary. Each
        ledger table takes one statement for all the table-days: a statement's fixed cost,
        paid per table-day, was most of a live batch's time. Call inside
        :meth:`transaction`.

        Returns the table-days whose rows to delete were not in the ledger exactly once:
        some of their rows may be deleted by then and nothing was added; the caller must
        :meth:`replace_table_day` them (which deletes them all).
        """
        self._card_changes.shoes.update(
            (*u.key, card.shoe_id)
            for u in updates
            for rows in (u.added, u.withdrawn)
            for card in rows.get("cards", ())
        )
        removed: dict[str, list[Row]] = {}
        added: dict[str, dict[TableDay, list[Row]]] = {}
        for table in APPENDED_ROWS:
            rows_of = DERIVED_ROWS[table]
            removed[table] = [
                row for u in updates for row in rows_of(*u.key, _rows_only(u.key[0], u.withdrawn))
            ]
            added[table] = {u.key: rows_of(*u.key, _rows_only(u.key[0], u.added)) for u in updates}
        for table in _DIFFED:
            rows_of, added[table] = DERIVED_ROWS[table], {}
            removed[table] = []
            for u in updates:
                gone, came = _row_changes(rows_of(*u.key, u.written), rows_of(*u.key, u.result))
                removed[table] += gone
                added[table][u.key] = came
        refused: set[TableDay] = set()
        for table, rows in removed.items():
            if rows:
                refused |= self._delete_exactly(table, rows)
        done = [u for u in updates if u.key not in refused]
        if not done:
            return refused
        for table, rows_by_day in added.items():
            new = [row for u in done for row in rows_by_day[u.key]]
            if new:
                self._insert_relation(table, arrow_rows(new))
        recount = self._add_win_changes(done)
        written = (*APPENDED_ROWS, *_DIFFED)
        for keep, group in (
            ((*written, "table_day_win"), [u for u in done if u.key not in recount]),
            (written, [u for u in done if u.key in recount]),
        ):
            if group:
                rebuilt = {
                    table: arrow_rows(rows)
                    for table, rows_of in DERIVED_ROWS.items()
                    if table not in written
                    and (rows := [row for u in group for row in rows_of(*u.key, u.result)])
                }
                self._write_derived([u.key for u in group], rebuilt, keep=keep)
        return refused

    def _delete_exactly(self, table: str, rows: Sequence[Row]) -> set[TableDay]:
        """Delete ``rows`` (every column equal, NULLs included) from ``table``; return the
        table-days where what was deleted is not exactly their ``rows``, each once."""
        columns = self._columns(table)
        same = " AND ".join(f"t.{c} IS NOT DISTINCT FROM w.c{i}" for i, c in enumerate(columns))
        table_at, day_at = columns.index("table_id"), columns.index("gaming_date")
        tables, days = (
            sorted({row[table_at] for row in rows}),
            sorted({row[day_at] for row in rows}),
        )
        # the constant lists let zone maps skip the row groups of other table-days, and the
        # rounds' spare the join the day's other rows (a day's rows grow, a batch's do not)
        where = [
            f"t.table_id IN ({_placeholders(tables)})",
            f"t.gaming_date IN ({_placeholders(days)})",
        ]
        params: list[Any] = [*tables, *days]
        if "round_id" in columns:
            at = columns.index("round_id")
            rounds = sorted({row[at] for row in rows if row[at] is not None})
            either = [f"t.round_id IN ({_placeholders(rounds)})"] if rounds else []
            if any(row[at] is None for row in rows):
                either.append("t.round_id IS NULL")
            where.append(f"({' OR '.join(either)})")
            params += rounds
        self.con.register("withdrawn_rows", arrow_rows(rows))
        try:
            deleted = self.con.execute(
                f"DELETE FROM {self.stored(table)} t USING withdrawn_rows w "
                f"WHERE {' AND '.join(where)} AND {same} RETURNING t.*",
                params,
            ).fetchall()
        finally:
            self.con.unregister("withdrawn_rows")
        wanted, found = Counter(map(_hashable, rows)), Counter(map(_hashable, deleted))
        return {(row[table_at], row[day_at]) for row in (wanted - found) + (found - wanted)}

    def _refuse_closed(self, days: Iterable[date]) -> None:
        """:class:`LedgerError` when any of ``days`` is closed: its rows are sealed (and read
        from the archive); a table-day of it is written again only once it is reopened."""
        closed = sorted(self.closed_days() & set(days))
        if closed:
            day = closed[0]
            raise LedgerError(
                f"gaming day {day} is closed: its rows are sealed, so no table-day of it is "
                f"replayed; reopen it with a reason first: baccarat-audit reopen --gaming-day "
                f"{day} --reason '...'"
            )

    def _columns(self, table: str) -> tuple[str, ...]:
        """The columns of ``table``, in order (read once per connection)."""
        if table not in self._column_names:
            columns = stored_columns_of(self.con, table)
            self._column_names[table] = tuple(name for name, _ in columns)
        return self._column_names[table]

    def _write_derived(
        self,
        days: Sequence[TableDay],
        tables: Mapping[str, pa.Table],
        keep: Sequence[str] = (),
    ) -> None:
        """Replace these table-days' rows of every derived table but those in ``keep`` with
        ``tables`` (the pattern stage's exceptions stay: they are the gaming day's, replaced by
        :meth:`replace_pattern_findings`), recount their win from their settlements
        (unless ``keep`` holds ``table_day_win``), and note their
        gaming days as :meth:`unjudged_days` (their pits are judged again by
        :func:`pipeline.ingest.pits.judge_pits`)."""
        table_ids, dates = sorted({t for t, _ in days}), sorted({d for _, d in days})
        self._refuse_closed(dates)
        if "cards" not in keep:
            self._card_changes.table_days.update(days)
        # the constant lists let zone maps skip other table-days; the join keeps the pairs
        prune = (
            f"t.table_id IN ({_placeholders(table_ids)}) "
            f"AND t.gaming_date IN ({_placeholders(dates)})"
        )
        self.con.register(
            "written_days",
            pa.table(
                {
                    "table_id": pa.array([t for t, _ in days], pa.string()),
                    "gaming_date": pa.array([d for _, d in days], pa.date32()),
                }
            ),
        )
        try:
            for table in DERIVED_TABLES:
                if table not in keep:
                    patterns = table == "exceptions"
                    self.con.execute(
                        f"DELETE FROM {self.stored(table)} t USING written_days k WHERE {prune} "
                        "AND t.table_id = k.table_id AND t.gaming_date = k.gaming_date"
                        + (f" AND NOT {_PATTERN_CODE}" if patterns else ""),
                        [*table_ids, *dates, *([sorted(PATTERN_CODES)] if patterns else [])],
                    )
            for table, rows in tables.items():
                self._insert_relation(table, rows)
            self._note_redeliveries(days)
            if "table_day_win" not in keep:
                self.con.execute(
                    f"""
                    INSERT INTO {self.stored("table_day_win")}
                    SELECT t.table_id, t.gaming_date, t.wager, {_WIN_SUMS.format(sign="")}
                    FROM {self.stored("settlements")} t SEMI JOIN written_days k
                      ON t.table_id = k.table_id AND t.gaming_date = k.gaming_date
                    WHERE {prune}
                    GROUP BY ALL""",
                    [*table_ids, *dates],
                )
        finally:
            self.con.unregister("written_days")
        self._unjudged.update(dates)

    def _add_win_changes(self, updates: Sequence[TableDayUpdate]) -> set[TableDay]:
        """Add to the table-days' ``table_day_win`` what their added settlements win and take
        away what their withdrawn ones won, one statement for all of them, where that change
        alone decides the sums: every changed settlement's recorded win is known (a sum of no
        known wins is NULL, not 0, so a WIN without its recorded payment can leave it either)
        and no wager loses more settlements than it gains (its row might have to go).
        Returns the table-days it could not decide, whose win :meth:`_write_derived` counts
        again from all their settlements. Summing only the change keeps a live batch's cost
        to its own size: counting a table-day's win again from all its settlements made
        every batch cost the day so far."""
        changed: list[Row] = []
        undecided: set[TableDay] = set()
        for update in updates:
            signed = ((1, update.added), (-1, update.withdrawn))
            settled = {sign: lists.get("settlements", ()) for sign, lists in signed}
            balance = Counter(s.wager for s in settled[1])
            balance.subtract(s.wager for s in settled[-1])
            unknown_win = any(
                s.recorded_result == "WIN" and s.recorded_paid_cents is None
                for rows in settled.values()
                for s in rows
            )
            if unknown_win or min(balance.values(), default=0) < 0:
                undecided.add(update.key)
                continue
            for sign, rows in settled.items():
                as_rows = _rows_only(update.key[0], {"settlements": rows})
                changed += [
                    (*row, sign) for row in DERIVED_ROWS["settlements"](*update.key, as_rows)
                ]
        if not changed:
            return undecided
        self.con.register(
            "settlement_changes",
            pa.Table.from_arrays(
                arrow_rows(changed).columns, names=[*self._columns("settlements"), "sign"]
            ),
        )
        try:
            # a NULL recorded win had no known win among its settlements: the change's are
            self.con.execute(
                f"""
                INSERT INTO {self.stored("table_day_win")}
                SELECT t.table_id, t.gaming_date, t.wager, {_WIN_SUMS.format(sign=" * t.sign")}
                FROM settlement_changes t GROUP BY ALL
                ON CONFLICT (table_id, gaming_date, wager) DO UPDATE SET
                  expected_win_cents = expected_win_cents + excluded.expected_win_cents,
                  recorded_win_cents =
                    coalesce(recorded_win_cents, 0) + excluded.recorded_win_cents"""
            )
        finally:
            self.con.unregister("settlement_changes")
        return undecided

    def unjudged_days(self) -> set[date]:
        """The gaming days whose table-days were written (or whose exceptions changed) since
        their pits were last judged: :func:`pipeline.ingest.pits.judge_pits` judges them
        before the transaction commits."""
        return set(self._unjudged)

    def practice_rows(self, day: date) -> list[tuple[Any, ...]]:
        """Every table-day's practice of gaming day ``day`` (rows of ``table_practices``:
        table_id, pit, game, subject, practice, breaks, shoe_id, round_id, detail,
        source_event_ids), by table."""
        return self.con.execute(
            "SELECT table_id, pit, game, subject, practice, breaks, shoe_id, round_id, "
            "detail, source_event_ids FROM table_practices WHERE gaming_date = ? "
            "ORDER BY table_id",
            [day],
        ).fetchall()

    def replace_pit_findings(
        self, day: date, codes: Iterable[str], findings: Sequence[Finding]
    ) -> None:
        """Replace ``day``'s findings under ``codes`` (the rules that bind a pit's tables)
        with ``findings``, judged from every table-day's practice rows now, and recount each
        of the day's table-day summaries: it counts the exceptions the ledger holds for the
        table-day, its pit's included. The day's pits are judged (no longer in
        :meth:`unjudged_days`). Call inside :meth:`transaction`."""
        self.con.execute(
            f"DELETE FROM {self.stored('exceptions')} WHERE gaming_date = ? "
            "AND list_contains(?::VARCHAR[], code)",
            [day, sorted(codes)],
        )
        found = exception_rows(findings, day)
        if found:
            self._insert_relation("exceptions", arrow_rows(found))
        # each table-day's count of exceptions (the close report's column) includes its pit's
        self._recount_exceptions(day)
        self._unjudged.discard(day)

    def _recount_exceptions(self, day: date) -> None:
        """Set each table-day summary of ``day`` to the count of the exceptions the ledger
        holds for its table-day (the replay's, its pit's and the pattern stage's)."""
        self.con.execute(
            f"""
            UPDATE {self.stored("table_day_summary")} s SET exceptions = (
              SELECT count(*) FROM {self.stored("exceptions")} e
              WHERE e.table_id = s.table_id AND e.gaming_date = s.gaming_date)
            WHERE s.gaming_date = ?""",
            [day],
        )

    def replace_pattern_findings(self, gaming_date: date, findings: Sequence[Finding]) -> None:
        """Replace the pattern stage's exceptions of ``gaming_date`` with ``findings``, every
        table's at once; the replay's exceptions stay, and each table-day summary counts
        them all. Call inside :meth:`transaction`."""
        strays = sorted({f.code for f in findings} - PATTERN_CODES)
        if strays:
            raise ValueError(
                f"{strays}: not pattern codes (pipeline.rules.codes.PATTERN_CODES); a replay "
                "finding belongs to its table-day's replay"
            )
        self.con.execute(
            f"DELETE FROM {self.stored('exceptions')} WHERE gaming_date = ? AND {_PATTERN_CODE}",
            [gaming_date, sorted(PATTERN_CODES)],
        )
        self._add_pattern_findings(gaming_date, findings)

    def replace_shoe_findings(
        self,
        gaming_date: date,
        shoes: Sequence[tuple[str, str]],
        codes: Iterable[str],
        findings: Sequence[Finding],
    ) -> None:
        """Replace the exceptions with ``codes`` (pattern codes) of these ``(table_id,
        shoe_id)`` shoes of ``gaming_date`` with ``findings`` (each of one of those shoes):
        the search of shoes as they end, which leaves the day's other pattern exceptions as
        they are. Call inside :meth:`transaction`."""
        wanted = sorted(set(codes))
        strays = sorted(set(wanted) - PATTERN_CODES)
        if strays:
            raise ValueError(f"{strays}: not pattern codes (pipeline.rules.codes.PATTERN_CODES)")
        outside = sorted(
            {f.finding_id for f in findings if (f.table_id, f.shoe_id) not in set(shoes)}
            | {f.finding_id for f in findings if f.code not in wanted}
        )
        if outside:
            raise ValueError(f"findings {outside} are not of the shoes and codes replaced")
        if not shoes:
            return
        replaced = sorted(set(shoes))
        self.con.execute(
            f"DELETE FROM {self.stored('exceptions')} e WHERE gaming_date = $day "
            "AND list_contains($codes::VARCHAR[], code) AND EXISTS (SELECT 1 FROM (SELECT "
            "unnest($tables::VARCHAR[]) AS t, unnest($shoes::VARCHAR[]) AS s) "
            "WHERE t = e.table_id AND s = e.shoe_id)",
            {
                "day": gaming_date,
                "codes": wanted,
                "tables": [t for t, _ in replaced],
                "shoes": [s for _, s in replaced],
            },
        )
        self._add_pattern_findings(gaming_date, findings)

    def _add_pattern_findings(self, gaming_date: date, findings: Sequence[Finding]) -> None:
        """Insert pattern findings of ``gaming_date`` (their rows just deleted) and recount the
        day's exceptions unless it is sealed."""
        if findings:
            # a finding found twice (two analysers, or one slug through two windows) is one row
            unique = {f.finding_id: f for f in findings}
            self._insert_relation(
                "exceptions", arrow_rows([exception_row(f, gaming_date) for f in unique.values()])
            )
        if gaming_date not in self.closed_days():  # a sealed day keeps the counts it sealed
            self._recount_exceptions(gaming_date)

    def pattern_run_inputs(self, gaming_date: date) -> str | None:
        """What the pattern stage last searched ``gaming_date`` over (the digest it recorded
        with :meth:`record_pattern_run`); None: it never ran for the day."""
        row = self.con.execute(
            "SELECT inputs_sha256 FROM pattern_runs WHERE gaming_date = ?", [gaming_date]
        ).fetchone()
        return None if row is None else str(row[0])

    def record_pattern_run(self, gaming_date: date, inputs_sha256: str) -> None:
        """Note that the pattern stage searched ``gaming_date`` over ``inputs_sha256``."""
        self.con.execute(
            "INSERT OR REPLACE INTO pattern_runs VALUES (?, ?, ?)",
            [gaming_date, inputs_sha256, datetime.now(UTC).replace(tzinfo=None)],
        )

    def _insert_relation(self, table: str, rows: pa.Table, tail: str = "") -> None:
        self.con.register("incoming_rows", rows)
        try:
            self.con.execute(f"INSERT INTO {self.stored(table)} SELECT * FROM incoming_rows {tail}")
        finally:
            self.con.unregister("incoming_rows")

    # ------------------------------------------------------------------ batches and shards
    def _redelivery_of(self, batch: LedgerBatch) -> str | None:
        """The input file already loaded under another name that ``batch``'s one input file
        repeats byte for byte (so event for event), if any."""
        if batch.input_files.num_rows != 1:
            return None
        source = batch.input_files["source"][0].as_py()
        sha256 = batch.input_files["sha256"][0].as_py()
        ((original,),) = self.con.execute(
            "SELECT min(f.source) FROM input_files f WHERE f.sha256 = ? AND f.source <> ? "
            "AND EXISTS (SELECT 1 FROM deliveries d WHERE d.source = f.source)",
            [sha256, source],
        ).fetchall()
        return None if original is None else str(original)

    def _note_redeliveries(self, days: Iterable[TableDay]) -> set[TableDay]:
        """Record, as one NJ-DATA-DUPLICATE exception per table-day and file, every input file
        loaded as the repeat of another (:meth:`merge_batch`) among ``days``; return the
        table-days that have one. The deliveries hold no row of a repeat (it added nothing),
        so a table-day's replay cannot find it again: the ledger adds it after each."""
        wanted = set(days)
        if (
            not wanted
            or not self.con.execute(
                "SELECT 1 FROM input_files GROUP BY sha256 HAVING count(*) > 1 LIMIT 1"
            ).fetchall()
        ):
            return set()
        rows = self.con.execute(
            """
            SELECT d.table_id, d.gaming_date, c.source, o.source, o.sha256, count(*),
                   min(d.event_id)
            FROM input_files c
            JOIN input_files o ON o.sha256 = c.sha256 AND o.source <> c.source
            JOIN deliveries d ON d.source = o.source
            WHERE NOT EXISTS (SELECT 1 FROM deliveries x WHERE x.source = c.source)
            GROUP BY ALL ORDER BY ALL
            """
        ).fetchall()
        found = [
            (str(t), day, redelivered_file(str(t), *rest))
            for t, day, *rest in rows
            if (str(t), day) in wanted
        ]
        if found:
            self._insert_relation(
                "exceptions",
                arrow_rows([exception_row(f, day) for _, day, f in found]),
                "ON CONFLICT DO NOTHING",
            )
        return {(t, day) for t, day, _ in found}

    def merge_batch(self, batch: LedgerBatch) -> Merged:
        """Merge rows made outside the ledger (by a worker process, or read from a shard
        file). Call inside :meth:`transaction`.

        The stale table-days of the result are those whose derived rows the batch cannot
        supply: the ledger held deliveries for them before this batch (so the batch saw only
        part of the day), or the batch carries no rows for them. The caller re-derives them
        from all deliveries; the batch's rows for the others are final.

        A batch of an input file that decoded without damage resolves the dead letters that
        earlier versions of the same file left (a repaired file re-delivered).

        An input file that repeats, byte for byte, one loaded before under another name (the
        same file delivered again) adds no deliveries: it is recorded as loaded, with one
        NJ-DATA-DUPLICATE exception per table-day naming both files, and no table-day is
        stale.
        """
        original = self._redelivery_of(batch)
        if original is not None:
            self._insert_relation("input_files", batch.input_files, "ON CONFLICT DO NOTHING")
            days = {
                (str(t), d)
                for t, d in self.con.execute(
                    "SELECT DISTINCT table_id, gaming_date FROM deliveries WHERE source = ?",
                    [original],
                ).fetchall()
            }
            noted = self._note_redeliveries(days)
            # their pits are judged again, which recounts each table-day's exceptions
            self._unjudged.update(d for _, d in noted)
            return Merged(noted, set(), 0, 0)
        self.con.register("incoming_deliveries", batch.deliveries)
        try:
            keys = {
                (str(t), d)
                for t, d in self.con.execute(
                    "SELECT DISTINCT table_id, gaming_date FROM incoming_deliveries"
                ).fetchall()
            }
            before = self.table_days_present(keys)
            added, new = self._insert_new_deliveries("incoming_deliveries")
            touched = set(added)
            if 0 < new < batch.deliveries.num_rows:
                self._follow_new_positions("incoming_deliveries", touched)
        finally:
            self.con.unregister("incoming_deliveries")
        resolved = 0
        if batch.dead_letters.num_rows:
            self._insert_relation("dead_letters", batch.dead_letters, "ON CONFLICT DO NOTHING")
        else:
            for source, sha256 in zip(
                batch.input_files["source"].to_pylist(),
                batch.input_files["sha256"].to_pylist(),
                strict=True,
            ):
                resolved += self._resolve_dead_letters(source, sha256)
        if batch.input_files.num_rows:
            self._insert_relation("input_files", batch.input_files, "ON CONFLICT DO NOTHING")
        final = (touched - before) & batch.derived.keys()
        for key in sorted(final):
            self._write_derived([key], batch.derived[key])
        return Merged(touched, touched - final, new, resolved)

    def _follow_new_positions(self, relation: str, days: set[TableDay]) -> None:
        """Give the deliveries of ``relation`` already stored the positions ``relation``
        holds them at, in the table-days it added to (those replayed again now).

        A damaged version of a file numbers the events after the damage as best it can
        (when the damage hid how many events it held, they move up); the sound version
        delivered later holds them where a clean load would. Arrival order decides which of
        two copies of an event counts and which deliveries are out of order, so a table-day
        the repair completes must replay in the sound file's order."""
        self.con.register(
            "following_days",
            pa.table(
                {
                    "table_id": pa.array([t for t, _ in days], pa.string()),
                    "gaming_date": pa.array([d for _, d in days], pa.date32()),
                }
            ),
        )
        try:
            self.con.execute(
                f"""
                UPDATE {self.stored("deliveries")} d SET position = i.position
                FROM {relation} i, following_days f
                WHERE d.source = i.source AND d.event_id = i.event_id AND d.seq = i.seq
                  AND d.occurrence = i.occurrence AND d.position <> i.position
                  AND d.table_id = f.table_id AND d.gaming_date = f.gaming_date"""
            )
        finally:
            self.con.unregister("following_days")

    def _resolve_dead_letters(self, source: str, sha256: str) -> int:
        """Mark the open dead letters of ``source`` resolved by its version ``sha256``, which
        decoded whole: every event the damaged version lost is in this one."""
        row = self.con.execute(
            f"UPDATE {self.stored('dead_letters')} SET resolved_at = ?, resolved_by = ? "
            "WHERE source = ? AND resolved_at IS NULL",
            [datetime.now(UTC).replace(tzinfo=None), sha256, source],
        ).fetchone()
        return int(row[0]) if row else 0

    def merge_shard(self, shard: Path) -> Merged:
        """Merge a shard ledger file written by a worker (same schema, its own deliveries
        and the rows it derived from them), like :meth:`merge_batch`."""
        self.con.execute(f"ATTACH {sql_literal(str(shard))} AS shard (READ_ONLY)")
        try:
            batch = self._read_shard()
        finally:
            self.con.execute("DETACH shard")
        merged = self.merge_batch(batch)
        # Events held while their day was closed, now delivered: their dead letters are
        # resolved, unless a closed day's seal holds them (they stay as that day sealed them).
        self.con.execute(
            f"""
            UPDATE {self.stored("dead_letters")} SET resolved_at = now()::TIMESTAMP, resolved_by = ?
            WHERE reason = ? AND resolved_at IS NULL
              AND (received_on IS NULL OR NOT list_contains(?::DATE[], received_on))
              AND (source, position) IN (SELECT source, position FROM deliveries)
            """,
            [f"merge of {shard.name}", CLOSED_GAMING_DAY, sorted(self.closed_days())],
        )
        return merged

    def _read_shard(self) -> LedgerBatch:
        """The attached shard's rows as a batch. Its deliveries for a gaming day the ledger
        has closed, and does not hold yet, are held apart as ``CLOSED_GAMING_DAY`` dead
        letters (the event as JSON for bytes): a closed day's sealed rows must not change,
        and nothing may be lost. After the day is reopened, the next merge adds them."""

        def read(sql: str, params: Sequence[Any] = ()) -> pa.Table:
            return self.con.sql(sql, params=list(params)).to_arrow_table()

        closed = [sorted(self.closed_days())]
        open_days = "NOT list_contains(?::DATE[], gaming_date)"
        days = self.con.execute(
            f"SELECT DISTINCT table_id, gaming_date FROM shard.deliveries WHERE {open_days}",
            closed,
        ).fetchall()
        held = read(
            """
            SELECT s.source, s.position, ? AS reason,
                   format('event {} (table {}, device {}, seq {}) belongs to gaming day {}, '
                          'which is closed; reopen the day and merge the shards again to add '
                          'it', s.event_id, s.table_id, s.device_id, s.seq, s.gaming_date)
                       AS detail,
                   s.device_id, encode(s.fields_json) AS raw_bytes, NULL::DATE AS received_on,
                   NULL::TIMESTAMP AS resolved_at, NULL::VARCHAR AS resolved_by
            FROM shard.deliveries s
            ANTI JOIN deliveries d USING (source, event_id, seq, occurrence)
            WHERE list_contains(?::DATE[], s.gaming_date)
            """,
            [CLOSED_GAMING_DAY, *closed],
        )
        dead = read("SELECT * FROM shard.dead_letters")
        return LedgerBatch(
            deliveries=read(f"SELECT * FROM shard.deliveries WHERE {open_days}", closed),
            dead_letters=pa.concat_tables([dead, held.cast(dead.schema)]),
            input_files=read("SELECT * FROM shard.input_files"),
            derived={
                (str(t), d): {
                    table: read(
                        f"SELECT * FROM shard.{table} WHERE table_id = ? AND gaming_date = ?",
                        [t, d],
                    )
                    for table in REPLAYED_TABLES
                }
                for t, d in days
            },
        )

    # ------------------------------------------------------------------ Kafka offsets
    def stored_offsets(self, group: str, topic: str) -> dict[int, int]:
        return {
            int(p): int(o)
            for p, o in self.con.execute(
                "SELECT partition, next_offset FROM consumer_offsets WHERE consumer_group = ? AND "
                "topic = ?",
                [group, topic],
            ).fetchall()
        }

    def store_offsets(self, group: str, topic: str, offsets: dict[int, int]) -> None:
        """Call inside the transaction that wrote the rows these offsets produced."""
        for partition, next_offset in offsets.items():
            self.con.execute(
                "INSERT INTO consumer_offsets VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                "next_offset = excluded.next_offset",
                [group, topic, partition, next_offset],
            )
