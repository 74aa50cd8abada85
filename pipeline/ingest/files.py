"""Load Avro event files into the ledger, decoding and replaying files in parallel processes
while one process owns the DuckDB writer."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.config.catalog import load_catalog
from pipeline.ingest.sources import DeadLetter, read_file
from pipeline.ingest.stage import DEFAULT_DAY_STARTS, LoadReport, TableDay, load_batch, prepare
from pipeline.ledger.store import Delivery, Ledger
from pipeline.replay.rows import ReplayResult


@dataclass
class PreparedFile:
    path: Path
    sha256: str = ""
    size: int = 0
    deliveries: list[Delivery] = field(default_factory=list)
    dead_letters: list[DeadLetter] = field(default_factory=list)
    prepared: dict[TableDay, ReplayResult] = field(default_factory=dict)


def prepare_file(path: Path, catalog_path: Path) -> PreparedFile:
    """Decode one file and replay its table-days: pure, so it runs in a worker process."""
    data = path.read_bytes()
    out = PreparedFile(path, hashlib.sha256(data).hexdigest(), len(data))
    for item in read_file(path):
        if isinstance(item, DeadLetter):
            out.dead_letters.append(item)
        else:
            out.deliveries.append(item)
    out.prepared = prepare(out.deliveries, load_catalog(catalog_path), DEFAULT_DAY_STARTS)
    return out


def _prepared(
    paths: Sequence[Path],
    catalog_path: Path,
    workers: int,
) -> Iterator[PreparedFile]:
    if workers <= 1 or len(paths) <= 1:
        for path in paths:
            yield prepare_file(path, catalog_path)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(prepare_file, paths, [catalog_path] * len(paths))


def ingest_files(
    ledger: Ledger, paths: Sequence[Path], catalog_path: Path, workers: int | None = None
) -> LoadReport:
    """Load every file, one transaction per file, in file order; returns the totals."""
    catalog = load_catalog(catalog_path)
    total = LoadReport()
    workers = workers if workers is not None else min(len(paths), os.cpu_count() or 1)
    for prepared in _prepared(paths, catalog_path, workers):

        def remember_file(ledger: Ledger, p: PreparedFile = prepared) -> None:
            ledger.record_input_file(p.path.name, p.sha256, p.size, len(p.deliveries))

        report = load_batch(
            ledger,
            prepared.deliveries,
            prepared.dead_letters,
            catalog,
            prepared=prepared.prepared,
            in_same_transaction=remember_file,
        )
        total.deliveries += report.deliveries
        total.dead_letters += report.dead_letters
        total.exceptions += report.exceptions
        total.rounds += report.rounds
        total.table_days += report.table_days
    return total
