"""The close benchmark's smoke mode runs in the test suite, so the benchmark cannot rot
unnoticed: a tiny day is emulated, replayed with 1 and with 2 workers and closed in child
processes, the pattern stage and the close run again pinned to one core, the ratio and the
500-table projection of each step on 2, 8 and 16 cores are printed; nothing is saved over the
recorded results."""

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
        r"  steps: patterns ([\d.]+) s on one core, ([\d.]+) s on (\d+) \((\d+)% in parallel\), "
        r"close ([\d.]+) s on one core, ([\d.]+) s on (\d+) \((\d+)% in parallel\)\n"
        r"  at 500 tables: writer (\d+) s on any machine; "
        r"2 cores: patterns (\d+) s, close (\d+) s, the day (\d+) s; "
        r"8 cores: patterns (\d+) s, close (\d+) s, the day (\d+) s; "
        r"16 cores: patterns (\d+) s, close (\d+) s, the day (\d+) s; "
        r"longest step (\d+) s on 16 cores, target <= 180$",
        done.stdout,
        re.MULTILINE,
    )
    assert replays, done.stdout
    one_s, two_s, wall_ratio, *steps = replays.groups()
    assert float(one_s) == float(replay_s), "the first worker count's replay feeds the close"
    assert float(two_s) > 0 and float(wall_ratio) > 0
    patterns_one, patterns_all, _, patterns_share = map(float, steps[0:4])
    close_one, close_all, _, close_share = map(float, steps[4:8])
    assert patterns_one > 0 and patterns_all > 0 and close_one > 0 and close_all > 0
    assert 0 <= patterns_share <= 100 and 0 <= close_share <= 100
    writer, *by_cores, longest = map(int, steps[8:])
    patterns = by_cores[0::3]
    closes = by_cores[1::3]
    days = by_cores[2::3]
    assert patterns == sorted(patterns, reverse=True) and closes == sorted(closes, reverse=True)
    assert days == sorted(days, reverse=True)
    assert all(day >= p + c for day, p, c in zip(days, patterns, closes, strict=True))
    assert abs(longest - max(writer, patterns[-1], closes[-1])) <= 1
    assert {p.name: p.stat().st_mtime_ns for p in RESULTS.glob("*.json")} == before
