"""Load Avro event files into the ledger.

DuckDB has one writer. The expensive work (decoding, replaying, and building the rows) runs
in worker processes, each making a :class:`~pipeline.ledger.columns.LedgerBatch` of one file:
its deliveries, dead letters and digest, and the rows derived from each table-day, as Arrow
tables. The one writer merges each batch with set-based SQL in one transaction. The same
design holds when workers run on other machines: a batch travels as Arrow IPC or Parquet
files, one per ledger table.

A batch's derived rows are final when the ledger held no deliveries for that table-day
before; otherwise the writer re-derives the table-day from every delivery it now holds (late
data re-derives only the table-days it touches).

A file is identified by its full path and content: a file loaded before, same path and same
bytes, is skipped; another version of it (a damaged file repaired and delivered again) adds
exactly the events the ledger lacks, and, when it decodes whole, resolves the dead letters
the earlier version left. Events for a gaming day already closed refuse the whole load
before anything is written (:class:`~pipeline.ingest.errors.ClosedGamingDayError`): with a
closed day in the ledger, every file is read and checked first, each batch set aside on disk
until all are, so memory holds one file's rows whatever the size of the load.

Workers die with the process that started them (Linux ``PR_SET_PDEATHSIG``): a replay killed
with SIGKILL leaves no worker behind.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import multiprocessing
import os
import pickle
import signal
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pipeline.collector import batch_collection
from pipeline.config.catalog import gaming_day_of, load_catalog
from pipeline.events import EventCodec
from pipeline.ingest.errors import ClosedGamingDayError, LateDelivery
from pipeline.ingest.pits import judge_pits
from pipeline.ingest.sources import DeadLetter, file_source, read_file
from pipeline.ingest.stage import (
    DEFAULT_SKEW_TOLERANCE,
    LoadReport,
    prepare,
    replay_deliveries,
)
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.columns import (
    LedgerBatch,
    dead_letter_table,
    delivery_table,
    derived_batch,
    input_file_table,
)
from pipeline.ledger.store import Delivery, Ledger


@dataclass(frozen=True)
class FileBatch:
    """What a worker made of one input file."""

    path: Path
    batch: LedgerBatch
    deliveries: int
    dead_letters: int


def read_and_replay(
    path: Path, catalog_path: Path, strict: bool = False, allow_unverified: bool = False
) -> FileBatch:
    """Decode one file and replay its table-days into ledger rows.

    Pure with respect to the ledger, so it runs in a worker process. ``strict`` re-encodes
    every decoded event to prove its bytes were canonical (see ``schemas/README.md``), at
    about twice the decoding cost; Kafka messages, which arrive one by one from any
    producer, are always decoded strictly. ``allow_unverified`` loads a file that neither
    block checksums nor a producer digest vouch for, and records that it did (see
    ``schemas/README.md``, "Integrity of files").
    """
    deliveries: list[Delivery] = []
    dead: list[DeadLetter] = []
    for item in read_file(path, EventCodec(verify=strict, allow_unverified=allow_unverified)):
        if isinstance(item, DeadLetter):
            dead.append(item)
        else:
            deliveries.append(item)
    catalog = load_catalog(catalog_path)
    prepared = prepare(deliveries, catalog)
    batch = LedgerBatch(
        deliveries=delivery_table(deliveries, gaming_day_of(catalog)),
        dead_letters=dead_letter_table(
            (d.source, d.position, d.reason, d.detail, d.device_id, d.raw, None) for d in dead
        ),
        input_files=input_file_table(
            file_source(path), _sha256(path), path.stat().st_size, len(deliveries)
        ),
        derived=derived_batch(prepared),
    )
    return FileBatch(path, batch, len(deliveries), len(dead))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class _LoadedVersions:
    """The input file versions the ledger holds, to skip a file loaded before. Only a file
    whose path and size match a version loaded before is hashed here; the workers hash the
    others."""

    def __init__(self, versions: Iterable[tuple[str, str, int]]) -> None:
        self.versions = set(versions)
        self.sizes = {(source, size) for source, _, size in self.versions}

    def holds(self, path: Path) -> bool:
        source, size = file_source(path), path.stat().st_size
        return (source, size) in self.sizes and (source, _sha256(path), size) in self.versions


PR_SET_PDEATHSIG = 1
"""``prctl`` option (linux/prctl.h): the signal this process gets when its parent dies."""


def _start_worker(parent: int) -> None:
    _die_with_parent(parent)
    # A worker builds a file's events and rows, hundreds of thousands of objects that live
    # until the file is done; the cyclic collector would rescan them thousands of times for
    # no garbage (measured: about 15 % of a worker's time). It runs once per file instead, over
    # what that file left (the modules loaded at start are frozen out of its scans).
    gc.freeze()
    gc.disable()


def _die_with_parent(parent: int) -> None:
    """Have the kernel kill this worker when its parent dies: a replay killed with SIGKILL
    cannot shut its pool down, and its workers would go on decoding for nobody."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"prctl(PR_SET_PDEATHSIG) failed: {os.strerror(errno)}")
    # A parent that died between the fork and prctl sends no signal; this worker's parent
    # is then another process (init or a subreaper).
    if os.getppid() != parent:
        os._exit(1)


def _read_and_replay_in_worker(
    path: Path, catalog_path: Path, strict: bool, allow_unverified: bool
) -> FileBatch:
    gc.collect()
    return read_and_replay(path, catalog_path, strict, allow_unverified)


def _batches(
    paths: Sequence[Path], catalog_path: Path, workers: int, strict: bool, allow_unverified: bool
) -> Iterator[FileBatch]:
    if workers <= 1 or len(paths) <= 1:
        for path in paths:
            yield read_and_replay(path, catalog_path, strict, allow_unverified)
        return
    # Largest first, so no worker is left with a big file while the other idles at the end.
    largest_first = sorted(paths, key=lambda p: -p.stat().st_size)
    # Workers are forked, so they start at once with every module loaded. A process whose
    # other threads may hold locks (an orchestrator's) should pass workers=1.
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_start_worker,
        initargs=(os.getpid(),),
    ) as pool:
        yield from pool.map(
            _read_and_replay_in_worker,
            largest_first,
            [catalog_path] * len(paths),
            [strict] * len(paths),
            [allow_unverified] * len(paths),
        )


@batch_collection()
def ingest_files(
    ledger: Ledger,
    paths: Sequence[Path],
    catalog_path: Path,
    workers: int | None = None,
    *,
    strict: bool = False,
    allow_unverified: bool = False,
) -> LoadReport:
    """Load every file, one merge transaction per file; returns the exact counts.

    A file already loaded with the same path and content is skipped: loading it again could
    change nothing. Raises :class:`~pipeline.ingest.errors.ClosedGamingDayError`, having
    written nothing, when any file holds events the ledger lacks for a closed gaming day.
    """
    catalog = load_catalog(catalog_path)
    total = LoadReport()
    unique = list({file_source(p): p for p in paths}.values())  # a file given twice is one
    loaded_before = _LoadedVersions(ledger.input_files())
    new = [p for p in unique if not loaded_before.holds(p)]
    total.files, total.files_skipped = len(new), len(unique) - len(new)
    closed = ledger.closed_days()
    workers = workers if workers is not None else min(len(new), os.cpu_count() or 1)
    with ledger.bulk_load():
        batches: Iterable[FileBatch] = _batches(
            new, catalog_path, workers, strict, allow_unverified
        )
        if closed:
            batches = _refuse_closed_days(ledger, batches, closed)
        for loaded in batches:
            with ledger.transaction():
                merged = ledger.merge_batch(loaded.batch)
                touched, stale = merged.touched, merged.stale
                realigned = ledger.realign_boundary_sessions(
                    {t for t, _ in touched}, gaming_day_of(catalog), DEFAULT_SKEW_TOLERANCE
                )
                touched |= realigned
                stale |= realigned
                for table_id, day in sorted(stale):
                    result = replay_deliveries(
                        table_id, ledger.deliveries_for(table_id, day), catalog
                    )
                    ledger.replace_table_day(table_id, day, result)
                judge_pits(ledger)
            total.deliveries += loaded.deliveries
            total.redelivered += loaded.deliveries - merged.new_deliveries
            total.dead_letters += loaded.dead_letters
            total.dead_letters_resolved += merged.resolved_dead_letters
            total.table_days += sorted(touched)
        for table_id, day in set(total.table_days):
            total.exceptions += ledger_exceptions.count_table_day(ledger, table_id, day)
    return total


def _refuse_closed_days(
    ledger: Ledger, batches: Iterable[FileBatch], closed: set[date]
) -> Iterator[FileBatch]:
    """``batches``, unless any holds events the ledger lacks for a ``closed`` day: then
    :class:`~pipeline.ingest.errors.ClosedGamingDayError` naming every such file and day,
    before the first batch is given out (so before anything is written).

    Each batch is checked as it arrives and pickled to a directory of this process's own
    next to the ledger, then read back one at a time once all passed: holding them all in
    memory cost the whole load's rows (measured: 340 MB more at the peak for a 24-table
    day). After the first late file the others are only read, to be named."""
    late: list[LateDelivery] = []
    kept: list[Path] = []
    with tempfile.TemporaryDirectory(dir=ledger.path.parent, prefix=".load-") as set_aside:
        for loaded in batches:
            late += [
                LateDelivery(file_source(loaded.path), day, events)
                for day, events in sorted(
                    ledger.new_deliveries_by_day(loaded.batch.deliveries, closed).items()
                )
            ]
            if not late:
                kept.append(Path(set_aside) / f"{len(kept)}.pickle")
                with kept[-1].open("wb") as out:
                    pickle.dump(loaded, out, protocol=pickle.HIGHEST_PROTOCOL)
            del loaded  # before the next batch arrives
        if late:
            raise ClosedGamingDayError(ledger.path, late)
        for path in kept:
            with path.open("rb") as stored:
                batch: FileBatch = pickle.load(stored)  # written above by this process
            path.unlink()
            yield batch
