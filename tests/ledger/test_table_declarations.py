"""The tables' declarations (pipeline.ledger.tables) against the migrations' history and the
lists derived from them: a ledger migrated from empty has exactly the declared tables,
columns, types and keys; every table has one kind; the derived lists are what the seals,
the replay and the bundles were written against."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from pipeline.bundle.export import DERIVED_FILES
from pipeline.config.catalog import gaming_day_of
from pipeline.ledger.columns import (
    DEAD_LETTER_SCHEMA,
    DERIVED_ROWS,
    INPUT_FILE_SCHEMA,
    arrow_schema,
    delivery_table,
)
from pipeline.ledger.exceptions import EXCEPTION_COLUMNS
from pipeline.ledger.migrations import (
    DERIVED_TABLES,
    MIGRATIONS,
    SEAL_RECORD_TABLES,
    SEALED_TABLES,
    UNSEALED_TABLES,
    VOLATILE_COLUMNS,
)
from pipeline.ledger.store import Ledger
from pipeline.ledger.tables import (
    ON_THE_DAY,
    REPLAYED_TABLES,
    TABLE,
    TABLES,
    Column,
    Kind,
    Table,
    declaration_errors,
    ledger_schema,
    schema_differences,
)


@pytest.fixture
def migrated(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A ledger migrated from empty by every migration."""
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        assert ledger.schema_version() == MIGRATIONS[-1][0]
        yield ledger.con


def test_the_declaration_keeps_its_invariants() -> None:
    assert declaration_errors() == []


def test_a_broken_declaration_is_named_in_full() -> None:
    """Every broken invariant is reported, not the first."""
    columns = (Column("gaming_date", "DATE", not_null=True), Column("x", "BIGINT"))
    broken = [
        Table("a", Kind.SEALED, columns, key=("y",), day_rows=None),
        Table("a", Kind.WORKING, columns, day_rows=ON_THE_DAY, volatile=("x",)),
        Table("b", Kind.SEAL_RECORD, columns, day_rows=ON_THE_DAY),
        Table("c", Kind.SEALED, columns, day_rows=ON_THE_DAY, aggregate_of="b"),
    ]
    assert declaration_errors(broken) == [
        "table a is declared 2 times",
        "a: key name y, not a column",
        "a is sealed but has no day selector",
        "a is working storage but selects rows of a day: gaming_date = $day",
        "a is working and does not say why it is not sealed",
        "a is working: it has no digest to leave columns out of",
        "b is seal record and does not say why it is not sealed",
        "c: an aggregate of b must be derived, from a derived table",
    ]


def test_a_ledger_migrated_from_empty_matches_the_declaration(
    migrated: duckdb.DuckDBPyConnection,
) -> None:
    """Exactly the declared tables, each with the declared columns in order, their types as
    DuckDB reports them, their nullability, and the declared primary key."""
    found = ledger_schema(migrated)
    assert sorted(found) == sorted(TABLE)
    for table in TABLES:
        assert found[table.name].columns == table.columns, table.name
        assert found[table.name].key == table.key, table.name
    assert schema_differences(migrated) == []


def test_a_schema_that_drifts_from_the_declaration_is_named(
    migrated: duckdb.DuckDBPyConnection,
) -> None:
    migrated.execute("ALTER TABLE cards ADD COLUMN note VARCHAR")
    migrated.execute("DROP TABLE alert_deliveries")
    migrated.execute("CREATE TABLE scratch (x INTEGER)")
    migrated.execute("DROP TABLE ledger_identity")
    migrated.execute("CREATE TABLE ledger_identity (ledger_id VARCHAR, created_at TIMESTAMP)")
    cards = ", ".join(str(c) for c in TABLE["cards"].columns)
    identity = "ledger_id VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL"
    assert schema_differences(migrated) == [
        "table alert_deliveries is declared but not in the ledger",
        "table scratch is in the ledger but not declared",
        f"cards: 10 columns ({cards}, note VARCHAR), declared 9 ({cards})",
        "ledger_identity: 2 columns (ledger_id VARCHAR, created_at TIMESTAMP), declared 2 "
        f"({identity})",
        "ledger_identity: primary key (), declared (ledger_id)",
    ]


def test_every_table_has_exactly_one_kind() -> None:
    """The lists the seals work from partition the tables: each is sealed (derived ones
    included), part of the seal, or working storage, never two of them."""
    sealed = [t.name for t in TABLES if t.kind in (Kind.SEALED, Kind.DERIVED)]
    assert list(SEALED_TABLES) == sealed
    classified = [*SEALED_TABLES, *SEAL_RECORD_TABLES, *UNSEALED_TABLES]
    assert sorted(classified) == sorted(TABLE), "a table is unclassified or classified twice"
    assert set(DERIVED_TABLES) <= set(SEALED_TABLES)
    assert {t.kind for t in TABLES} == set(Kind)


# ---------------------------------------------------------------------- the derived lists
# Pinned as they were written by hand: a close digests the sealed tables in this order, with
# these selectors and without these columns, so a change here changes every seal's digests.
def test_the_sealed_tables_and_their_day_selectors_are_pinned() -> None:
    on_the_day = [
        "deliveries",
        "rounds",
        "cards",
        "wagers",
        "settlements",
        "vig_ledger",
        "comp_vig_forms",
        "form_series",
        "form_events",
        "table_practices",
        "exceptions",
        "table_day_summary",
        "table_day_win",
        "quality_results",
        "gaming_day_audit",
    ]
    assert list(SEALED_TABLES.items()) == [
        *((table, "gaming_date = $day") for table in on_the_day),
        ("input_files", "source IN (SELECT source FROM deliveries WHERE gaming_date = $day)"),
        (
            "acknowledgements",
            "exception_id IN (SELECT exception_id FROM exceptions WHERE gaming_date = $day) "
            "AND acted_at <= $sealed_at",
        ),
        ("dead_letters", "received_on = $day"),
    ]
    assert VOLATILE_COLUMNS == {"table_day_summary": ("replayed_at",)}


def test_the_other_lists_are_pinned() -> None:
    assert SEAL_RECORD_TABLES == ("seal_log", "close_digests", "gaming_days")
    assert list(UNSEALED_TABLES) == [
        "schema_migrations",
        "ledger_identity",
        "consumer_offsets",
        "exception_notices",
        "alert_channels",
        "alert_deliveries",
        "pattern_runs",
        "carried_days",
        "patron_day_rounds",
        "pair_day_counts",
        "carried_shoes",
        "archived_days",
        "archive_manifests",
    ]
    assert UNSEALED_TABLES["consumer_offsets"] == (
        "where a Kafka consumer resumes; the rows it loaded are sealed"
    )
    replayed = (
        "rounds",
        "cards",
        "wagers",
        "settlements",
        "vig_ledger",
        "comp_vig_forms",
        "form_series",
        "form_events",
        "table_practices",
        "exceptions",
        "table_day_summary",
    )
    assert (*replayed, "table_day_win") == DERIVED_TABLES
    assert REPLAYED_TABLES == DERIVED_FILES == replayed


# ---------------------------------------------------------------------- rows as declared
def test_rows_are_built_in_the_declared_columns() -> None:
    """The replay's rows, the exception row, the deliveries' and the dead letters' Arrow
    tables: each in its table's declared columns."""
    assert tuple(DERIVED_ROWS) == REPLAYED_TABLES
    assert TABLE["exceptions"].column_names == EXCEPTION_COLUMNS
    assert delivery_table([], gaming_day_of()).schema == arrow_schema("deliveries")
    assert DEAD_LETTER_SCHEMA.names == list(TABLE["dead_letters"].column_names)
    assert str(DEAD_LETTER_SCHEMA.field("raw_bytes").type) == "binary"
    assert INPUT_FILE_SCHEMA.names == list(TABLE["input_files"].column_names)
    assert str(INPUT_FILE_SCHEMA.field("loaded_at").type) == "timestamp[us]"


def test_every_declared_type_is_one_a_row_can_be_built_as() -> None:
    for table in TABLES:
        arrow_schema(table.name)  # raises KeyError on a type without an Arrow type
