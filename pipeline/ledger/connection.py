"""What a question of the ledger is asked of: a :class:`~pipeline.ledger.store.Ledger`, or,
inside the ledger package where a question runs in a writer's transaction, its connection.

A module of its own, importing nothing at load time, because the exception questions are
imported by the replay's finding records, which the ledger's store imports in turn."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import duckdb

    from pipeline.ledger.store import Ledger

Source: TypeAlias = "Ledger | duckdb.DuckDBPyConnection"


def connection_of(source: Source) -> duckdb.DuckDBPyConnection:
    """The connection a question runs on."""
    from pipeline.ledger.store import Ledger

    return source.con if isinstance(source, Ledger) else source


def ledger_database(source: Source) -> str:
    """The ledger file's database as the connection names it (after the file's name), quoted
    for a statement."""
    # fetched to the end: a result left open keeps the connection from registering rows
    ((name,),) = connection_of(source).execute("SELECT current_database()").fetchall()
    return quoted_name(str(name))


def quoted_name(name: str) -> str:
    """A database's, schema's or table's name quoted for a statement."""
    return '"' + name.replace('"', '""') + '"'


def stored_table(source: Source, table: str) -> str:
    """``table`` in the ledger file itself, for a write, or a read that needs its own rows
    (their ``rowid``): the name alone reads the view that adds the archived days
    (:mod:`pipeline.ledger.working_store`)."""
    return table_of(ledger_database(source), table)


def table_of(database: str, table: str) -> str:
    """``table`` of the quoted ``database`` (:func:`ledger_database`)."""
    return f"{database}.main.{table}"
