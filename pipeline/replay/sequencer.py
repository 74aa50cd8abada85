"""Repair what devices and networks do to a table's stream, and say what was repaired.

- Duplicates (the same ``event_id`` twice) are applied once (NJ-DATA-DUPLICATE).
- Events that arrive after a later ``seq`` of the same device are put back in ``seq`` order
  (NJ-DATA-REORDERED).
- A missing ``seq`` is a gap (NJ-DATA-GAP): the rounds around it are marked incomplete and are
  never guessed at.
- A device clock running backwards is reported (NJ-DATA-CLOCK-SKEW).

The order the replay sees does not depend on the order events were delivered or loaded:
each device's events are ordered by ``seq``, and devices are merged by ``occurred_at`` (then
device id), taking each device's next event in turn. A device whose clock jumps backwards
therefore cannot move an event ahead of its own predecessor. Loading a day in pieces, in any
order, replays exactly like loading it whole.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter

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

    by_device: dict[str, list[TableEvent]] = {}
    for event in unique:
        by_device.setdefault(event.device_id, []).append(event)
    incomplete: set[str] = set()
    streams: list[list[TableEvent]] = []
    for device, arrivals in sorted(by_device.items()):
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
            if event.seq > highest:
                highest = event.seq
        in_order = sorted(arrivals, key=attrgetter("seq"))
        streams.append(in_order)
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
    return Sequenced(_merge(streams), findings, incomplete, duplicates)


def _merge(streams: list[list[TableEvent]]) -> list[TableEvent]:
    """Merge per-device streams (each in ``seq`` order) by the time of each one's next event."""
    heap = [(s[0].occurred_at, s[0].device_id, i, 0) for i, s in enumerate(streams) if s]
    heapq.heapify(heap)
    merged: list[TableEvent] = []
    while heap:
        _, device, i, k = heapq.heappop(heap)
        stream = streams[i]
        merged.append(stream[k])
        if k + 1 < len(stream):
            nxt = stream[k + 1]
            heapq.heappush(heap, (nxt.occurred_at, device, i, k + 1))
    return merged
