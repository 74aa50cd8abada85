"""File path: load + replay + reconcile + ledger writes of a gaming day's Avro files, against
raw fastavro decoding of the same files in the same run (issue 4: at most 2.0x).

    python benchmarks/bench_replay.py [--tables 24] [--hours 24]
    python benchmarks/bench_replay.py --smoke       # 1 table, 30 minutes: that it still runs
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from datetime import date
from pathlib import Path

import fastavro

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SMOKE_HELP, save, summary, timed

from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.ingest.files import ingest_files
from pipeline.ledger.store import Ledger
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.sinks import simulate_to_files

DAY = date(2026, 11, 24)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help=SMOKE_HELP)
    args = parser.parse_args()
    if args.smoke:
        args.tables, args.hours = 1, 0.5
    work = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    try:
        written = simulate_to_files(
            args.tables, args.hours, 3, parse_faults("all"), DAY, work / "day"
        )

        def raw_decode() -> int:
            n = 0
            for path in written.paths:
                with open(path, "rb") as fo:
                    for _ in fastavro.reader(fo):
                        n += 1
            return n

        decode_times, decoded = timed(raw_decode, args.repeat)
        runs = iter(range(args.repeat))

        def pipeline_run() -> int:
            db = work / f"ledger-{next(runs)}.duckdb"
            with Ledger(db) as ledger:
                return ingest_files(ledger, written.paths, DEFAULT_CATALOG).deliveries

        load_times, loaded = timed(pipeline_run, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ratio = min(load_times) / min(decode_times)
    result = {
        "tables": args.tables,
        "hours": args.hours,
        "events": loaded,
        "decoded": decoded,
        "raw_fastavro_decode": summary(decode_times),
        "pipeline": summary(load_times),
        "ratio_pipeline_to_raw_decode": ratio,
        "pipeline_events_per_s": loaded / min(load_times),
        "note": "pipeline = decode, replay, reconciliation and Arrow row batches in worker "
        "processes, inserted by the single DuckDB writer, checkpoint included (ingest_files, "
        "as baccarat-audit replay); baseline = fastavro.reader over the same files in one "
        "process",
    }
    path = "not saved (--smoke)" if args.smoke else save("replay", result)
    print(
        f"{loaded:,} events: raw decode {min(decode_times):.1f} s, pipeline "
        f"{min(load_times):.1f} s ({loaded / min(load_times):,.0f} events/s): ratio "
        f"{ratio:.2f} (target <= 2.0) -> {path}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
