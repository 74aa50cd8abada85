"""Partition shards and their merge, without a broker: shards are written the way the
consumer writes them (deliveries keyed ``kafka:<topic>:<partition>``, offsets in the same
transaction), then merged into a ledger."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
from kafka_checks import assert_same_ledger

from pipeline.cli import main
from pipeline.events import default_codec
from pipeline.events.convert import from_record, to_record
from pipeline.events.model import TableEvent
from pipeline.ingest.errors import TransientError
from pipeline.ingest.stage import load_batch
from pipeline.ledger.store import CLOSED_GAMING_DAY, Delivery, Ledger
from pipeline.reports.close import close_gaming_day, reopen_gaming_day, verify
from pipeline.rules.config import TableRules
from pipeline.simulate.run import SimulationResult
from pipeline.stream.ledgers import merge_request_path, shard_path
from pipeline.stream.retry import Backoff
from pipeline.stream.shards import NoShardsError, merge_partition_shards
from pipeline.stream.verify import COMPARED_TABLES, diff_ledgers, ledger_snapshot

TOPIC = "table-events"
GROUP = "auditors"
PARTITIONS = 2


CODEC = default_codec()


def _as_delivered(event: TableEvent) -> TableEvent:
    """The event as a consumer decodes it from the wire (fields in the schema's order)."""
    return from_record(CODEC.decode(CODEC.encode(to_record(CODEC, event))))


def _stream_into_shards(
    day: SimulationResult,
    directory: Path,
    catalog: Mapping[str, TableRules],
    fraction: tuple[float, float],
) -> None:
    """Load the ``fraction`` (start, end) of each table's events into its partition's
    shard, as one consumer batch per partition (tables spread over the partitions in
    order)."""
    directory.mkdir(exist_ok=True)
    by_partition: dict[int, list[Delivery]] = {}
    published: dict[int, int] = {}
    for index, table_id in enumerate(sorted(day.events_by_table)):
        partition = index % PARTITIONS
        events = [_as_delivered(event) for event in day.events_by_table[table_id]]
        base = published.get(partition, 0)  # offsets follow the publish order, table by table
        published[partition] = base + len(events)
        first, end = (int(len(events) * f) for f in fraction)
        by_partition.setdefault(partition, []).extend(
            Delivery(f"kafka:{TOPIC}:{partition}", base + i, events[i], base + i)
            for i in range(first, end)
        )
    for partition, deliveries in by_partition.items():
        end = max(d.position for d in deliveries) + 1

        def store_offsets(tx: Ledger, partition: int = partition, end: int = end) -> None:
            tx.store_offsets(GROUP, TOPIC, {partition: end})

        with Ledger(shard_path(directory, TOPIC, partition)) as shard:
            load_batch(shard, deliveries, [], catalog, in_same_transaction=store_offsets)


def test_merging_is_idempotent_as_shards_grow(
    small_day: SimulationResult,
    file_ledger: Path,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """Merged halfway, merged again unchanged (a no-op), merged after the shards grew to
    the whole day: the ledger equals the one loaded from files, with the offsets."""
    shards, db = tmp_path / "shards", tmp_path / "merged.duckdb"
    _stream_into_shards(small_day, shards, catalog, (0.0, 0.5))
    with Ledger(db) as ledger:
        first = merge_partition_shards(ledger, shards, catalog)
        halfway = ledger_snapshot(ledger)
        again = merge_partition_shards(ledger, shards, catalog)
        assert ledger_snapshot(ledger) == halfway
    assert first.shards == PARTITIONS and first.deliveries > 0 and first.copied
    assert not first.rederived
    assert (again.deliveries, again.copied, again.rederived) == (0, set(), set())

    _stream_into_shards(small_day, shards, catalog, (0.5, 1.0))
    with Ledger(db) as ledger:
        grown = merge_partition_shards(ledger, shards, catalog)
        offsets = ledger.stored_offsets(GROUP, TOPIC)
    assert grown.rederived == first.copied, "every table-day grew and was re-derived"
    assert first.deliveries + grown.deliveries == small_day.event_count
    assert sum(offsets.values()) == small_day.event_count
    assert_same_ledger(db, file_ledger)


def test_a_closed_day_takes_nothing_from_a_shard_until_it_is_reopened(
    small_day: SimulationResult,
    file_ledger: Path,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """Late events for a closed day, merged from a partition shard, are held apart as
    CLOSED_GAMING_DAY dead letters (nothing lost, the seal intact); once the day is reopened,
    the next merge adds them, resolving those dead letters, and the ledger equals the one
    loaded from files."""
    shards, db, reports = tmp_path / "shards", tmp_path / "merged.duckdb", tmp_path / "reports"
    _stream_into_shards(small_day, shards, catalog, (0.0, 0.5))
    actor, actor_source = "demo-controller", "test"
    with Ledger(db) as ledger:
        merge_partition_shards(ledger, shards, catalog)
        (day,) = {d for _, d in ledger.table_days()}
        close_gaming_day(
            ledger,
            day,
            reports,
            actor=actor,
            actor_source=actor_source,
            accept_quality_failures="half a day",
        )
        sealed = ledger_snapshot(ledger)
    _stream_into_shards(small_day, shards, catalog, (0.5, 1.0))
    with Ledger(db) as ledger:
        merge_partition_shards(ledger, shards, catalog)
        held = ledger.con.execute(
            "SELECT count(*) FROM dead_letters WHERE reason = ? AND detail LIKE ?",
            [CLOSED_GAMING_DAY, f"%belongs to gaming day {day}, which is closed%"],
        ).fetchone()
        assert verify(ledger) == []
        assert ledger_snapshot(ledger)["deliveries"] == sealed["deliveries"]
        reopen_gaming_day(ledger, day, "late events held", actor=actor, actor_source=actor_source)
        merge_partition_shards(ledger, shards, catalog)
        open_letters = ledger.con.execute(
            "SELECT count(*) FROM dead_letters WHERE resolved_at IS NULL"
        ).fetchone()
    assert held is not None and held[0] > 0
    assert held[0] == small_day.event_count - sum(sealed["deliveries"].values())
    assert open_letters == (0,)
    rows = [table for table in COMPARED_TABLES if table != "dead_letters"]
    assert diff_ledgers(ledger_snapshot(file_ledger, rows), ledger_snapshot(db, rows)) == []


def _hold_lock(ledger: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the file's DuckDB lock for ``seconds`` (it prints
    ``holding`` once it has it)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time, duckdb; con = duckdb.connect(sys.argv[1]); "
            "print('holding', flush=True); time.sleep(float(sys.argv[2])); con.close()",
            str(ledger),
            str(seconds),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )


def test_merge_waits_for_a_shard_another_process_holds(
    small_day: SimulationResult, catalog: Mapping[str, TableRules], tmp_path: Path
) -> None:
    """A worker holding a shard (another process: DuckDB's lock is per process) delays the
    merge, which retries until the lock is free; its merge request is removed after."""
    shards = tmp_path / "shards"
    _stream_into_shards(small_day, shards, catalog, (0.0, 1.0))
    held = shard_path(shards, TOPIC, 0)
    holder = _hold_lock(held, seconds=1.5)
    assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
    started = time.monotonic()
    with Ledger(tmp_path / "merged.duckdb") as ledger:
        report = merge_partition_shards(ledger, shards, catalog, backoff=Backoff(initial=0.1))
    holder.wait(timeout=10)
    assert report.shards == PARTITIONS and report.retries > 0
    assert time.monotonic() - started >= 1.0
    assert not merge_request_path(held).exists()


def test_merge_gives_up_on_a_shard_that_stays_locked(
    small_day: SimulationResult, catalog: Mapping[str, TableRules], tmp_path: Path
) -> None:
    shards = tmp_path / "shards"
    _stream_into_shards(small_day, shards, catalog, (0.0, 0.2))
    held = shard_path(shards, TOPIC, 0)
    holder = _hold_lock(held, seconds=30)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        with Ledger(tmp_path / "merged.duckdb") as ledger, pytest.raises(TransientError) as err:
            merge_partition_shards(
                ledger, shards, catalog, backoff=Backoff(initial=0.05, attempts=3)
            )
    finally:
        holder.kill()
        holder.wait()
    assert str(held) in str(err.value) and "still failing after 3 attempts" in str(err.value)


def test_merge_shards_command(
    small_day: SimulationResult,
    file_ledger: Path,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shards, db = tmp_path / "shards", tmp_path / "merged.duckdb"
    _stream_into_shards(small_day, shards, catalog, (0.0, 1.0))
    assert main(["merge-shards", str(shards), "--db", str(db)]) == 0
    assert f"merged {PARTITIONS} partition shards" in capsys.readouterr().out
    assert_same_ledger(db, file_ledger)

    (tmp_path / "empty").mkdir()
    assert main(["merge-shards", str(tmp_path / "empty"), "--db", str(db)]) == 2
    assert "no partition shards" in capsys.readouterr().err
    assert main(["merge-shards", str(tmp_path / "missing"), "--db", str(db)]) == 2
    assert "not a directory" in capsys.readouterr().err
    with Ledger(db) as ledger, pytest.raises(NoShardsError):
        merge_partition_shards(ledger, tmp_path / "empty", catalog)
