"""The dashboards' chart builders: what each chart plots, in which order, and that hostile
device strings stay data."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd

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


def test_hostile_table_ids_stay_data_in_the_chart() -> None:
    hold = _hold([_row(text, 1.0, 0.0, 2.0, 0.1) for text in CORPUS[:5]])
    chart = charts.hold_band(hold, "table")
    assert chart is not None
    assert sorted(row["where"] for row in _data(chart)) == sorted(CORPUS[:5])
    spec = chart.to_dict()
    assert "usermeta" not in spec and all("html" not in str(layer) for layer in _layers(spec))


def test_exceptions_per_hour_stacks_severities_most_severe_first() -> None:
    times = pd.to_datetime(
        [
            "2026-11-24T10:05Z",
            "2026-11-24T10:50Z",
            "2026-11-24T10:59Z",
            "2026-11-24T12:00Z",
            None,
        ],
        utc=True,
    )
    exceptions = pd.DataFrame(
        {"occurred": times, "severity": ["HIGH", "CRITICAL", "HIGH", "MEDIUM", "HIGH"]}
    )
    chart = charts.exceptions_per_hour(exceptions)
    assert chart is not None
    counts = {(row["hour"][11:13], row["severity"]): row["exceptions"] for row in _data(chart)}
    assert counts == {("10", "HIGH"): 2, ("10", "CRITICAL"): 1, ("12", "MEDIUM"): 1}
    colour = chart.to_dict()["encoding"]["color"]["scale"]
    assert colour["domain"] == ["CRITICAL", "HIGH", "MEDIUM"]
    assert colour["range"] == [charts.SEVERITY_COLOURS[s] for s in colour["domain"]]


def test_exceptions_per_hour_on_the_autumn_day_of_25_hours() -> None:
    """Gaming day 2026-10-31 in New York has 25 hours: 05:30Z and 06:30Z are both 1:30 a.m.
    on the casino's clock (EDT, then EST). The chart is drawn, with every exception counted
    under the hour the clock showed, instead of failing on the repeated hour."""
    times = pd.to_datetime(
        ["2026-11-01T05:30Z", "2026-11-01T06:30Z", "2026-11-01T07:10Z"], utc=True
    )
    exceptions = pd.DataFrame({"occurred": times, "severity": ["HIGH", "HIGH", "MEDIUM"]})
    chart = charts.exceptions_per_hour(exceptions, ZoneInfo("America/New_York"))
    assert chart is not None
    counts = {(row["hour"][11:13], row["severity"]): row["exceptions"] for row in _data(chart)}
    assert counts == {("01", "HIGH"): 2, ("02", "MEDIUM"): 1}


def test_exceptions_per_hour_without_times_is_no_chart() -> None:
    empty = pd.DataFrame({"occurred": pd.to_datetime([None], utc=True), "severity": ["HIGH"]})
    assert charts.exceptions_per_hour(empty) is None
    assert charts.exceptions_per_hour(pd.DataFrame()) is None


def test_exceptions_per_hour_on_the_casino_clock() -> None:
    times = pd.to_datetime(["2026-11-24T10:05Z", "2026-11-24T11:55Z"], utc=True)
    exceptions = pd.DataFrame({"occurred": times, "severity": ["HIGH", "HIGH"]})
    chart = charts.exceptions_per_hour(exceptions, ZoneInfo("America/New_York"))
    assert chart is not None
    assert sorted(row["hour"][11:13] for row in _data(chart)) == ["05", "06"]  # EST, UTC-5
    assert "America/New_York" in chart.to_dict()["encoding"]["x"]["title"]
