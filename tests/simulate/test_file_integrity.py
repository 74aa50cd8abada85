"""The emulator's files through the ingest, as a flipped bit, an old device and an operator
would make them: a changed block is a dead letter, never a finding against the dealer."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import fastavro
import pytest

from pipeline.cli import main
from pipeline.events import default_codec
from pipeline.simulate.run import simulate
from pipeline.simulate.sinks import simulate_to_files, write_table_file

DAY = date(2026, 11, 24)


@pytest.fixture(scope="module")
def day_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("floor")
    [path] = simulate_to_files(1, 3, 4, {}, DAY, out, workers=1).paths
    return path


def replay(tmp_path: Path, path: Path, *flags: str) -> tuple[list[tuple[str, int, str]], int]:
    """Load one file with ``baccarat-audit replay``: its dead letters and its delivery count."""
    db = tmp_path / "ledger.duckdb"
    assert main(["replay", "--db", str(db), *flags, str(path)]) == 0
    with duckdb.connect(str(db), read_only=True) as con:
        dead = con.execute("SELECT reason, position, detail FROM dead_letters").fetchall()
        row = con.execute("SELECT count(*) FROM deliveries").fetchone()
    return [(str(r), int(p), str(d)) for r, p, d in dead], int(row[0]) if row else 0


def exception_codes(tmp_path: Path) -> set[str]:
    with duckdb.connect(str(tmp_path / "ledger.duckdb"), read_only=True) as con:
        return {str(c) for (c,) in con.execute("SELECT DISTINCT code FROM exceptions").fetchall()}


def test_the_emulator_writes_checksummed_files(day_file: Path) -> None:
    with day_file.open("rb") as fo:
        assert fastavro.reader(fo).metadata["avro.codec"] == "snappy"


def test_a_flipped_bit_is_a_dead_letter_and_the_rest_of_the_file_loads(
    tmp_path: Path, day_file: Path
) -> None:
    with day_file.open("rb") as fo:
        blocks = [(b.offset, b.size, b.num_records) for b in fastavro.block_reader(fo)]
    total = sum(n for _, _, n in blocks)
    offset, size, lost = blocks[len(blocks) // 2]
    damaged = bytearray(day_file.read_bytes())
    damaged[offset + size // 2] ^= 0x04
    path = tmp_path / day_file.name
    path.write_bytes(bytes(damaged))
    dead, loaded = replay(tmp_path, path, "--strict-decoding")
    [(reason, position, detail)] = dead
    assert reason == "CHECKSUM_MISMATCH" and position == offset
    assert f"{lost} events lost" in detail and str(path) in detail
    assert loaded == total - lost
    assert "NJ-DATA-GAP" in exception_codes(tmp_path)  # the lost events are a sequence gap
    clean = tmp_path / "clean"
    clean.mkdir()
    assert replay(clean, day_file)[0] == [] and exception_codes(clean) == set()


def test_an_unverifiable_file_is_refused_unless_the_operator_allows_it(
    tmp_path: Path,
) -> None:
    """An old device writing the null codec, without a digest: refused whole (exit 0, every
    event a dead letter, nothing in the ledger); ``--allow-unverified`` loads it and the
    ledger keeps a LOADED_UNVERIFIED record of the choice."""
    events = simulate(1, 1, 4, {}, DAY).events_by_table["T01"]
    path = tmp_path / "T01.avro"
    codec = default_codec()
    write_table_file(events, tmp_path / "checked.avro")
    codec.write_events(path, default_codec().read_events(tmp_path / "checked.avro"), codec="null")
    refused = tmp_path / "refused"
    refused.mkdir()
    dead, loaded = replay(refused, path)
    [(reason, _position, detail)] = dead
    assert reason == "UNVERIFIABLE_FILE" and loaded == 0
    assert f"{len(events)} events lost" in detail
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    dead, loaded = replay(allowed, path, "--allow-unverified")
    assert [reason for reason, _, _ in dead] == ["LOADED_UNVERIFIED"]
    assert "0 events lost" not in dead[0][2] and loaded == len(events)
