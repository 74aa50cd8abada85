"""The Great Expectations quality suites: a clean day meets every expectation; faults and
damaged rows fail exactly the expectations that describe them, with counts and the offending
rows; failures are reported, never raised."""

from __future__ import annotations

import json
import shutil
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.config.catalog import load_catalog
from pipeline.events import default_codec
from pipeline.ledger.quality_frames import STAKE_PAYLOADS, event_contract
from pipeline.ledger.store import LedgerError
from pipeline.quality.run import QualityReport, run_quality
from pipeline.simulate.faults import read_manifest

DAY = date(2026, 11, 24)


def failures(report: QualityReport) -> dict[tuple[str, str, str], list[Any]]:
    """(suite, frame, expectation type) -> the failing outcomes of that kind."""
    out: dict[tuple[str, str, str], list[Any]] = {}
    for f in report.failing():
        out.setdefault((f.suite, f.frame, f.expectation), []).append(f)
    return out


def test_event_contract_is_read_from_the_schema() -> None:
    codec = default_codec()
    contract = event_contract(codec)
    assert contract.payload_types == codec.payload_types
    assert contract.enums["WagerType"] >= {"BANKER", "PLAYER", "TIE"}
    assert contract.enums["Suit"] == {"CLUBS", "DIAMONDS", "HEARTS", "SPADES"}
    assert set(contract.enum_fields["wager"]) == {"WagerType"}
    assert "CardDealt" in contract.enum_fields["rank"]["Rank"]
    assert "IrregularityReported" in contract.enum_fields["card_rank"]["Rank"]
    assert {"amount_cents", "paid_cents", "min_wager_cents"} <= set(contract.cents_fields)
    assert set(STAKE_PAYLOADS) <= set(contract.cents_fields["amount_cents"])


def test_clean_day_meets_every_expectation(clean_ledger: Path, tmp_path: Path) -> None:
    report = run_quality(clean_ledger, DAY, tmp_path)

    assert report.success, [f.headline() for f in report.failing()]
    assert [s.name for s in report.suites] == ["raw_events", "ledger"]
    assert report.suite("raw_events").evaluated >= 30
    assert report.suite("ledger").evaluated >= 35
    assert report.failed == 0
    assert report.suite("raw_events").rows["form_serials"] > 0
    assert report.suite("ledger").rows["settlements"] > 0
    assert report.seconds > 0
    assert report.result_file == tmp_path / "quality-2026-11-24.json"
    written = json.loads(report.result_file.read_text())
    assert written["success"] is True
    assert written["evaluated"] == report.evaluated
    assert {s["name"]: s["failed"] for s in written["suites"]} == {"raw_events": 0, "ledger": 0}


def test_faulty_day_reports_duplicate_serials_and_device_faults(
    faulty_ledger: Path, tmp_path: Path
) -> None:
    report = run_quality(faulty_ledger, DAY, tmp_path)
    found = failures(report)
    faults = read_manifest(faulty_ledger.parent / "faults.jsonl")
    reused = {f.serial for f in faults if f.detail == "serial used twice"}
    twice = [f for f in faults if f.detail.endswith("delivered twice")]
    reordered = [f for f in faults if " delivered after seq " in f.detail]
    assert reused and twice and reordered, "faulty_seed() chose a day with these faults"

    assert not report.success
    (serials,) = found[("ledger", "comp_vig_forms", "expect_compound_columns_to_be_unique")]
    assert serials.unexpected_count == 2 * len(reused)
    assert {row["serial"] for row in serials.unexpected_rows} == reused
    assert "once per status" in (serials.description or "")

    (copies,) = found[("raw_events", "deliveries", "expect_column_values_to_be_unique")]
    assert copies.unexpected_count == 2 * len(twice)
    assert {r["event_id"] for r in copies.unexpected_rows} == {
        e for f in twice for e in f.event_ids
    }
    (steps,) = found[("raw_events", "events", "expect_column_values_to_be_between")]
    assert steps.kwargs["column"] == "seq_step"
    assert steps.unexpected_count == len(reordered)

    # Nothing else fails: the replay's own findings are not judged twice.
    assert set(found) <= {
        ("ledger", "comp_vig_forms", "expect_compound_columns_to_be_unique"),
        ("ledger", "form_events", "expect_compound_columns_to_be_unique"),
        ("raw_events", "deliveries", "expect_column_values_to_be_unique"),
        ("raw_events", "events", "expect_column_values_to_be_between"),
    }
    written = json.loads((tmp_path / "quality-2026-11-24.json").read_text())
    assert written["failed"] == report.failed == len(report.failing())


def _first(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[Any, ...]:
    row = con.execute(sql).fetchone()
    assert row is not None, sql
    return tuple(row)


def _set_field(con: duckdb.DuckDBPyConnection, source: str, pos: int, **fields: Any) -> None:
    (text,) = _first(
        con, f"SELECT fields_json FROM deliveries WHERE source = '{source}' AND position = {pos}"
    )
    con.execute(
        "UPDATE deliveries SET fields_json = ? WHERE source = ? AND position = ?",
        [json.dumps({**json.loads(text), **fields}), source, pos],
    )


def test_damaged_rows_fail_the_matching_expectations(clean_ledger: Path, tmp_path: Path) -> None:
    ledger = tmp_path / "damaged.duckdb"
    shutil.copy(clean_ledger, ledger)
    day = DAY
    rules = load_catalog()
    con = duckdb.connect(str(ledger))
    try:
        (rules_id,) = _first(
            con,
            "SELECT fields_json->>'$.rules_id' FROM deliveries "
            "WHERE table_id = 'T01' AND payload_type = 'TableOpened'",
        )
        over = rules[rules_id].max_wager_cents + 100
        wagers = con.execute(
            "SELECT source, position FROM deliveries WHERE table_id = 'T01' "
            "AND payload_type = 'WagerPlaced' ORDER BY position LIMIT 2"
        ).fetchall()
        _set_field(con, *wagers[0], amount_cents=over)  # above T01's maximum
        _set_field(con, *wagers[1], amount_cents=-500)  # negative, and below the minimum
        card = _first(
            con,
            "SELECT source, position FROM deliveries WHERE table_id = 'T02' "
            "AND payload_type = 'CardDealt' ORDER BY position LIMIT 1",
        )
        con.execute(  # two days after the gaming day
            "UPDATE deliveries SET occurred_at = occurred_at + ? WHERE source = ? AND position = ?",
            [int(timedelta(days=2).total_seconds() * 1_000_000), *card],
        )
        form = _first(
            con,
            "SELECT source, position FROM deliveries WHERE payload_type = 'CompVigFormIssued' "
            "ORDER BY position LIMIT 1",
        )
        _set_field(con, *form, serial=1)  # not in any series received
        closed = _first(
            con,
            "SELECT source, position FROM deliveries WHERE payload_type = 'TableClosed' "
            "ORDER BY source LIMIT 1",
        )
        con.execute(
            "UPDATE deliveries SET payload_type = 'Bogus' WHERE source = ? AND position = ?",
            list(closed),
        )
        con.execute(  # the same device seq again under a new event id, delivered last
            "INSERT INTO deliveries SELECT source, 1000000, "
            "'00000000-0000-4000-8000-000000000000', table_id, device_id, seq, occurred_at, "
            "gaming_date, payload_type, fields_json, occurrence FROM deliveries "
            "WHERE table_id = 'T01' AND payload_type = 'RoundStarted' ORDER BY position LIMIT 1"
        )
        (round_id,) = _first(
            con,
            "SELECT round_id FROM settlements WHERE table_id = 'T02' ORDER BY round_id LIMIT 1",
        )
        con.execute("DELETE FROM rounds WHERE table_id = 'T02' AND round_id = ?", [round_id])
        con.execute(
            "UPDATE settlements SET expected_paid_cents = 100 WHERE rowid = "
            "(SELECT min(rowid) FROM settlements WHERE expected_result = 'LOSE')"
        )
        con.execute(
            "INSERT INTO exceptions (exception_id, table_id, gaming_date, code, section, "
            "severity, severity_rank, message) VALUES ('x', 'T99', ?, 'NJ-TEST', '-', 'LOW', 1, "
            "'a finding for a table that never played')",
            [day],
        )
        (orphans,) = _first(
            con,
            f"SELECT count(*) FROM settlements WHERE table_id = 'T02' AND round_id = '{round_id}'",
        )
        (orphan_wagers,) = _first(
            con, f"SELECT count(*) FROM wagers WHERE table_id = 'T02' AND round_id = '{round_id}'"
        )
        (orphan_cards,) = _first(
            con, f"SELECT count(*) FROM cards WHERE table_id = 'T02' AND round_id = '{round_id}'"
        )
    finally:
        con.close()

    report = run_quality(ledger, day, tmp_path)
    by_description = {(f.frame, f.description): f for f in report.failing()}

    def failed(frame: str, description_part: str) -> int:
        hits = [
            f
            for (fr, d), f in by_description.items()
            if fr == frame and description_part in (d or "")
        ]
        assert len(hits) == 1, (frame, description_part, sorted(by_description))
        count = hits[0].unexpected_count
        assert count is not None
        return count

    assert failed("amounts", "stakes are within the limits of") == 2
    assert failed("amounts", "non-negative") == 1
    assert failed("deliveries", "device timestamps") == 1
    assert failed("deliveries", "payload_type is one of") == 1
    assert failed("form_serials", "series the table received") == 1
    assert failed("events", "(device_id, seq) is unique") == 2
    assert failed("events", "seq strictly increases") == 1
    assert failed("settlements", "round exists") == orphans
    assert failed("wagers", "round exists") == orphan_wagers
    assert failed("cards", "round exists") == orphan_cards
    assert failed("settlements", "paid nothing") == 1
    assert failed("exceptions", "table_day_summary") == 1
    assert report.failed == len(by_description) == 12
    limits = next(f for (fr, d), f in by_description.items() if "stakes are within" in (d or ""))
    assert sorted(limits.unexpected_sample) == [-500, over]
    assert "(N.J.A.C. 19:47-8.2)" in (limits.description or "")
    assert all(r["table_id"] == "T01" for r in limits.unexpected_rows)


def test_missing_ledger_is_an_error_not_a_finding(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="no ledger here yet"):
        run_quality(tmp_path / "none.duckdb", DAY, tmp_path)


def test_the_uncovered_bank_withdrawn_is_no_stake(clean_ledger: Path, tmp_path: Path) -> None:
    """N.J.A.C. 19:47-4.7(d): the part of a Chemin de Fer bank no player covered is withdrawn
    by the Banker (a PlayerBancoWager with action BANK_UNCOVERED_WITHDRAWN). It is an amount,
    not a stake, so a withdrawal under the table minimum fails no limit expectation; a
    partial wager of the same amount does."""
    ledger = tmp_path / "withdrawn.duckdb"
    shutil.copy(clean_ledger, ledger)
    con = duckdb.connect(str(ledger))
    try:
        rows = con.execute(
            "SELECT source, position FROM deliveries WHERE table_id = 'T01' "
            "AND payload_type = 'WagerPlaced' ORDER BY position LIMIT 2"
        ).fetchall()
        for (source, position), action in zip(
            rows, ("BANK_UNCOVERED_WITHDRAWN", "PARTIAL"), strict=True
        ):
            (text,) = _first(
                con,
                f"SELECT fields_json FROM deliveries WHERE source = '{source}' "
                f"AND position = {position}",
            )
            fields = {"round_id": json.loads(text)["round_id"], "seat": 1, "action": action}
            con.execute(
                "UPDATE deliveries SET payload_type = 'PlayerBancoWager', fields_json = ? "
                "WHERE source = ? AND position = ?",
                [json.dumps({**fields, "amount_cents": 1}), source, position],
            )
    finally:
        con.close()
    report = run_quality(ledger, DAY, tmp_path)
    (limits,) = [f for f in report.failing() if "stakes are within" in (f.description or "")]
    assert limits.unexpected_count == 1
    assert [r["payload_type"] for r in limits.unexpected_rows] == ["PlayerBancoWager"]


@pytest.mark.parametrize(("total_cards", "fails"), [(7, False), (8, True)])
def test_a_chemin_de_fer_misdeal_may_count_seven_cards(
    clean_ledger: Path, tmp_path: Path, total_cards: int, fails: bool
) -> None:
    """N.J.A.C. 19:47-4.12(b)-(d): a Chemin de Fer Banker's misdeal counted by the rule keeps
    the cards he took, up to 7 in the round (4.12(d): the Player's three and the Banker's
    four), so a round of 7 is no damaged row; 8 is more than any deal the replay writes."""
    ledger = tmp_path / f"cards-{total_cards}.duckdb"
    shutil.copy(clean_ledger, ledger)
    con = duckdb.connect(str(ledger))
    try:
        con.execute(
            "UPDATE rounds SET total_cards = ? WHERE round_id = "
            "(SELECT min(round_id) FROM rounds WHERE total_cards IS NOT NULL)",
            [total_cards],
        )
    finally:
        con.close()
    report = run_quality(ledger, DAY, tmp_path)
    failed = [
        f for f in report.failing() if f.frame == "rounds" and "cards" in (f.description or "")
    ]
    assert [f.unexpected_count for f in failed] == ([1] if fails else [])
