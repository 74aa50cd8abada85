"""The command line as an operator and a script meet it: wrong input, a locked or missing
ledger, a full disk and an unwritable report are one line on stderr with exit 2 (1 where a
person must act), never a traceback; every result a script reads has a ``--json`` form with
stable keys; ``exceptions`` says what its ``--limit`` left out; progress is drawn only on a
terminal. The real program runs in a subprocess wherever the process boundary matters."""

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import pipeline.simulate.sinks
from pipeline.cli import DEMO_GAMING_DATE, build_parser, main

DAY = DEMO_GAMING_DATE


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    def json(self) -> dict[str, Any]:
        value = json.loads(self.out)
        assert isinstance(value, dict), self.out
        return value


def cli(*argv: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
    """``baccarat-audit ARGV`` as a separate process (stdout and stderr are pipes)."""
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def one_line_refusal(run: Run, command: str) -> str:
    """The stderr of a refused command: no traceback, its own name first."""
    assert "Traceback" not in run.err, run.err
    assert run.err.startswith(f"baccarat-audit {command}: "), run.err
    return run.err


@dataclass(frozen=True)
class Day:
    out: Path
    db: Path
    simulated: Run
    replayed: Run
    closed: Run


pytestmark = pytest.mark.xdist_group("operator-day")
"""Its tests share a module fixture that costs seconds to build: on one worker, it is built once."""


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Day]:
    """Two tables, two hours, every fault kind: simulated, replayed and closed through the
    real command line, each with --json."""
    out = tmp_path_factory.mktemp("operator")
    db = out / "ledger.duckdb"
    simulated = cli(
        *("simulate", "--tables", "2", "--hours", "2", "--faults", "all", "--seed", "3"),
        *("--out", out, "--json"),
    )
    assert simulated.code == 0, simulated.err
    replayed = cli("replay", out / "events", "--db", db, "--json")
    assert replayed.code == 0, replayed.err
    closed = cli(
        *("close", "--db", db, "--gaming-day", DAY.isoformat(), "--out", out / "reports"),
        *("--actor", "demo-controller", "--json"),
    )
    yield Day(out, db, simulated, replayed, closed)


# ------------------------------------------------------------------ refusals, one line each
def test_a_missing_ledger_is_named_with_what_to_do(tmp_path: Path) -> None:
    run = cli("exceptions", "--db", "nope.duckdb", cwd=tmp_path)
    assert run.code == 2
    err = one_line_refusal(run, "exceptions")
    assert "nope.duckdb: no ledger here yet" in err and "baccarat-audit demo" in err
    assert not (tmp_path / "nope.duckdb").exists()  # reading never creates one


def test_a_missing_events_directory_is_refused_before_a_ledger_is_made(tmp_path: Path) -> None:
    run = cli("replay", "nope-dir", "--db", "made.duckdb", cwd=tmp_path)
    assert run.code == 2
    assert "nope-dir: no such file or directory" in one_line_refusal(run, "replay")
    assert not (tmp_path / "made.duckdb").exists()


def test_an_unknown_fault_kind_lists_the_known_ones(tmp_path: Path) -> None:
    run = cli("simulate", "--faults", "bogus", "--out", tmp_path)
    assert run.code == 2 and "Traceback" not in run.err
    assert "argument --faults: unknown fault kind 'bogus'" in run.err
    assert "payout, vigorish" in run.err
    assert not (tmp_path / "events").exists()


def test_no_ledger_given_names_the_flag_and_the_environment_variable() -> None:
    run = cli("exceptions", env={"BACCARAT_DB": ""})
    assert run.code == 2
    assert "pass --db FILE or set BACCARAT_DB" in one_line_refusal(run, "exceptions")


def test_a_ledger_locked_by_another_process_is_refused_in_one_line(day: Day) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', "
            "flush=True); time.sleep(120)",
            str(day.db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        run = cli("exceptions", "--db", day.db)
        written = cli("replay", day.out / "events", "--db", day.db)
    finally:
        holder.kill()
        holder.wait(timeout=30)
    for refused, command in ((run, "exceptions"), (written, "replay")):
        assert refused.code == 2
        err = one_line_refusal(refused, command)
        assert f"{day.db}: cannot open the ledger" in err and "write lock" in err


def test_a_report_that_cannot_be_written_seals_nothing(day: Day, tmp_path: Path) -> None:
    """``--out`` is a file, not a directory: the close stops before the seal, says so."""
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    db = tmp_path / "ledger.duckdb"
    assert cli("replay", day.out / "events", "--db", db).code == 0
    run = cli(
        *("close", "--db", db, "--gaming-day", DAY.isoformat(), "--out", blocked / "reports"),
        "--actor",
        "demo-controller",
    )
    assert run.code == 2
    err = one_line_refusal(run, "close")
    assert str(blocked) in err and "nothing was sealed" in err
    assert cli("verify", "--db", db, "--json").json()["days_checked"] == 0


def test_a_full_disk_is_one_line_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(events: object, path: Path) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(pipeline.simulate.sinks, "write_table_file", full)
    argv = ["simulate", "--tables", "1", "--hours", "0.1", "--workers", "1"]
    assert main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "T01.avro: No space left on device; free space on that disk" in err


def test_a_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the errors an operator can fix are explained; anything else is a defect, and
    hiding its traceback would hide where it is."""

    def broken(*_: object, **__: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(pipeline.simulate.sinks, "simulate_to_files", broken)
    with pytest.raises(KeyError):
        main(["simulate", "--tables", "1", "--hours", "0.1"])


# ------------------------------------------------------------------ exceptions
def test_the_limit_says_how_many_it_left_out(day: Day) -> None:
    every_rank = ("--min-rank", "0")  # nothing hidden by rank: the limit's count only
    everything = cli("exceptions", "--db", day.db, *every_rank, "--json", "--limit", "100000")
    total = everything.json()["total"]
    assert isinstance(total, int) and total > 3
    assert everything.json()["shown"] == total and everything.json()["omitted"] == 0

    cut = cli("exceptions", "--db", day.db, *every_rank, "--json", "--limit", "3").json()
    assert (cut["total"], cut["shown"], cut["omitted"]) == (total, 3, total - 3)
    assert isinstance(cut["items"], list) and len(cut["items"]) == 3

    text = cli("exceptions", "--db", day.db, *every_rank, "--limit", "3")
    assert text.code == 0
    lines = text.out.splitlines()
    assert len(lines) == 4
    assert lines[-1].startswith(f"3 of {total} exceptions shown; {total - 3} left out by --limit 3")


def test_the_ledger_comes_from_baccarat_db(day: Day) -> None:
    run = cli("exceptions", "--json", "--limit", "1", env={"BACCARAT_DB": str(day.db)})
    assert run.code == 0 and run.json()["shown"] == 1


@pytest.mark.parametrize("limit", ["0", "-1", "many"])
def test_a_limit_below_one_is_refused(day: Day, limit: str) -> None:
    run = cli("exceptions", "--db", day.db, "--limit", limit)
    assert run.code == 2 and "argument --limit" in run.err


def test_an_unknown_code_is_refused_with_near_matches(day: Day) -> None:
    run = cli("exceptions", "--db", day.db, "--code", "NJ-DATA-GAPP")
    assert run.code == 2 and run.out == ""
    err = one_line_refusal(run, "exceptions")
    assert "'NJ-DATA-GAPP' is not a rule code; did you mean NJ-DATA-GAP" in err
    assert "baccarat-audit rules" in err


def test_the_json_carries_each_exception_s_acknowledgement(day: Day, tmp_path: Path) -> None:
    db = tmp_path / "ledger.duckdb"
    db.write_bytes(day.db.read_bytes())
    items = cli("exceptions", "--db", db, "--json", "--limit", "2").json()["items"]
    assert isinstance(items, list)
    first, second = (item["exception_id"] for item in items)
    assert all(item["acknowledgement"] is None for item in items)
    acked = cli(
        *("ack", "--db", db, "--exception", first, "--action", "ACKNOWLEDGE"),
        *("--note", "seen on camera", "--actor", "demo-analyst"),
    )
    assert acked.code == 0, acked.err
    listed = cli("exceptions", "--db", db, "--json", "--limit", "2").json()
    by_id = {item["exception_id"]: item for item in listed["items"]}
    assert by_id[first]["acknowledgement"]["action"] == "ACKNOWLEDGE"
    assert by_id[first]["acknowledgement"]["actor"] == "demo-analyst"
    assert by_id[first]["acknowledgement"]["note"] == "seen on camera"
    assert by_id[second]["acknowledgement"] is None
    assert listed["journal_verifies"] is True


def test_assign_names_the_holder_in_the_json_without_acknowledging(
    day: Day, tmp_path: Path
) -> None:
    db = tmp_path / "ledger.duckdb"
    db.write_bytes(day.db.read_bytes())
    items = cli("exceptions", "--db", db, "--json", "--limit", "2").json()["items"]
    first, second = (item["exception_id"] for item in items)
    assert all(item["held_by"] is None for item in items)
    holder = "rivera\x1b[31m<b>"  # a clumsy paste: an escape sequence and markup
    assigned = cli(
        *("ack", "--db", db, "--exception", first, "--exception", second),
        *("--action", "ASSIGN", "--assignee", holder),
        *("--note", "pit 2 camera review", "--actor", "demo-analyst"),
    )
    assert assigned.code == 0, assigned.err
    assert "\x1b" not in assigned.out and "ASSIGN to rivera" in assigned.out
    listed = cli("exceptions", "--db", db, "--json", "--limit", "2").json()
    assert listed["journal_verifies"] is True
    for item in listed["items"]:
        assert item["held_by"]["holder"] == holder  # JSON quotes it; the value is kept
        assert item["held_by"]["assigned_by"] == "demo-analyst"
        assert item["held_by"]["note"] == "pit 2 camera review"
        assert item["acknowledgement"] is None  # held, not acknowledged


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("--action", "ASSIGN"), id="assign-without-holder"),
        pytest.param(("--action", "ESCALATE", "--assignee", "rivera"), id="holder-without-assign"),
    ],
)
def test_assign_and_assignee_go_together(day: Day, tmp_path: Path, args: tuple[str, ...]) -> None:
    db = tmp_path / "ledger.duckdb"
    db.write_bytes(day.db.read_bytes())
    first = cli("exceptions", "--db", db, "--json", "--limit", "1").json()["items"][0]
    run = cli(
        *("ack", "--db", db, "--exception", first["exception_id"], *args),
        *("--note", "n", "--actor", "demo-analyst"),
    )
    assert run.code == 2 and "--assignee" in run.err
    assert not (tmp_path / "ledger.acknowledgements.jsonl").exists()


# ------------------------------------------------------------------ --json everywhere
def test_simulate_json(day: Day) -> None:
    result = day.simulated.json()
    assert set(result) == {
        "gaming_date",
        "tables",
        "hours",
        "events",
        "faults",
        "manifest",
        "events_dir",
        "kafka_topic",
        "seconds",
    }
    assert result["gaming_date"] == DAY.isoformat() and result["tables"] == 2
    assert result["events_dir"] == str(day.out / "events" / DAY.isoformat())


def test_replay_json(day: Day) -> None:
    result = day.replayed.json()
    assert result["events_new"] == day.simulated.json()["events"]
    assert result["events_redelivered"] == 0 and result["files"] == 2
    assert result["table_days"] == [["T01", DAY.isoformat()], ["T02", DAY.isoformat()]]
    assert {"dead_letters", "rounds", "exceptions", "exceptions_in_ledger", "seconds"} <= set(
        result
    )


def test_close_json(day: Day) -> None:
    result = day.closed.json()
    assert day.closed.code == (1 if result["blocking_exceptions"] else 0)
    assert result["gaming_date"] == DAY.isoformat()
    assert result["status"] in ("CLOSED", "CLOSED_WITH_BLOCKING_EXCEPTIONS")
    assert result["closed_by"]["actor"] == "demo-controller"
    # who ran it, and the installation's [accounts] entry that let that account use the name
    assert result["closed_by"]["source"].startswith("--actor on operating-system account ")
    assert "allowed by [accounts] of " in result["closed_by"]["source"]
    seal = result["seal"]
    assert isinstance(seal, dict) and len(seal["head_link"]) == 64
    assert {"handle_cents", "win_cents"} <= set(result["totals"])


def test_verify_json(day: Day) -> None:
    run = cli("verify", "--db", day.db, "--json")
    assert run.code == 0
    result = run.json()
    assert result["intact"] is True and result["days_checked"] == 1 and result["problems"] == []
    assert result["head"] == day.closed.json()["seal"]["head_link"]


def test_rules_json() -> None:
    rules = cli("rules", "--json").json()["rules"]
    assert isinstance(rules, list) and rules
    assert {"code", "section", "statement", "tests"} == set(rules[0])
    assert any(r["code"] == "NJ-DATA-GAP" for r in rules)


def test_report_json_names_the_seal_the_close_made(day: Day, tmp_path: Path) -> None:
    run = cli(
        *("report", "--db", day.db, "--gaming-day", DAY.isoformat(), "--out", tmp_path),
        "--json",
    )
    assert run.code == 0, run.err
    result = run.json()
    assert set(result) == {"gaming_date", "status", "seal"}
    closed = day.closed.json()
    assert (result["gaming_date"], result["status"]) == (DAY.isoformat(), closed["status"])
    assert result["seal"]["head_link"] == closed["seal"]["head_link"]
    assert result["seal"]["seq"] == closed["seal"]["seq"]
    assert {Path(r).name for r in result["seal"]["reports"]} >= {f"close-{DAY}.json"}
    assert all(Path(r).parent == tmp_path for r in result["seal"]["reports"])


def test_reopen_json(tmp_path: Path) -> None:
    """A day of its own: a reopen appends to the seal log and the anchors of its ledger."""
    assert cli("simulate", "--tables", "1", "--hours", "0.5", "--out", tmp_path).code == 0
    db = tmp_path / "ledger.duckdb"
    assert cli("replay", tmp_path / "events", "--db", db).code == 0
    day_args = ("--db", db, "--gaming-day", DAY.isoformat(), "--actor", "demo-controller")
    closed = cli("close", *day_args, "--out", tmp_path / "reports", "--json")
    assert closed.code in (0, 1), closed.err
    run = cli("reopen", *day_args, "--reason", "late drop box count", "--json")
    assert run.code == 0, run.err
    result = run.json()
    assert set(result) == {"gaming_date", "reason", "reopened_by", "seal"}
    assert result["gaming_date"] == DAY.isoformat()
    assert result["reason"] == "late drop box count"
    assert result["reopened_by"]["actor"] == "demo-controller"
    assert result["reopened_by"]["source"].startswith("--actor on operating-system account ")
    assert result["seal"]["seq"] == closed.json()["seal"]["seq"] + 1
    assert cli("verify", "--db", db, "--json").json()["head"] == result["seal"]["head_link"]


def test_ack_json_lists_every_record_written(day: Day, tmp_path: Path) -> None:
    db = tmp_path / "ledger.duckdb"
    db.write_bytes(day.db.read_bytes())
    items = cli("exceptions", "--db", db, "--json", "--limit", "2").json()["items"]
    first, second = (item["exception_id"] for item in items)
    run = cli(
        *("ack", "--db", db, "--exception", first, "--exception", second),
        *("--action", "assign", "--assignee", "rivera", "--note", "pit 2 camera review"),
        *("--actor", "demo-analyst", "--json"),
    )
    assert run.code == 0, run.err
    result = run.json()
    assert set(result) == {"note", "recorded_by", "journal", "recorded"}
    assert result["recorded_by"]["actor"] == "demo-analyst"
    assert Path(result["journal"]).exists()
    recorded = result["recorded"]
    assert [r["exception_id"] for r in recorded] == [first, second]
    closed_status = day.closed.json()["status"]
    for r in recorded:
        assert (r["action"], r["assignee"]) == ("ASSIGN", "rivera")
        assert r["gaming_date"] == DAY.isoformat()
        # the day is closed: the record counts at its close only after a reopen and a close
        assert r["closed_day_status"] == closed_status
        assert len(r["ack_id"]) == 32 and r["acted_at"].startswith("20")
    listed = cli("exceptions", "--db", db, "--json", "--limit", "2").json()["items"]
    assert all(item["held_by"]["holder"] == "rivera" for item in listed)


def test_ack_json_does_not_go_with_a_re_signing(day: Day, tmp_path: Path) -> None:
    db = tmp_path / "ledger.duckdb"
    db.write_bytes(day.db.read_bytes())
    run = cli(
        *("ack", "--db", db, "--re-sign-unkeyed", "--note", "n", "--actor", "demo-admin"),
        "--json",
    )
    assert run.code == 2 and run.out == ""
    assert "--json goes with recording actions" in one_line_refusal(run, "ack")


def test_bundle_and_verify_bundle_json(day: Day, tmp_path: Path) -> None:
    out = tmp_path / "not" / "yet"
    made = cli("bundle", "--db", day.db, "--table", "T02", "--out", f"{out}/", "--json")
    assert made.code == 0, made.err
    bundle = made.json()
    assert set(bundle) == {"bundle", "bytes", "sha256"}
    path = Path(bundle["bundle"])
    assert path == out / "evidence-table-T02.zip"
    assert bundle["bytes"] == path.stat().st_size
    assert bundle["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()

    checked = cli("verify-bundle", path, "--sha256", bundle["sha256"], "--json")
    assert checked.code == 0, checked.err
    assert checked.json() == {
        "bundle": str(path),
        "intact": True,
        "sha256_checked": True,
        "problems": [],
    }
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("planted.txt", "not in the manifest")
    tampered = cli("verify-bundle", path, "--json")
    assert tampered.code == 1
    result = tampered.json()
    assert result["intact"] is False and result["sha256_checked"] is False
    assert any("planted.txt" in problem for problem in result["problems"])


# ------------------------------------------------------------------ bad input, named
def test_verify_bundle_on_a_missing_file_is_bad_input(tmp_path: Path) -> None:
    for given, what in ((tmp_path / "absent.zip", "no such file"), (tmp_path, "is a directory")):
        run = cli("verify-bundle", given)
        assert run.code == 2 and run.out == ""
        err = one_line_refusal(run, "verify-bundle")
        assert f"{given}: {what}" in err and "baccarat-audit bundle" in err


@pytest.mark.parametrize(
    ("command", "day_option"),
    [
        pytest.param("exceptions", (), id="exceptions"),
        pytest.param("exceptions", ("--gaming-day", DAY.isoformat()), id="exceptions-day"),
        pytest.param("bundle", (), id="bundle"),
        pytest.param("bundle", ("--date", DAY.isoformat()), id="bundle-day"),
    ],
)
def test_an_unknown_table_lists_the_known_ones(
    day: Day, tmp_path: Path, command: str, day_option: tuple[str, ...]
) -> None:
    writes = ("--out", f"{tmp_path}/") if command == "bundle" else ()
    run = cli(command, "--db", day.db, "--table", "T99", *day_option, *writes)
    assert run.code == 2 and run.out == ""
    err = one_line_refusal(run, command)
    on_day = f" on gaming day {DAY}" if day_option else ""
    assert f"--table 'T99' is unknown to the ledger {day.db}{on_day}: " in err
    assert "it holds events of T01, T02;" in err
    assert list(tmp_path.iterdir()) == []


def test_a_table_unknown_on_that_day_says_the_day_holds_none(day: Day) -> None:
    run = cli("exceptions", "--db", day.db, "--table", "T01", "--gaming-day", "2026-11-25")
    assert run.code == 2
    err = one_line_refusal(run, "exceptions")
    assert (
        "on gaming day 2026-11-25: it holds no table's events; check the table id and the day"
        in err
    )


@pytest.mark.parametrize(
    ("given", "written"),
    [
        pytest.param("fresh/", "fresh/evidence-table-T01.zip", id="trailing-slash"),
        pytest.param("fresh", "fresh/evidence-table-T01.zip", id="no-suffix"),
        pytest.param("a/b.d/", "a/b.d/evidence-table-T01.zip", id="dotted-directory"),
        pytest.param("deep/named.zip", "deep/named.zip", id="zip-name"),
        pytest.param("deep/NAMED.ZIP", "deep/NAMED.ZIP", id="zip-name-upper"),
    ],
)
def test_bundle_out_a_directory_unless_named_zip(
    day: Day, tmp_path: Path, given: str, written: str
) -> None:
    """A bundle is a zip: ``--out`` names the zip only when it ends in ``.zip``; any other
    path that does not exist yet is a directory, made for it."""
    run = cli("bundle", "--db", day.db, "--table", "T01", "--out", given, cwd=tmp_path)
    assert run.code == 0, run.err
    assert run.out.startswith(f"wrote {written} (")
    assert zipfile.is_zipfile(tmp_path / written)


def test_bundle_refusing_a_selection_makes_no_directory(day: Day, tmp_path: Path) -> None:
    run = cli("bundle", "--db", day.db, "--round", "T01-nope", "--out", tmp_path / "fresh/")
    assert run.code == 2
    assert "no round 'T01-nope'" in one_line_refusal(run, "bundle")
    assert not (tmp_path / "fresh").exists()


# ------------------------------------------------------------------ the exception queue as text
def test_each_exception_shows_its_id_status_and_holder(day: Day, tmp_path: Path) -> None:
    db = tmp_path / "ledger.duckdb"
    db.write_bytes(day.db.read_bytes())
    items = cli("exceptions", "--db", db, "--json", "--limit", "3").json()["items"]
    acked, held, untouched = (item["exception_id"] for item in items)
    for action in (
        ("--exception", acked, "--action", "ACKNOWLEDGE"),
        ("--exception", held, "--action", "ASSIGN", "--assignee", "rivera"),
    ):
        done = cli("ack", "--db", db, *action, "--note", "reviewed", "--actor", "demo-analyst")
        assert done.code == 0, done.err
    text = cli("exceptions", "--db", db, "--limit", "3")
    assert text.code == 0, text.err
    by_id = {line.split(" ", 1)[0]: line for line in text.out.splitlines()[:3]}
    assert by_id[acked].startswith(f"{acked} ACKNOWLEDGED, unassigned: [")
    assert by_id[held].startswith(f"{held} OPEN, held by rivera: [")
    assert by_id[untouched].startswith(f"{untouched} OPEN, unassigned: [")
    statuses = {
        item["exception_id"]: item["status"]
        for item in cli("exceptions", "--db", db, "--json", "--limit", "3").json()["items"]
    }
    assert statuses == {acked: "ACKNOWLEDGED", held: "OPEN", untouched: "OPEN"}


def test_the_exceptions_min_rank_hid_are_counted(day: Day) -> None:
    """Data repairs (``NJ-DATA-REORDERED``, ``NJ-DATA-DUPLICATE``) are INFO: the default
    --min-rank 1 leaves them out, and says how many."""
    every = cli("exceptions", "--db", day.db, "--min-rank", "0", "--limit", "100000", "--json")
    info = sum(item["severity"] == "INFO" for item in every.json()["items"])
    assert info > 0
    listed = cli("exceptions", "--db", day.db, "--limit", "100000")
    assert listed.code == 0
    noun = "exception" if info == 1 else "exceptions"
    assert listed.out.splitlines()[-1] == (
        f"{info} INFO {noun} hidden by --min-rank 1 (LOW); --min-rank 0 shows them"
    )
    as_json = cli("exceptions", "--db", day.db, "--limit", "1", "--json").json()
    assert as_json["hidden_below_min_rank"] == {"INFO": info}
    shown_all = cli("exceptions", "--db", day.db, "--min-rank", "0", "--limit", "100000")
    assert "hidden by --min-rank" not in shown_all.out


# ------------------------------------------------------------------ help, version, progress
def _options() -> Iterator[tuple[str, argparse.Action]]:
    """Every command's every option and argument, named ``COMMAND OPTION``."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in commands.choices.items():
        for action in command._actions:
            if action.dest != "help":
                yield f"{name} {'/'.join(action.option_strings) or action.dest}", action


def test_every_option_of_every_command_says_what_it_is() -> None:
    options = list(_options())
    assert len(options) > 80  # not vacuous
    assert [name for name, action in options if not action.help] == []


def test_help_shows_the_defaults() -> None:
    run = cli("simulate", "--help")
    assert run.code == 0
    flat = " ".join(run.out.split())
    assert "tables to emulate (default: 6)" in flat
    assert "(default: none)" in flat and f"(default: {DAY.isoformat()})" in flat


def test_version() -> None:
    run = cli("--version")
    assert run.code == 0 and run.out.startswith("baccarat-audit ")


def test_simulate_and_demo_emulate_the_same_day_by_default() -> None:
    parser = build_parser()
    simulate = parser.parse_args(["simulate"])
    demo = parser.parse_args(["demo"])
    assert simulate.date == demo.date == DAY == date(2026, 11, 24)


def test_no_progress_noise_when_not_on_a_terminal(day: Day) -> None:
    """stderr is a pipe in :func:`cli`: the long commands print their results and nothing
    else (no bar, no spinner, no escape sequences)."""
    for run in (day.simulated, day.replayed, day.closed):
        assert run.err == "", run.err
        assert "\x1b" not in run.out


# ------------------------------------------------------------------ make and the demo
ROOT = Path(__file__).resolve().parents[1]


def test_make_help_lists_every_target() -> None:
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):(?!=)", makefile, re.MULTILINE))
    assert {"run", "test", "demo-stream", "dashboard", "shell"} <= targets  # not vacuous
    shown = subprocess.run(
        ["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    missing = [t for t in sorted(targets - {"help"}) if f"make {t} " not in shown]
    assert missing == []
    assert "DASHBOARD_PORT=" in shown and ".venv/bin/baccarat-audit" in shown


def test_the_demo_table_stays_aligned_on_a_94_million_dollar_handle() -> None:
    from pipeline.demo import text_table

    lines = text_table(
        ("table", "game", "handle", "exceptions"),
        [("T01", "PUNTO_BANCO", "$94,123,456.50", 3), ("T02", "MINI", "$5.00", 12_345)],
        right={"handle", "exceptions"},
    )
    assert len({len(line) for line in lines}) == 1  # every line as long: columns line up
    assert lines[1].index("$94") + len("$94,123,456.50") == lines[2].index("$5.00") + 5
    assert lines[0].endswith("exceptions") and lines[2].endswith("12345")


def test_the_next_step_names_a_command_a_fresh_shell_finds() -> None:
    from pipeline.demo import installed_command

    command = installed_command()
    assert command.endswith("baccarat-audit") or command.endswith(" -m pipeline")
    if command.endswith("baccarat-audit"):
        assert Path(command).exists()  # a path, not a bare name that needs PATH


def on_a_terminal(
    argv: list[str | Path], env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], bytes]:
    """``python ARGV`` with stderr on a terminal (a pseudo-terminal) and stdout a pipe: the
    finished process, and everything drawn on the terminal."""
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, *map(str, argv)],
            stdout=subprocess.PIPE,
            stderr=follower,
            text=True,
            timeout=300,
            env={**os.environ, "TERM": "xterm", "COLUMNS": "160", **(env or {})},
        )
        os.close(follower)
        drawn = b""
        with contextlib.suppress(OSError):  # the terminal reports EIO once drained
            while chunk := os.read(leader, 65536):
                drawn += chunk
    finally:
        os.close(leader)
    return done, drawn


def test_progress_is_drawn_on_a_terminal(tmp_path: Path) -> None:
    """The same command with stderr on a terminal (a pseudo-terminal here) shows its bar
    there, and its stdout still carries only the results."""
    done, drawn = on_a_terminal(
        ["-m", "pipeline", "simulate", "--tables", "2", "--hours", "0.2", "--workers", "1",
         "--out", tmp_path]
    )  # fmt: skip
    assert done.returncode == 0
    assert b"emulating tables" in drawn
    assert "emulating" not in done.stdout and "\x1b" not in done.stdout
    assert done.stdout.startswith("wrote 2 table files")


def test_a_long_command_names_each_stage_as_it_runs(day: Day, tmp_path: Path) -> None:
    done, drawn = on_a_terminal(
        ["-m", "pipeline", "replay", day.out / "events", "--db", tmp_path / "ledger.duckdb"]
    )
    assert done.returncode == 0, drawn
    assert b"loading: ingest and replay 2 files" in drawn
    assert f"loading: patterns {DAY}".encode() in drawn
    assert "loading" not in done.stdout


def test_the_nightly_audit_names_each_stage_as_it_runs(tmp_path: Path) -> None:
    """The demo's audit steps name themselves on its bar (plain here; a Prefect flow run
    runs the same steps in the same process)."""
    done, drawn = on_a_terminal(
        ["-m", "pipeline", "demo", "--plain", "--tables", "1", "--hours", "0.5",
         "--out", tmp_path]
    )  # fmt: skip
    assert done.returncode in (0, 1), drawn  # 1: a fault the ground truth does not explain
    for stage in ("ingest and replay T01.avro", "patterns", "quality", "close"):
        assert f"auditing: {stage}".encode() in drawn, stage
    assert "auditing" not in done.stdout.replace("2. nightly audit", "")


def test_no_prefect_telemetry_notice_on_the_terminal(tmp_path: Path) -> None:
    """Prefect prints a telemetry notice on its first import in a terminal; importing the
    flows first sets the client's switch (DO_NOT_TRACK) before Prefect is imported."""
    from prefect._internal.analytics.ci_detection import CI_ENV_VARS

    # a first run, by a person at a terminal: no opt-out, no CI
    fresh = {"PREFECT_HOME": str(tmp_path / "prefect"), "DO_NOT_TRACK": ""}
    fresh |= {variable: "" for variable in CI_ENV_VARS}
    notice = b"Prefect collects anonymous usage data"
    bare, drawn = on_a_terminal(["-c", "import prefect"], env=fresh)
    assert bare.returncode == 0 and notice in drawn  # what there is to keep out
    (tmp_path / "prefect").rename(tmp_path / "seen")  # a first import again
    flows, drawn = on_a_terminal(["-c", "import flows.audit"], env=fresh)
    assert flows.returncode == 0 and notice not in drawn
