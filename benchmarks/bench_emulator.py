"""Emulator throughput: emulate N tables for H hours into Avro files, against fastavro writing
the same records from a prepared list in the same run (issue 3: at least half the raw rate).

    python benchmarks/bench_emulator.py [--tables 24] [--hours 24] [--repeat 1]
    python benchmarks/bench_emulator.py --smoke     # 1 table, 30 minutes: that it still runs
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

from pipeline.events import default_codec
from pipeline.events.codec import DEFAULT_CONTAINER_CODEC
from pipeline.events.convert import RecordBuilder
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import plan_floor, simulate_table
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
    work = Path(tempfile.mkdtemp(prefix="bench-emulator-"))
    try:
        rates = parse_faults("all")
        emu_times, written = timed(
            lambda: simulate_to_files(args.tables, args.hours, 1, rates, DAY, work / "emu"),
            args.repeat,
        )
        # The baseline writes the very same records, prepared in memory beforehand, with
        # fastavro directly: one container file per table, same schema and codec.
        codec = default_codec()
        build = RecordBuilder(codec)
        prepared = []
        for plan in plan_floor(args.tables):
            events, _ = simulate_table(plan, DAY, args.hours, 1, rates)
            prepared.append((plan.table_id, [build(e) for e in events]))
        raw_dir = work / "raw"
        raw_dir.mkdir()

        def raw_write() -> int:
            n = 0
            for table_id, records in prepared:
                with open(raw_dir / f"{table_id}.avro", "wb") as out:
                    fastavro.writer(out, codec.schema, records, codec=DEFAULT_CONTAINER_CODEC)
                n += len(records)
            return n

        raw_times, raw_events = timed(raw_write, args.repeat)
        raw_bytes = sum(p.stat().st_size for p in raw_dir.iterdir())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emu_rate = written.events / min(emu_times)
    raw_rate = raw_events / min(raw_times)
    result = {
        "tables": args.tables,
        "hours": args.hours,
        "events": written.events,
        "emulator_files_bytes": written.bytes,
        "raw_files_bytes": raw_bytes,
        "emulator": summary(emu_times),
        "raw_fastavro_write": summary(raw_times),
        "emulator_events_per_s": emu_rate,
        "raw_write_events_per_s": raw_rate,
        "ratio_emulator_to_raw_write": emu_rate / raw_rate,
        "note": "the emulator runs one table per worker process (all cores); the raw baseline "
        "is fastavro writing prepared records in one process",
    }
    path = "not saved (--smoke)" if args.smoke else save("emulator", result)
    print(
        f"{written.events:,} events, {written.bytes / 1e6:.1f} MB: emulator "
        f"{emu_rate:,.0f} events/s, raw fastavro write {raw_rate:,.0f} events/s, ratio "
        f"{emu_rate / raw_rate:.2f} (target >= 0.5) -> {path}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
