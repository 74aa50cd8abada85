"""Charts where a person would rather look than read: pure builders from the pages' frames to
Altair (Vega-Lite) specifications, so each can be tested without a browser.

Device strings (table ids, shoe ids) reach a chart only as data values, which Vega-Lite
renders as text, never as markup.
"""

from __future__ import annotations

from datetime import UTC, tzinfo
from typing import NamedTuple

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


HOLDS_DRAWN = 40
"""How many holds the hold chart draws at most: the first of :func:`alarms_first`'s order,
those outside their interval and then the furthest from their expectation in standard
deviations. A 24-table day's 630 shoes made a chart 13,860 px tall, which nobody reads, and
a fresh Chromium's first load of the statistics page took 1.92-2.86 s with it, 1.82-2.02 s
with 40; the grid below the chart lists them all."""


def holds_drawn(hold: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The holds :func:`hold_band` is given to draw, the first :data:`HOLDS_DRAWN` of
    ``hold`` (in its order) with exact odds, and how many have them."""
    if not set(HOLD_COLUMNS) <= set(hold.columns):
        return hold.iloc[0:0], 0
    drawable = hold.dropna(subset=list(HOLD_COLUMNS))
    return drawable.head(HOLDS_DRAWN), len(drawable)


PLACES = {"shoe": "Shoe", "table": "Table", "pit": "Pit"}
"""What a hold is computed per, and the title of its axis."""


def _place(rows: pd.DataFrame, per: str) -> pd.Series:
    """The name of each row's place: a pit, a table, or a shoe with its table."""
    if per == "pit":
        return rows["pit"].astype(str)
    if per == "shoe" and "shoe_id" in rows:
        return rows["table_id"].astype(str) + " " + rows["shoe_id"].astype(str)
    return rows["table_id"].astype(str)


def hold_band(hold: pd.DataFrame, per: str) -> alt.LayerChart | None:
    """Each pit's, table's or shoe's hold (``per``) against its theoretical band: a bar from
    the low to the high end of the 95 % interval the exact odds give for the stakes placed,
    a tick at the expected hold and a dot at the observed one, red where it falls outside.
    Labels are never cut short (a shoe's names its table and the whole shoe id), and the
    tooltip names the table and the shoe apart. ``None`` when no row has exact odds."""
    if hold.empty or not set(HOLD_COLUMNS) <= set(hold.columns):
        return None
    rows = hold.dropna(subset=list(HOLD_COLUMNS)).copy()
    if rows.empty:
        return None
    rows["where"] = _place(rows, per)
    rows["outside"] = rows["alarm"].map({True: "outside 95 %", False: "inside"})
    named = [c for c in ("pit", "table_id", "shoe_id") if c in rows]
    rows = rows[["where", *named, "rounds", *HOLD_COLUMNS, "outside"]]
    order = list(rows["where"])
    y = alt.Y("where:N", sort=order, title=PLACES.get(per, "Table"), axis=alt.Axis(labelLimit=0))
    titles = {"pit": "Pit", "table_id": "Table", "shoe_id": "Shoe"}
    tooltip = [
        *(alt.Tooltip(f"{c}:N", title=titles[c]) for c in named),
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


BUCKETS = ((pd.Timedelta(hours=2), 5), (pd.Timedelta(hours=8), 15))
"""The bucket of a time chart by the span it shows: up to 2 hours in 5 minutes, up to 8 in
15, longer in hours (:func:`bucket_minutes`)."""


def bucket_minutes(span: pd.Timedelta) -> int:
    """Minutes per bar for ``span`` (first to last time shown), so a 2-hour live day is some
    twenty bars, not two slivers, and a whole day is its hours (:data:`BUCKETS`)."""
    return next((minutes for longest, minutes in BUCKETS if span <= longest), 60)


def time_buckets(instants: pd.Series, zone: tzinfo) -> pd.DataFrame:
    """The buckets of aware instants: ``start`` (aware, UTC) and ``label``, the start on the
    clock of ``zone`` (``HH:MM``, with the zone's abbreviation in an hour the clock shows
    twice: the autumn night's 1 a.m., EDT then EST), and ``minutes``, the bucket size.

    Floored on the instant (UTC), never on a zone-aware wall time, which cannot say which of
    the repeated hour's two 1:05s it is (pandas raises on the 25-hour gaming day); a bucket
    of 60 minutes or less starts where the casino's clock does, its offset being whole
    hours. Every bucket between the first and the last is listed, empty ones too, so the
    axis keeps real time: the 23- and 25-hour gaming days have 23 and 25 hourly buckets."""
    utc = instants.dt.tz_convert(UTC)
    minutes = bucket_minutes(utc.max() - utc.min())
    step = pd.Timedelta(minutes=minutes)
    starts = pd.date_range(utc.min().floor(step), utc.max().floor(step), freq=step)
    walls = [start.tz_convert(zone) for start in starts]
    offsets: dict[int, set[object]] = {}
    for wall in walls:
        offsets.setdefault(wall.hour, set()).add(wall.utcoffset())
    labels = [
        f"{wall:%H:%M} {wall.tzname()}" if len(offsets[wall.hour]) > 1 else f"{wall:%H:%M}"
        for wall in walls
    ]
    return pd.DataFrame({"start": starts, "label": labels, "minutes": minutes})


class TimeChart(NamedTuple):
    """A chart over time and the bucket it counts by (``"5 minutes"``, ``"hour"``)."""

    chart: alt.Chart
    bucket: str


def exceptions_over_time(exceptions: pd.DataFrame, zone: tzinfo = UTC) -> TimeChart | None:
    """Exceptions per bucket of their first evidence (:func:`time_buckets`: 5, 15 or 60
    minutes by the span shown) on the clock of ``zone`` (the casino's), stacked by
    severity, most severe on top. ``exceptions`` is :func:`dashboards.queries.exceptions`'
    frame (``occurred`` aware). ``None`` when no exception has a time."""
    if exceptions.empty or "occurred" not in exceptions:
        return None
    timed = exceptions.dropna(subset=["occurred"])
    if timed.empty:
        return None
    buckets = time_buckets(timed["occurred"], zone)
    minutes = int(buckets["minutes"].iloc[0])
    step = pd.Timedelta(minutes=minutes)
    starts = timed["occurred"].dt.tz_convert(UTC).dt.floor(step)
    counts = (
        timed.assign(start=starts)
        .groupby(["start", "severity"], as_index=False)
        .size()
        .rename(columns={"size": "exceptions"})
        .merge(buckets[["start", "label"]], on="start")
        .drop(columns=["start"])
    )
    domain = [s for s in SEVERITY_COLOURS if s in set(counts["severity"])]
    rank = {s: i for i, s in enumerate(SEVERITY_COLOURS)}
    counts["stack"] = counts["severity"].map(rank)
    bucket = "hour" if minutes == 60 else f"{minutes} minutes"
    zone_name = getattr(zone, "key", zone)
    chart: alt.Chart = (
        alt.Chart(counts, height=180)
        .mark_bar()
        .encode(
            x=alt.X(
                "label:O",
                sort=list(buckets["label"]),
                scale=alt.Scale(domain=list(buckets["label"])),
                title=f"First evidence, per {bucket} ({zone_name})",
                axis=alt.Axis(labelAngle=0, labelOverlap=True),
            ),
            y=alt.Y("exceptions:Q", title="Exceptions", stack="zero"),
            color=alt.Color(
                "severity:N",
                title="Severity",
                scale=alt.Scale(domain=domain, range=[SEVERITY_COLOURS[s] for s in domain]),
            ),
            order=alt.Order("stack:Q", sort="descending"),
            tooltip=[
                alt.Tooltip("label:O", title=f"From ({zone_name})"),
                alt.Tooltip("severity:N", title="Severity"),
                alt.Tooltip("exceptions:Q", title="Exceptions"),
            ],
        )
    )
    return TimeChart(chart, bucket)


def dealer_peers(rates: pd.DataFrame, dealer_id: str) -> alt.LayerChart | None:
    """Every dealer's exceptions per 1,000 rounds dealt (``rates``:
    :func:`dashboards.profiles.dealer_peers`), highest first, the chosen dealer's bar
    coloured and the peers' median a dashed rule. ``None`` without a dealer who dealt."""
    rows = rates[rates["rounds"] > 0].copy()
    if rows.empty:
        return None
    rows["who"] = ["this dealer" if str(d) == dealer_id else "peers" for d in rows["dealer_id"]]
    rows = rows.sort_values(["per_1000_rounds", "dealer_id"], ascending=[False, True])
    median = float(rows["per_1000_rounds"].median())
    x = alt.X(
        "dealer_id:N",
        sort=list(rows["dealer_id"].astype(str)),
        title="Dealer",
        axis=alt.Axis(labelLimit=0, labelAngle=-45),
    )
    bars = (
        alt.Chart(rows[["dealer_id", "rounds", "exceptions", "per_1000_rounds", "who"]])
        .mark_bar()
        .encode(
            x=x,
            y=alt.Y("per_1000_rounds:Q", title="Exceptions per 1,000 rounds dealt"),
            color=alt.Color(
                "who:N",
                title="",
                scale=alt.Scale(domain=["this dealer", "peers"], range=["#c62828", "#90a4ae"]),
            ),
            tooltip=[
                alt.Tooltip("dealer_id:N", title="Dealer"),
                alt.Tooltip("rounds:Q", title="Rounds dealt", format=","),
                alt.Tooltip("exceptions:Q", title="Exceptions"),
                alt.Tooltip("per_1000_rounds:Q", title="Per 1,000 rounds", format=".1f"),
            ],
        )
    )
    rule = (
        alt.Chart(pd.DataFrame({"median": [median]}))
        .mark_rule(strokeDash=[6, 4], color="#37474f")
        .encode(
            y="median:Q", tooltip=[alt.Tooltip("median:Q", title="Peers' median", format=".1f")]
        )
    )
    return alt.LayerChart(layer=[bars, rule], height=220)


def patron_play(rounds: pd.DataFrame, zone: tzinfo = UTC) -> alt.LayerChart | None:
    """A patron's stakes per round (bars) and running net result (line), in the order the
    rounds were played (``rounds``: :func:`pipeline.ledger.history.patron_rounds`, money in
    cents, shown in dollars). The x axis counts rounds, not clock time, so a night whose
    clock repeats an hour (the 25-hour gaming day) or skips one draws no fold; each round's
    start on the clock of ``zone`` (with its abbreviation, EDT or EST) is in its tooltip.
    ``None`` when the patron played no round."""
    if rounds.empty:
        return None
    starts = pd.to_datetime(rounds["started_at"], unit="us", utc=True)
    data = pd.DataFrame(
        {
            "played": range(1, len(rounds) + 1),
            "when": [
                "" if pd.isna(t) else f"{t.tz_convert(zone):%Y-%m-%d %H:%M:%S %Z}" for t in starts
            ],
            "table_id": rounds["table_id"].astype(str),
            "round_id": rounds["round_id"].astype(str),
            "stake": rounds["stake_cents"].astype("int64") / 100,
            "net": rounds["net_cents"].astype("int64") / 100,
            "running": rounds["net_cents"].astype("int64").cumsum() / 100,
        }
    )
    x = alt.X(
        "played:Q", title="Rounds wagered on, in the order played", axis=alt.Axis(tickMinStep=1)
    )
    tooltip = [
        alt.Tooltip("when:N", title="Started"),
        alt.Tooltip("table_id:N", title="Table"),
        alt.Tooltip("round_id:N", title="Round"),
        alt.Tooltip("stake:Q", title="Staked", format="$,.2f"),
        alt.Tooltip("net:Q", title="Result", format="$,.2f"),
        alt.Tooltip("running:Q", title="Running result", format="$,.2f"),
    ]
    base = alt.Chart(data)
    stakes = base.mark_bar(color="#90a4ae", opacity=0.7).encode(
        x=x, y=alt.Y("stake:Q", title="Staked ($)"), tooltip=tooltip
    )
    running = base.mark_line(color="#1565c0", point=True).encode(
        x=x, y=alt.Y("running:Q", title="Running result ($)"), tooltip=tooltip
    )
    chart: alt.LayerChart = alt.layer(stakes, running, height=220).resolve_scale(y="independent")
    return chart
