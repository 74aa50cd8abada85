"""The ledger's outbox of exception notices: a re-derived table-day's new exceptions are
RAISED once, the ones a later event explains are WITHDRAWN with their fields, and nothing
is announced twice however often the day is replayed."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from pipeline.ingest.pits import judge_pits
from pipeline.ledger.notices import (
    RAISED,
    WITHDRAWN,
    mark_delivered,
    mark_published,
    pending_notices,
    record_notices,
    register_alert_channel,
    undelivered_notices,
)
from pipeline.ledger.store import Ledger
from pipeline.replay.findings import Finding, Severity
from pipeline.replay.rows import ReplayResult
from tests.ledger.conftest import ledger_at_schema

DAY = date(2026, 11, 24)
SHORT = Finding(
    "PB-3.10b-SETTLEMENT", Severity.CRITICAL, "T01", "Player paid $10.00, owed $20.00",
    round_id="T01-R001", seat=3, expected_cents=2000, actual_cents=1000, event_ids=("e1", "e2"),
)  # fmt: skip
GAP = Finding("NJ-DATA-GAP", Severity.HIGH, "T01", "device D1 skipped seq 7", event_ids=("e3",))
OTHER_TABLE = Finding("NJ-DATA-GAP", Severity.HIGH, "T02", "device D2 skipped seq 9")


def derive(ledger: Ledger, table_id: str, *findings: Finding) -> int:
    """Replace the table-day's exceptions and record the notices, as the consumer does."""
    with ledger.transaction():
        ledger.replace_table_day(table_id, DAY, ReplayResult(table_id, findings=list(findings)))
        judge_pits(ledger)
        return record_notices(ledger, [(table_id, DAY)])


def test_new_exceptions_are_raised_once_and_explained_ones_withdrawn(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        assert derive(ledger, "T01", SHORT, GAP) == 2
        assert derive(ledger, "T01", SHORT, GAP) == 0, "a replay that changes nothing is quiet"
        assert derive(ledger, "T02", OTHER_TABLE) == 1
        assert derive(ledger, "T01", GAP) == 1, "only T01's own change: SHORT withdrawn"
        notices = pending_notices(ledger)
    assert [(n.notice_seq, n.state, n.table_id, n.code) for n in notices] == [
        (1, RAISED, "T01", "NJ-DATA-GAP"),
        (2, RAISED, "T01", "PB-3.10b-SETTLEMENT"),
        (3, RAISED, "T02", "NJ-DATA-GAP"),
        (4, WITHDRAWN, "T01", "PB-3.10b-SETTLEMENT"),
    ]
    withdrawn = notices[3]
    assert withdrawn.exception_id == SHORT.finding_id
    assert (withdrawn.round_id, withdrawn.seat, withdrawn.severity) == ("T01-R001", 3, "CRITICAL")
    assert (withdrawn.expected_cents, withdrawn.actual_cents) == (2000, 1000)
    assert withdrawn.source_event_ids == ("e1", "e2")
    assert withdrawn.section == SHORT.section and withdrawn.message == SHORT.message


def test_an_exception_found_again_after_its_withdrawal_is_raised_again(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        derive(ledger, "T01", SHORT)
        derive(ledger, "T01")
        derive(ledger, "T01", SHORT)
        derive(ledger, "T01", SHORT)
        states = [n.state for n in pending_notices(ledger)]
    assert states == [RAISED, WITHDRAWN, RAISED]


def test_published_notices_leave_the_outbox_and_a_rollback_keeps_none(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        derive(ledger, "T01", SHORT, GAP)
        first = pending_notices(ledger)[:1]
        mark_published(ledger, first, datetime.now(UTC))
        assert [n.code for n in pending_notices(ledger)] == ["PB-3.10b-SETTLEMENT"]
        try:
            with ledger.transaction():
                ledger.replace_table_day("T02", DAY, ReplayResult("T02", findings=[OTHER_TABLE]))
                judge_pits(ledger)
                record_notices(ledger, [("T02", DAY)])
                raise RuntimeError("the batch failed after the notices were written")
        except RuntimeError:
            pass
        assert [n.code for n in pending_notices(ledger)] == ["PB-3.10b-SETTLEMENT"]
        assert derive(ledger, "T02", OTHER_TABLE) == 1, "the rolled-back change comes again"


def test_a_ledger_from_before_the_outbox_migrates(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    ledger_at_schema(path, 7).close()
    with Ledger(path) as ledger:
        assert derive(ledger, "T01", GAP) == 1


def test_an_exception_of_the_round_in_play_waits_until_it_is_final(tmp_path: Path) -> None:
    def rederive(*provisional: str) -> int:
        with ledger.transaction():
            ledger.replace_table_day("T01", DAY, ReplayResult("T01", findings=[SHORT, GAP]))
            judge_pits(ledger)
            return record_notices(ledger, [("T01", DAY)], provisional)

    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        assert rederive(SHORT.finding_id) == 1, "only the gap: the payout may still be made"
        assert rederive() == 1, "the round ended: now the short payout is final"
        assert rederive(SHORT.finding_id) == 0, "raised, present: never withdrawn for that"
        notices = pending_notices(ledger)
    assert [(n.state, n.code) for n in notices] == [
        (RAISED, "NJ-DATA-GAP"),
        (RAISED, "PB-3.10b-SETTLEMENT"),
    ]


# ---------------------------------------------------------------------- alert deliveries
def test_an_alert_channel_delivers_what_it_has_not_from_when_it_was_first_seen(
    tmp_path: Path,
) -> None:
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        derive(ledger, "T01", GAP)
        mark_published(ledger, pending_notices(ledger), datetime.now(UTC))  # before any channel
        derive(ledger, "T01", GAP, SHORT)  # recorded, not published: a channel takes it
        register_alert_channel(ledger, "webhook A")
        derive(ledger, "T02", OTHER_TABLE)
        assert [n.code for n in undelivered_notices(ledger, "webhook A", 0)] == [
            "PB-3.10b-SETTLEMENT", "NJ-DATA-GAP",
        ]  # fmt: skip
        critical = undelivered_notices(ledger, "webhook A", Severity.CRITICAL)
        assert [n.code for n in critical] == ["PB-3.10b-SETTLEMENT"]
        gaps = undelivered_notices(ledger, "webhook A", 0, ["NJ-DATA-GAP"])
        assert [n.table_id for n in gaps] == ["T02"]

        mark_delivered(ledger, "webhook A", [critical[0].notice_seq], datetime.now(UTC))
        mark_delivered(ledger, "webhook A", [critical[0].notice_seq], datetime.now(UTC))
        assert [n.code for n in undelivered_notices(ledger, "webhook A", 0)] == ["NJ-DATA-GAP"]
        register_alert_channel(ledger, "webhook A")  # seen again: keeps its start
        assert len(undelivered_notices(ledger, "webhook A", 0)) == 1
        register_alert_channel(ledger, "e-mail B")  # its own start: the unpublished notices
        assert len(undelivered_notices(ledger, "e-mail B", 0)) == 2
        mark_published(ledger, pending_notices(ledger), datetime.now(UTC))
        register_alert_channel(ledger, "e-mail C")  # after everything was published: nothing
        assert undelivered_notices(ledger, "e-mail C", 0) == []
        delivered = ledger.con.execute(
            "SELECT channel, notice_seq FROM alert_deliveries"
        ).fetchall()
    assert delivered == [("webhook A", critical[0].notice_seq)], "marked once"


def test_a_ledger_from_before_alert_deliveries_migrates(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    con = ledger_at_schema(path, 9)
    con.close()
    with Ledger(path) as ledger:
        derive(ledger, "T01", GAP)
        register_alert_channel(ledger, "webhook A")
        assert [n.code for n in undelivered_notices(ledger, "webhook A", 0)] == ["NJ-DATA-GAP"]
