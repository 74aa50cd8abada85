"""The read-only copy of the ledger a reader that must never stand in the writer's way works
on (the dashboards, :mod:`dashboards.source`), and the running of a question on it.

DuckDB lets one process write a database file only while no other process has it open, even
read-only. So a reader opens the file read-only just long enough to copy it (the shared lock
makes the copy consistent: no writer can be in the middle of a checkpoint), closes it, and
asks its questions of the copy. When to take a copy, how often to retry and how long to keep
one is the reader's policy; what the ledger's files are and how to copy them is said here,
so when the storage changes only this package changes.

A writer that cannot let go of the file for a while (the stream, while a close runs beside
its batches: :class:`~pipeline.stream.ledgers.OneLedger`) writes the readers' copy itself,
through a connection of its own to the database it holds (:class:`CopyWriter`): DuckDB copies
the stored tables as one committed state into a new file, which then replaces the copy before
under one name in ``<ledger>.snapshots/`` (:func:`writers_folder`), so a reader finds a whole
copy or none. A byte copy of the file behind the writer's back is no copy: the file and its
log in the middle of a checkpoint are a crash image DuckDB may refuse to open. The stored
tables hold the open days only (a closed day is read in place from its archive, whose files
the copied ``archived_days`` names: :mod:`pipeline.ledger.working_store`), so a copy costs
what the open days weigh, not the days stored before. A reader that cannot open the file says
that it waits (:func:`ask_for_copy`) and takes the writer's copy when it is newer than its
own (:func:`take_writers_copy`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from pipeline.ledger.connection import ledger_database
from pipeline.ledger.store import Ledger
from pipeline.ledger.working_store import wal_of
from pipeline.safe_text import sql_literal

ReadError = duckdb.Error
"""What a question raises on a copy it cannot answer from (a file that is not a ledger)."""


class Unreadable(RuntimeError):
    """The ledger cannot be opened read-only right now: a writer holds it (or it is not a
    ledger). The message is the database's."""


def signature(live: Path) -> tuple[int, ...]:
    """Changes whenever the ledger's data may have: the modification time and size of its
    file and of its write-ahead log."""
    parts: list[int] = []
    for p in (live, wal_of(live)):
        try:
            st = p.stat()
        except FileNotFoundError:
            parts += [0, 0]
        else:
            parts += [st.st_mtime_ns, st.st_size]
    return tuple(parts)


def _copy_path(directory: Path, source: Path, taken_at: tuple[int, ...]) -> Path:
    """Where a reader keeps its copy of ``source`` at signature ``taken_at``: a name of its
    own for each, so a copy once taken is reused and never changes under a page reading it."""
    digest = hashlib.sha256(f"{source.resolve()}{taken_at}".encode()).hexdigest()[:16]
    return directory / f"{digest}.duckdb"


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
        copy = _copy_path(directory, live, taken_at)
        if not copy.exists():
            partial = copy.with_suffix(".partial")
            shutil.copyfile(live, partial)
            if wal_of(live).exists():
                shutil.copyfile(wal_of(live), wal_of(partial))
                wal_of(partial).replace(wal_of(copy))
            partial.replace(copy)
    finally:
        con.close()
    return copy, taken_at


WRITERS_FOLDER_SUFFIX = ".snapshots"
WRITERS_COPY = "ledger.duckdb"
ASKED = "asked"
ASK_EVERY = 0.5
"""Seconds between two of a reader's asks for the writer's copy (:func:`ask_for_copy`): a
reader waiting for the file tries it every few hundredths of a second."""
_ATTACHED = "readers_copy"


def writers_folder(live: Path) -> Path:
    """Where the writer of the ledger ``live`` leaves the copy it writes for its readers and
    they ask for one: ``<ledger>.snapshots`` beside the file."""
    return live.with_name(live.name + WRITERS_FOLDER_SUFFIX)


def open_writers_folder(live: Path) -> None:
    """Make the writer's folder of ``live``, where every reader's account may ask for a copy
    (mode 1733, sticky, like a mail spool: the copy is read by its name, and a file a reader
    leaves there is told apart by its owner)."""
    folder = writers_folder(live)
    folder.mkdir(exist_ok=True)
    folder.chmod(0o1733)


class CopyNotWritten(RuntimeError):
    """The readers' copy could not be written; the message says why and what follows."""


@dataclass(frozen=True, slots=True)
class WrittenCopy:
    """A copy :class:`CopyWriter` wrote: where, the time its state was read (seconds since
    the epoch, also its file's modification time), how long writing it took and its size."""

    path: Path
    read_at: float
    seconds: float
    size: int


class CopyWriter:
    """Writes the readers' copy of a ledger its writer holds, through a connection of its own
    to the ledger's database (without the ledger's views, which are its connection's: the
    copy reads a closed day from the archive the copied ``archived_days`` names, as the
    ledger does). Made on the ledger's thread; :meth:`write` may then run on another, beside
    the ledger's own transactions, and sees only what they committed."""

    def __init__(self, ledger: Ledger) -> None:
        self.live = ledger.path
        self._database = ledger_database(ledger)
        self._con = ledger.con.cursor()

    def write(self) -> WrittenCopy:
        """Write the copy, in place of the one before (mode as the ledger file's: whoever
        may read the ledger may read it); :class:`CopyNotWritten` when it cannot be."""
        folder = writers_folder(self.live)
        partial = folder / f".{WRITERS_COPY}.partial"
        copy = folder / WRITERS_COPY
        read_at, started = time.time(), time.perf_counter()
        try:
            remove_copy(partial)  # left by a writer stopped in the middle of one
            self._con.execute(f"ATTACH {sql_literal(str(partial))} AS {_ATTACHED}")
            try:
                self._con.execute(f"COPY FROM DATABASE {self._database} TO {_ATTACHED}")
                self._con.execute(f"CHECKPOINT {_ATTACHED}")  # all in the file: no log
            finally:
                self._con.execute(f"DETACH {_ATTACHED}")
            os.utime(partial, (read_at, read_at))
            partial.chmod(stat.S_IMODE(self.live.stat().st_mode))
            size = partial.stat().st_size
            partial.replace(copy)
        except (duckdb.Error, OSError) as err:
            remove_copy(partial)
            raise CopyNotWritten(
                f"{copy}: the readers' copy of {self.live} could not be written "
                f"({type(err).__name__}: {err}); the readers keep their last snapshot until "
                "the next copy"
            ) from err
        return WrittenCopy(copy, read_at, time.perf_counter() - started, size)

    def close(self) -> None:
        self._con.close()


def remove_writers_copy(live: Path) -> None:
    """Delete the copy the writer of ``live`` wrote for its readers, once it lets them open
    the file again (readers that took it keep theirs)."""
    remove_copy(writers_folder(live) / WRITERS_COPY)


def asked_at(live: Path) -> float | None:
    """When a reader of ``live`` last asked for the writer's copy (:func:`ask_for_copy`), in
    seconds since the epoch; ``None``: never."""
    try:
        return (writers_folder(live) / ASKED).stat().st_mtime
    except FileNotFoundError:
        return None


def ask_for_copy(live: Path) -> None:
    """Tell the writer of ``live`` that a reader waits for a copy, at most every
    :data:`ASK_EVERY` seconds; nothing where no writer writes copies (no folder)."""
    asked = writers_folder(live) / ASKED
    try:
        if time.time() - asked.stat().st_mtime < ASK_EVERY:
            return
    except FileNotFoundError:
        try:
            made = os.open(asked, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except (FileNotFoundError, FileExistsError, PermissionError):
            return  # no writer writes copies (no folder), or another reader asked just now
        os.fchmod(made, 0o666)  # every reader's account may ask after this one
        os.close(made)
        return
    with suppress(PermissionError):  # made unwritable by hand: the writer's copies wait
        os.utime(asked)


def take_writers_copy(
    live: Path, directory: Path, newer_than: float
) -> tuple[Path, float, tuple[int, ...]] | None:
    """The copy the writer of ``live`` wrote for its readers (:class:`CopyWriter`), copied
    into ``directory``, with the time its state was read and its signature; ``None`` when
    there is none read after ``newer_than`` (seconds since the epoch), or none owned by the
    ledger file's owner (anyone may leave a file in the folder)."""
    written = writers_folder(live) / WRITERS_COPY
    try:
        with written.open("rb") as source:
            st = os.fstat(source.fileno())  # of the file opened: a newer one may replace it
            if st.st_mtime <= newer_than or st.st_uid != live.stat().st_uid:
                return None
            taken_at = (st.st_ino, st.st_mtime_ns, st.st_size)
            copy = _copy_path(directory, written, taken_at)
            if not copy.exists():
                partial = copy.with_suffix(".partial")
                with partial.open("wb") as target:
                    shutil.copyfileobj(source, target)
                partial.replace(copy)
    except (FileNotFoundError, PermissionError):
        return None  # none written, or not for this reader's account
    return copy, st.st_mtime, taken_at


def remove_copy(copy: Path) -> None:
    """Delete a copy taken by :func:`take_copy` (readers still holding it keep their handle,
    on POSIX)."""
    for old in (copy, wal_of(copy)):
        old.unlink(missing_ok=True)


def frame(ledger: Ledger, sql: str, params: list[Any] | None = None) -> pd.DataFrame:
    """A question's result as a DataFrame, asked on the thread's own cursor (safe across
    Streamlit threads)."""
    return ledger.cursor().execute(sql, params or []).df()
