"""The read-only copy of the ledger a reader that must never stand in the writer's way works
on (the dashboards, :mod:`dashboards.source`), and the running of a question on it.

DuckDB lets one process write a database file only while no other process has it open, even
read-only. So a reader opens the file read-only just long enough to copy it (the shared lock
makes the copy consistent: no writer can be in the middle of a checkpoint), closes it, and
asks its questions of the copy. When to take a copy, how often to retry and how long to keep
one is the reader's policy; what the ledger's files are and how to copy them is said here,
so when the storage changes only this package changes.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from pipeline.ledger.store import Ledger

ReadError = duckdb.Error
"""What a question raises on a copy it cannot answer from (a file that is not a ledger)."""


class Unreadable(RuntimeError):
    """The ledger cannot be opened read-only right now: a writer holds it (or it is not a
    ledger). The message is the database's."""


def _wal(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def signature(live: Path) -> tuple[int, ...]:
    """Changes whenever the ledger's data may have: the modification time and size of its
    file and of its write-ahead log."""
    parts: list[int] = []
    for p in (live, _wal(live)):
        try:
            st = p.stat()
        except FileNotFoundError:
            parts += [0, 0]
        else:
            parts += [st.st_mtime_ns, st.st_size]
    return tuple(parts)


def take_copy(live: Path, directory: Path) -> tuple[Path, tuple[int, ...]]:
    """A consistent copy of the ledger ``live`` in ``directory`` and the :func:`signature`
    it was taken at; a copy of the same file at the same signature is reused. Raises
    :class:`Unreadable` when the file cannot be opened read-only."""
    try:
        con = duckdb.connect(str(live), read_only=True)
    except duckdb.Error as err:  # the writer holds the file (or it is not a ledger)
        raise Unreadable(str(err)) from err
    try:
        taken_at = signature(live)
        digest = hashlib.sha256(f"{live.resolve()}{taken_at}".encode()).hexdigest()[:16]
        copy = directory / f"{digest}.duckdb"
        if not copy.exists():
            partial = copy.with_suffix(".partial")
            shutil.copyfile(live, partial)
            if _wal(live).exists():
                shutil.copyfile(_wal(live), _wal(partial))
                _wal(partial).replace(_wal(copy))
            partial.replace(copy)
    finally:
        con.close()
    return copy, taken_at


def remove_copy(copy: Path) -> None:
    """Delete a copy taken by :func:`take_copy` (readers still holding it keep their handle,
    on POSIX)."""
    for old in (copy, _wal(copy)):
        old.unlink(missing_ok=True)


def frame(ledger: Ledger, sql: str, params: list[Any] | None = None) -> pd.DataFrame:
    """A question's result as a DataFrame, asked on the thread's own cursor (safe across
    Streamlit threads)."""
    return ledger.cursor().execute(sql, params or []).df()
