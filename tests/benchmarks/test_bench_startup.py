"""``benchmarks/bench_startup.py --smoke`` runs in the suite, so the benchmark cannot rot
unnoticed: it times every command, reports each against the baseline of the same run, and
writes no results file. Times are not asserted (the machine is shared)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_startup.py"
RESULTS = ROOT / "benchmarks" / "results" / "startup.json"


def _bench_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_startup", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_smoke_mode_times_every_command_against_the_baseline() -> None:
    before = RESULTS.stat().st_mtime_ns if RESULTS.exists() else None
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--smoke"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["rounds"] == 2
    assert result["command"] == "python benchmarks/bench_startup.py --smoke"
    commands = result["commands"]
    assert set(commands) == {
        "python -c pass",
        "baccarat-audit --help",
        "baccarat-audit odds --decks 8",
        "python -m pipeline.oracle --decks 8",
    }
    for name, entry in commands.items():
        assert 0 < entry["wall"]["min_s"] <= entry["wall"]["median_s"] <= entry["wall"]["max_s"]
        assert entry["cpu"]["median_s"] > 0, name
        if name != "python -c pass":
            assert entry["wall_ratio_to_baseline"] > 0, name
            assert entry["cpu_ratio_to_baseline"] > 0, name
    for name in ("baccarat-audit --help", "baccarat-audit odds --decks 8"):
        assert isinstance(commands[name]["under_target"], bool)
        assert name in done.stderr  # the summary, one line a command
    after = RESULTS.stat().st_mtime_ns if RESULTS.exists() else None
    assert after == before, "--smoke overwrote the recorded results"


def test_a_failing_command_is_not_timed() -> None:
    """A command that exits non-zero would time its error message: the benchmark stops."""
    bench = _bench_module()
    with pytest.raises(SystemExit, match="exited 3"):
        bench.run_once(["-c", "import sys; sys.exit(3)"])
    with pytest.raises(SystemExit, match="no output"):
        bench.run_once(["-c", "import sys"])
