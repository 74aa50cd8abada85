"""``benchmarks/bench_alert_latency.py --smoke`` runs in the suite, so the benchmark cannot rot
unnoticed: against the real broker, every probe's exception reaches the exceptions topic and
the webhook once, and nothing is saved. Times are not asserted (the machine is shared)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_alert_latency.py"
RESULTS = ROOT / "benchmarks" / "results" / "alert_latency.json"

pytestmark = pytest.mark.broker


def test_smoke_mode_measures_every_probe_to_the_topic_and_the_webhook() -> None:
    before = RESULTS.stat().st_mtime_ns if RESULTS.exists() else None
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--smoke"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["command"] == "python benchmarks/bench_alert_latency.py --smoke"
    probes = result["probes"]
    assert probes >= 3, "a probe every 2 s over 8 s"
    for channel in ("latency_topic", "latency_webhook"):
        latency = result[channel]
        assert latency["count"] == probes, channel
        assert 0 < latency["p50_ms"] <= latency["p99_ms"] <= latency["max_ms"], channel
    assert result["consumer"]["notices"] == probes + 1, "the measured probes and the warm-up's"
    assert result["alerts"] == f"alerts: {probes + 1} sent by webhook, 0 failed"
    assert result["latency_browser"] == "not measured (--no-browser)"
    after = RESULTS.stat().st_mtime_ns if RESULTS.exists() else None
    assert after == before, "--smoke overwrote the recorded results"
