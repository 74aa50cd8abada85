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
import multiprocessing.context
import os
import threading
from collections.abc import Iterator, Sequence
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

WORKER_GC_THRESHOLD = 50_000
"""A worker holds a whole file's events and replay rows, hundreds of thousands of long-lived
objects; at Python's default threshold (700) the collector rescans them thousands of times
for no garbage (measured: about 10 % of a worker's time). None of them form cycles."""


@dataclass(frozen=True)
class FileBatch:
    """What a worker made of one input file."""

    source: Path
    batch: LedgerBatch
    deliveries: int
    dead_letters: int


def read_and_replay(path: Path, sha256: str, catalog_path: Path, strict: bool = False) -> FileBatch:
    """Decode one file and replay its table-days into ledger rows.

    Pure with respect to the ledger, so it runs in a worker process. ``strict`` re-encodes
    every decoded event to prove its bytes were canonical (see ``schemas/README.md``), at
    about twice the decoding cost; Kafka messages, which arrive one by one from any
    producer, are always decoded strictly.
    """
    deliveries: list[Delivery] = []
    dead: list[DeadLetter] = []
    for item in read_file(path, EventCodec(verify=strict)):
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
        input_files=input_file_table(path.name, sha256, path.stat().st_size, len(deliveries)),
        derived=derived_batch(prepared),
    )
    return FileBatch(path, batch, len(deliveries), len(dead))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _worker_context() -> multiprocessing.context.BaseContext:
    """``fork`` where it is safe, else a fork server.

    Forked workers start at once with every module loaded, but only a process without other
    threads can fork safely: a lock another thread holds at the fork (logging's, an HTTP
    client's) stays locked in the child forever. Orchestrated runs (Prefect) have threads.
    """
    if threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def _start_worker() -> None:
    gc.set_threshold(WORKER_GC_THRESHOLD)


def _batches(
    files: Sequence[tuple[Path, str]], catalog_path: Path, workers: int, strict: bool
) -> Iterator[FileBatch]:
    if workers <= 1 or len(files) <= 1:
        for path, sha256 in files:
            yield read_and_replay(path, sha256, catalog_path, strict)
        return
    paths, digests = zip(*files, strict=True)
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=_worker_context(), initializer=_start_worker
    ) as pool:
        yield from pool.map(
            read_and_replay,
            paths,
            digests,
            [catalog_path] * len(files),
            [strict] * len(files),
        )


def ingest_files(
    ledger: Ledger,
    paths: Sequence[Path],
    catalog_path: Path,
    workers: int | None = None,
    *,
    strict: bool = False,
) -> LoadReport:
    """Load every file, one merge transaction per file, in file order; returns the totals.

    A file already loaded with the same name and content is skipped: loading it again could
    change nothing (deliveries are keyed by file name and position).
    """
    catalog = load_catalog(catalog_path)
    total = LoadReport()
    digests = [(path, _sha256(path)) for path in paths]
    new = [(path, sha) for path, sha in digests if not ledger.holds_input_file(path.name, sha)]
    workers = workers if workers is not None else min(len(new), os.cpu_count() or 1)
    # While workers keep both cores busy, the writer uses one DuckDB thread, and checkpoints
    # once at the end of the load rather than per 16 MB of log: each checkpoint recompresses
    # what changed, and a load changes everything (measured: a third of the writer's time
    # for a 24-table day).
    ledger.con.execute("SET threads = 1")
    ledger.con.execute("SET checkpoint_threshold = '1GB'")
    try:
        for loaded in _batches(new, catalog_path, workers, strict):
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
