"""Inputs that crashed the pipeline (issue 25), each now a finding with what to do.

- The same file delivered again under another name: one NJ-DATA-DUPLICATE per table-day
  naming both files, nothing added, later replays of either name still work (it was a
  primary-key violation once an event had been delivered three times).
- An event stamped 9999-12-31: withheld by the replay of its device's table-day with an
  NJ-DATA-CONTRACT naming the event and the plausible range (it was an ``OverflowError``).
- Device strings of 2 MB: cut at intake to :data:`~pipeline.events.model.MAX_DEVICE_STRING`
  characters, one finding per device and field (the close ran out of memory).
- A seq of ``2**63 - 1``: one finding for it, not thousands of out-of-order events.

After each, the gaming day closes (or refuses with its blocking reason), without a traceback.
The data integrity findings cite N.J.A.C. 19:47-3.7 to 3.10 through the NJ-DATA codes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.config.catalog import gaming_day_of
from pipeline.events.model import MAX_DEVICE_STRING, TableEvent
from pipeline.ledger.store import Ledger
from pipeline.replay.sequencer import sequence
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.hostile.corpus import write_events

DAY = date(2026, 11, 24)
MB2 = 2 * 1024 * 1024


@pytest.fixture(scope="module")
def day_events() -> list[TableEvent]:
    """One table, half an hour of an emulated gaming day, no injected fault."""
    result = simulate(1, 0.5, 1, parse_faults("none"), DAY)
    return [e for events in result.events_by_table.values() for e in events]


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, out.getvalue(), err.getvalue()


def _replay(db: Path, *paths: Path) -> str:
    code, out, err = _run("replay", "--db", str(db), *map(str, paths))
    assert code == 0, err
    return out


def _closes(db: Path, out: Path) -> None:
    """The day closes, or is refused with its blocking reason; never a traceback."""
    code, _, err = _run("close", "--db", str(db), "--gaming-day", DAY.isoformat(),
                        "--out", str(out), "--actor", "demo-controller")  # fmt: skip
    assert code in (0, 1), err
    with Ledger(db, read_only=True) as ledger:
        (status,) = ledger.con.execute(
            "SELECT status FROM gaming_days WHERE gaming_date = ?", [DAY]
        ).fetchone() or ("",)
    assert str(status).startswith("CLOSED") or "is not closed" in err, err


def _exceptions(db: Path, code: str) -> list[tuple[str, date, str | None, list[str], str]]:
    with Ledger(db, read_only=True) as ledger:
        return [
            (str(t), d, r, list(ids), str(m))
            for t, d, r, ids, m in ledger.con.execute(
                "SELECT table_id, gaming_date, round_id, source_event_ids, message "
                "FROM exceptions WHERE code = ? ORDER BY ALL",
                [code],
            ).fetchall()
        ]


# ---------------------------------------------------------------------- 1. re-delivery
def test_an_event_delivered_three_times_is_one_duplicate_finding(
    day_events: list[TableEvent],
) -> None:
    once = day_events[:40]
    findings = sequence([*once, *once, *once]).findings
    duplicates = [f for f in findings if f.code == "NJ-DATA-DUPLICATE"]
    assert len(duplicates) == len({f.finding_id for f in duplicates}) == 40


def test_a_file_delivered_again_under_another_name_is_one_finding_naming_both(
    day_events: list[TableEvent], tmp_path: Path
) -> None:
    first = write_events(day_events, tmp_path / "inbox" / "T01.avro")
    again = tmp_path / "retry" / "T01-resent.avro"
    third = tmp_path / "retry2" / "T01.avro.1"
    for copy in (again, third):
        copy.parent.mkdir()
        shutil.copyfile(first, copy)
    db = tmp_path / "ledger.duckdb"
    _replay(db, first)
    said = _replay(db, again)
    assert f"loaded 0 new events from 1 files ({len(day_events):,} already" in said
    _replay(db, third)  # the third delivery of every event: a primary-key violation once
    assert "2 files skipped as already loaded" in _replay(db, first, again)
    findings = [f for f in _exceptions(db, "NJ-DATA-DUPLICATE") if "another name" in f[4]]
    assert len(findings) == 2
    for (table_id, day, _, ids, message), copy in zip(findings, (again, third), strict=True):
        assert (table_id, day) == ("T01", DAY) and len(ids) == 1
        assert str(copy.resolve()) in message and str(first.resolve()) in message
        assert f"{len(day_events):,} events" in message
    with Ledger(db, read_only=True) as ledger:
        assert ledger.con.execute("SELECT count(*) FROM deliveries").fetchone() == (
            len(day_events),
        )
        assert ledger.con.execute("SELECT count(*) FROM input_files").fetchone() == (3,)
    _closes(db, tmp_path / "reports")


# ---------------------------------------------------------------------- 2. year 9999
def _micros(instant: datetime) -> int:
    return int(instant.timestamp()) * 1_000_000


def test_an_event_stamped_9999_is_withheld_with_a_finding(
    day_events: list[TableEvent], tmp_path: Path
) -> None:
    events = list(day_events)
    wild = events[len(events) // 2] = dataclasses.replace(
        events[len(events) // 2], occurred_at=_micros(datetime(9999, 12, 31, tzinfo=UTC))
    )
    db = tmp_path / "ledger.duckdb"
    said = _replay(db, write_events(events, tmp_path / "events" / "T01.avro"))
    assert "gaming days searched: 2026-11-24)" in said  # the pattern stage ran, on DAY only
    (found,) = [f for f in _exceptions(db, "NJ-DATA-CONTRACT") if wild.event_id in f[3]]
    table_id, day, round_id, _, message = found
    assert (table_id, day, round_id) == ("T01", DAY, wild.round_id)
    assert "9999-12-31" in message and "[2000-01-01, 2100-01-01) UTC" in message
    assert _exceptions(db, "NJ-DATA-GAP") == []  # it was delivered: no gap
    with Ledger(db, read_only=True) as ledger:
        assert ledger.con.execute("SELECT DISTINCT gaming_date FROM deliveries").fetchall() == [
            (DAY,)
        ]
    _closes(db, tmp_path / "reports")


def test_an_event_of_9999_alone_does_not_crash_the_pattern_stage(
    day_events: list[TableEvent], tmp_path: Path
) -> None:
    """With no event of its device to date it by, it stays on 9999-12-31: the pattern stage
    searches that day without an ``OverflowError``."""
    alone = dataclasses.replace(
        day_events[0], occurred_at=_micros(datetime(9999, 12, 31, 23, tzinfo=UTC))
    )
    db = tmp_path / "ledger.duckdb"
    _replay(db, write_events([alone], tmp_path / "events" / "wild.avro"))
    (found,) = _exceptions(db, "NJ-DATA-CONTRACT")
    assert found[1] == date(9999, 12, 31) and alone.event_id in found[3]


def test_times_beyond_the_calendar_have_a_gaming_day() -> None:
    gaming_day = gaming_day_of()
    assert gaming_day.date_of(2**62) == date.max
    assert gaming_day.date_of(-(2**62)) == date.min


# ---------------------------------------------------------------------- 3. 2 MB strings
def test_device_strings_of_2_mb_are_cut_at_intake_with_a_finding(
    day_events: list[TableEvent], tmp_path: Path
) -> None:
    huge = "T" * MB2
    events = []
    for e in day_events[:30]:
        fields = {k: ("P" if k == "patron_id" else "D") * MB2 if k in ("patron_id", "dealer_id")
                  else v for k, v in e.fields.items()}  # fmt: skip
        events.append(dataclasses.replace(e, table_id=huge, fields=fields))
    db = tmp_path / "ledger.duckdb"
    _replay(db, write_events(events, tmp_path / "events" / "T01.avro"))
    with Ledger(db, read_only=True) as ledger:
        longest = ledger.con.execute(
            "SELECT max(length(table_id)), max(length(fields_json)) FROM deliveries"
        ).fetchone()
    assert longest is not None and max(longest) < 4 * MAX_DEVICE_STRING
    cuts = [f for f in _exceptions(db, "NJ-DATA-CONTRACT") if "longer than 1,024" in f[4]]
    named = {m.split(" carried a ")[1].split(" ")[0] for *_, m in cuts}
    assert {"table_id", "dealer_id"} <= named
    for *_, message in cuts:
        assert "2,097,152 characters" in message and "MAX_DEVICE_STRING" in message
    _closes(db, tmp_path / "reports")


# ---------------------------------------------------------------------- 4. seq 2**63 - 1
def test_a_wild_sequence_number_is_one_finding_not_thousands(
    day_events: list[TableEvent], tmp_path: Path
) -> None:
    events = list(day_events)
    middle = len(events) // 2
    wild = events[middle] = dataclasses.replace(events[middle], seq=2**63 - 1)
    db = tmp_path / "ledger.duckdb"
    _replay(db, write_events(events, tmp_path / "events" / "T01.avro"))
    assert _exceptions(db, "NJ-DATA-REORDERED") == []
    (found,) = [f for f in _exceptions(db, "NJ-DATA-CONTRACT") if wild.event_id in f[3]]
    assert "9,223,372,036,854,775,807" in found[4] and found[2] == wild.round_id
    gaps = _exceptions(db, "NJ-DATA-GAP")  # the seq it took the place of never came
    assert len(gaps) == 1 and f"never delivered seq {day_events[middle].seq} " in gaps[0][4]
    _closes(db, tmp_path / "reports")
