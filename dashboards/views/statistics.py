"""Surveillance: outcome frequencies and hold against the exact odds. Where to look harder.

What the page shows (grouped per shoe or table, the alarm level, only the rows that alarm)
lives in the URL beside the gaming day (:mod:`dashboards.links`)."""

from __future__ import annotations

import streamlit as st

from dashboards import charts, links, ui

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Statistical alarms")
st.warning(ui.STATISTICS_DISCLAIMER)
st.caption(
    "Expected frequencies are exact probabilities of one round from a full shoe of the "
    "shoe's deck count under the table's filed rules (odds oracle, every deal enumerated). "
    "Outcome test: Pearson chi-square, Banker/Player/Tie 2 degrees of freedom, naturals 1; "
    "p-values from a chi-square survival function implemented in dashboards/stats.py (no "
    "SciPy). Hold: recorded win (settlements plus vigorish collected or marked in the round) "
    "over handle, against the exact expected hold of the stakes actually placed and its 95 % "
    "interval (normal approximation). Simulated and incomplete rounds are left out."
)

ALPHAS = (0.001, 0.005, 0.01, 0.05)
ALPHA_DEFAULT = 0.01
ONLY = "1"  # ?only=1: only the rows that alarm
# The view lives in the URL (?per=table&alpha=0.05&only=1): Back, Forward and a copied link
# give it again; a value the page does not offer is left out.
links.from_url(["stats_per", "alpha", "stats_only"])
links.take("stats_per", "per", ui.STATISTICS_PER)
links.take("alpha", "alpha", {str(a): a for a in ALPHAS})
links.take("stats_only", "only", {ONLY: True})
c1, c2, c3 = st.columns(3)
per = c1.radio("Per", list(ui.STATISTICS_PER), horizontal=True, key="stats_per")
alpha = c2.select_slider(
    "Alarm level (p below)",
    list(ALPHAS),
    None if "alpha" in st.session_state else ALPHA_DEFAULT,
    key="alpha",
)
only = c3.checkbox("Only rows that alarm", key="stats_only")
links.keep(
    {"per": per, "alpha": str(alpha), "only": ONLY if only else None},
    {"per": ui.STATISTICS_PER[0], "alpha": str(ALPHA_DEFAULT)},
)

outcomes, hold = ui.statistics(ctx, day, per)
if not outcomes.empty and "p_bpt" in outcomes:
    outcomes["alarm"] = (outcomes["p_bpt"] < alpha) | (outcomes["p_naturals"] < alpha)
else:
    outcomes["alarm"] = False
hold["alarm"] = hold["outside_95"].fillna(False).astype(bool) if "outside_95" in hold else False
outcomes = outcomes.sort_values("alarm", ascending=False, kind="stable").reset_index(drop=True)
hold = charts.alarms_first(hold)

tests = 2 * len(outcomes)
st.subheader("Banker / Player / Tie and naturals")
st.caption(
    f"{tests} tests at p < {alpha}: about {tests * alpha:.1f} alarms are expected by chance "
    f"alone; {int(outcomes['alarm'].sum())} raised."
)
shown = outcomes[outcomes["alarm"]] if only else outcomes
ui.grid(
    shown,
    "outcomes",
    day,
    column_config={
        "alarm": st.column_config.CheckboxColumn("Alarm"),
        "table_id": st.column_config.TextColumn("Table"),
        "shoe_id": st.column_config.TextColumn("Shoe"),
        "rounds": st.column_config.NumberColumn("Rounds"),
        "p_bpt": st.column_config.NumberColumn("p (B/P/T)", format="%.4f"),
        "p_naturals": st.column_config.NumberColumn("p (naturals)", format="%.4f"),
    },
)

st.subheader("Win over handle")
st.caption(
    f"{len(hold)} holds; about {0.05 * len(hold):.1f} fall outside their 95 % interval by "
    f"chance alone; {int(hold['alarm'].sum())} do."
)
shown_hold = ui.dollars(hold[hold["alarm"]] if only else hold)
drawn, drawable = charts.holds_drawn(shown_hold)
band = charts.hold_band(drawn, per)
if band is not None:
    if len(drawn) < drawable:
        st.caption(
            f"The chart draws the {len(drawn)} of {drawable} holds furthest from their "
            "expectation, those outside their 95 % interval first; the table below lists "
            "them all."
        )
    st.altair_chart(band, width="stretch", key="hold_band")
ui.grid(
    shown_hold,
    "hold",
    day,
    column_config={
        **ui.money_config(shown_hold),
        "alarm": st.column_config.CheckboxColumn("Outside 95 %"),
        "table_id": st.column_config.TextColumn("Table"),
        "shoe_id": st.column_config.TextColumn("Shoe"),
        "rounds": st.column_config.NumberColumn("Rounds"),
        "hold_pct": st.column_config.NumberColumn("Hold %", format="%.2f"),
        "expected_hold_pct": st.column_config.NumberColumn("Expected hold %", format="%.2f"),
        "low_pct": st.column_config.NumberColumn("95 % low", format="%.2f"),
        "high_pct": st.column_config.NumberColumn("95 % high", format="%.2f"),
        "z": st.column_config.NumberColumn("z", format="%.2f"),
        "outside_95": None,
    },
)
