"""What the acknowledgement journal (:mod:`pipeline.bundle.acks`) reads from and writes to
the ledger: the ledger's identity, which its records name, and the ``acknowledgements``
table the gaming-day close imports them into.

The journal's format, signatures and chain stay in :mod:`pipeline.bundle.acks`; this module
only asks and writes the ledger, on the connection of the process that holds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pipeline.ledger.connection import connection_of, stored_table

if TYPE_CHECKING:
    from pipeline.ledger.connection import Source

ACK_COLUMNS = ("exception_id", "action", "note", "actor", "acted_at")
"""The columns of an acknowledgement every version of the ``acknowledgements`` table has, in
the order :meth:`pipeline.bundle.acks.AckRecord.ledger_values` gives them."""


def ledger_identity(source: Source) -> str | None:
    """The ledger's id as :attr:`pipeline.ledger.store.Ledger.ledger_id` reads it, from a
    ledger (``None`` before migration 17, or when deleted)."""
    try:
        row = connection_of(source).execute("SELECT min(ledger_id) FROM ledger_identity").fetchone()
    except Exception:  # duckdb.CatalogException; duckdb is imported only for annotations
        return None
    return str(row[0]) if row and row[0] is not None else None


def stored_acknowledgements(source: Source) -> list[dict[str, Any]]:
    """Every row of the ledger's ``acknowledgements``, by column name, in the order they were
    made. Every column: a ledger opened read-only before migration 7 has no ``ack_id`` or
    ``record_hmac``."""
    cursor = connection_of(source).execute(
        "SELECT * FROM acknowledgements ORDER BY acted_at, exception_id"
    )
    names = [d[0] for d in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def imported_ack_ids(source: Source) -> set[str]:
    """The ``ack_id`` of every acknowledgement imported with one."""
    return {
        str(a)
        for (a,) in connection_of(source)
        .execute("SELECT ack_id FROM acknowledgements WHERE ack_id IS NOT NULL")
        .fetchall()
    }


def imported_unkeyed(source: Source) -> set[tuple[Any, ...]]:
    """The :data:`ACK_COLUMNS` values of the acknowledgements imported before migration 7,
    which have no ``ack_id``: they are known by their values."""
    return set(
        connection_of(source)
        .execute(f"SELECT {', '.join(ACK_COLUMNS)} FROM acknowledgements WHERE ack_id IS NULL")
        .fetchall()
    )


def insert_acknowledgement(
    source: Source,
    values: Sequence[str | datetime],
    ack_id: str,
    actor_source: str,
    link: str,
) -> None:
    """Store one acknowledgement: its :data:`ACK_COLUMNS` ``values``, its journal record's
    id, where the actor's name came from and the record's link (kept as ``record_hmac``)."""
    con = connection_of(source)
    con.execute(
        f"INSERT INTO {stored_table(con, 'acknowledgements')} ({', '.join(ACK_COLUMNS)}, ack_id, "
        "actor_source, record_hmac) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [*values, ack_id, actor_source, link],
    )
