"""The acknowledgement journal: who acknowledged, escalated or assigned which exception, when,
and why.

Why a journal file and not the ledger's ``acknowledgements`` table
------------------------------------------------------------------
The dashboards read the ledger read-only, and DuckDB lets one process write a database file
while no other process has it open at all. A long-running writer (the Kafka consumer holds
its ledger for its whole life) would therefore refuse every acknowledgement an analyst tries to
store, and a dashboard that opened the ledger for writing would stall ingestion. So an
acknowledgement is appended to a JSON-lines file next to the ledger
(``<ledger stem>.acknowledgements.jsonl``, or ``$BACCARAT_ACKS``):

- append-only: records are added under an exclusive ``flock`` and ``fsync``-ed; nothing in
  this module rewrites or deletes one, and a later action on the same exception (escalate,
  then acknowledge) is a new record. The last action stands: ACKNOWLEDGE then ESCALATE leaves
  the exception escalated, and blocking if critical;
- assignments are records of the same chain: an ASSIGN record names who holds the exception
  (``assignee``) besides who assigned it (``actor``) and why (``note``). Who holds an
  exception and whether it is acknowledged are separate questions, so an assignment never
  changes the status (:meth:`AckJournal.latest_actions` reads ACKNOWLEDGE and ESCALATE
  only, :meth:`AckJournal.holders` ASSIGN only), and the close does not import it;
- audited: each record states the exception, the action, the note, the actor and where the
  name came from (``actor_source``: "command line", "proxy header X-Forwarded-User from
  127.0.0.1", "OIDC sign-in", ...), and the UTC time;
- bound to its ledger: each record names the ledger it acknowledges in (``ledger_id``,
  :attr:`pipeline.ledger.store.Ledger.ledger_id`), so a journal written against a training
  copy and copied over production's is named line by line, and refused by the close;
- signed: each record's ``link`` chains the link before it (``prev_link``) with the SHA-256
  of the record's canonical content (:func:`pipeline.witness.checkpoint.chain_link`), and the
  link carries an Ed25519 ``signature`` by the installation's journal key (``key_id``,
  :mod:`pipeline.config.keys`), which only the service account holds. Anyone can check it
  with the public keyring, nobody without the key can write a line that verifies: an edited
  line (ESCALATE turned into ACKNOWLEDGE), a line added by hand, a removed line and
  reordered lines are all named, by line number, by :meth:`AckJournal.verify`;
- witnessed: every append sends the journal's new head to the installation's witnesses
  (:func:`pipeline.witness.record.publish`); a witness that did not keep it is a loud
  :class:`~pipeline.witness.record.NotWitnessedError` (the line stands). Deleting the newest
  lines leaves a valid shorter chain, so :meth:`AckJournal.problems_against` checks the
  journal against every checkpoint the witnesses hold: a journal cut short (the last
  ESCALATE deleted), an older copy restored, or another ledger's journal is named;
- refused when broken: :meth:`AckJournal.import_into` (run by the gaming-day close) imports
  nothing and raises :class:`JournalError` when the journal does not verify, or when an
  acknowledgement already imported into the ledger is no longer in it unchanged
  (:func:`journal_problems`, which ``verify`` reports too).

Lines written before signatures (``prev_hmac``/``hmac``: an HMAC-SHA-256 under the old shared
key) are read still. They verify only with that key given explicitly
(:func:`pipeline.config.keys.legacy_authentic`); without it they are named as unverifiable,
never trusted. The journal's chain continues from them.

Journals written before the records were authenticated at all (``sha256`` and
``prev_sha256`` only) are refused, line by line, until they are re-signed by two people
(:meth:`AckJournal.re_sign_unkeyed`): an admin who reviewed them and an accountant who
approves, after a dry run that lists every record to be re-signed
(``baccarat-audit ack --re-sign-unkeyed``, then again with ``--approved-by ACCOUNTANT
--plan DIGEST``). The unkeyed SHA-256 chain must still be intact, no line may name another
ledger, the original file is kept beside the journal, and each re-signed line names the
reviewer and the approver.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pipeline.config.installation import Installation, installation
from pipeline.config.keys import Keyring, Signer, legacy_authentic, load_keyring, signer
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger import journal as ledger_journal
from pipeline.witness.checkpoint import chain_link
from pipeline.witness.record import LogState, problems_against_witnesses, publish

if TYPE_CHECKING:  # only annotations: the CLI imports this module for `ack --help`
    from pipeline.ledger.connection import Source

ACKNOWLEDGE = "ACKNOWLEDGE"
ESCALATE = "ESCALATE"
ASSIGN = "ASSIGN"
DISPOSITIONS: tuple[str, ...] = (ACKNOWLEDGE, ESCALATE)
"""ACKNOWLEDGE clears an exception from the queue (and, if critical, from the close's blocking
list); ESCALATE hands it on and keeps it open and blocking. The last of these stands."""
ACTIONS: tuple[str, ...] = (*DISPOSITIONS, ASSIGN)
"""The dispositions, and ASSIGN: someone (``assignee``) holds the exception from now on."""

OPEN = "OPEN"
"""The status of an exception no disposition was recorded for."""
STATUS_AFTER: dict[str, str] = {ACKNOWLEDGE: "ACKNOWLEDGED", ESCALATE: "ESCALATED"}
"""An exception's status after each disposition, its latest standing."""

GENESIS = "0" * 64
"""The ``prev_link`` of the first record."""

LOG = "journal"
"""The journal's name among a ledger's witnessed logs, and the purpose of its key."""

_LEGACY_DOMAIN = b"baccarat-audit acknowledgement v2\n"
"""What the legacy HMAC of a line covered first."""

_OPTIONAL = frozenset({"table_id", "gaming_date", "assignee", "ledger_id", "key_id", "signature"})
_ABSENT_WHEN_NONE = frozenset({"assignee"})
"""Fields added after journals were first written: a record without one leaves it out of its
line and of what its link covers."""


class JournalError(ValueError):
    """An acknowledgement that cannot be recorded as given, or a journal that cannot be used;
    the message says why, where and what to do."""


@dataclass(frozen=True, slots=True)
class AckRecord:
    ack_id: str
    exception_id: str
    action: str
    note: str
    actor: str
    actor_source: str  # where the actor's name came from
    acted_at: str  # ISO 8601, UTC, microseconds
    table_id: str | None
    gaming_date: str | None
    ledger_id: str | None
    """The ledger acknowledged in (``None`` on a legacy line, which did not record it)."""
    prev_link: str
    link: str
    """:func:`~pipeline.witness.checkpoint.chain_link` of ``prev_link`` and
    :attr:`content_digest`; on a legacy line, its HMAC (``hmac``)."""
    key_id: str | None = None
    """The journal key that signed the link; ``None``: a legacy HMAC line."""
    signature: str | None = None
    assignee: str | None = None
    """Who holds the exception from this record on (ASSIGN records only)."""

    @property
    def legacy(self) -> bool:
        """Written before signatures: ``prev_hmac``/``hmac`` under the old shared key."""
        return self.key_id is None

    @property
    def acted_at_utc(self) -> datetime:
        return datetime.fromisoformat(self.acted_at)

    def canonical(self) -> bytes:
        """What the link covers: every field but the link and its signature (so also the
        previous link, the ledger and the key), as canonical JSON."""
        body = {k: v for k, v in _stored(self).items() if k not in ("link", "signature")}
        return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()

    def legacy_content(self) -> bytes:
        """What a legacy line's HMAC covers: the line's fields but ``hmac``, as they were
        named then."""
        body = {k: v for k, v in _legacy_stored(self).items() if k != "hmac"}
        return _LEGACY_DOMAIN + json.dumps(body, sort_keys=True, separators=(",", ":")).encode()

    @property
    def content_digest(self) -> str:
        """The SHA-256 of the record's content, as its link and the witnesses chain it."""
        content = self.legacy_content() if self.legacy else self.canonical()
        return hashlib.sha256(content).hexdigest()

    def authentic(self, keyring: Keyring) -> bool | None:
        """Whether the link chains this record to ``prev_link`` and carries the journal
        key's signature; for a legacy line, whether its HMAC verifies (``None`` when no
        legacy key was given: it cannot be verified)."""
        if self.legacy:
            return legacy_authentic(self.legacy_content(), self.link)
        return (
            self.signature is not None
            and self.link == chain_link(LOG, self.prev_link, self.content_digest)
            and keyring.verify(LOG, self.key_id, self.link.encode(), self.signature)
        )

    def ledger_values(self) -> tuple[str, str, str, str, datetime]:
        """The record as the ledger's ``acknowledgements`` row stores it (naive UTC time)."""
        acted = self.acted_at_utc.astimezone(UTC).replace(tzinfo=None)
        return (self.exception_id, self.action, self.note, self.actor, acted)


@dataclass(frozen=True, slots=True)
class _Line:
    number: int
    record: AckRecord | None
    problem: str | None
    """Why the line holds no record (it does not parse); checks of a record come later."""


@dataclass(frozen=True)
class ReSignPlan:
    """What re-signing an unkeyed journal would change (:meth:`AckJournal.plan_re_sign`):
    the records, and the digest of the journal they were read from, which the re-signing
    must be given back (so what was reviewed is what is signed)."""

    records: list[AckRecord]
    digest: str


def journal_path_for(ledger_path: Path | str) -> Path:
    """Where the journal of a ledger lives: ``$BACCARAT_ACKS``, else next to the ledger."""
    override = os.environ.get("BACCARAT_ACKS")
    if override:
        return Path(override)
    path = Path(ledger_path)
    return path.with_name(f"{path.stem}.acknowledgements.jsonl")


def _read_ledger_id(ledger: Path) -> str | None:
    """The id of the ledger at ``ledger``, opened read-only for it (callers that have the
    ledger open pass the id instead: a process holding it for writing blocks this open)."""
    from pipeline.ledger.store import Ledger

    with Ledger(ledger, read_only=True) as opened:
        return opened.ledger_id


class AckJournal:
    """An append-only JSON-lines journal of acknowledgements, each line signed with the
    installation's journal key, chained to the one before it, bound to its ledger
    (``ledger_id``) and witnessed. ``ledger``: where the ledger is (its checkpoints name
    the place); ``inst``: the installation (default: :func:`installation`)."""

    def __init__(
        self,
        path: Path | str,
        *,
        ledger_id: str | None = None,
        ledger: Path | str | None = None,
        inst: Installation | None = None,
    ) -> None:
        self.path = Path(path)
        self.ledger_id = ledger_id
        self.ledger = Path(ledger) if ledger is not None else None
        self._inst = inst

    @classmethod
    def for_ledger(
        cls,
        ledger_path: Path | str,
        ledger_id: str | None = None,
        inst: Installation | None = None,
    ) -> AckJournal:
        return cls(
            journal_path_for(ledger_path), ledger_id=ledger_id, ledger=ledger_path, inst=inst
        )

    @property
    def inst(self) -> Installation:
        return self._inst or installation()

    # ------------------------------------------------------------------ writing
    def append(
        self,
        *,
        exception_id: str,
        action: str,
        note: str,
        actor: str,
        actor_source: str,
        table_id: str | None = None,
        gaming_date: date | str | None = None,
        assignee: str | None = None,
        now: datetime | None = None,
    ) -> AckRecord:
        """Record one action on one exception, signed with the installation's journal key,
        and send the journal's new head to the witnesses; returns the stored record.
        ``assignee``: who holds the exception, for ASSIGN (and only for it). Whether
        ``actor`` may act is the caller's check (:func:`pipeline.config.roles.authorize`).
        Refused, writing nothing, without the key or the ledger's id; a witness that does
        not keep the checkpoint raises :class:`~pipeline.witness.record.NotWitnessedError`
        after the line is written."""
        action = action.strip().upper()
        holder = (assignee or "").strip()
        problems = []
        if not exception_id.strip():
            problems.append("which exception is acknowledged is required")
        if action not in ACTIONS:
            problems.append(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        if action == ASSIGN and not holder:
            problems.append("an assignment names who holds the exception (assignee)")
        if action != ASSIGN and holder:
            problems.append(f"only {ASSIGN} names a holder; {action} does not take an assignee")
        if not note.strip():
            problems.append("a note saying why is required")
        if not actor.strip():
            problems.append("who acts is required (name or badge id)")
        if not actor_source.strip():
            problems.append("where the actor's name came from (actor_source) is required")
        if not self.ledger_id and self.ledger is not None and self.ledger.exists():
            self.ledger_id = _read_ledger_id(self.ledger)
        if not self.ledger_id:
            problems.append(
                "the ledger's id is required (open the ledger and pass Ledger.ledger_id): "
                "every record names the ledger it acknowledges in"
            )
        if problems:
            raise JournalError("; ".join(problems))
        assert self.ledger_id is not None
        inst = self.inst
        key = signer(LOG, inst)  # refused here, before anything is written
        moment = (now or datetime.now(UTC)).astimezone(UTC)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked() as fo:
            fo.seek(0)
            records = _records(_scan(fo.read(), self.path.name))
            record = _signed(
                AckRecord(
                    ack_id=uuid.uuid4().hex,
                    exception_id=exception_id.strip(),
                    action=action,
                    note=note.strip(),
                    actor=actor.strip(),
                    actor_source=actor_source.strip(),
                    acted_at=moment.isoformat(timespec="microseconds"),
                    table_id=table_id,
                    gaming_date=gaming_date.isoformat()
                    if isinstance(gaming_date, date)
                    else gaming_date,
                    ledger_id=self.ledger_id,
                    prev_link=records[-1].link if records else GENESIS,
                    link="",
                    assignee=holder or None,
                ),
                key,
            )
            fo.seek(0, os.SEEK_END)
            fo.write(_line_text(record))
            fo.flush()
            os.fsync(fo.fileno())
            # under the lock: two appends' checkpoints reach the witnesses in their order
            publish(self.log_state([*records, record], self.ledger_id), inst)
        return record

    def plan_re_sign(self) -> ReSignPlan:
        """What :meth:`re_sign_unkeyed` would re-sign, without changing anything: every
        record of an unkeyed journal. :class:`JournalError` when it cannot be re-signed (a
        line of another kind, a broken SHA-256 chain, a line naming another ledger)."""
        text = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        unkeyed = self._unkeyed(text)
        return ReSignPlan(
            [_from_unkeyed(old, self.ledger_id or "") for old in unkeyed],
            hashlib.sha256(text.encode()).hexdigest(),
        )

    def re_sign_unkeyed(
        self,
        reviewer: str,
        reviewer_source: str,
        note: str,
        *,
        approver: str,
        approver_source: str,
        plan: str,
    ) -> int:
        """Sign a journal written before its lines were authenticated, after two people
        reviewed it: ``reviewer`` (an admin) re-signs, ``approver`` (another person, an
        accountant) approves; ``plan`` is the digest :meth:`plan_re_sign` showed them (the
        journal must not have changed since). Returns how many records were re-signed.
        Whether each may do so is the caller's check (:func:`pipeline.config.roles.authorize`).

        Refused unless every line is an unkeyed record, their SHA-256 chain is intact (a
        chain that no longer holds was changed after it was written, and no review can
        tell by whom) and no line names another ledger. The original is kept as
        ``<journal>.unkeyed-<UTC time>``; each re-signed record's ``actor_source`` says who
        re-signed it, who approved, when and why. The new head is witnessed."""
        if not note.strip():
            raise JournalError("re-signing needs a note saying what was reviewed")
        if not reviewer.strip() or not approver.strip():
            raise JournalError("re-signing needs the reviewer's and the approver's names")
        if reviewer.strip().casefold() == approver.strip().casefold():
            raise JournalError(
                f"re-signing needs two people: {reviewer.strip()} cannot approve their own "
                "re-signing; an accountant who reviewed the dry run approves"
            )
        if not self.ledger_id:
            raise JournalError("re-signing needs the ledger's id (the records are bound to it)")
        inst = self.inst
        key = signer(LOG, inst)
        with self._locked() as fo:
            fo.seek(0)
            text = fo.read()
            if hashlib.sha256(text.encode()).hexdigest() != plan:
                raise JournalError(
                    f"{self.path}: not re-signed: the journal is not the one the dry run "
                    f"listed (plan {plan}): it changed since; run the dry run again and review "
                    "what it lists"
                )
            unkeyed = self._unkeyed(text)
            moment = datetime.now(UTC).isoformat(timespec="seconds")
            backup = self.path.with_name(f"{self.path.name}.unkeyed-{moment}")
            backup.write_text(text, encoding="utf-8")
            previous = GENESIS
            signed: list[AckRecord] = []
            for old in unkeyed:
                record = _signed(
                    replace(
                        _from_unkeyed(old, self.ledger_id),
                        actor_source=f"{old['actor_source']}; unkeyed record re-signed by "
                        f"{reviewer.strip()} ({reviewer_source}), approved by "
                        f"{approver.strip()} ({approver_source}), at {moment}: {note.strip()}",
                        prev_link=previous,
                    ),
                    key,
                )
                previous = record.link
                signed.append(record)
            fo.seek(0)
            fo.truncate()
            fo.write("".join(map(_line_text, signed)))
            fo.flush()
            os.fsync(fo.fileno())
            publish(self.log_state(signed, self.ledger_id), inst)
        return len(signed)

    def _unkeyed(self, text: str) -> list[dict[str, Any]]:
        unkeyed, problems = _unkeyed_records(self.path.name, text)
        for number, old in unkeyed:
            if old.get("ledger_id") is not None and old["ledger_id"] != self.ledger_id:
                problems.append(
                    f"{self.path.name} line {number}: names ledger {old['ledger_id']}, not "
                    f"this one ({self.ledger_id}): a journal of another ledger"
                )
        if problems:
            raise JournalError(f"{self.path}: not re-signed: " + "; ".join(problems))
        return [old for _, old in unkeyed]

    @contextmanager
    def _locked(self) -> Iterator[IO[str]]:
        with self.path.open("a+", encoding="utf-8") as fo:
            fcntl.flock(fo.fileno(), fcntl.LOCK_EX)
            try:
                yield fo
            finally:
                fcntl.flock(fo.fileno(), fcntl.LOCK_UN)

    # ------------------------------------------------------------------ reading
    def _lines(self) -> list[_Line]:
        if not self.path.exists():
            return []
        return _scan(self.path.read_text(encoding="utf-8"), self.path.name)

    def records(self) -> list[AckRecord]:
        """Every record that parses, oldest first, verified or not (:meth:`verify` says
        which are not)."""
        return _records(self._lines())

    def verify(self, ledger_id: str | None = None) -> list[str]:
        """Problems with the journal, each naming its line (empty: every line signed by the
        installation's journal key, chained in order, none missing between them, and none
        of another ledger than ``ledger_id``, default the journal's). Lines cut from the
        end are found against the witnesses only (:meth:`problems_against`)."""
        return _problems(
            self._lines(), self.path.name, load_keyring(self.inst), ledger_id or self.ledger_id
        )

    def latest_actions(self) -> dict[str, AckRecord]:
        """The most recent ACKNOWLEDGE or ESCALATE per exception id: the action that stands
        (an assignment changes who holds it, not its status)."""
        return _latest(self.records(), DISPOSITIONS)

    def holders(self) -> dict[str, AckRecord]:
        """The most recent ASSIGN per exception id: who holds it (``assignee``), who
        assigned it, when and why."""
        return _latest(self.records(), (ASSIGN,))

    def log_state(self, records: Sequence[AckRecord], ledger_id: str) -> LogState:
        """The journal as its witnesses see it: each record's content digest and the chain
        of them (the records' own links, from the first signed record after legacy ones
        on: a legacy line's link is an HMAC, so the witnessed chain is recomputed)."""
        digests = [r.content_digest for r in records]
        links, link = [], GENESIS
        for digest in digests:
            link = chain_link(LOG, link, digest)
            links.append(link)
        place = self.ledger if self.ledger is not None else self.path
        return LogState(LOG, ledger_id, str(place.resolve()), links, digests)

    def witness_problems(self, ledger_id: str) -> list[str]:
        """The journal against every checkpoint the installation's witnesses hold of it: a
        journal cut short, an older copy restored, or another ledger's journal."""
        return problems_against_witnesses(self.log_state(self.records(), ledger_id), self.inst)

    # ------------------------------------------------------------------ against the ledger
    def problems_against(self, ledger: Source) -> list[str]:
        """The journal's own problems (:meth:`verify`, against the ledger's id), what the
        witnesses hold that it no longer matches (:meth:`witness_problems`), and every
        acknowledgement already imported into the ledger that the journal no longer holds
        unchanged: one removed, edited, or the journal emptied or replaced after a close;
        or a row inserted into the ledger's table by hand."""
        ledger_id = ledger_journal.ledger_identity(ledger) or self.ledger_id
        problems = self.verify(ledger_id)
        records = self.records()
        if ledger_id is not None:
            problems += self.witness_problems(ledger_id)
        elif records:
            problems.append(
                f"{self.path.name}: the ledger has no identity (ledger_identity), so its "
                "journal cannot be matched to it or to its witnesses: restore it from a backup"
            )
        by_id = {r.ack_id: r for r in records}
        by_values = {r.ledger_values() for r in by_id.values()}
        for stored in ledger_journal.stored_acknowledgements(ledger):
            # record_hmac keeps the record's link (its HMAC on a legacy line)
            ack_id, record_link = stored.get("ack_id"), stored.get("record_hmac")
            values = tuple(stored[c] for c in ledger_journal.ACK_COLUMNS)
            what = f"{values[1]} of exception {values[0]} by {values[3]} at {values[4]}"
            if ack_id is None:
                if values not in by_values:
                    problems.append(
                        f"ledger acknowledgements: {what} has no record in {self.path.name} "
                        "(inserted into the ledger by hand, or its journal line was removed)"
                    )
                continue
            record = by_id.get(ack_id)
            if record is None:
                problems.append(
                    f"ledger acknowledgements: {what} (ack {ack_id}) is no longer in "
                    f"{self.path.name}: the journal was truncated, emptied or replaced since "
                    "it was imported; restore it from a backup"
                )
            elif record.ledger_values() != values or record.link != record_link:
                problems.append(
                    f"ledger acknowledgements: {what} (ack {ack_id}) differs from its record "
                    f"in {self.path.name}"
                )
        return problems

    def import_into(self, ledger: Source, gaming_date: date | None = None) -> int:
        """Copy records not yet there into the ledger's ``acknowledgements`` table; returns
        how many. Call from the process that holds the ledger for writing (the gaming-day
        close does, just before counting what blocks). With ``gaming_date``, only the
        records of that day's exceptions are copied: an acknowledgement of a day already
        closed waits for that day's reopening instead of changing its sealed rows.

        Raises :class:`JournalError`, importing nothing, when :meth:`problems_against`
        finds anything: a close must not count an acknowledgement nobody can vouch for.
        Idempotent: a record already present (same ``ack_id``, or the same values in a row
        imported before the ledger kept ``ack_id``) is not inserted again."""
        problems = self.problems_against(ledger)
        if problems:
            raise JournalError(
                f"the acknowledgement journal {self.path} does not verify, so no "
                f"acknowledgement was imported and the close was not made: "
                + "; ".join(problems)
                + ". Restore the journal from a backup, or, for a journal written before its "
                "lines were authenticated, have it reviewed and re-signed (baccarat-audit ack "
                "--re-sign-unkeyed, approved by an accountant); then close again"
            )
        present = ledger_journal.imported_ack_ids(ledger)
        # rows imported before migration 7 have no ack_id: they are known by their values
        imported_unkeyed = ledger_journal.imported_unkeyed(ledger)
        new = [
            r
            for r in self.records()
            if r.action in DISPOSITIONS
            and r.ack_id not in present
            and r.ledger_values() not in imported_unkeyed
        ]
        if gaming_date is not None:
            of_day = ledger_exceptions.ids_of_day(ledger, gaming_date)
            new = [r for r in new if r.exception_id in of_day]
        for r in new:
            ledger_journal.insert_acknowledgement(
                ledger, r.ledger_values(), r.ack_id, r.actor_source, r.link
            )
        return len(new)


def journal_problems(ledger_path: Path | str, ledger: Source) -> list[str]:
    """What ``verify`` reports about a ledger's acknowledgements: the journal's own problems,
    the witnesses' checkpoints it no longer matches, and every imported acknowledgement it
    no longer holds unchanged."""
    return AckJournal.for_ledger(ledger_path).problems_against(ledger)


def blocking_after(source: Source, records: Sequence[AckRecord], rank: int) -> list[str]:
    """The exceptions of at least ``rank`` (the close's blocking severity) that the last
    ACKNOWLEDGE or ESCALATE among ``records`` leaves unacknowledged, sorted."""
    latest = _latest(list(records), DISPOSITIONS)
    critical = ledger_exceptions.ids_at_least(source, rank)
    return [e for e in critical if (r := latest.get(e)) is None or r.action != ACKNOWLEDGE]


def _latest(records: list[AckRecord], actions: tuple[str, ...]) -> dict[str, AckRecord]:
    latest: dict[str, AckRecord] = {}
    for record in records:
        if record.action in actions:
            latest[record.exception_id] = record
    return latest


def _records(lines: Sequence[_Line]) -> list[AckRecord]:
    return [line.record for line in lines if line.record is not None]


def _stored(record: AckRecord) -> dict[str, Any]:
    """The fields a signed record's line holds (see :data:`_ABSENT_WHEN_NONE`)."""
    return {k: v for k, v in asdict(record).items() if not (v is None and k in _ABSENT_WHEN_NONE)}


_LEGACY_RENAMED = {"prev_link": "prev_hmac", "link": "hmac"}


def _legacy_stored(record: AckRecord) -> dict[str, Any]:
    """The fields a legacy line holds, as they were named then."""
    return {
        _LEGACY_RENAMED.get(k, k): v
        for k, v in _stored(record).items()
        if k not in ("ledger_id", "key_id", "signature")
    }


def _signed(record: AckRecord, key: Signer) -> AckRecord:
    unsigned = replace(record, key_id=key.key_id, link="", signature=None)
    # the link covers the key id; the signature is made over the link
    link = chain_link(LOG, unsigned.prev_link, unsigned.content_digest)
    return replace(unsigned, link=link, signature=key.sign(link.encode()))


def _line_text(record: AckRecord) -> str:
    stored = _legacy_stored(record) if record.legacy else _stored(record)
    return json.dumps(stored, sort_keys=True, separators=(",", ":")) + "\n"


_BASE = frozenset(
    {
        "ack_id",
        "exception_id",
        "action",
        "note",
        "actor",
        "actor_source",
        "acted_at",
        "table_id",
        "gaming_date",
    }
)
_SIGNED_FIELDS = _BASE | {"ledger_id", "prev_link", "link", "key_id", "signature"}
_LEGACY_FIELDS = _BASE | {"prev_hmac", "hmac"}


def _scan(text: str, name: str = "journal") -> list[_Line]:
    """Each non-blank line parsed: a signed record, a legacy one, or why it is none."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        data = _json_object(line)
        legacy = data is not None and "hmac" in data and "signature" not in data
        required = _LEGACY_FIELDS if legacy else _SIGNED_FIELDS
        if data is None or not data.keys() >= required:
            if data is not None and "sha256" in data and not data.keys() & {"hmac", "signature"}:
                unreadable = (
                    f"{where}: an unkeyed record (SHA-256 only, written before acknowledgements "
                    "were authenticated, or by hand); have it reviewed and re-signed: "
                    "baccarat-audit ack --db LEDGER --re-sign-unkeyed (a dry run listing what "
                    "changes), then again with --approved-by ACCOUNTANT --plan DIGEST"
                )
            else:
                unreadable = f"{where}: not an acknowledgement record"
            out.append(_Line(number, None, unreadable))
            continue
        try:
            record = _typed(data, legacy)
        except (TypeError, ValueError):
            out.append(_Line(number, None, f"{where}: not an acknowledgement record"))
            continue
        out.append(_Line(number, record, None))
    return out


def _problems(
    lines: Sequence[_Line], name: str, keyring: Keyring, ledger_id: str | None
) -> list[str]:
    """Each line's problem: not a record; not signed by the journal key (or, legacy, not
    authenticated by the old key, or unverifiable without it); of another ledger; out of
    its chain."""
    problems = []
    previous = GENESIS
    for line in lines:
        record = line.record
        if record is None:
            problems.append(str(line.problem))
            continue
        where = f"{name} line {line.number}"
        what = f"{record.action} of exception {record.exception_id} by {record.actor}"
        authentic = record.authentic(keyring)
        if authentic is None:
            problems.append(
                f"{where}: {what} was written before journal lines were signed (an HMAC under "
                "the old shared key), so it cannot be verified and is not trusted: give that "
                "key to verify it (BACCARAT_LEGACY_AUDIT_KEY_FILE)"
            )
        elif not authentic:
            problems.append(
                f"{where}: {what} is not signed by the installation's journal key: written "
                "without it, or changed after it was written"
            )
        elif record.ledger_id is not None and ledger_id and record.ledger_id != ledger_id:
            problems.append(
                f"{where}: {what} acknowledges in ledger {record.ledger_id}, not this one "
                f"({ledger_id}): the journal of another ledger (a training copy?) was copied "
                "over this one's"
            )
        elif record.prev_link != previous:
            problems.append(
                f"{where}: {what} is out of its chain: a line before it was removed, or the "
                "lines were reordered"
            )
        else:
            problems += _retired_key_problems(record, keyring, where, what)
        previous = record.link
    return problems


def _retired_key_problems(record: AckRecord, keyring: Keyring, where: str, what: str) -> list[str]:
    """A signature by a key retired before the record was made
    (:meth:`~pipeline.config.keys.Keyring.retired_before`)."""
    key = keyring.retired_before(LOG, record.key_id, record.acted_at_utc)
    if key is not None:
        return [
            f"{where}: {what} is signed with journal key {key.key_id}, retired at "
            f"{key.retired}, before the record was made ({record.acted_at}): a copy of the "
            "retired key was kept"
        ]
    return []


def _typed(data: dict[str, Any], legacy: bool) -> AckRecord:
    """The record a parsed line holds; TypeError or ValueError when a field is not of its
    type (text; the table, the gaming date and the assignee may be null; the time ISO
    8601)."""
    values: dict[str, Any] = {f.name: data.get(f.name) for f in fields(AckRecord)}
    if legacy:
        values.update(prev_link=data.get("prev_hmac"), link=data.get("hmac"))
    for name, value in values.items():
        nullable = name in _OPTIONAL and (legacy or name not in ("ledger_id", "key_id"))
        if name == "signature" and not legacy:
            nullable = False
        if not (isinstance(value, str) or (value is None and nullable)):
            raise TypeError(f"{name} is {type(value).__name__}")
    record = AckRecord(**values)
    if legacy and (record.ledger_id, record.key_id, record.signature) != (None, None, None):
        raise ValueError("a legacy line carries no ledger, key or signature")
    record.acted_at_utc.astimezone(UTC)  # a time this module cannot read is no record
    return record


def _json_object(line: str) -> dict[str, Any] | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _from_unkeyed(old: dict[str, Any], ledger_id: str) -> AckRecord:
    """An unkeyed record's fields as a record of ``ledger_id``, not signed yet."""
    values: dict[str, Any] = {f.name: old.get(f.name) for f in fields(AckRecord)}
    values.update(ledger_id=ledger_id, prev_link=GENESIS, link="", key_id=None, signature=None)
    return AckRecord(**values)


def _unkeyed_records(name: str, text: str) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """The records of a journal written before lines were authenticated, with their line
    numbers, and the problems that forbid re-signing it (a line of another kind, or a broken
    SHA-256 chain)."""
    unkeyed_fields = _BASE | {"sha256", "prev_sha256"}
    records: list[tuple[int, dict[str, Any]]] = []
    problems = []
    previous = GENESIS
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        data = _json_object(line)
        if (
            data is None
            or not unkeyed_fields <= data.keys()
            or data.keys() & {"hmac", "signature", "link"}
        ):
            problems.append(f"{name} line {number}: not an unkeyed acknowledgement record")
            continue
        body = {k: v for k, v in data.items() if k != "sha256"}
        content = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
        if hashlib.sha256(content).hexdigest() != data["sha256"]:
            problems.append(f"{name} line {number}: changed after it was written")
        elif data["prev_sha256"] != previous:
            problems.append(f"{name} line {number}: its SHA-256 chain is broken")
        previous = str(data["sha256"])
        records.append((number, data))
    if not records and not problems:
        problems.append(f"{name}: no records to re-sign")
    return records, problems
