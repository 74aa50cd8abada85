"""Every benchmark's ``--smoke`` mode runs here, so none can rot unnoticed: the smallest run
goes through every step it measures (emulating, loading, replaying, closing, enumerating,
consuming from the bundled broker, searching shoes for slugs, running the flows on a Prefect
server, the dashboard's pages) and writes no results file. Times are not asserted (the
machine is shared); what each smoke run prints is, so a benchmark that stopped measuring
fails.
``bench_startup.py --smoke`` has its own test (``test_bench_startup.py``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"

SMOKE_OUTPUT = {
    "bench_emulator.py": r"[\d,]+ events, .* ratio \d+\.\d\d \(target >= 0\.5\) -> not saved",
    "bench_replay.py": r"[\d,]+ events: raw decode .* ratio \d+\.\d\d .* -> not saved",
    "bench_live_day.py": r"[\d,]+ events in \d+ batches of 200: kept live .* -> not saved",
    "bench_oracle.py": r"1 decks: fast min .* identical: True",
    "bench_dashboard.py": r"trail +\d+\.\d+s.*\nload average \(1 min\): [\d.]+ at the start, "
    r"[\d.]+ at the end\n\n(NOT )?every page under 2\.0 s; not saved",
    "bench_flows.py": r"overhead per nightly_audit run: median -?\d+\.\d\d s .* not saved",
    "bench_closed_day_load.py": r"[\d,]+ events loaded next to a closed day: .* ratio \d+\.\d\d",
    "bench_slugs.py": r"[\d,]+ events: replay [\d.]+ s\n  window +1 days: .* per shoe, ratio "
    r"to the replay \d+\.\d{3}, 0 false alarms\n  window +2 days: .*\nnot saved",
    "bench_history.py": r"day  2: [\d,]+ events, replay\+close [\d.]+ s CPU, .* B/event, "
    r"first page [\d.]+ s, refresh [\d.]+ s .*\n1 tables x 2 days, ratios to day 1: .*\"day 2\".*\n"
    r"checkpoints against the same day in an empty ledger: .*\"day_cpu_s\": \{\"day 2\": .*\n"
    r"patron history [\d.]+ s, dealer history [\d.]+ s over 2 days\nnot saved",
    "bench_kafka.py": r"[\d,]+ events: max_batch 500: raw .* CPU per event \d+\.\d\dx the "
    r"file path's .* latency at 500 events/s .* p99 \d+ ms",
}


def _results() -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in RESULTS.glob("*.json")}


@pytest.mark.parametrize("script", sorted(SMOKE_OUTPUT))
def test_smoke_mode_measures_and_saves_nothing(script: str) -> None:
    before = _results()
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--smoke"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert re.search(SMOKE_OUTPUT[script], done.stdout), done.stdout
    assert _results() == before, "--smoke overwrote recorded results"


def test_every_benchmark_has_a_smoke_mode_in_the_suite() -> None:
    """A new benchmark without a smoke run here fails this test, not silently later."""
    scripts = {p.name for p in (ROOT / "benchmarks").glob("bench_*.py")}
    # these have their own smoke tests (test_bench_startup.py, test_bench_alert_latency.py,
    # test_bench_close.py), which check more than the output's shape
    own_tests = {"bench_startup.py", "bench_alert_latency.py", "bench_close.py"}
    assert scripts == set(SMOKE_OUTPUT) | own_tests
