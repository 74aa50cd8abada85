"""The consumer's one ledger is lent to readers between batches: another process (a dashboard
taking its snapshot) can open it while it is lent, and cannot while the consumer holds it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from pipeline.ledger.store import Ledger
from pipeline.stream.ledgers import OneLedger

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
