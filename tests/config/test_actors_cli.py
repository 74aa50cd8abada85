"""State-changing commands act as the operating-system account (or a name the installation
lets that account act as), allowed by the installation's roles file, and record where the
name came from: ``close``, ``reopen`` and ``ack`` (acknowledge or escalate from a script).
The caller chooses neither the roles file nor a name the account may not use."""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import io
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.bundle.acks import AckJournal
from pipeline.cli import main
from pipeline.config.installation import INSTALLATION_ENV
from pipeline.config.roles import ACTOR_ENV
from pipeline.ledger.seal_record import seal_log
from pipeline.ledger.store import Ledger
from pipeline.witness.provision import init_demo_installation

DAY = date(2026, 11, 24)
ME = pwd.getpwuid(os.geteuid()).pw_name
GRANTING = f'''
[users]
"{ME}" = ["admin"]
mallory = ["admin"]
"controller@casino.example" = ["accountant"]
'''
"""What a caller would like the roles file to say."""


@functools.cache
def _demo() -> Path:
    """A small closed gaming day with critical exceptions (five: the seed is one that draws
    several), built once per process."""
    out = Path(tempfile.mkdtemp(prefix="actors-ledger-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)  # kept for the process only
    argv = ["demo", "--out", str(out), "--tables", "2", "--hours", "1", "--seed", "3", "--plain"]
    with contextlib.redirect_stdout(io.StringIO()):
        main([*argv, "--date", DAY.isoformat()])
    return out / "ledger.duckdb"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in (ACTOR_ENV, "BACCARAT_ROLES", "SUDO_USER", "SUDO_UID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("BACCARAT_ACKS", raising=False)
    target = tmp_path / "ledger.duckdb"
    shutil.copyfile(_demo(), target)
    return target


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with Ledger(db, read_only=True) as ledger:
        return ledger.con.execute(sql).fetchall()


def _criticals(db: Path) -> list[str]:
    return [
        str(e)
        for (e,) in _rows(
            db, "SELECT exception_id FROM exceptions WHERE severity_rank >= 4 ORDER BY 1"
        )
    ]


def _ack(db: Path, *extra: str) -> list[str]:
    return ["ack", "--db", str(db), *extra]


def _reopen(db: Path, *extra: str) -> list[str]:
    return ["reopen", "--db", str(db), "--gaming-day", DAY.isoformat(), *extra]


def _close(db: Path, tmp_path: Path, *extra: str) -> list[str]:
    out = str(tmp_path / "reports")
    return ["close", "--db", str(db), "--gaming-day", DAY.isoformat(), "--out", out, *extra]


def _acting() -> str:
    """The source recorded for ``--actor demo-...`` in the tests' demo installation, which lets
    the account running the tests act as every demo user."""
    roles = Path(os.environ[INSTALLATION_ENV]) / "roles.toml"
    return f"--actor on operating-system account {ME}, allowed by [accounts] of {roles}"


def _own_installation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, roles: str) -> Path:
    """An installation of this test's own, with ``roles`` as its roles file."""
    root = init_demo_installation(tmp_path / "installation").root
    (root / "roles.toml").write_text(roles)
    monkeypatch.setenv(INSTALLATION_ENV, str(root))
    return root / "roles.toml"


# ---------------------------------------------------------------------- close and reopen
def test_the_scheduled_close_is_recorded_as_the_configured_actor(db: Path) -> None:
    assert _rows(db, "SELECT action, actor FROM gaming_day_audit") == [("CLOSE", "demo-controller")]
    roles = Path(os.environ[INSTALLATION_ENV]) / "roles.toml"
    with Ledger(db, read_only=True) as ledger:
        (entry,) = seal_log(ledger)
    assert entry.actor_source == (
        f"scheduled_actor of {roles}, run by operating-system account {ME}"
    )
    assert entry.roles_sha256 == hashlib.sha256(roles.read_bytes()).hexdigest()


def test_a_seal_records_the_operating_system_account_and_the_roles_files_digest(
    db: Path, tmp_path: Path
) -> None:
    assert main(_reopen(db, "--reason", "late file", "--actor", "demo-controller")) == 0
    assert main(_close(db, tmp_path, "--actor", "demo-controller")) in (0, 1)
    roles = Path(os.environ[INSTALLATION_ENV]) / "roles.toml"
    with Ledger(db, read_only=True) as ledger:
        entries = seal_log(ledger)
    assert [(e.actor, e.actor_source) for e in entries[-2:]] == [
        ("demo-controller", _acting()),
        ("demo-controller", _acting()),
    ]
    assert f"operating-system account {ME}" in entries[-1].actor_source
    assert entries[-1].roles_sha256 == hashlib.sha256(roles.read_bytes()).hexdigest()


def test_reopen_as_a_name_the_account_may_not_act_as_is_refused(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _rows(db, "SELECT * FROM gaming_day_audit"), _rows(db, "SELECT * FROM gaming_days")
    assert main(_reopen(db, "--reason", "late file", "--actor", "nobody-checked")) == 2
    err = capsys.readouterr().err
    assert f"operating-system account {ME} may not act as nobody-checked (from --actor)" in err
    assert "the installation's roles file" in err and "accounts." in err
    after = _rows(db, "SELECT * FROM gaming_day_audit"), _rows(db, "SELECT * FROM gaming_days")
    assert after == before


def test_without_an_actor_the_operating_system_account_acts_and_needs_a_role(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("USER", "demo-controller")  # the login variables name nobody
    monkeypatch.setenv("LOGNAME", "demo-controller")
    before = _rows(db, "SELECT * FROM gaming_day_audit")
    for argv in (
        _reopen(db, "--reason", "late file"),
        _close(db, tmp_path),
        _ack(db, "--exception", _criticals(db)[0], "--action", "ACKNOWLEDGE", "--note", "ok"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"{ME} (from operating-system account {ME}) may not" in err
        assert f"{ME} is not a user in" in err
    assert _rows(db, "SELECT * FROM gaming_day_audit") == before
    assert AckJournal.for_ledger(db).records() == []


def test_an_analyst_may_not_close_or_accept_quality_failures(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_reopen(db, "--reason", "late file", "--actor", "demo-controller")) == 0
    assert main(_close(db, tmp_path, "--actor", "demo-analyst")) == 2
    assert f"demo-analyst (from {_acting()}) may not close" in capsys.readouterr().err
    assert (
        main(
            _close(
                db,
                tmp_path,
                "--actor",
                "demo-analyst",
                "--accept-quality-failures",
                "count room confirmed",
            )
        )
        == 2
    )
    assert "may not close" in capsys.readouterr().err
    assert _rows(db, "SELECT status FROM gaming_days") == [("REOPENED",)]


def test_a_roles_file_the_caller_chooses_grants_nothing(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "my.toml"
    mine.write_text(GRANTING)
    before = _rows(db, "SELECT * FROM gaming_day_audit")
    # the option is gone
    argv = _reopen(db, "--reason", "x", "--actor", "demo-controller", "--roles-file", str(mine))
    assert main(argv) == 2
    assert "--roles-file" in capsys.readouterr().err
    # the environment variable of old is ignored: my.toml's grants count for nothing
    monkeypatch.setenv("BACCARAT_ROLES", str(mine))
    assert main(_reopen(db, "--reason", "x")) == 2
    assert (
        f"{ME} is not a user in the installation's roles file {os.environ[INSTALLATION_ENV]}"
        in capsys.readouterr().err
    )
    assert main(_reopen(db, "--reason", "x", "--actor", "mallory")) == 2
    assert f"account {ME} may not act as mallory" in capsys.readouterr().err
    monkeypatch.setenv(ACTOR_ENV, "mallory")
    argv = _ack(db, "--exception", _criticals(db)[0], "--action", "ACKNOWLEDGE", "--note", "ok")
    assert main(argv) == 2
    assert "may not act as mallory (from environment BACCARAT_ACTOR)" in capsys.readouterr().err
    assert _rows(db, "SELECT * FROM gaming_day_audit") == before
    assert AckJournal.for_ledger(db).records() == []


def test_the_environment_names_a_user_the_account_may_act_as(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ACTOR_ENV, "demo-controller")
    assert main(_reopen(db, "--reason", "late file")) == 0
    assert (
        f"reopened by demo-controller (environment BACCARAT_ACTOR on operating-system account "
        f"{ME}, allowed by [accounts]" in capsys.readouterr().out
    )


def test_sudo_records_the_account_that_ran_it(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    other = next(p for p in pwd.getpwall() if p.pw_uid != os.geteuid())
    monkeypatch.setenv("SUDO_USER", other.pw_name)
    monkeypatch.setenv("SUDO_UID", str(other.pw_uid))
    # the installation belongs to this account: sudo made it the service account
    assert main(_reopen(db, "--reason", "x")) == 2
    assert (
        f"{other.pw_name} (from operating-system account {other.pw_name} via sudo as {ME}) "
        "may not reopen" in capsys.readouterr().err
    )
    # the demo installation lets the test runner, not the sudo caller, act as the demo users
    assert main(_reopen(db, "--reason", "x", "--actor", "demo-controller")) == 2
    assert (
        f"operating-system account {other.pw_name} via sudo as {ME} may not act as "
        "demo-controller" in capsys.readouterr().err
    )


def test_an_installation_granting_the_account_a_role_records_it(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _own_installation(tmp_path, monkeypatch, f'[users]\n"{ME}" = ["accountant"]\n')
    assert main(_reopen(db, "--reason", "late file")) == 0
    assert f"reopened by {ME} (operating-system account {ME})" in capsys.readouterr().out
    assert _rows(db, "SELECT action, actor FROM gaming_day_audit ORDER BY acted_at")[-1] == (
        "REOPEN",
        ME,
    )


def test_a_broken_roles_file_is_named(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = _own_installation(tmp_path, monkeypatch, '[users]\ndemo-controller = ["acountant"]\n')
    assert main(_reopen(db, "--reason", "x", "--actor", "demo-controller")) == 2
    assert f"{broken}: users.demo-controller: unknown role(s) ['acountant']" in (
        capsys.readouterr().err
    )


def test_a_candidate_roles_file_is_checked_read_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    installed = (Path(os.environ[INSTALLATION_ENV]) / "roles.toml").read_bytes()
    candidate = tmp_path / "candidate.toml"
    candidate.write_text(GRANTING)
    assert main(["validate-roles", str(candidate)]) == 0
    out = capsys.readouterr().out
    assert "3 users" in out and "takes effect only as the installation's roles.toml" in out
    candidate.write_text('[users]\nalice = ["superuser"]\n')
    assert main(["validate-roles", str(candidate)]) == 2
    assert "users.alice: unknown role(s) ['superuser']" in capsys.readouterr().err
    assert (Path(os.environ[INSTALLATION_ENV]) / "roles.toml").read_bytes() == installed


# ---------------------------------------------------------------------- ack
def test_ack_records_several_exceptions_with_who_and_from_where(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _criticals(db)[:2]
    argv = _ack(db, "--exception", first, "--exception", second, "--action", "escalate")
    assert main([*argv, "--note", "payout differs from video", "--actor", "demo-analyst"]) == 0
    out = capsys.readouterr().out
    assert f"ESCALATE of exception {first} (table T0" in out
    assert f"recorded by demo-analyst ({_acting()})" in out
    assert "is closed (CLOSED_WITH_BLOCKING_EXCEPTIONS): this counts at its close only after" in out
    records = AckJournal.for_ledger(db).records()
    assert [(r.exception_id, r.action, r.actor, r.actor_source) for r in records] == [
        (first, "ESCALATE", "demo-analyst", _acting()),
        (second, "ESCALATE", "demo-analyst", _acting()),
    ]
    assert all(r.gaming_date == DAY.isoformat() and r.table_id for r in records)
    assert AckJournal.for_ledger(db).verify() == []


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--note", "ok", "--actor", "demo-controller"],
            ") may not acknowledge: that needs the role analyst or admin, and demo-controller "
            "holds accountant",
        ),
        (["--note", "  ", "--actor", "demo-analyst"], "--note is required"),
        (["--actor", "demo-analyst"], "--note is required"),
        (
            ["--note", "ok", "--actor", "demo-analyst", "--exception", "no-such-id"],
            "no exception no-such-id in",
        ),
    ],
)
def test_ack_refusals_record_nothing(
    db: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    argv = _ack(db, "--exception", _criticals(db)[0], "--action", "ACKNOWLEDGE", *extra)
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not AckJournal.for_ledger(db).path.exists()


def test_ack_says_so_when_a_writer_holds_the_ledger(db: Path) -> None:
    exception_id = _criticals(db)[0]
    with Ledger(db):  # this process holds the write lock; the command runs in another
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pipeline.cli",
                *_ack(db, "--exception", exception_id),
                "--action",
                "ACKNOWLEDGE",
                "--note",
                "ok",
                "--actor",
                "demo-analyst",
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", ".")},
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert "cannot check the exception ids, nothing recorded" in done.stderr
    assert "may hold the write lock" in done.stderr
    assert not AckJournal.for_ledger(db).path.exists()


def test_ack_refuses_to_add_to_a_journal_that_does_not_verify(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exception_id = _criticals(db)[0]
    ok = ["--note", "ok", "--actor", "demo-analyst"]
    assert main([*_ack(db, "--exception", exception_id, "--action", "ESCALATE"), *ok]) == 0
    journal = AckJournal.for_ledger(db)
    line = json.loads(journal.path.read_text())
    line["action"] = "ACKNOWLEDGE"
    journal.path.write_text(json.dumps(line) + "\n")
    capsys.readouterr()
    assert main([*_ack(db, "--exception", exception_id, "--action", "ESCALATE"), *ok]) == 1
    assert "does not verify, nothing recorded" in capsys.readouterr().err
    assert len(journal.path.read_text().splitlines()) == 1


def test_the_close_refuses_a_forged_journal_naming_the_line(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exception_id = _criticals(db)[0]
    ok = ["--note", "to the shift manager", "--actor", "demo-analyst"]
    assert main([*_ack(db, "--exception", exception_id, "--action", "ESCALATE"), *ok]) == 0
    journal = AckJournal.for_ledger(db)
    line = json.loads(journal.path.read_text())
    line["action"] = "ACKNOWLEDGE"  # ESCALATE edited into ACKNOWLEDGE to unblock the close
    journal.path.write_text(json.dumps(line) + "\n")
    assert main(_reopen(db, "--reason", "late file", "--actor", "demo-controller")) == 0
    capsys.readouterr()
    assert main(_close(db, tmp_path, "--actor", "demo-controller")) == 1
    err = capsys.readouterr().err
    assert "ledger.acknowledgements.jsonl line 1: ACKNOWLEDGE of exception" in err
    assert "no acknowledgement was imported and the close was not made" in err
    assert _rows(db, "SELECT count(*) FROM acknowledgements") == [(0,)]
    assert _rows(db, "SELECT status FROM gaming_days") == [("REOPENED",)]


def test_re_signing_an_unkeyed_journal_needs_an_admin(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Ledger(db, read_only=True) as ledger:
        journal = AckJournal.for_ledger(db, ledger.ledger_id)
    body = {
        "ack_id": "a" * 32,
        "exception_id": _criticals(db)[0],
        "action": "ESCALATE",
        "note": "n",
        "actor": "analyst-7",
        "actor_source": "self-declared",
        "acted_at": "2026-11-24T10:00:00.000000+00:00",
        "table_id": "T01",
        "gaming_date": "2026-11-24",
        "prev_sha256": "0" * 64,
    }
    body["sha256"] = hashlib.sha256(
        json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    journal.path.write_text(json.dumps(body) + "\n")
    resign = _ack(db, "--re-sign-unkeyed", "--note", "reviewed with the shift log")
    assert main([*resign, "--actor", "demo-analyst"]) == 2
    assert "may not re-sign an unkeyed acknowledgement journal" in capsys.readouterr().err
    assert journal.verify() != []
    assert main([*resign, "--actor", "demo-admin"]) == 0  # a dry run: nothing changes
    listed = capsys.readouterr().out
    assert "would sign 1 records" in listed and "nothing changed" in listed
    assert journal.verify() != []
    plan = listed.split("--plan ")[1].split()[0]
    approved = [*resign, "--actor", "demo-admin", "--plan", plan, "--approved-by"]
    assert main([*approved, "demo-controller"]) == 0  # an accountant, another person
    assert "re-signed 1 records" in capsys.readouterr().out
    assert journal.verify() == []
    assert main([*resign, "--actor", "demo-admin", "--action", "ESCALATE"]) == 2


def test_a_journal_forged_without_the_key_needs_an_accountants_approval_after_a_dry_run(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The attack: an unkeyed journal acknowledging every CRITICAL, re-signed by one admin,
    closed the day with 0 blocking. Now the admin's run only lists what would change and
    what the blocking count becomes; an approval needs another person, an accountant, and
    the digest of the journal that was listed."""
    with Ledger(db, read_only=True) as ledger:
        journal = AckJournal.for_ledger(db, ledger.ledger_id)
    criticals, lines, previous = _criticals(db), [], "0" * 64
    for number, exception_id in enumerate(criticals):
        body = {
            "ack_id": f"{number:032x}",
            "exception_id": exception_id,
            "action": "ACKNOWLEDGE",
            "note": "fine",
            "actor": "mallory",
            "actor_source": "self-declared",
            "acted_at": "2026-11-24T10:00:00.000000+00:00",
            "table_id": "T01",
            "gaming_date": DAY.isoformat(),
            "prev_sha256": previous,
        }
        previous = body["sha256"] = hashlib.sha256(
            json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()
        lines.append(json.dumps(body) + "\n")
    journal.path.write_text("".join(lines))
    forged = journal.path.read_text()
    resign = _ack(db, "--re-sign-unkeyed", "--note", "looks fine", "--actor", "demo-admin")
    assert main(resign) == 0
    listed = capsys.readouterr().out
    assert f"would sign {len(criticals)} records" in listed
    assert all(f"ACKNOWLEDGE of exception {e}" in listed for e in criticals)
    assert f"{len(criticals)} now, 0 once re-signed ({len(criticals)} cleared" in listed
    plan = listed.split("--plan ")[1].split()[0]
    assert journal.path.read_text() == forged
    for approver, why in (
        ("demo-admin", "cannot approve their own re-signing"),
        ("demo-analyst", "may not close"),
    ):
        assert main([*resign, "--plan", plan, "--approved-by", approver]) == 2
        assert why in capsys.readouterr().err
    assert main([*resign, "--approved-by", "demo-controller"]) == 2  # no plan: no review
    assert "--plan" in capsys.readouterr().err
    assert main([*resign, "--approved-by", "demo-controller", "--plan", "0" * 64]) == 1
    assert "not the one the dry run listed" in capsys.readouterr().err
    assert journal.path.read_text() == forged, "nothing re-signed by one person"
    assert main([*resign, "--approved-by", "demo-controller", "--plan", plan]) == 0
    done = capsys.readouterr().out
    assert f"blocking count went from {len(criticals)} to 0" in done
    assert all("approved by demo-controller" in r.actor_source for r in journal.records())
