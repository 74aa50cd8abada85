"""Nothing delivered is lost or taken for something else, with real emulator files.

- Two days written under the same file names (``D/events/<date>/T01.avro``) are two sources.
- The counts a load reports are exact: new events, events already in the ledger, files
  skipped, dead letters, dead letters resolved.
- A damaged file, then its repaired version under the same name: the repair adds exactly the
  events the damage lost, resolves the dead letters, and the ledger equals a clean load.
- Files holding events for a closed gaming day are refused whole, before anything is written.
"""

from __future__ import annotations

import gc
import hashlib
import weakref
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.events import DecodeError, default_codec
from pipeline.ingest import files as files_module
from pipeline.ingest.errors import ClosedGamingDayError, LateDelivery
from pipeline.ingest.files import ingest_files
from pipeline.ingest.sources import event_files
from pipeline.ingest.stage import LoadReport
from pipeline.ledger.migrations import DERIVED_TABLES
from pipeline.ledger.store import Ledger
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)
NEXT = DAY + timedelta(days=1)

LEDGER_TABLES = {
    "deliveries": "*",
    **{t: "* EXCLUDE (replayed_at)" if t == "table_day_summary" else "*" for t in DERIVED_TABLES},
    "input_files": "* EXCLUDE (loaded_at)",
    "dead_letters": "* EXCLUDE (resolved_at)",
}


def snapshot(db: Path, tables: dict[str, str] = LEDGER_TABLES) -> dict[str, list[Any]]:
    with Ledger(db, read_only=True) as ledger:
        return {
            t: ledger.con.execute(f"SELECT {cols} FROM {t} ORDER BY ALL").fetchall()
            for t, cols in tables.items()
        }


def write_day(out: Path, day: date, seed: int) -> list[Path]:
    """Two tables, two hours, no injected faults: ``out/events/<day>/T01.avro`` and T02."""
    return write_simulation(simulate(2, 2.0, seed, parse_faults("none"), day), out, day)


def events_in(paths: list[Path]) -> int:
    """How many events the files hold that decode."""
    codec = default_codec()
    return sum(
        not isinstance(item, DecodeError)
        for p in paths
        for item in codec.read_model_records_tolerant(p)
    )


def load(db: Path, paths: list[Path]) -> LoadReport:
    with Ledger(db) as ledger:
        return ingest_files(ledger, paths, DEFAULT_CATALOG, workers=1)


def counts(report: LoadReport) -> tuple[int, int, int, int, int, int]:
    return (
        report.new_deliveries,
        report.redelivered,
        report.files,
        report.files_skipped,
        report.dead_letters,
        report.dead_letters_resolved,
    )


@pytest.fixture(scope="module")
def two_days(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``D`` holding two days of the same two tables: the same file names twice."""
    out = tmp_path_factory.mktemp("two-days")
    write_day(out, DAY, seed=11)
    write_day(out, NEXT, seed=12)
    return out


def test_two_days_with_the_same_file_names_are_both_loaded(two_days: Path, tmp_path: Path) -> None:
    first, second = (event_files(two_days / "events" / d.isoformat()) for d in (DAY, NEXT))
    assert [p.name for p in first] == [p.name for p in second] == ["T01.avro", "T02.avro"]
    per_day = events_in(first), events_in(second)

    together = load(tmp_path / "together.duckdb", event_files(two_days / "events"))
    assert counts(together) == (sum(per_day), 0, 4, 0, 0, 0)
    day_one = load(tmp_path / "daily.duckdb", first)
    day_two = load(tmp_path / "daily.duckdb", second)
    assert counts(day_one) == (per_day[0], 0, 2, 0, 0, 0)
    assert counts(day_two) == (per_day[1], 0, 2, 0, 0, 0)

    ledger = snapshot(tmp_path / "together.duckdb")
    assert ledger == snapshot(tmp_path / "daily.duckdb")
    with Ledger(tmp_path / "together.duckdb", read_only=True) as stored:
        assert stored.table_days() == [("T01", DAY), ("T02", DAY), ("T01", NEXT), ("T02", NEXT)]
        assert stored.con.execute("SELECT count(*) FROM input_files").fetchone() == (4,)
    assert len(ledger["deliveries"]) == sum(per_day)

    again = load(tmp_path / "together.duckdb", event_files(two_days / "events"))
    assert counts(again) == (0, 0, 0, 4, 0, 0)
    assert snapshot(tmp_path / "together.duckdb") == ledger


def test_the_replay_command_prints_exact_counts(
    two_days: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = events_in(event_files(two_days / "events"))
    db = tmp_path / "cli.duckdb"
    day_one = two_days / "events" / DAY.isoformat()
    assert main(["replay", "--db", str(db), str(day_one)]) == 0
    assert main(["replay", "--db", str(db), str(two_days / "events")]) == 0
    first, second = capsys.readouterr().out.splitlines()
    day_one_events = events_in(event_files(day_one))
    assert first.startswith(
        f"loaded {day_one_events:,} new events from 2 files (0 already in the ledger, 0 files "
        "skipped as already loaded); 0 dead letters; 0 exceptions in "
    )
    assert second.startswith(
        f"loaded {events - day_one_events:,} new events from 2 files (0 already in the "
        "ledger, 2 files skipped as already loaded); 0 dead letters; 0 exceptions in "
    )


def inside_a_block(data: bytes) -> int:
    """An offset in the middle of the file: inside a block's events (the reader loses the
    rest of that block and knows how many events it held)."""
    return len(data) // 2


def at_a_block_header(data: bytes) -> int:
    """The offset of the second block's header (the reader cannot tell how many events the
    block held). Every block ends with the file's 16-byte sync marker, as its header does."""
    sync = data[-16:]
    end_of_first_block = data.index(sync, data.index(sync) + len(sync)) + len(sync)
    return end_of_first_block


@pytest.mark.parametrize("where", [inside_a_block, at_a_block_header], ids=lambda f: f.__name__)
def test_a_repaired_file_fills_the_gap_its_damage_left(
    tmp_path: Path, where: Callable[[bytes], int]
) -> None:
    paths = write_day(tmp_path / "day", DAY, seed=21)
    clean = tmp_path / "clean.duckdb"
    load(clean, paths)
    t01_events = events_in(paths[:1])

    original = paths[0].read_bytes()
    at = where(original)
    paths[0].write_bytes(original[:at] + b"\xff" * 32 + original[at + 32 :])
    db = tmp_path / "repaired.duckdb"
    damaged = load(db, paths)
    lost = t01_events - events_in(paths[:1])
    assert lost > 0 and damaged.dead_letters > 0
    assert counts(damaged) == (events_in(paths), 0, 2, 0, damaged.dead_letters, 0)

    paths[0].write_bytes(original)  # the repaired file, delivered again under the same name
    repaired = load(db, paths)
    assert counts(repaired) == (lost, t01_events - lost, 1, 1, 0, damaged.dead_letters)
    assert repaired.summary() == (
        f"loaded {lost:,} new events from 1 files ({t01_events - lost:,} already in the "
        f"ledger, 1 files skipped as already loaded); 0 dead letters "
        f"({damaged.dead_letters:,} earlier ones resolved)"
    )

    tables = {t: c for t, c in LEDGER_TABLES.items() if t not in ("input_files", "dead_letters")}
    assert snapshot(db, tables) == snapshot(clean, tables)  # no false duplicate, no gap
    with Ledger(db, read_only=True) as ledger:
        letters = ledger.con.execute(
            "SELECT source, resolved_by, resolved_at IS NOT NULL FROM dead_letters"
        ).fetchall()
        versions = ledger.con.execute(
            "SELECT source, sha256 FROM input_files WHERE source = ? ORDER BY loaded_at",
            [str(paths[0].resolve())],
        ).fetchall()
    sha256 = hashlib.sha256(original).hexdigest()
    assert letters == [(str(paths[0].resolve()), sha256, True)] * damaged.dead_letters
    assert len(versions) == 2 and versions[1][1] == sha256  # both versions on record


def close_directly(db: Path, day: date, status: str = "CLOSED") -> None:
    """A gaming_days row as the close writes it (the seal itself is not what is tested)."""
    with Ledger(db) as ledger:
        ledger.con.execute(
            "INSERT INTO gaming_days (gaming_date, status) VALUES (?, ?) "
            "ON CONFLICT DO UPDATE SET status = excluded.status",
            [day, status],
        )


def test_late_events_for_a_closed_day_are_refused_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t01, t02 = write_day(tmp_path / "day", DAY, seed=31)
    db = tmp_path / "ledger.duckdb"
    load(db, [t01])
    close_directly(db, DAY)
    before = snapshot(db)

    with Ledger(db) as ledger, pytest.raises(ClosedGamingDayError) as refused:
        ingest_files(ledger, [t01, t02], DEFAULT_CATALOG, workers=2)
    late = events_in([t02])
    assert refused.value.late == (LateDelivery(str(t02.resolve()), DAY, late),)
    assert snapshot(db) == before  # nothing written

    assert main(["replay", "--db", str(db), str(t01.parent)]) == 2
    message = capsys.readouterr().err
    assert f"{late:,} events of 1 file(s) belong to closed gaming day(s) {DAY}" in message
    assert f"{t02.resolve()}: {late:,} events for {DAY}" in message
    assert f"baccarat-audit reopen --db {db} --gaming-day {DAY} --reason" in message
    assert snapshot(db) == before

    close_directly(db, DAY, "REOPENED")
    assert counts(load(db, [t01, t02])) == (late, 0, 1, 1, 0, 0)


def test_a_closed_day_does_not_block_the_next_days_files(two_days: Path, tmp_path: Path) -> None:
    db = tmp_path / "ledger.duckdb"
    day_one = event_files(two_days / "events" / DAY.isoformat())
    load(db, day_one)
    close_directly(db, DAY)
    both = load(db, event_files(two_days / "events"))
    day_two = events_in(event_files(two_days / "events" / NEXT.isoformat()))
    assert counts(both) == (day_two, 0, 2, 2, 0, 0)


def test_a_late_file_after_next_days_files_leaves_them_unwritten_too(
    two_days: Path, tmp_path: Path
) -> None:
    """The refusal comes after the next day's files were merged in the same load (the load
    streams file by file): they are rolled back with it, and every late file is named."""
    day_one = event_files(two_days / "events" / DAY.isoformat())
    day_two = event_files(two_days / "events" / NEXT.isoformat())
    db = tmp_path / "ledger.duckdb"
    load(db, day_one[:1])
    close_directly(db, DAY)
    before = snapshot(db)

    late_files = [*day_one[1:], write_day(tmp_path / "again", DAY, seed=13)[0]]
    with Ledger(db) as ledger, pytest.raises(ClosedGamingDayError) as refused:
        ingest_files(ledger, day_two + late_files, DEFAULT_CATALOG, workers=1)
    assert refused.value.late == tuple(
        LateDelivery(str(p.resolve()), DAY, events_in([p])) for p in late_files
    )
    assert snapshot(db) == before


def test_with_a_closed_day_the_load_holds_one_files_rows_at_a_time(
    two_days: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A closed day in the ledger makes the load check every file before writing any; the
    files checked wait on disk, not in memory, and nothing is left behind."""
    db = tmp_path / "ledger.duckdb"
    load(db, event_files(two_days / "events" / DAY.isoformat()))
    close_directly(db, DAY)
    alive: list[weakref.ref[files_module.FileBatch]] = []
    held_when_read: list[int] = []
    read = files_module.read_and_replay

    def reading(path: Path, *args: Any) -> files_module.FileBatch:
        gc.collect()
        held_when_read.append(sum(ref() is not None for ref in alive))
        batch = read(path, *args)
        alive.append(weakref.ref(batch))
        return batch

    monkeypatch.setattr(files_module, "read_and_replay", reading)
    report = load(db, event_files(two_days / "events" / NEXT.isoformat()))
    assert held_when_read == [0, 0]
    assert report.files == 2
    assert report.new_deliveries == events_in(event_files(two_days / "events" / NEXT.isoformat()))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger.duckdb"]
