"""Compliance: one patron's play and one dealer's record, across every gaming day the ledger
holds. A link can carry the choice (``?patron=...`` or ``?dealer=...``)."""

from __future__ import annotations

import streamlit as st

from dashboards import charts, links, profiles, ui
from dashboards import queries as q
from pipeline.ledger import history
from pipeline.safe_text import markdown_text, visible

ctx = ui.current()
st.title("Patrons and dealers")
st.caption(
    "Across every gaming day in the ledger. A patron's net result is what the recorded "
    "settlements gave the patron (winnings paid less losing stakes), before vigorish, which "
    "is shown apart. A dealer's rate is exceptions in the rounds the dealer dealt per 1,000 "
    "of those rounds. These figures say where to look; they accuse no one."
)

patron_ids, dealer_ids = ui.people(ctx.snapshot)


def _chosen(key: str, kind: str, options: list[str]) -> None:
    """A choice a link carries, if it is one of the options (never an arbitrary string);
    one that is not is named."""
    wanted = st.query_params.get(links.KINDS[kind].param)
    if key in st.session_state or not wanted:
        return
    if wanted in options:
        st.session_state[key] = wanted
    else:
        st.warning(
            f"No {kind} {markdown_text(wanted)} in the ledger: the link may be mistyped or from "
            f"another ledger. Showing {markdown_text(options[0])}; choose another below.",
            icon=":material/link_off:",
        )


links.from_url(["inv_patron", "inv_dealer"])
TABS = ("Patron profile", "Dealer report", "Unresolved across days")
TAB_KEY = "inv_tab"
for choice in ("inv_patron", "inv_dealer"):  # a tab not run drops its widgets' state
    if choice in st.session_state:
        st.session_state[choice] = st.session_state[choice]
# Only the open tab runs: the three together read the whole ledger, patrons, dealers and
# every day's exceptions, and drew seven grids on a first visit (the slowest first load).
patron_tab, dealer_tab, queue_tab = st.tabs(
    list(TABS),
    key=TAB_KEY,
    on_change="rerun",
    default=TABS[1] if "dealer" in st.query_params and "patron" not in st.query_params else None,
)

if patron_tab.open:
    with patron_tab:
        if not patron_ids:
            st.info("No patron wagered or was named on a Form.")
        else:
            _chosen("inv_patron", "patron", patron_ids)
            patron = st.selectbox("Patron", patron_ids, key="inv_patron", format_func=visible)
            links.keep({"patron": patron}, {"patron": patron_ids[0]})
            with ctx.ledger() as ledger:
                days = history.patron_days(ledger, patron)
                forms = history.patron_forms(ledger, patron)
                findings = history.patron_exceptions(ledger, patron)
                played = history.patron_rounds(ledger, patron)
            m = [*st.columns(3), *st.columns(3)]
            m[0].metric("Handle", ui.fmt_money(int(days["handle_cents"].sum())))
            m[1].metric("Net result", ui.fmt_money(int(days["net_cents"].sum())))
            m[2].metric("Vigorish", ui.fmt_money(int(days["vig_cents"].sum())))
            m[3].metric("Gaming days", len(days))
            m[4].metric("Forms", int(days["forms"].sum()))
            m[5].metric("Exceptions", int(days["exceptions"].sum()))
            play = charts.patron_play(played, ui.casino_zone())
            if play is not None:
                st.markdown(
                    f"**Stakes and running result, round by round** (times on the casino's clock, "
                    f"{ui.casino_zone().key}, in each round's tooltip)"
                )
                st.altair_chart(play, width="stretch", key="inv_patron_play")
            ui.ledger_table(days, "inv_patron_days")
            st.markdown("**Complimentary Vigorish Forms**")
            ui.ledger_table(forms, "inv_patron_forms")
            st.markdown("**Exceptions naming the patron**")
            ui.ledger_table(findings, "inv_patron_exceptions")

if dealer_tab.open:
    with dealer_tab:
        if not dealer_ids:
            st.info("No dealer is named on a played round.")
        else:
            _chosen("inv_dealer", "dealer", dealer_ids)
            dealer = st.selectbox("Dealer", dealer_ids, key="inv_dealer", format_func=visible)
            links.keep({"dealer": dealer}, {"dealer": dealer_ids[0]})
            with ctx.ledger() as ledger:
                dealt = profiles.dealer_days(ledger, dealer)
                codes = profiles.dealer_codes(ledger, dealer)
            rounds = int(dealt["rounds"].sum())
            found = int(dealt["exceptions"].sum())
            d = st.columns(4)
            d[0].metric("Gaming days", len(dealt))
            d[1].metric("Rounds dealt", f"{rounds:,}")
            d[2].metric("Exceptions", found)
            d[3].metric("Per 1,000 rounds", f"{1000 * found / rounds:.1f}" if rounds else "-")
            against = charts.dealer_peers(ui.dealer_peers(ctx.snapshot), dealer)
            if against is not None:
                st.markdown("**Exceptions per 1,000 rounds dealt, against every other dealer**")
                st.altair_chart(against, width="stretch", key="inv_dealer_peers")
            ui.ledger_table(dealt, "inv_dealer_days")
            st.markdown("**Exceptions by rule code**")
            st.dataframe(codes, hide_index=True, width="stretch", key="inv_dealer_codes")
            if ctx.day is not None:
                with ctx.ledger() as ledger:
                    that_day = history.dealer_day(ledger, dealer, ctx.day)
                st.subheader(f"Gaming day {ctx.day.isoformat()}")
                if that_day.rounds.empty:
                    st.caption("The dealer dealt no round on this gaming day.")
                else:
                    tables = list(dict.fromkeys(that_day.rounds["table_id"]))
                    st.caption(
                        f"{len(that_day.rounds):,} rounds dealt at {len(tables)} table(s), "
                        f"{len(that_day.exceptions)} exception(s) in them."
                    )
                    links.show_all(
                        [
                            *(links.link_to("table", table, ctx.day) for table in tables),
                            links.link_to("dealer_exceptions", dealer, ctx.day),
                        ]
                    )
                    rounds_dealt = that_day.rounds
                    ui.ledger_table(
                        rounds_dealt.assign(
                            started=ui.local_times(q.micros_series(rounds_dealt["started_at"]))
                        ).drop(columns=["started_at"]),
                        "inv_dealer_rounds",
                        started=st.column_config.DatetimeColumn(
                            ui.local_label("started"), format="HH:mm:ss"
                        ),
                    )
                    st.markdown("**Exceptions in the rounds dealt**")
                    ui.ledger_table(that_day.exceptions, "inv_dealer_exceptions")

if queue_tab.open:
    with queue_tab:
        with ctx.ledger() as ledger:
            unresolved = profiles.unresolved_across_days(ledger, ctx.journal)
        st.caption(
            "Every exception not acknowledged, on every gaming day in the ledger, most severe and "
            "oldest first. Acknowledge or escalate them on the exception queue of their day."
        )
        if unresolved.empty:
            st.success("Nothing unresolved on any gaming day.")
        else:
            counts = unresolved.groupby(["gaming_date", "severity"]).size().unstack(fill_value=0)
            st.dataframe(counts, width="stretch", key="inv_unresolved_counts")
            ui.ledger_table(unresolved, "inv_unresolved")
