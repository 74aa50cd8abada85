"""``streamlit run`` with the dashboards' modules imported before the server listens.

Streamlit imports what a page needs when the first browser session runs it, so the first
visitor to a fresh server waited for pandas, DuckDB, Altair and the ledger layer to load
(most of a 3-4 s first page). Importing them here, before the health check answers, moves
that cost to the server's start, where nobody is waiting on a page.

    python -m dashboards.warm run dashboards/app.py [streamlit options]
"""

from __future__ import annotations

import importlib
import sys

PRELOADED = (
    "altair",
    "pandas",
    "duckdb",
    "dashboards.ui",
    "dashboards.queries",
    "dashboards.alarms",
    "dashboards.charts",
    "dashboards.cards",
    "dashboards.floor",
    "dashboards.live",
    "dashboards.triage",
    "dashboards.profiles",
    "dashboards.reconstruct",
    "dashboards.roads",
    "pipeline.reports.close",
)
"""What the pages import: the same modules the scripts would import on their first run."""


def main(argv: list[str]) -> None:
    for name in PRELOADED:
        importlib.import_module(name)
    from streamlit.web import cli

    sys.argv = ["streamlit", *argv]
    cli.main()


if __name__ == "__main__":
    main(sys.argv[1:])
