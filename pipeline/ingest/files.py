"""Load Avro event files into the ledger.

DuckDB has one writer. The expensive work (decoding, replaying, and writing the rows) runs in
worker processes, each into a **shard**: a small ledger file of its own with the same schema.
The one writer merges each shard with set-based SQL in one transaction. The same design holds
when workers run on other machines: they ship shard files to the writer.

A shard's derived rows are final when the ledger held no deliveries for that table-day before;
otherwise the writer re-derives the table-day from every delivery it now holds (late data
re-derives only the table-days it touches).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pipeline.config.catalog import load_catalog
from pipeline.events import EventCodec
from pipeline.ingest.sources import DeadLetter, read_file
from pipeline.ingest.stage import (
    DEFAULT_DAY_STARTS,
    LoadReport,
    prepare,
    replay_or_explain,
)
from pipeline.ledger.store import Delivery, Ledger


@dataclass(frozen=True)
class Shard:
    """What a worker made of one input file."""

    source: Path
    shard: Path
    deliveries: int
    dead_letters: int


def write_shard(path: Path, catalog_path: Path, shard_path: Path, strict: bool = False) -> Shard:
    """Decode one file, replay its table-days and write everything to a shard ledger.

    Pure with respect to the main ledger, so it runs in a worker process. ``strict``
    re-encodes every decoded event to prove its bytes were canonical (see
    ``schemas/README.md``), at about twice the decoding cost; Kafka messages, which arrive one
    by one from any producer, are always decoded strictly.
    """
    deliveries: list[Delivery] = []
    dead: list[DeadLetter] = []
    for item in read_file(path, EventCodec(verify=strict)):
        if isinstance(item, DeadLetter):
            dead.append(item)
        else:
            deliveries.append(item)
    prepared = prepare(deliveries, load_catalog(catalog_path), DEFAULT_DAY_STARTS)
    with Ledger(shard_path) as shard, shard.transaction():
        shard.add_deliveries(deliveries, DEFAULT_DAY_STARTS)
        shard.add_dead_letters(
            (d.source, d.position, d.reason, d.detail, d.device_id, d.raw, None) for d in dead
        )
        shard.record_input_file(path.name, _sha256(path), path.stat().st_size, len(deliveries))
        for (table_id, day), result in prepared.items():
            shard.replace_table_day(table_id, day, result)
    return Shard(path, shard_path, len(deliveries), len(dead))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _shards(
    paths: Sequence[Path], catalog_path: Path, workers: int, strict: bool, scratch: Path
) -> Iterator[Shard]:
    targets = [scratch / f"shard-{i:05d}.duckdb" for i in range(len(paths))]
    if workers <= 1 or len(paths) <= 1:
        for path, target in zip(paths, targets, strict=True):
            yield write_shard(path, catalog_path, target, strict)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(
            write_shard, paths, [catalog_path] * len(paths), targets, [strict] * len(paths)
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
    paths = [p for p in paths if not ledger.holds_input_file(p.name, _sha256(p))]
    workers = workers if workers is not None else min(len(paths), os.cpu_count() or 1)
    scratch = Path(tempfile.mkdtemp(prefix="shards-", dir=ledger.path.parent))
    try:
        for shard in _shards(paths, catalog_path, workers, strict, scratch):
            with ledger.transaction():
                touched, stale = ledger.merge_shard(shard.shard)
                for table_id, day in sorted(stale):
                    result = replay_or_explain(table_id, ledger.events_for(table_id, day), catalog)
                    ledger.replace_table_day(table_id, day, result)
            shard.shard.unlink(missing_ok=True)
            total.deliveries += shard.deliveries
            total.dead_letters += shard.dead_letters
            total.table_days += sorted(touched)
        for table_id, day in set(total.table_days):
            row = ledger.con.execute(
                "SELECT count(*) FROM exceptions WHERE table_id = ? AND gaming_date = ?",
                [table_id, day],
            ).fetchone()
            total.exceptions += int(row[0]) if row else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return total
