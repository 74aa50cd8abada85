"""A dashboard's reads, as a process of its own: ``python dashboard_reader.py LEDGER SECONDS``.

For SECONDS it takes the ledger's snapshots the way the dashboard server does (a refresher
thread, :mod:`dashboards.source`) and asks the queue's first question of each, as a page run
would; then prints one JSON line: pages drawn, the slowest page, the snapshots taken, and
the errors after the first snapshot (before it, a page says the ledger is busy: expected).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from dashboards import source
from pipeline.ledger.exceptions import count_all


def main(ledger: Path, seconds: float) -> None:
    source.refresher(0.25, ledger)
    pages, slowest, errors, taken = 0, 0.0, [], set()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        try:
            snap = source.snapshot(ledger)
            with source.reader(snap) as copy:
                count_all(copy)
            taken.add(snap.path)
        except source.LedgerUnavailable as err:
            if taken:
                errors.append(str(err))
        slowest = max(slowest, time.monotonic() - started)
        pages += 1
        time.sleep(0.05)
    read = {"pages": pages, "slowest": slowest, "snapshots": len(taken), "errors": errors}
    print(json.dumps(read))


if __name__ == "__main__":
    main(Path(sys.argv[1]).absolute(), float(sys.argv[2]))
