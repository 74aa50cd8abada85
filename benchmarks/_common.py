"""Shared helpers for the standalone benchmark scripts (no pytest-benchmark needed)."""

from __future__ import annotations

import atexit
import json
import os
import platform
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"

SMOKE_HELP = "the smallest run that exercises every step; saves nothing (the test suite runs it)"


def demo_installation() -> Path:
    """The installation the benchmark closes days in: ``$BACCARAT_INSTALLATION`` when set,
    else a demo installation made in a temporary folder and set for this process and the
    processes it starts (a benchmark's seals defend nothing; they cost what seals cost)."""
    from pipeline.config.installation import INSTALLATION_ENV
    from pipeline.witness.provision import init_demo_installation

    given = os.environ.get(INSTALLATION_ENV, "").strip()
    if given:
        return Path(given)
    root = scratch_folder("bench-installation-") / "installation"
    os.environ[INSTALLATION_ENV] = str(init_demo_installation(root).root)
    return root


def scratch_folder(prefix: str) -> Path:
    """A new temporary folder, removed with what is in it when the benchmark's process exits:
    the test suite runs every benchmark's smoke mode on each run, and a benchmark run by hand
    is run many times."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def timed(fn: Callable[[], Any], repeat: int = 3) -> tuple[list[float], Any]:
    """Wall times of ``repeat`` runs of ``fn`` and the last run's result."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return times, result


def summary(times: list[float]) -> dict[str, float]:
    return {"min_s": min(times), "median_s": statistics.median(times), "max_s": max(times)}


def save(name: str, data: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    data = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **data,
    }
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return path
