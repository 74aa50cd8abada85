"""The close benchmark's smoke mode runs in the test suite, so the benchmark cannot rot
unnoticed: a tiny day is emulated, replayed and closed in child processes, and the ratio is
printed; nothing is saved over the recorded results."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"


def test_bench_close_smoke_runs_the_replay_and_the_close_and_saves_nothing() -> None:
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
    assert {p.name: p.stat().st_mtime_ns for p in RESULTS.glob("*.json")} == before
