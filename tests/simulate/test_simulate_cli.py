"""``baccarat-audit simulate`` writes its tables in worker processes (the demo's path) and
still writes what emulating them one after another writes: same files, same events, same
fault manifest, for the same seed."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import pipeline.simulate.sinks
from pipeline.cli import main, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.events import default_codec
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)
TABLES, HOURS, SEED = 3, 1.0, 5


def _cli(out: Path, *extra: str) -> int:
    return main(
        [
            "simulate",
            *("--tables", str(TABLES), "--hours", str(HOURS), "--seed", str(SEED)),
            *("--faults", "all", "--date", DAY.isoformat(), "--out", str(out), *extra),
        ]
    )


def _events(day_dir: Path) -> dict[str, list[Any]]:
    """Each file's events: the files compare by content, as an Avro container's sync marker
    is random and differs between any two writes."""
    codec = default_codec()
    return {p.name: list(codec.read_events(p)) for p in sorted(day_dir.glob("*.avro"))}


@pytest.fixture(scope="module")
def one_after_another(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The day as the CLI wrote it before: every table emulated in this process, in turn."""
    out = tmp_path_factory.mktemp("serial")
    result = simulate(TABLES, HOURS, SEED, parse_faults("all"), DAY, load_catalog(DEFAULT_CATALOG))
    write_simulation(result, out, DAY)
    return out


def test_parallel_simulate_writes_what_serial_emulation_writes(
    one_after_another: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pools: list[int | None] = []

    class CountingPool(ProcessPoolExecutor):
        def __init__(self, max_workers: int | None = None) -> None:
            pools.append(max_workers)
            super().__init__(max_workers=max_workers)

    monkeypatch.setattr(pipeline.simulate.sinks, "ProcessPoolExecutor", CountingPool)
    assert _cli(tmp_path, "--workers", "2") == 0
    assert pools == [2], "the CLI emulated the tables in this process, not in workers"

    day = f"events/{DAY.isoformat()}"
    serial, parallel = _events(one_after_another / day), _events(tmp_path / day)
    assert len(serial) == TABLES
    assert sorted(serial) == sorted(parallel)  # the events/<date>/<table>.avro layout
    for name, events in serial.items():
        assert parallel[name] == events, f"{name}: the events differ from serial emulation"
    manifest = (one_after_another / "faults.jsonl").read_bytes()
    assert manifest, "the day was meant to carry injected faults"
    assert (tmp_path / "faults.jsonl").read_bytes() == manifest


def test_simulate_reports_the_files_it_wrote(
    one_after_another: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In one process (--workers 1) too; the summary counts what is on disk."""
    assert _cli(tmp_path, "--workers", "1") == 0
    printed = capsys.readouterr().out
    events = sum(len(v) for v in _events(tmp_path / "events" / DAY.isoformat()).values())
    faults = len((tmp_path / "faults.jsonl").read_text().splitlines())
    assert f"wrote {TABLES} table files" in printed
    assert f"{events} events from {TABLES} tables" in printed
    assert f"{faults} faults injected" in printed
    assert (tmp_path / "faults.jsonl").read_bytes() == (
        one_after_another / "faults.jsonl"
    ).read_bytes()


@pytest.mark.parametrize("workers", ["0", "-2"])
def test_no_workers_is_refused(
    workers: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(tmp_path, "--workers", workers) == 2
    assert f"argument --workers: expected 1 or more, got {workers}" in capsys.readouterr().err
    assert not (tmp_path / "events").exists()
