"""A stream killed in the middle of a close (:mod:`pipeline.stream.closes`) leaves the request
it took, renamed ``.taken``, and its serving marker naming a process that is gone. The next
stream to serve the ledger, or ``baccarat-audit close`` finding none serving it, answers that
request: the stream stopped before answering, the day is sealed or not (as the ledger says),
what to do; a command still waiting gets that answer, with exit 75 as when a stream does not
answer in time. No broker: the close server is driven directly, and the killed stream is a
marker and a taken request written as it left them, under the pid of a finished process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.exits import EXIT_TEMPFAIL
from pipeline.ledger.store import Ledger
from pipeline.reports.close import close_gaming_day
from pipeline.rules.config import TableRules
from pipeline.stream.closes import (
    SERVING,
    CloseRequest,
    CloseServer,
    answer_left_over,
    ask,
    folder,
    serving,
)

SEALED = date(2026, 11, 24)
OPEN = SEALED + timedelta(days=1)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A ledger with ``SEALED`` closed (empty, for speed) and ``OPEN`` not."""
    path = tmp_path / "ledger.duckdb"
    with Ledger(path) as ledger:
        close_gaming_day(
            ledger,
            SEALED,
            tmp_path / "reports",
            actor="accountant",
            actor_source="command line",
            allow_empty="the table was dark all day",
        )
    return path


def finished_pid() -> int:
    """The pid of a process that has ended: a stream killed without stopping."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A process alive for the test: a stream still running."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield process
    process.kill()
    process.wait()


def left_by_a_stream(db: Path, pid: int, *days: date) -> list[str]:
    """The request folder as a stream of ``pid`` left it, killed while closing ``days``:
    its marker and the requests it took; their stems."""
    requests = folder(db)
    requests.mkdir(exist_ok=True)
    marker = {"host": socket.gethostname(), "pid": pid, "started": time.time() - 60}
    (requests / SERVING).write_text(json.dumps(marker), encoding="utf-8")
    stems = [f"{day}.{i:032x}" for i, day in enumerate(days)]
    for stem in stems:
        (requests / f"{stem}.json.taken").write_text('{"actor": "accountant"}', encoding="utf-8")
    return stems


def answer_of(db: Path, stem: str) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(
        (folder(db) / f"{stem}.answer.json").read_text(encoding="utf-8")
    )
    return answer


def test_a_stream_starting_answers_the_closes_a_killed_stream_took(
    db: Path, catalog: Mapping[str, TableRules], tmp_path: Path
) -> None:
    """A command waits for the close it asked; the stream that took it is killed before
    answering. The next stream, starting, answers it (exit 75, the day not sealed: close
    again) and another taken request of a day the ledger holds sealed (write its reports),
    replaces the stale marker, and serves on."""
    dead = finished_pid()
    (sealed_stem,) = left_by_a_stream(db, dead, SEALED)
    assert serving(db) is None, "a marker of a process that is gone is stale"
    answers: list[dict[str, Any]] = []
    waiting = threading.Thread(target=lambda: answers.append(ask(db, CloseRequest(OPEN), wait=60)))
    waiting.start()
    deadline = time.monotonic() + 10
    while not (asked := list(folder(db).glob(f"{OPEN}.*.json"))):
        assert time.monotonic() < deadline, "the command left no request"
        time.sleep(0.05)
    asked[0].rename(asked[0].with_name(asked[0].name + ".taken"))  # the killed stream took it

    server = CloseServer(db, tmp_path / "stream-reports", catalog)
    server.start()
    waiting.join(timeout=30)
    assert not waiting.is_alive(), "the waiting command got no answer"

    (answer,) = answers
    assert answer["ok"] is False and answer["exit"] == EXIT_TEMPFAIL, answer
    assert (
        f"(pid {dead} on {socket.gethostname()}) that took the close of {OPEN} stopped "
        in (answer["error"])
    )
    assert (
        f"gaming day {OPEN} is not sealed (the close rolled back with the stream); run "
        f"baccarat-audit close --db {db.resolve()} --gaming-day {OPEN} again" in answer["error"]
    )
    sealed = answer_of(db, sealed_stem)
    assert sealed["ok"] is False and sealed["exit"] == EXIT_TEMPFAIL, sealed
    assert f"gaming day {SEALED} is sealed;" in sealed["error"]
    assert (
        f"baccarat-audit report --db {db.resolve()} --gaming-day {SEALED} --out "
        f"{(tmp_path / 'stream-reports').resolve()}" in sealed["error"]
    )
    assert sorted(p.name for p in folder(db).iterdir()) == [
        f"{sealed_stem}.answer.json",
        SERVING,
    ], "no taken request is left"
    marker = serving(db)
    assert marker is not None and marker["pid"] == os.getpid(), "the stale marker is replaced"
    server.serve()  # serves on: nothing new to take
    server.stop()
    assert serving(db) is None


@pytest.mark.parametrize(
    ("whose", "answered"),
    [("a process that is gone", True), ("a process alive", False), ("this process", True)],
)
def test_only_a_stream_that_stopped_has_its_taken_requests_answered(
    whose: str,
    answered: bool,
    sleeper: subprocess.Popen[bytes],
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    """A marker naming a live process is a stream still closing what it took: its requests
    are left to it. One naming this very process was left by an earlier one given the same
    pid (a container's stream starts with the same pid each time): answered. No ledger
    file: the day cannot be sealed."""
    db = tmp_path / "ledger.duckdb"
    pid = {"a process that is gone": finished_pid(), "a process alive": sleeper.pid}.get(
        whose, os.getpid()
    )
    (stem,) = left_by_a_stream(db, pid, OPEN)
    server = CloseServer(db, tmp_path / "reports", catalog)
    server.start()
    server.stop()
    taken = folder(db) / f"{stem}.json.taken"
    answer = folder(db) / f"{stem}.answer.json"
    assert (taken.exists(), answer.exists()) == (not answered, answered)
    if answered:
        assert f"gaming day {OPEN} is not sealed" in answer_of(db, stem)["error"]
    assert not db.exists(), "no ledger is made to answer"


def test_the_close_command_finding_no_stream_answers_what_a_killed_one_left(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``baccarat-audit close`` with no stream serving the ledger closes the day itself; a
    close a killed stream took and left unanswered is answered first and the person told."""
    dead = finished_pid()
    (stem,) = left_by_a_stream(db, dead, OPEN)
    later = OPEN + timedelta(days=1)
    code = main(
        ["close", "--db", str(db), "--gaming-day", str(later), "--out", str(tmp_path / "out"),
         "--actor", "demo-controller", "--allow-empty", "the table was dark all day", "--json"]
    )  # fmt: skip
    assert code == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["gaming_date"] == str(later), "stdout keeps the close's JSON alone"
    assert f"a close request left over: the stream (pid {dead} on {socket.gethostname()})" in err
    assert f"gaming day {OPEN} is not sealed" in err
    assert not (folder(db) / f"{stem}.json.taken").exists()
    assert answer_of(db, stem)["exit"] == EXIT_TEMPFAIL


def test_an_account_that_cannot_list_the_requests_is_told_where_they_wait(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The request folder is listable by the stream's account only (mode 1733): an operator's
    ``close``, finding the stream gone, cannot see what it left; it says so and who answers
    it, and leaves the request. (The tests run as root, whom no mode stops: the refusal the
    kernel gives an operator is raised in its place.)"""
    db = tmp_path / "ledger.duckdb"
    dead = finished_pid()
    (stem,) = left_by_a_stream(db, dead, OPEN)
    requests = folder(db)
    listing = Path.iterdir

    def as_an_operator(path: Path) -> Iterator[Path]:
        if path == requests:
            raise PermissionError(13, "Permission denied", str(path))
        return listing(path)

    monkeypatch.setattr(Path, "iterdir", as_an_operator)
    (note,) = answer_left_over(db)
    assert note.startswith(f"the stream (pid {dead} on {socket.gethostname()}) that served {db}")
    assert f"left in {requests}, which only the account running the stream can list" in note
    assert (requests / f"{stem}.json.taken").exists()
    assert not db.exists()


def test_a_stream_stopping_leaves_the_mark_of_a_stream_started_after_it(
    db: Path, catalog: Mapping[str, TableRules], tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    """Two streams pointed at one ledger: the first to stop must not unmark the ledger the
    second now serves, or commands would close without it."""
    server = CloseServer(db, tmp_path / "stream-reports", catalog)
    server.start()
    left_by_a_stream(db, sleeper.pid)  # another stream marks the ledger as its own
    server.stop()
    marker = serving(db)
    assert marker is not None and marker["pid"] == sleeper.pid


def test_answers_nobody_collects_are_tidied_and_fresh_ones_kept(
    db: Path, catalog: Mapping[str, TableRules], tmp_path: Path
) -> None:
    """An answer waits for its command (which cannot remove it when the stream's account owns
    it in the sticky folder) for an hour, then the stream removes it between batches."""
    server = CloseServer(db, tmp_path / "stream-reports", catalog)
    server.start()
    old, fresh = (folder(db) / f"{OPEN}.{i:032x}.answer.json" for i in (1, 2))
    for answer in (old, fresh):
        answer.write_text('{"ok": true}', encoding="utf-8")
    two_hours_ago = time.time() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    server.serve()
    assert not old.exists() and fresh.exists()
    server.stop()


def test_a_command_reads_an_answer_it_may_not_remove(
    db: Path, catalog: Mapping[str, TableRules], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer file is the stream's in the sticky folder: an operator's command reads it
    and returns the answer though the kernel refuses the removal (raised here as the kernel
    would, the tests running as root)."""
    answered = threading.Event()

    def answer_it() -> None:
        deadline = time.monotonic() + 10
        while not (asked := list(folder(db).glob(f"{OPEN}.*.json"))):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        stem = asked[0].name.removesuffix(".json")
        asked[0].unlink()
        (folder(db) / f"{stem}.answer.json").write_text('{"ok": true}', encoding="utf-8")
        answered.set()

    folder(db).mkdir(exist_ok=True)
    real_unlink = Path.unlink

    def refused(path: Path, missing_ok: bool = False) -> None:
        if path.name.endswith(".answer.json"):
            raise PermissionError(1, "Operation not permitted", str(path))
        real_unlink(path, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", refused)
    thread = threading.Thread(target=answer_it)
    thread.start()
    assert ask(db, CloseRequest(OPEN), wait=20) == {"ok": True}
    thread.join()
    assert answered.is_set()
