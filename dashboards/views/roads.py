"""Surveillance: the bead plate and big road of a shoe, as the table's scoreboard shows them."""

from __future__ import annotations

import streamlit as st

from dashboards import queries as q
from dashboards import ui
from dashboards.roads import bead_plate, bead_plate_html, big_road, big_road_html
from pipeline.safe_text import markdown_text, visible

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Roads")
st.caption(
    "Bead plate: every round in order, six to a column (red Banker, blue Player, green Tie; "
    "a yellow dot marks a natural). Big road: a column per streak, ties counted on the last "
    "win, long streaks turn right. Simulated rounds are not shown."
)

with ctx.ledger() as ledger:
    tables = list(q.table_days(ledger, day)["table_id"])
    if not tables:
        st.info("No tables on this gaming day.")
        st.stop()
    c1, c2 = st.columns(2)
    table_id = c1.selectbox("Table", tables, key="roads_table", format_func=visible)
    shoe_ids = q.shoes(ledger, day, table_id)
    shoe_id = c2.selectbox("Shoe", shoe_ids, key="roads_shoe", format_func=visible)
    played = q.rounds(ledger, day, table_id, shoe_id)

played = played[~played["simulated"].astype(bool) & played["winner"].notna()]
winners = [str(w) for w in played["winner"]]
numbers = [int(n) for n in played["round_number"]]
naturals = [bool(n) for n in played["is_natural"]]
counts = {w: winners.count(w) for w in ("BANKER", "PLAYER", "TIE")}
m = st.columns(4)
m[0].metric("Banker", counts["BANKER"])
m[1].metric("Player", counts["PLAYER"])
m[2].metric("Tie", counts["TIE"])
m[3].metric("Naturals", sum(naturals))

st.markdown(f"**Bead plate** · {markdown_text(shoe_id)}")
st.markdown(bead_plate_html(bead_plate(winners, numbers, naturals)), unsafe_allow_html=True)
st.markdown(f"**Big road** · {markdown_text(shoe_id)}")
st.markdown(big_road_html(big_road(winners, numbers, naturals)), unsafe_allow_html=True)
