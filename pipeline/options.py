"""Options several command modules share (:mod:`pipeline.cli`, :mod:`pipeline.bundle.cli`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

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
