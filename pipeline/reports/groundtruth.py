"""Compare the emulator's ground-truth fault manifest with the exceptions in the ledger.

A fault is found when an exception carries its rule code at its table, and at its round,
seat and form serial where the fault names one (device faults also by event id, except gaps,
whose missing event the replay cannot name; a slug carried across pits by the cards of the
other table's shoe, which tells it from a false shuffle at the same table). An exception
that finds the same fault by other evidence (:data:`CORROBORATING`) is explained by it
without being needed to find it. Every other exception is unexpected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.store import Ledger
from pipeline.simulate.faults import FaultKind, InjectedFault, read_manifest


@dataclass(frozen=True)
class ExceptionKey:
    exception_id: str
    code: str
    table_id: str
    round_id: str | None
    seat: int | None
    serial: int | None
    event_ids: tuple[str, ...]
    patron_id: str | None


@dataclass
class Comparison:
    injected: int
    exceptions: int
    missed: list[InjectedFault] = field(default_factory=list)
    unexpected: list[ExceptionKey] = field(default_factory=list)
    by_kind: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def precision(self) -> float:
        if not self.exceptions:
            return 1.0
        return (self.exceptions - len(self.unexpected)) / self.exceptions

    def to_json(self) -> dict[str, object]:
        return {
            "by_kind": self.by_kind,
            "false_positives": len(self.unexpected),
            "precision": self.precision,
            "injected": self.injected,
            "exceptions": self.exceptions,
        }

    @property
    def exact(self) -> bool:
        return not self.missed and not self.unexpected

    def summary(self) -> str:
        return (
            f"{self.injected - len(self.missed)}/{self.injected} injected faults found; "
            f"{len(self.unexpected)} exceptions not explained by an injected fault"
        )


CORROBORATING: dict[str, frozenset[str]] = {
    # a patron who knows the winner bets the side the next card favours and wins beyond the
    # odds: the evidence accumulated over the window names the same patron, on the day and
    # on the later days whose window holds it, wherever the patron sits then
    "NJ-PATTERN-INFORMED-BETTING": frozenset(
        {"NJ-PATTERN-INFORMED-ACCUMULATED", "NJ-PATTERN-CARD-PREVIEW"}
    ),
    # a patient cheat's own day can be enough for the day's test, and either preview wins
    # beyond the odds and bets the side the next card favours
    "NJ-PATTERN-INFORMED-ACCUMULATED": frozenset(
        {"NJ-PATTERN-INFORMED-BETTING", "NJ-PATTERN-CARD-PREVIEW"}
    ),
    # an edge sorter prepares the preview by having the dealer turn the cards it reads: the
    # granted request names the same patron on each day it is made
    "NJ-PATTERN-CARD-PREVIEW": frozenset(
        {
            "NJ-PATTERN-INFORMED-BETTING",
            "NJ-PATTERN-INFORMED-ACCUMULATED",
            "NJ-PATTERN-CARD-TURN-REQUEST",
        }
    ),
}
"""Codes that find the patron of a fault of the key's code by other evidence."""


FOUND_BY_EVENT = frozenset({FaultKind.DEVICE.value, FaultKind.CROSS_PIT_SLUG.value})
"""Kinds whose exception must cite one of the events the manifest line names."""


def corroborates(fault: InjectedFault, x: ExceptionKey) -> bool:
    """Whether ``x`` names ``fault``'s patron by evidence of another code."""
    return (
        fault.patron_id is not None
        and x.patron_id == fault.patron_id
        and x.code in CORROBORATING.get(fault.rule_code, ())
    )


def matches(fault: InjectedFault, x: ExceptionKey) -> bool:
    if fault.rule_code != x.code or fault.table_id != x.table_id:
        return False
    for wanted, got in (
        (fault.round_id, x.round_id),
        (fault.seat, x.seat),
        (fault.serial, x.serial),
    ):
        if wanted is not None and wanted != got:
            return False
    if fault.kind in FOUND_BY_EVENT and fault.rule_code != "NJ-DATA-GAP":
        return bool(set(fault.event_ids) & set(x.event_ids))
    return True


def compare(ledger: Ledger, manifest: Path) -> Comparison:
    faults = read_manifest(manifest)
    found = [
        ExceptionKey(
            r.exception_id,
            r.code,
            r.table_id,
            r.round_id,
            r.seat,
            r.serial,
            r.source_event_ids,
            r.patron_id,
        )
        for r in ledger_exceptions.all_exceptions(ledger)
    ]
    explained: set[str] = set()
    result = Comparison(len(faults), len(found))
    for fault in faults:
        hits = [x for x in found if matches(fault, x)]
        stats = result.by_kind.setdefault(fault.kind, {"injected": 0, "found": 0, "recall": 1.0})
        stats["injected"] += 1
        if hits:
            stats["found"] += 1
        else:
            result.missed.append(fault)
        stats["recall"] = stats["found"] / stats["injected"]
        explained.update(x.exception_id for x in hits)
        explained.update(x.exception_id for x in found if corroborates(fault, x))
    result.unexpected = [x for x in found if x.exception_id not in explained]
    return result
