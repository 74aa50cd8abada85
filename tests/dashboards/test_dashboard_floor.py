"""The floor grid: a tile per table grouped by pit, its state, the age of its last event, its
open exceptions and hold; device strings escaped."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from dashboard_data import DAY, ledger_copy

from dashboards import queries as q
from dashboards.floor import age_text, floor_html
from dashboards.source import reader, snapshot
from pipeline.bundle.acks import AckJournal
from pipeline.ledger.day_board import floor_facts
from pipeline.quality.docs import unsafe_markup

NOW = 1_800_000_000_000_000


def _board(**row: object) -> pd.DataFrame:
    base: dict[str, object] = {
        "table_id": "T01",
        "pit": "PIT-1",
        "game": "PUNTO_BANCO",
        "rounds": 40,
        "current_shoe": "T01-S2",
        "shoe_ended": False,
        "shoe_progress": 0.5,
        "open_exceptions": 0,
        "open_critical": 0,
        "hold_pct": 1.234,
    }
    return pd.DataFrame([{**base, **row}])


def _facts(table_id: str = "T01", seconds_ago: int = 90, closed: bool = False) -> pd.DataFrame:
    return pd.DataFrame(
        [{"table_id": table_id, "last_event_at": NOW - seconds_ago * 1_000_000, "closed": closed}]
    )


def _tiles(page: str) -> list[str]:
    return re.findall(r'<div class="tile [^"]*".*?</div></div>', page)


def test_a_table_in_play_shows_progress_age_and_hold() -> None:
    page = floor_html(_board(), _facts(), NOW)
    (tile,) = _tiles(page)
    assert 'class="tile play"' in tile and "shoe in play · 40 rounds" in tile
    assert 'style="width:50%"' in tile and "hold 1.2 %" in tile
    assert "last event 1 min ago" in tile and "no open exception" in tile


def test_critical_exceptions_mark_the_tile_red_and_closed_tables_fade() -> None:
    page = floor_html(_board(open_exceptions=3, open_critical=1), _facts(), NOW)
    assert 'class="tile play critical"' in page and "3 open, 1 critical" in page
    closed = floor_html(_board(shoe_ended=True), _facts(closed=True), NOW)
    assert 'class="tile closed"' in closed and ">closed · 40 rounds" in closed
    idle = floor_html(_board(shoe_ended=True), _facts(), NOW)
    assert "between shoes" in idle


def test_ages() -> None:
    assert [age_text(s) for s in (0, 59, 60, 3599, 3600, 3 * 3600 + 5 * 60)] == [
        "0 s",
        "59 s",
        "1 min",
        "59 min",
        "1 h 00 min",
        "3 h 05 min",
    ]


def test_device_strings_are_escaped_and_shown() -> None:
    table = 'T9"><script>alert(1)</script>\u202e'
    page = floor_html(_board(table_id=table, pit="<b>pit</b>"), _facts(table), NOW)
    assert "<script>" not in page and "<b>pit" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;[U+202E]" in page
    assert unsafe_markup(page) == []


def test_the_emulated_floor_has_a_tile_per_table_grouped_by_pit(tmp_path: Path) -> None:
    db = ledger_copy(tmp_path)
    with reader(snapshot(db)) as ledger:
        board = q.table_board(ledger, DAY, AckJournal(tmp_path / "acks.jsonl"))
        facts = floor_facts(ledger, DAY)
    assert set(facts["table_id"]) == set(board["table_id"])
    newest = int(facts["last_event_at"].max())
    page = floor_html(board, facts, newest)
    assert len(_tiles(page)) == len(board)
    assert page.count("<h4>Pit ") == board["pit"].nunique()
    assert "last event 0 s ago" in page  # the newest table, measured to the day's end
