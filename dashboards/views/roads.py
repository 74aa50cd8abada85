"""Surveillance: the bead plate and big road of a shoe, as the table's scoreboard shows them."""

from __future__ import annotations

import streamlit as st

from dashboards import links, ui
from dashboards import queries as q
from dashboards.roads import (
    DERIVED_ROADS,
    bead_plate,
    bead_plate_html,
    big_road,
    big_road_html,
    derived_road,
    derived_road_html,
)
from pipeline.safe_text import markdown_text, visible

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Roads")
st.caption(
    "Bead plate: every round in order, six to a column (red Banker, blue Player, green Tie; "
    "a yellow dot marks a natural, a black outline a round with exceptions). Big road: a "
    "column per streak, ties counted on the last win, long streaks turn right. Derived roads "
    "(big eye boy, small road, cockroach pig): red where the big road repeats the pattern of "
    "the streak 1, 2 or 3 columns to its left, blue where it does not; they describe the "
    "shoe and predict nothing. Simulated rounds are not shown."
)

with ctx.ledger() as ledger:
    tables = list(q.table_days(ledger, day)["table_id"])
    if not tables:
        st.info("No tables on this gaming day.")
        st.stop()
    links.from_url(["roads_table", "roads_shoe"])
    links.take(
        "roads_table",
        "table",
        tables,
        lambda wanted: f"No table {wanted} on gaming day {day.isoformat()}: choose one below.",
    )
    c1, c2 = st.columns(2)
    table_id = c1.selectbox("Table", tables, key="roads_table", format_func=visible)
    shoe_ids = q.shoes(ledger, day, table_id)
    links.take(
        "roads_shoe",
        links.KINDS["shoe"].param,
        shoe_ids,
        lambda wanted: (
            f"No shoe {wanted} at table {markdown_text(table_id)} on gaming day "
            f"{day.isoformat()}: choose one below."
        ),
    )
    shoe_id = c2.selectbox("Shoe", shoe_ids, key="roads_shoe", format_func=visible)
    links.keep({"table": table_id, "shoe": shoe_id}, {"table": tables[0], "shoe": shoe_ids[0]})
    played = q.rounds(ledger, day, table_id, shoe_id)
    with_exceptions = q.rounds_with_exceptions(ledger, day, table_id)

played = played[~played["simulated"].astype(bool) & played["winner"].notna()]
winners = [str(w) for w in played["winner"]]
numbers = [int(n) for n in played["round_number"]]
naturals = [bool(n) for n in played["is_natural"]]
flagged = [str(r) in with_exceptions for r in played["round_id"]]
counts = {w: winners.count(w) for w in ("BANKER", "PLAYER", "TIE")}
m = st.columns(5)
m[0].metric("Banker", counts["BANKER"])
m[1].metric("Player", counts["PLAYER"])
m[2].metric("Tie", counts["TIE"])
m[3].metric("Naturals", sum(naturals))
m[4].metric("Rounds with exceptions", sum(flagged))

st.markdown(f"**Bead plate** · {markdown_text(shoe_id)}")
st.markdown(
    bead_plate_html(bead_plate(winners, numbers, naturals, flagged=flagged)),
    unsafe_allow_html=True,
)
st.markdown(f"**Big road** · {markdown_text(shoe_id)}")
big = big_road(winners, numbers, naturals)
st.markdown(big_road_html(big), unsafe_allow_html=True)
for name, offset in DERIVED_ROADS.items():  # one under another: a shoe's road runs wide
    st.markdown(f"**{name}**")
    st.markdown(derived_road_html(derived_road(big, offset), offset), unsafe_allow_html=True)
