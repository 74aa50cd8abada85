"""``verify``: whether the ledger still holds what was sealed, recomputed from the rows.

Nothing stored is taken on trust:
- the seal log's links are recomputed and their signatures checked with the installation's
  public keyring, entry by entry, with the sequence (:mod:`pipeline.ledger.seal_record`); the
  keyring itself must hold only keys rotated in by their predecessors;
- each day's state is its last seal event; ``gaming_days`` must agree with it (a status edited
  to REOPENED is named, and the day is checked as the log says: closed);
- for each closed day every sealed table's digest is recomputed from the current rows and
  compared with the HMAC'd entry; ``close_digests`` (per-row) only serves to name the rows, and
  editing it to match is itself named; the report is recomputed from the rows and compared;
- every revision of a day's report (each close of it) whose files are in its close's folder
  is rendered again from its seal and compared byte for byte
  (:func:`pipeline.reports.revisions.revision_problems`);
- the log must extend every checkpoint its witnesses hold (:mod:`pipeline.witness.record`),
  so cutting it short, restoring an older copy or forking it is found, whoever did it; its
  head must also be the anchor file's last line, and ``--expect-head`` (a head filed
  earlier) one of its links;
- the acknowledgement journal must verify (each line signed by the installation's journal
  key, chained, and of this ledger), extend every checkpoint its witnesses hold (so deleting
  its last lines, restoring an older copy or another ledger's journal is found), and still
  hold, unchanged, every acknowledgement the ledger imported from it
  (:meth:`pipeline.bundle.acks.AckJournal.problems_against`).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from pipeline.bundle.acks import AckJournal
from pipeline.config.installation import Installation, installation
from pipeline.config.keys import Keyring, load_keyring
from pipeline.ledger.archive import (
    Archive,
    ArchiveError,
    ArchiveManifest,
    archive_problems,
    open_archive,
    recorded_manifest,
)
from pipeline.ledger.close_state import REOPENED, DayStatus, day_statuses
from pipeline.ledger.migrations import SEALED_TABLES
from pipeline.ledger.seal_record import (
    CLOSE,
    GENESIS,
    REOPEN,
    ROW_TEXTS,
    DigestedColumns,
    KeptDigestsError,
    SealEntry,
    UnknownRowTextError,
    current_digest,
    digested_columns,
    digested_days_besides,
    filled_since,
    kept_digest,
    kept_row_digests,
    kept_tables,
    last_entries,
    malformed_row_digests,
    row_digests,
    rows_with_digests,
    seal_log,
    table_columns,
)
from pipeline.ledger.store import Ledger
from pipeline.ledger.working_store import (
    ArchivedDays,
    UnreadableRows,
    archived_days,
    keeps_row_digests,
    rows_put_back,
    stored_rows,
)
from pipeline.reports.figures import sealed_content, sealed_variants
from pipeline.reports.revisions import revision_problems
from pipeline.reports.seals import default_anchor_path, log_state, read_anchors
from pipeline.witness.client import load_witnesses
from pipeline.witness.record import problems_against_witnesses

ROW_TEXT = 400
"""How much of a changed row a problem quotes."""


@dataclass
class Verification:
    problems: list[str]
    days_checked: int
    """Days whose last seal event is a close: every sealed row of each was recomputed."""
    head: str | None
    """The newest seal link in the ledger."""
    anchors: Path
    witnesses: list[str]
    """The names of the witnesses whose checkpoints the log was checked against."""


def check(
    ledger: Ledger,
    anchors: Path | None = None,
    expect_head: str | None = None,
    journal: AckJournal | None = None,
    inst: Installation | None = None,
    place: Path | None = None,
    only_day: date | None = None,
) -> Verification:
    """Every way the ledger no longer matches its seals (see the module docstring).
    ``journal`` is the ledger's acknowledgement journal and ``place`` where the ledger is,
    when ``ledger`` is a copy of it (the dashboards verify a snapshot): the anchor file
    named relative to the ledger's folder, and the witnesses' checkpoints, are the ledger's.
    ``only_day``: recompute that closed day's rows and archive only (the log, anchors,
    witnesses and journal are still checked whole), so its cost does not grow with the
    days stored."""
    place = place or ledger.path
    inst = inst or installation()
    keyring = load_keyring(inst)
    log = seal_log(ledger)
    last = last_entries(log)
    closed = [e for e in last.values() if e.action == CLOSE and only_day in (None, e.gaming_date)]
    anchor_path = anchors if anchors is not None else default_anchor_path(log, place)
    problems = keyring.problems() + log_problems(log, keyring) + status_problems(ledger, last)
    archived = archived_days(ledger)  # once: its rows grow with the days stored
    problems += unclosed_archived_days(archived, last)
    archive = _ArchiveOf(place)
    for entry in sorted(closed, key=lambda e: e.gaming_date):
        problems += day_problems(ledger, entry, archived)
        problems += archive.problems(ledger, entry, archived)
    problems += revision_problems(log, place, only_day)
    problems += anchor_problems(log, anchor_path, expect_head)
    problems += witnessed_problems(ledger, log, inst, place)
    journal = journal or AckJournal.for_ledger(place, ledger.ledger_id, inst)
    problems += journal.problems_against(ledger)  # its signatures, ledger and witnesses
    witnesses = [w.name for w in load_witnesses(inst)]
    return Verification(
        problems, len(closed), log[-1].link if log else None, anchor_path, witnesses
    )


def verify(
    ledger: Ledger, anchors: Path | None = None, expect_head: str | None = None
) -> list[str]:
    """The problems :func:`check` finds; a day's own start with its date (``YYYY-MM-DD:``)."""
    return check(ledger, anchors, expect_head).problems


def witnessed_problems(
    ledger: Ledger, log: Sequence[SealEntry], inst: Installation, place: Path
) -> list[str]:
    """The seal log against every checkpoint the installation's witnesses hold of it."""
    ledger_id = ledger.ledger_id
    if ledger_id is None:
        return [
            "ledger_identity: the ledger has no identity, so no witness's checkpoint can be "
            "found for it: its ledger_identity row was deleted (restore it from a backup), or "
            "it is a ledger from before migration 17 that no writer has opened since (any "
            "replay or close migrates it)"
        ]
    bound = [e for e in log if e.ledger_id is not None and e.ledger_id != ledger_id]
    problems = [
        f"seal_log seq {e.seq} ({e.gaming_date} {e.action}): made in ledger {e.ledger_id}, "
        f"not this one ({ledger_id}): transplanted from another ledger"
        for e in bound
    ]
    return problems + problems_against_witnesses(log_state(log, ledger_id, place), inst)


def log_problems(log: Sequence[SealEntry], keyring: Keyring) -> list[str]:
    """Links that do not verify, and breaks in the sequence."""
    problems = []
    previous_seq, previous_link = 0, GENESIS
    for entry in log:
        where = f"seal_log seq {entry.seq} ({entry.gaming_date} {entry.action})"
        if entry.seq != previous_seq + 1:
            problems.append(
                f"{where}: follows seq {previous_seq}: the seal events in between were deleted"
            )
        if entry.previous_link != previous_link:
            problems.append(
                f"{where}: its previous link is not seq {previous_seq}'s link: an entry before "
                "it was altered, inserted or deleted"
            )
        authentic = entry.authentic(keyring)
        if authentic is None:
            problems.append(
                f"{where}: made before seal entries were signed (an HMAC link under the old "
                "shared key), so it cannot be verified: give that key to verify it "
                "(BACCARAT_LEGACY_AUDIT_KEY_FILE), or reopen and close the day again"
            )
        elif not authentic:
            problems.append(
                f"{where}: the link does not verify: the entry was altered, or written "
                "without the installation's seal key"
            )
        else:
            problems += _retired_key_problems(entry, keyring, where)
        if entry.action not in (CLOSE, REOPEN):
            problems.append(f"{where}: unknown action {entry.action!r}")
        previous_seq, previous_link = entry.seq, entry.link
    return problems


def _retired_key_problems(entry: SealEntry, keyring: Keyring, where: str) -> list[str]:
    """A signature by a key retired before the entry was made: a retired key's private
    half is deleted at the rotation, so a copy of it was kept."""
    key = keyring.retired_before("seal", entry.key_id, entry.sealed_at)
    if key is not None:
        return [
            f"{where}: signed with seal key {key.key_id}, retired at {key.retired}, before "
            f"the entry was made ({entry.sealed_at}): a copy of the retired key was kept"
        ]
    return []


def status_problems(ledger: Ledger, last: dict[date, SealEntry]) -> list[str]:
    """Each day's ``gaming_days`` row against its last seal event, and rows or digests of
    days the log never sealed."""
    rows = day_statuses(ledger)
    problems = []
    for day, entry in sorted(last.items()):
        row = rows.pop(day, None)
        if row is None:
            problems.append(
                f"{day}: gaming_days: the day's row is gone, but its last seal event is "
                f"{entry.action} (seq {entry.seq}): the row was deleted"
            )
            continue
        if entry.action == REOPEN:
            if row.status != REOPENED:
                problems.append(
                    f"{day}: gaming_days: status {row.status!r}, but the day was reopened (seq "
                    f"{entry.seq}) and not closed since"
                )
            continue
        sealed = (
            entry.status,
            entry.sealed_at,
            entry.report_sha256,
            entry.link,
            entry.blocking_exceptions,
        )
        for column, now, then in zip(DayStatus._fields, row, sealed, strict=True):
            if now != then:
                problems.append(
                    f"{day}: gaming_days: {column} is {now!r} but the close (seq {entry.seq}) "
                    f"sealed {then!r}; the day is checked as the seal log says: closed"
                )
    for day, row in sorted(rows.items()):
        problems.append(
            f"{day}: gaming_days: status {row.status!r} but the seal log has no event for the day "
            "(a row inserted, its seal events deleted, or a close made before the seal log: "
            "reopen the day and close it again to seal it)"
        )
    problems += [
        f"{day}: close_digests: row digests of a day the seal log has no event for (its seal "
        "events deleted?)"
        for day in digested_days_besides(ledger, last)
    ]
    return problems


def _sealed(entry: SealEntry, field: str) -> dict[str, str] | None:
    """The JSON object ``field`` of ``entry`` holds (table -> text); ``None`` when it holds
    none, which only an altered entry does (and its link says so too)."""
    try:
        value = json.loads(getattr(entry, field))
    except (TypeError, ValueError):
        return None
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return value
    return None


def _unreadable(entry: SealEntry, field: str) -> str:
    return (
        f"{entry.gaming_date}: seal_log seq {entry.seq}: its {field} is not what a close "
        f"writes ({str(getattr(entry, field))[:80]!r}): the entry was altered"
    )


def _column_problems(ledger: Ledger, entry: SealEntry) -> list[str]:
    """Each sealed table whose columns or their types are not those the close recorded."""
    if entry.table_columns_json is None:  # the rows were hashed with their column names
        return []
    sealed = _sealed(entry, "table_columns_json")
    if sealed is None:
        return [_unreadable(entry, "table_columns_json")]
    now = table_columns(ledger)
    return [
        f"{entry.gaming_date}: {table}: its columns changed since the close (seq {entry.seq}): "
        f"sealed as ({columns}), now ({now.get(table, '')}); its rows were digested by place, "
        "so a value may now be read under another column's name"
        for table, columns in sorted(sealed.items())
        if table not in now or digested_columns(ledger, table, columns) is None
    ]


def _columns_digested(ledger: Ledger, entry: SealEntry, table: str) -> DigestedColumns | None:
    """The columns of ``table`` the close ``entry`` digested and those added since; ``None``
    when they cannot be told (its columns changed, :func:`_column_problems`): the rows are
    then read with every column they have now."""
    if entry.table_columns_json is None:
        return digested_columns(ledger, table, None)
    recorded = (_sealed(entry, "table_columns_json") or {}).get(table)
    return None if recorded is None else digested_columns(ledger, table, recorded)


def day_problems(ledger: Ledger, entry: SealEntry, archived: ArchivedDays) -> list[str]:
    """A closed day's rows, table by table, and its report, against its seal entry;
    ``archived`` is the ledger's :func:`~pipeline.ledger.working_store.archived_days`."""
    day, sealed_at = entry.gaming_date, entry.sealed_at
    where = f"{day}: "
    kept = kept_tables(ledger, day)
    digests = _sealed(entry, "table_digests_json")
    if digests is None:
        return [_unreadable(entry, "table_digests_json")]
    problems = []
    readable = entry.row_text in ROW_TEXTS
    if not readable:  # the checks that do not write rows out still run
        problems.append(f"{where}{UnknownRowTextError(entry.row_text)} (seq {entry.seq})")
    problems += _column_problems(ledger, entry)
    digested = keeps_row_digests(archived, day)
    malformed: dict[str, int] | None = None
    if not digested and kept:
        problems.append(
            f"{where}close_digests: row digests of {', '.join(sorted(kept))}, but the day was "
            f"archived without its row digests (seq {entry.seq}): inserted after the close"
        )
        kept = set()
    try:
        malformed = malformed_row_digests(ledger, day) if digested else None
    except KeptDigestsError as err:  # no row digest can be read: the rows are still checked
        problems.append(f"{where}{err} (seq {entry.seq})")
        kept = set()
    problems += [
        f"{where}close_digests: {n} value(s) kept for {table} are no SHA-256 digest: edited "
        f"since the close (seq {entry.seq})"
        for table, n in (malformed or {}).items()
    ]
    for table, sealed in sorted(digests.items()):
        kept.discard(table)
        named = malformed is not None and kept_digest(ledger, table, day) == sealed
        if malformed is not None and not named:
            problems.append(
                f"{where}close_digests: the row digests of {table} were altered since the close "
                f"(seq {entry.seq}); the HMAC'd seal entry still holds the table's digest"
            )
        if table not in SEALED_TABLES:
            problems.append(f"{where}{table}: sealed, but this version does not know the table")
            continue
        if not readable:
            continue
        try:
            columns = _columns_digested(ledger, entry, table)
            problems += _changed_rows(ledger, entry, table, sealed, named, digested, columns)
            problems += _filled_since(ledger, entry, table, columns)
        except UnreadableRows as err:
            problems.append(
                f"{where}{table}: its rows cannot be read ({err}); a data file of the archive "
                "the working store reads closed days from is damaged or gone (the archive's "
                "problems below name it): restore it from a backup"
            )
    problems += [
        f"{where}close_digests: digests of {table}, a table the seal entry (seq {entry.seq}) "
        "does not name: added after the close"
        for table in sorted(kept)
    ]
    try:
        reports = [
            hashlib.sha256(variant).hexdigest()
            for variant in sealed_variants(sealed_content(ledger, day, sealed_at))
        ]
    except (ValueError, KeyError, TypeError, UnreadableRows) as err:  # an edited JSON column
        problems.append(f"{where}report: cannot be recomputed from the rows ({err!r})")
        return problems
    report = reports[0]
    if entry.report_sha256 not in reports:
        problems.append(
            f"{where}report: the figures recomputed from the rows (SHA-256 {report}) differ from "
            f"the sealed report ({entry.report_sha256}, seq {entry.seq})"
        )
    return problems


def _filled_since(
    ledger: Ledger, entry: SealEntry, table: str, columns: DigestedColumns | None
) -> list[str]:
    """A column added to ``table`` since the close that holds values in the day's rows: the
    seal covers none of them, and a closed day is never replayed, so they were written by
    hand."""
    if columns is None:
        return []
    filled = filled_since(ledger, table, entry.gaming_date, entry.sealed_at, columns)
    if not filled:
        return []
    return [
        f"{entry.gaming_date}: {table}: {filled} row(s) hold values in "
        f"{', '.join(columns.added)}, added to the table after the close (seq {entry.seq}), "
        "which the seal does not cover: they were written since; set them back to null, or "
        "reopen the day and close it again to seal them"
    ]


def _changed_rows(
    ledger: Ledger,
    entry: SealEntry,
    table: str,
    sealed: str,
    named: bool,
    digested: bool,
    columns: DigestedColumns | None,
) -> list[str]:
    """The rows of a sealed table that changed since the close (of the ``columns`` it
    digested), named when the day keeps its row digests (``digested``) and they still match
    the seal (``named``)."""
    day, sealed_at, where = entry.gaming_date, entry.sealed_at, f"{entry.gaming_date}: "
    if current_digest(ledger, table, day, sealed_at, entry.row_text, columns) == sealed:
        return []
    if not named:
        why = (
            "their per-row digests were altered too"
            if digested
            else "an archived day keeps no row digests; the rows put back into the ledger "
            "file and the archive's files that changed are named apart"
        )
        return [
            f"{where}{table}: rows changed since the close (seq {entry.seq}): the table's "
            f"digest no longer matches the seal (which rows cannot be named: {why})"
        ]
    # only a table that changed has its row digests read, to name the rows
    listed = kept_row_digests(ledger, day, table)
    now = row_digests(ledger, table, day, sealed_at, entry.row_text, columns)
    added = Counter(now) - Counter(listed)
    gone = sum((Counter(listed) - Counter(now)).values())
    problems = [
        f"{where}{table}: row changed or added after the close: {text[:ROW_TEXT]}"
        for text in rows_with_digests(ledger, table, day, sealed_at, entry.row_text, added, columns)
    ]
    if gone:
        problems.append(
            f"{where}{table}: {gone} row(s) sealed at the close are gone (edited or deleted)"
        )
    return problems


class _ArchiveOf:
    """The Iceberg archive beside the ledger at ``place``, opened when a close names it."""

    def __init__(self, place: Path) -> None:
        self.place = place
        self.opened: Archive | None = None

    def problems(self, ledger: Ledger, entry: SealEntry, archived: ArchivedDays) -> list[str]:
        """The day's archive against the close that sealed it: its manifest as the entry's
        ``archive_sha256`` covers it, then each data file of the day as the manifest lists it
        (only that day's files are read), and the files the working store reads the day from
        (``archived``, the ledger's :func:`~pipeline.ledger.working_store.archived_days`).
        A close made before the archive has its files checked against the manifest
        ``baccarat-audit archive`` recorded for it, if any."""
        day, where = entry.gaming_date, f"{entry.gaming_date}: "
        manifest = recorded_manifest(ledger, day, entry.sealed_at)
        if entry.archive_sha256 is None and manifest is None:
            return []
        if manifest is None:
            return [
                f"{where}archive_manifests: the manifest of the close (seq {entry.seq}) is "
                "missing: it was deleted since the close; the archive's files cannot be checked"
            ]
        if entry.archive_sha256 is not None and manifest.sha256 != entry.archive_sha256:
            return [
                f"{where}archive_manifests: the manifest of the close (seq {entry.seq}) was "
                f"altered since the close (SHA-256 {manifest.sha256}, sealed "
                f"{entry.archive_sha256})"
            ]
        try:
            self.opened = self.opened or open_archive(self.place)
        except ArchiveError as err:
            return [f"{where}{err}"]
        problems = archive_problems(self.opened, manifest, day)
        read_from = archived.get(day)
        if read_from is not None:
            problems += _read_from_problems(self.opened, manifest, entry, *read_from)
            problems += [
                f"{table}: row put back into the ledger file after the close (the day is read "
                f"from the archive): {text[:ROW_TEXT]}"
                for table, rows in rows_put_back(ledger, day, entry.sealed_at).items()
                for text in rows
            ]
        elif stored_rows(ledger, "deliveries", day) < manifest.table("deliveries").rows:
            problems.append(
                "archived_days: the day is read from neither the ledger file nor the archive "
                "(its row in archived_days was deleted): run baccarat-audit archive to read it "
                "from the archive again (its files are checked against the seal)"
            )
        return [f"{where}{p}" for p in problems]


def _read_from_problems(
    archive: Archive,
    manifest: ArchiveManifest,
    entry: SealEntry,
    sealed_at: datetime,
    files: Mapping[str, Sequence[str]],
) -> list[str]:
    """The files the working store reads a closed day from against those its close sealed:
    a row read from a file the seal does not name is not a sealed row."""
    if sealed_at != entry.sealed_at:
        return [
            f"archived_days: the day is read from the files archived for a seal of {sealed_at}, "
            f"not from those of its close (seq {entry.seq}, {entry.sealed_at}): restore "
            "archived_days from a backup"
        ]
    problems = []
    sealed_files = {t.table: {f.path for f in t.files} for t in manifest.tables}
    for table in sorted(sealed_files.keys() | files.keys()):
        sealed = sealed_files.get(table, set())
        read = {archive.relative(uri) for uri in files.get(table, [])}
        problems += [
            f"archived_days: {table} is read from {path}, a file its seal does not name"
            for path in sorted(read - sealed)
        ]
        problems += [
            f"archived_days: {table} is not read from {path}, sealed with its rows"
            for path in sorted(sealed - read)
        ]
    return problems


def unclosed_archived_days(archived: ArchivedDays, last: Mapping[date, SealEntry]) -> list[str]:
    """Days read from the archive (``archived``) that are not closed: a reopen moves a day
    back into the working store, so its rows would be read twice or as the earlier seal had
    them."""
    return [
        f"{day}: archived_days: the day is read from the archive, but its last seal event is "
        f"{last[day].action if day in last else 'none'}: the list was edited; restore it "
        "from a backup"
        for day in sorted(archived)
        if day not in last or last[day].action != CLOSE
    ]


def anchor_problems(
    log: Sequence[SealEntry], path: Path, expect_head: str | None = None
) -> list[str]:
    """The ledger's seal log against the anchor file (and the head filed elsewhere)."""
    head = log[-1] if log else None
    problems = []
    if expect_head is not None and expect_head not in {e.link for e in log}:
        problems.append(
            f"seal_log: no seal event has the link {expect_head} (the head filed earlier), "
            f"the ledger's head is {head.link if head else 'absent (no seal events)'}: seal "
            "events were deleted or rewritten, or this is another ledger"
        )
    if not path.exists():
        if head is not None:
            problems.append(
                f"{path}: the anchor file is missing (the ledger has {len(log)} seal events, "
                f"the newest seq {head.seq}): restore it, or name it with --anchors"
            )
        return problems
    anchors, unreadable = read_anchors(path)
    problems += unreadable
    by_seq = {e.seq: e for e in log}
    for anchor in anchors:
        entry = by_seq.get(anchor["seq"])
        if entry is None:
            problems.append(
                f"{path}: anchors seal event {anchor['seq']} ({anchor['gaming_date']} "
                f"{anchor['action']}, link {anchor['link']}), which the ledger's seal_log does "
                "not have: the newest seal events were deleted"
            )
        elif entry.anchor_line() != anchor:
            problems.append(
                f"{path}: seal event {anchor['seq']}: the anchored link {anchor['link']} is "
                f"not the ledger's {entry.link}: the seal log was rewritten"
            )
    anchored = max((a["seq"] for a in anchors), default=0)
    if head is not None and head.seq > anchored:
        missing = [e for e in log if e.seq > anchored]
        problems.append(
            f"{path}: the ledger's head (seal event {head.seq}, link {head.link}) is not "
            f"anchored; seal events {', '.join(str(e.seq) for e in missing)} are missing from "
            "the anchor file: the file was truncated, or a close stopped before anchoring "
            f"(finish it: baccarat-audit report --gaming-day {missing[-1].gaming_date})"
        )
    return problems
