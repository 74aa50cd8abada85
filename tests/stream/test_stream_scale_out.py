"""Scale-out with real processes and the real broker: 1, 2 and 4 ``baccarat-audit stream
--shard-dir`` worker processes in one consumer group each, with workers joining, and one
killed, while the day is still being published, give identical ledgers once merged.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pytest
from kafka_checks import (
    assert_exactly_once,
    assert_same_ledger,
    file_reference,
    unique_settings,
)

from pipeline.events.model import TableEvent
from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import SimulationResult, simulate
from pipeline.stream.producer import EventPublisher
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.shards import merge_partition_shards
from pipeline.stream.topics import ensure_topics
from pipeline.stream.verify import ledger_snapshot

pytestmark = [pytest.mark.broker, pytest.mark.slow]

GAMING_DATE = date(2026, 11, 24)  # as in tests/stream/conftest.py
TABLES = 6
"""T01-T06 land on the 6 partitions one each (murmur2 of the key), so every worker of a
4-worker group owns tables."""
IDLE_SECONDS = 12.0
"""Workers stop after this long without messages, and a rebalance is such a time: it must
outlast the pause after the kill (the dead member's 6 s session timeout, then about 3 s to
rejoin), or the survivors could leave with the day unfinished."""
SLICES, SLICES_BEFORE_GATE, SLICE_INTERVAL = 100, 80, 0.3
"""The day is published in slices (every table's next events in each), the first 80 every
0.3 s (about 24 s: the workers join and one is killed meanwhile); the last 20 wait for the
test to say the last rebalance is done, trickling one every 2 s until then."""
WAIT = 45.0


@dataclass
class Worker:
    """One ``baccarat-audit stream --shard-dir`` process and the lines it printed."""

    name: str
    proc: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    @classmethod
    def start(cls, name: str, settings: KafkaSettings, shards: Path, log: Path) -> Worker:
        argv = [sys.executable, "-m", "pipeline.stream.cli", "stream", "--verbose"]
        argv += ["--bootstrap", settings.bootstrap_servers, "--topic", settings.topic]
        argv += ["--group", settings.group_id, "--shard-dir", str(shards)]
        argv += ["--until-idle", str(IDLE_SECONDS), "--max-batch", "300"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("BACCARAT_KAFKA_")}
        with log.open("w") as stderr:
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
        worker = cls(name, proc)
        threading.Thread(target=worker._read, name=f"read-{name}", daemon=True).start()
        return worker

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for(self, what: str, seen: Callable[[list[str]], bool]) -> None:
        with self.changed:
            if not self.changed.wait_for(
                lambda: seen(self.lines) or self.proc.poll() is not None, timeout=WAIT
            ) or not seen(self.lines):
                raise AssertionError(f"{self.name}: no {what} within {WAIT:.0f} s: {self.lines}")

    def events(self) -> list[tuple[str, list[int]]]:
        """("assigned", partitions) and ("batch", partitions written) in printed order."""
        out: list[tuple[str, list[int]]] = []
        for line in list(self.lines):
            if line.startswith("assigned partitions "):
                out.append(
                    ("assigned", ast.literal_eval(line.removeprefix("assigned partitions ")))
                )
            elif match := re.match(r"batch \d+: .* offsets (\{.*?\})", line):
                out.append(("batch", sorted(ast.literal_eval(match.group(1)))))
        return out

    def assigned(self) -> list[int]:
        assignments = [p for kind, p in self.events() if kind == "assigned"]
        return assignments[-1] if assignments else []

    def rebalanced_mid_stream(self) -> bool:
        """A new assignment after this worker had written batches, and batches after it."""
        kinds = [kind for kind, _ in self.events()]
        return any(
            kind == "assigned" and "batch" in kinds[:i] and "batch" in kinds[i:]
            for i, kind in enumerate(kinds)
        )


def _has_batch(lines: list[str]) -> bool:
    return any(line.startswith("batch ") for line in lines)


def _has_partitions(lines: list[str]) -> bool:
    assigned = [line for line in lines if line.startswith("assigned partitions [")]
    return bool(assigned) and assigned[-1] != "assigned partitions []"


def _slices(day: SimulationResult) -> list[list[TableEvent]]:
    """The day in ``SLICES`` slices, each holding every table's next events in order."""
    tables = list(day.events_by_table.values())
    return [
        [
            e
            for events in tables
            for e in events[len(events) * k // SLICES : len(events) * (k + 1) // SLICES]
        ]
        for k in range(SLICES)
    ]


def test_one_two_and_four_worker_processes_give_identical_ledgers(
    kafka_broker: str,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """Three consumer groups read one topic while it is published: one worker; two, the
    second joining mid-stream; four, three of them joining mid-stream and one of those
    killed with SIGKILL mid-stream. Each worker writes partition shards; a merge of the
    2-worker group's shards also runs mid-stream (the workers let go of them meanwhile).
    Merged, the three ledgers equal each other and the ledger loaded from files, every
    message loaded once."""
    started = time.monotonic()
    day = simulate(TABLES, 1, 5, parse_faults("all"), GAMING_DATE, catalog)
    reference = file_reference(day, tmp_path / "files", GAMING_DATE)
    base = unique_settings(kafka_broker)
    ensure_topics(base)
    groups = {n: base.with_overrides(group_id=f"{base.group_id}-{n}") for n in (1, 2, 4)}
    shards = {n: tmp_path / f"shards-{n}" for n in groups}

    gate = threading.Event()
    published: list[int] = []
    failures: list[BaseException] = []

    def publish() -> None:
        try:
            with EventPublisher(base, create_topics=False, linger_ms=5) as publisher:
                for k, events in enumerate(_slices(day)):
                    publisher.send_many(events)
                    publisher.flush(timeout=30)
                    published.append(len(events))
                    if k < SLICES_BEFORE_GATE:
                        time.sleep(SLICE_INTERVAL)
                    elif not gate.is_set():
                        gate.wait(timeout=2.0)
        except BaseException as exc:  # surfaced by the assertions below
            failures.append(exc)

    workers: dict[str, Worker] = {}

    def start(name: str, n: int) -> Worker:
        workers[name] = Worker.start(name, groups[n], shards[n], tmp_path / f"{name}.log")
        return workers[name]

    publisher = threading.Thread(target=publish, name="publisher")
    try:
        publisher.start()
        for n in (1, 2, 4):
            start(f"{n}a", n)
        for name in ("2a", "4a"):
            workers[name].wait_for("first batch", _has_batch)
        for name in ("2b", "4b", "4c", "4d"):
            start(name, int(name[0]))
        for name in ("2b", "4b", "4c", "4d"):
            workers[name].wait_for("partitions", _has_partitions)

        live_merge = tmp_path / "merged-2.duckdb"
        with Ledger(live_merge) as ledger:
            while_streaming = merge_partition_shards(ledger, shards[2], catalog)
        assert sum(published) > 0 and len(published) < SLICES, "the merge ran mid-stream"

        orphaned = workers["4b"].assigned()
        workers["4b"].proc.send_signal(signal.SIGKILL)
        workers["4b"].proc.wait(timeout=10)
        killed_at = sum(published)
        survivors = [workers[name] for name in ("4a", "4c", "4d")]
        deadline = time.monotonic() + WAIT
        while not set(orphaned) <= {p for w in survivors for p in w.assigned()}:
            assert time.monotonic() < deadline, f"nobody took over partitions {orphaned}"
            time.sleep(0.2)
        gate.set()
        publisher.join(timeout=WAIT)
        for worker in workers.values():
            worker.proc.wait(timeout=WAIT + IDLE_SECONDS)
    finally:
        gate.set()
        for worker in workers.values():
            if worker.proc.poll() is None:
                worker.proc.kill()
                worker.proc.wait()
        publisher.join(timeout=WAIT)
    streamed_at = time.monotonic()

    assert not failures, failures
    sent = sum(published)
    assert sent == day.event_count and killed_at < sent
    for name, worker in workers.items():
        expected = -signal.SIGKILL if name == "4b" else 0
        log = (tmp_path / f"{name}.log").read_text()[-2000:]
        assert worker.proc.returncode == expected, f"{name}: {worker.lines[-3:]}\n{log}"

    # Rebalances happened mid-stream, and partitions changed hands between processes.
    assert workers["2a"].rebalanced_mid_stream(), workers["2a"].events()
    # (at least one of the four: on a loaded machine joins can coalesce into fewer rebalances)
    assert any(w.rebalanced_mid_stream() for n, w in workers.items() if n[0] == "4")
    for n in (2, 4):
        writers: dict[int, set[str]] = {}
        for name, worker in workers.items():
            for kind, partitions in worker.events():
                for partition in partitions if kind == "batch" and name[0] == str(n) else []:
                    writers.setdefault(partition, set()).add(name)
        assert any(len(names) > 1 for names in writers.values()), (n, writers)
    assert while_streaming.deliveries > 0

    ledgers = {n: tmp_path / f"merged-{n}.duckdb" for n in groups}
    for n, db in ledgers.items():
        with Ledger(db) as ledger:
            merge_partition_shards(ledger, shards[n], catalog)
            again = merge_partition_shards(ledger, shards[n], catalog)
        assert (again.deliveries, again.copied, again.rederived) == (0, set(), set())
        assert_exactly_once(db, groups[n], sent)
        assert_same_ledger(db, reference)
    snapshots = [ledger_snapshot(db) for db in ledgers.values()]
    assert snapshots[0] == snapshots[1] == snapshots[2]

    rebalances = {
        name: match.group(1)
        if (match := re.search(r"(\d+) rebalances", "\n".join(w.lines)))
        else "-"
        for name, w in workers.items()
    }
    print(
        f"{sent} events, {len(workers)} worker processes; rebalances per worker "
        f"{rebalances}; streamed in {streamed_at - started:.1f} s, "
        f"total {time.monotonic() - started:.1f} s; live merge: {while_streaming.summary()}"
    )
