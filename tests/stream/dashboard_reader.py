"""A dashboard's reads, as a process of its own: ``python dashboard_reader.py LEDGER STOP DAY``.

Until the file STOP appears it takes the ledger's snapshots the way the dashboard server does
(a refresher thread, :mod:`dashboards.source`) and asks the queue's first question of each,
as a page run would; then prints one JSON object: pages drawn, the slowest page, the errors
after the first snapshot (before it, a page says the ledger is busy: expected), and each
snapshot taken: when its state was read, whether the stream wrote it (a close ran beside its
batches), and gaming day DAY (the one closed meanwhile) as it holds the day: sealed, read
from the archive, its deliveries stored in the file, its deliveries read, its rounds as its
table-days' totals count them and its rounds read.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

from dashboards import source
from pipeline.ledger.exceptions import count_all
from pipeline.ledger.store import Ledger
from pipeline.ledger.working_store import archived_days, stored_rows

LONGEST = 300.0
"""Seconds after which the reader stops without STOP (a test that failed before writing it)."""


def described(snap: source.Snapshot, ledger: Ledger, day: date) -> dict[str, Any]:
    """What the test checks of one snapshot (the module docstring)."""

    def count(sql: str) -> int:
        return int(ledger.con.execute(sql, [day]).fetchall()[0][0] or 0)

    return {
        "taken_at": snap.taken_at.timestamp(),
        "by_writer": snap.by_writer,
        "sealed": day in ledger.closed_days(),
        "archived": day in archived_days(ledger),
        "stored": stored_rows(ledger, "deliveries", day),
        "deliveries": count("SELECT count(*) FROM deliveries WHERE gaming_date = ?"),
        "rounds_counted": count("SELECT sum(rounds) FROM table_day_summary WHERE gaming_date = ?"),
        "rounds": count("SELECT count(*) FROM rounds WHERE gaming_date = ?"),
    }


def main(ledger: Path, stop: Path, day: date) -> None:
    source.refresher(0.25, ledger)
    pages, slowest, errors = 0, 0.0, []
    taken: dict[Path, dict[str, Any]] = {}
    deadline = time.monotonic() + LONGEST
    while not stop.exists() and time.monotonic() < deadline:
        started = time.monotonic()
        snap: source.Snapshot | None = None
        try:
            snap = source.snapshot(ledger)
            with source.reader(snap) as copy:
                count_all(copy)
        except source.LedgerUnavailable as err:
            snap = None
            if taken:
                errors.append(str(err))
        slowest = max(slowest, time.monotonic() - started)
        pages += 1
        if snap is not None and snap.path not in taken:
            with source.reader(snap) as copy:
                taken[snap.path] = described(snap, copy, day)
        time.sleep(0.05)
    read = {
        "pages": pages,
        "slowest": slowest,
        "snapshots": len(taken),
        "errors": errors,
        "taken": list(taken.values()),
    }
    print(json.dumps(read))


if __name__ == "__main__":
    main(Path(sys.argv[1]).absolute(), Path(sys.argv[2]), date.fromisoformat(sys.argv[3]))
