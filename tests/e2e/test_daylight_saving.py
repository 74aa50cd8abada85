"""A New Jersey casino's gaming day starts at 06:00 on its own clock. Across the two
daylight-saving changes of 2026 (America/New_York: forward on 8 March, back on 1 November)
the gaming day that contains the change is the one dated the day before (a gaming day is
named by the date it starts on): 2026-03-07 lasts 23 hours, 2026-10-31 lasts 25. Emulated,
replayed, closed and reported through the command line, every event of it lands in that day;
every report format (JSON, CSV, HTML, Excel) states its span and hours and figures equal to
the ledger's; and every dashboard page renders it.

Two tables in two pits, with payout and vigorish faults (N.J.A.C. 19:47-3.3(a), (c)), so the
day has per-pit subtotals and exceptions that block its close.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from pipeline.cli import main
from pipeline.config.catalog import gaming_day_of
from pipeline.config.dashboard_links import DAY_PARAM, EXCEPTION_PARAM, DashboardLinks
from pipeline.ledger.store import Ledger
from pipeline.replay.findings import money
from pipeline.reports.spreadsheet import PITS_SHEET
from tests.reports.workbook_cells import rows_of, sheets, summary_of

DAY = gaming_day_of()
HOUR_S = 3600
ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboards" / "app.py"
PAGES = sorted(p.stem for p in (ROOT / "dashboards" / "views").glob("*.py") if p.stem != "__init__")
PAGE_TIMEOUT = 180
FIGURES = ("rounds", "handle_cents", "vig_collected_cents", "comp_vig_cents", "recorded_win_cents")
"""The report's figures per table checked against the ledger's own rows."""

# --dist loadgroup keeps the module on one worker, which builds both days once (closed_days)
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("daylight-saving-days")]


def run(*argv: object) -> tuple[int, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in argv])
    return code, json.loads(out.getvalue()) if "--json" in argv else out.getvalue()


def emulate(out: Path, gaming_date: date, hours: float) -> int:
    code, result = run(
        *("simulate", "--tables", "2", "--hours", hours, "--faults", "payout,vigorish"),
        *("--seed", 4, "--date", gaming_date.isoformat(), "--out", out, "--json"),
    )
    assert code == 0
    events: int = result["events"]
    return events


@dataclass(frozen=True)
class ClosedDay:
    gaming_date: date
    hours: int
    next_date: date
    db: Path
    reports: Path
    emulated: int
    following: int
    table_days: list[list[str]]
    per_day: dict[date, int]
    played: tuple[int, int]
    """The first and last event of the day (epoch microseconds)."""
    tables: dict[str, dict[str, Any]]
    """The ledger's figures per table before the close: ``FIGURES`` and the pit."""
    blocking: int
    """The day's critical exceptions (none acknowledged)."""
    closed: dict[str, Any]


DAYS = {
    "spring-23h": (date(2026, 3, 7), 23, date(2026, 3, 8)),
    "autumn-25h": (date(2026, 10, 31), 25, date(2026, 11, 1)),
}
"""Each daylight-saving gaming day: its date, its hours and the day after it."""


@pytest.fixture(scope="session")
def closed_days(tmp_path_factory: pytest.TempPathFactory) -> dict[date, ClosedDay]:
    """Both days, built once by the worker that runs the module: a parametrized fixture is
    built again whenever its parameter changes, and a worker runs the two days' tests in any
    order. (Session-scoped, so its seals are witnessed in the session's installation.)"""
    return {
        day: _closed(day, hours, after, tmp_path_factory) for day, hours, after in DAYS.values()
    }


@pytest.fixture(params=list(DAYS.values()), ids=list(DAYS))
def closed_day(request: pytest.FixtureRequest, closed_days: dict[date, ClosedDay]) -> ClosedDay:
    return closed_days[request.param[0]]


def _closed(
    gaming_date: date, hours: int, next_date: date, tmp_path_factory: pytest.TempPathFactory
) -> ClosedDay:
    tmp_path = tmp_path_factory.mktemp(f"dst-{gaming_date.isoformat()}")
    emulated = emulate(tmp_path, gaming_date, 25)  # the emulator plays within the day
    following = emulate(tmp_path, next_date, 1)
    db = tmp_path / "ledger.duckdb"
    code, replayed = run("replay", tmp_path / "events", "--db", db, "--json")
    assert code == 0
    with duckdb.connect(str(db), read_only=True) as con:
        per_day = dict(
            con.execute(
                "SELECT gaming_date, count(*) FROM deliveries GROUP BY 1 ORDER BY 1"
            ).fetchall()
        )
        first, last = con.execute(
            "SELECT min(occurred_at), max(occurred_at) FROM deliveries WHERE gaming_date = ?",
            [gaming_date],
        ).fetchone() or (0, 0)
        cursor = con.execute(
            "SELECT s.table_id, s.pit, s.rounds, s.handle_cents, s.vig_collected_cents, "
            "s.comp_vig_cents, (SELECT coalesce(sum(w.recorded_win_cents), 0) "
            "FROM table_day_win w WHERE w.table_id = s.table_id "
            "AND w.gaming_date = s.gaming_date) AS recorded_win_cents "
            "FROM table_day_summary s WHERE s.gaming_date = ?",
            [gaming_date],
        )
        names = [d[0] for d in cursor.description or ()]
        tables = {row[0]: dict(zip(names, row, strict=True)) for row in cursor.fetchall()}
        ((blocking,),) = con.execute(
            "SELECT count(*) FROM exceptions WHERE gaming_date = ? AND severity_rank >= 4",
            [gaming_date],
        ).fetchall()
    reports = tmp_path / "reports"
    code, closed = run(
        *("close", "--db", db, "--gaming-day", gaming_date.isoformat()),
        *("--out", reports, "--actor", "demo-controller", "--json"),
    )
    assert code in (0, 1), closed  # 1: closed, with exceptions blocking it
    return ClosedDay(
        gaming_date, hours, next_date, db, reports, emulated, following,
        replayed["table_days"], per_day, (first, last), tables, blocking, closed,
    )  # fmt: skip


def _zones(day: ClosedDay) -> tuple[str, str]:
    """The zone names with their offsets at the day's start and end."""
    est, edt = "EST (UTC-05:00)", "EDT (UTC-04:00)"
    return (est, edt) if day.gaming_date.month == 3 else (edt, est)


def test_a_day_across_a_daylight_saving_change_is_closed_whole(closed_day: ClosedDay) -> None:
    day = closed_day
    assert DAY.hours(day.gaming_date) == day.hours
    assert sorted(day.table_days) == sorted(
        [table, d.isoformat()] for d in (day.gaming_date, day.next_date) for table in ("T01", "T02")
    )
    assert day.per_day == {day.gaming_date: day.emulated, day.next_date: day.following}
    start, end = DAY.bounds_micros(day.gaming_date)
    first, last = day.played
    assert start <= first and last < end
    # the day's play really spans its local length: more than 24 hours in autumn, and in
    # spring it ends before 24 hours are up (a UTC boundary would cut or pad it by an hour)
    played_s = (last - first) / 1e6
    assert day.hours - 1 < played_s / HOUR_S < day.hours
    assert day.closed["totals"]["handle_cents"] > 0
    assert day.closed["quality"]["verdict"] != "BLOCKED"  # no event outside its local day

    # the report written again from the seal is the same, local times included
    page = day.reports / f"close-{day.gaming_date.isoformat()}.html"
    html = page.read_text()
    page.unlink()
    code, _ = run(
        "report", "--db", day.db, "--gaming-day", day.gaming_date.isoformat(), "--out", day.reports
    )
    assert code == 0 and page.read_text() == html


def test_every_report_format_states_the_span_and_the_ledger_s_figures(
    closed_day: ClosedDay,
) -> None:
    """N.J.A.C. 19:47-3.3(c)3vii: the win and its complimentaries, per table, per pit and for
    the day, are the ledger's, on a day of 23 or 25 hours, in each of the four files."""
    day = closed_day
    stem = day.reports / f"close-{day.gaming_date.isoformat()}"
    starts, ends = _zones(day)
    iso_start = f"{day.gaming_date.isoformat()}T06:00:00{starts[-7:-1]}"
    iso_end = f"{day.next_date.isoformat()}T06:00:00{ends[-7:-1]}"
    handle = sum(t["handle_cents"] for t in day.tables.values())
    assert day.blocking > 0 and day.closed["blocking_exceptions"] == day.blocking

    document = json.loads(stem.with_suffix(".json").read_bytes())
    span = document["rendered"]["gaming_day_span"]
    assert (span["starts_at"], span["ends_at"], span["hours"]) == (iso_start, iso_end, day.hours)
    assert document["rendered"]["blocking_exceptions"] == day.blocking
    for row in document["tables"]:
        assert {k: row[k] for k in ("pit", *FIGURES)} == {
            k: day.tables[row["table_id"]][k] for k in ("pit", *FIGURES)
        }
    assert document["totals"]["handle_cents"] == handle

    rows = list(csv.DictReader(io.StringIO(stem.with_suffix(".csv").read_text())))
    assert {r["table_id"] for r in rows} == set(day.tables)
    for row in rows:
        assert (row["gaming_day_starts_at"], row["gaming_day_ends_at"]) == (iso_start, iso_end)
        assert row["gaming_day_hours"] == str(day.hours)
        assert {k: int(row[k]) for k in FIGURES} == {
            k: day.tables[row["table_id"]][k] for k in FIGURES
        }

    page = stem.with_suffix(".html").read_text()
    assert (
        f"from {day.gaming_date.isoformat()} 06:00:00 {starts} to {day.next_date.isoformat()} "
        f"06:00:00 {ends} ({day.hours} hours, America/New_York)"
    ) in page
    assert f"<dt>Blocking exceptions</dt><dd>{day.blocking}</dd>" in page
    footers = dict(re.findall(r"<tfoot><tr><th>([^<]*)</th>(.*?)</tr></tfoot>", page))
    pits = {t["pit"] for t in day.tables.values()}
    assert set(footers) == {f"Pit {p} subtotal" for p in pits} | {"Day total"}
    assert money(handle) in footers["Day total"]
    for pit in pits:
        pit_handle = sum(t["handle_cents"] for t in day.tables.values() if t["pit"] == pit)
        assert money(pit_handle) in footers[f"Pit {pit} subtotal"]

    book = sheets(stem.with_suffix(".xlsx").read_bytes())
    summary = summary_of(book)
    assert (summary["Starts"], summary["Ends"], summary["Hours"]) == (
        f"{day.gaming_date.isoformat()} 06:00:00 {starts}",
        f"{day.next_date.isoformat()} 06:00:00 {ends}",
        str(day.hours),
    )
    assert summary["Blocking exceptions"] == str(day.blocking)
    pit_rows = rows_of(book[PITS_SHEET], book["strings"])
    column = next(r for r in pit_rows if r and r[0] == "Pit").index("Handle ($)")
    [total] = [r for r in pit_rows if r and r[0] == "Day total"]
    assert total[column] == str(handle / 100)


@pytest.fixture
def dashboard_ledger(
    closed_day: ClosedDay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A copy of the closed day's ledger (with its archive and anchors) for the dashboards."""
    db = tmp_path / "ledger.duckdb"
    shutil.copyfile(closed_day.db, db)
    shutil.copytree(closed_day.db.parent / "archive", tmp_path / "archive")
    shutil.copytree(closed_day.reports, tmp_path / "reports")
    monkeypatch.setenv("BACCARAT_DB", str(db))
    for name in ("BACCARAT_ACKS", "BACCARAT_RULES"):
        monkeypatch.delenv(name, raising=False)
    yield db


def test_every_dashboard_page_renders_the_day(
    closed_day: ClosedDay, dashboard_ledger: Path
) -> None:
    day = closed_day.gaming_date
    at = AppTest.from_file(str(APP), default_timeout=PAGE_TIMEOUT)
    at.query_params[DAY_PARAM] = day.isoformat()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    for page in PAGES:
        at.switch_page(f"views/{page}.py").run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert at.selectbox(key="gaming_day").value == day, page


def test_an_alert_s_link_opens_its_exception_on_the_day(
    closed_day: ClosedDay, dashboard_ledger: Path
) -> None:
    """The link an alert carries (:class:`DashboardLinks`) opens the queue on the exception's
    gaming day with that exception open, on a day of 23 or 25 hours as on any other."""
    with Ledger(dashboard_ledger, read_only=True) as ledger:  # a sealed day: in the archive
        ((exception_id,),) = ledger.con.execute(
            "SELECT max(exception_id) FROM exceptions WHERE gaming_date = ?",
            [closed_day.gaming_date],
        ).fetchall()
    assert exception_id is not None
    link = DashboardLinks.from_setting("http://dashboards.example").exception(
        closed_day.gaming_date, exception_id
    )
    assert link is not None
    at = AppTest.from_file(str(APP), default_timeout=PAGE_TIMEOUT)
    for name, value in parse_qsl(urlsplit(link).query):
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="gaming_day").value == closed_day.gaming_date
    assert at.query_params[EXCEPTION_PARAM] == exception_id
    assert at.selectbox(key="inspect").value == exception_id
