"""A New Jersey casino's gaming day starts at 06:00 on its own clock. Across the two
daylight-saving changes of 2026 (America/New_York: forward on 8 March, back on 1 November)
the day before lasts 23 or 25 hours; emulated, replayed, closed and reported through the
command line, every event of it lands in that day, and the report says so in local time."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.cli import main
from pipeline.config.catalog import gaming_day_of

DAY = gaming_day_of()
HOUR_S = 3600


def run(*argv: object) -> tuple[int, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in argv])
    return code, json.loads(out.getvalue()) if "--json" in argv else out.getvalue()


def emulate(out: Path, gaming_date: date, hours: float) -> int:
    code, result = run(
        *("simulate", "--tables", "1", "--hours", hours, "--faults", "none", "--seed", 4),
        *("--date", gaming_date.isoformat(), "--out", out, "--json"),
    )
    assert code == 0
    events: int = result["events"]
    return events


@pytest.mark.parametrize(
    ("gaming_date", "hours", "next_date"),
    [
        (date(2026, 3, 7), 23, date(2026, 3, 8)),
        (date(2026, 10, 31), 25, date(2026, 11, 1)),
    ],
)
def test_a_day_across_a_daylight_saving_change_is_closed_whole(
    tmp_path: Path, gaming_date: date, hours: int, next_date: date
) -> None:
    assert DAY.hours(gaming_date) == hours
    emulated = emulate(tmp_path, gaming_date, 25)  # the emulator plays within the day
    following = emulate(tmp_path, next_date, 1)
    db = tmp_path / "ledger.duckdb"
    code, replayed = run("replay", tmp_path / "events", "--db", db, "--json")
    assert code == 0
    assert replayed["table_days"] == [["T01", gaming_date.isoformat()],
                                      ["T01", next_date.isoformat()]]  # fmt: skip

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
    assert per_day == {gaming_date: emulated, next_date: following}
    start, end = DAY.bounds_micros(gaming_date)
    assert start <= first and last < end
    # the day's play really spans its local length: more than 24 hours in autumn, and in
    # spring it ends before 24 hours are up (a UTC boundary would cut or pad it by an hour)
    played_s = (last - first) / 1e6
    assert hours - 1 < played_s / HOUR_S < hours

    code, closed = run(
        *("close", "--db", db, "--gaming-day", gaming_date.isoformat()),
        *("--out", tmp_path / "reports", "--actor", "demo-controller", "--json"),
    )
    assert code == 0, closed
    assert closed["totals"]["handle_cents"] > 0
    assert closed["quality"]["verdict"] != "BLOCKED"  # no event outside its local day
    html = (tmp_path / "reports" / f"close-{gaming_date.isoformat()}.html").read_text()
    zones = ("EST (UTC-05:00)", "EDT (UTC-04:00)")[:: 1 if gaming_date.month == 3 else -1]
    assert (
        f"from {gaming_date.isoformat()} 06:00:00 {zones[0]} to {next_date.isoformat()} "
        f"06:00:00 {zones[1]} ({hours} hours, America/New_York)"
    ) in html

    # the report written again from the seal is the same, local times included
    page = tmp_path / "reports" / f"close-{gaming_date.isoformat()}.html"
    page.unlink()
    code, _ = run(
        "report", "--db", db, "--gaming-day", gaming_date.isoformat(), "--out", page.parent
    )
    assert code == 0 and page.read_text() == html
