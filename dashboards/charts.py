"""Charts where a person would rather look than read: pure builders from the pages' frames to
Altair (Vega-Lite) specifications, so each can be tested without a browser.

Device strings (table ids, shoe ids) reach a chart only as data values, which Vega-Lite
renders as text, never as markup.
"""

from __future__ import annotations

from datetime import UTC, tzinfo

import altair as alt
import pandas as pd

SEVERITY_COLOURS = {
    "CRITICAL": "#b71c1c",
    "HIGH": "#ef6c00",
    "MEDIUM": "#f9a825",
    "LOW": "#1565c0",
    "INFO": "#78909c",
}
"""Most severe first: the order of the legend and of each bar's stack."""

HOLD_COLUMNS = ("hold_pct", "expected_hold_pct", "low_pct", "high_pct")


def alarms_first(hold: pd.DataFrame) -> pd.DataFrame:
    """Holds outside their 95 % interval first, then by distance from the expectation."""
    if hold.empty or "alarm" not in hold:
        return hold.reset_index(drop=True)
    z = pd.to_numeric(hold.get("z"), errors="coerce").abs().fillna(0.0)
    order = (
        hold.assign(_alarm=hold["alarm"].astype(bool), _z=z)
        .sort_values(["_alarm", "_z"], ascending=[False, False], kind="stable")
        .drop(columns=["_alarm", "_z"])
    )
    return order.reset_index(drop=True)


def hold_band(hold: pd.DataFrame, per: str) -> alt.LayerChart | None:
    """Each table's (or shoe's) hold against its theoretical band: a bar from the low to the
    high end of the 95 % interval the exact odds give for the stakes placed, a tick at the
    expected hold and a dot at the observed one, red where it falls outside. ``None`` when no
    row has exact odds."""
    if hold.empty or not set(HOLD_COLUMNS) <= set(hold.columns):
        return None
    rows = hold.dropna(subset=list(HOLD_COLUMNS)).copy()
    if rows.empty:
        return None
    rows["where"] = (
        rows["table_id"].astype(str) + " " + rows["shoe_id"].astype(str)
        if per == "shoe" and "shoe_id" in rows
        else rows["table_id"].astype(str)
    )
    rows["outside"] = rows["alarm"].map({True: "outside 95 %", False: "inside"})
    rows = rows[["where", "rounds", *HOLD_COLUMNS, "outside"]]
    order = list(rows["where"])
    y = alt.Y("where:N", sort=order, title="Shoe" if per == "shoe" else "Table")
    tooltip = [
        alt.Tooltip("where:N", title="Where"),
        alt.Tooltip("rounds:Q", title="Rounds"),
        alt.Tooltip("hold_pct:Q", title="Hold %", format=".2f"),
        alt.Tooltip("expected_hold_pct:Q", title="Expected %", format=".2f"),
        alt.Tooltip("low_pct:Q", title="95 % low", format=".2f"),
        alt.Tooltip("high_pct:Q", title="95 % high", format=".2f"),
    ]
    base = alt.Chart(rows)
    band = base.mark_rule(strokeWidth=6, opacity=0.35, color="#607d8b").encode(
        x=alt.X("low_pct:Q", title="Win over handle (%)"), x2="high_pct:Q", y=y, tooltip=tooltip
    )
    expected = base.mark_tick(color="#37474f", thickness=2).encode(
        x="expected_hold_pct:Q", y=y, tooltip=tooltip
    )
    observed = base.mark_point(filled=True, size=70).encode(
        x="hold_pct:Q",
        y=y,
        color=alt.Color(
            "outside:N",
            title="Observed hold",
            scale=alt.Scale(domain=["outside 95 %", "inside"], range=["#c62828", "#2e7d32"]),
        ),
        tooltip=tooltip,
    )
    return alt.LayerChart(layer=[band, expected, observed], height=max(120, 22 * len(rows)))


def exceptions_per_hour(exceptions: pd.DataFrame, zone: tzinfo = UTC) -> alt.Chart | None:
    """Exceptions per hour of their first evidence on the clock of ``zone`` (the casino's),
    stacked by severity, most severe on top. ``exceptions`` is
    :func:`dashboards.queries.exceptions`' frame (``occurred`` aware). ``None`` when no
    exception has a time."""
    if exceptions.empty or "occurred" not in exceptions:
        return None
    timed = exceptions.dropna(subset=["occurred"])
    if timed.empty:
        return None
    counts = (
        # the hour on the casino's clock: floored once the zone is dropped, as an aware floor
        # cannot say which of the autumn night's two 1 a.m. hours a time falls in (it raised
        # on the 25-hour gaming day); both read as that clock shows them, 01:00
        timed.assign(hour=timed["occurred"].dt.tz_convert(zone).dt.tz_localize(None).dt.floor("h"))
        .groupby(["hour", "severity"], as_index=False)
        .size()
        .rename(columns={"size": "exceptions"})
    )
    domain = [s for s in SEVERITY_COLOURS if s in set(counts["severity"])]
    rank = {s: i for i, s in enumerate(SEVERITY_COLOURS)}
    counts["stack"] = counts["severity"].map(rank)
    chart: alt.Chart = (
        alt.Chart(counts, height=180)
        .mark_bar()
        .encode(
            x=alt.X("hour:T", title=f"Hour of first evidence ({getattr(zone, 'key', zone)})"),
            y=alt.Y("exceptions:Q", title="Exceptions", stack="zero"),
            color=alt.Color(
                "severity:N",
                title="Severity",
                scale=alt.Scale(domain=domain, range=[SEVERITY_COLOURS[s] for s in domain]),
            ),
            order=alt.Order("stack:Q", sort="descending"),
            tooltip=[
                alt.Tooltip("hour:T", title="Hour", format="%H:00"),
                alt.Tooltip("severity:N", title="Severity"),
                alt.Tooltip("exceptions:Q", title="Exceptions"),
            ],
        )
    )
    return chart
