"""Surveillance: the exception queue, each exception with its rule and its evidence.

Click a row to open it; select several to acknowledge, escalate or assign them with one note.
The filters (who holds an exception among them), the order, the page of rows and the open
exception live in the URL (:mod:`dashboards.triage`)."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import streamlit as st

from dashboards import charts, feed, links, live, triage, ui
from dashboards import queries as q
from pipeline.safe_text import markdown_text, visible

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Exception queue")
ui.flash()
st.caption(
    f"Gaming day {day.isoformat()}. Each exception is one difference between what the cards "
    "and the rules require and what the devices recorded; acknowledge it once explained, "
    "escalate it to hand it on."
)

following = live.exceptions_feed()
triage.clear_recorded_choice()
if triage.choosing():
    st.caption("Live updates pause while rows are selected, so the selection stays put.")
else:
    live.follow(ctx.snapshot.key)
queue = ui.exception_queue(ctx.snapshot, day)
announced, ledger_notices = queue.announced, queue.notices
acks = q.with_journal(queue.acks, ctx.journal, list(queue.rows["exception_id"]))
all_rows = q.with_status(queue.rows, acks)
new_since = live.NewSince(day, all_rows["exception_id"], announced)
CHART_KEY = "per_hour_open"
ANNOUNCED_COLUMNS = ["exception_id", "severity", "code", "table_id", "round_id"]
UNCONFIRMED_COLUMNS = ["new", "severity", "code", "table_id", "round_id", "seat", "serial",
                       "at_stake", "announced", "message", "exception_id"]  # fmt: skip


@st.fragment(run_every=None if following is None else live.FEED_SECONDS)
def headline(shown: str) -> None:
    """The queue's figures, and the exceptions the live feed announced that the snapshot
    does not hold yet (:mod:`dashboards.feed`). With the feed on, this part of the page
    reruns alone every FEED_SECONDS: it reads memory, not the ledger."""
    found = live.unconfirmed(following, day, ledger_notices, all_rows["exception_id"])
    early = feed.frame_of(found.raised)
    news = live.NewSince(
        day,
        [*all_rows["exception_id"], *early["exception_id"]],
        None if announced is None else announced | found.raised_ids,
    )
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Shown", shown)
    m2.metric("New since you looked", len(news.new))
    m3.metric("Open critical (block the close)", int(all_rows["blocking"].sum()))
    m4.metric("Acknowledged", int((all_rows["status"] == "ACKNOWLEDGED").sum()))
    both = [all_rows[ANNOUNCED_COLUMNS], early[ANNOUNCED_COLUMNS]]
    news.announce(pd.concat([f for f in both if not f.empty]) if news.new else all_rows, "queue")
    if found.raised:
        with st.container(border=True, key="unconfirmed"):
            st.markdown(
                f"**Live, not yet confirmed by the ledger: {len(found.raised)} exception(s).** "
                "The live feed announced them; the ledger snapshot does not hold them yet, so "
                "they cannot be acknowledged. The next snapshot confirms each one and moves "
                "it into the queue below."
            )
            at_stake = map(triage.at_stake_cents, early["expected_cents"], early["actual_cents"])
            # only the table links: the ledger does not hold the round or the exception yet
            ui.grid(
                early.assign(
                    new=early["exception_id"].isin(news.new),
                    round_id=ui.visible_cells(early["round_id"]),
                    message=ui.visible_cells(early["message"]),
                    announced=ui.local_times(early["announced"]),
                    at_stake=[None if cents is None else cents / 100 for cents in at_stake],
                )[UNCONFIRMED_COLUMNS],
                "unconfirmed_rows",
                day,
                linked=["table_id"],
                column_config={
                    "new": st.column_config.CheckboxColumn("new"),
                    "at_stake": st.column_config.NumberColumn("at stake", format="dollar"),
                    "announced": st.column_config.DatetimeColumn(
                        ui.local_label("announced"), format="HH:mm:ss"
                    ),
                    "message": st.column_config.TextColumn("message", width="large"),
                },
            )
    if found.withdrawn:
        listed = "; ".join(f"{n.code} at {n.table_id} ({n.exception_id})" for n in found.withdrawn)
        st.warning(
            f"**Withdrawn on the live feed, not yet confirmed by the ledger:** "
            f"{markdown_text(listed)}. A later event explained them; they stay in the queue "
            "below until the next snapshot confirms the withdrawal.",
            icon=":material/undo:",
        )


if queue.in_play:
    st.caption(
        f"Not listed or counted: {queue.in_play} exception(s) of rounds still in play at open "
        "tables. The next events may explain them; the live feed raises those that stand."
    )
if all_rows.empty:
    headline("0 of 0")
    st.success("No exceptions on this gaming day in the ledger snapshot.")
    st.stop()


def options(column: str) -> list[str]:
    return sorted(str(v) for v in all_rows[column].dropna().unique())


STATUS_DEFAULT = ["OPEN", "ESCALATED"]
links.from_url(triage.URL_KEYS)
unknown = {
    triage.URL_FILTERS[key]: triage.from_url(key, options(column))
    for key, column in (("f_table", "table_id"), ("f_pit", "pit"), ("f_code", "code"),
                        ("f_dealer", "dealer_id"))
}  # fmt: skip
unknown["severity"] = triage.from_url("f_severity", list(q.SEVERITIES))
unknown["status"] = triage.from_url("f_status", list(q.STATUSES))
for param, values in unknown.items():
    if values:
        st.warning(
            f"The link's {param} {', '.join(markdown_text(v) for v in values)} has no "
            f"exception on gaming day {day.isoformat()}: that filter is left out.",
            icon=":material/link_off:",
        )
triage.holder_from_url()
me = ctx.actor.name if ctx.actor is not None else None

# collapsed unless a filter is set (from a link too): the rows are what the first screen is
# for, and a filter in force is shown where it can be changed
FILTER_KEYS = ("f_table", "f_pit", "f_severity", "f_code", "f_dealer")
with st.expander("Filters", expanded=any(st.session_state.get(k) for k in FILTER_KEYS)):
    c1, c2, c3 = st.columns(3)
    f = q.ExceptionFilter(
        tables=c1.multiselect("Table", options("table_id"), key="f_table", format_func=visible),
        pits=c2.multiselect("Pit", options("pit"), key="f_pit", format_func=visible),
        severities=c3.multiselect(
            "Severity",
            [s for s in q.SEVERITIES if s in set(all_rows["severity"])],
            key="f_severity",
        ),
    )
    c4, c5, c6 = st.columns(3)
    f.codes = c4.multiselect("Rule code", options("code"), key="f_code")
    f.dealers = c5.multiselect("Dealer", options("dealer_id"), key="f_dealer", format_func=visible)
    f.statuses = c6.multiselect(
        "Status", list(q.STATUSES), default=triage.default("f_status", STATUS_DEFAULT),
        key="f_status",
    )  # fmt: skip
    holding = st.radio(
        "Held by",
        list(triage.HOLDER_CHOICES),  # anyone first: the default (index 0)
        horizontal=True,
        key=triage.HOLDER_KEY,
        format_func={
            triage.ANYONE: "anyone or nobody",
            triage.MINE: "me" if me is None else f"me ({visible(me)})",
            triage.UNASSIGNED: "nobody (unassigned)",
        }.__getitem__,
        help="who holds an exception: the holder its latest assignment names",
    )
    if holding == triage.MINE and me is None:
        st.caption("Sign in to see the exceptions you hold; showing everyone's.")
    f.held_by = triage.held_by(holding, me)
    times = all_rows["occurred"].dropna()
    if len(times) and times.min() < times.max():
        low = ui.local_wall(times.min()).replace(second=0, microsecond=0)
        high = ui.local_wall(times.max()) + timedelta(minutes=1)
        high = high.replace(second=0, microsecond=0)
        start, end = st.slider(
            ui.local_label("Time of the first evidence"),
            min_value=low,
            max_value=high,
            value=(low, high),
            step=timedelta(minutes=5),
            format="HH:mm",
            key="f_time",
        )
        if (start, end) != (low, high):
            f.start = ui.from_local_wall(start)
            f.end = ui.from_local_wall(end)

triage.to_url({"f_status": STATUS_DEFAULT})
rows = new_since.mark(f.apply(all_rows))
stake_cents = list(map(triage.at_stake_cents, rows["expected_cents"], rows["actual_cents"]))
rows = rows.assign(
    at_stake_cents=pd.array(stake_cents, dtype="Int64"),
    at_stake=[None if cents is None else cents / 100 for cents in stake_cents],
    age=[triage.age(t) for t in rows["occurred"]],
    held_by=ui.visible_cells(rows["held_by"]),
)
headline(f"{len(rows)} of {len(all_rows)}")
links.take(
    triage.ORDER_KEY,
    triage.ORDER_PARAM,
    list(triage.ORDERS),
    lambda text: (
        f"The link's order {text} is not one this page offers: most severe first is shown."
    ),
)
starts = triage.page_starts(len(rows))
triage.keep_page(starts, (st.session_state.get(triage.ORDER_KEY, triage.SEVERITY_FIRST), repr(f)))
order_box, page_box = st.columns(2)
order = order_box.selectbox(
    "Order",
    list(triage.ORDERS),
    format_func=triage.ORDERS.__getitem__,
    key=triage.ORDER_KEY,
    help="orders every exception the filters keep; a click on a column's header sorts only "
    "the rows the grid holds",
)
rows = triage.ordered(rows, order)
first_row = page_box.selectbox(
    "Rows",
    starts,
    format_func=lambda first: triage.page_label(first, len(rows)),
    key=triage.PAGE_KEY,
    disabled=len(starts) == 1,
    help=f"the grid holds {triage.PAGE_ROWS} exceptions at a time; the filters, the order "
    "and the lists below reach them all",
)
links.keep(
    {
        triage.ORDER_PARAM: None if order == triage.SEVERITY_FIRST else order,
        triage.PAGE_PARAM: None if first_row == 0 else str(first_row // triage.PAGE_ROWS + 1),
    }
)

# What a person reads to decide first comes first, so that at 1600 px the explanation, the
# status and the holder are on screen beside the code; where and when follow, scrolled to.
QUEUE_COLUMNS = ["new", "severity", "code", "table_id", "status", "held_by", "message",
                 "at_stake", "occurred", "age", "round_id", "pit", "dealer_id", "seat",
                 "serial", "exception_id"]  # fmt: skip
table = rows[QUEUE_COLUMNS].iloc[first_row : first_row + triage.PAGE_ROWS]
table = table.assign(occurred=ui.local_times(table["occurred"]))
on_page = [str(i) for i in table["exception_id"]]
ticked = triage.ticked(on_page)
# a click on an id opens its page; a click beside it, or on the row's box, selects the row
ui.grid(
    table,
    triage.GRID_KEY,
    day,
    on_select="rerun",
    selection_mode="multi-row",
    column_config={
        "new": st.column_config.CheckboxColumn(
            "new", width=45, help="not seen since you last looked"
        ),
        "severity": st.column_config.TextColumn("severity", width=85),
        "code": st.column_config.TextColumn("code", width=215),
        "table_id": st.column_config.TextColumn("table", width=60),
        "status": st.column_config.TextColumn("status", width=105),
        "held_by": st.column_config.TextColumn(
            "held by", width=110, help="who the latest assignment names"
        ),
        "message": st.column_config.TextColumn(
            "message",
            width=400,
            help="what happened; the whole text is under the exception opened below",
        ),
        "round_id": st.column_config.TextColumn("round", width="medium"),
        "at_stake": st.column_config.NumberColumn(
            "at stake", format="dollar", help="recorded amount minus the required one"
        ),
        "age": st.column_config.TextColumn("age", help="since the first evidence"),
        "occurred": st.column_config.DatetimeColumn(
            ui.local_label("first evidence"), format="HH:mm:ss"
        ),
    },
)
# drawn only once opened: a chart's first drawing loads Vega in the browser (0.8 MB of
# script), which kept a fresh session's first screen waiting for a chart nobody had asked for
chart_box = st.expander("Exceptions over time, by severity", key=CHART_KEY, on_change="rerun")
over_time = charts.exceptions_over_time(rows, ui.casino_zone()) if chart_box.open else None
if over_time is not None:
    chart_box.altair_chart(over_time.chart, width="stretch", key="per_hour")

if rows.empty:
    st.info("No exception matches these filters.")
    st.stop()

ids = list(rows["exception_id"])
wanted = st.query_params.get(triage.EXCEPTION_PARAM)
# The grid's row checkboxes are drawn on a canvas that a keyboard or a screen reader cannot
# reach; the pick list below picks the same rows for the same bulk form, and the words typed
# here bring any exception shown into both lists.
find = st.text_input(
    "Find exceptions for the lists below: words of their code, table, round, id or message",
    key=triage.FIND_KEY,
)
triage.keep_picks(ids)
offer = triage.offered(
    ids,
    queue.labels,
    find,
    [*ticked, *st.session_state.get(triage.PICKS_KEY, []), st.session_state.get("inspect"), wanted],
    on_page,
)
if find.strip() and not offer.matching:
    st.caption(
        f'No exception shown matches "{markdown_text(find)}": the lists offer the grid\'s '
        "rows. Check the words, or clear the filters above."
    )
elif find.strip() and offer.matching > triage.PICK_LIMIT:
    st.caption(
        f"The lists offer the first {triage.PICK_LIMIT} of the {offer.matching} exceptions "
        "that match, and those chosen: type more words to reach the others."
    )
elif not find.strip() and len(ids) > len(on_page):
    st.caption(
        f"The lists offer the grid's {triage.page_label(first_row, len(ids))}, and those "
        "chosen: type words above to reach the others."
    )
typed = st.multiselect(
    "Act on several: pick exceptions by code, table or id (or tick rows in the table)",
    options=offer.ids,
    format_func=queue.labels.picks.__getitem__,
    key=triage.PICKS_KEY,
)
chosen_rows = list(dict.fromkeys([*ticked, *typed]))
if len(chosen_rows) == 1 and st.session_state.get(triage.OPENED_BY_CLICK_KEY) != chosen_rows[0]:
    st.session_state[triage.OPENED_BY_CLICK_KEY] = chosen_rows[0]  # a click opens the row, once
    st.session_state["inspect"] = chosen_rows[0]
    st.query_params[triage.EXCEPTION_PARAM] = chosen_rows[0]
if len(chosen_rows) > 1:
    st.subheader(f"{len(chosen_rows)} selected")
    chosen_frame = rows[rows["exception_id"].isin(chosen_rows)]
    listed = (f"{r.code} at {r.table_id} ({r.exception_id})" for r in chosen_frame.itertuples())
    st.caption(markdown_text("; ".join(listed)))
    ui.ack_form(
        ctx,
        [(str(r.exception_id), str(r.table_id)) for r in chosen_frame.itertuples()],
        key="bulk",
        on_recorded=triage.forget_choice,
    )
    st.divider()

if wanted and wanted not in ids and "inspect" not in st.session_state:
    hidden = all_rows.loc[all_rows["exception_id"] == wanted, "status"]
    with ctx.ledger() as ledger:
        held_on, withdrawn = q.exception_whereabouts(ledger, wanted)
    why = triage.stale_link(
        wanted, day, held_on, withdrawn, None if hidden.empty else str(hidden.iloc[0])
    )
    st.session_state["_stale_link"] = (why, offer.ids[0])  # said until another one is opened
index = offer.ids.index(wanted) if wanted in offer.ids else 0


chosen = st.selectbox(
    "Inspect exception",
    offer.ids,
    index=index,
    format_func=queue.labels.titles.__getitem__,
    key="inspect",
)
row = rows[rows["exception_id"] == chosen].iloc[0]
stale = st.session_state.get("_stale_link")
if stale is not None and stale[1] == chosen:
    st.warning(stale[0], icon=":material/link_off:")
else:
    st.session_state.pop("_stale_link", None)
    # the link shows what is open; the first one, opened by itself, stays out of a bare link
    links.keep({triage.EXCEPTION_PARAM: str(chosen)}, {triage.EXCEPTION_PARAM: ids[0]})

st.subheader(f"{row['severity']} · {row['code']} · {row['status']}")
history = acks[acks["exception_id"] == str(chosen)].reset_index(drop=True)
assignments = q.assignments(history)
if assignments.empty:
    st.caption("Nobody holds it: assign it below.")
else:
    last = assignments.iloc[-1]
    st.markdown(
        f"**Held by** {markdown_text(last['assignee'])}, assigned by "
        f"{markdown_text(last['actor'])} at {ui.local_wall(last['acted_at']):%Y-%m-%d %H:%M} "
        f"({ui.casino_zone().key}): {markdown_text(last['note'])}"
    )
st.markdown(f"**What happened.** {markdown_text(row['message'])}")
st.info(f"**{row['section']}** (rule `{row['code']}`): {row['statement']}")
facts = {
    "Pit": row["pit"],
    "Seat": row["seat"],
    "Expected": ui.fmt_money(row["expected_cents"]),
    "Recorded": ui.fmt_money(row["actual_cents"]),
}
st.markdown(" · ".join(f"**{k}** {ui.fmt_text(v)}" for k, v in facts.items() if links.has_id(v)))
ids_of_row = {
    "table": row["table_id"],
    "round": row["round_id"],
    "shoe": row["shoe_id"],
    "dealer": row["dealer_id"],
    "patron": row["patron_id"],
    "serial": None if not links.has_id(row["serial"]) else int(row["serial"]),
}
links.show_all(links.of_row(ids_of_row, day, table=row["table_id"]))

st.markdown("**Evidence: the events this exception rests on**")
cited = ui.evidence(
    ctx.snapshot,
    str(row["table_id"]),
    [] if row["source_event_ids"] is None else list(row["source_event_ids"]),
)
st.markdown(
    "\n".join(f"- {markdown_text(line)}" for line in cited.lines) or "No event is cited.",
    help=f"Times on the casino's clock ({ui.casino_zone().key}); money in dollars.",
)
events = cited.events.assign(occurred=ui.local_times(cited.events["occurred"]))
ui.grid(
    events,
    "evidence",
    day,
    column_config={
        "occurred": st.column_config.DatetimeColumn(
            ui.local_label("occurred"), format="HH:mm:ss.SSS"
        ),
        "what": st.column_config.TextColumn("what", width="large"),
    },
)

st.markdown(
    "**Acknowledgements and assignments** (append-only; the latest acknowledgement or "
    "escalation sets the status, the latest assignment who holds it)"
)
if history.empty:
    st.caption("None yet.")
else:
    # a missing assignee is NaN once the ledger's records and the journal's are merged
    shown = history.assign(assignee=ui.visible_cells(history["assignee"]))
    ui.grid(shown, "history", day)
ui.ack_form(ctx, [(str(chosen), str(row["table_id"]))], on_recorded=triage.forget_choice)
