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

from dashboards import links  # noqa: E402
from dashboards.ui import sidebar  # noqa: E402

PAGES = Path(__file__).resolve().parent / "views"  # not pages/: that name means MPA v1

st.set_page_config(page_title="Baccarat audit", page_icon=":material/casino:", layout="wide")


def page(
    name: str, title: str, icon: str, *, url: str | None = None, at_root: bool = False
) -> st.Page:
    """A page of ``views/``, served at its path in :data:`dashboards.links.PAGE_PATHS` (the
    links in grids point there) unless ``url`` says otherwise; ``at_root``: the hidden
    default page Streamlit serves at ``/``."""
    return st.Page(
        PAGES / f"{name}.py",
        title=title,
        url_path=url or links.PAGE_PATHS[f"views/{name}.py"],
        icon=icon,
        default=at_root,
        visibility="hidden" if at_root else "visible",
    )


QUEUE = ("exception_queue", "Exception queue")
# Streamlit serves the default page only at the root and answers its own url_path with "Page
# not found"; so the queue is an ordinary page at /exceptions, and the root runs the same
# script as a hidden twin (pages are told apart by url_path), with no redirect's extra run.


navigation = st.navigation(
    {
        "Surveillance": [
            # /exceptions first: a link to the queue's script names the first page running it
            page(*QUEUE, ":material/report:"),
            page(*QUEUE, ":material/report:", url="queue-at-root", at_root=True),
            page("table_board", "Table board", ":material/table_restaurant:"),
            page("round_reconstruction", "Round reconstruction", ":material/style:"),
            page("roads", "Roads", ":material/grid_on:"),
            page("statistics", "Statistical alarms", ":material/query_stats:"),
            page("slugs", "False shuffles", ":material/shuffle:"),
        ],
        "Accounting": [
            page("close", "Gaming-day close", ":material/receipt_long:"),
            page("forms", "Form register", ":material/assignment:"),
        ],
        "Compliance": [
            page("search", "Search", ":material/search:"),
            page("investigator", "Patrons and dealers", ":material/person_search:"),
            page("trail", "Trail and evidence bundle", ":material/inventory_2:"),
        ],
    }
)
links.note_arrival()
sidebar()
try:
    navigation.run()
finally:  # st.stop() and st.rerun() end a run by raising
    links.note_departure()
