"""The acknowledgement journal: append-only, audited, authenticated, importable, and refused
whole when anything in it cannot be vouched for."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from pipeline.bundle.acks import (
    GENESIS,
    AckJournal,
    JournalError,
    journal_path_for,
    journal_problems,
)
from pipeline.config.installation import INSTALLATION_ENV
from pipeline.ledger.store import Ledger
from pipeline.witness.provision import init_demo_installation

SOURCE = "command line"
LEDGER_ID = "ledger-under-test"


def _new(tmp_path: Path, ledger_id: str = LEDGER_ID) -> AckJournal:
    """A journal of a ledger ``ledger_id`` at ``tmp_path/ledger.duckdb``."""
    return AckJournal(
        tmp_path / "acks.jsonl", ledger_id=ledger_id, ledger=tmp_path / "ledger.duckdb"
    )


def _journal(tmp_path: Path, *actions: tuple[str, str]) -> AckJournal:
    journal = _new(tmp_path)
    for exception_id, action in actions:
        journal.append(
            exception_id=exception_id, action=action, note="n", actor="a", actor_source=SOURCE
        )
    return journal


def _lines(journal: AckJournal) -> list[str]:
    return journal.path.read_text().splitlines()


def _write(journal: AckJournal, lines: list[str]) -> None:
    journal.path.write_text("".join(f"{line}\n" for line in lines))


def _unkeyed_line(previous: str, **changes: str) -> tuple[str, str]:
    """A record as the journal wrote it before lines were authenticated (and as anyone can
    write one): content plus a correct SHA-256 chain; returns (line, its sha256)."""
    body = {
        "ack_id": "f" * 32,
        "exception_id": "e1",
        "action": "ACKNOWLEDGE",
        "note": "explained",
        "actor": "mallory",
        "actor_source": "self-declared",
        "acted_at": "2026-11-24T10:00:00.000000+00:00",
        "table_id": "T01",
        "gaming_date": "2026-11-24",
        "prev_sha256": previous,
        **changes,
    }
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
    body["sha256"] = digest.hexdigest()
    return json.dumps(body, sort_keys=True), digest.hexdigest()


def test_records_are_appended_with_who_when_what_why_and_where_the_name_came_from(
    tmp_path: Path,
) -> None:
    journal = _new(tmp_path)
    moment = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
    first = journal.append(
        exception_id="e1",
        action="escalate",
        note="  to the shift manager ",
        actor="analyst-7",
        actor_source="environment BACCARAT_ACTOR",
        table_id="T01",
        gaming_date="2026-11-24",
        now=moment,
    )
    second = journal.append(
        exception_id="e1",
        action="ACKNOWLEDGE",
        note="repaid",
        actor="mgr-2",
        actor_source="proxy header X-Forwarded-User from 127.0.0.1",
    )
    assert (first.action, first.note, first.acted_at, first.prev_link) == (
        "ESCALATE",
        "to the shift manager",
        "2026-11-24T09:30:00.000000+00:00",
        GENESIS,
    )
    assert second.prev_link == first.link
    assert journal.records() == [first, second]
    assert journal.verify() == []
    assert [json.loads(line)["actor_source"] for line in _lines(journal)] == [
        "environment BACCARAT_ACTOR",
        "proxy header X-Forwarded-User from 127.0.0.1",
    ]


def test_the_last_action_stands(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e1", "ACKNOWLEDGE"), ("e2", "ESCALATE"), ("e1", "ESCALATE"))
    assert {e: r.action for e, r in journal.latest_actions().items()} == {
        "e1": "ESCALATE",
        "e2": "ESCALATE",
    }


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"exception_id": " "}, "which exception"),
        ({"action": "DELETE"}, "action must be one of"),
        ({"note": "  "}, "a note"),
        ({"actor": ""}, "who acts"),
        ({"actor_source": ""}, "where the actor's name came from"),
    ],
)
def test_incomplete_records_are_refused(
    tmp_path: Path, changes: dict[str, str], message: str
) -> None:
    journal = _new(tmp_path)
    given = {
        "exception_id": "e1",
        "action": "ACKNOWLEDGE",
        "note": "ok",
        "actor": "a",
        "actor_source": SOURCE,
    }
    with pytest.raises(JournalError, match=message):
        journal.append(**{**given, **changes})  # type: ignore[arg-type]
    assert journal.records() == []


# ---------------------------------------------------------------------- the forgery matrix
def test_an_escalation_edited_into_an_acknowledgement_is_named(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e0", "ACKNOWLEDGE"), ("e1", "ESCALATE"), ("e2", "ESCALATE"))
    lines = _lines(journal)
    edited = json.loads(lines[1])
    edited["action"] = "ACKNOWLEDGE"
    lines[1] = json.dumps(edited, sort_keys=True, separators=(",", ":"))
    _write(journal, lines)
    assert journal.verify() == [
        "acks.jsonl line 2: ACKNOWLEDGE of exception e1 by a is not signed by the "
        "installation's journal key: written without it, or changed after it was written"
    ]


def test_a_line_signed_with_another_installations_key_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = _journal(tmp_path, ("e0", "ESCALATE"))
    ours = os.environ[INSTALLATION_ENV]
    # an attacker's own installation of the program: a journal key of its own
    monkeypatch.setenv(INSTALLATION_ENV, str(init_demo_installation(tmp_path / "mine").root))
    journal.append(
        exception_id="e0", action="ACKNOWLEDGE", note="n", actor="mallory", actor_source=SOURCE
    )
    monkeypatch.setenv(INSTALLATION_ENV, ours)
    problems = journal.verify()
    assert problems == [
        "acks.jsonl line 2: ACKNOWLEDGE of exception e0 by mallory is not signed by the "
        "installation's journal key: written without it, or changed after it was written"
    ]


def test_appended_lines_with_a_correct_unkeyed_sha256_chain_are_named(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e1", "ESCALATE"))
    first, digest = _unkeyed_line(GENESIS)
    second, _ = _unkeyed_line(digest, ack_id="e" * 32, exception_id="e2")
    _write(journal, [*_lines(journal), first, second])
    problems = journal.verify()
    assert [p.split(":")[0] for p in problems] == ["acks.jsonl line 2", "acks.jsonl line 3"]
    assert all("an unkeyed record" in p for p in problems)
    assert journal.latest_actions()["e1"].action == "ESCALATE"


def test_a_line_written_as_a_keyed_record_without_the_key_is_named(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e1", "ESCALATE"))
    forged = json.loads(_lines(journal)[0])
    forged.update(action="ACKNOWLEDGE", prev_link=forged["link"], signature="0" * 128)
    _write(journal, [*_lines(journal), json.dumps(forged)])
    assert [p.split(":")[0] for p in journal.verify()] == ["acks.jsonl line 2"]


def test_a_deleted_line_is_named_by_the_line_after_it(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e0", "ESCALATE"), ("e1", "ESCALATE"), ("e2", "ESCALATE"))
    lines = _lines(journal)
    _write(journal, [lines[0], lines[2]])
    assert journal.verify() == [
        "acks.jsonl line 2: ESCALATE of exception e2 by a is out of its chain: a line before "
        "it was removed, or the lines were reordered"
    ]
    _write(journal, lines[1:])
    assert [p.split(":")[0] for p in journal.verify()] == ["acks.jsonl line 1"]


def test_reordered_lines_are_named(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e0", "ESCALATE"), ("e1", "ACKNOWLEDGE"), ("e1", "ESCALATE"))
    lines = _lines(journal)
    _write(journal, [lines[0], lines[2], lines[1]])
    assert [p.split(":")[0] for p in journal.verify()] == [
        "acks.jsonl line 2",
        "acks.jsonl line 3",
    ]


def test_a_replayed_authentic_line_is_named(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e1", "ACKNOWLEDGE"), ("e1", "ESCALATE"))
    lines = _lines(journal)
    _write(journal, [*lines, lines[0]])  # the old acknowledgement again, to have the last word
    assert [p.split(":")[0] for p in journal.verify()] == ["acks.jsonl line 3"]


def test_garbage_is_named_and_skipped(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e1", "ESCALATE"))
    mistyped = [json.loads(_lines(journal)[0]) for _ in range(3)]
    mistyped[0]["note"] = ["a", "list"]
    mistyped[1]["acted_at"] = "yesterday"
    mistyped[2]["link"] = None
    _write(journal, [*_lines(journal), "garbage", "[1, 2]", *map(json.dumps, mistyped)])
    assert journal.verify() == [
        f"acks.jsonl line {n}: not an acknowledgement record" for n in range(2, 7)
    ]
    assert len(journal.records()) == 1


def test_concurrent_appends_keep_one_chain(tmp_path: Path) -> None:
    journal = _new(tmp_path)

    def work(worker: int) -> None:
        mine = AckJournal(
            journal.path, ledger_id=LEDGER_ID, ledger=journal.ledger
        )  # each session opens its own handle
        for i in range(10):
            mine.append(
                exception_id=f"e{worker}-{i}",
                action="ESCALATE",
                note="n",
                actor="a",
                actor_source=SOURCE,
            )

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(journal.records()) == 80
    assert journal.verify() == []


# ---------------------------------------------------------------------- into the ledger
def _ledger(tmp_path: Path) -> Path:
    db = tmp_path / "ledger.duckdb"
    Ledger(db).close()
    return db


def _of(db: Path) -> AckJournal:
    """The journal of the ledger ``db``, bound to its id, as the CLI opens it."""
    with Ledger(db, read_only=True) as ledger:
        return AckJournal.for_ledger(db, ledger.ledger_id)


def _imported(db: Path) -> list[tuple[str | None, ...]]:
    with Ledger(db, read_only=True) as ledger:
        return ledger.con.execute(
            "SELECT exception_id, action, actor, actor_source FROM acknowledgements "
            "ORDER BY acted_at"
        ).fetchall()


def test_import_into_the_ledger_is_idempotent_and_keeps_the_record(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    journal = _of(db)
    assert journal.path == tmp_path / "ledger.acknowledgements.jsonl"
    journal.append(exception_id="e1", action="ESCALATE", note="look", actor="a", actor_source="x")
    last = journal.append(
        exception_id="e1", action="ACKNOWLEDGE", note="fine", actor="b", actor_source="y"
    )
    with Ledger(db) as ledger:
        assert journal.import_into(ledger.con) == 2
        assert journal.import_into(ledger.con) == 0
        assert journal_problems(db, ledger.con) == []
        stored = ledger.con.execute(
            "SELECT ack_id, record_hmac FROM acknowledgements ORDER BY acted_at DESC LIMIT 1"
        ).fetchone()
    assert stored == (last.ack_id, last.link)
    assert _imported(db) == [("e1", "ESCALATE", "a", "x"), ("e1", "ACKNOWLEDGE", "b", "y")]


def test_import_for_one_gaming_day_leaves_other_days_records_waiting(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    journal = _of(db)
    with Ledger(db) as ledger:
        for exception_id, day in (("e1", "2026-11-24"), ("e2", "2026-11-25")):
            ledger.con.execute(
                "INSERT INTO exceptions (exception_id, table_id, gaming_date, code, section, "
                "severity, severity_rank, message) VALUES (?, 'T01', ?, 'C', 'S', 'CRITICAL', "
                "4, 'm')",
                [exception_id, day],
            )
    for exception_id in ("e1", "e2"):
        journal.append(
            exception_id=exception_id, action="ESCALATE", note="n", actor="a", actor_source="x"
        )
    with Ledger(db) as ledger:
        assert journal.import_into(ledger.con, date(2026, 11, 25)) == 1
        assert journal_problems(db, ledger.con) == []  # the waiting record is no problem
    assert [e for e, *_ in _imported(db)] == ["e2"]
    with Ledger(db) as ledger:
        assert journal.import_into(ledger.con) == 1
    assert sorted(str(e) for e, *_ in _imported(db)) == ["e1", "e2"]


@pytest.mark.parametrize("forgery", ["edit", "unkeyed-append", "delete", "reorder"])
def test_a_journal_that_does_not_verify_imports_nothing_and_names_the_line(
    tmp_path: Path, forgery: str
) -> None:
    db = _ledger(tmp_path)
    journal = _of(db)
    for exception_id, action in (("e0", "ESCALATE"), ("e1", "ESCALATE"), ("e2", "ESCALATE")):
        journal.append(
            exception_id=exception_id, action=action, note="n", actor="a", actor_source=SOURCE
        )
    lines = _lines(journal)
    if forgery == "edit":
        edited = json.loads(lines[1])
        edited["action"] = "ACKNOWLEDGE"
        lines[1] = json.dumps(edited)
    elif forgery == "unkeyed-append":
        lines.insert(1, _unkeyed_line(GENESIS)[0])
    elif forgery == "delete":
        del lines[1]
    else:
        lines[1], lines[2] = lines[2], lines[1]
    _write(journal, lines)
    with Ledger(db) as ledger, pytest.raises(JournalError) as raised:
        journal.import_into(ledger.con)
    message = str(raised.value)
    assert "ledger.acknowledgements.jsonl line 2:" in message
    assert "no acknowledgement was imported" in message
    assert "Restore the journal from a backup" in message
    assert _imported(db) == []


def test_a_journal_emptied_or_truncated_after_import_is_named(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    journal = _of(db)
    for action in ("ESCALATE", "ACKNOWLEDGE"):
        journal.append(exception_id="e1", action=action, note="n", actor="a", actor_source="x")
    with Ledger(db) as ledger:
        journal.import_into(ledger.con)
    lines = _lines(journal)
    _write(journal, lines[:1])
    with Ledger(db, read_only=True) as ledger:
        problems = journal_problems(db, ledger.con)
    assert len(problems) == 2
    assert "cut short or rolled back: the witness holds a checkpoint of 2 entries" in problems[0]
    assert "ACKNOWLEDGE of exception e1 by a" in problems[1]
    assert "is no longer in ledger.acknowledgements.jsonl" in problems[1]
    journal.path.write_text("")
    with Ledger(db) as ledger:
        assert len(journal_problems(db, ledger.con)) == 4  # two checkpoints, two imports
        with pytest.raises(JournalError, match="truncated, emptied or replaced"):
            journal.import_into(ledger.con)


def test_an_acknowledgement_inserted_into_the_ledger_by_hand_is_named(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    journal = _of(db)
    journal.append(exception_id="e1", action="ESCALATE", note="n", actor="a", actor_source="x")
    with Ledger(db) as ledger:
        journal.import_into(ledger.con)
        ledger.con.execute(
            "INSERT INTO acknowledgements (exception_id, action, note, actor, acted_at) "
            "VALUES ('e1', 'ACKNOWLEDGE', 'fine', 'mallory', now())"
        )
        ledger.con.execute("UPDATE acknowledgements SET note = 'other' WHERE actor = 'a'")
        problems = journal_problems(db, ledger.con)
    assert len(problems) == 2
    assert problems[0].startswith("ledger acknowledgements: ESCALATE of exception e1 by a at ")
    assert problems[0].endswith("differs from its record in ledger.acknowledgements.jsonl")
    assert problems[1].startswith("ledger acknowledgements: ACKNOWLEDGE of exception e1 by mallory")
    assert "has no record in ledger.acknowledgements.jsonl" in problems[1]


def test_journal_location_can_be_overridden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BACCARAT_ACKS", raising=False)
    assert journal_path_for("out/ledger.duckdb") == Path("out/ledger.acknowledgements.jsonl")
    monkeypatch.setenv("BACCARAT_ACKS", str(tmp_path / "elsewhere.jsonl"))
    assert journal_path_for("out/ledger.duckdb") == tmp_path / "elsewhere.jsonl"


# ---------------------------------------------------------------------- unkeyed journals
def _re_sign(journal: AckJournal, note: str) -> int:
    """Re-sign as the dry run listed it, reviewed by admin-1 and approved by acct-2."""
    plan = journal.plan_re_sign().digest
    return journal.re_sign_unkeyed(
        "admin-1", SOURCE, note, approver="acct-2", approver_source=SOURCE, plan=plan
    )


def test_an_unkeyed_journal_is_refused_until_re_signed_after_review(tmp_path: Path) -> None:
    journal = _new(tmp_path)
    first, digest = _unkeyed_line(GENESIS, actor="analyst-7")
    second, _ = _unkeyed_line(digest, ack_id="e" * 32, action="ESCALATE")
    _write(journal, [first, second])
    assert len(journal.verify()) == 2
    assert "--re-sign-unkeyed" in journal.verify()[0]

    assert _re_sign(journal, "reviewed against the shift log") == 2
    assert journal.verify() == []
    records = journal.records()
    assert [(r.actor, r.action) for r in records] == [
        ("analyst-7", "ACKNOWLEDGE"),
        ("mallory", "ESCALATE"),
    ]
    assert "re-signed by admin-1 (command line), approved by acct-2" in records[0].actor_source
    assert "reviewed against the shift log" in records[0].actor_source
    kept = list(tmp_path.glob("acks.jsonl.unkeyed-*"))
    assert [p.read_text() for p in kept] == [f"{first}\n{second}\n"]


@pytest.mark.parametrize("damage", ["edited", "deleted", "keyed"])
def test_a_damaged_or_mixed_unkeyed_journal_is_not_re_signed(tmp_path: Path, damage: str) -> None:
    journal = _new(tmp_path)
    first, digest = _unkeyed_line(GENESIS)
    second, digest2 = _unkeyed_line(digest, ack_id="e" * 32)
    third, _ = _unkeyed_line(digest2, ack_id="d" * 32)
    if damage == "edited":
        lines = [first, second.replace("ACKNOWLEDGE", "ESCALATE"), third]
    elif damage == "deleted":
        lines = [first, third]
    else:
        lines = [first, second, third]
    _write(journal, lines)
    if damage == "keyed":
        journal.append(exception_id="e9", action="ESCALATE", note="n", actor="a", actor_source="x")
    before = journal.path.read_text()
    with pytest.raises(JournalError, match=r"line [234]"):
        _re_sign(journal, "reviewed")
    assert journal.path.read_text() == before


def test_a_re_signed_journal_matches_what_an_older_close_imported(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    journal = _of(db)
    line, _ = _unkeyed_line(GENESIS, actor="analyst-7")
    _write(journal, [line])
    with Ledger(db) as ledger:  # as the close imported it before migration 7: no ack_id
        ledger.con.execute(
            "INSERT INTO acknowledgements (exception_id, action, note, actor, acted_at) "
            "VALUES ('e1', 'ACKNOWLEDGE', 'explained', 'analyst-7', '2026-11-24 10:00:00')"
        )
        with pytest.raises(JournalError, match="an unkeyed record"):
            journal.import_into(ledger.con)
    _re_sign(journal, "reviewed against the shift log")
    with Ledger(db) as ledger:
        assert journal_problems(db, ledger.con) == []
        assert journal.import_into(ledger.con) == 0  # already there: not imported twice
    assert _imported(db) == [("e1", "ACKNOWLEDGE", "analyst-7", None)]


# ---------------------------------------------------------------------- assignments
def _assign(journal: AckJournal, exception_id: str, assignee: str, actor: str = "lead") -> None:
    journal.append(
        exception_id=exception_id,
        action="ASSIGN",
        note="take this one",
        actor=actor,
        actor_source=SOURCE,
        assignee=assignee,
    )


def test_an_assignment_names_the_holder_and_leaves_the_status_alone(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e1", "ESCALATE"))
    _assign(journal, "e1", "rivera")
    _assign(journal, "e2", "chen")
    _assign(journal, "e1", "okafor")
    assert journal.verify() == []
    held = journal.holders()
    assert {e: (r.assignee, r.actor, r.note) for e, r in held.items()} == {
        "e1": ("okafor", "lead", "take this one"),
        "e2": ("chen", "lead", "take this one"),
    }
    # an assignment after an escalation does not hide it: the escalation still stands
    assert {e: r.action for e, r in journal.latest_actions().items()} == {"e1": "ESCALATE"}


@pytest.mark.parametrize(
    ("action", "assignee", "message"),
    [
        ("ASSIGN", None, "names who holds"),
        ("ASSIGN", "   ", "names who holds"),
        ("ACKNOWLEDGE", "rivera", "only ASSIGN names a holder"),
    ],
)
def test_an_assignment_without_a_holder_or_a_holder_without_one_is_refused(
    tmp_path: Path, action: str, assignee: str | None, message: str
) -> None:
    journal = _new(tmp_path)
    with pytest.raises(JournalError, match=message):
        journal.append(
            exception_id="e1",
            action=action,
            note="n",
            actor="a",
            actor_source=SOURCE,
            assignee=assignee,
        )
    assert journal.records() == []


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda d: d.update(assignee="mallory"), id="holder-edited"),
        pytest.param(lambda d: d.update(actor="lead-2"), id="assigner-edited"),
        pytest.param(lambda d: d.update(action="ACKNOWLEDGE"), id="assignment-turned-ack"),
        pytest.param(lambda d: d.pop("assignee"), id="holder-removed"),
    ],
)
def test_an_edited_assignment_breaks_verification(tmp_path: Path, forge: object) -> None:
    journal = _journal(tmp_path, ("e0", "ESCALATE"))
    _assign(journal, "e1", "rivera")
    lines = _lines(journal)
    edited = json.loads(lines[1])
    forge(edited)  # type: ignore[operator]
    _write(journal, [lines[0], json.dumps(edited, sort_keys=True, separators=(",", ":"))])
    problems = journal.verify()
    assert [p.split(":")[0] for p in problems] == ["acks.jsonl line 2"]
    assert "not signed by the installation's journal key" in problems[0]


def test_a_holder_added_to_an_acknowledgement_breaks_verification(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e1", "ACKNOWLEDGE"))
    edited = json.loads(_lines(journal)[0])
    edited["assignee"] = "mallory"  # to pass as a holder without the key
    _write(journal, [json.dumps(edited)])
    assert [p.split(":")[0] for p in journal.verify()] == ["acks.jsonl line 1"]


def test_a_forged_assignment_line_is_named_and_holds_nothing_where_it_counts(
    tmp_path: Path,
) -> None:
    journal = _journal(tmp_path, ("e1", "ESCALATE"))
    first = json.loads(_lines(journal)[0])
    forged = {
        **first,
        "ack_id": "f" * 32,
        "action": "ASSIGN",
        "assignee": "mallory",
        "prev_link": first["link"],
        "signature": "0" * 128,
    }
    _write(journal, [*_lines(journal), json.dumps(forged)])
    assert [p.split(":")[0] for p in journal.verify()] == ["acks.jsonl line 2"]


def test_records_written_before_assignments_existed_still_verify(tmp_path: Path) -> None:
    journal = _journal(tmp_path, ("e1", "ESCALATE"))
    assert "assignee" not in json.loads(_lines(journal)[0])  # the line as before
    _assign(journal, "e1", "rivera")
    assert journal.verify() == []


def test_assignments_are_not_imported_into_the_ledger(tmp_path: Path) -> None:
    db = _ledger(tmp_path)
    journal = _of(db)
    _assign(journal, "e1", "rivera")
    journal.append(exception_id="e1", action="ESCALATE", note="look", actor="a", actor_source="x")
    with Ledger(db) as ledger:
        assert journal.import_into(ledger.con) == 1
        assert journal_problems(db, ledger.con) == []
    assert _imported(db) == [("e1", "ESCALATE", "a", "x")]
