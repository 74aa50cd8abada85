"""The acknowledgement journal attacked as the record's keys and witnesses are meant to stop:
each change made with the journal file alone, without the installation's journal key, is
named by ``verify`` (checked against the witness) and refused by the close."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline.bundle.acks import AckJournal, JournalError
from pipeline.ledger.store import Ledger
from pipeline.reports.verify import check
from pipeline.witness.record import NotWitnessedError

SOURCE = "command line"


def _ledger(where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    db = where / "ledger.duckdb"
    Ledger(db).close()
    return db


def _journal(db: Path) -> AckJournal:
    with Ledger(db, read_only=True) as ledger:
        return AckJournal.for_ledger(db, ledger.ledger_id)


def _act(journal: AckJournal, *actions: tuple[str, str]) -> None:
    for exception_id, action in actions:
        journal.append(
            exception_id=exception_id, action=action, note="n", actor="a", actor_source=SOURCE
        )


def _verify(db: Path) -> list[str]:
    with Ledger(db, read_only=True) as ledger:
        return list(check(ledger).problems)


def _close_refuses(db: Path, journal: AckJournal) -> str:
    with Ledger(db) as ledger, pytest.raises(JournalError) as refused:
        journal.import_into(ledger.con)
    return str(refused.value)


def test_an_intact_journal_verifies_against_the_witness(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    _act(_journal(db), ("e1", "ESCALATE"), ("e2", "ACKNOWLEDGE"))
    assert _verify(db) == []


def test_deleting_the_last_escalation_is_caught_by_the_witness(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    journal = _journal(db)
    _act(journal, ("e1", "ACKNOWLEDGE"), ("e2", "ACKNOWLEDGE"), ("e1", "ESCALATE"))
    lines = journal.path.read_text().splitlines(keepends=True)
    journal.path.write_text("".join(lines[:-1]))  # a valid, shorter chain
    assert journal.verify() == [], "the chain alone cannot tell"
    problems = _verify(db)
    assert (
        problems == [p for p in problems if "cut short or rolled back" in p]
        and "checkpoint of 3 entries" in problems[0]
        and "the ledger has 2" in problems[0]
    )
    assert "cut short or rolled back" in _close_refuses(db, journal)


def test_restoring_an_older_journal_is_caught_grown_again_or_not(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    journal = _journal(db)
    _act(journal, ("e1", "ACKNOWLEDGE"))
    older = journal.path.read_bytes()
    _act(journal, ("e1", "ESCALATE"), ("e2", "ESCALATE"))
    journal.path.write_bytes(older)
    assert any("checkpoint of 3 entries" in p for p in _verify(db))
    # grown again from the old copy: the witness refuses the fork, loudly
    with pytest.raises(NotWitnessedError, match="truncation or rollback"):
        _act(journal, ("e2", "ACKNOWLEDGE"))
    problems = _verify(db)
    assert any("cut short or rolled back" in p or "rewritten or forked" in p for p in problems)
    assert any("the witness refused a checkpoint" in p for p in problems)


def test_a_training_copys_journal_copied_over_productions_is_named_and_refused(
    tmp_path: Path,
) -> None:
    production = _ledger(tmp_path / "production")
    training = _ledger(tmp_path / "training")
    _act(_journal(production), ("e1", "ESCALATE"))
    trained = _journal(training)
    _act(trained, ("e1", "ACKNOWLEDGE"), ("e2", "ACKNOWLEDGE"))
    target = _journal(production)
    shutil.copyfile(trained.path, target.path)
    with Ledger(training, read_only=True) as ledger:
        training_id = ledger.ledger_id
    problems = _verify(production)
    named = [p for p in problems if f"acknowledges in ledger {training_id}, not this one" in p]
    assert [p.split(":")[0] for p in named] == [
        "ledger.acknowledgements.jsonl line 1",
        "ledger.acknowledgements.jsonl line 2",
    ]
    assert any("rewritten or forked" in p for p in problems), "the witness: not its history"
    assert "a training copy?" in _close_refuses(production, target)


def test_a_line_forged_without_the_key_is_named(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    journal = _journal(db)
    _act(journal, ("e1", "ESCALATE"))
    last = json.loads(journal.path.read_text().splitlines()[-1])
    forged = {**last, "action": "ACKNOWLEDGE", "ack_id": "f" * 32, "prev_link": last["link"]}
    with journal.path.open("a") as fo:
        fo.write(json.dumps(forged) + "\n")
    problems = _verify(db)
    assert any(
        p.startswith("ledger.acknowledgements.jsonl line 2: ACKNOWLEDGE of exception e1")
        and "not signed by the installation's journal key" in p
        for p in problems
    )
    assert any("entries 2-2 are not witnessed" in p for p in problems)
    assert "line 2" in _close_refuses(db, journal)


def test_an_append_without_the_journal_key_writes_nothing(tmp_path: Path) -> None:
    from pipeline.config.installation import InstallationError, installation

    db = _ledger(tmp_path)
    journal = _journal(db)
    installation().private_key_path("journal").unlink()
    with pytest.raises(InstallationError, match="journal signing key is missing"):
        _act(journal, ("e1", "ACKNOWLEDGE"))
    assert not journal.path.exists() or journal.path.read_text() == ""


def test_an_append_without_the_ledgers_id_is_refused(tmp_path: Path) -> None:
    journal = AckJournal(tmp_path / "acks.jsonl")
    with pytest.raises(JournalError, match="the ledger's id is required"):
        _act(journal, ("e1", "ACKNOWLEDGE"))
