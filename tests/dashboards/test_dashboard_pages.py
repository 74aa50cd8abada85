"""Every dashboard page through streamlit.testing's AppTest: it renders from the emulated
ledger, its filters change the rows, and acknowledgements are stored and audited."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
from dashboard_data import (
    APP,
    DAY,
    SETTLED_WRONGLY,
    grid_rows,
    ledger_copy,
    request_from,
    trust_localhost,
)
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
from streamlit.testing.v1 import AppTest

from dashboards import charts, ui
from dashboards import queries as q
from pipeline.bundle.acks import AckJournal
from pipeline.bundle.export import verify_bundle
from pipeline.ledger.store import Ledger
from pipeline.safe_text import markdown_text
from tests.tampering import rows_in_the_file

TIMEOUT = 120


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = ledger_copy(tmp_path)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    monkeypatch.delenv("BACCARAT_ACKS", raising=False)
    monkeypatch.delenv("BACCARAT_RULES", raising=False)
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    trust_localhost()  # the tests sign in through a proxy on this machine
    yield db


def _app(page: str | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    _ok(at)
    if page:
        at.switch_page(f"views/{page}.py").run()
        _ok(at)
    return at


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _frame(at: AppTest, index: int = 0) -> pd.DataFrame:
    return grid_rows(at.dataframe[index])


def _texts(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with Ledger(db, read_only=True) as ledger:
        return ledger.con.execute(sql).fetchall()


# ---------------------------------------------------------------------- exception queue


def test_exception_queue_filters_change_the_rows(ledger: Path) -> None:
    at = _app()
    assert at.title[0].value == "Exception queue"
    assert not at.get("vega_lite_chart"), "the chart is drawn only once its expander opens"
    at.session_state["per_hour_open"] = True
    at.run()
    (per_hour,) = at.get("vega_lite_chart")  # exceptions per hour by severity
    assert "severity" in per_hour.proto.spec and "exceptions" in per_hour.proto.spec
    # times on the casino's clock (the catalog's gaming day), never bare UTC
    assert str(_frame(at)["occurred"].dt.tz) == "America/New_York"
    assert any("America/New_York" in c.value for c in at.sidebar.caption)
    # an empty cell reads as an em dash, not as Streamlit's default "None"
    assert at.dataframe[0].proto.placeholder == ui.EMPTY_CELL
    everything = _frame(at)
    total = _query(ledger, "SELECT count(*) FROM exceptions")[0][0]
    assert len(everything) == total  # nothing acknowledged yet: all OPEN
    tables = sorted(set(everything["table_id"]))
    assert len(tables) > 1

    at.multiselect(key="f_table").set_value([tables[0]]).run()
    rows = _frame(at)
    assert 0 < len(rows) < total and set(rows["table_id"]) == {tables[0]}

    at.multiselect(key="f_table").set_value([]).run()
    at.multiselect(key="f_severity").set_value(["CRITICAL"]).run()
    rows = _frame(at)
    critical = _query(ledger, "SELECT count(*) FROM exceptions WHERE severity = 'CRITICAL'")
    assert len(rows) == critical[0][0] and set(rows["severity"]) == {"CRITICAL"}

    at.multiselect(key="f_severity").set_value([]).run()
    code = str(everything["code"].iloc[-1])
    at.multiselect(key="f_code").set_value([code]).run()
    assert set(_frame(at)["code"]) == {code}

    at.multiselect(key="f_code").set_value([]).run()
    pit = str(everything["pit"].iloc[0])
    at.multiselect(key="f_pit").set_value([pit]).run()
    assert set(_frame(at)["pit"]) == {pit}

    at.multiselect(key="f_pit").set_value([]).run()
    dealer = str(everything["dealer_id"].iloc[0])
    at.multiselect(key="f_dealer").set_value([dealer]).run()
    assert set(_frame(at)["dealer_id"]) == {dealer}

    at.multiselect(key="f_dealer").set_value([]).run()
    low, high = at.slider(key="f_time").value
    middle = low + (high - low) / 2
    at.slider(key="f_time").set_value((middle, high)).run()
    later = _frame(at)
    assert 0 < len(later) < total
    assert (later["occurred"].dt.tz_convert(None) >= pd.Timestamp(middle)).all()


def test_exception_shows_rule_and_evidence(ledger: Path) -> None:
    at = _app()
    chosen = at.selectbox(key="inspect").value
    code, section, message, event_ids = _query(
        ledger,
        f"SELECT code, section, message, source_event_ids FROM exceptions "
        f"WHERE exception_id = '{chosen}'",
    )[0]
    assert markdown_text(message) in _texts(at)  # the device text, escaped for Markdown
    citation = at.info[0].value
    assert str(section) in citation and str(code) in citation
    evidence = _frame(at, 1)
    assert set(evidence["event_id"]) == set(event_ids)
    assert {"payload_type", "device_id", "seq", "occurred", "what"} <= set(evidence.columns)


def test_acknowledge_and_escalate_are_stored_and_audited(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _app()
    journal = AckJournal.for_ledger(ledger)
    target = str(at.selectbox(key="inspect").value)
    # nobody signed in: read-only, no form to record with
    assert any("Sign in to acknowledge or escalate" in i.value for i in at.info)
    assert not [b for b in at.button if b.key == "ack-submit"]

    request_from(monkeypatch, "127.0.0.1", X_Forwarded_User="demo-analyst")  # proxy on localhost
    at.run()
    at.selectbox(key="inspect").set_value(target)
    at.radio(key="ack-action").set_value("ESCALATE")
    at.text_area(key="ack-note").input("payout differs from the video; to the shift manager")
    at.button(key="ack-submit").click().run()
    _ok(at)
    assert any("ESCALATE" in s.value for s in at.success)
    rows = _frame(at)
    assert rows.set_index("exception_id").loc[target, "status"] == "ESCALATED"

    at.selectbox(key="inspect").set_value(target)
    at.radio(key="ack-action").set_value("ACKNOWLEDGE")
    at.text_area(key="ack-note").input("shift manager confirmed, patron repaid $100")
    at.button(key="ack-submit").click().run()
    _ok(at)
    assert target not in set(_frame(at)["exception_id"])  # the default queue hides it
    at.multiselect(key="f_status").set_value(["ACKNOWLEDGED"]).run()
    assert list(_frame(at)["exception_id"]) == [target]

    records = journal.records()
    source = "proxy header X-Forwarded-User from localhost"
    assert [(r.exception_id, r.action, r.actor, r.actor_source) for r in records] == [
        (target, "ESCALATE", "demo-analyst", source),
        (target, "ACKNOWLEDGE", "demo-analyst", source),
    ]
    assert records[1].note == "shift manager confirmed, patron repaid $100"
    assert records[0].acted_at <= records[1].acted_at
    assert journal.verify() == []
    lines = journal.path.read_text().splitlines()
    assert json.loads(lines[0])["action"] == "ESCALATE"  # the first action is kept
    history = _frame(at, 2)
    assert list(history["action"]) == ["ESCALATE", "ACKNOWLEDGE"]
    # the ledger itself was never written: the dashboards open it read-only
    assert _query(ledger, "SELECT count(*) FROM acknowledgements") == [(0,)]


def test_an_acknowledgement_needs_a_note(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    request_from(monkeypatch, None, X_Forwarded_User="demo-analyst")  # a proxy on localhost
    at = _app()
    at.button(key="ack-submit").click().run()
    assert at.error and "note" in at.error[0].value
    assert AckJournal.for_ledger(ledger).records() == []


# ---------------------------------------------------------------------- the other pages


def test_table_board(ledger: Path) -> None:
    at = _app("table_board")
    assert at.title[0].value == "Table board"
    board = _frame(at)
    summary = _query(ledger, "SELECT table_id, rounds, pit FROM table_day_summary ORDER BY 1")
    assert sorted(board["table_id"]) == [t for t, _, _ in summary]
    assert dict(zip(board["table_id"], board["rounds"], strict=True)) == {
        t: r for t, r, _ in summary
    }
    assert board["shoe_progress"].between(0, 1).all()
    assert board["open_exceptions"].sum() == _query(ledger, "SELECT count(*) FROM exceptions")[0][0]
    (grid,) = [m.value for m in at.markdown if 'class="floor"' in m.value]
    assert grid.count('<div class="tile ') == len(board)  # the floor: a tile per table
    assert grid.count(' critical"') == int((board["open_critical"] > 0).sum())
    assert any("to the day's last event" in c.value for c in at.caption)  # a past day
    pit = str(summary[0][2])
    at.multiselect(key="board_pit").set_value([pit]).run()
    assert set(_frame(at)["pit"]) == {pit} and len(_frame(at)) < len(board)
    (grid,) = [m.value for m in at.markdown if 'class="floor"' in m.value]
    assert grid.count('<div class="tile ') == len(_frame(at)) and grid.count("<h4>Pit ") == 1


def test_round_reconstruction(ledger: Path) -> None:
    ((round_id,),) = _query(
        ledger,
        "SELECT round_id FROM exceptions e WHERE code LIKE '%-VIG' AND round_id IS NOT NULL "
        f"AND {SETTLED_WRONGLY} ORDER BY round_id LIMIT 1",
    )
    at = _app("round_reconstruction")
    assert at.title[0].value == "Round reconstruction"
    ((first,),) = _query(  # opened without a choice: the most severe exception's round
        ledger,
        "SELECT e.round_id FROM exceptions e JOIN rounds r USING (table_id, round_id) "
        "ORDER BY e.severity_rank DESC, r.started_at, e.round_id LIMIT 1",
    )
    assert at.selectbox(key="round_pick").value == first
    assert at.subheader[0].value == markdown_text(first)
    at.text_input(key="round_id_input").input(str(round_id)).run()
    _ok(at)
    cards = at.table[0].value
    stored = _query(
        ledger,
        f"SELECT hand FROM cards WHERE round_id = '{round_id}' ORDER BY position",
    )
    assert list(cards["hand"]) == [h for (h,) in stored]
    (hands,) = [m.value for m in at.markdown if 'class="hands"' in m.value]
    dealt = [h for (h,) in stored if h in ("PLAYER", "BANKER")]
    assert hands.count('<div class="card ') == len(dealt)
    text = _texts(at)
    assert "Table 1: Player" in text or "Natural: Player" in text
    settlements = at.table[1].value
    wagers = _query(ledger, f"SELECT count(*) FROM wagers WHERE round_id = '{round_id}'")
    assert len(settlements) == wagers[0][0]
    assert "NO" in set(settlements["agrees"])  # the exception's wager disagrees
    assert len(at.table[2].value) >= 1  # the round's exceptions

    at.text_input(key="round_id_input").input("").run()
    at.selectbox(key="round_table").set_value("T02").run()
    _ok(at)
    assert str(at.selectbox(key="round_pick").value).startswith("T02-")
    assert at.subheader[0].value.startswith(markdown_text("T02-"))


def test_roads(ledger: Path) -> None:
    at = _app("roads")
    assert at.title[0].value == "Roads"
    shoe = str(at.selectbox(key="roads_shoe").value)
    (counts,) = _query(
        ledger,
        f"SELECT count(*) FILTER (WHERE winner = 'BANKER'), count(*) FILTER (WHERE winner = "
        f"'PLAYER'), count(*) FILTER (WHERE winner = 'TIE') FROM rounds WHERE shoe_id = "
        f"'{shoe}' AND NOT simulated",
    )
    assert [int(m.value) for m in at.metric[:3]] == list(counts)
    (flagged,) = _query(
        ledger,
        f"SELECT count(DISTINCT r.round_id) FROM rounds r JOIN exceptions e USING (round_id) "
        f"WHERE r.shoe_id = '{shoe}' AND NOT r.simulated AND r.winner IS NOT NULL",
    )
    assert int(at.metric[4].value) == flagged[0] > 0
    html = [m.value for m in at.markdown if 'class="road' in m.value]
    assert len(html) == 5 and html[0].count('class="c') == sum(counts)
    assert html[0].count('class="c x"') + html[0].count('class="c nat x"') == flagged[0]
    assert ['derived ring"' in html[2], 'derived dot"' in html[3], 'derived slash"' in html[4]] == [
        True,
        True,
        True,
    ]
    at.selectbox(key="roads_table").set_value("T02").run()
    _ok(at)
    assert str(at.selectbox(key="roads_shoe").value).startswith("T02-")


def test_statistical_alarms(ledger: Path) -> None:
    at = _app("statistics")
    assert at.title[0].value == "Statistical alarms"
    assert any("accuse no one" in w.value for w in at.warning)
    per_shoe = _frame(at)
    assert {"p_bpt", "p_naturals", "expected_tie"} <= set(per_shoe.columns)
    assert per_shoe["p_bpt"].between(0, 1).all()
    at.radio(key="stats_per").set_value("table").run()
    per_table = _frame(at)
    assert len(per_table) == per_table["table_id"].nunique() < len(per_shoe)
    assert per_table["rounds"].sum() == per_shoe["rounds"].sum()
    hold = _frame(at, 1)
    assert {"hold_pct", "expected_hold_pct", "low_pct", "high_pct"} <= set(hold.columns)
    assert (hold["low_pct"] < hold["expected_hold_pct"]).all()
    alarms = list(hold["alarm"])
    assert alarms == sorted(alarms, reverse=True)  # the alarms first
    (band,) = at.get("vega_lite_chart")
    assert band.proto.spec and "expected_hold_pct" in band.proto.spec
    at.select_slider(key="alpha").set_value(0.05)
    at.checkbox(key="stats_only").check().run()
    alarmed = _frame(at)
    assert len(alarmed) <= len(per_table)
    assert alarmed.empty or alarmed["alarm"].all()


def test_the_hold_chart_draws_the_furthest_holds_and_the_grid_lists_them_all(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28 (a page's first load under 2 s): a day's shoes are too many to draw, so the
    chart draws the first HOLDS_DRAWN in the grid's order (outside the 95 % interval first,
    then the furthest from the expectation) and says so; the grid lists every hold."""
    monkeypatch.setattr(charts, "HOLDS_DRAWN", 3)
    at = _app("statistics")
    hold = _frame(at, 1).dropna(subset=list(charts.HOLD_COLUMNS))
    assert len(hold) > 3
    (band,) = at.get("vega_lite_chart")
    spec = json.loads(band.proto.spec)
    (drawn,) = [convert_arrow_bytes_to_pandas_df(d.data.data) for d in band.proto.datasets]
    assert list(drawn["shoe_id"]) == list(hold["shoe_id"][:3])
    assert spec["layer"][0]["encoding"]["y"]["sort"] == list(drawn["where"])
    assert any(
        f"draws the 3 of {len(hold)} holds furthest from their expectation" in c.value
        for c in at.caption
    )
    at.radio(key="stats_per").set_value("table").run()
    assert len(_frame(at, 1)) == 3, "the day's three tables: each drawn, nothing to say"
    assert not any("holds furthest" in c.value for c in at.caption)


def test_patron_profile_and_dealer_report(ledger: Path) -> None:
    ((patron, handle, net),) = _query(
        ledger,
        "SELECT s.patron_id, (SELECT sum(amount_cents) FROM wagers w WHERE w.patron_id = "
        "s.patron_id), sum(CASE recorded_result WHEN 'WIN' THEN recorded_paid_cents "
        "WHEN 'LOSE' THEN -stake_cents ELSE 0 END) FROM settlements s "
        "WHERE s.patron_id IS NOT NULL GROUP BY ALL ORDER BY 2 DESC LIMIT 1",
    )
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["patron"] = patron  # a shared link carries the choice
    at.run()
    at.switch_page("views/investigator.py").run()
    _ok(at)
    assert at.title[0].value == "Patrons and dealers"
    assert at.selectbox(key="inv_patron").value == patron
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Handle"] == ui.fmt_money(handle)
    assert metrics["Net result"] == ui.fmt_money(net)
    by_day = _frame(at)
    assert list(by_day["rounds"]) and by_day["rounds"].sum() > 0

    assert not at.get("vega_lite_chart")[1:], "only the open tab runs"
    another = at.selectbox(key="inv_patron").options[1]
    at.selectbox(key="inv_patron").set_value(another).run()
    at.session_state["inv_tab"] = "Dealer report"
    at.run()
    dealer = str(at.selectbox(key="inv_dealer").value)
    ((rounds, found),) = _query(
        ledger,
        "WITH dealt AS (SELECT r.table_id, r.round_id, coalesce(json_extract_string("
        "(SELECT max(fields_json) FROM deliveries d WHERE d.payload_type = 'RoundStarted' AND "
        "d.table_id = r.table_id AND json_extract_string(d.fields_json, '$.round_id') = "
        "r.round_id), '$.dealer_id'), s.dealer_id) AS dealer_id FROM rounds r JOIN "
        "table_day_summary s USING (table_id, gaming_date) WHERE NOT r.simulated) "
        "SELECT count(DISTINCT table_id || round_id), count(e.exception_id) FROM dealt "
        f"LEFT JOIN exceptions e USING (table_id, round_id) WHERE dealer_id = '{dealer}'",
    )
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rounds dealt"] == f"{rounds:,}" and int(metrics["Exceptions"]) == found
    assert metrics["Per 1,000 rounds"] == f"{1000 * found / rounds:.1f}"
    codes = _frame(at, 1)
    assert codes["exceptions"].sum() == found

    at.session_state["inv_tab"] = "Unresolved across days"
    at.run()
    unresolved = _frame(at, 1)
    ((open_count,),) = _query(ledger, "SELECT count(*) FROM exceptions")  # none acknowledged
    assert len(unresolved) == open_count
    assert unresolved["severity"].iloc[0] == "CRITICAL"
    at.session_state["inv_tab"] = "Patron profile"
    at.run()
    # the patron chosen stays while other tabs ran (not the link's again)
    assert at.selectbox(key="inv_patron").value == another

    fresh = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    fresh.query_params["patron"] = "<script>not-a-patron"  # a link to no such patron
    fresh.run()
    fresh.switch_page("views/investigator.py").run()
    _ok(fresh)
    assert fresh.selectbox(key="inv_patron").value != "<script>not-a-patron"
    assert "No patron \\<script\\>not\\-a\\-patron in the ledger" in fresh.warning[0].value


def test_gaming_day_close(ledger: Path) -> None:
    """The close of the day (N.J.A.C. 19:47-3.3(c)3vii: win per table and pit): its status,
    per pit and per table first; the exceptions that block it and the downloads each in a
    tab of their own, which runs only when open; a pit or a table chosen narrows the
    figures, and the choice and the open tab are in the URL."""
    at = _app("close")
    assert at.title[0].value == "Gaming-day close"
    assert any(i.value.startswith("Closed ") for i in at.info)
    at.checkbox(key="verify_seal").check().run()
    _ok(at)
    assert any("verify unchanged" in s.value for s in at.success)
    tables = _frame(at, 1)
    assert len(tables) == _query(ledger, "SELECT count(*) FROM table_day_summary")[0][0]
    assert not at.get("download_button"), "the downloads tab is not open"
    at.session_state["close_tab"] = "Exceptions that block the close"
    at.run()
    blocking = _frame(at)
    assert (blocking["code"] != "").all() and len(blocking) > 0
    assert at.query_params["tab"] == "blocking"
    at.session_state["close_tab"] = "Downloads"
    at.run()
    assert len(at.get("download_button")) == 4
    at.session_state["close_tab"] = "Per pit and table"
    pit = str(tables["pit"].iloc[0])
    at.multiselect(key="close_pit").set_value([pit]).run()
    assert set(_frame(at, 1)["pit"]) == {pit} and len(_frame(at, 1)) < len(tables)
    assert set(_frame(at, 0)["pit"]) == {pit}
    assert (at.query_params["pit"], at.query_params["tab"]) == (pit, "figures")
    table = str(_frame(at, 1)["table_id"].iloc[0])
    at.multiselect(key="close_table").set_value([table]).run()
    assert list(_frame(at, 1)["table_id"]) == [table]
    assert at.query_params["table"] == table

    with Ledger(ledger) as writer:  # someone edits a sealed settlement after the close
        rows_in_the_file(writer).con.execute(
            "UPDATE settlements SET recorded_paid_cents = recorded_paid_cents + 100 "
            "WHERE rowid = (SELECT min(rowid) FROM settlements WHERE recorded_result = 'WIN')"
        )
    at.run()
    _ok(at)
    assert at.error and "no longer match what the close sealed" in at.error[0].value


def test_a_doubled_handle_is_never_shown_as_verified(ledger: Path) -> None:
    """Issue 11: the summary's handle doubled after the close showed under a green banner."""
    with Ledger(ledger) as writer:
        rows_in_the_file(writer).con.execute(
            "UPDATE table_day_summary SET handle_cents = 2 * handle_cents"
        )
    at = _app("close")
    at.checkbox(key="verify_seal").check().run()
    _ok(at)
    assert not at.success
    assert at.error and r"table\_day\_summary" in at.error[0].value  # markdown-escaped


def test_form_register(ledger: Path) -> None:
    at = _app("forms")
    assert at.title[0].value == "Form register"
    series = _frame(at)
    assert len(series) == _query(ledger, "SELECT count(*) FROM form_series")[0][0]
    at.multiselect(key="forms_table").set_value(["T01"]).run()
    assert set(_frame(at)["table_id"]) == {"T01"} and len(_frame(at)) < len(series)


def test_search_by_patron_table_and_serial(ledger: Path) -> None:
    at = _app("search")
    assert at.title[0].value == "Search"
    ((patron, name),) = _query(
        ledger,
        "SELECT patron_id, patron_name FROM comp_vig_forms WHERE patron_id IS NOT NULL LIMIT 1",
    )
    at.text_input(key="s_patron").input(str(patron)).run()
    _ok(at)
    rounds = _frame(at, 1)
    assert len(rounds) > 0 and (rounds["patrons"] == patron).all()
    assert str(patron) in set(_frame(at, 2)["patron_id"])
    at.text_input(key="s_patron").input(str(name)).run()  # by name, as seated
    assert str(patron) in set(_frame(at, 2)["patron_id"])
    assert _frame(at, 1)["patrons"].str.contains(str(patron)).any()
    played_at = str(_frame(at, 1)["table_id"].iloc[0])
    at.selectbox(key="s_table").set_value(played_at).run()
    summary, rounds = _frame(at), _frame(at, 1)  # every match by day and table, then a page
    assert set(summary.columns) >= {"gaming_date", "table_id", "rounds", "handle"}
    assert set(summary["table_id"]) == set(rounds["table_id"]) == {played_at}
    assert summary["rounds"].sum() == len(rounds)

    at.text_input(key="s_patron").input("")
    at.selectbox(key="s_table").set_value("")
    ((serial,),) = _query(ledger, "SELECT min(serial) FROM comp_vig_forms")
    at.text_input(key="s_serial").input(str(serial)).run()
    assert list(_frame(at, 1)["serial"]) == [str(serial)]  # no summary: no round matches
    assert _frame(at).empty  # a serial names a Form, not rounds


def test_search_pages_through_every_match(ledger: Path) -> None:
    ((total,),) = _query(ledger, "SELECT count(*) FROM rounds")
    assert total > q.SEARCH_PAGE  # the emulated day has enough rounds for two pages
    at = _app("search")
    at.checkbox(key="s_use_time").check().run()  # a time range that holds the whole day
    at.date_input(key="s_from_day").set_value(DAY - timedelta(days=1))
    at.date_input(key="s_to_day").set_value(DAY + timedelta(days=2)).run()
    _ok(at)
    assert at.subheader[0].value == f"Rounds ({total:,} match)"
    assert _frame(at)["rounds"].sum() == total
    first = _frame(at, 1)
    assert len(first) == q.SEARCH_PAGE
    at.number_input(key="s_page").set_value(2).run()
    second = _frame(at, 1)
    assert len(second) == min(q.SEARCH_PAGE, total - q.SEARCH_PAGE)
    assert not set(first["round_id"]) & set(second["round_id"])
    assert f"Rounds 501-{500 + len(second):,} of {total:,}." in [c.value for c in at.caption]


def test_trail_and_evidence_bundle(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    request_from(monkeypatch, None, X_Forwarded_User="demo-investigator")
    ((round_id,),) = _query(
        ledger,
        "SELECT round_id FROM exceptions WHERE round_id IS NOT NULL ORDER BY round_id LIMIT 1",
    )
    at = _app("trail")
    assert at.title[0].value == "Trail and evidence bundle"
    at.text_input(key="trail_value").input(str(round_id)).run()
    _ok(at)
    events = _frame(at)
    stored = _query(
        ledger,
        f"SELECT count(*) FROM deliveries WHERE json_extract_string(fields_json, '$.round_id') "
        f"= '{round_id}'",
    )
    assert len(events) >= stored[0][0] > 0
    exceptions_heading = at.subheader[2].value
    assert exceptions_heading.startswith("3. Exceptions (") and "(0)" not in exceptions_heading
    at.button(key="t_build").click().run()
    _ok(at)
    name, data, digest = at.session_state["bundle"]
    assert name == f"evidence-round-{round_id}.zip"
    bundle = ledger.parent / name
    bundle.write_bytes(data)
    assert verify_bundle(bundle, expected_sha256=digest) == []
    assert len(at.get("download_button")) == 1

    at.radio(key="trail_kind").set_value("Form serial")
    ((serial,),) = _query(ledger, "SELECT min(serial) FROM comp_vig_forms")
    at.text_input(key="trail_value").input(str(serial)).run()
    _ok(at)
    assert f"Form {serial}" in " ".join(_frame(at)["what"])


def test_gaming_day_is_chosen_in_the_sidebar(ledger: Path) -> None:
    at = _app()
    assert at.selectbox(key="gaming_day").value == DAY
    assert any("read-only snapshot" in c.value for c in at.sidebar.caption)


def test_missing_ledger_is_explained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACCARAT_DB", str(tmp_path / "nowhere.duckdb"))
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert at.error and "no ledger here yet" in at.error[0].value


def test_a_database_that_is_not_a_ledger_is_explained_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BACCARAT_DB naming some other DuckDB database: every page says the file is not a
    ledger and what to do, instead of a traceback."""
    other = tmp_path / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE visits (n INTEGER)")
    monkeypatch.setenv("BACCARAT_DB", str(other))
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    [error] = [e.value for e in at.error]
    assert f"{other} is not a ledger" in error and "Point BACCARAT_DB at a ledger" in error
