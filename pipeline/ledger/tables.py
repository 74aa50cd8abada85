"""Every ledger table declared once: its columns with their types in order, its key, what
selects a gaming day's rows, and its kind. The lists the rest of the pipeline works from
(what a close seals, what a replay replaces, what a bundle carries, what a row is built as)
are derived from :data:`TABLES`; nothing else lists tables.

The migrations (:mod:`pipeline.ledger.migrations`) stay as the schema's history: a database
migrated from empty has exactly these tables, columns, types and keys
(:func:`schema_differences`; ``tests/ledger/test_table_declarations.py`` holds the
migrations to it). A migration that adds or changes a table changes its declaration here.

Invariants (:func:`declaration_errors` lists every one broken):
1. Table names are unique, and so are the column names of a table.
2. A key, the volatile columns and a day selector's columns name declared columns.
3. A table has a day selector unless it is working storage (it has no rows of a day).
4. A table not sealed says why not; a sealed one does not.
5. Volatile columns belong to sealed tables; an aggregate is derived, from a derived table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb


class Kind(Enum):
    """What a table's rows are, and so what a close, a replay and ``verify`` do with them."""

    SEALED = "sealed"
    """Rows of a gaming day that feed a figure or a decision: the close digests each row,
    ``verify`` recomputes the digests and names any edit, insertion or deletion since."""
    DERIVED = "derived"
    """Sealed, and replaced as a whole for a (table_id, gaming_date) when that table-day is
    replayed."""
    SEAL_RECORD = "seal record"
    """The seal itself, checked otherwise: the log by its signed links, the anchor file and
    the witnesses' checkpoints; the per-row digests and each day's status row against the
    log's entries."""
    WORKING = "working"
    """No rows of a gaming day: the ledger's own bookkeeping and the live feed's."""

    @property
    def sealed(self) -> bool:
        """Whether the close digests the table's rows of the day."""
        return self in (Kind.SEALED, Kind.DERIVED)


@dataclass(frozen=True, slots=True)
class Column:
    """A column as DuckDB reports it: its name, its type (``VARCHAR[]``, ``BIGINT``...) and
    whether it refuses NULL (a key's columns do)."""

    name: str
    type: str
    not_null: bool = False

    def __str__(self) -> str:
        return f"{self.name} {self.type}{' NOT NULL' if self.not_null else ''}"


@dataclass(frozen=True, slots=True)
class Table:
    """One ledger table's declaration."""

    name: str
    kind: Kind
    columns: tuple[Column, ...]
    key: tuple[str, ...] = ()
    """The primary key's columns, in order; none for a table whose rows the writer keeps
    distinct itself (``deliveries``) or that may repeat."""
    day_rows: str | None = None
    """The condition selecting the rows of gaming day ``$day`` (``$sealed_at``: the seal's
    time, UTC); ``None`` for working storage."""
    unsealed_because: str | None = None
    """Why the close does not digest the table's rows (every table not sealed says)."""
    volatile: tuple[str, ...] = ()
    """Columns left out of a row's digest: bookkeeping that changes without changing a
    figure."""
    aggregate_of: str | None = None
    """The derived table the ledger sums this one from (a replay does not make its rows)."""
    shared_with: str | None = None
    """The condition under which a row of day ``$day`` is another day's too (it stays in the
    working store when the day is archived, :mod:`pipeline.ledger.working_store`)."""
    leaves_with_the_day: bool = False
    """A seal-record table whose rows of a closed day leave the working store with its sealed
    rows but are not archived (the row digests, which grow with the rows,
    :mod:`pipeline.ledger.working_store`)."""

    @property
    def archived(self) -> bool:
        """Whether a closed day's rows of the table are archived and read from the archive."""
        return self.kind.sealed

    @property
    def leaves(self) -> bool:
        """Whether a closed day's rows of the table leave the working store when it is
        archived."""
        return self.archived or self.leaves_with_the_day

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"{self.name} has no column {name}; it has {', '.join(self.column_names)}")


ON_THE_DAY = "gaming_date = $day"
"""The day selector of a table whose rows carry their gaming date."""


def day_scope(sql: str, gaming_date: date, sealed_at: datetime) -> dict[str, Any]:
    """The parameters of a day selector (``$day``, ``$sealed_at``) that ``sql`` names (DuckDB
    refuses any it does not)."""
    values = {"day": gaming_date, "sealed_at": sealed_at}
    return {name: value for name, value in values.items() if f"${name}" in sql}


def _columns(text: str) -> tuple[Column, ...]:
    """``"name TYPE [NOT NULL], ..."`` as columns."""
    columns = []
    for item in text.split(","):
        name, kind, *rest = item.split()
        if rest not in ([], ["NOT", "NULL"]):
            raise ValueError(f"column {item.strip()!r}: expected 'name TYPE [NOT NULL]'")
        columns.append(Column(name, kind, not_null=bool(rest)))
    return tuple(columns)


def _declare(
    name: str,
    kind: Kind,
    columns: str,
    *,
    key: tuple[str, ...] = (),
    day_rows: str | None = None,
    unsealed_because: str | None = None,
    volatile: tuple[str, ...] = (),
    aggregate_of: str | None = None,
    shared_with: str | None = None,
    leaves_with_the_day: bool = False,
) -> Table:
    return Table(
        name,
        kind,
        _columns(columns),
        key,
        day_rows,
        unsealed_because,
        volatile,
        aggregate_of,
        shared_with,
        leaves_with_the_day,
    )


TABLES: tuple[Table, ...] = (
    # ---- sealed: the close digests their rows of the day, in this order
    _declare(
        "deliveries",
        Kind.SEALED,
        """
        source VARCHAR NOT NULL, position BIGINT NOT NULL, event_id VARCHAR NOT NULL,
        table_id VARCHAR NOT NULL, device_id VARCHAR NOT NULL, seq BIGINT NOT NULL,
        occurred_at BIGINT NOT NULL, gaming_date DATE NOT NULL,
        payload_type VARCHAR NOT NULL, fields_json VARCHAR NOT NULL,
        occurrence BIGINT NOT NULL
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "rounds",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, shoe_id VARCHAR NOT NULL,
        round_id VARCHAR NOT NULL, round_number INTEGER, simulated BOOLEAN, status VARCHAR,
        player_cards VARCHAR, banker_cards VARCHAR, player_points INTEGER,
        banker_points INTEGER, winner VARCHAR, total_cards INTEGER, is_natural BOOLEAN,
        dragon_7 BOOLEAN, announced VARCHAR, options_taken VARCHAR, started_at BIGINT,
        source_event_id VARCHAR, dealer_id VARCHAR
        """,
        key=("table_id", "round_id"),
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "cards",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, shoe_id VARCHAR,
        round_id VARCHAR, position INTEGER, rank VARCHAR, suit VARCHAR, hand VARCHAR,
        source_event_id VARCHAR
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "wagers",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, round_id VARCHAR,
        seat INTEGER, patron_id VARCHAR, wager VARCHAR, amount_cents BIGINT, late BOOLEAN,
        source_event_ids VARCHAR[]
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "settlements",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, round_id VARCHAR,
        seat INTEGER, patron_id VARCHAR, wager VARCHAR, stake_cents BIGINT,
        expected_result VARCHAR, expected_paid_cents BIGINT, expected_vig_cents BIGINT,
        recorded_result VARCHAR, recorded_paid_cents BIGINT, rule_code VARCHAR,
        source_event_ids VARCHAR[]
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "vig_ledger",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, shoe_id VARCHAR,
        round_id VARCHAR, seat INTEGER, patron_id VARCHAR, kind VARCHAR,
        amount_cents BIGINT, balance_after_cents BIGINT, occurred_at BIGINT,
        source_event_id VARCHAR
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "comp_vig_forms",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, serial BIGINT, status VARCHAR,
        amount_cents BIGINT, patron_name VARCHAR, patron_id VARCHAR, form_gaming_date DATE,
        pit VARCHAR, table_location VARCHAR, dealer_signature VARCHAR,
        pit_boss_signature VARCHAR, pit_clerk_signature VARCHAR, patron_signature VARCHAR,
        signature_missing_reason VARCHAR, marked_void BOOLEAN, source_event_id VARCHAR
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "form_series",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, first_serial BIGINT,
        last_serial BIGINT, used INTEGER, voided INTEGER, source_event_id VARCHAR
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "form_events",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, serial BIGINT, kind VARCHAR,
        amount_cents BIGINT, patron_name VARCHAR, table_location VARCHAR,
        form_gaming_date DATE, marked_void BOOLEAN, matched BOOLEAN,
        source_event_id VARCHAR
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "table_practices",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, pit VARCHAR NOT NULL,
        game VARCHAR NOT NULL, subject VARCHAR NOT NULL, practice VARCHAR NOT NULL,
        breaks VARCHAR, shoe_id VARCHAR, round_id VARCHAR, detail VARCHAR,
        source_event_ids VARCHAR[]
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "exceptions",
        Kind.DERIVED,
        """
        exception_id VARCHAR NOT NULL, table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL,
        code VARCHAR NOT NULL, section VARCHAR NOT NULL, severity VARCHAR NOT NULL,
        severity_rank INTEGER NOT NULL, shoe_id VARCHAR, round_id VARCHAR, seat INTEGER,
        patron_id VARCHAR, serial BIGINT, expected_cents BIGINT, actual_cents BIGINT,
        message VARCHAR NOT NULL, source_event_ids VARCHAR[]
        """,
        key=("table_id", "gaming_date", "exception_id"),
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "table_day_summary",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, rules_id VARCHAR,
        game VARCHAR, pit VARCHAR, location VARCHAR, dealer_id VARCHAR, shoes INTEGER,
        rounds INTEGER, events BIGINT, duplicates INTEGER, handle_cents BIGINT,
        vig_expected_cents BIGINT, vig_collected_cents BIGINT, vig_uncollected_cents BIGINT,
        comp_vig_cents BIGINT, exceptions INTEGER, replayed_at TIMESTAMP
        """,
        key=("table_id", "gaming_date"),
        day_rows=ON_THE_DAY,
        volatile=("replayed_at",),  # when the table-day was last replayed
    ),
    _declare(
        "table_day_win",
        Kind.DERIVED,
        """
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, wager VARCHAR NOT NULL,
        expected_win_cents BIGINT, recorded_win_cents BIGINT
        """,
        key=("table_id", "gaming_date", "wager"),
        day_rows=ON_THE_DAY,
        aggregate_of="settlements",  # each wager's win, summed by the ledger
    ),
    _declare(
        "quality_results",
        Kind.SEALED,
        """
        gaming_date DATE NOT NULL, validated_at TIMESTAMP NOT NULL,
        verdict VARCHAR NOT NULL, evaluated INTEGER NOT NULL, failed INTEGER NOT NULL,
        blocking INTEGER NOT NULL, warnings INTEGER NOT NULL, fingerprint VARCHAR NOT NULL,
        summary_json VARCHAR NOT NULL, expectations_json VARCHAR NOT NULL
        """,
        key=("gaming_date", "validated_at"),
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "gaming_day_audit",
        Kind.SEALED,
        """
        gaming_date DATE NOT NULL, action VARCHAR NOT NULL, actor VARCHAR NOT NULL,
        reason VARCHAR, acted_at TIMESTAMP NOT NULL, actor_source VARCHAR
        """,
        day_rows=ON_THE_DAY,
    ),
    _declare(
        "input_files",
        Kind.SEALED,
        """
        source VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, bytes BIGINT NOT NULL,
        events BIGINT NOT NULL, loaded_at TIMESTAMP NOT NULL
        """,
        key=("source", "sha256"),
        # the files the day's events came from
        day_rows="source IN (SELECT source FROM deliveries WHERE gaming_date = $day)",
        shared_with="source IN (SELECT source FROM deliveries WHERE gaming_date <> $day)",
    ),
    _declare(
        "acknowledgements",
        Kind.SEALED,
        """
        exception_id VARCHAR NOT NULL, action VARCHAR NOT NULL, note VARCHAR,
        actor VARCHAR NOT NULL, acted_at TIMESTAMP NOT NULL, ack_id VARCHAR,
        actor_source VARCHAR, record_hmac VARCHAR
        """,
        # the actions on the day's exceptions up to the seal; one recorded after the close (an
        # analyst acknowledging a closed day's exception) belongs to the next close of the day
        day_rows="exception_id IN (SELECT exception_id FROM exceptions "
        "WHERE gaming_date = $day) AND acted_at <= $sealed_at",
    ),
    _declare(
        "dead_letters",
        Kind.SEALED,
        """
        source VARCHAR NOT NULL, position BIGINT NOT NULL, reason VARCHAR NOT NULL,
        detail VARCHAR NOT NULL, device_id VARCHAR, raw_bytes BLOB, received_on DATE,
        resolved_at TIMESTAMP, resolved_by VARCHAR
        """,
        key=("source", "position"),
        # the day that claimed it: the close stamps ``received_on`` on the unclaimed dead
        # letters of the day's sources (pipeline.reports.close.DEAD_LETTERS_OF_DAY)
        day_rows="received_on = $day",
    ),
    # ---- the seal itself
    _declare(
        "seal_log",
        Kind.SEAL_RECORD,
        """
        seq BIGINT NOT NULL, gaming_date DATE NOT NULL, action VARCHAR NOT NULL,
        actor VARCHAR NOT NULL, actor_source VARCHAR NOT NULL, reason VARCHAR,
        sealed_at TIMESTAMP NOT NULL, status VARCHAR, blocking_exceptions INTEGER,
        report_sha256 VARCHAR, table_digests_json VARCHAR NOT NULL, anchor_path VARCHAR,
        previous_link VARCHAR NOT NULL, link VARCHAR NOT NULL, row_text VARCHAR,
        table_columns_json VARCHAR, ledger_id VARCHAR, roles_sha256 VARCHAR, key_id VARCHAR,
        signature VARCHAR, archive_sha256 VARCHAR
        """,
        key=("seq",),
        day_rows=ON_THE_DAY,
        unsealed_because="the seal itself: checked by its signed links, the anchor file and "
        "the witnesses' checkpoints",
    ),
    _declare(
        "close_digests",
        Kind.SEAL_RECORD,
        """
        gaming_date DATE NOT NULL, table_name VARCHAR NOT NULL, row_sha256 BLOB NOT NULL
        """,
        day_rows=ON_THE_DAY,
        unsealed_because="the digest of each sealed row, checked against the seal log's "
        "table digests",
        leaves_with_the_day=True,
    ),
    _declare(
        "gaming_days",
        Kind.SEAL_RECORD,
        """
        gaming_date DATE NOT NULL, status VARCHAR NOT NULL, closed_at TIMESTAMP,
        report_sha256 VARCHAR, previous_chain_sha256 VARCHAR, chain_sha256 VARCHAR,
        blocking_exceptions INTEGER
        """,
        key=("gaming_date",),
        day_rows=ON_THE_DAY,
        unsealed_because="each day's status row, checked against the seal log's entries",
    ),
    # ---- working storage: no rows of a gaming day
    _declare(
        "schema_migrations",
        Kind.WORKING,
        """
        version INTEGER NOT NULL, name VARCHAR, applied_at TIMESTAMP
        """,
        key=("version",),
        unsealed_because="the ledger's schema history, no rows of a gaming day",
    ),
    _declare(
        "ledger_identity",
        Kind.WORKING,
        """
        ledger_id VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL
        """,
        key=("ledger_id",),
        unsealed_because="the ledger's id, no rows of a gaming day; each seal entry and "
        "journal record names it, and the witnesses hold checkpoints by it",
    ),
    _declare(
        "consumer_offsets",
        Kind.WORKING,
        """
        consumer_group VARCHAR NOT NULL, topic VARCHAR NOT NULL, partition INTEGER NOT NULL,
        next_offset BIGINT NOT NULL
        """,
        key=("consumer_group", "topic", "partition"),
        unsealed_because="where a Kafka consumer resumes; the rows it loaded are sealed",
    ),
    _declare(
        "exception_notices",
        Kind.WORKING,
        """
        notice_seq BIGINT NOT NULL, state VARCHAR NOT NULL, exception_id VARCHAR NOT NULL,
        table_id VARCHAR NOT NULL, gaming_date DATE NOT NULL, code VARCHAR NOT NULL,
        section VARCHAR NOT NULL, severity VARCHAR NOT NULL, severity_rank INTEGER NOT NULL,
        shoe_id VARCHAR, round_id VARCHAR, seat INTEGER, patron_id VARCHAR, serial BIGINT,
        expected_cents BIGINT, actual_cents BIGINT, message VARCHAR NOT NULL,
        source_event_ids VARCHAR[], recorded_at TIMESTAMP NOT NULL, published_at TIMESTAMP
        """,
        key=("notice_seq",),
        unsealed_because="the live feed's outbox (what was published when); the exceptions "
        "it announces are sealed",
    ),
    _declare(
        "alert_channels",
        Kind.WORKING,
        """
        channel VARCHAR NOT NULL, after_notice_seq BIGINT NOT NULL,
        added_at TIMESTAMP NOT NULL
        """,
        key=("channel",),
        unsealed_because="the alert channels the live feed has served, and from which notice",
    ),
    _declare(
        "alert_deliveries",
        Kind.WORKING,
        """
        channel VARCHAR NOT NULL, notice_seq BIGINT NOT NULL,
        delivered_at TIMESTAMP NOT NULL
        """,
        key=("channel", "notice_seq"),
        unsealed_because="which notice each alert channel delivered when; the exceptions "
        "alerted on are sealed",
    ),
    _declare(
        "pattern_runs",
        Kind.WORKING,
        """
        gaming_date DATE NOT NULL, inputs_sha256 VARCHAR NOT NULL, ran_at TIMESTAMP NOT NULL
        """,
        key=("gaming_date",),
        unsealed_because="what the pattern stage last searched a day over, so the close runs "
        "it only when the day's rows changed since; the exceptions it wrote are sealed",
    ),
    _declare(
        "carried_days",
        Kind.WORKING,
        """
        gaming_date DATE NOT NULL, inputs_sha256 VARCHAR NOT NULL, carried_at TIMESTAMP NOT NULL
        """,
        key=("gaming_date",),
        unsealed_because="what each gaming day's carried evidence (patron_day_rounds, "
        "pair_day_counts, carried_shoes) was computed from, so a day replayed again is "
        "carried again; the exceptions the pattern stage finds from it are sealed",
    ),
    _declare(
        "patron_day_rounds",
        Kind.WORKING,
        """
        gaming_date DATE NOT NULL, patron_id VARCHAR NOT NULL, stakes_cents BIGINT[],
        won BOOLEAN[], win_probability DOUBLE[], preview_steps DOUBLE[]
        """,
        key=("gaming_date", "patron_id"),
        unsealed_because="each patron's tested rounds of a gaming day as the accumulated "
        "evidence scores them, carried to the days whose window holds the day; derived "
        "from sealed settlements and cards, and carried again when they change",
    ),
    _declare(
        "pair_day_counts",
        Kind.WORKING,
        """
        gaming_date DATE NOT NULL, dealer_id VARCHAR NOT NULL, patron_id VARCHAR NOT NULL,
        seat_rounds BIGINT NOT NULL, erred BIGINT NOT NULL, in_patron_favour BIGINT NOT NULL
        """,
        key=("gaming_date", "dealer_id", "patron_id"),
        unsealed_because="each dealer-patron pair's seat-rounds of a gaming day, counted and "
        "carried to the days whose window holds the day; derived from sealed settlements, "
        "and carried again when they change",
    ),
    _declare(
        "carried_shoes",
        Kind.WORKING,
        """
        gaming_date DATE NOT NULL, table_id VARCHAR NOT NULL, shoe_id VARCHAR NOT NULL,
        started_at BIGINT NOT NULL, cards_in_shoe INTEGER NOT NULL, pit VARCHAR NOT NULL,
        game VARCHAR NOT NULL, positions BIGINT[] NOT NULL, faces BIGINT[] NOT NULL
        """,
        key=("gaming_date", "table_id", "shoe_id"),
        unsealed_because="each shoe of a gaming day as the slug search compares it (its "
        "cards' positions and faces as numbers), carried to the days whose window holds the "
        "day; derived from sealed cards, and carried again when they change",
    ),
    _declare(
        "archived_days",
        Kind.WORKING,
        """
        gaming_date DATE NOT NULL, sealed_at TIMESTAMP NOT NULL, files_json VARCHAR NOT NULL,
        moved_at TIMESTAMP NOT NULL, columns_json VARCHAR
        """,
        key=("gaming_date",),
        unsealed_because="which closed days left the working store and which archive files "
        "each sealed table's rows of the day are read from (pipeline.ledger.working_store); "
        "those rows are checked against their seal as the views read them",
    ),
    _declare(
        "archive_manifests",
        Kind.WORKING,
        """
        gaming_date DATE NOT NULL, sealed_at TIMESTAMP NOT NULL, manifest_json VARCHAR NOT NULL,
        manifest_sha256 VARCHAR NOT NULL, archived_at TIMESTAMP NOT NULL
        """,
        key=("gaming_date", "sealed_at"),
        unsealed_because="which Iceberg files hold each sealed day, with their SHA-256 "
        "(pipeline.ledger.archive): checked against its close's seal entry, which carries the "
        "manifest's SHA-256, and against the archive's files",
    ),
)
"""Every ledger table, sealed ones first in the order a close digests them."""

TABLE: Mapping[str, Table] = {t.name: t for t in TABLES}
"""Each table's declaration by name."""

SEALED_COLUMNS_ADDED: Mapping[str, Mapping[str, int]] = {"rounds": {"dealer_id": 25}}
"""The columns added to a sealed table since seal entries began naming the columns they
digested (migration 15), by table: each with the migration that added it. Rows sealed or
archived before then were written without it (:func:`sealed_columns_added_after`)."""


def sealed_columns_added_after(table: str, migration: int) -> tuple[str, ...]:
    """``table``'s columns that a migration after ``migration`` added (15 or later: those
    in :data:`SEALED_COLUMNS_ADDED`), in order."""
    return tuple(
        name for name, added in SEALED_COLUMNS_ADDED.get(table, {}).items() if added > migration
    )


# ---------------------------------------------------------------------- derived lists
ARCHIVED: tuple[Table, ...] = tuple(t for t in TABLES if t.archived)
"""The tables whose rows of a closed day are archived (:mod:`pipeline.ledger.archive`) and
read from the archive (:mod:`pipeline.ledger.working_store`): the sealed ones, in the order a
close digests them."""

LEAVING: tuple[Table, ...] = tuple(t for t in TABLES if t.leaves)
"""The tables whose rows of a closed day leave the working store when it is archived: the
archived ones, then the row digests."""

SEALED_TABLES: dict[str, str] = {t.name: t.day_rows for t in TABLES if t.kind.sealed and t.day_rows}
"""Every table whose rows feed a figure or a decision of a gaming day, with the condition that
selects the day's rows (``$day``: the gaming date; ``$sealed_at``: the seal's time, UTC). The
close digests each such row; ``verify`` recomputes the digests from the rows and names any
edit, insertion or deletion since."""

VOLATILE_COLUMNS: dict[str, tuple[str, ...]] = {t.name: t.volatile for t in TABLES if t.volatile}
"""Columns left out of a row's digest: bookkeeping that changes without changing a figure."""

SEAL_RECORD_TABLES: tuple[str, ...] = tuple(t.name for t in TABLES if t.kind is Kind.SEAL_RECORD)
"""The seal itself, checked otherwise (:attr:`Kind.SEAL_RECORD`)."""

UNSEALED_TABLES: dict[str, str] = {
    t.name: t.unsealed_because or "" for t in TABLES if t.kind is Kind.WORKING
}
"""Tables with no rows of a gaming day, with why. Every table is in exactly one of
SEALED_TABLES, SEAL_RECORD_TABLES and UNSEALED_TABLES (its one kind)."""

DERIVED_TABLES: tuple[str, ...] = tuple(t.name for t in TABLES if t.kind is Kind.DERIVED)
"""Tables replaced as a whole for a (table_id, gaming_date) when that table-day is replayed."""

REPLAYED_TABLES: tuple[str, ...] = tuple(
    t.name for t in TABLES if t.kind is Kind.DERIVED and t.aggregate_of is None
)
"""The derived tables whose rows a table-day's replay makes
(:data:`pipeline.ledger.columns.DERIVED_ROWS`), and an evidence bundle carries: all but the
aggregates the ledger sums from them."""


# ---------------------------------------------------------------------- checks
def declaration_errors(tables: Sequence[Table] = TABLES) -> list[str]:
    """Every broken invariant of the module docstring, one message each."""
    errors: list[str] = []
    names = [t.name for t in tables]
    errors += [
        f"table {n} is declared {names.count(n)} times"
        for n in sorted(set(names))
        if names.count(n) > 1
    ]
    by_name = {t.name: t for t in tables}
    for t in tables:
        columns = t.column_names
        errors += [
            f"{t.name}: column {c} is declared {columns.count(c)} times"
            for c in sorted(set(columns))
            if columns.count(c) > 1
        ]
        for role, named in (("key", t.key), ("volatile columns", t.volatile)):
            errors += [
                f"{t.name}: {role} name {c}, not a column" for c in named if c not in columns
            ]
        if t.day_rows is None and t.kind is not Kind.WORKING:
            errors.append(f"{t.name} is {t.kind.value} but has no day selector")
        if t.day_rows is not None and t.kind is Kind.WORKING:
            errors.append(f"{t.name} is working storage but selects rows of a day: {t.day_rows}")
        if t.day_rows is not None and not any(c in t.day_rows for c in columns):
            errors.append(f"{t.name}: its day selector names none of its columns: {t.day_rows}")
        if t.kind.sealed == (t.unsealed_because is not None):
            errors.append(
                f"{t.name} is {t.kind.value} and "
                + (
                    "says why it is not sealed"
                    if t.kind.sealed
                    else "does not say why it is not sealed"
                )
            )
        if t.volatile and not t.kind.sealed:
            errors.append(f"{t.name} is {t.kind.value}: it has no digest to leave columns out of")
        if t.aggregate_of is not None:
            source = by_name.get(t.aggregate_of)
            if t.kind is not Kind.DERIVED or source is None or source.kind is not Kind.DERIVED:
                errors.append(
                    f"{t.name}: an aggregate of {t.aggregate_of} must be derived, "
                    "from a derived table"
                )
    return errors


def ledger_schema(con: duckdb.DuckDBPyConnection) -> dict[str, Table]:
    """The tables of ``con``'s main schema as DuckDB reports them, in the declaration's terms
    (kinds and day selectors are not in the database: each is read as working storage)."""
    columns: dict[str, list[Column]] = {}
    for table, name, kind, nullable in con.execute(
        "SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns() "
        "WHERE database_name = current_database() AND schema_name = 'main' "
        "ORDER BY table_name, column_index"
    ).fetchall():
        columns.setdefault(str(table), []).append(Column(str(name), str(kind), not nullable))
    keys: dict[str, tuple[str, ...]] = {
        str(table): tuple(map(str, key))
        for table, key in con.execute(
            "SELECT table_name, constraint_column_names FROM duckdb_constraints() "
            "WHERE database_name = current_database() AND schema_name = 'main' "
            "AND constraint_type = 'PRIMARY KEY'"
        ).fetchall()
    }
    return {
        name: Table(name, Kind.WORKING, tuple(cols), keys.get(name, ()))
        for name, cols in columns.items()
    }


def schema_differences(
    con: duckdb.DuckDBPyConnection, tables: Iterable[Table] = TABLES
) -> list[str]:
    """Every way the schema of ``con`` differs from the declaration: a table missing or not
    declared, a column missing, extra, out of order or of another type or nullability, a
    key of other columns. Empty when they match."""
    found = ledger_schema(con)
    declared = {t.name: t for t in tables}
    errors = [f"table {n} is declared but not in the ledger" for n in declared if n not in found]
    errors += [
        f"table {n} is in the ledger but not declared" for n in sorted(found) if n not in declared
    ]
    for name, table in declared.items():
        actual = found.get(name)
        if actual is None:
            continue
        want, have = [str(c) for c in table.columns], [str(c) for c in actual.columns]
        if want != have:
            errors.append(
                f"{name}: {len(have)} columns ({', '.join(have)}), declared {len(want)} "
                f"({', '.join(want)})"
            )
        if table.key != actual.key:
            errors.append(
                f"{name}: primary key ({', '.join(actual.key)}), declared ({', '.join(table.key)})"
            )
    return errors
