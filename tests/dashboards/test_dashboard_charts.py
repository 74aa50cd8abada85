"""The dashboards' chart builders: what each chart plots, in which order, and that hostile
device strings stay data."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd
import pytest

from dashboards import charts
from tests.hostile.corpus import CORPUS


def _hold(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows)


def _row(table: str, hold: float, low: float, high: float, z: float) -> dict[str, Any]:
    return {
        "table_id": table,
        "rounds": 80,
        "hold_pct": hold,
        "expected_hold_pct": (low + high) / 2,
        "low_pct": low,
        "high_pct": high,
        "z": z,
        "alarm": not low <= hold <= high,
    }


def _layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return list(spec["layer"])


def _data(chart: Any) -> list[dict[str, Any]]:
    spec = chart.to_dict()
    (values,) = spec["datasets"].values()
    return list(values)


def test_alarms_come_first_then_by_distance_from_the_expectation() -> None:
    hold = _hold(
        [
            _row("T01", 1.0, 0.0, 2.0, 0.1),
            _row("T02", 9.0, 0.0, 2.0, 4.0),
            _row("T03", 1.9, 0.0, 2.0, 1.8),
            _row("T04", -5.0, 0.0, 2.0, -3.0),
        ]
    )
    assert list(charts.alarms_first(hold)["table_id"]) == ["T02", "T04", "T03", "T01"]


def test_hold_band_plots_interval_expectation_and_observation_per_table() -> None:
    hold = _hold([_row("T01", 1.0, 0.0, 2.0, 0.1), _row("T02", 9.0, 0.0, 2.0, 4.0)])
    chart = charts.hold_band(charts.alarms_first(hold), "table")
    assert chart is not None
    spec = chart.to_dict()
    marks = [layer["mark"]["type"] for layer in _layers(spec)]
    assert marks == ["rule", "tick", "point"]
    band, expected, observed = _layers(spec)
    assert (band["encoding"]["x"]["field"], band["encoding"]["x2"]["field"]) == (
        "low_pct",
        "high_pct",
    )
    assert expected["encoding"]["x"]["field"] == "expected_hold_pct"
    assert observed["encoding"]["x"]["field"] == "hold_pct"
    assert band["encoding"]["y"]["sort"] == ["T02", "T01"]  # the alarm on top
    data = {row["where"]: row for row in _data(chart)}
    assert data["T02"]["outside"] == "outside 95 %" and data["T01"]["outside"] == "inside"


def test_hold_band_per_shoe_names_table_and_shoe() -> None:
    hold = _hold([{**_row("T01", 1.0, 0.0, 2.0, 0.1), "shoe_id": "T01-S3"}])
    chart = charts.hold_band(hold, "shoe")
    assert chart is not None
    assert [row["where"] for row in _data(chart)] == ["T01 T01-S3"]


def test_hold_band_leaves_out_rules_without_exact_odds() -> None:
    no_odds = pd.DataFrame([{"table_id": "T09", "rounds": 12, "note": "no exact odds"}])
    assert charts.hold_band(no_odds, "table") is None
    mixed = pd.concat([no_odds, _hold([_row("T01", 1.0, 0.0, 2.0, 0.1)])], ignore_index=True)
    chart = charts.hold_band(mixed, "table")
    assert chart is not None and [row["where"] for row in _data(chart)] == ["T01"]


def test_the_chart_is_given_the_first_holds_with_exact_odds_and_how_many_have_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(charts, "HOLDS_DRAWN", 2)
    no_odds = pd.DataFrame([{"table_id": "T09", "rounds": 12, "note": "no exact odds"}])
    tables = _hold([_row(f"T0{n}", 1.0, 0.0, 2.0, 0.1) for n in range(1, 4)])
    drawn, drawable = charts.holds_drawn(pd.concat([no_odds, tables], ignore_index=True))
    assert list(drawn["table_id"]) == ["T01", "T02"] and drawable == 3
    nothing, none = charts.holds_drawn(no_odds)
    assert nothing.empty and none == 0


def test_hostile_table_ids_stay_data_in_the_chart() -> None:
    hold = _hold([_row(text, 1.0, 0.0, 2.0, 0.1) for text in CORPUS[:5]])
    chart = charts.hold_band(hold, "table")
    assert chart is not None
    assert sorted(row["where"] for row in _data(chart)) == sorted(CORPUS[:5])
    spec = chart.to_dict()
    assert "usermeta" not in spec and all("html" not in str(layer) for layer in _layers(spec))


NEW_YORK = ZoneInfo("America/New_York")


def _counts(chart: Any) -> dict[tuple[str, str], int]:
    return {(row["label"], row["severity"]): row["exceptions"] for row in _data(chart)}


def _x_domain(chart: Any) -> list[str]:
    return list(chart.to_dict()["encoding"]["x"]["scale"]["domain"])


def test_the_bucket_follows_the_span_shown() -> None:
    """Up to 2 hours in 5 minutes, up to 8 in 15, longer in hours: a live day of two hours
    is some twenty bars, not two slivers."""
    assert charts.bucket_minutes(pd.Timedelta(minutes=40)) == 5
    assert charts.bucket_minutes(pd.Timedelta(hours=2)) == 5
    assert charts.bucket_minutes(pd.Timedelta(hours=6)) == 15
    assert charts.bucket_minutes(pd.Timedelta(hours=24)) == 60


def test_a_two_hour_live_day_is_counted_in_five_minutes() -> None:
    times = pd.to_datetime(
        ["2026-11-24T11:02Z", "2026-11-24T11:04Z", "2026-11-24T12:31Z", "2026-11-24T13:01Z"],
        utc=True,
    )
    exceptions = pd.DataFrame({"occurred": times, "severity": ["HIGH", "CRITICAL", "HIGH", "LOW"]})
    shown = charts.exceptions_over_time(exceptions, NEW_YORK)
    assert shown is not None and shown.bucket == "5 minutes"
    domain = _x_domain(shown.chart)
    assert domain[0] == "06:00" and domain[-1] == "08:00" and len(domain) == 25  # empty too
    assert _counts(shown.chart) == {
        ("06:00", "HIGH"): 1, ("06:00", "CRITICAL"): 1, ("07:30", "HIGH"): 1, ("08:00", "LOW"): 1
    }  # fmt: skip


def test_exceptions_over_time_stacks_severities_most_severe_first() -> None:
    times = pd.to_datetime(
        ["2026-11-24T10:05Z", "2026-11-24T10:50Z", "2026-11-24T10:59Z", "2026-11-24T22:00Z", None],
        utc=True,
    )
    exceptions = pd.DataFrame(
        {"occurred": times, "severity": ["HIGH", "CRITICAL", "HIGH", "MEDIUM", "HIGH"]}
    )
    shown = charts.exceptions_over_time(exceptions)
    assert shown is not None and shown.bucket == "hour"
    assert _counts(shown.chart) == {
        ("10:00", "HIGH"): 2, ("10:00", "CRITICAL"): 1, ("22:00", "MEDIUM"): 1
    }  # fmt: skip
    colour = shown.chart.to_dict()["encoding"]["color"]["scale"]
    assert colour["domain"] == ["CRITICAL", "HIGH", "MEDIUM"]
    assert colour["range"] == [charts.SEVERITY_COLOURS[s] for s in colour["domain"]]


def test_the_autumn_gaming_day_of_25_hours_has_25_hourly_bars() -> None:
    """Gaming day 2026-10-31 in New York runs from 06:00 EDT to 06:00 EST, 25 hours: 05:30Z
    and 06:30Z are both 1:30 a.m. on the casino's clock. Each is counted in its own hour,
    the clock's two 1 a.m. hours named apart (EDT, then EST), instead of the two merged or
    the chart failing on the repeated hour."""
    times = pd.to_datetime(
        ["2026-10-31T10:00Z", "2026-11-01T05:30Z", "2026-11-01T06:30Z", "2026-11-01T10:59Z"],
        utc=True,
    )
    exceptions = pd.DataFrame({"occurred": times, "severity": ["LOW", "HIGH", "HIGH", "MEDIUM"]})
    shown = charts.exceptions_over_time(exceptions, NEW_YORK)
    assert shown is not None and shown.bucket == "hour"
    domain = _x_domain(shown.chart)
    assert len(domain) == 25 and domain[0] == "06:00" and domain[-1] == "05:00"
    assert domain[domain.index("01:00 EDT") + 1] == "01:00 EST"
    assert _counts(shown.chart) == {
        ("06:00", "LOW"): 1, ("01:00 EDT", "HIGH"): 1, ("01:00 EST", "HIGH"): 1,
        ("05:00", "MEDIUM"): 1,
    }  # fmt: skip


def test_the_spring_gaming_day_of_23_hours_has_23_hourly_bars() -> None:
    """Gaming day 2026-03-07 runs from 06:00 EST to 06:00 EDT: the clock skips 2 a.m."""
    times = pd.to_datetime(["2026-03-07T11:00Z", "2026-03-08T09:59Z"], utc=True)
    exceptions = pd.DataFrame({"occurred": times, "severity": ["LOW", "LOW"]})
    shown = charts.exceptions_over_time(exceptions, NEW_YORK)
    assert shown is not None
    domain = _x_domain(shown.chart)
    assert len(domain) == 23 and "02:00" not in domain and domain[-1] == "05:00"


def test_a_live_span_across_the_repeated_hour_keeps_both_halves() -> None:
    times = pd.to_datetime(["2026-11-01T05:40Z", "2026-11-01T06:40Z"], utc=True)
    exceptions = pd.DataFrame({"occurred": times, "severity": ["HIGH", "HIGH"]})
    shown = charts.exceptions_over_time(exceptions, NEW_YORK)
    assert shown is not None and shown.bucket == "5 minutes"
    assert _counts(shown.chart) == {("01:40 EDT", "HIGH"): 1, ("01:40 EST", "HIGH"): 1}


def test_exceptions_over_time_without_times_is_no_chart() -> None:
    empty = pd.DataFrame({"occurred": pd.to_datetime([None], utc=True), "severity": ["HIGH"]})
    assert charts.exceptions_over_time(empty) is None
    assert charts.exceptions_over_time(pd.DataFrame()) is None


def test_hold_band_labels_are_whole_and_the_shoe_has_its_own_tooltip() -> None:
    """A shoe's label names its table and its whole shoe id, never cut short (Vega-Lite cuts
    axis labels at 180 px unless told not to), and the tooltip gives the shoe apart."""
    shoe = "T01-20261124-S07-A-LONG-SHOE-IDENTIFIER"
    hold = _hold([{**_row("T01", 1.0, 0.0, 2.0, 0.1), "shoe_id": shoe}])
    chart = charts.hold_band(hold, "shoe")
    assert chart is not None
    band = _layers(chart.to_dict())[0]
    assert band["encoding"]["y"]["axis"]["labelLimit"] == 0
    titles = {t["title"]: t["field"] for t in band["encoding"]["tooltip"]}
    assert titles["Shoe"] == "shoe_id" and titles["Table"] == "table_id"
    assert _data(chart)[0]["where"] == f"T01 {shoe}"


def test_hold_band_per_pit() -> None:
    hold = _hold([{**_row("", 1.0, 0.0, 2.0, 0.1), "pit": "BACCARAT-1"}]).drop(columns=["table_id"])
    chart = charts.hold_band(hold, "pit")
    assert chart is not None
    assert [row["where"] for row in _data(chart)] == ["BACCARAT-1"]
    assert _layers(chart.to_dict())[0]["encoding"]["y"]["title"] == "Pit"


def test_a_dealer_is_drawn_against_the_peers() -> None:
    rates = pd.DataFrame(
        {
            "dealer_id": ["DLR-1", "DLR-2", "DLR-3", "DLR-4"],
            "rounds": [1000, 500, 2000, 0],
            "exceptions": [4, 10, 2, 0],
            "per_1000_rounds": [4.0, 20.0, 1.0, None],
        }
    )
    chart = charts.dealer_peers(rates, "DLR-2")
    assert chart is not None
    bars, rule = _layers(chart.to_dict())
    assert bars["encoding"]["x"]["sort"] == ["DLR-2", "DLR-1", "DLR-3"]  # no rounds: no rate
    spec = chart.to_dict()
    data = {row["dealer_id"]: row["who"] for row in spec["datasets"][bars["data"]["name"]]}
    assert data == {"DLR-2": "this dealer", "DLR-1": "peers", "DLR-3": "peers"}
    assert spec["datasets"][rule["data"]["name"]] == [{"median": 4.0}]
    assert charts.dealer_peers(rates[rates["rounds"] == 0], "DLR-4") is None


def test_a_patrons_play_runs_in_the_order_played_across_the_repeated_hour() -> None:
    """The running result adds each round's net in order; two rounds 30 minutes apart that
    the clock shows at the same 1:10 a.m. on the autumn night are told apart by EDT and EST,
    and drawn one after the other (the x axis counts rounds, not clock time)."""
    micros = [
        int(pd.Timestamp(t).value // 1000)
        for t in ("2026-11-01T05:10Z", "2026-11-01T05:40Z", "2026-11-01T06:10Z")
    ]
    rounds = pd.DataFrame(
        {
            "gaming_date": ["2026-10-31"] * 3,
            "table_id": ["T01"] * 3,
            "round_id": ["R1", "R2", "R3"],
            "started_at": micros,
            "stake_cents": [10_000, 5_000, 2_500],
            "net_cents": [10_000, -5_000, 2_375],
        }
    )
    chart = charts.patron_play(rounds, NEW_YORK)
    assert chart is not None
    rows = _data(chart)
    assert [r["played"] for r in rows] == [1, 2, 3]
    assert [r["running"] for r in rows] == [100.0, 50.0, 73.75]
    assert [r["when"][11:] for r in rows] == ["01:10:00 EDT", "01:40:00 EDT", "01:10:00 EST"]
    assert charts.patron_play(rounds.iloc[0:0], NEW_YORK) is None
