"""The acknowledgement journal: append-only, audited, tamper-evident, importable."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipeline.bundle.acks import AckJournal, JournalError, journal_path_for
from pipeline.ledger.store import Ledger

from .ledger import ledger_copy


def test_records_are_appended_with_who_when_what_why(tmp_path: Path) -> None:
    journal = AckJournal(tmp_path / "acks.jsonl")
    moment = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
    first = journal.append(
        exception_id="e1",
        action="escalate",
        note="  to the shift manager ",
        actor="analyst-7",
        table_id="T01",
        gaming_date="2026-11-24",
        now=moment,
    )
    second = journal.append(
        exception_id="e1", action="ACKNOWLEDGE", note="repaid", actor="mgr-2", actor_source="proxy"
    )
    assert (first.action, first.note, first.acted_at) == (
        "ESCALATE",
        "to the shift manager",
        "2026-11-24T09:30:00.000000+00:00",
    )
    assert second.prev_sha256 == first.sha256
    assert journal.records() == [first, second]
    assert journal.latest_actions()["e1"] == second
    assert journal.verify() == []
    lines = journal.path.read_text().splitlines()
    assert [json.loads(line)["actor"] for line in lines] == ["analyst-7", "mgr-2"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"exception_id": " "}, "which exception"),
        ({"action": "DELETE"}, "action must be one of"),
        ({"note": ""}, "a note"),
        ({"actor": ""}, "who acts"),
        ({"actor_source": "guess"}, "actor_source"),
    ],
)
def test_incomplete_records_are_refused(
    tmp_path: Path, changes: dict[str, str], message: str
) -> None:
    journal = AckJournal(tmp_path / "acks.jsonl")
    fields = {"exception_id": "e1", "action": "ACKNOWLEDGE", "note": "ok", "actor": "a"}
    with pytest.raises(JournalError, match=message):
        journal.append(**{**fields, **changes})  # type: ignore[arg-type]
    assert journal.records() == []


def test_edits_removals_and_reordering_break_the_chain(tmp_path: Path) -> None:
    journal = AckJournal(tmp_path / "acks.jsonl")
    for i in range(3):
        journal.append(exception_id=f"e{i}", action="ACKNOWLEDGE", note="ok", actor="a")
    lines = journal.path.read_text().splitlines()
    original = list(lines)

    edited = json.loads(lines[1])
    edited["actor"] = "someone else"
    lines[1] = json.dumps(edited)
    journal.path.write_text("\n".join(lines) + "\n")
    assert any("line 2: content changed" in p for p in journal.verify())

    journal.path.write_text("\n".join([original[0], original[2]]) + "\n")
    assert any("line 2: chain broken" in p for p in journal.verify())

    journal.path.write_text("\n".join([original[1], original[0], original[2]]) + "\n")
    assert journal.verify()

    journal.path.write_text("\n".join([*original, "garbage"]) + "\n")
    assert journal.verify() == ["acks.jsonl line 4: not an acknowledgement record"]
    assert len(journal.records()) == 3


def test_concurrent_appends_keep_one_chain(tmp_path: Path) -> None:
    journal = AckJournal(tmp_path / "acks.jsonl")

    def work(worker: int) -> None:
        mine = AckJournal(journal.path)  # each session opens its own handle
        for i in range(10):
            mine.append(exception_id=f"e{worker}-{i}", action="ESCALATE", note="n", actor="a")

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(journal.records()) == 80
    assert journal.verify() == []


def test_import_into_the_ledger_is_idempotent(tmp_path: Path) -> None:
    db = ledger_copy(tmp_path)
    journal = AckJournal.for_ledger(db)
    assert journal.path == tmp_path / "ledger.acknowledgements.jsonl"
    journal.append(exception_id="e1", action="ESCALATE", note="look", actor="a")
    journal.append(exception_id="e1", action="ACKNOWLEDGE", note="fine", actor="b")
    with Ledger(db) as ledger:
        assert journal.import_into(ledger.con) == 2
        assert journal.import_into(ledger.con) == 0
        rows = ledger.con.execute(
            "SELECT exception_id, action, note, actor FROM acknowledgements ORDER BY acted_at"
        ).fetchall()
    assert rows == [("e1", "ESCALATE", "look", "a"), ("e1", "ACKNOWLEDGE", "fine", "b")]


def test_journal_location_can_be_overridden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BACCARAT_ACKS", raising=False)
    assert journal_path_for("out/ledger.duckdb") == Path("out/ledger.acknowledgements.jsonl")
    monkeypatch.setenv("BACCARAT_ACKS", str(tmp_path / "elsewhere.jsonl"))
    assert journal_path_for("out/ledger.duckdb") == tmp_path / "elsewhere.jsonl"


def test_import_fills_the_audit_columns_a_migration_adds(tmp_path: Path) -> None:
    db = ledger_copy(tmp_path)
    journal = AckJournal.for_ledger(db)
    record = journal.append(exception_id="e1", action="ACKNOWLEDGE", note="ok", actor="a")
    with Ledger(db) as ledger:
        for column in ("ack_id", "actor_source", "record_sha256"):
            ledger.con.execute(f"ALTER TABLE acknowledgements ADD COLUMN {column} VARCHAR")
        assert journal.import_into(ledger.con) == 1
        assert journal.import_into(ledger.con) == 0
        rows = ledger.con.execute(
            "SELECT ack_id, actor_source, record_sha256 FROM acknowledgements"
        ).fetchall()
    assert rows == [(record.ack_id, "self-declared", record.sha256)]
