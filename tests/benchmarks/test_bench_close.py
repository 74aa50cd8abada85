"""The close benchmark's smoke mode runs in the test suite, so the benchmark cannot rot
unnoticed: a tiny day is emulated, replayed with 1 and with 2 workers and closed in child
processes, the ratio and the 500-table projection of the serial steps are printed; nothing is
saved over the recorded results."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"


def test_bench_close_smoke_runs_the_replays_and_the_close_and_saves_nothing() -> None:
    before = {p.name: p.stat().st_mtime_ns for p in RESULTS.glob("*.json")}

    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_close.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )

    assert done.returncode == 0, done.stderr
    line = re.search(
        r"^1 tables, ([\d,]+) events: replay ([\d.]+) s \((\d+) MB\), close ([\d.]+) s "
        r"\((\d+) MB, quality (PASSED|WARNINGS|BLOCKED); the gate ([\d.]+) s, (\d+) MB\): "
        r"close/replay ([\d.]+)",
        done.stdout,
        re.MULTILINE,
    )
    assert line, done.stdout
    events, replay_s, _, close_s, close_mb, _, gate_s, gate_mb, ratio = line.groups()
    assert int(events.replace(",", "")) > 100
    assert float(replay_s) > 0 and float(close_s) > 0 and int(close_mb) > 0
    assert 0 < float(gate_s) <= float(close_s) and 0 < int(gate_mb) <= int(close_mb)
    assert abs(float(ratio) - float(close_s) / float(replay_s)) < 0.02 + float(ratio) * 0.1
    replays = re.search(
        r"^  replay: 1 workers ([\d.]+) s .*; 2 workers ([\d.]+) s .*\n"
        r"  replay\+close wall, most workers against fewest: ([\d.]+)\n"
        r"  at 500 tables: writer (\d+) s, patterns (\d+) s, close (\d+) s \(longest serial "
        r"step (\d+) s, target <= 180\); the day: 2 cores (\d+) s, 8 cores (\d+) s, "
        r"16 cores (\d+) s$",
        done.stdout,
        re.MULTILINE,
    )
    assert replays, done.stdout
    one_s, two_s, wall_ratio, *at_500 = replays.groups()
    assert float(one_s) == float(replay_s), "the first worker count's replay feeds the close"
    assert float(two_s) > 0 and float(wall_ratio) > 0
    writer, patterns, close, longest, two_cores, eight, sixteen = map(int, at_500)
    assert longest == max(writer, patterns, close)
    assert two_cores >= eight >= sixteen >= patterns + close
    assert {p.name: p.stat().st_mtime_ns for p in RESULTS.glob("*.json")} == before
