"""``baccarat-audit replay`` killed with SIGKILL mid-load: its worker processes die with it,
the ledger holds each file whole or not at all, and replaying again gives the ledger a clean
load gives. Real processes, real signals."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from pipeline.cli import write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.ingest.files import ingest_files
from pipeline.ingest.sources import file_source
from pipeline.ledger.store import Ledger
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.e2e.test_deliveries import DAY, events_in, snapshot


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a live process; None when it is gone (or a zombie, which
    runs nothing: its parent has not collected it yet)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    state, ppid = text.rsplit(")", 1)[1].split()[:2]
    return None if state == "Z" else (state, int(ppid))


def children_of(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) and stat[1] == parent:
            found.append(int(entry.name))
    return found


def replay(db: Path, events: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "replay", "--db", str(db), str(events)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def kill_mid_load(db: Path, events: Path, delay: float) -> list[int]:
    """Start a replay, wait for its workers, SIGKILL it ``delay`` seconds later; return the
    workers' pids."""
    process = replay(db, events)
    deadline = time.monotonic() + 30
    workers: list[int] = []
    while not workers and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
        workers = children_of(process.pid)
    assert workers, "the replay ended before its workers were seen; give it more to load"
    time.sleep(delay)
    workers = sorted(set(workers) | set(children_of(process.pid)))
    process.send_signal(signal.SIGKILL)
    process.wait()
    return workers


def test_workers_die_with_a_killed_replay_and_a_rerun_completes_the_ledger(
    tmp_path: Path,
) -> None:
    paths = write_simulation(simulate(3, 1.0, 41, parse_faults("none"), DAY), tmp_path / "day", DAY)
    events = tmp_path / "day" / "events"
    clean = tmp_path / "clean.duckdb"
    with Ledger(clean) as ledger:
        ingest_files(ledger, paths, DEFAULT_CATALOG, workers=1)
    sizes = {file_source(p): events_in([p]) for p in paths}

    db = tmp_path / "killed.duckdb"
    for delay in sorted(random.Random(7).uniform(0.0, 0.5) for _ in range(2)):
        workers = kill_mid_load(db, events, delay)
        deadline = time.monotonic() + 5
        while any(_stat(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = [pid for pid in workers if _stat(pid)]
        for pid in survivors:  # a failing run leaves nothing behind
            os.kill(pid, signal.SIGKILL)
        assert not survivors, f"workers alive 5 s after the replay was killed at {delay:.2f} s"
        with Ledger(db) as ledger:
            held = dict(
                ledger.con.execute("SELECT source, count(*) FROM deliveries GROUP BY 1").fetchall()
            )
            files = {s for s, _, _ in ledger.input_files()}
        for source, size in sizes.items():
            assert held.get(source, 0) in (0, size), f"{source} half loaded"
            assert (source in files) == (held.get(source, 0) == size)

    rerun = replay(db, events)
    assert rerun.wait(timeout=120) == 0
    assert snapshot(db) == snapshot(clean)
