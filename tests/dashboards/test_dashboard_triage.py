"""Triage on the exception queue through AppTest: links carry filters and the open exception,
a link that no longer fits says why instead of showing another exception, several selected
rows are acknowledged with one note, and each row shows the money at stake and its age."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from dashboard_data import APP, DAY, grid_rows, ledger_copy, request_from, trust_localhost
from hypothesis import given
from hypothesis import strategies as hst
from streamlit.testing.v1 import AppTest

from dashboards import triage
from pipeline.bundle.acks import AckJournal
from pipeline.ledger.notices import record_notices
from pipeline.ledger.store import Ledger
from tests.tampering import rows_in_the_file

TIMEOUT = 120


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = ledger_copy(tmp_path)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    for name in ("BACCARAT_ACKS", "BACCARAT_RULES", "FORWARDED_ALLOW_IPS"):
        monkeypatch.delenv(name, raising=False)
    trust_localhost()  # the tests sign in through a proxy on this machine
    yield db


def opened(**params: str | list[str]) -> AppTest:
    """The queue opened from a link with these query parameters."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def rows_of(at: AppTest) -> pd.DataFrame:
    return grid_rows(at.dataframe[0])


def exceptions(db: Path) -> pd.DataFrame:
    with Ledger(db, read_only=True) as ledger:
        return ledger.con.execute(
            "SELECT exception_id, code, table_id, expected_cents, actual_cents FROM exceptions "
            "ORDER BY exception_id"
        ).df()


def test_a_link_opens_the_view_it_names(ledger: Path) -> None:
    every = exceptions(ledger)
    code = str(every["code"].value_counts().index[0])
    target = str(every.loc[every["code"] == code, "exception_id"].iloc[-1])
    at = opened(code=code, exception=target, table="not-a-table")
    assert at.multiselect(key="f_code").value == [code]
    assert at.multiselect(key="f_table").value == [], "a value the page lacks is dropped"
    assert set(rows_of(at)["code"]) == {code}
    assert at.selectbox(key="inspect").value == target
    [warning] = [w.value for w in at.warning]
    assert "table not\\-a\\-table has no exception on gaming day" in warning, "and says so"


def test_filters_and_the_open_exception_go_into_the_url(ledger: Path) -> None:
    at = opened()
    at.multiselect(key="f_severity").set_value(["CRITICAL"]).run()
    assert at.query_params["severity"] == "CRITICAL"
    assert "status" not in at.query_params, "the default status filter stays out of links"
    second = str(rows_of(at)["exception_id"].iloc[1])
    at.selectbox(key="inspect").set_value(second).run()
    assert at.query_params["exception"] == second


def test_a_stale_link_says_what_happened(ledger: Path) -> None:
    every = exceptions(ledger)
    acknowledged = str(every["exception_id"].iloc[0])
    AckJournal.for_ledger(ledger).append(
        exception_id=acknowledged, action="ACKNOWLEDGE", note="explained on video",
        actor="demo-analyst", actor_source="test", table_id=str(every["table_id"].iloc[0]),
        gaming_date=DAY,
    )  # fmt: skip
    at = opened(exception=acknowledged)
    [warning] = [w.value for w in at.warning]
    assert "is ACKNOWLEDGED, which the Status filter hides" in warning
    assert at.query_params["exception"] == acknowledged, "the link is kept while it is said"

    at = opened(exception="no-such-exception")
    assert "is not in the ledger" in at.warning[0].value

    withdrawn = str(every["exception_id"].iloc[1])
    with Ledger(ledger) as writer, writer.transaction():
        table_id = str(every["table_id"].iloc[1])
        record_notices(writer, [(table_id, DAY)])
        rows_in_the_file(writer).con.execute(
            "DELETE FROM exceptions WHERE exception_id = ?", [withdrawn]
        )
        record_notices(writer, [(table_id, DAY)])
    at = opened(exception=withdrawn)
    assert "was withdrawn at" in at.warning[0].value
    assert "a later event explained it" in at.warning[0].value


def test_several_selected_rows_are_acknowledged_with_one_note(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    request_from(monkeypatch, "127.0.0.1", X_Forwarded_User="demo-analyst")
    at = opened()
    queue = rows_of(at)
    chosen = [str(i) for i in queue["exception_id"].iloc[:3]]
    at.session_state["queue"] = {"selection": {"rows": [0, 1, 2], "columns": []}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(s.value == "3 selected" for s in at.subheader)
    at.radio(key="bulk-action").set_value("ACKNOWLEDGE")
    at.text_area(key="bulk-note").input("duplicates from the T02 shoe reader restart")
    at.button(key="bulk-submit").click().run()
    records = AckJournal.for_ledger(ledger).records()
    assert sorted(r.exception_id for r in records) == sorted(chosen)
    assert {r.note for r in records} == {"duplicates from the T02 shoe reader restart"}
    assert any("3 exceptions" in s.value for s in at.success)
    assert list(at.session_state["queue"]["selection"]["rows"]) == [], "nothing stays ticked"
    assert not any(s.value.endswith(" selected") for s in at.subheader)


def test_ticks_stay_on_their_exceptions_when_the_rows_move(ledger: Path) -> None:
    """The grid reports its ticks by row position; the queue keeps them by exception id, so
    a filter that moves the rows keeps the same exception ticked (at its new position), and
    one the filter hides is no longer chosen."""
    at = opened()
    rows = rows_of(at)
    first, last = (str(rows["exception_id"].iloc[i]) for i in (0, -1))
    severity = str(rows["severity"].iloc[-1])
    assert severity != rows["severity"].iloc[0], "the queue lists the most severe first"
    at.session_state["queue"] = {"selection": {"rows": [0, len(rows) - 1], "columns": []}}
    at.run()
    assert any(s.value == "2 selected" for s in at.subheader)
    at.multiselect(key="f_severity").set_value([severity]).run()
    assert not at.exception, [e.value for e in at.exception]
    moved = list(rows_of(at)["exception_id"])
    assert first not in moved
    assert list(at.session_state["queue"]["selection"]["rows"]) == [moved.index(last)]
    assert not any(s.value.endswith(" selected") for s in at.subheader), "one chosen: opened"
    assert at.selectbox(key="inspect").value == last


def test_exceptions_picked_from_the_list_are_acknowledged_with_one_note(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keyboard's way to several rows: the grid's checkboxes are drawn on a canvas, the
    list beside it picks the same rows for the same bulk form; a pick acknowledged away is no
    longer offered, and the page still runs."""
    request_from(monkeypatch, "127.0.0.1", X_Forwarded_User="demo-analyst")
    at = opened()
    chosen = [str(i) for i in rows_of(at)["exception_id"].iloc[3:5]]
    at.multiselect(key="act_on").set_value(chosen).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(s.value == "2 selected" for s in at.subheader)
    at.radio(key="bulk-action").set_value("ACKNOWLEDGE")
    at.text_area(key="bulk-note").input("picked by keyboard")
    at.button(key="bulk-submit").click().run()
    assert not at.exception, [e.value for e in at.exception]
    records = AckJournal.for_ledger(ledger).records()
    assert sorted(r.exception_id for r in records) == sorted(chosen)
    assert {r.note for r in records} == {"picked by keyboard"}
    assert not set(chosen) & set(at.multiselect(key="act_on").value)


def test_words_typed_bring_any_exception_into_both_lists_by_keyboard(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: the lists offer the grid's rows, not a whole day's (their options were most
    of the queue's first screen in the browser); the words typed above them reach any other
    row, which stays offered once picked and opened after the words are cleared."""
    ids = [str(i) for i in rows_of(opened())["exception_id"]]
    assert len(ids) > 3
    monkeypatch.setattr(triage, "PICK_LIMIT", 2)
    monkeypatch.setattr(triage, "PAGE_ROWS", 2)
    at = opened()
    assert offered(at) == ids[:2]
    assert len(at.selectbox(key="inspect").options) == 2
    assert any(f"offer the grid's rows 1-2 of {len(ids)}" in c.value for c in at.caption)
    last = ids[-1]
    at.text_input(key=triage.FIND_KEY).input(last.upper()).run()
    assert offered(at) == [ids[0], last], "the open one stays offered"
    at.multiselect(key=triage.PICKS_KEY).set_value([last]).run()
    assert at.selectbox(key="inspect").value == last, "one pick opens it"
    at.text_input(key=triage.FIND_KEY).input("").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key=triage.PICKS_KEY).value == [last]
    assert offered(at) == [*ids[:2], last]
    assert len(at.selectbox(key="inspect").options) == 3
    assert at.selectbox(key="inspect").value == last
    assert at.query_params["exception"] == last
    at.text_input(key=triage.FIND_KEY).input("no such words").run()
    assert any("No exception shown matches" in c.value for c in at.caption)


def offered(at: AppTest) -> list[str]:
    """The exceptions the pick list offers, by the id each label ends with."""
    return [o.rsplit("(", 1)[1].rstrip(")") for o in at.multiselect(key=triage.PICKS_KEY).options]


def labelled(count: int) -> tuple[list[str], triage.Labels]:
    """``count`` exceptions in the queue's order, every third a payout's on table T02."""
    codes = ["PB-4.7-PAYOUT" if n % 3 == 0 else "CF-4.10c-VIG" for n in range(count)]
    rows = pd.DataFrame(
        {
            "exception_id": [f"e{n:04d}" for n in range(count)],
            "severity": ["CRITICAL"] * count,
            "code": codes,
            "table_id": ["T02" if n % 3 == 0 else "T01" for n in range(count)],
            "round_id": [f"R-{n}" for n in range(count)],
            "serial": pd.array([None] * count, dtype="Int64"),
            "shoe_id": ["S-1"] * count,
            "message": [f"Payout short by ${n}.00 on seat 2" for n in range(count)],
        }
    )
    return list(rows["exception_id"]), triage.labels(rows)


def test_the_lists_offer_the_grids_rows_and_those_chosen_wherever_they_are() -> None:
    ids, labels = labelled(triage.PICK_LIMIT * 3)
    page = ids[10:20]
    offer = triage.offered(ids, labels, "", [ids[-1], None, "gone-from-the-rows"], page)
    assert offer.ids == [*page, ids[-1]]
    assert offer.matching == len(ids)


def test_every_word_typed_must_match_whatever_the_case_the_whole_message_read() -> None:
    ids, labels = labelled(triage.PICK_LIMIT * 3)
    page = ids[:5]
    offer = triage.offered(ids, labels, "  t02   PAYOUT short BY $297.00 ", [], page)
    assert offer.ids == ["e0297"] and offer.matching == 1
    payouts = triage.offered(ids, labels, "pb-4.7", [ids[1]], page)
    assert payouts.matching == triage.PICK_LIMIT
    assert payouts.ids == sorted([ids[1], *ids[::3]])
    nothing = triage.offered(ids, labels, "T03", [], page)
    assert nothing.matching == 0 and nothing.ids == page, "the grid's rows"


@given(
    count=hst.integers(0, 250),
    find=hst.sampled_from(["", "t01", "T02 payout", "e01", "$1", "seat 2", "none such"]),
    kept=hst.lists(hst.integers(-5, 260), max_size=6),
    first=hst.integers(0, 250),
)
def test_what_the_lists_offer_is_in_the_queue_order_and_never_drops_a_choice(
    count: int, find: str, kept: list[int], first: int
) -> None:
    ids, labels = labelled(count)
    chosen = [f"e{k:04d}" for k in kept]
    page = ids[first : first + triage.PAGE_ROWS]
    offer = triage.offered(ids, labels, find, chosen, page)
    assert offer.ids == [i for i in ids if i in set(offer.ids)], "the queue's order, once each"
    assert set(chosen) & set(ids) <= set(offer.ids)
    words = find.casefold().split()
    matching = [i for i in ids if all(w in labels.search[i] for w in words)]
    assert offer.matching == len(matching)
    window = matching[: triage.PICK_LIMIT] if find.split() and matching else page
    assert set(window) <= set(offer.ids), "the first rows that match, else the grid's"
    assert set(offer.ids) - set(chosen) <= set(window)


def test_each_row_shows_the_money_at_stake_and_its_age(ledger: Path) -> None:
    rows = rows_of(opened())
    every = exceptions(ledger).set_index("exception_id")
    money = rows.dropna(subset=["at_stake"]).iloc[0]
    known = every.loc[money["exception_id"]]
    assert money["at_stake"] == abs(known["expected_cents"] - known["actual_cents"]) / 100
    assert rows["age"].str.match(r"^(\d+ (s|min)|\d+ h \d\d min|\d+ d \d+ h|–)$").all()


def test_ages_read_the_way_people_say_them() -> None:
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    assert triage.age(now - timedelta(seconds=45), now) == "45 s"
    assert triage.age(now - timedelta(minutes=12, seconds=5), now) == "12 min"
    assert triage.age(now - timedelta(hours=3, minutes=5), now) == "3 h 05 min"
    assert triage.age(now - timedelta(days=2, hours=4), now) == "2 d 4 h"
    assert triage.age(now + timedelta(seconds=3), now) == "0 s", "a device clock ahead"
    assert triage.age(None, now) == "–"
    assert triage.at_stake_cents(2000, 1000) == 1000 == triage.at_stake_cents(1000, 2000)
    assert triage.at_stake_cents(None, 1000) is None


HOSTILE_HOLDER = "**boss**<img src=x onerror=alert(1)>\u202e\x07"
"""A holder typed (or pasted) with Markdown, HTML, a bidi override and a control character."""


def test_several_selected_rows_are_assigned_with_one_note_and_shown_as_text(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    request_from(monkeypatch, "127.0.0.1", X_Forwarded_User="demo-analyst")
    at = opened()
    chosen = [str(i) for i in rows_of(at)["exception_id"].iloc[:2]]
    at.session_state["queue"] = {"selection": {"rows": [0, 1], "columns": []}}
    at.run()
    at.radio(key="bulk-action").set_value("ASSIGN")
    at.text_input(key="bulk-assignee").input(HOSTILE_HOLDER)
    at.text_area(key="bulk-note").input("camera review, pit 2")
    at.button(key="bulk-submit").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("ASSIGN to" in s.value and "2 exceptions" in s.value for s in at.success)
    journal = AckJournal.for_ledger(ledger)
    assert journal.verify() == []
    held = journal.holders()
    assert sorted(held) == sorted(chosen)
    assert {(r.assignee, r.actor, r.note) for r in held.values()} == {
        (HOSTILE_HOLDER.strip(), "demo-analyst", "camera review, pit 2")
    }
    assert journal.latest_actions() == {}, "an assignment acknowledges nothing"
    queue = rows_of(at).set_index("exception_id")
    shown = "**boss**<img src=x onerror=alert(1)>[U+202E]␇"  # visible(): text, no control
    assert list(queue.loc[chosen, "held_by"]) == [shown, shown]
    assert set(queue.loc[chosen, "status"]) == {"OPEN"}
    # the open exception's panel names the holder as escaped Markdown, never as markup
    at.selectbox(key="inspect").set_value(chosen[0]).run()
    [line] = [m.value for m in at.markdown if str(m.value).startswith("**Held by**")]
    assert "\\*\\*boss\\*\\*\\<img" in line and "<img" not in line.replace("\\<img", "")
    assert "\u202e" not in line and "\x07" not in line


def test_the_queue_filters_mine_and_unassigned_and_keeps_it_in_the_url(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    every = exceptions(ledger)
    journal = AckJournal.for_ledger(ledger)
    mine, theirs = (str(e) for e in every["exception_id"].iloc[:2])
    for exception_id, holder in ((mine, "demo-analyst"), (theirs, "rivera")):
        journal.append(
            exception_id=exception_id, action="ASSIGN", note="n", actor="demo-admin",
            actor_source="test", assignee=holder,
        )  # fmt: skip
    request_from(monkeypatch, "127.0.0.1", X_Forwarded_User="demo-analyst")
    at = opened(status=["OPEN", "ESCALATED", "ACKNOWLEDGED"])
    total = len(rows_of(at))
    at.radio(key=triage.HOLDER_KEY).set_value(triage.MINE).run()
    assert list(rows_of(at)["exception_id"]) == [mine]
    assert at.query_params[triage.HOLDER_PARAM] == "mine"
    at.radio(key=triage.HOLDER_KEY).set_value(triage.UNASSIGNED).run()
    unassigned = set(rows_of(at)["exception_id"])
    assert len(unassigned) == total - 2 and not {mine, theirs} & unassigned
    # a shared link opens the same view for whoever is signed in
    linked = opened(held="unassigned", status=["OPEN", "ESCALATED", "ACKNOWLEDGED"])
    assert set(rows_of(linked)["exception_id"]) == unassigned


def test_mine_without_a_signed_in_user_filters_nothing_and_says_so(ledger: Path) -> None:
    at = opened(held="mine")
    assert at.radio(key=triage.HOLDER_KEY).value == triage.MINE
    assert len(rows_of(at)) == len(rows_of(opened()))
    assert any("Sign in to see the exceptions you hold" in c.value for c in at.caption)


def test_each_exception_is_named_in_the_pick_lists_by_where_it_happened() -> None:
    """The pick list names an exception by code, table and id; the list that opens one adds
    severity, the round (else the Form serial, else the shoe) and the message's start. Both
    are plain text, so a bidi override a device sent is shown, not obeyed."""
    rows = pd.DataFrame(
        {
            "exception_id": ["e1", "e2", "e3"],
            "severity": ["CRITICAL", "HIGH", "LOW"],
            "code": ["PAYOUT", "FORM", "SHOE"],
            "table_id": ["T01", "T\u202e02", "T03"],
            "round_id": ["R-7", None, None],
            "serial": pd.array([None, 4411, None], dtype="Int64"),
            "shoe_id": ["S-1", "S-2", "S-3"],
            "message": ["x" * 80, "form", "shoe"],
        }
    )
    labels = triage.labels(rows)
    assert labels.picks == {
        "e1": "PAYOUT at T01 (e1)",
        "e2": "FORM at T[U+202E]02 (e2)",
        "e3": "SHOE at T03 (e3)",
    }
    assert labels.titles == {
        "e1": f"[CRITICAL] PAYOUT · T01 R-7 · {'x' * 70}",
        "e2": "[HIGH] FORM · T[U+202E]02 4411 · form",
        "e3": "[LOW] SHOE · T03 S-3 · shoe",
    }


def test_the_grid_holds_a_page_and_a_link_opens_another(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28 (a page's first load under 2 s): the grid holds PAGE_ROWS exceptions, the
    headline counts them all, and the page is in the URL, so a link or Back opens the same
    rows; a page past the last (fewer rows since) shows the last one, and what is no page
    number the first one, whatever the link carries."""
    every = every_row(monkeypatch)
    monkeypatch.setattr(triage, "PAGE_ROWS", 3)
    pages = -(-len(every) // 3)
    assert pages >= 3, "the emulated day holds enough exceptions for three pages"
    at = opened()
    assert list(rows_of(at)["exception_id"]) == list(every["exception_id"][:3])
    assert at.metric[0].value == f"{len(every)} of {len(every)}"
    assert at.selectbox(key=triage.PAGE_KEY).options == [
        triage.page_label(start, len(every)) for start in range(0, len(every), 3)
    ]
    assert "page" not in at.query_params, "the first page keeps a bare link bare"
    at.selectbox(key=triage.PAGE_KEY).set_value(3).run()
    assert list(rows_of(at)["exception_id"]) == list(every["exception_id"][3:6])
    assert at.query_params["page"] == "2"
    linked = opened(page="2")
    assert list(rows_of(linked)["exception_id"]) == list(every["exception_id"][3:6])
    past_the_end = opened(page=str(pages + 5))
    assert list(rows_of(past_the_end)["exception_id"]) == list(
        every["exception_id"][(pages - 1) * 3 :]
    )
    assert any(f"page {pages + 5} is past the last" in c.value for c in past_the_end.caption)
    garbage = opened(page="<b>2</b>")
    assert list(rows_of(garbage)["exception_id"]) == list(every["exception_id"][:3])
    assert [w.value for w in garbage.warning] == [
        "The link's page \\<b\\>2\\</b\\> is not a page number: the first page is shown."
    ], "named, escaped: the link's text is no markup"
    for not_a_number in ("²", "9" * 5000, "-1", "0"):
        odd = opened(page=not_a_number)
        assert list(rows_of(odd)["exception_id"]) == list(every["exception_id"][:3])
        assert any("is not a page number" in w.value for w in odd.warning), not_a_number[:9]


def every_row(monkeypatch: pytest.MonkeyPatch) -> pd.DataFrame:
    """Every row the queue's default filters keep, in its default order, on one page."""
    monkeypatch.setattr(triage, "PAGE_ROWS", 100_000)
    return rows_of(opened())


def test_another_order_or_filter_starts_at_the_first_page(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: on page 2, "most at stake first" shows the largest stakes, not rows 4-6 of
    the new order; a narrower filter also starts at its first page. A link's unknown order
    is named (escaped) and the default shown."""
    every = every_row(monkeypatch)
    monkeypatch.setattr(triage, "PAGE_ROWS", 3)
    at = opened(page="2")
    at.selectbox(key=triage.ORDER_KEY).set_value("stake").run()
    stakes = every.assign(cents=every["at_stake"] * 100).sort_values(
        "cents", ascending=False, kind="stable", na_position="last"
    )
    assert list(rows_of(at)["exception_id"]) == list(stakes["exception_id"][:3])
    assert "page" not in at.query_params and at.query_params["order"] == "stake"
    at.selectbox(key=triage.PAGE_KEY).set_value(3).run()
    code = str(every["code"].iloc[0])
    at.multiselect(key="f_code").set_value([code]).run()
    assert list(rows_of(at)["exception_id"]) == list(
        stakes[stakes["code"] == code]["exception_id"][:3]
    )
    unknown = opened(order="<i>cheapest</i>")
    assert list(rows_of(unknown)["exception_id"]) == list(every["exception_id"][:3])
    assert [w.value for w in unknown.warning] == [
        "The link's order \\<i\\>cheapest\\</i\\> is not one this page offers: most "
        "severe first is shown."
    ]


def test_the_order_sorts_every_exception_before_the_page(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Most at stake first orders all the rows the filters keep, not the page shown (a
    click on a column's header sorts only those), and goes into the URL; oldest first
    follows the time of the first evidence."""
    every = every_row(monkeypatch)
    monkeypatch.setattr(triage, "PAGE_ROWS", 3)
    at = opened(order="stake")
    largest = every["at_stake"].dropna().sort_values(ascending=False, kind="stable")[:3]
    assert list(rows_of(at)["at_stake"]) == list(largest)
    assert at.query_params["order"] == "stake"
    at.selectbox(key=triage.ORDER_KEY).set_value("oldest").run()
    times = sorted(every["occurred"].dropna())[:3]
    assert list(rows_of(at)["occurred"]) == times
    at.selectbox(key=triage.ORDER_KEY).set_value(triage.SEVERITY_FIRST).run()
    assert "order" not in at.query_params


def test_ticks_on_one_page_do_not_fall_on_the_rows_of_another(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28 (bulk selection stays armed on other rows): the grid reports its ticks by
    position; after a turn of the page those positions hold other exceptions, which the
    analyst never chose, so nothing is ticked or offered for the bulk form there."""
    monkeypatch.setattr(triage, "PAGE_ROWS", 3)
    at = opened()
    at.session_state["queue"] = {"selection": {"rows": [0, 1], "columns": []}}
    at.run()
    assert any(s.value == "2 selected" for s in at.subheader)
    at.selectbox(key=triage.PAGE_KEY).set_value(3).run()
    assert not at.exception, [e.value for e in at.exception]
    assert list(at.session_state["queue"]["selection"]["rows"]) == []
    assert not any(s.value.endswith(" selected") for s in at.subheader)


def test_pages_cover_every_row_once() -> None:
    for count in (0, 1, triage.PAGE_ROWS - 1, triage.PAGE_ROWS, triage.PAGE_ROWS * 3 + 1):
        starts = triage.page_starts(count)
        covered = [n for s in starts for n in range(s, min(s + triage.PAGE_ROWS, count))]
        assert covered == list(range(count)) and starts[0] == 0
    assert triage.page_label(100, 1453) == "rows 101-200 of 1,453"
    assert triage.page_label(1400, 1453) == "rows 1,401-1,453 of 1,453"
