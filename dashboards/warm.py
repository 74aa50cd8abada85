"""``streamlit run`` with the dashboards' modules imported before the server listens.

Streamlit imports what a page needs when the first browser session runs it, so the first
visitor to a fresh server waited for pandas, DuckDB, Altair and the ledger layer to load
(most of a 3-4 s first page). Importing them here, before the health check answers, moves
that cost to the server's start, where nobody is waiting on a page; so do computing the
exact odds model of each filed rule set, taking the ledger's snapshot, which every page
reads, computing the latest gaming day's statistical alarms and reading its exceptions for
the queue (:func:`warm_ledger`), and what only the first page run of a process does
(:func:`warm_first_run`).

    python -m dashboards.warm run dashboards/app.py [streamlit options]
"""

from __future__ import annotations

import gc
import importlib
import sys
from datetime import date

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
    "dashboards.feed",
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


def warm_ledger() -> date | None:
    """Take the ledger's read-only snapshot (:func:`dashboards.source.snapshot`), compute the
    statistical alarms and read the exception queue's rows and its first exception's
    evidence, the table board's tables, the close's figures and the round reconstruction's
    opening round of the gaming day the sidebar opens on (the latest), and the patrons and
    dealers the investigator chooses from and the dealers' rates, so the first visitor waits
    neither for the file copy (a 24-table day is about 190 MB) nor for the slowest page runs;
    returns that day. Without a ledger, or with a file DuckDB cannot read as one (None), the
    server starts all the same and the pages say what is wrong, as before; a ledger changed
    by the time a page runs is copied and computed again by that page."""
    from dashboards.source import LedgerUnavailable, snapshot
    from dashboards.ui import (
        close_figures,
        dealer_peers,
        gaming_dates,
        people,
        precompute_queue,
        precompute_round_start,
        precompute_statistics,
        table_board,
    )
    from pipeline.ledger.snapshots import ReadError

    try:
        snap = snapshot()
        days = gaming_dates(snap)
        people(snap)
        dealer_peers(snap)
        if days:
            precompute_statistics(snap, days[0])
            precompute_queue(snap, days[0])
            table_board(snap, days[0])
            close_figures(snap, days[0])
            precompute_round_start(snap, days[0])
    except (LedgerUnavailable, ReadError):
        return None
    return days[0] if days else None


def warm_first_run() -> None:
    """Do here what only the first page run of the process would otherwise do, on the first
    visitor's time (0.15 s of the exception queue's first run on this machine, 0.3 s while
    Chromium drew the page beside it):

    - before the first element a process sends, Streamlit asks whether it runs in a Python
      REPL (``streamlit.env_util.is_repl``) by ``inspect.stack()``, which maps every loaded
      module to its file the first time: asked here, after the imports, the map is made;
    - Altair parses a chart's field shorthands with regular expressions and validates it
      against the Vega-Lite schema, both compiled on the first chart: one is built here."""
    import pandas as pd
    from streamlit import env_util

    from dashboards.charts import exceptions_over_time

    env_util.is_repl()
    one = pd.DataFrame({"occurred": [pd.Timestamp(0, tz="UTC")], "severity": ["CRITICAL"]})
    shown = exceptions_over_time(one)
    if shown is not None:
        shown.chart.to_dict()


def freeze_warm_objects() -> None:
    """Exempt what the warm start loaded from the garbage collector's full passes.

    Streamlit collects garbage after every script run (``runner.postScriptGC``), and the live
    pages rerun a fragment every second (:mod:`dashboards.live`). A full pass walks every
    object the process holds: with the modules, odds models and statistics loaded here that
    took 0.3-0.8 s of held interpreter lock per run on this machine, which delayed the page's
    last messages and any other visitor's run. These objects live as long as the server, so
    the passes have nothing to find among them; freezing them leaves each pass only what the
    runs themselves allocate. Garbage already made is collected first, not frozen."""
    gc.collect()
    gc.freeze()


def main(argv: list[str]) -> None:
    for name in PRELOADED:
        importlib.import_module(name)
    warm_models()
    warm_ledger()
    from streamlit.web import cli

    try:
        warm_first_run()
    except Exception as err:  # a speed-up only: the pages work without it, a little slower
        print(f"dashboards.warm: first-run warm-up skipped ({err!r})", file=sys.stderr)
    freeze_warm_objects()
    sys.argv = ["streamlit", *argv]
    cli.main()


if __name__ == "__main__":
    main(sys.argv[1:])
