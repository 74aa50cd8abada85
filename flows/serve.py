"""Serve the audit's deployments from one long-running process (``prefect.serve``):

- ``nightly-audit``: every day at the gaming-day boundary (the rule catalog's ``[gaming_day]``:
  its local start in its time zone), audits the gaming day that just ended;
- ``ingest``: on demand (``prefect deployment run ingest/ingest``), loads event files.

    python -m flows.serve --events-dir out/events --db out/ledger.duckdb

Uses ``$PREFECT_API_URL`` when set, else the local server of :mod:`flows.server`. To scale out
to work pools and workers instead, see ``prefect.yaml`` at the repository root.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import time
from pathlib import Path
from typing import Any

from pipeline.config.catalog import DEFAULT_CATALOG, gaming_day_of, load_catalog


def nightly_cron(at: time) -> str:
    return f"{at.minute} {at.hour} * * *"


def deployments(
    events_dir: Path,
    db: Path,
    reports_dir: Path | None = None,
    catalog_path: Path = DEFAULT_CATALOG,
    at: time | None = None,
) -> list[Any]:
    """The runner deployments ``prefect.serve`` runs (parameters as absolute paths)."""
    from prefect.schedules import Cron

    from flows.audit import ingest, nightly_audit

    # At the casino's day start, on its wall clock: Prefect's cron follows the zone's
    # daylight-saving changes as the ledger's gaming days do.
    day = gaming_day_of(load_catalog(catalog_path))
    events_dir, db = events_dir.resolve(), db.resolve()
    reports = (reports_dir or db.parent / "reports").resolve()
    nightly = nightly_audit.to_deployment(
        name="nightly-audit",
        schedule=Cron(nightly_cron(at or day.starts), timezone=day.zone.key),
        parameters={
            "events_dir": str(events_dir),
            "db": str(db),
            "reports_dir": str(reports),
            "catalog_path": str(catalog_path.resolve()),
        },
        concurrency_limit=1,
        tags=["baccarat-audit"],
        description="Ingest, replay, quality-check and close the gaming day that just ended.",
    )
    on_demand = ingest.to_deployment(
        name="ingest",
        parameters={
            "db": str(db),
            "sources": [str(events_dir)],
            "catalog_path": str(catalog_path.resolve()),
        },
        tags=["baccarat-audit"],
        description="Load event files (or a Kafka topic) into the ledger.",
    )
    return [nightly, on_demand]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flows.serve", description=__doc__)
    parser.add_argument("--events-dir", type=Path, required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--reports-dir", type=Path)
    parser.add_argument("--rules", type=Path, default=DEFAULT_CATALOG)
    parser.add_argument(
        "--at", type=time.fromisoformat, help="run time HH:MM (default: the catalog's boundary)"
    )
    parser.add_argument("--home", type=Path, help="PREFECT_HOME of the local server")
    args = parser.parse_args(argv)

    from flows.server import default_home, ensure_local_server, using_server

    url = os.environ.get("PREFECT_API_URL") or ensure_local_server(args.home or default_home())
    # Flow runs execute in subprocesses of the runner: they read the environment.
    os.environ["PREFECT_API_URL"] = url
    os.environ["PREFECT_SERVER_ALLOW_EPHEMERAL_MODE"] = "false"
    with using_server(url, heartbeats=True):
        from prefect import serve

        from flows.audit import ensure_writer_limit

        ensure_writer_limit()
        serve(*deployments(args.events_dir, args.db, args.reports_dir, args.rules, args.at))
    return 0


if __name__ == "__main__":
    sys.exit(main())
