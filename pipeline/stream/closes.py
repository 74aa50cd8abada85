"""Closing gaming day D while the stream writes day D+1.

DuckDB lets one process write a ledger file, and a stream holds it all day. A close run as a
process of its own would take the file between two batches and keep it for the whole close
(quality suite, pattern stage, seal, archive), and every table's events would wait for it. So
the stream's process runs the close itself, on a connection of its own in a thread beside the
consumer's: ``baccarat-audit close`` (:func:`ask`), finding a stream serving the ledger, leaves
a **close request** in the ledger's request folder (``<ledger>.closes/``); between two batches
the consumer takes it (:meth:`CloseServer.serve`), sets the day apart (its late events become
``CLOSED_GAMING_DAY`` dead letters from then on, as once it is sealed) and closes it while its
batches go on with the next day. DuckDB's transactions keep the two apart (a write-write
conflict reruns the batch, or the close); the consumer's connection makes its views again
once the day has moved to the archive (:class:`~pipeline.ledger.store.Ledger`). The answer,
the close's figures or what refused it, is left beside the request for the command, which
prints it as a close of its own would.

A stream killed in the middle of a close leaves the request it took (``<name>.json.taken``)
unanswered: the close's transaction rolled back, unless it had committed the seal before the
stream stopped. The next stream to serve the ledger, or ``baccarat-audit close`` finding none
serving it, answers each such request (:func:`answer_left_over`): the stream stopped before
answering, the day is sealed or not, what to do. A command still waiting learns it then.

Who closes is the request file's owner, as the kernel records it, not anything the file says:
the stream authorizes that account, or the user it names where the roles file's
``[accounts]`` lets the account act as them, for the same actions the command asks
(:mod:`pipeline.config.roles`). A request's name is checked against one pattern and nothing
in it becomes a path: the reports go to the stream's own ``--reports`` folder. The folder is
writable by every account and listable by the service account only (mode 1733, sticky), like
a mail spool: an operator can leave a request but neither read nor remove another's.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import pwd
import re
import secrets
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from pipeline.config.roles import Account, Action, Actor, authorized, load_roles
from pipeline.exits import EXIT_SOFTWARE, EXIT_TEMPFAIL, CommandError, explain
from pipeline.ledger.store import Ledger, LedgerConflict, LedgerError
from pipeline.reports.close import close_gaming_day, close_summary
from pipeline.rules.config import TableRules
from pipeline.safe_text import visible

log = logging.getLogger(__name__)

FOLDER_SUFFIX = ".closes"
SERVING = "serving.json"
_REQUEST = re.compile(r"(\d{4}-\d{2}-\d{2})\.([0-9a-f]{32})\.json")
ANSWER_SUFFIX = ".answer"
TAKEN_SUFFIX = ".taken"
_ANSWER = re.compile(r"\d{4}-\d{2}-\d{2}\.[0-9a-f]{32}\.answer\.json")
ANSWERS_KEPT_SECONDS = 3600
"""How long an answer waits for the command that asked (it removes what it reads when it
owns the folder's files): longer than the command's default wait; then the stream tidies it."""
CONFLICT_RETRIES = 3
"""Closes tried again after a write-write conflict with the consumer's batch (each rolls back
whole): the two write different days, so a conflict is rare and passes."""


def folder(ledger_path: Path) -> Path:
    """The request folder of a ledger file: ``<ledger>.closes`` beside it."""
    return ledger_path.with_name(ledger_path.name + FOLDER_SUFFIX)


@dataclass(frozen=True, slots=True)
class CloseRequest:
    """What ``baccarat-audit close`` asks of the stream; the account is the file's owner."""

    gaming_date: date
    actor: str | None = None
    accept_quality_failures: str | None = None
    allow_empty: str | None = None

    def actions(self) -> list[Action]:
        return [Action.CLOSE] + (
            [Action.ACCEPT_QUALITY_FAILURES] if self.accept_quality_failures else []
        )

    def close(
        self, ledger: Ledger, out: Path, actor: Actor, catalog: Mapping[str, TableRules]
    ) -> dict[str, Any]:
        """Close the day on ``ledger`` as ``actor``, reports to ``out``; what the close tells
        (:func:`~pipeline.reports.close.close_summary`)."""
        closed = close_gaming_day(
            ledger,
            self.gaming_date,
            out,
            actor=actor.name,
            actor_source=actor.source,
            accept_quality_failures=self.accept_quality_failures,
            allow_empty=self.allow_empty,
            catalog=catalog,
        )
        return close_summary(closed, actor.name, actor.source)


def serving(ledger_path: Path) -> dict[str, Any] | None:
    """The stream serving closes of ``ledger_path`` (its host, pid and start), or ``None``
    when none is: no marker, or one left by a process of this host that is gone."""
    marker = _marker(folder(ledger_path))
    return marker if marker is not None and _alive(marker) else None


def _marker(requests: Path) -> dict[str, Any] | None:
    """The serving marker in the request folder ``requests``, alive or not; ``None`` when
    there is none a stream could have written."""
    try:
        marker = json.loads((requests / SERVING).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return dict(marker) if isinstance(marker, dict) else None


def _alive(marker: Mapping[str, Any]) -> bool:
    """Whether the stream ``marker`` names may still run: its process is alive, or it ran
    on another host (which this one cannot ask)."""
    if marker.get("host") != socket.gethostname():
        return True
    try:
        os.kill(int(marker["pid"]), 0)
    except ProcessLookupError:
        return False  # killed without stopping: its marker is stale
    except PermissionError:
        return True  # alive, under another account
    except (KeyError, TypeError, ValueError):
        return False  # no pid a stream writes: not a stream's marker
    return True


def _stream(marker: Mapping[str, Any] | None) -> str:
    """The stream a marker names, for a message (its text made visible: anyone may write a
    marker where none is)."""
    if marker is None:
        return "the stream"
    return visible(f"the stream (pid {marker.get('pid')} on {marker.get('host')})")


def left_over(ledger_path: Path) -> list[Path]:
    """The close requests of ``ledger_path`` a stream took and never answered, oldest name
    first; :class:`PermissionError` for an account that cannot list the request folder (only
    the stream's can, mode 1733)."""
    try:
        names = sorted(folder(ledger_path).iterdir())
    except FileNotFoundError:
        return []
    return [
        path
        for path in names
        if path.name.endswith(TAKEN_SUFFIX)
        and _day_requested(path.name.removesuffix(TAKEN_SUFFIX)) is not None
    ]


def _day_requested(name: str) -> date | None:
    """The gaming date a request's file name asks to close, or ``None`` for a name that is no
    request's or no date."""
    match = _REQUEST.fullmatch(name)
    if match is None:
        return None
    try:
        return date.fromisoformat(match[1])
    except ValueError:
        return None


def answer_left_over(
    ledger_path: Path, ledger: Ledger | None = None, reports: Path | None = None
) -> list[str]:
    """Answer each request :func:`left_over` finds, as its stream would have (exit
    :data:`~pipeline.exits.EXIT_TEMPFAIL`, as when the stream does not answer in time), and
    remove it: the stream stopped before answering, the day is sealed (the close committed
    first) or not (it rolled back), what to do. What each answer says, for the log or the
    person; a note when the request folder cannot be listed behind a stream that stopped.

    Only where no live stream serves the ledger (its requests are its own): by a stream
    starting to serve it, and by ``baccarat-audit close`` finding none. ``ledger``: the
    ledger as this process has it open (else opened here, if anything is left over);
    ``reports``: where the stream wrote its reports (the sealed day's belong there)."""
    requests = folder(ledger_path)
    marker = _marker(requests)
    try:
        taken = left_over(ledger_path)
    except PermissionError:
        if marker is None:
            return []
        return [
            f"{_stream(marker)} that served {ledger_path} stopped without removing its mark; "
            f"a close it took and did not answer is left in {requests}, which only the "
            "account running the stream can list: the stream answers it when it starts "
            "again, or run baccarat-audit close as that account"
        ]
    if not taken:
        return []
    sealed = _sealed_days(ledger_path, ledger)
    told = []
    for path in taken:
        name = path.name.removesuffix(TAKEN_SUFFIX)
        day = _day_requested(name)
        assert day is not None, "left_over keeps requests of a date only"
        message = (
            f"{_stream(marker)} that took the close of {day} stopped before answering it: "
            + _what_to_do(ledger_path, day, sealed, reports)
        )
        answer = {"ok": False, "exit": EXIT_TEMPFAIL, "error": message}
        _leave_answer(path, name.removesuffix(".json"), answer)
        told.append(message)
    return told


def _sealed_days(ledger_path: Path, ledger: Ledger | None) -> set[date] | LedgerError:
    """The days ``ledger`` (or the file at ``ledger_path``) holds sealed, or why they could not
    be read; no file: none."""
    if ledger is not None:
        return ledger.closed_days()
    if not ledger_path.exists():
        return set()
    try:
        with Ledger(ledger_path) as opened:
            return opened.closed_days()
    except LedgerError as err:
        return err


def _what_to_do(
    ledger_path: Path, day: date, sealed: set[date] | LedgerError, reports: Path | None
) -> str:
    """What became of a close whose stream stopped before answering, and what to do."""
    db = f"--db {ledger_path} --gaming-day {day}"
    if isinstance(sealed, LedgerError):
        return (
            f"whether gaming day {day} is sealed could not be read ({sealed}); look with "
            f"baccarat-audit verify {db}, and if it is not, run baccarat-audit close {db} again"
        )
    if day in sealed:
        out = f" --out {reports}" if reports is not None else ""
        return (
            f"gaming day {day} is sealed; if this close sealed it, the stream may have stopped "
            f"before writing its reports: write them with baccarat-audit report {db}{out}"
        )
    return (
        f"gaming day {day} is not sealed (the close rolled back with the stream); run "
        f"baccarat-audit close {db} again"
    )


def ask(ledger_path: Path, request: CloseRequest, *, wait: float) -> dict[str, Any]:
    """Leave ``request`` for the stream serving ``ledger_path`` and return its answer
    (``{"ok": true, ...}`` with :func:`~pipeline.reports.close.close_summary`'s figures, or
    ``{"ok": false, "exit": code, "error": message}``). :class:`TimeoutError` after ``wait``
    seconds without one: the request is withdrawn first unless the stream took it."""
    token = secrets.token_hex(16)
    name = f"{request.gaming_date.isoformat()}.{token}"
    path = folder(ledger_path) / f"{name}.json"
    answer = path.with_name(f"{name}{ANSWER_SUFFIX}.json")
    body = {
        "actor": request.actor,
        "accept_quality_failures": request.accept_quality_failures,
        "allow_empty": request.allow_empty,
    }
    partial = path.with_name(f".{name}.partial")
    partial.write_text(json.dumps(body), encoding="utf-8")
    partial.rename(path)  # the stream never sees half a request
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if answer.exists():
            found: dict[str, Any] = json.loads(answer.read_text(encoding="utf-8"))
            with contextlib.suppress(OSError):
                # the stream's account owns it in the sticky folder; the stream tidies it
                answer.unlink(missing_ok=True)
            return found
        time.sleep(0.1)
    try:
        path.unlink()
    except FileNotFoundError:
        raise TimeoutError(
            f"the stream took the close of {request.gaming_date} and has not answered within "
            f"{wait:g} s; it goes on: look for the seal with baccarat-audit verify --gaming-day "
            f"{request.gaming_date}, or its answer in {answer}"
        ) from None
    raise TimeoutError(
        f"the stream serving {ledger_path} did not take the close of {request.gaming_date} "
        f"within {wait:g} s (it takes requests between batches); the request was withdrawn. "
        "Is the stream stuck? Its log says; try again, or stop it and close without it"
    )


class CloseServer:
    """Serves close requests from inside a stream's process (the module docstring says how).

    :meth:`start` marks the ledger as served, :meth:`serve` takes new requests between two
    batches, :meth:`closing` names the days being closed, :meth:`stop` waits for the closes
    running and removes the mark."""

    def __init__(self, ledger_path: Path, reports: Path, catalog: Mapping[str, TableRules]) -> None:
        self.ledger_path = Path(ledger_path).resolve()
        self.reports = Path(reports).resolve()
        self.catalog = catalog
        self.folder = folder(self.ledger_path)
        self._running: dict[date, threading.Thread] = {}
        self._lock = threading.Lock()
        self.answered = 0

    def start(self) -> None:
        """Mark the ledger as served, in place of a stale marker; first answer the requests a
        stream that stopped took and left unanswered (:func:`answer_left_over`). A marker of
        a stream still alive keeps its requests: they are its to answer."""
        self.folder.mkdir(exist_ok=True)
        self.folder.chmod(0o1733)
        before = _marker(self.folder)
        if before is not None and _alive(before) and not _this_process(before):
            log.warning(
                "%s also marks %s as served: the close requests it took are left to it; two "
                "streams writing one ledger wait for each other's lock",
                _stream(before),
                self.ledger_path,
            )
        else:
            for told in answer_left_over(self.ledger_path, reports=self.reports):
                log.warning("answered a close request left over in %s: %s", self.folder, told)
        marker = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.time()}
        partial = self.folder / f".{SERVING}.partial"
        partial.write_text(json.dumps(marker), encoding="utf-8")
        partial.rename(self.folder / SERVING)

    def stop(self) -> None:
        """Wait for the closes running, and unmark the ledger unless another stream has
        marked it since (its mark is its own)."""
        for thread in list(self._running.values()):
            thread.join()
        marker = _marker(self.folder)
        if marker is not None and _this_process(marker):
            (self.folder / SERVING).unlink(missing_ok=True)

    def closing(self) -> set[date]:
        with self._lock:
            return set(self._running)

    def serve(self) -> None:
        """Start a close for each new request (a day already closing waits its turn), and
        remove the answers nobody collected within :data:`ANSWERS_KEPT_SECONDS`."""
        for path in sorted(self.folder.iterdir()):
            match = _REQUEST.fullmatch(path.name)
            if match is None:
                if _ANSWER.fullmatch(path.name) and _older_than(path, ANSWERS_KEPT_SECONDS):
                    path.unlink(missing_ok=True)
                continue  # the marker, a partial request, or not ours to read
            stem = f"{match[1]}.{match[2]}"
            try:
                day = date.fromisoformat(match[1])
            except ValueError:
                refused = CommandError(
                    f"close request {path.name}: {match[1]} is not a date; ask again with "
                    "baccarat-audit close --gaming-day YYYY-MM-DD"
                )
                self._answer(path, stem, _refusal(refused))
                continue
            with self._lock:
                if day in self._running:
                    continue
                taken = path.with_name(path.name + TAKEN_SUFFIX)
                try:
                    path.rename(taken)
                except FileNotFoundError:
                    continue  # withdrawn
                thread = threading.Thread(
                    target=self._close, args=(taken, stem, day), name=f"close {day}", daemon=True
                )
                self._running[day] = thread
            thread.start()

    def _close(self, taken: Path, stem: str, day: date) -> None:
        try:
            try:
                answer = {"ok": True, **self._closed(taken, day)}
            except Exception as err:  # every failure is the asker's answer, not the stream's
                answer = _refusal(err)
                if answer["exit"] == EXIT_SOFTWARE:
                    log.exception("the close of %s failed", day)
            self._answer(taken, stem, answer)
        finally:  # running until answered: stop() waits for the answer too
            with self._lock:
                self._running.pop(day, None)

    def _answer(self, request: Path, stem: str, answer: Mapping[str, Any]) -> None:
        _leave_answer(request, stem, answer)
        self.answered += 1

    def _closed(self, taken: Path, day: date) -> dict[str, Any]:
        try:
            body = json.loads(taken.read_text(encoding="utf-8"))
        except ValueError as err:
            raise CommandError(
                f"close request {taken.name}: not JSON ({err}); ask again with baccarat-audit "
                "close, which writes requests"
            ) from err
        if not isinstance(body, dict):
            raise CommandError(
                f"close request {taken.name}: a JSON {type(body).__name__}, not an object; ask "
                "again with baccarat-audit close, which writes requests"
            )
        request = CloseRequest(
            day,
            actor=_text(body, "actor"),
            accept_quality_failures=_text(body, "accept_quality_failures"),
            allow_empty=_text(body, "allow_empty"),
        )
        actor = authorized(request.actor, request.actions(), load_roles(), owner(taken))
        conflicts = 0
        while True:
            try:
                with Ledger(self.ledger_path) as ledger:
                    return request.close(ledger, self.reports, actor, self.catalog)
            except LedgerConflict:
                conflicts += 1
                if conflicts > CONFLICT_RETRIES:
                    raise
                log.info("the close of %s met a batch's write; closing it again", day)


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime > seconds
    except FileNotFoundError:
        return False


def _this_process(marker: Mapping[str, Any]) -> bool:
    """Whether ``marker`` names this process: left by an earlier one that had its pid (a
    container's stream starts with the same pid each time), as this one marks only once."""
    return marker.get("host") == socket.gethostname() and marker.get("pid") == os.getpid()


def _leave_answer(request: Path, stem: str, answer: Mapping[str, Any]) -> None:
    """Leave ``answer`` where :func:`ask` looks for it (readable by the asker), then remove
    the request."""
    answer_path = request.with_name(f"{stem}{ANSWER_SUFFIX}.json")
    partial = answer_path.with_name(f".{answer_path.name}.partial")
    partial.write_text(json.dumps(answer, default=str), encoding="utf-8")
    partial.chmod(0o644)
    partial.rename(answer_path)
    request.unlink(missing_ok=True)


def _refusal(err: Exception) -> dict[str, Any]:
    """A failed close as the asker's answer: the exit code and message the command line
    gives for ``err`` (:func:`pipeline.exits.explain`); one it does not know is a bug."""
    code, message = explain(err) or (EXIT_SOFTWARE, f"{type(err).__name__}: {err}")
    return {"ok": False, "exit": code, "error": message}


def owner(path: Path) -> Account:
    """The account owning ``path``: who left a request, as the kernel says."""
    uid = path.stat().st_uid
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = f"uid {uid}"
    return Account(name, f"operating-system account {name} (owner of the close request)")


def _text(body: Mapping[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise CommandError(
            f"close request: {key} must be text, not {type(value).__name__}; ask again with "
            "baccarat-audit close, which writes requests"
        )
    return value
