"""Where emulated events go: Avro container files, one per table per gaming day (the embedded
default). Tables are emulated and written in worker processes; only counts and the fault
manifest come back to the parent."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from pipeline.events import default_codec
from pipeline.events.convert import RecordBuilder
from pipeline.events.model import TableEvent
from pipeline.rules.config import TableRules
from pipeline.safe_text import file_stem, inside
from pipeline.simulate.faults import FaultKind, InjectedFault, write_manifest
from pipeline.simulate.run import TablePlan, plan_floor, simulate_table


@dataclass
class FilesWritten:
    paths: list[Path] = field(default_factory=list)
    events: int = 0
    bytes: int = 0
    faults: list[InjectedFault] = field(default_factory=list)


def table_file(out_dir: Path, gaming_date: date, table_id: str) -> Path:
    return inside(out_dir / "events" / gaming_date.isoformat(), f"{file_stem(table_id)}.avro")


def write_table_file(events: list[TableEvent], path: Path) -> int:
    """Write one table-day's events as an Avro container file; returns the event count."""
    codec = default_codec()
    build = RecordBuilder(codec)
    path.parent.mkdir(parents=True, exist_ok=True)
    return codec.write_events(path, (build(e) for e in events))


def _emulate_and_write(
    plan: TablePlan,
    gaming_date: date,
    hours: float,
    seed: int,
    rates: Mapping[FaultKind, float],
    out_dir: Path,
) -> tuple[Path, int, list[InjectedFault]]:
    events, faults = simulate_table(plan, gaming_date, hours, seed, rates)
    path = table_file(out_dir, gaming_date, plan.table_id)
    return path, write_table_file(events, path), faults


def simulate_to_files(
    tables: int,
    hours: float,
    seed: int,
    rates: Mapping[FaultKind, float],
    gaming_date: date,
    out_dir: Path,
    catalog: Mapping[str, TableRules] | None = None,
    workers: int | None = None,
    on_table: Callable[[Path], object] = lambda _: None,
) -> FilesWritten:
    """Emulate every table into its own file, ``workers`` tables at a time, and write the
    ground-truth manifest ``out_dir/faults.jsonl``. Same seed, same files. ``on_table`` is
    told each file as it is written (progress)."""
    plans = plan_floor(tables, catalog)
    workers = workers if workers is not None else min(tables, os.cpu_count() or 1)
    args = [(p, gaming_date, hours, seed, rates, out_dir) for p in plans]
    written = FilesWritten()
    with contextlib.ExitStack() as stack:
        if workers <= 1:
            emulated: Iterable[tuple[Path, int, list[InjectedFault]]] = (
                _emulate_and_write(*a) for a in args
            )
        else:
            pool = stack.enter_context(ProcessPoolExecutor(max_workers=workers))
            emulated = pool.map(_emulate_and_write, *zip(*args, strict=True))
        for path, count, faults in emulated:  # in table order, whichever worker finished
            written.paths.append(path)
            written.events += count
            written.bytes += path.stat().st_size
            written.faults.extend(faults)
            on_table(path)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_manifest(out_dir / "faults.jsonl", written.faults)
    return written
