"""Drill-down: every id a page shows is a link to the page that shows it, with the gaming day
carried along; a page keeps its state in the URL and reads it again when a link, Back or
Forward changes it; a link to an id the ledger lacks is named, never a traceback.

The ids are the devices' (the table, shoe and dealer a round was dealt at, from, by; the
Complimentary Vigorish Form's serial, N.J.A.C. 19:47-3.3(c)3), so the link helper is
also tried with the hostile corpus (tests/hostile)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pandas as pd
import pytest
from dashboard_data import (
    APP,
    DAY,
    grid_rows,
    ledger_copy,
    link_columns,
    shown_text,
    trust_localhost,
)
from markdown_it import MarkdownIt
from streamlit.runtime.state.query_params import process_query_params
from streamlit.testing.v1 import AppTest

from dashboards import links
from pipeline.ledger.store import Ledger
from pipeline.safe_text import visible
from tests.hostile.corpus import CORPUS, TABLE_IDS

TIMEOUT = 120
HOSTILE_IDS = (*CORPUS, *TABLE_IDS.values(), "quote\"'`", "\u2066isolate\u2069", "nbsp\u00a0")
"""The corpus of hostile device strings, quotes of every kind and more Unicode controls."""
SAFE_QUERY = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~%=&+")
"""What an encoded query string may hold: no quote, bracket, space, control or markup."""


def rendered_tags(markdown: str) -> set[str]:
    """The HTML tags a Markdown text renders to."""
    html = MarkdownIt("commonmark").render(markdown)
    return {part.split(">")[0].split()[0] for part in html.split("<")[1:]}


@pytest.mark.parametrize("kind", sorted(links.KINDS))
def test_a_link_carries_any_id_encoded_and_labels_it_as_text(kind: str) -> None:
    """Whatever a device calls a table, round, patron, dealer, shoe or Form, the link opens
    exactly that id (the query string decodes back to it) and neither its URL nor its label
    can become markup, another parameter or a hidden character."""
    for hostile in HOSTILE_IDS:
        link = links.link_to(kind, hostile, DAY, table=hostile if kind == "shoe" else None)
        query = process_query_params(link.query)
        assert set(query) <= SAFE_QUERY, (kind, hostile, query)
        decoded = parse_qs(query, keep_blank_values=True)
        assert decoded[links.KINDS[kind].param] == [hostile]
        assert decoded[links.DAY_PARAM] == [DAY.isoformat()]
        assert rendered_tags(link.label) <= {"p", "/p"}, (kind, hostile, link.label)
        assert visible(link.label) == link.label, (kind, hostile)  # no control acts


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = ledger_copy(tmp_path)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    for name in ("BACCARAT_ACKS", "BACCARAT_RULES", "FORWARDED_ALLOW_IPS"):
        monkeypatch.delenv(name, raising=False)
    trust_localhost()
    yield db


def opened(page: str, **params: str) -> AppTest:
    """``page`` opened from a link with these query parameters."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()  # AppTest starts on the default page (the queue), which tidies its own URL
    at.query_params.clear()
    for name, value in params.items():
        at.query_params[name] = value
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page_links(at: AppTest) -> list[tuple[str, dict[str, list[str]]]]:
    """Every page link on the page: its label and its query parameters."""
    found = []
    for element in at.get("page_link"):
        proto: Any = element.proto
        found.append((str(proto.label), parse_qs(proto.query_string, keep_blank_values=True)))
    return found


def one(db: Path, sql: str) -> tuple[Any, ...]:
    with Ledger(db, read_only=True) as ledger:
        rows = ledger.con.execute(sql).fetchall()
    assert rows, sql
    return tuple(rows[0])


def test_every_id_of_a_round_links_to_its_page(ledger: Path) -> None:
    """The round page (N.J.A.C. 19:47-3.9: the round dealt) links its table, shoe, dealer,
    each seated patron, its trail and each of its exceptions, each on the round's day."""
    round_id, table_id, shoe_id, dealer_id, patron_id, exception_id = one(
        ledger,
        "SELECT r.round_id, r.table_id, r.shoe_id, s.dealer_id, w.patron_id, e.exception_id "
        "FROM rounds r JOIN table_day_summary s USING (table_id, gaming_date) "
        "JOIN settlements w USING (table_id, round_id) "
        "JOIN exceptions e USING (table_id, round_id) "
        "WHERE w.patron_id IS NOT NULL ORDER BY r.round_id LIMIT 1",
    )
    at = opened("round_reconstruction", round=round_id, day=DAY.isoformat())
    carried = {"Table": "table", "Shoe": "shoe", "Dealer": "dealer", "Patron": "patron",
               "Trail": "round", "Exception": "exception"}  # fmt: skip
    found = {
        (noun, params[carried[noun]][0])
        for label, params in page_links(at)
        if (noun := label.split(" ")[0]) in carried
    }
    expected = {("Table", table_id), ("Shoe", shoe_id), ("Dealer", dealer_id),
                ("Patron", patron_id), ("Trail", round_id),
                ("Exception", exception_id)}  # fmt: skip
    assert expected <= found
    assert all(params["day"] == [DAY.isoformat()] for _, params in page_links(at))
    assert at.query_params["round"] == round_id


@pytest.mark.parametrize(
    ("page", "params", "said"),
    [
        ("round_reconstruction", {"round": "<script>R-unknown"}, "No round"),
        ("investigator", {"patron": "PAT-unknown"}, "No patron"),
        ("investigator", {"dealer": "](x) D-unknown"}, "No dealer"),
        ("roads", {"table": "T-unknown", "shoe": "S-unknown"}, "No table"),
        ("forms", {"serial": "999999999"}, "No Form with serial"),
        ("exception_queue", {"table": "T-unknown\u202e"}, "has no exception"),
        ("table_board", {"day": "1999-01-01"}, "is not in the ledger"),
    ],
)
def test_a_link_to_an_unknown_id_says_so(
    ledger: Path, page: str, params: dict[str, str], said: str
) -> None:
    """A link whose id the ledger does not hold (mistyped, of another ledger) is named in a
    warning, escaped, and the page still shows what it can."""
    at = opened(page, **params)
    warnings = [str(w.value) for w in at.warning]
    assert any(said in w for w in warnings), warnings
    assert all(visible(w) == w for w in warnings)


def test_a_url_from_outside_sets_the_view_again(ledger: Path) -> None:
    """Back or Forward changes the URL under a page that is open: the queue shows the
    exception and the filters the URL names, not those it showed before."""
    at = opened("exception_queue", severity="CRITICAL", day=DAY.isoformat())
    grid = grid_rows(at.dataframe[0])
    assert len(grid) > 1
    first, second = (str(i) for i in grid["exception_id"].iloc[:2])
    assert at.selectbox(key="inspect").value == first
    at.selectbox(key="inspect").set_value(second).run()
    assert at.query_params["exception"] == second
    at.query_params["exception"] = first  # Back: the URL before the second was opened
    at.run()
    assert at.selectbox(key="inspect").value == first
    assert at.multiselect(key="f_severity").value == ["CRITICAL"]
    at.query_params.pop("severity")
    at.run()
    assert at.multiselect(key="f_severity").value == []


def test_the_dealer_report_shows_the_dealers_day(ledger: Path) -> None:
    """A dealer link opens the dealer's report on the linked day: the rounds the dealer dealt
    that day and the exceptions in them, read from the ledger (pipeline.ledger.history)."""
    (dealer_id,) = one(
        ledger,
        "SELECT dealer_id FROM table_day_summary WHERE gaming_date = DATE "
        f"'{DAY.isoformat()}' AND dealer_id IS NOT NULL ORDER BY table_id LIMIT 1",
    )
    at = opened("investigator", dealer=dealer_id, day=DAY.isoformat())
    assert at.selectbox(key="inv_dealer").value == dealer_id
    assert any(str(s.value) == f"Gaming day {DAY.isoformat()}" for s in at.subheader)
    frames = [grid_rows(d) for d in at.dataframe]
    (dealt,) = [f for f in frames if {"round_id", "round_number", "exceptions"} <= set(f.columns)]
    assert len(dealt) > 0 and (dealt["exceptions"] >= 0).all()
    labels = [label for label, _ in page_links(at)]
    assert any(label.startswith("Exception queue of dealer") for label in labels)
    assert "patron" not in at.query_params, "a dealer link stays a dealer link"


def test_the_table_board_keeps_its_filters_in_the_url_and_links_each_table(
    ledger: Path,
) -> None:
    """A pit chosen on the board goes into the URL, a link carrying it opens the board so
    filtered, and every table listed links to its exceptions (the table a Form names,
    N.J.A.C. 19:47-3.3(c)3i)."""
    at = opened("table_board", day=DAY.isoformat())
    pit = str(at.multiselect(key="board_pit").options[0])
    at.multiselect(key="board_pit").set_value([pit]).run()
    assert at.query_params["pit"] == pit
    again = opened("table_board", pit=pit, day=DAY.isoformat())
    assert again.multiselect(key="board_pit").value == [pit]
    (tables,) = one(
        ledger,
        "SELECT list(DISTINCT table_id ORDER BY table_id) FROM table_day_summary "
        f"WHERE gaming_date = DATE '{DAY.isoformat()}' AND pit = '{pit}'",
    )
    linked = [p["table"][0] for label, p in page_links(again) if label.startswith("Table ")]
    assert sorted(linked) == list(tables)


def test_an_id_in_a_grid_is_a_link_that_carries_and_shows_exactly_it() -> None:
    """Whatever a device calls a table, round, patron, dealer, shoe, Form serial (N.J.A.C.
    19:47-3.3(c)3) or an exception, its cell in a grid holds a URL of only
    encoded characters that opens its page with exactly that id, on the row's own gaming day,
    and the cell shows the id decoded from it; a missing id is an empty cell."""
    other_day = DAY.replace(day=DAY.day - 1)
    frame = pd.DataFrame({column: [*HOSTILE_IDS, None] for column in links.ID_COLUMNS})
    frame["gaming_date"] = [DAY] * (len(HOSTILE_IDS) - 1) + [other_day, None]
    shown, config = links.in_grid(frame, DAY, {"table_id": {"label": "table", "width": 60}})
    assert config["table_id"]["label"] == "table" and config["table_id"]["width"] == 60
    for column, kind in links.ID_COLUMNS.items():
        target = links.KINDS[kind]
        pattern = config[column]["type_config"]["display_text"]
        assert pd.isna(shown[column].iloc[-1])
        for row, hostile in enumerate(HOSTILE_IDS):
            url = shown[column].iloc[row]
            path, _, query = url.partition("?")
            assert path == links.PAGE_PATHS[target.page], (column, hostile)
            assert set(query) <= SAFE_QUERY - {"+"}, (column, hostile, query)
            decoded = parse_qs(query, keep_blank_values=True)
            assert decoded[target.param] == [hostile]
            assert shown_text(url, pattern) == hostile, (column, hostile)
            day = other_day if row == len(HOSTILE_IDS) - 1 else DAY
            assert decoded[links.DAY_PARAM] == [day.isoformat()]
            if kind == "shoe":
                assert decoded["table"] == [frame["table_id"].iloc[row]]
    only_tables, config = links.in_grid(frame, DAY, columns=["table_id"])
    assert set(link_columns_of(config)) == {"table_id"}
    assert only_tables["round_id"].equals(frame["round_id"])


def link_columns_of(config: dict[str, Any]) -> list[str]:
    return [name for name, spec in config.items() if spec["type_config"]["type"] == "link"]


PAGES_WITH_GRIDS = {
    "exception_queue": {},
    "table_board": {},
    "forms": {},
    "statistics": {},
    "investigator": {},
    "search": {"table": "T01"},
}
"""Pages whose grids name ids, and the query that opens each with rows in its grids (the
false shuffles' page: tests/dashboards/test_dashboard_slugs.py, on a day with one)."""
UNLINKED = {("missing", "serial")}
"""A grid's id column left as text (its key and column): a missing Form serial was never
issued, so there is no Form to open."""


@pytest.mark.parametrize("page", sorted(PAGES_WITH_GRIDS))
def test_every_id_column_of_every_grid_links_to_its_page(ledger: Path, page: str) -> None:
    """On every page, each id column of each grid (the table, round, shoe and
    dealer; N.J.A.C. 19:47-3.3(c)3's Form serial; patrons and exceptions) is a link column
    whose cells open the id's page with the id the cell shows, on a gaming day."""
    at = opened(page, day=DAY.isoformat(), **PAGES_WITH_GRIDS[page])
    checked = 0
    for grid in at.dataframe:
        frame, shown = grid.value, grid_rows(grid)
        linked = link_columns(grid)
        key = grid.proto.id.rsplit("-", 1)[-1]
        for column in set(frame.columns) & set(links.ID_COLUMNS):
            if (key, column) in UNLINKED:
                assert column not in linked
                continue
            assert column in linked, (page, key, column)
            target = links.KINDS[links.ID_COLUMNS[column]]
            for url, text in zip(frame[column], shown[column], strict=True):
                if pd.isna(url):
                    continue
                path, _, query = str(url).partition("?")
                decoded = parse_qs(query, keep_blank_values=True)
                assert path == links.PAGE_PATHS[target.page]
                assert decoded[target.param] == [text] and links.DAY_PARAM in decoded
                checked += 1
    assert checked > 0, f"{page}: no id in any grid"


def test_the_statistics_page_keeps_its_view_in_the_url(ledger: Path) -> None:
    """The statistical alarms' view (per table or shoe, the alarm level, only the rows that
    alarm: N.J.A.C. 19:47-3.9's outcomes and the hold against the exact odds) goes into the
    URL as it is chosen; a link carrying it opens the page so, and Back (the URL before)
    sets it again. A value the page does not offer is left out, never taken."""
    at = opened("statistics", day=DAY.isoformat())
    assert {"per", "alpha", "only"}.isdisjoint(at.query_params), "a bare view stays bare"
    at.radio(key="stats_per").set_value("table").run()
    at.select_slider(key="alpha").set_value(0.05).run()
    at.checkbox(key="stats_only").check().run()
    assert (at.query_params["per"], at.query_params["alpha"]) == ("table", "0.05")
    assert at.query_params["only"] == "1"
    assert "shoe_id" not in grid_rows(at.dataframe[0]).columns

    again = opened("statistics", day=DAY.isoformat(), per="table", alpha="0.05", only="1")
    assert again.radio(key="stats_per").value == "table"
    assert again.select_slider(key="alpha").value == 0.05
    assert again.checkbox(key="stats_only").value is True
    again.query_params.pop("only")  # Back: the URL before the box was ticked
    again.query_params["per"] = "shoe"
    again.run()
    assert again.checkbox(key="stats_only").value is False
    assert again.radio(key="stats_per").value == "shoe"
    assert again.select_slider(key="alpha").value == 0.05

    odd = opened("statistics", day=DAY.isoformat(), per="<b>pit</b>", alpha="0.5", only="yes")
    assert odd.radio(key="stats_per").value == "shoe"
    assert odd.select_slider(key="alpha").value == 0.01
    assert odd.checkbox(key="stats_only").value is False
    assert (odd.query_params["per"], odd.query_params["alpha"]) == ("shoe", "0.01")  # as shown
    assert "only" not in odd.query_params
