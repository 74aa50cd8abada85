"""Each close of a gaming day is a revision of its report, and every revision is kept.

The n-th CLOSE event of a day in the seal log is revision n. Its files are
``close-<date>.r<n>.json/.csv/.html/.xlsx`` beside the anchor file the close named, and are
never written over by a later close; the unnumbered ``close-<date>.*`` are the day's latest: a
copy of the newest revision, or, while the day is reopened, a notice that says so (its
``.html`` and ``.json``; the unnumbered ``.csv`` and ``.xlsx`` copies are removed, so no
unnumbered file still says CLOSED). A revision after the first states the reopens since the
previous close, with their actor, time and reason, as the signed REOPEN events hold them.

A revision's files are checked against its seal by rendering them again: the figures of its
JSON file must hash to the ``report_sha256`` the seal entry holds, and the seal, revision and
reopens come from the seal log; the bytes so rendered must be those on disk. ``verify`` checks
every revision whose files are in its close's folder; the dashboards check a file before
serving it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, date, time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pipeline.ledger.seal_record import CLOSE, REOPEN, SealEntry, last_entries, seal_log
from pipeline.ledger.store import Ledger
from pipeline.reports.figures import canonical
from pipeline.reports.render import (
    DOCUMENT_KEYS,
    CloseResult,
    report_files,
    report_templates,
    revision_name,
    write_atomically,
)
from pipeline.rules.gaming_day import GamingDay, micros_of

REPORT_SUFFIXES = (".json", ".csv", ".html", ".xlsx")
NOTICE_SUFFIXES = (".json", ".html")
"""The unnumbered files a reopen writes as its notice; the others are removed."""


@dataclass(frozen=True)
class Revision:
    number: int
    """1 for the day's first close, 2 for the close after its first reopen, ..."""
    reopens: tuple[SealEntry, ...]
    """The REOPEN events of the day since its previous close."""


def close_revision(log: Sequence[SealEntry], close: SealEntry) -> Revision:
    """Which revision of its day's report the CLOSE event ``close`` of ``log`` makes."""
    closes_before = 0
    reopens: list[SealEntry] = []
    for entry in log:
        if entry.gaming_date != close.gaming_date:
            continue
        if entry.seq == close.seq:
            break
        if entry.action == CLOSE:
            closes_before += 1
            reopens = []
        elif entry.action == REOPEN:
            reopens.append(entry)
    return Revision(closes_before + 1, tuple(reopens))


def reopen_record(entry: SealEntry) -> dict[str, Any]:
    """A reopen as a report states it."""
    return {
        "seq": entry.seq,
        "reopened_at": entry.sealed_at,
        "actor": entry.actor,
        "actor_source": entry.actor_source,
        "reason": entry.reason,
    }


def close_result(
    log: Sequence[SealEntry],
    close: SealEntry,
    content: dict[str, Any],
    quality_docs: Path | None,
    gaming_day: GamingDay,
) -> CloseResult:
    """The report of the CLOSE event ``close`` of ``log`` with the sealed figures
    ``content``; local times on ``gaming_day``'s clock."""
    seal = {k: v for k, v in asdict(close).items() if not k.endswith("_json")}
    seal["table_digests"] = close.table_digests
    seal["table_columns"] = json.loads(close.table_columns_json or "null")
    revision = close_revision(log, close)
    return CloseResult(
        close.gaming_date,
        content,
        hashlib.sha256(canonical(content)).hexdigest(),
        close.link,
        close.previous_link,
        len(content["blocking_exceptions"]),
        [],
        quality_docs,
        seal,
        gaming_day,
        revision.number,
        [reopen_record(r) for r in revision.reopens],
    )


def reports_folder(close: SealEntry, place: Path) -> Path | None:
    """Where the close of ``close`` wrote its reports: beside the anchor file it named
    (relative to the folder of the ledger at ``place``); ``None`` for a close that named none."""
    return (place.parent / close.anchor_path).parent if close.anchor_path else None


class RevisionMismatch(ValueError):
    """A revision's JSON report is missing or does not hold the figures its seal covers."""


def sealed_files(log: Sequence[SealEntry], close: SealEntry, folder: Path) -> dict[Path, bytes]:
    """The files of the revision ``close`` makes, as its seal renders them from the figures
    of its JSON file in ``folder``; :class:`RevisionMismatch` when that file is missing,
    unreadable, or its figures are not those the seal covers."""
    revision = close_revision(log, close).number
    source = folder / f"{revision_name(close.gaming_date, revision)}.json"
    where = f"{close.gaming_date}: {source} (revision {revision}, seal event {close.seq})"
    try:
        document = json.loads(source.read_bytes())
        content = {k: v for k, v in document.items() if k not in DOCUMENT_KEYS}
        rendered = document["rendered"]
        docs = rendered["quality_docs"]
        gaming_day = GamingDay(
            time.fromisoformat(rendered["gaming_day_starts"]),
            ZoneInfo(rendered["gaming_day_zone"]),
        )
    except FileNotFoundError as err:
        raise RevisionMismatch(f"{where}: missing") from err
    except (OSError, ValueError, TypeError, KeyError, ZoneInfoNotFoundError) as err:
        raise RevisionMismatch(f"{where}: not a close report ({err!r})") from err
    digest = hashlib.sha256(canonical(content)).hexdigest()
    if digest != close.report_sha256:
        raise RevisionMismatch(
            f"{where}: its figures (SHA-256 {digest}) are not those the seal covers "
            f"({close.report_sha256}): the file was edited or replaced"
        )
    try:
        result = close_result(
            log, close, content, folder / docs if isinstance(docs, str) else None, gaming_day
        )
        files = report_files(result, folder)
    except (ValueError, TypeError, KeyError) as err:  # an altered entry, named by verify
        raise RevisionMismatch(f"{where}: cannot be rendered from its seal ({err!r})") from err
    stem = revision_name(close.gaming_date, revision)
    return {p: b for p, b in files.items() if p.name.startswith(f"{stem}.")}


def revision_problems(
    log: Sequence[SealEntry], place: Path, only_day: date | None = None
) -> list[str]:
    """Every revision (of ``only_day``, if given) whose files are in its close's folder,
    against its seal: a file missing beside the others, or whose bytes are not those its
    seal renders. A close whose folder holds none of its revision's files (made before
    revisions, or its reports kept elsewhere) is left out."""
    problems = []
    for close in log:
        if close.action != CLOSE or only_day not in (None, close.gaming_date):
            continue
        folder = reports_folder(close, place)
        stem = revision_name(close.gaming_date, close_revision(log, close).number)
        if folder is None or not any((folder / f"{stem}{s}").exists() for s in REPORT_SUFFIXES):
            continue
        try:
            expected = sealed_files(log, close, folder)
        except RevisionMismatch as err:
            problems.append(str(err))
            continue
        for path, content in expected.items():
            problem = file_problem(path, content, close)
            if problem is not None:
                problems.append(f"{close.gaming_date}: {problem}")
    return problems


def file_problem(path: Path, sealed: bytes, close: SealEntry) -> str | None:
    """What is wrong with the report file at ``path`` against the bytes its seal renders
    (``sealed``); ``None`` when it is those bytes."""
    try:
        on_disk = path.read_bytes()
    except FileNotFoundError:
        return (
            f"{path}: missing (seal event {close.seq}); the other files of its revision are "
            "there: restore it from a backup"
        )
    if on_disk == sealed:
        return None
    return (
        f"{path}: not the file its seal renders (SHA-256 {hashlib.sha256(on_disk).hexdigest()}"
        f", sealed {hashlib.sha256(sealed).hexdigest()}, seal event {close.seq}): edited or "
        "replaced since the close"
    )


@dataclass(frozen=True)
class SealedFile:
    """A report file of a close as read for serving."""

    path: Path
    content: bytes | None
    """The file's bytes, when it is the file its seal renders; else ``None``."""
    problem: str | None
    """Why it is not served: missing, or not what its seal renders (with both SHA-256)."""


def read_sealed_file(
    log: Sequence[SealEntry], close: SealEntry, place: Path, suffix: str
) -> SealedFile:
    """The ``suffix`` file (``.html``, ``.xlsx``...) of the revision ``close`` made, read from
    its close's folder (beside the ledger at ``place``) and checked against its seal."""
    stem = revision_name(close.gaming_date, close_revision(log, close).number)
    folder = reports_folder(close, place)
    if folder is None:
        return SealedFile(
            Path(f"{stem}{suffix}"),
            None,
            f"the close (seal event {close.seq}) named no folder for its reports",
        )
    path = folder / f"{stem}{suffix}"
    redo = f"; write it again from the seal: baccarat-audit report --gaming-day {close.gaming_date}"
    try:
        sealed = sealed_files(log, close, folder)[path]
    except RevisionMismatch as err:
        return SealedFile(path, None, f"{err}{redo}")
    problem = file_problem(path, sealed, close)
    return SealedFile(path, None if problem else sealed, problem and f"{problem}{redo}")


# ---------------------------------------------------------------------- the reopen notice
def reopen_notice_files(
    log: Sequence[SealEntry], reopen: SealEntry, folder: Path, gaming_day: GamingDay
) -> dict[Path, bytes]:
    """The day's latest report while it is reopened: the notice of the REOPEN event
    ``reopen`` of ``log`` (when, by whom, why) naming the revision it supersedes, as
    ``close-<date>.html`` and ``.json`` in ``folder``."""
    closes = [e for e in log if e.gaming_date == reopen.gaming_date and e.action == CLOSE]
    superseded = [c for c in closes if c.seq < reopen.seq]
    revision = len(superseded)
    record = reopen_record(reopen)
    notice = {
        "gaming_date": reopen.gaming_date.isoformat(),
        "status": "REOPENED",
        "reopened": record,
        "superseded_revision": revision,
        "superseded_files": [
            f"{revision_name(reopen.gaming_date, revision)}{s}" for s in REPORT_SUFFIXES
        ],
        "superseded_seal": superseded[-1].seq if superseded else None,
    }
    page = (
        report_templates()
        .get_template("reopened.html.j2")
        .render(
            notice=notice,
            reopened_local=gaming_day.local(micros_of(reopen.sealed_at.replace(tzinfo=UTC))),
            link=reopen.link,
        )
    )
    stem = folder / revision_name(reopen.gaming_date, 0)
    return {
        stem.with_suffix(".json"): json.dumps(notice, indent=2, default=str).encode(),
        stem.with_suffix(".html"): page.encode(),
    }


def write_reopen_notice(
    log: Sequence[SealEntry], reopen: SealEntry, folder: Path, gaming_day: GamingDay
) -> list[Path]:
    """Write the notice of ``reopen`` as the day's latest report and remove the unnumbered
    copies the notice does not replace; the revisions' own files stay as they were sealed."""
    written = write_atomically(reopen_notice_files(log, reopen, folder, gaming_day))
    stem = revision_name(reopen.gaming_date, 0)
    for suffix in set(REPORT_SUFFIXES) - set(NOTICE_SUFFIXES):
        (folder / f"{stem}{suffix}").unlink(missing_ok=True)
    return written


def newest_sealed_file(
    ledger: Ledger, place: Path, gaming_date: date, suffix: str
) -> SealedFile | None:
    """The ``suffix`` file of the newest revision of ``gaming_date``'s report, checked
    against its seal (:func:`read_sealed_file`; ``place``: where the ledger is, when
    ``ledger`` is a copy of it); ``None`` when the day is not closed (never, or reopened)."""
    log = seal_log(ledger)
    close = last_entries(log).get(gaming_date)
    if close is None or close.action != CLOSE:
        return None
    return read_sealed_file(log, close, place, suffix)
