"""Compliance: find rounds, Forms and exceptions by patron, table, dealer, serial or time."""

from __future__ import annotations

from datetime import datetime, timedelta

import streamlit as st

from dashboards import links, ui
from dashboards import queries as q
from pipeline.safe_text import visible

# Trail links shown per kind: the rounds and Forms beyond are a search away.
TRAIL_LINKS = 50

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Search")
st.caption("Every criterion given must match. Patron and dealer match parts of ids or names.")

with ctx.ledger() as ledger:
    tables = list(q.table_days(ledger, day)["table_id"])

# Search box key -> URL parameter: a link can carry a search.
CRITERIA = {"s_patron": "patron", "s_dealer": "dealer", "s_serial": "serial", "s_table": "table"}
links.from_url(CRITERIA)
for key, param in CRITERIA.items():
    if key not in st.session_state and st.query_params.get(param):
        wanted = st.query_params.get(param)
        if key != "s_table" or wanted in tables:
            st.session_state[key] = wanted
c1, c2, c3, c4 = st.columns(4)
patron = c1.text_input("Patron (id or name)", key="s_patron")
table_id = c2.selectbox(
    "Table", ["", *tables], key="s_table", format_func=lambda t: visible(t) if t else "any"
)
dealer = c3.text_input("Dealer", key="s_dealer")
serial_text = c4.text_input("Form serial", key="s_serial")
links.keep({param: st.session_state.get(key) or None for key, param in CRITERIA.items()})
query = q.SearchQuery(patron=patron, table_id=table_id, dealer=dealer)
if serial_text.strip():
    if serial_text.strip().isdigit():
        query.serial = int(serial_text.strip())
    else:
        st.error("A Form serial is a number.")
if st.checkbox(ui.local_label("Only within a time range"), key="s_use_time"):
    starts = ui.gaming_day().starts
    t1, t2, t3, t4 = st.columns(4)
    start_day = t1.date_input("From", day, key="s_from_day")
    start_time = t2.time_input("at", starts, key="s_from_time", step=timedelta(minutes=15))
    end_day = t3.date_input("To", day + timedelta(days=1), key="s_to_day")
    end_time = t4.time_input("at ", starts, key="s_to_time", step=timedelta(minutes=15))
    query.start = ui.from_local_wall(datetime.combine(start_day, start_time))
    query.end = ui.from_local_wall(datetime.combine(end_day, end_time))

if query.empty():
    st.info("Give at least one criterion.")
    st.stop()

query.page = int(st.session_state.get("s_page", 1)) - 1
with ctx.ledger() as ledger:
    found = q.search(ledger, query)

pages = max(1, -(-found.rounds_total // q.SEARCH_PAGE))
first = query.page * q.SEARCH_PAGE
st.subheader(f"Rounds ({found.rounds_total:,} match)")
if not found.summary.empty:
    st.caption("Every matching round, by gaming day and table.")
    ui.ledger_table(found.summary, "s_summary", day)
if pages > 1:
    st.number_input(f"Page of {q.SEARCH_PAGE} rounds (1-{pages})", 1, pages, key="s_page", step=1)
if len(found.rounds):
    st.caption(f"Rounds {first + 1:,}-{first + len(found.rounds):,} of {found.rounds_total:,}.")
rounds = found.rounds.drop(columns=["started_at"])
ui.ledger_table(
    rounds.assign(started=ui.local_times(rounds["started"])),
    "s_rounds",
    day,
    started=st.column_config.DatetimeColumn(ui.local_label("started"), format="YYYY-MM-DD HH:mm"),
)
st.subheader(f"Complimentary Vigorish Forms ({len(found.forms)})")
ui.ledger_table(found.forms, "s_forms", day)
st.subheader(f"Exceptions ({len(found.exceptions)})")
ui.ledger_table(found.exceptions.drop(columns=["started_at"]), "s_exceptions", day)

st.markdown("**Follow the trail** of a round or a Form listed above (raw events to exceptions)")
links.show_all(
    [
        *(links.link_to("trail", r, day) for r in found.rounds["round_id"][:TRAIL_LINKS]),
        *(links.link_to("form_trail", s, day) for s in found.forms["serial"][:TRAIL_LINKS]),
    ]
)
