"""The command line as an operator and a script meet it: wrong input, a locked or missing
ledger, a full disk and an unwritable report are one line on stderr with exit 2 (1 where a
person must act), never a traceback; every result a script reads has a ``--json`` form with
stable keys; ``exceptions`` says what its ``--limit`` left out; progress is drawn only on a
terminal. The real program runs in a subprocess wherever the process boundary matters."""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import re
import subprocess
import sys
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
    everything = cli("exceptions", "--db", day.db, "--json", "--limit", "100000").json()
    total = everything["total"]
    assert isinstance(total, int) and total > 3
    assert everything["shown"] == total and everything["omitted"] == 0

    cut = cli("exceptions", "--db", day.db, "--json", "--limit", "3").json()
    assert (cut["total"], cut["shown"], cut["omitted"]) == (total, 3, total - 3)
    assert isinstance(cut["items"], list) and len(cut["items"]) == 3

    text = cli("exceptions", "--db", day.db, "--limit", "3")
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


def test_progress_is_drawn_on_a_terminal(tmp_path: Path) -> None:
    """The same command with stderr on a terminal (a pseudo-terminal here) shows its bar
    there, and its stdout still carries only the results."""
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pipeline", "simulate", "--tables", "2", "--hours", "0.2",
             "--workers", "1", "--out", str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=follower,
            text=True,
            timeout=120,
            env={**os.environ, "TERM": "xterm", "COLUMNS": "100"},
        )  # fmt: skip
        os.close(follower)
        drawn = b""
        with contextlib.suppress(OSError):  # the terminal reports EIO once drained
            while chunk := os.read(leader, 65536):
                drawn += chunk
    finally:
        os.close(leader)
    assert done.returncode == 0
    assert b"emulating tables" in drawn
    assert "emulating" not in done.stdout and "\x1b" not in done.stdout
    assert done.stdout.startswith("wrote 2 table files")
