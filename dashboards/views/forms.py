"""Accounting: the Complimentary Vigorish Form register (N.J.A.C. 19:47-3.3(c)3)."""

from __future__ import annotations

import streamlit as st

from dashboards import links, ui
from dashboards import queries as q
from pipeline.safe_text import markdown_text, visible

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Form register")
st.caption(
    "Every Form series received is accounted for and used in sequence (3.3(c)3ii); voided "
    "Forms are marked VOID and signed (3.3(c)3vi); the original from the drop box matches "
    "the duplicate sent to accounting (3.3(c)3iii-iv)."
)

links.from_url(["forms_table"])
with ctx.ledger() as ledger:
    tables = list(q.table_days(ledger, day)["table_id"])
    if "forms_table" not in st.session_state:
        linked_tables = st.query_params.get_all("table")
        st.session_state["forms_table"] = [t for t in linked_tables if t in tables]
    chosen = st.multiselect("Table", tables, key="forms_table", format_func=visible)
    links.keep({"table": chosen}, {"table": []})
    register = q.form_register(ledger, day, chosen)

wanted = st.query_params.get(links.KINDS["serial"].param)
if wanted:
    serials = register.forms["serial"].astype(str)
    linked = register.forms[serials == wanted]
    if linked.empty:
        st.warning(
            f"No Form with serial {markdown_text(wanted)} at the tables shown on gaming day "
            f"{day.isoformat()}: the link may be mistyped or of another day.",
            icon=":material/link_off:",
        )
    else:
        st.subheader(f"Form {markdown_text(wanted)}")
        view = ui.dollars(linked)
        ui.grid(view, "linked_form", day, column_config=ui.money_config(view))
        links.show_all(
            [
                *links.of_row(
                    {"table": linked["table_id"].iloc[0], "patron": linked["patron_id"].iloc[0]},
                    day,
                ),
                links.link_to("form_trail", wanted, day),
            ]
        )

m = st.columns(5)
m[0].metric("Series", len(register.series))
m[1].metric("Forms used", int(register.series["used"].sum()) if len(register.series) else 0)
m[2].metric("Voided", int(register.series["voided"].sum()) if len(register.series) else 0)
m[3].metric("Missing serials", len(register.missing))
m[4].metric("Unmatched copies", len(register.unmatched))

st.subheader("Series")
ui.grid(register.series, "series", day)

st.subheader("Missing serials")
st.caption("Serials skipped below the highest one used in a series: neither issued nor voided.")
if register.missing.empty:
    st.success("None.")
else:
    # a missing serial was never issued: it has no Form to open
    ui.grid(register.missing, "missing", day, linked=["table_id"])

st.subheader("Unmatched originals and duplicates")
if register.unmatched.empty:
    st.success("Every original has its duplicate and they agree.")
else:
    view = ui.dollars(register.unmatched)
    ui.grid(view, "unmatched", day, column_config=ui.money_config(view))

st.subheader("Forms")
forms = ui.dollars(register.forms)
ui.grid(forms, "forms", day, column_config=ui.money_config(forms))
st.download_button(
    "Forms (CSV)",
    ui.csv_download(register.forms),
    file_name=f"forms-{day.isoformat()}.csv",
    mime="text/csv",
    key="dl_forms",
)
