"""Repair what devices and networks do to a table's stream, and say what was repaired.

- Duplicates (the same ``event_id`` twice) are applied once (NJ-DATA-DUPLICATE).
- Events that arrive after a later ``seq`` of the same device are put back in ``seq`` order
  (NJ-DATA-REORDERED).
- A missing ``seq`` is a gap (NJ-DATA-GAP): the rounds around it are marked incomplete and are
  never guessed at.
- A device clock running backwards is reported (NJ-DATA-CLOCK-SKEW).

Re-sequencing keeps the interleaving of devices: each device's events are sorted by ``seq``
and put back into the arrival slots that device occupied, so a swap inside one device never
moves another device's events.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pipeline.events.model import TableEvent
from pipeline.replay.findings import Finding, Severity


@dataclass
class Sequenced:
    events: list[TableEvent]
    findings: list[Finding] = field(default_factory=list)
    incomplete_rounds: set[str] = field(default_factory=set)
    duplicates: int = 0


def sequence(arrived: Iterable[TableEvent]) -> Sequenced:
    findings: list[Finding] = []
    seen: set[str] = set()
    unique: list[TableEvent] = []
    duplicates = 0
    for event in arrived:
        if event.event_id in seen:
            duplicates += 1
            findings.append(
                Finding(
                    "NJ-DATA-DUPLICATE",
                    Severity.INFO,
                    event.table_id,
                    f"{event.payload_type} {event.event_id} (device {event.device_id} seq "
                    f"{event.seq}) was delivered more than once; it is applied once.",
                    round_id=event.round_id,
                    event_ids=(event.event_id,),
                )
            )
            continue
        seen.add(event.event_id)
        unique.append(event)

    slots: dict[str, list[int]] = {}
    for position, event in enumerate(unique):
        slots.setdefault(event.device_id, []).append(position)
    ordered: list[TableEvent | None] = [None] * len(unique)
    incomplete: set[str] = set()
    for device, positions in slots.items():
        arrivals = [unique[p] for p in positions]
        highest = 0
        for event in arrivals:
            if event.seq < highest:
                findings.append(
                    Finding(
                        "NJ-DATA-REORDERED",
                        Severity.INFO,
                        event.table_id,
                        f"{event.payload_type} seq {event.seq} from {device} arrived after seq "
                        f"{highest}; it was put back in order.",
                        round_id=event.round_id,
                        event_ids=(event.event_id,),
                    )
                )
            highest = max(highest, event.seq)
        in_order = sorted(arrivals, key=lambda e: e.seq)
        previous: TableEvent | None = None
        expected = 1
        for event in in_order:
            if event.seq > expected:
                rounds = {r for r in (previous.round_id if previous else None, event.round_id) if r}
                incomplete |= rounds
                missing = (
                    f"seq {expected}"
                    if event.seq == expected + 1
                    else f"seq {expected}-{event.seq - 1}"
                )
                findings.append(
                    Finding(
                        "NJ-DATA-GAP",
                        Severity.HIGH,
                        event.table_id,
                        f"{device} never delivered {missing} (before {event.payload_type} seq "
                        f"{event.seq}); round {', '.join(sorted(rounds)) or '(none)'} is marked "
                        "incomplete and its checks are withheld. Recover the device log.",
                        round_id=event.round_id if event.round_id in rounds else None,
                        event_ids=tuple(e.event_id for e in (previous, event) if e),
                    )
                )
            if previous is not None and event.occurred_at < previous.occurred_at:
                behind = (previous.occurred_at - event.occurred_at) / 1e6
                findings.append(
                    Finding(
                        "NJ-DATA-CLOCK-SKEW",
                        Severity.LOW,
                        event.table_id,
                        f"{device} stamped seq {event.seq} {behind:.1f} s before seq "
                        f"{previous.seq}; its clock is suspect, check the device's time source.",
                        round_id=event.round_id,
                        event_ids=(event.event_id,),
                    )
                )
            expected = max(expected, event.seq + 1)
            previous = event
        for position, event in zip(positions, in_order, strict=True):
            ordered[position] = event
    return Sequenced([e for e in ordered if e is not None], findings, incomplete, duplicates)
