"""Two copies of one event that disagree: a conflict, never a duplicate.

An ``event_id`` names one event (schemas/README.md: it is what de-duplication goes by), so
two deliveries with the same id are either the same event delivered twice, byte for byte
the same fields (NJ-DATA-DUPLICATE, INFO: applied once), or two different claims about
what happened. The second is what a device (or whatever sits between it and us) does when
it re-sends a settlement with ten times the payout under the settlement's own id and seq.

Which copy is genuine cannot be told from the stream: arrival order proves nothing, since
the doctored copy may come first. So neither is chosen. An auditor expects:

- both copies kept as delivered (the ledger's ``deliveries``, each with where it came from:
  the file and record index, or the topic, partition and offset);
- the disputed event withheld from the replay, so the round it belongs to is reconstructed
  without it: it has a hole in its device's sequence, is marked incomplete and its checks
  are withheld, and nothing either copy recorded (a payout, a collection) is counted;
  a round is never guessed at (N.J.A.C. 19:47-3.7 to 3.10 through the rule-code table's
  NJ-DATA codes);
- one CRITICAL exception per disputed event, naming every copy and what differs, so a
  person can get the device's own record and deliver the genuine event under a new id or
  have the doctored one explained.

The exception's code is ``NJ-DATA-CONFLICT``, at CRITICAL severity. Withholding is by event
id over everything a table-day holds, so the result does not depend on which copy came first,
nor on how the day was loaded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from pipeline.ledger.store import Delivery
from pipeline.replay.findings import Finding, Severity
from pipeline.rules.codes import rule

__all__ = ["CONFLICT_CODE", "Conflict", "ConflictWatch", "conflict_finding", "place"]

CONFLICT_CODE = "NJ-DATA-CONFLICT"
"""The rule code of a conflict (an event id delivered with different contents)."""

_ENVELOPE = ("table_id", "device_id", "seq", "occurred_at", "payload_type")


def _content(delivery: Delivery) -> tuple[Any, ...]:
    """What a copy says, comparable across decoding and the ledger's JSON round trip."""
    e = delivery.event
    return (
        e.table_id,
        e.device_id,
        e.seq,
        e.occurred_at,
        e.payload_type,
        orjson.dumps(e.fields, option=orjson.OPT_SORT_KEYS),
    )


def place(delivery: Delivery) -> str:
    """Where a delivery came from, as a person looks it up: ``kafka topic T partition P
    offset O`` or ``file F record I``."""
    if delivery.source.startswith("kafka:"):
        _, topic, partition = delivery.source.rsplit(":", 2)
        return f"Kafka topic {topic} partition {partition} offset {delivery.position}"
    return f"file {delivery.source} record {delivery.position}"


@dataclass
class Conflict:
    """Every copy of one event id whose copies disagree, in arrival order."""

    event_id: str
    copies: list[Delivery] = field(default_factory=list)


class ConflictWatch:
    """The event ids of a table-day's deliveries, watched for copies that disagree.

    Costs a dict entry per event; contents are compared only when an id comes again."""

    def __init__(self) -> None:
        self._first: dict[str, Delivery] = {}
        self._again: dict[str, list[Delivery]] = {}
        self.conflicts: dict[str, Conflict] = {}

    def add(self, deliveries: Iterable[Delivery]) -> set[str]:
        """Watch more deliveries; the event ids that became conflicts with them."""
        new: set[str] = set()
        for delivery in deliveries:
            event_id = delivery.event.event_id
            first = self._first.get(event_id)
            if first is None:
                self._first[event_id] = delivery
                continue
            if first.key == delivery.key:
                continue  # the same delivery again (a batch read twice)
            copies = self._again.setdefault(event_id, [first])
            if any(c.key == delivery.key for c in copies):
                continue
            copies.append(delivery)
            if event_id in self.conflicts:
                self.conflicts[event_id].copies = sorted(copies, key=_arrival)
            elif _content(delivery) != _content(first):  # earlier copies matched ``first``
                self.conflicts[event_id] = Conflict(event_id, sorted(copies, key=_arrival))
                new.add(event_id)
        return new

    def disputes_applied(self, deliveries: Iterable[Delivery]) -> bool:
        """Whether any of ``deliveries`` disagrees with a copy watched before that is not
        withheld yet (so a replay that applied it must start over without it)."""
        for delivery in deliveries:
            event_id = delivery.event.event_id
            first = self._first.get(event_id)
            if first is None or event_id in self.conflicts or first.key == delivery.key:
                continue
            if _content(delivery) != _content(first):
                return True
        return False

    @property
    def withheld(self) -> set[str]:
        """The event ids the replay must not apply."""
        return set(self.conflicts)

    def admitted(self, deliveries: Sequence[Delivery]) -> list[Delivery]:
        """``deliveries`` without the copies of conflicting events."""
        if not self.conflicts:
            return list(deliveries)
        return [d for d in deliveries if d.event.event_id not in self.conflicts]

    def findings(self) -> list[Finding]:
        """One CRITICAL finding per conflict, in event id order."""
        return [conflict_finding(c) for _, c in sorted(self.conflicts.items())]


def _arrival(delivery: Delivery) -> tuple[str, int, str, int, int]:
    return delivery.arrival


def _differences(copies: Sequence[Delivery]) -> str:
    """The fields in which the copies differ, each copy's value in arrival order."""
    first = copies[0].event
    parts = []
    for name in _ENVELOPE:
        values = [getattr(c.event, name) for c in copies]
        if any(v != values[0] for v in values):
            parts.append(f"{name} " + " / ".join(map(str, values)))
    names = sorted({n for c in copies for n in c.event.fields})
    for name in names:
        values = [c.event.fields.get(name) for c in copies]
        if any(v != values[0] for v in values):
            parts.append(f"{name} " + " / ".join(map(str, values)))
    return "; ".join(parts) or f"the {first.payload_type} fields' encoding"


def conflict_finding(conflict: Conflict) -> Finding:
    """The CRITICAL exception of a conflict: every copy by where it came from, what differs,
    what was done and what to do."""
    copies = conflict.copies
    event = copies[0].event
    rounds = sorted({c.event.round_id for c in copies if c.event.round_id})
    round_text = f"round {', '.join(rounds)}" if rounds else "the table-day's events around it"
    places = "; ".join(f"copy {i} at {place(c)}" for i, c in enumerate(copies, 1))
    citation = rule(CONFLICT_CODE).citation
    return Finding(
        CONFLICT_CODE,
        Severity.CRITICAL,
        event.table_id,
        f"CONFLICT: event {conflict.event_id} ({event.payload_type}, device {event.device_id} "
        f"seq {event.seq}) was delivered {len(copies)} times with different contents: "
        f"{places}. They differ in {_differences(copies)} (values in that order). An event id "
        "names one event, so at most one copy is genuine and the stream cannot tell which: "
        f"neither is applied. {round_text} is replayed without it, marked incomplete and its "
        "checks and settlement are withheld; what either copy recorded is not counted (the "
        f"NJ-DATA-GAP reported at {event.device_id} seq {event.seq} is this hole: the seq was "
        "delivered, differently, not lost). Both "
        f"copies stay in the ledger as delivered ({citation}: a round is reconstructed from "
        "its devices' events, never guessed). Get the device's own record of seq "
        f"{event.seq}, find how the other copy was made, and deliver the genuine event again "
        "under a new event id to settle the round.",
        round_id=rounds[0] if len(rounds) == 1 else None,
        event_ids=(conflict.event_id,),
    )
