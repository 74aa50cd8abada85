"""A stored payload that is not JSON the gate can read (a hand-edited or damaged ledger: the
ingest writes ``fields_json`` itself) is a finding of the expectation "payload fields are
stored as JSON", naming its rows; the frames that read fields out of payloads go on without
it, so every other expectation is still evaluated and the close reports the finding instead
of stopping on DuckDB's ``Malformed JSON``."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import duckdb
import pytest

from pipeline.cli import main
from pipeline.ledger.quality_json import is_ledger_json, suspect_sql
from pipeline.quality.run import ExpectationOutcome, QualityReport, run_quality

DAY = date(2026, 11, 24)
JSON_EXPECTATION = "raw_events.deliveries: payload fields are stored as JSON"
BROKEN = (
    "{not json",
    '{"amount": NaN}',
    '{"amount_cents": NaN}',
    '{"amount_cents": "abc"}',
    '{"amount_cents": 1.5}',
    '{"amount_cents": "abc", "amount_cents": 1}',
)
"""DuckDB refuses the first; it reads the others, but ``NaN`` is not JSON and not cents,
neither ``"abc"`` nor ``1.5`` is cents (a cast would stop the gate or round it), and the last
is cents to Python and ``"abc"`` to DuckDB."""
NOT_INTEGERS = (
    '{"amount_cents": true}',
    '{"amount_cents": {}}',
    '{"amount_cents": 1e400}',
    '{"paid_cents": 9223372036854775808}',
    '{"serial": "7"}',
    '{"first_serial": 7.0}',
    '{"amount\\u005fcents": -1.5}',
)
"""Valid JSON whose integer fields hold something else."""
REPEATED_KEYS = (
    '{"amount_cents": "abc", "amount_cents": 1}',
    '{"amount_cents": 1, "amount_cents": 2}',
    '{"wager": "BANKER", "seat": 1, "wager": "TIE"}',
)
"""Valid JSON naming a key twice: DuckDB reads the first value, Python the last, so each side
would check another payload."""
READABLE = (
    '{"amount_cents": 500}',
    '{"amount_cents": null, "serial": -9223372036854775808}',
    '{"note": "amount_cents\\": 1.5", "nested": {"serial": "x"}}',
    '{"nested": {"a": 1, "a": 2}, "amount_cents": 5}',
)


def _break_payloads(db: Path) -> list[dict[str, object]]:
    """Overwrite the payload of a TableOpened and of five wagers with :data:`BROKEN` values;
    the rows edited, as they were."""
    con = duckdb.connect(str(db))
    try:
        picked = con.execute(
            "(SELECT source, position, table_id, fields_json FROM deliveries "
            " WHERE payload_type = 'TableOpened' ORDER BY source, position LIMIT 1) "
            "UNION ALL (SELECT source, position, table_id, fields_json FROM deliveries "
            " WHERE payload_type = 'WagerPlaced' ORDER BY source, position LIMIT 5)"
        ).fetchall()
        edited = []
        for (source, position, table_id, before), broken in zip(picked, BROKEN, strict=True):
            con.execute(
                "UPDATE deliveries SET fields_json = ? WHERE source = ? AND position = ?",
                [broken, source, position],
            )
            edited.append(
                {"source": source, "position": position, "table_id": table_id, "was": before}
            )
        return edited
    finally:
        con.close()


def _outcome(report: QualityReport, name: str) -> ExpectationOutcome:
    (found,) = [e for s in report.suites for e in s.expectations if e.name == name]
    return found


@pytest.fixture
def broken_ledger(clean_ledger: Path, tmp_path: Path) -> tuple[Path, list[dict[str, object]]]:
    db = tmp_path / "ledger.duckdb"
    shutil.copy(clean_ledger, db)
    return db, _break_payloads(db)


def test_the_broken_values_are_not_ledger_json() -> None:
    refused, kept = (*BROKEN, *NOT_INTEGERS, *REPEATED_KEYS), READABLE
    assert [is_ledger_json(v) for v in (*refused, *kept)] == [False] * len(refused) + [True] * len(
        kept
    )
    # the SQL names every refused value as a candidate, or the gate would never check it
    con = duckdb.connect()
    suspected = con.execute(
        f"SELECT {suspect_sql('v')} FROM unnest(?::VARCHAR[]) t(v)", [list(refused)]
    ).fetchall()
    assert suspected == [(True,)] * len(refused)


def test_unreadable_payloads_fail_their_expectation_and_the_rest_is_evaluated(
    clean_ledger: Path,
    broken_ledger: tuple[Path, list[dict[str, object]]],
    tmp_path: Path,
) -> None:
    db, edited = broken_ledger
    clean = run_quality(clean_ledger, DAY, tmp_path / "clean")
    report = run_quality(db, DAY, tmp_path / "broken")

    found = _outcome(report, JSON_EXPECTATION)
    assert not found.success and found.level == "BLOCK"
    assert found.unexpected_count == len(BROKEN)
    assert sorted(found.unexpected_sample) == sorted(BROKEN)
    assert sorted((r["table_id"], r["source"], r["position"]) for r in found.unexpected_rows) == (
        sorted((e["table_id"], e["source"], e["position"]) for e in edited)
    )
    # every other expectation still ran, but the stake limits of the rules only the table
    # whose TableOpened is unreadable plays: without it the table has no rules
    names = {e.name for s in report.suites for e in s.expectations}
    missing = {e.name for s in clean.suites for e in s.expectations} - names
    (limits,) = missing
    assert limits.split(": ", 1)[1].startswith("stakes are within the limits of ")
    assert report.verdict == "BLOCKED" and found in report.blocking()
    opened = _outcome(report, "raw_events.table_days: every table-day opens with a TableOpened")
    assert not opened.success
    assert [r["table_id"] for r in opened.unexpected_rows] == [edited[0]["table_id"]]
    wager_cents = sum(
        1
        for e in edited
        for k, v in json.loads(str(e["was"])).items()
        if k.endswith("_cents") and v is not None
    )
    raw, clean_raw = report.suite("raw_events"), clean.suite("raw_events")
    assert raw.rows["amounts"] == clean_raw.rows["amounts"] - wager_cents
    assert raw.rows["deliveries"] == clean_raw.rows["deliveries"]


def test_the_close_reports_unreadable_payloads_where_they_are(
    broken_ledger: tuple[Path, list[dict[str, object]]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db, edited = broken_ledger
    reports = tmp_path / "reports"
    close = ["close", "--db", str(db), "--gaming-day", DAY.isoformat(), "--out", str(reports)]

    assert main([*close, "--actor", "demo-controller"]) == 1
    refusal = capsys.readouterr().err
    assert "is not closed" in refusal
    assert f"{JSON_EXPECTATION}: {len(BROKEN)} of " in refusal
    for e in edited[:2]:  # the refusal quotes the first rows; the JSON file has every one
        assert f"'table_id': '{e['table_id']}'" in refusal
        assert f"'source': '{e['source']}', 'position': {e['position']}" in refusal
    assert "why it blocks: the Avro decoder stores every envelope field" in refusal
    written = json.loads((reports / "quality-2026-11-24.json").read_text())
    (failure,) = [
        f
        for s in written["suites"]
        for f in s["failures"]
        if f["description"] == "payload fields are stored as JSON"
    ]
    assert sorted(failure["unexpected_sample"]) == sorted(BROKEN)


def test_the_frame_holds_stand_ins_but_gx_sees_the_real_payloads(clean_ledger: Path) -> None:
    """The deliveries frame keeps a payload only where its JSON check must decide (a stand-in
    that passes elsewhere); the rows shown to GX carry the payloads the ledger holds."""
    from pipeline.config.catalog import load_catalog
    from pipeline.events import default_codec
    from pipeline.ledger.quality_frames import event_contract, raw_event_frames, table_days
    from pipeline.ledger.store import Ledger

    with Ledger(clean_ledger, read_only=True) as ledger:
        con = ledger.con
        frames = raw_event_frames(
            ledger, DAY, event_contract(default_codec()), table_days(ledger, DAY, load_catalog())
        )
        try:
            table = frames.tables["deliveries"]
            ((kept,),) = con.execute(
                f"SELECT count(*) FROM {table} WHERE fields_json <> '{{}}'"
            ).fetchall()
            assert kept == 0  # a clean day: every payload vouched for by the SQL check
            rows = [r for (r,) in con.execute(f"SELECT rowid FROM {table} LIMIT 3").fetchall()]
            shown = frames.rows_at("deliveries", rows)
            real = dict(
                con.execute(
                    f"SELECT f.event_id, d.fields_json FROM {table} f "
                    "JOIN deliveries d ON d.rowid = f.quality_source_row "
                    "WHERE f.rowid IN (SELECT unnest(?::BIGINT[]))",
                    [rows],
                ).fetchall()
            )
            assert dict(zip(shown["event_id"], shown["fields_json"], strict=True)) == real
            assert all(json.loads(text) for text in real.values())
            assert "quality_source_row" not in shown.columns
        finally:
            frames.drop()
