"""What the streaming path asks the ledger beyond its deliveries: what it loaded at a
partition's offset (a resume's check), a partition shard's offsets (a merge), and a table's
rows as they are, to compare two ledgers by content (:mod:`pipeline.stream.verify`).

The consumer's own offsets are :meth:`~pipeline.ledger.store.Ledger.stored_offsets` and
:meth:`~pipeline.ledger.store.Ledger.store_offsets`.
"""

from __future__ import annotations

from collections.abc import Set
from pathlib import Path
from typing import Any

from pipeline.ledger.store import Ledger


def loaded_at(ledger: Ledger, source: str, position: int) -> tuple[str, str | bytes] | None:
    """What the ledger loaded from ``source`` at ``position``: ("event", event id) or
    ("dead letter", its bytes); None when it kept neither (a tombstone)."""
    row = ledger.con.execute(
        "SELECT event_id FROM deliveries WHERE source = ? AND position = ? LIMIT 1",
        [source, position],
    ).fetchone()
    if row is not None:
        return "event", str(row[0])
    row = ledger.con.execute(
        "SELECT raw_bytes FROM dead_letters WHERE source = ? AND position = ? "
        "AND raw_bytes IS NOT NULL LIMIT 1",
        [source, position],
    ).fetchone()
    return ("dead letter", bytes(row[0])) if row is not None else None


def copy_shard_offsets(ledger: Ledger, shard: Path) -> None:
    """Bring the ledger's consumer offsets forward to those of the partition shard at
    ``shard``, never back. Call in the transaction that merged the shard: the ledger then
    holds every delivery before them."""
    ledger.con.execute("ATTACH ? AS offsets_shard (READ_ONLY)", [str(shard)])
    try:
        ledger.con.execute(
            "INSERT INTO consumer_offsets SELECT * FROM offsets_shard.consumer_offsets "
            "ON CONFLICT DO UPDATE SET next_offset = "
            "greatest(consumer_offsets.next_offset, excluded.next_offset)"
        )
    finally:
        ledger.con.execute("DETACH offsets_shard")


def table_rows(ledger: Ledger, table: str, without: Set[str]) -> list[tuple[Any, ...]]:
    """Every row of ``table``, its columns but ``without`` in the table's order."""
    columns = [
        str(row[0])
        for row in ledger.con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
            "AND table_catalog = current_database() ORDER BY ordinal_position",
            [table],
        ).fetchall()
        if str(row[0]) not in without
    ]
    return ledger.con.execute(
        f"SELECT {', '.join(columns)} FROM {table}"  # names from information_schema
    ).fetchall()


def row_count(ledger: Ledger, table: str) -> int:
    """How many rows ``table`` holds."""
    row = ledger.con.execute(f"SELECT count(*) FROM {table}").fetchone()
    return int(row[0]) if row else 0
