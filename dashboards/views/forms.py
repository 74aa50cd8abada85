"""Accounting: the Complimentary Vigorish Form register (N.J.A.C. 19:47-3.3(c)3)."""

from __future__ import annotations

import streamlit as st

from dashboards import queries as q
from dashboards import ui
from pipeline.safe_text import visible

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Form register")
st.caption(
    "Every Form series received is accounted for and used in sequence (3.3(c)3ii); voided "
    "Forms are marked VOID and signed (3.3(c)3vi); the original from the drop box matches "
    "the duplicate sent to accounting (3.3(c)3iii-iv)."
)

with ctx.ledger() as ledger:
    tables = list(q.table_days(ledger, day)["table_id"])
    chosen = st.multiselect("Table", tables, key="forms_table", format_func=visible)
    register = q.form_register(ledger, day, chosen)

m = st.columns(5)
m[0].metric("Series", len(register.series))
m[1].metric("Forms used", int(register.series["used"].sum()) if len(register.series) else 0)
m[2].metric("Voided", int(register.series["voided"].sum()) if len(register.series) else 0)
m[3].metric("Missing serials", len(register.missing))
m[4].metric("Unmatched copies", len(register.unmatched))

st.subheader("Series")
st.dataframe(register.series, hide_index=True, width="stretch", key="series")

st.subheader("Missing serials")
st.caption("Serials skipped below the highest one used in a series: neither issued nor voided.")
if register.missing.empty:
    st.success("None.")
else:
    st.dataframe(register.missing, hide_index=True, key="missing")

st.subheader("Unmatched originals and duplicates")
if register.unmatched.empty:
    st.success("Every original has its duplicate and they agree.")
else:
    view = ui.dollars(register.unmatched)
    st.dataframe(view, hide_index=True, key="unmatched", column_config=ui.money_config(view))

st.subheader("Forms")
forms = ui.dollars(register.forms)
st.dataframe(
    forms, hide_index=True, width="stretch", key="forms", column_config=ui.money_config(forms)
)
st.download_button(
    "Forms (CSV)",
    ui.csv_download(register.forms),
    file_name=f"forms-{day.isoformat()}.csv",
    mime="text/csv",
    key="dl_forms",
)
