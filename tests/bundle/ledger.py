"""An emulated, replayed gaming day for the bundle tests, built once per process."""

from __future__ import annotations

import atexit
import contextlib
import functools
import io
import shutil
import tempfile
from datetime import date
from pathlib import Path

from pipeline.cli import main

DAY = date(2026, 11, 24)


@functools.cache
def _built() -> Path:
    out = Path(tempfile.mkdtemp(prefix="bundle-ledger-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)  # kept for the process only
    argv = ["demo", "--out", str(out), "--tables", "3", "--hours", "3", "--seed", "1"]
    argv += ["--faults", "all", "--date", DAY.isoformat(), "--plain"]  # see dashboard_data.py
    with contextlib.redirect_stdout(io.StringIO()):
        main(argv)
    db = out / "ledger.duckdb"
    if not db.exists():
        raise RuntimeError(f"baccarat-audit {' '.join(argv)} wrote no ledger")
    return db


def ledger_copy(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "ledger.duckdb"
    shutil.copyfile(_built(), target)
    return target
