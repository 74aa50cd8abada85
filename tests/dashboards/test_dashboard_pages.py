"""Every dashboard page through streamlit.testing's AppTest: it renders from the emulated
ledger, its filters change the rows, and acknowledgements are stored and audited."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from dashboard_data import APP, DAY, SETTLED_WRONGLY, ledger_copy, request_from
from streamlit.testing.v1 import AppTest

from pipeline.bundle.acks import AckJournal, journal_path_for
from pipeline.bundle.export import verify_bundle
from pipeline.ledger.store import Ledger
from pipeline.safe_text import markdown_text

TIMEOUT = 120


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = ledger_copy(tmp_path)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    monkeypatch.delenv("BACCARAT_ACKS", raising=False)
    monkeypatch.delenv("BACCARAT_RULES", raising=False)
    monkeypatch.delenv("BACCARAT_ROLES", raising=False)
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
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
    value = at.dataframe[index].value
    assert isinstance(value, pd.DataFrame)
    return value


def _texts(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with Ledger(db, read_only=True) as ledger:
        return ledger.con.execute(sql).fetchall()


# ---------------------------------------------------------------------- exception queue


def test_exception_queue_filters_change_the_rows(ledger: Path) -> None:
    at = _app()
    assert at.title[0].value == "Exception queue"
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
    assert {"payload_type", "device_id", "seq", "occurred", "fields"} <= set(evidence.columns)


def test_acknowledge_and_escalate_are_stored_and_audited(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _app()
    journal = AckJournal(journal_path_for(ledger))
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
    assert AckJournal(journal_path_for(ledger)).records() == []


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
    pit = str(summary[0][2])
    at.multiselect(key="board_pit").set_value([pit]).run()
    assert set(_frame(at)["pit"]) == {pit} and len(_frame(at)) < len(board)


def test_round_reconstruction(ledger: Path) -> None:
    ((round_id,),) = _query(
        ledger,
        "SELECT round_id FROM exceptions e WHERE code LIKE '%-VIG' AND round_id IS NOT NULL "
        f"AND {SETTLED_WRONGLY} ORDER BY round_id LIMIT 1",
    )
    at = _app("round_reconstruction")
    assert at.title[0].value == "Round reconstruction"
    at.text_input(key="round_id_input").input(str(round_id)).run()
    _ok(at)
    cards = at.table[0].value
    stored = _query(
        ledger,
        f"SELECT hand FROM cards WHERE round_id = '{round_id}' ORDER BY position",
    )
    assert list(cards["hand"]) == [h for (h,) in stored]
    text = _texts(at)
    assert "Table 1: Player" in text or "Natural: Player" in text
    settlements = at.table[1].value
    wagers = _query(ledger, f"SELECT count(*) FROM wagers WHERE round_id = '{round_id}'")
    assert len(settlements) == wagers[0][0]
    assert "NO" in set(settlements["agrees"])  # the exception's wager disagrees
    assert len(_frame(at)) >= 1  # the round's exceptions

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
    html = [m.value for m in at.markdown if 'class="road' in m.value]
    assert len(html) == 2 and html[0].count('class="c') == sum(counts)
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
    at.select_slider(key="alpha").set_value(0.05)
    at.checkbox(key="stats_only").check().run()
    alarmed = _frame(at)
    assert len(alarmed) <= len(per_table)
    assert alarmed.empty or alarmed["alarm"].all()


def test_gaming_day_close(ledger: Path) -> None:
    at = _app("close")
    assert at.title[0].value == "Gaming-day close"
    assert any(i.value.startswith("Closed ") for i in at.info)
    at.checkbox(key="verify_seal").check().run()
    _ok(at)
    assert any("verify unchanged" in s.value for s in at.success)
    tables = _frame(at, 1)
    assert len(tables) == _query(ledger, "SELECT count(*) FROM table_day_summary")[0][0]
    blocking = _frame(at, 3)
    assert (blocking["code"] != "").all() and len(blocking) > 0
    assert len(at.get("download_button")) == 3
    pit = str(tables["pit"].iloc[0])
    at.multiselect(key="close_pit").set_value([pit]).run()
    assert set(_frame(at, 1)["pit"]) == {pit} and len(_frame(at, 1)) < len(tables)
    assert set(_frame(at, 0)["pit"]) == {pit}

    with Ledger(ledger) as writer:  # someone edits a sealed settlement after the close
        writer.con.execute(
            "UPDATE settlements SET recorded_paid_cents = recorded_paid_cents + 100 "
            "WHERE rowid = (SELECT min(rowid) FROM settlements WHERE recorded_result = 'WIN')"
        )
    at.run()
    _ok(at)
    assert at.error and "no longer match what the close sealed" in at.error[0].value


def test_a_doubled_handle_is_never_shown_as_verified(ledger: Path) -> None:
    """Issue 11: the summary's handle doubled after the close showed under a green banner."""
    with Ledger(ledger) as writer:
        writer.con.execute("UPDATE table_day_summary SET handle_cents = 2 * handle_cents")
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
    rounds = _frame(at)
    assert len(rounds) > 0 and (rounds["patrons"] == patron).all()
    assert str(patron) in set(_frame(at, 1)["patron_id"])
    at.text_input(key="s_patron").input(str(name)).run()  # by name, as seated
    assert str(patron) in set(_frame(at, 1)["patron_id"])
    assert _frame(at)["patrons"].str.contains(str(patron)).any()
    at.selectbox(key="s_table").set_value("T02").run()
    assert set(_frame(at)["table_id"]) <= {"T02"}

    at.text_input(key="s_patron").input("")
    at.selectbox(key="s_table").set_value("")
    ((serial,),) = _query(ledger, "SELECT min(serial) FROM comp_vig_forms")
    at.text_input(key="s_serial").input(str(serial)).run()
    assert list(_frame(at, 1)["serial"]) == [serial]
    assert _frame(at).empty  # a serial names a Form, not rounds


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
    assert str(serial) in " ".join(_frame(at)["fields"])


def test_gaming_day_is_chosen_in_the_sidebar(ledger: Path) -> None:
    at = _app()
    assert at.selectbox(key="gaming_day").value == DAY
    assert any("read-only snapshot" in c.value for c in at.sidebar.caption)


def test_missing_ledger_is_explained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACCARAT_DB", str(tmp_path / "nowhere.duckdb"))
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert at.error and "no ledger here yet" in at.error[0].value
