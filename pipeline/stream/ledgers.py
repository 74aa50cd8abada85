"""Where a consumer writes each partition: one ledger file, or one shard file per partition.

DuckDB lets one process write a file. :class:`OneLedger` is the simple case: every partition
goes into one ledger, so one worker process (or threads of one process) consume the topic.
:class:`PartitionShards` is the scale-out case: each partition goes into its own ledger
file, ``DIR/<topic>-p<NNN>.duckdb``, holding that partition's deliveries, the rows derived
from them and its next offset, all written in one transaction per batch, so a partition's
exactly-once effect holds exactly as in one ledger. Any number of worker processes, on any
machines that share ``DIR``, consume one group: a partition's file moves with the partition.
Kafka keys events by ``table_id``, so the shards are disjoint by table and every table-day's
rows in a shard are final; :mod:`pipeline.stream.shards` merges them into the accounting
ledger.

A shard's DuckDB write lock fences its partition: a worker that was expelled from the
group while it still holds the file keeps the new owner out until it lets go, and the new
owner then resumes at the offset stored with the last rows written.

A merge asks the owner to let go of a shard with a **merge request** file next to it
(``<shard>.merge-request``): between batches the owner closes the shard and sets its
partition aside until the request is gone, then reopens it and resumes at its stored
offset.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.ledger import snapshots
from pipeline.ledger.store import Ledger

log = logging.getLogger(__name__)

COPY_REST = 3.0
"""After writing the readers' copy, the consumer writes none for this many times as long as
that one took, so copies take at most a quarter of a core whatever the open days weigh and
however busy the machine is (a copy slowed down by a loaded machine would otherwise follow
the last one at once)."""
SHARD_SUFFIX = ".duckdb"
MERGE_REQUEST_SUFFIX = ".merge-request"


@dataclass(frozen=True)
class ShardDirectory:
    """Write each partition to its own ledger file in ``path`` (created when missing).

    One directory per consumer group: the files hold the group's offsets.
    """

    path: Path


def shard_path(directory: Path, topic: str, partition: int) -> Path:
    """The ledger file of one partition, e.g. ``DIR/table-events-p003.duckdb``."""
    return directory / f"{topic}-p{partition:03d}{SHARD_SUFFIX}"


def shard_files(directory: Path) -> list[Path]:
    """Every partition shard in ``directory``, in name order."""
    return sorted(directory.glob(f"*-p[0-9][0-9][0-9]{SHARD_SUFFIX}"))


def merge_request_path(shard: Path) -> Path:
    return shard.with_name(shard.name + MERGE_REQUEST_SUFFIX)


def request_merge(shard: Path) -> None:
    """Ask the shard's owner to let go of it until :func:`withdraw_merge_request`.

    The request names this host and process, so that one left behind by a killed merge
    can be told apart and removed by hand.
    """
    merge_request_path(shard).write_text(
        f"merge by {socket.gethostname()} pid {os.getpid()} at {time.time():.0f}\n"
    )


def withdraw_merge_request(shard: Path) -> None:
    merge_request_path(shard).unlink(missing_ok=True)


class PartitionLedgers(ABC):
    """The ledger each assigned partition is written to, opened and closed as partitions
    come and go. Used from the consumer's own thread only."""

    @abstractmethod
    def open(self, partition: int) -> bool:
        """Make the partition's ledger writable; False while a merge holds it. A ledger
        locked by another process raises :class:`~pipeline.ledger.store.LedgerError`
        (transient: retry later)."""

    @abstractmethod
    def release(self, partition: int) -> None:
        """Let go of the partition's ledger (revoked, or a merge asked for it)."""

    @abstractmethod
    def ledger(self, partition: int) -> Ledger:
        """The open ledger of a partition."""

    @abstractmethod
    def merge_requested(self, partition: int) -> bool:
        """Whether a merge is waiting for this partition's ledger."""

    @abstractmethod
    def describe(self, partition: int) -> str:
        """The file a partition is written to, for messages."""

    @abstractmethod
    def close(self) -> None:
        """Let go of every ledger."""

    @abstractmethod
    def lend(self) -> None:
        """Called while the consumer waits for the broker: a chance to let readers in."""

    @abstractmethod
    def copy_for_readers(self) -> None:
        """Called instead of :meth:`lend` while a close runs beside the batches: it holds the
        file open in this process, so no reader can open it; a chance to write their copy."""

    @abstractmethod
    def held(self, *, reopen: bool = False) -> list[Ledger]:
        """The ledgers open now; with ``reopen``, the one ledger even if it is lent."""

    def split(self, records: Sequence[Any]) -> list[tuple[Ledger, list[Any]]]:
        """``records`` grouped by the ledger they go to (one transaction each)."""
        by_partition: dict[int, list[Any]] = defaultdict(list)
        for record in records:
            by_partition[record.partition].append(record)
        by_ledger: dict[int, tuple[Ledger, list[Any]]] = {}
        for partition, group in sorted(by_partition.items()):
            ledger = self.ledger(partition)
            by_ledger.setdefault(id(ledger), (ledger, []))[1].extend(group)
        return list(by_ledger.values())


class OneLedger(PartitionLedgers):
    """Every partition into one ledger, closed with the consumer.

    DuckDB keeps every other process out of a file a writer holds, even readers, so the
    dashboards could only show what the ledger held before the consumer started. With
    ``lend_every`` seconds, the consumer lets go of the file while it waits for the broker,
    at most that often, so that a reader (a dashboard taking its snapshot,
    :mod:`dashboards.source`) can copy it; the next batch opens it again (``open_ledger``
    retries while a reader holds it). About 0.1 s of closing and opening per loan.

    While a close runs beside the batches the file is never lent (the close holds it open in
    this process), so with ``copy_every`` seconds the consumer writes the readers' copy itself
    (:class:`~pipeline.ledger.snapshots.CopyWriter`), at most that often and only when a
    reader asked for one since the last, and at most a quarter of the time
    (:data:`COPY_REST`), on a thread beside the batches: a copy costs about what the open
    days weigh (measured on an idle machine: 0.1 s for 3 tables for an hour, 7 MB; 1.6 to 2 s
    for 12 tables for 24 hours, 57 MB), which the batches need not wait for. The next loan
    removes the copy.
    """

    def __init__(
        self, open_ledger: Callable[[], Ledger], lend_every: float = 0.0, copy_every: float = 0.0
    ) -> None:
        self._open_ledger = open_ledger
        self._ledger: Ledger | None = open_ledger()
        self.path = self._ledger.path
        self.lend_every = lend_every
        self._opened_at = time.monotonic()
        self.loans = 0
        self.copy_every = copy_every
        self._copying: threading.Thread | None = None
        self._copied_at = 0.0
        """When the state of the last copy written, or tried, was read (seconds since the
        epoch)."""
        self._rested_at = 0.0
        """When the rest after the last copy ends (:data:`COPY_REST`)."""
        self.copies = 0
        self.last_copy: snapshots.WrittenCopy | None = None
        if copy_every > 0:
            snapshots.open_writers_folder(self.path)

    def open(self, partition: int) -> bool:
        return True

    def release(self, partition: int) -> None:
        pass  # shared by every partition: closed with the consumer

    def ledger(self, partition: int) -> Ledger:
        if self._ledger is None:
            self._ledger = self._open_ledger()
            self._opened_at = time.monotonic()
        return self._ledger

    def merge_requested(self, partition: int) -> bool:
        return False

    def describe(self, partition: int) -> str:
        return str(self.path)

    def lend(self) -> None:
        self._withdraw_copy()
        if (
            self.lend_every > 0
            and self._ledger is not None
            and time.monotonic() - self._opened_at >= self.lend_every
        ):
            self._ledger.close()
            self._ledger = None
            self.loans += 1

    def copy_for_readers(self) -> None:
        if self.copy_every <= 0 or (self._copying is not None and self._copying.is_alive()):
            return
        now = time.time()
        asked = snapshots.asked_at(self.path)
        if asked is None or asked <= max(self._copied_at, now - self.copy_every):
            return  # no reader waits now, or none asked since the last copy
        if now < max(self._copied_at + self.copy_every, self._rested_at):
            return
        self._copied_at = now
        writer = snapshots.CopyWriter(self.ledger(0))
        self._copying = threading.Thread(
            target=self._write_copy, args=(writer,), name="readers' copy", daemon=True
        )
        self._copying.start()

    def _write_copy(self, writer: snapshots.CopyWriter) -> None:
        started = time.time()
        try:
            written = writer.write()
        except snapshots.CopyNotWritten as err:
            log.warning("%s", err)
            return
        finally:
            writer.close()
            ended = time.time()
            self._rested_at = ended + COPY_REST * (ended - started)
        self.copies += 1
        self.last_copy = written
        log.info(
            "wrote the readers' copy of %s while a close runs: %.2f s, %d bytes",
            self.path,
            written.seconds,
            written.size,
        )

    def _withdraw_copy(self) -> None:
        """Wait for a copy being written (its connection holds the file too), and remove the
        last one: the file is the readers' to open again."""
        if self._copying is None:
            return
        self._copying.join()
        self._copying = None
        snapshots.remove_writers_copy(self.path)

    def held(self, *, reopen: bool = False) -> list[Ledger]:
        if self._ledger is None and reopen:
            return [self.ledger(0)]
        return [] if self._ledger is None else [self._ledger]

    def close(self) -> None:
        self._withdraw_copy()
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None


def open_for_batches(path: Path) -> Ledger:
    """A ledger opened for the stream's batches (:meth:`Ledger.checkpoint_per_batches`)."""
    ledger = Ledger(path)
    try:
        ledger.checkpoint_per_batches()
    except BaseException:
        ledger.close()
        raise
    return ledger


class PartitionShards(PartitionLedgers):
    """Each partition into its own ledger file in a shard directory."""

    def __init__(self, directory: Path, topic: str) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.topic = topic
        self._open: dict[int, Ledger] = {}

    def open(self, partition: int) -> bool:
        if partition in self._open:
            return True
        if self.merge_requested(partition):
            return False
        self._open[partition] = open_for_batches(shard_path(self.directory, self.topic, partition))
        return True

    def release(self, partition: int) -> None:
        ledger = self._open.pop(partition, None)
        if ledger is not None:
            ledger.close()

    def ledger(self, partition: int) -> Ledger:
        return self._open[partition]

    def merge_requested(self, partition: int) -> bool:
        return merge_request_path(shard_path(self.directory, self.topic, partition)).exists()

    def describe(self, partition: int) -> str:
        return str(shard_path(self.directory, self.topic, partition))

    def lend(self) -> None:
        pass  # readers use the merged ledger; a merge asks for a shard by merge request

    def copy_for_readers(self) -> None:
        pass  # a stream into shards closes no days

    def held(self, *, reopen: bool = False) -> list[Ledger]:
        return list(self._open.values())  # a released shard is another worker's to open

    def close(self) -> None:
        for partition in list(self._open):
            self.release(partition)
