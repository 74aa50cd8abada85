"""Surveillance: a false shuffle's slug beside the shoe it repeats, and the wagers on it."""

from __future__ import annotations

import streamlit as st

from dashboards import links, ui
from dashboards import slugs as s
from pipeline.ledger import round_play
from pipeline.safe_text import markdown_text, visible

# A slug is evidence for a review of the shuffle on video (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1,
# 7.5(a)), not a finding of who left it: the page shows cards and wagers, and names no one.
ctx = ui.current()
day = ui.require_day(ctx)
st.title("False shuffles")
st.caption(
    "Runs of cards a shoe dealt in the same order as an earlier shoe of its pit: the cards "
    "were not randomly intermixed (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a)). Review the "
    "shuffle on video; the wagers below are what was bet on the rounds dealt from the run."
)

with ctx.ledger() as ledger:
    found = s.slug_exceptions(ledger, day)
    if found.empty:
        st.success("No run of cards repeated an earlier shoe on this gaming day.")
        st.stop()
    labels = {
        row.exception_id: f"{row.table_id} {row.shoe_id}: {ui.fmt_money(row.staked_cents)} staked"
        for row in found.itertuples()
    }
    links.from_url(["slug_pick"])
    links.take(
        "slug_pick",
        links.KINDS["exception"].param,
        labels,
        lambda wanted: (
            f"No false shuffle {wanted} on gaming day {day.isoformat()}: the link may be "
            "mistyped or of another day."
        ),
    )
    chosen = st.selectbox(
        "Slug", list(labels), key="slug_pick", format_func=lambda key: visible(labels[key])
    )
    links.keep(
        {links.KINDS["exception"].param: chosen},
        {links.KINDS["exception"].param: next(iter(labels))},
    )
    row = found[found["exception_id"] == chosen].iloc[0]
    cards = s.slug_cards(ledger, row["shoe_id"], list(row["source_event_ids"]))
    rounds = [r for r in dict.fromkeys(cards.slug["round_id"]) if r is not None]
    bets = round_play.settled_bets(ledger, day, row["table_id"], rounds)

st.markdown(markdown_text(row["message"]))
links.show_all(
    [
        *links.of_row(
            {"table": row["table_id"], "shoe": row["shoe_id"]}, day, table=row["table_id"]
        ),
        *(links.link_to("round", round_id, day) for round_id in rounds),
        links.link_to("exception", row["exception_id"], day),
    ]
)
m = st.columns(4)
m[0].metric("Cards in the run", len(cards.slug))
m[1].metric("Rounds dealt from it", len(rounds))
m[2].metric("Wagers on those rounds", len(bets))
m[3].metric("Staked", ui.fmt_money(row["staked_cents"]))

left, right = st.columns(2)
with left:
    st.subheader(f"Shoe {visible(row['shoe_id'])} (table {visible(row['table_id'])})")
    ui.grid(cards.slug, "slug_cards", day)
with right:
    st.subheader(
        f"Earlier shoe {visible(cards.earlier_shoe or '?')} (table "
        f"{visible(cards.earlier_table or '?')}, {cards.earlier_day})"
    )
    ui.grid(cards.earlier, "earlier_cards", cards.earlier_day)

st.subheader("Wagers on the rounds dealt from the run")
view = ui.dollars(bets)
ui.grid(view, "slug_bets", day, column_config=ui.money_config(view))
ui.ack_form(ctx, [(str(row["exception_id"]), str(row["table_id"]))], key="slug_ack")
