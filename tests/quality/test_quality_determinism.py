"""A day's stored quality results are fixed by its data: validated twice, on one DuckDB thread
or two, or from a ledger holding the same rows in another order, the gate stores the same
outcomes byte for byte. The failing rows a result quotes (GX's sample values and offending
rows) are the first in each frame's order, so that order must be total: DuckDB's sort is not
stable, and rows equal in the frame's natural order (exceptions of one table and code, a
seat's wagers of one round) would otherwise come out in whatever order the sort left them."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.config.catalog import load_catalog
from pipeline.ledger import quality_frames as frames
from pipeline.ledger.quality_measures import SAMPLE
from pipeline.ledger.store import Ledger
from pipeline.quality.gate import store_result
from pipeline.quality.run import validate_day

DAY = date(2026, 11, 24)
TIED = SAMPLE + 10
"""Failing rows tied in their frame's natural order: more than a result quotes."""


def _with_tied_failures(faulty_ledger: Path, out: Path, *, reverse: bool) -> Path:
    """A copy of the faulty day with :data:`TIED` exceptions of one table and code, two
    wagers per seat of one round, and :data:`TIED` negative wagers of one seat and kind (equal
    on every key a wager is ordered by: only their amounts tell them apart), all failing,
    inserted in order or in reverse order."""
    shutil.copy(faulty_ledger, out)
    with Ledger(out) as ledger:
        ((table_id, round_id),) = ledger.con.execute(
            "SELECT table_id, min(round_id) FROM rounds WHERE gaming_date = ? "
            "GROUP BY table_id ORDER BY table_id LIMIT 1",
            [DAY],
        ).fetchall()
        exceptions = [
            (f"tied-{i:02d}", table_id, DAY, "NJ-TIED", "19:47-1.1", "UNHEARD_OF", 1,
             f"R-tied-{i:02d}", f"exception {i}")
            for i in range(TIED)
        ]  # fmt: skip
        wagers = [
            (table_id, DAY, round_id, seat, f"NO_SUCH_WAGER_{kind}", 100)
            for seat in range(1, 6)
            for kind in "AB"
        ]
        wagers += [(table_id, DAY, round_id, 6, "BANKER", -cents) for cents in range(1, TIED + 1)]
        for rows in (exceptions, wagers):
            rows.sort(reverse=reverse)
        with ledger.transaction():
            ledger.con.executemany(
                "INSERT INTO exceptions (exception_id, table_id, gaming_date, code, section, "
                "severity, severity_rank, round_id, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                exceptions,
            )
            ledger.con.executemany(
                "INSERT INTO wagers (table_id, gaming_date, round_id, seat, wager, amount_cents) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                wagers,
            )
    return out


def _stored(db: Path, threads: int) -> tuple[str, dict[str, Any]]:
    """Validate the day on ``threads`` DuckDB threads and store the result; the stored
    outcomes as stored, and the stored summary without timings and paths."""
    with Ledger(db) as ledger:
        ledger.con.execute(f"SET threads = {threads}")
        report = validate_day(ledger, DAY, load_catalog())
        with ledger.transaction():
            store_result(ledger, report)
        (outcomes, summary) = ledger.con.execute(
            "SELECT expectations_json, summary_json FROM quality_results "
            "ORDER BY validated_at DESC LIMIT 1"
        ).fetchone() or (None, None)
    assert outcomes is not None and summary is not None
    data = json.loads(summary)
    for volatile in ("ledger", "seconds", "files"):
        data.pop(volatile)
    for suite in data["suites"]:
        suite.pop("seconds")
    return outcomes, data


def test_stored_results_are_the_same_whatever_the_threads_and_storage_order(
    faulty_ledger: Path, tmp_path: Path
) -> None:
    forward = _with_tied_failures(faulty_ledger, tmp_path / "forward.duckdb", reverse=False)
    backward = _with_tied_failures(faulty_ledger, tmp_path / "backward.duckdb", reverse=True)

    first = _stored(forward, threads=2)
    again = _stored(forward, threads=2)
    one_thread = _stored(forward, threads=1)
    reordered = _stored(backward, threads=2)

    assert again == first
    assert one_thread == first
    assert reordered == first
    quoted = {
        (o["frame"], o["kwargs"].get("column")): o
        for o in json.loads(first[0])
        if not o["success"] and o["suite"] == "ledger"
    }
    # the ties really are among the failures a result quotes: the first SAMPLE of TIED
    assert [r["round_id"] for r in quoted["exceptions", "severity"]["unexpected_rows"]] == [
        f"R-tied-{i:02d}" for i in range(SAMPLE)
    ]
    assert quoted["wagers", "wager"]["unexpected_sample"][:4] == [
        "NO_SUCH_WAGER_A",
        "NO_SUCH_WAGER_B",
        "NO_SUCH_WAGER_A",
        "NO_SUCH_WAGER_B",
    ]
    # rows equal on every key but the amount are ordered by it too (lowest first)
    negative = quoted["wagers", "amount_cents"]["unexpected_sample"]
    assert negative == list(range(-TIED, -TIED + SAMPLE))


def test_a_deliveries_frame_built_a_source_at_a_time_gives_the_same_results(
    faulty_ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deliveries frame is built in batches of whole sources; each source a batch of its
    own, the stored results are those of one batch (arrival places continue across batches,
    copies of an event are numbered across them)."""
    db = _with_tied_failures(faulty_ledger, tmp_path / "ledger.duckdb", reverse=False)
    with Ledger(db, read_only=True) as ledger:
        ((sources,),) = ledger.con.execute(
            "SELECT count(DISTINCT source) FROM deliveries WHERE gaming_date = ?", [DAY]
        ).fetchall()
    assert sources > 1, "the day must have several sources to batch"

    whole = _stored(db, threads=2)
    monkeypatch.setattr(frames, "FRAME_BATCH", 1)
    batched = _stored(db, threads=2)

    assert batched == whole
    duplicates = next(
        o
        for o in json.loads(whole[0])
        if o["frame"] == "deliveries"
        and o["kwargs"].get("column") == "event_id"
        and o["expectation"] == "expect_column_values_to_be_unique"
    )
    assert duplicates["unexpected_count"] > 0  # copies were numbered, in both
