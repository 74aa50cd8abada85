"""Baccarat audit dashboards: ``streamlit run dashboards/app.py``.

Reads the ledger at ``$BACCARAT_DB`` (default ``out/ledger.duckdb``) through read-only
snapshots (:mod:`dashboards.source`); acknowledgements go to the journal next to it
(:mod:`pipeline.bundle.acks`).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run` puts only dashboards/ on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from dashboards.ui import sidebar  # noqa: E402

PAGES = Path(__file__).resolve().parent / "views"  # not pages/: that name means MPA v1

st.set_page_config(page_title="Baccarat audit", page_icon=":material/casino:", layout="wide")


def page(name: str, title: str, url: str, icon: str) -> st.Page:
    return st.Page(PAGES / f"{name}.py", title=title, url_path=url, icon=icon)


EXCEPTION_QUEUE = page("exception_queue", "Exception queue", "exceptions", ":material/report:")
# Streamlit serves the default page only at the root and answers its own url_path with "Page
# not found"; so the queue is an ordinary page at /exceptions, and the root runs the same
# script as a hidden twin (pages are told apart by url_path), with no redirect's extra run.
QUEUE_AT_ROOT = st.Page(
    PAGES / "exception_queue.py",
    title="Exception queue",
    url_path="queue-at-root",
    default=True,
    visibility="hidden",
)


navigation = st.navigation(
    {
        "Surveillance": [
            QUEUE_AT_ROOT,
            EXCEPTION_QUEUE,
            page("table_board", "Table board", "tables", ":material/table_restaurant:"),
            page("round_reconstruction", "Round reconstruction", "round", ":material/style:"),
            page("roads", "Roads", "roads", ":material/grid_on:"),
            page("statistics", "Statistical alarms", "statistics", ":material/query_stats:"),
            page("slugs", "False shuffles", "slugs", ":material/shuffle:"),
        ],
        "Accounting": [
            page("close", "Gaming-day close", "close", ":material/receipt_long:"),
            page("forms", "Form register", "forms", ":material/assignment:"),
        ],
        "Compliance": [
            page("search", "Search", "search", ":material/search:"),
            page("investigator", "Patrons and dealers", "people", ":material/person_search:"),
            page("trail", "Trail and evidence bundle", "trail", ":material/inventory_2:"),
        ],
    }
)
sidebar()
navigation.run()
