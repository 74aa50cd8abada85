"""Where the dashboards read from, without ever standing in the writer's way.

DuckDB lets one process write a database file only while no other process has it open, even
read-only. A dashboard that kept the ledger open would stall ingestion; one that opened it
for every page would still hold it for the page's queries. So the dashboards read a
*snapshot*: when the ledger file changed (size or modification time of the file or its WAL),
they open it read-only just long enough to copy it (the shared lock makes the copy consistent:
no writer can be in the middle of a checkpoint), close it, and run every query on the copy
(:mod:`pipeline.ledger.snapshots` takes the copy; when to take one is decided here).

- The writer waits at most for one file copy, and only after it changed the file.
- If the writer holds the file, the dashboards keep serving the last snapshot and say how old
  it is; only a dashboard that never got one reports the ledger as busy.
- A stream holds the file for as long as a close runs beside its batches; then it writes the
  readers' copy itself when they ask for one (:class:`~pipeline.stream.ledgers.OneLedger`),
  and a dashboard that cannot open the file asks, and takes that copy when it is newer than
  its own snapshot (:func:`pipeline.ledger.snapshots.take_writers_copy`).
- Acknowledgements are not written to the ledger at all (see :mod:`pipeline.bundle.acks`).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from pipeline.bundle.acks import AckJournal
from pipeline.ledger import snapshots
from pipeline.ledger.store import Ledger, LedgerError

DEFAULT_DB = Path("out/ledger.duckdb")
LOCK_RETRIES = 5
LOCK_RETRY_SECONDS = 0.1
BUSY_POLL_SECONDS = 0.02
"""How often a :func:`refresher` tries again while the writer holds the ledger."""


def ledger_path() -> Path:
    """The ledger the dashboards show: ``$BACCARAT_DB``, default ``out/ledger.duckdb``."""
    return Path(os.environ.get("BACCARAT_DB") or DEFAULT_DB)


def journal(ledger_id: str | None = None) -> AckJournal:
    """The acknowledgement journal of the ledger shown (``$BACCARAT_ACKS`` overrides), bound
    to ``ledger_id`` (the ledger's :attr:`~pipeline.ledger.store.Ledger.ledger_id`, read
    from a snapshot): its records name it, and it is needed to append one."""
    return AckJournal.for_ledger(ledger_path(), ledger_id)


class LedgerUnavailable(RuntimeError):
    """No snapshot could be taken and none was taken before; the message says why."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    live: Path
    path: Path
    taken_at: datetime
    signature: tuple[int, ...]
    busy: str | None = None  # why a newer snapshot could not be taken, if it could not
    by_writer: bool = False
    """Written by the ledger's writer while it held the file (a close ran beside the stream's
    batches); ``taken_at`` is then when the writer read its state."""

    @property
    def key(self) -> str:
        """Changes whenever the data may have: use it in cache keys."""
        return f"{self.path}:{self.signature}"


_lock = threading.Lock()
_snapshots: dict[Path, Snapshot] = {}
_retired: list[tuple[Path, float]] = []
RETIRED_SECONDS = 30.0
"""How long a superseded copy is kept for page runs that took it. While a stream writes the
ledger, the live pages take a new copy about every second (:mod:`dashboards.live`), so this
bounds the disk the copies use to about 30 of them."""
_dir: Path | None = None


def _snapshot_dir() -> Path:
    global _dir
    if _dir is None:
        _dir = Path(tempfile.mkdtemp(prefix="baccarat-dashboard-"))
        atexit.register(shutil.rmtree, _dir, True)
    return _dir


def _take(live: Path, tries: int) -> Snapshot:
    last: Exception | None = None
    for attempt in range(tries):
        try:
            copy, signature = snapshots.take_copy(live, _snapshot_dir())
        except snapshots.Unreadable as err:
            last = err
            if attempt + 1 < tries:
                time.sleep(LOCK_RETRY_SECONDS * (attempt + 1))
            continue
        return Snapshot(live, copy, datetime.now(UTC), signature)
    raise LedgerUnavailable(
        f"{live}: cannot be read right now ({last}); a writer may hold it. The dashboards "
        "retry on the next refresh."
    )


def _writers_copy(live: Path, current: Snapshot | None) -> Snapshot | None:
    """The copy the writer of ``live`` wrote for its readers while it holds the file, if it
    is newer than ``current``; asks for the next one either way."""
    snapshots.ask_for_copy(live)
    newer_than = current.taken_at.timestamp() if current is not None else 0.0
    taken = snapshots.take_writers_copy(live, _snapshot_dir(), newer_than)
    if taken is None:
        return None
    copy, read_at, signature = taken
    return Snapshot(live, copy, datetime.fromtimestamp(read_at, UTC), signature, by_writer=True)


def snapshot(live: Path | None = None) -> Snapshot:
    """The current snapshot of the ledger, refreshed when the file changed. While a
    :func:`refresher` keeps the ledger's snapshots, a page run tries once and does not wait
    (the refresher waits instead)."""
    live = (live or ledger_path()).absolute()
    if not live.exists():
        raise LedgerUnavailable(
            f"{live}: no ledger here yet. Run `baccarat-audit demo --out {live.parent}` "
            "or point BACCARAT_DB at one."
        )
    kept = live in _refreshers
    return _refresh(live, patient=not kept, wait_for_lock=not kept)


def latest(live: Path | None = None) -> Snapshot | None:
    """The last snapshot taken of the ledger, if any, without touching a file."""
    return _snapshots.get((live or ledger_path()).absolute())


def _refresh(live: Path, patient: bool = True, wait_for_lock: bool = True) -> Snapshot:
    """A snapshot, a new one if the file changed: trying :data:`LOCK_RETRIES` times if
    ``patient``, else once; without ``wait_for_lock``, the last one while another thread
    is taking one."""
    if not _lock.acquire(blocking=wait_for_lock):
        current = _snapshots.get(live)
        if current is not None:
            return current  # the refresher is taking one right now
        _lock.acquire()
    try:
        current = _snapshots.get(live)
        if current is not None and current.signature == snapshots.signature(live):
            fresh = _snapshots[live] = replace(current, busy=None)
            return fresh
        try:
            fresh = _take(live, LOCK_RETRIES if patient else 1)
        except LedgerUnavailable as err:
            written = _writers_copy(live, current)
            if written is None:
                if current is None:
                    raise
                stale = _snapshots[live] = replace(current, busy=str(err))
                return stale
            fresh = written
        _snapshots[live] = fresh
        if current is not None and current.path != fresh.path:
            _retired.append((current.path, time.monotonic()))
        _remove_retired()
        return fresh
    finally:
        _lock.release()


_refreshers: dict[Path, threading.Thread] = {}


def refresher(every: float, live: Path | None = None) -> None:
    """Take the ledger's snapshots on a thread of the server about every ``every`` seconds
    (the first call for a ledger sets the pace), so that page runs need not wait for them.

    A snapshot of a ledger the stream writes may have to wait until the stream lends the file
    (:class:`~pipeline.stream.ledgers.OneLedger`; :data:`LOCK_RETRIES` tries over 1.5 s). In
    a page run, that wait held up the user's whole session, the live feed's part of the page
    included (:mod:`dashboards.feed`)."""
    live = (live or ledger_path()).absolute()
    if live in _refreshers:  # the live check asks every second: no wait for a copy under way
        return
    with _lock:
        if live in _refreshers:
            return
        thread = threading.Thread(
            target=_keep_taking, args=(live, every), name="ledger-snapshots", daemon=True
        )
        _refreshers[live] = thread
    thread.start()


def _keep_taking(live: Path, every: float) -> None:
    """Every ``every`` seconds, a snapshot: tried once every :data:`BUSY_POLL_SECONDS` until
    the writer lends the file or the next turn comes. A stream that is nearly always busy
    lends it only for the moment it polls the broker (at most once a second), which tries
    spaced like a page run's (0.1 to 0.5 s apart) mostly missed."""
    time.sleep(every)
    while live.exists():
        turn = time.monotonic() + every
        while True:
            try:
                taken = _refresh(live, patient=False)
            except LedgerUnavailable:  # none taken yet: page runs say why
                taken = None
            if (taken is not None and taken.busy is None) or time.monotonic() >= turn:
                break
            time.sleep(BUSY_POLL_SECONDS)
        time.sleep(max(0.0, turn - time.monotonic()))
    with _lock:
        del _refreshers[live]  # a ledger put back later gets a refresher again


def _remove_retired() -> None:
    """Delete superseded copies once no page run can still be about to open them (a run
    takes its snapshot in the sidebar and opens it moments later)."""
    keep: list[tuple[Path, float]] = []
    for path, since in _retired:
        if time.monotonic() - since < RETIRED_SECONDS:
            keep.append((path, since))
            continue
        _close_idle(path)
        snapshots.remove_copy(path)
    _retired[:] = keep


def reader(snap: Snapshot) -> AbstractContextManager[Ledger]:
    """A read-only :class:`Ledger` on the snapshot (:func:`read_copy`)."""
    return read_copy(snap.path)


_idle_lock = threading.Lock()
_idle: dict[Path, list[Ledger]] = {}
"""Read-only ledgers open on snapshot copies that no page run holds, by copy. Opening one
(the connection, and its views over the archived days) took 0.1 s of every question block
of a page run: a first visit to the investigator's page opened three."""


@contextmanager
def read_copy(path: Path) -> Iterator[Ledger]:
    """A read-only :class:`Ledger` on a snapshot copy given by its path (cache-friendly),
    lent to this page run alone: one left open by an earlier run when there is one, kept
    open afterwards while the copy is the current snapshot or a retired one still kept. A
    block that raises (``st.stop``, ``st.rerun`` or an error) closes it."""
    with _idle_lock:
        idle = _idle.get(path)
        ledger = idle.pop() if idle else None
    if ledger is None:
        ledger = _open_copy(path)
    try:
        yield ledger
    except BaseException:
        ledger.close()
        raise
    with _idle_lock:
        kept = path in {s.path for s in _snapshots.values()} | {p for p, _ in _retired}
        if kept:
            _idle.setdefault(path, []).append(ledger)
    if not kept:
        ledger.close()


def _open_copy(path: Path) -> Ledger:
    try:
        return Ledger(path, read_only=True, lent=True)
    except LedgerError as err:
        raise LedgerUnavailable(str(err)) from err
    except snapshots.ReadError as err:  # a database, not a ledger
        raise LedgerUnavailable(
            f"{ledger_path()} is not a ledger ({type(err).__name__}: {err}). Point "
            "BACCARAT_DB at a ledger baccarat-audit wrote; the pages try again when the "
            "file changes."
        ) from err


def _close_idle(path: Path) -> None:
    """Close the ledgers left open on a copy about to be removed."""
    with _idle_lock:
        idle = _idle.pop(path, [])
    for ledger in idle:
        ledger.close()
