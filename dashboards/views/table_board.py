"""Surveillance: every table at a glance: game, shoe progress, rounds, open exceptions, hold."""

from __future__ import annotations

import time

import streamlit as st

from dashboards import floor, links, live, ui
from dashboards import queries as q
from pipeline.safe_text import visible

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Table board")
st.caption(
    f"Gaming day {day.isoformat()}. Shoe progress is the last shoe's cards dealt (burns "
    "included) over the cards in it; hold is win (recorded settlements plus vigorish "
    "collected) over handle; open exceptions are those not acknowledged."
)

live.follow(ctx.snapshot.key)
read = ui.table_board(ctx.snapshot, day)
found, facts = read.exceptions, read.facts
acks = q.with_journal(read.acks, ctx.journal, list(found["exception_id"]))
board = q.with_open_exceptions(read.tables, q.with_status(found, acks))
new_since = live.NewSince(day, found["exception_id"], read.announced)
new_per_table = found[found["exception_id"].isin(new_since.new)]["table_id"].value_counts()
board = board.assign(new_exceptions=[int(new_per_table.get(t, 0)) for t in board["table_id"]])

pits = sorted(str(p) for p in board["pit"].dropna().unique())
games = sorted(str(g) for g in board["game"].dropna().unique())
# Filter widget key -> its URL parameter and the values a link may choose among.
FILTERS = {"board_pit": ("pit", pits), "board_game": ("game", games)}
links.restore_choices(FILTERS)
chosen = st.multiselect("Pit", pits, key="board_pit", format_func=visible)
chosen_games = st.multiselect("Game", games, key="board_game")
links.keep({"pit": chosen, "game": chosen_games}, {"pit": [], "game": []})
if chosen:
    board = board[board["pit"].isin(chosen)]
if chosen_games:
    board = board[board["game"].isin(chosen_games)]

m = st.columns(5)
m[0].metric("Tables", len(board))
m[1].metric("Rounds", int(board["rounds"].sum()))
m[2].metric("Open exceptions", int(board["open_exceptions"].sum()))
m[3].metric("Open critical", int(board["open_critical"].sum()))
m[4].metric("New since you looked", int(board["new_exceptions"].sum()))
new_since.announce(found, "board")

newest = int(facts["last_event_at"].max()) if len(facts) else 0
clock = time.time_ns() // 1000
# a day still being played is measured against the clock, a past day against its last event
now = clock if clock - newest < floor.LIVE_WITHIN_MICROS else newest
st.markdown(
    floor.floor_html(board, facts, now),
    unsafe_allow_html=True,
)
st.caption(
    "A tile per table: its state, shoe progress, open exceptions (red: a critical one) and "
    "hold; the last event's age is measured "
    + ("now." if now == clock else "to the day's last event (the day is over).")
)
st.subheader("Every table")
links.show_all(links.link_to("table", table_id, day) for table_id in board["table_id"])

view = board.assign(
    shoe_id=board["current_shoe"],
    shoe=[
        f"{'ended' if ended else 'in play'}, {r} rounds" if isinstance(s, str) else None
        for s, ended, r in zip(
            board["current_shoe"], board["shoe_ended"], board["shoe_rounds"], strict=True
        )
    ],
)
view = ui.dollars(
    view[
        [
            "table_id",
            "pit",
            "game",
            "rules_id",
            "dealer_id",
            "shoes",
            "rounds",
            "shoe_id",
            "shoe",
            "shoe_progress",
            "open_exceptions",
            "open_critical",
            "new_exceptions",
            "handle_cents",
            "win_cents",
            "hold_pct",
        ]
    ]
)
ui.grid(
    view,
    "board",
    day,
    column_config={
        **ui.money_config(view),
        "shoe_id": st.column_config.TextColumn("last shoe"),
        "shoe": st.column_config.TextColumn("last shoe's state"),
        "shoe_progress": st.column_config.ProgressColumn(
            "shoe progress", min_value=0.0, max_value=1.0, format="percent"
        ),
        "hold_pct": st.column_config.NumberColumn("hold %", format="%.2f"),
        "new_exceptions": st.column_config.NumberColumn(
            "new", help="exceptions not seen since you last looked"
        ),
    },
)
