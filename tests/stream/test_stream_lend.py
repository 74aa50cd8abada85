"""The consumer's one ledger is lent to readers between batches: another process (a dashboard
taking its snapshot) can open it while it is lent, and cannot while the consumer holds it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from pipeline.ledger.snapshots import WRITERS_COPY, ask_for_copy, writers_folder
from pipeline.ledger.store import Ledger
from pipeline.stream.ledgers import COPY_REST, OneLedger

READ = "import duckdb, sys; duckdb.connect(sys.argv[1], read_only=True).close()"


def readable_elsewhere(db: Path) -> bool:
    """Whether another process can open the ledger read-only right now."""
    return (
        subprocess.run([sys.executable, "-c", READ, str(db)], capture_output=True).returncode == 0
    )


def test_the_ledger_is_lent_no_more_often_than_asked_and_taken_back_for_the_next_batch(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ledger.duckdb"
    ledgers = OneLedger(lambda: Ledger(db), lend_every=0.5)
    try:
        ledgers.lend()
        assert not readable_elsewhere(db), "opened under half a second ago: kept"
        time.sleep(0.5)
        ledgers.lend()
        assert readable_elsewhere(db) and ledgers.loans == 1
        ledgers.ledger(0).store_offsets("group", "topic", {0: 7})
        assert not readable_elsewhere(db), "the next batch took it back"
        assert ledgers.ledger(3).stored_offsets("group", "topic") == {0: 7}
    finally:
        ledgers.close()


def test_without_lending_the_consumer_keeps_the_ledger(tmp_path: Path) -> None:
    db = tmp_path / "ledger.duckdb"
    ledgers = OneLedger(lambda: Ledger(db))
    try:
        time.sleep(0.1)
        ledgers.lend()
        assert not readable_elsewhere(db) and ledgers.loans == 0
    finally:
        ledgers.close()


def _offered_until_written(ledgers: OneLedger, copies: int, within: float = 30.0) -> Path:
    """The readers' copy, offered between batches while a reader asks until the consumer's
    thread has written ``copies`` of them."""
    deadline = time.monotonic() + within
    while ledgers.copies < copies:
        assert time.monotonic() < deadline, f"{ledgers.copies} of {copies} copies written"
        ask_for_copy(ledgers.path)
        ledgers.copy_for_readers()
        time.sleep(0.02)
    assert ledgers.last_copy is not None
    return ledgers.last_copy.path


def _rested(ledgers: OneLedger) -> None:
    """Wait until the consumer may write the next copy: ``copy_every`` after the last began,
    and its rest after it (:data:`~pipeline.stream.ledgers.COPY_REST`) over."""
    last = ledgers.last_copy
    assert last is not None
    resume = max(last.read_at + ledgers.copy_every, last.read_at + (1 + COPY_REST) * last.seconds)
    time.sleep(max(0.0, resume - time.time()) + 0.1)


def test_while_a_close_runs_the_readers_copy_is_written_when_asked_and_removed_at_the_next_loan(
    tmp_path: Path,
) -> None:
    """A close beside the batches keeps the file in this process, so no reader can open it:
    the consumer writes the readers' copy itself, only once a reader asked, no more often than
    ``copy_every``, and removes it when it lends the file again."""
    db = tmp_path / "ledger.duckdb"
    ledgers = OneLedger(lambda: Ledger(db), lend_every=0.01, copy_every=0.5)
    try:
        ledgers.ledger(0).store_offsets("group", "topic", {0: 7})
        ledgers.copy_for_readers()
        assert ledgers.copies == 0 and not (writers_folder(db) / WRITERS_COPY).exists()

        copy = _offered_until_written(ledgers, 1)
        assert copy == writers_folder(db) / WRITERS_COPY
        with Ledger(copy, read_only=True) as written:
            assert written.stored_offsets("group", "topic") == {0: 7}
        assert not readable_elsewhere(db), "a copy is no loan"

        ledgers.ledger(0).store_offsets("group", "topic", {0: 9})
        first = ledgers.last_copy
        _rested(ledgers)
        ledgers.copy_for_readers()
        time.sleep(0.2)
        assert ledgers.copies == 1, "nobody asked since the last copy"

        _offered_until_written(ledgers, 2)
        assert first is not None and ledgers.last_copy is not None
        assert ledgers.last_copy.read_at - first.read_at >= ledgers.copy_every
        with Ledger(copy, read_only=True) as written:
            assert written.stored_offsets("group", "topic") == {0: 9}

        ledgers.lend()
        assert not copy.exists() and readable_elsewhere(db) and ledgers.loans == 1
    finally:
        ledgers.close()
