"""Complimentary Vigorish Form control, N.J.A.C. 19:47-3.3(c)3 (and 7.3(c)3).

- (c)3ii: every series received is accounted for and used in sequential order: gaps,
  duplicates and forms used out of sequence are findings.
- (c)3i: each Form records the amount, gaming date, pit, table location, patron, and the
  signatures of dealer, pit boss and pit clerk, plus the patron's signature or why it is
  missing.
- (c)3vi: void Forms are marked VOID and signed by the pit boss and pit clerk.
- (c)3iii-iv: at the end of the gaming day each original from the drop box is matched with the
  duplicate the pit clerk forwarded to accounting.
- (c)3vii: documented vigorish is a complimentary in the table game win calculation.
- (c)2-3: a Form documents the vigorish deferred at one seat and not collected: a Form with no
  seat, or for a seat that owed nothing, documents nothing (no complimentary); Chemin de Fer
  defers nothing (4.10(c)), so it has no Forms. The Form's gaming date, pit and table location
  are the table's (3.3(c)3i).

The Form events are read as their typed payload records (:mod:`pipeline.events.payloads`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from pipeline.events.model import TableEvent
from pipeline.events.payloads import (
    CompVigFormIssued,
    CompVigFormVoided,
    FormDuplicateReceived,
    FormOriginalCounted,
    FormSeriesReceived,
)
from pipeline.replay.findings import Finding, Severity, money
from pipeline.replay.rows import FormEventRow, FormRow, FormSeriesRow
from pipeline.rules.codes import code_for, regulates, rule_in
from pipeline.rules.games import Game
from pipeline.rules.variants import variant

COMPLETE = "PB-3.3c3-COMP-FORM"
SEQUENCE = "PB-3.3c3ii-FORM-SEQUENCE"
MATCH = "PB-3.3c3iv-FORM-MATCH"
VOID = "PB-3.3c3vi-FORM-VOID"
"""The Form rules of 3.3(c)3, which 7.3(c)3 repeats for Minibaccarat; messages cite them from
the rule-code table, in the table's game (:meth:`FormControl._citation`)."""

REQUIRED_SIGNATURES = ("dealer_signature", "pit_boss_signature", "pit_clerk_signature")


class Series(NamedTuple):
    event_id: str
    form: FormSeriesReceived


class Copy(NamedTuple):
    """A Form's original counted from the drop box, or its duplicate received at accounting."""

    event_id: str
    form: FormOriginalCounted | FormDuplicateReceived

    def key(self) -> tuple[int, int, str | None, str, date, bool]:
        """What (c)3iv compares between the original and the duplicate."""
        f = self.form
        return (f.serial, f.amount_cents, f.patron_name, f.table_location, f.gaming_date,
                f.marked_void)  # fmt: skip


@dataclass
class FormControl:
    table_id: str
    findings: list[Finding]
    game: Game = Game.PUNTO_BANCO
    location: str | None = None
    gaming_date: date | None = None
    pit: str | None = None
    series_list: list[Series] = field(default_factory=list)
    used: dict[int, list[FormRow]] = field(default_factory=dict)
    highest_used: int | None = None
    originals: list[Copy] = field(default_factory=list)
    duplicates: list[Copy] = field(default_factory=list)
    matched_ids: set[str] = field(default_factory=set)
    supported_cents: dict[str, int] = field(default_factory=dict)
    """Each issued Form's complimentary, by its event: the deferred vigorish it documents
    (3.3(c)3vii), at most what its seat owed; none for a Form of a seat that owed nothing."""

    def _find(
        self,
        code: str,
        message: str,
        serial: int,
        event_ids: tuple[str, ...],
        expected: int | None = None,
        actual: int | None = None,
        severity: Severity = Severity.CRITICAL,
        seat: int | None = None,
    ) -> None:
        self.findings.append(
            Finding(
                code,
                severity,
                self.table_id,
                message,
                seat=seat,
                serial=serial,
                expected_cents=expected,
                actual_cents=actual,
                event_ids=event_ids,
                game=self.game,
            )
        )

    def _citation(self, code: str) -> str:
        """``code``'s section as this table's game cites it (7.3(c)3 at Minibaccarat)."""
        return rule_in(self.game, code).citation

    def series(self, e: TableEvent) -> None:
        self.series_list.append(Series(e.event_id, e.payload_as(FormSeriesReceived)))

    def _in_series(self, serial: int) -> bool:
        return any(s.form.first_serial <= serial <= s.form.last_serial for s in self.series_list)

    def _use(self, serial: int, row: FormRow, e: TableEvent) -> None:
        """(c)3ii: sequential use of a received series."""
        if not self._in_series(serial):
            self._find(
                SEQUENCE,
                f"Form {serial} is not in any series received at this table; every "
                f"series must be accounted for ({self._citation(SEQUENCE)}).",
                serial,
                (e.event_id,),
            )
        elif serial in self.used:
            first = self.used[serial][0]
            self._find(
                SEQUENCE,
                f"Form {serial} was used twice (first as {first.status.lower()} by event "
                f"{first.event_id}); serials are used once, in order "
                f"({self._citation(SEQUENCE)}).",
                serial,
                (first.event_id, e.event_id),
            )
        elif self.highest_used is not None and serial < self.highest_used:
            self._find(
                SEQUENCE,
                f"Form {serial} was used after Form {self.highest_used}; each series is "
                f"used in sequential order ({self._citation(SEQUENCE)}).",
                serial,
                (e.event_id,),
            )
        self.used.setdefault(serial, []).append(row)
        self.highest_used = max(serial, self.highest_used or serial)

    def issued(self, e: TableEvent, owed_cents: int, severity: Severity = Severity.CRITICAL) -> int:
        """A Form issued for the seat it names, which owed ``owed_cents`` of deferred vigorish
        (0 when it names none); ``severity`` is lower when the table's events are incomplete
        and the deferral may be among the lost ones. Returns the amount documented."""
        form = e.payload_as(CompVigFormIssued)
        serial = form.serial
        row = FormRow(
            self.table_id,
            serial,
            "ISSUED",
            form.amount_cents,
            form.patron_name,
            form.patron_id,
            form.gaming_date,
            form.pit,
            form.table_location,
            form.dealer_signature,
            form.pit_boss_signature,
            form.pit_clerk_signature,
            form.patron_signature,
            form.signature_missing_reason,
            None,
            e.event_id,
        )
        self._use(serial, row, e)
        missing = [
            f.replace("_", " ")
            for f in (*variant(self.game).form_fields, *REQUIRED_SIGNATURES)
            if not getattr(form, f)
        ]
        if not form.patron_signature and not form.signature_missing_reason:
            missing.append("patron signature or the reason it could not be obtained")
        if missing:
            self._find(
                COMPLETE,
                f"Form {serial} lacks the {', '.join(missing)} ({self._citation(COMPLETE)}).",
                serial,
                (e.event_id,),
            )
        self._check_table(serial, row, e)
        self.supported_cents[e.event_id] = min(row.amount_cents, owed_cents)
        if owed_cents == 0:
            self._undeferred(serial, row, e, severity)
        return row.amount_cents

    def _check_table(self, serial: int, row: FormRow, e: TableEvent) -> None:
        """3.3(c)3i: the gaming date, pit and table location recorded are the table's. An
        absent one is the missing-field finding above, not a second one here."""
        if not regulates(self.game, "form_table"):
            return
        wrong = [
            f"{name} {recorded} (the table's is {actual})"
            for name, recorded, actual in (
                ("gaming date", row.gaming_date, self.gaming_date),
                ("pit", row.pit, self.pit),
                ("table location", row.table_location, self.location),
            )
            if recorded and actual is not None and recorded != actual
        ]
        if wrong:
            code = code_for(self.game, "form_table")
            self._find(
                code,
                f"Form {serial} records {'; '.join(wrong)}, as the table opened "
                f"({self._citation(code)}). Correct the Form: the complimentary belongs to this "
                "table's gaming day.",
                serial,
                (e.event_id,),
            )

    def _undeferred(self, serial: int, row: FormRow, e: TableEvent, severity: Severity) -> None:
        """(c)2-3 (4.10(c)): a Form documents a seat's deferred, uncollected vigorish."""
        code = code_for(self.game, "form_deferred")
        seat = e.payload_as(CompVigFormIssued).seat
        if not variant(self.game).vigorish_deferred:
            why = "Chemin de Fer vigorish is collected immediately, never deferred"
        elif seat is None:
            why = (
                "it names no seat, so it cannot be tied to the marker button of a player who "
                "owed deferred vigorish"
            )
        else:
            why = f"seat {seat} owed no deferred vigorish when it was issued"
        self._find(
            code,
            f"Form {serial} documents {money(row.amount_cents)} for "
            f"{row.patron_name or 'an unnamed patron'}, but {why} ({self._citation(code)}). It "
            "is not counted as a complimentary: find the deferral it documents, or void the Form.",
            serial,
            (e.event_id,),
            expected=0,
            actual=row.amount_cents,
            severity=severity,
            seat=int(seat) if seat is not None else None,
        )

    def voided(self, e: TableEvent) -> None:
        form = e.payload_as(CompVigFormVoided)
        serial = form.serial
        row = FormRow(
            self.table_id,
            serial,
            "VOIDED",
            0,
            None,
            None,
            None,
            None,
            None,
            None,
            form.pit_boss_signature,
            form.pit_clerk_signature,
            None,
            None,
            form.marked_void,
            e.event_id,
        )
        self._use(serial, row, e)
        flaws = []
        if not form.marked_void:
            flaws.append("is not marked VOID")
        for signature, who in (
            (form.pit_boss_signature, "pit boss"),
            (form.pit_clerk_signature, "pit clerk"),
        ):
            if not signature:
                flaws.append(f"lacks the {who}'s signature")
        if flaws:
            self._find(
                VOID,
                f"Void Form {serial} {' and '.join(flaws)} ({self._citation(VOID)}).",
                serial,
                (e.event_id,),
            )

    def original(self, e: TableEvent) -> None:
        self.originals.append(Copy(e.event_id, e.payload_as(FormOriginalCounted)))

    def duplicate(self, e: TableEvent) -> None:
        self.duplicates.append(Copy(e.event_id, e.payload_as(FormDuplicateReceived)))

    def close_day(self) -> None:
        """End of the gaming day: gaps in the used series; originals against duplicates."""
        for s in self.series_list:
            first, last = s.form.first_serial, s.form.last_serial
            used_here = [serial for serial in self.used if first <= serial <= last]
            if used_here:
                for serial in range(first, max(used_here) + 1):
                    if serial not in self.used:
                        self._find(
                            SEQUENCE,
                            f"Form {serial} of series {first}-{last} is missing: neither "
                            "used nor voided, though later forms were used "
                            f"({self._citation(SEQUENCE)}).",
                            serial,
                            (s.event_id,),
                        )
        self._match()

    def _match(self) -> None:
        """(c)3iv: each original from the drop box against its duplicate from the pit clerk."""
        originals = Counter(c.key() for c in self.originals)
        duplicates = Counter(c.key() for c in self.duplicates)
        unmatched = (originals - duplicates) + (duplicates - originals)
        for copies, others in ((self.originals, duplicates), (self.duplicates, originals)):
            for c in copies:
                if others[c.key()] > 0:
                    self.matched_ids.add(c.event_id)
        for serial in sorted({key[0] for key in unmatched}):
            orig = [c for c in self.originals if c.form.serial == serial]
            dup = [c for c in self.duplicates if c.form.serial == serial]
            o_amount = sum(c.form.amount_cents for c in orig)
            d_amount = sum(c.form.amount_cents for c in dup)
            self._find(
                MATCH,
                f"Form {serial}: the drop-box original ({len(orig)} counted, "
                f"{money(o_amount)}) does not match the duplicate at accounting "
                f"({len(dup)} received, {money(d_amount)}) in serial, amount, patron, "
                f"table or gaming date ({self._citation(MATCH)}).",
                serial,
                tuple(c.event_id for c in (*orig, *dup)),
                expected=o_amount,
                actual=d_amount,
            )
        for serial, rows in self.used.items():
            if not any(c.form.serial == serial for c in (*self.originals, *self.duplicates)):
                what = "issued" if any(r.status == "ISSUED" for r in rows) else "voided"
                # A void Form goes to accounting too (3.3(c)3vi).
                cited = [self._citation(MATCH)] + (
                    [self._citation(VOID)] if what == "voided" else []
                )
                self._find(
                    MATCH,
                    f"Form {serial} was {what} but neither its original nor its duplicate "
                    f"reached accounting ({', '.join(cited)}).",
                    serial,
                    tuple(r.event_id for r in rows),
                )

    def comp_cents(self) -> int:
        """(c)3vii: vigorish documented on Forms, a complimentary to the patron: what each
        Form issued and not voided documents of its seat's deferral, so a Form overstating
        it adds only the vigorish deferred (its finding states the difference)."""
        return sum(
            self.supported_cents.get(r.event_id, 0)
            for rows in self.used.values()
            for r in rows
            if r.status == "ISSUED"
        )

    def rows(self) -> list[FormRow]:
        return [r for serial in sorted(self.used) for r in self.used[serial]]

    def event_rows(self) -> list[FormEventRow]:
        out = []
        for kind, copies in (
            ("ORIGINAL_COUNTED", self.originals),
            ("DUPLICATE_RECEIVED", self.duplicates),
        ):
            for c in copies:
                out.append(
                    FormEventRow(
                        self.table_id,
                        c.form.serial,
                        kind,
                        c.form.amount_cents,
                        c.form.patron_name,
                        c.form.table_location,
                        c.form.gaming_date,
                        c.form.marked_void,
                        c.event_id in self.matched_ids,
                        c.event_id,
                    )
                )
        return out

    def series_rows(self) -> list[FormSeriesRow]:
        out = []
        for s in self.series_list:
            first, last = s.form.first_serial, s.form.last_serial
            rows = [r for serial, rs in self.used.items() if first <= serial <= last for r in rs]
            out.append(
                FormSeriesRow(
                    self.table_id,
                    first,
                    last,
                    sum(r.status == "ISSUED" for r in rows),
                    sum(r.status == "VOIDED" for r in rows),
                    s.event_id,
                )
            )
        return out
