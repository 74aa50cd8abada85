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
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pipeline.config.catalog import load_catalog
from pipeline.events import EventCodec
from pipeline.ingest.sources import DeadLetter, read_file
from pipeline.ingest.stage import (
    DEFAULT_DAY_STARTS,
    DEFAULT_SKEW_TOLERANCE,
    LoadReport,
    prepare,
    replay_or_explain,
)
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
    prepared = prepare(deliveries, load_catalog(catalog_path), DEFAULT_DAY_STARTS)
    batch = LedgerBatch(
        deliveries=delivery_table(deliveries, DEFAULT_DAY_STARTS),
        dead_letters=dead_letter_table(
            (d.source, d.position, d.reason, d.detail, d.device_id, d.raw, None) for d in dead
        ),
        input_files=input_file_table(
            path.name, _sha256(path), path.stat().st_size, len(deliveries)
        ),
        derived=derived_batch(prepared),
    )
    return FileBatch(batch, len(deliveries), len(dead))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _already_loaded(path: Path, known: Mapping[str, tuple[str, int]]) -> bool:
    """Whether the ledger holds this file, same name and content. Only a file whose name and
    size match one loaded before is hashed here; the workers hash the others."""
    sha256, size = known.get(path.name, ("", -1))
    return size == path.stat().st_size and sha256 == _sha256(path)


def _start_worker() -> None:
    # A worker builds a file's events and rows, hundreds of thousands of objects that live
    # until the file is done; the cyclic collector would rescan them thousands of times for
    # no garbage (measured: about 15 % of a worker's time). It runs once per file instead, over
    # what that file left (the modules loaded at start are frozen out of its scans).
    gc.freeze()
    gc.disable()


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
    ) as pool:
        yield from pool.map(
            _read_and_replay_in_worker,
            largest_first,
            [catalog_path] * len(paths),
            [strict] * len(paths),
            [allow_unverified] * len(paths),
        )


def ingest_files(
    ledger: Ledger,
    paths: Sequence[Path],
    catalog_path: Path,
    workers: int | None = None,
    *,
    strict: bool = False,
    allow_unverified: bool = False,
) -> LoadReport:
    """Load every file, one merge transaction per file, in file order; returns the totals.

    A file already loaded with the same name and content is skipped: loading it again could
    change nothing (deliveries are keyed by file name and position).
    """
    catalog = load_catalog(catalog_path)
    total = LoadReport()
    known = ledger.input_files()
    new = [p for p in paths if not _already_loaded(p, known)]
    workers = workers if workers is not None else min(len(new), os.cpu_count() or 1)
    # While workers keep both cores busy, the writer uses one DuckDB thread, and checkpoints
    # once at the end of the load rather than per 16 MB of log: each checkpoint recompresses
    # what changed, and a load changes everything (measured: a third of the writer's time
    # for a 24-table day).
    ledger.con.execute("SET threads = 1")
    ledger.con.execute("SET checkpoint_threshold = '64MB'")
    try:
        for loaded in _batches(new, catalog_path, workers, strict, allow_unverified):
            with ledger.transaction():
                touched, stale = ledger.merge_batch(loaded.batch)
                realigned = ledger.realign_boundary_sessions(
                    {t for t, _ in touched}, DEFAULT_DAY_STARTS, DEFAULT_SKEW_TOLERANCE
                )
                touched |= realigned
                stale |= realigned
                for table_id, day in sorted(stale):
                    result = replay_or_explain(table_id, ledger.events_for(table_id, day), catalog)
                    ledger.replace_table_day(table_id, day, result)
            total.deliveries += loaded.deliveries
            total.dead_letters += loaded.dead_letters
            total.table_days += sorted(touched)
        for table_id, day in set(total.table_days):
            row = ledger.con.execute(
                "SELECT count(*) FROM exceptions WHERE table_id = ? AND gaming_date = ?",
                [table_id, day],
            ).fetchone()
            total.exceptions += int(row[0]) if row else 0
    finally:
        ledger.con.execute("RESET checkpoint_threshold")
        ledger.con.execute("RESET threads")
    ledger.con.execute("CHECKPOINT")
    return total
