"""The pages' charts through streamlit.testing's AppTest, on an ordinary gaming day and on the
autumn day of 25 hours (2026-10-31 in America/New_York, whose clock shows 1 a.m. twice): the
queue's exceptions over time, the close's hold by pit and by table against the exact
expectation, a patron's stakes and running result, a dealer against the peers. Each is
drawn from the figures the page shows beside it; none merges the repeated hour or fails on
it (the gaming day, N.J.A.C. 19:47-1.2 "gaming day", runs from 06:00 to 06:00 on the
casino's clock)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from dashboard_data import APP, AUTUMN_DAY, AUTUMN_LEDGER_GROUP, DAY, ledger_copy
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
from streamlit.testing.v1 import AppTest

from dashboards import ui
from pipeline.ledger import history
from pipeline.ledger.store import Ledger

TIMEOUT = 120
CHART_KEY = "per_hour_open"
"""The queue's chart expander (drawn once opened): its state in the session."""
DAYS = {"ordinary day": (DAY, 3, 3.0), "autumn day of 25 hours": (AUTUMN_DAY, 2, 25.0)}


@pytest.fixture(
    params=[
        pytest.param(
            name,
            marks=[pytest.mark.xdist_group(AUTUMN_LEDGER_GROUP)]
            if DAYS[name][0] == AUTUMN_DAY
            else [],
        )
        for name in DAYS
    ]
)
def ledger(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, date]]:
    day, tables, hours = DAYS[request.param]
    db = ledger_copy(tmp_path, tables=tables, hours=hours, day=day)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    monkeypatch.delenv("BACCARAT_ACKS", raising=False)
    monkeypatch.delenv("BACCARAT_RULES", raising=False)
    yield db, day


def _page(page: str | None, **state: Any) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    if page is not None:
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _chart(at: AppTest, needle: str) -> tuple[dict[str, Any], list[pd.DataFrame]]:
    """The page's chart whose specification holds ``needle`` (AppTest gives a chart no key):
    its Vega-Lite specification and its datasets."""
    for chart in at.get("vega_lite_chart"):
        if needle in chart.proto.spec:
            frames = [convert_arrow_bytes_to_pandas_df(d.data.data) for d in chart.proto.datasets]
            return json.loads(chart.proto.spec), frames
    raise AssertionError(f"no chart with {needle!r} on the page")


def test_the_queue_counts_every_exception_shown_once(ledger: tuple[Path, date]) -> None:
    """Every exception the filters keep (on every page of the grid) falls in exactly one
    bucket; on the autumn day the clock's two 1 a.m. hours are two buckets, EDT then EST,
    never one."""
    _db, day = ledger
    at = _page(None, **{CHART_KEY: True})
    kept = int(at.metric[0].value.split(" of ")[0].replace(",", ""))
    spec, (counts,) = _chart(at, '"severity"')
    domain = spec["encoding"]["x"]["scale"]["domain"]
    assert len(domain) == len(set(domain)), "a label stands for two times"
    assert int(counts["exceptions"].sum()) == kept
    assert set(counts["label"]) <= set(domain)
    if day == AUTUMN_DAY:  # played from its first hour to its last: 25 hourly bars
        assert "per hour" in spec["encoding"]["x"]["title"] and len(domain) == 25
        assert domain.index("01:00 EST") == domain.index("01:00 EDT") + 1
    else:  # three hours played: quarter hours
        assert "per 15 minutes" in spec["encoding"]["x"]["title"]


def test_the_close_draws_hold_by_pit_and_table_against_the_exact_expectation(
    ledger: tuple[Path, date],
) -> None:
    db, day = ledger
    at = _page("close", close_tab="Hold against expectation")
    with Ledger(db, read_only=True) as open_ledger:
        tables = set(open_ledger.tables_of_day(day))
    for title, names in (("Table", tables), ("Pit", None)):
        spec, (rows,) = _chart(at, f'"title": "{title}"')
        assert spec["layer"][0]["encoding"]["y"]["axis"]["labelLimit"] == 0
        assert (rows["low_pct"] <= rows["expected_hold_pct"]).all()
        assert (rows["expected_hold_pct"] <= rows["high_pct"]).all()
        if names is not None:
            assert set(rows["where"]) == names


def test_a_patrons_running_result_ends_at_the_net_result(ledger: tuple[Path, date]) -> None:
    db, day = ledger
    with Ledger(db, read_only=True) as open_ledger:
        patron = history.patrons(open_ledger)[0]
        played = history.patron_rounds(open_ledger, patron)
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["patron"] = patron
    at.run()
    at.switch_page("views/investigator.py").run()
    assert not at.exception, [e.value for e in at.exception]
    _spec, (rounds,) = _chart(at, '"running"')
    assert len(rounds) == len(played)
    metrics = {m.label: m.value for m in at.metric}
    assert ui.fmt_money(round(rounds["running"].iloc[-1] * 100)) == metrics["Net result"]
    zones = {when.rsplit(" ", 1)[-1] for when in rounds["when"] if when}
    assert zones <= ({"EDT", "EST"} if day == AUTUMN_DAY else {"EST"})


def test_a_dealer_is_drawn_against_every_other_dealer(ledger: tuple[Path, date]) -> None:
    db, _day = ledger
    at = _page("investigator", inv_tab="Dealer report")
    dealer = str(at.selectbox(key="inv_dealer").value)
    with Ledger(db, read_only=True) as open_ledger:
        dealers = set(history.dealers(open_ledger))
    _spec, frames = _chart(at, '"who"')
    bars = next(f for f in frames if "who" in f)
    assert set(bars["dealer_id"]) == dealers
    assert list(bars.loc[bars["who"] == "this dealer", "dealer_id"]) == [dealer]
    metrics = {m.label: m.value for m in at.metric}
    mine = bars.loc[bars["dealer_id"] == dealer, "per_1000_rounds"].iloc[0]
    assert f"{mine:.1f}" == metrics["Per 1,000 rounds"]
