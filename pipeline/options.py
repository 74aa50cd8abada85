"""Options, checks and output several command modules share (:mod:`pipeline.cli`,
:mod:`pipeline.bundle.cli`)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.exits import CommandError

if TYPE_CHECKING:
    from pipeline.ledger.store import Ledger

DB_ENV = "BACCARAT_DB"
"""The ledger every command with ``--db`` uses when the flag is not given."""


def add_db_option(p: argparse.ArgumentParser, what: str = "the ledger (DuckDB file)") -> None:
    """``--db``, defaulting to ``$BACCARAT_DB``; :func:`pipeline.cli.main` refuses the
    command when neither is given."""
    given = os.environ.get(DB_ENV)
    p.add_argument(
        "--db",
        type=Path,
        default=Path(given) if given else None,
        metavar="FILE",
        help=f"{what} (default ${DB_ENV}{f', now {given}' if given else ''})",
    )
    p.set_defaults(needs_db=True)


def add_json_option(p: argparse.ArgumentParser, shape: str) -> None:
    """``--json``; ``shape`` names the object's keys in the command's help, so a script's
    author reads what to expect without running it."""
    p.add_argument(
        "--json",
        action="store_true",
        help=f"print the result as one JSON object (for scripts): {shape}",
    )


def print_json(value: Mapping[str, Any]) -> None:
    """A command's ``--json`` result: one object, keys sorted, dates and paths as strings."""
    print(json.dumps(value, indent=2, sort_keys=True, default=str))


KNOWN_TABLES_SHOWN = 12
"""How many of the ledger's table ids a refused ``--table`` lists before it only counts."""


def require_known_table(ledger: Ledger, table_id: str, gaming_date: date | None) -> None:
    """Refuse a ``--table`` the ledger holds no events of (on ``gaming_date`` when given),
    naming the tables it does hold: a mistyped id would otherwise find nothing and look like
    a table without findings."""
    known = (
        ledger.tables_of_day(gaming_date)
        if gaming_date is not None
        else sorted({t for t, _ in ledger.table_days()})
    )
    if table_id in known:
        return
    day = f" on gaming day {gaming_date}" if gaming_date is not None else ""
    more = len(known) - KNOWN_TABLES_SHOWN
    holds = (
        f"it holds events of {', '.join(known[:KNOWN_TABLES_SHOWN])}"
        + (f" and {more} more tables" if more > 0 else "")
        if known
        else "it holds no table's events"
    )
    raise CommandError(
        f"--table {table_id!r} is unknown to the ledger {ledger.path}{day}: {holds}; check "
        "the table id" + (" and the day" if gaming_date is not None else "")
    )
