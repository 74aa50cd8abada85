"""``streamlit run`` with the dashboards' modules imported before the server listens.

Streamlit imports what a page needs when the first browser session runs it, so the first
visitor to a fresh server waited for pandas, DuckDB, Altair and the ledger layer to load
(most of a 3-4 s first page). Importing them here, before the health check answers, moves
that cost to the server's start, where nobody is waiting on a page; so does computing the
exact odds model of each filed rule set, which the statistical alarms page needs.

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


def warm_models() -> int:
    """Compute the exact odds model of every filed rule set at its deck count (cached for the
    statistics page's first run); returns how many."""
    from dashboards.alarms import rules_catalog
    from dashboards.stats import round_model

    catalog = rules_catalog()
    for rules in catalog.values():
        round_model(rules, rules.decks)
    return len(catalog)


def main(argv: list[str]) -> None:
    for name in PRELOADED:
        importlib.import_module(name)
    warm_models()
    from streamlit.web import cli

    sys.argv = ["streamlit", *argv]
    cli.main()


if __name__ == "__main__":
    main(sys.argv[1:])
