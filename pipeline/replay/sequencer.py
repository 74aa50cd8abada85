"""Repair what devices and networks do to a table's stream, and say what was repaired.

- Duplicates (the same ``event_id`` twice) are applied once (NJ-DATA-DUPLICATE).
- Events that arrive after a later ``seq`` of the same device are put back in ``seq`` order
  (NJ-DATA-REORDERED).
- A missing ``seq`` is a gap (NJ-DATA-GAP): the rounds around it are marked incomplete and are
  never guessed at.
- A device whose first event of the table-day is not ``seq`` 1 lost the day's head
  (NJ-DATA-HEAD-MISSING): a device numbers its events from 1 when the table opens
  (schemas/README.md), so every round up to its first event is marked incomplete.
- A device clock running backwards is reported (NJ-DATA-CLOCK-SKEW).
- An event no device could have sent is withheld from the replay with one finding
  (NJ-DATA-CONTRACT), its round marked incomplete: a time outside
  :data:`~pipeline.events.model.PLAUSIBLE_TIMES`, or a ``seq`` more than
  :data:`~pipeline.events.model.MAX_SEQ_STEP` above the device's highest so far (a broken
  counter, not thousands of out-of-order events after it).
- Device strings cut at intake (:data:`~pipeline.events.model.MAX_DEVICE_STRING`) are reported,
  one finding per device and field (NJ-DATA-CONTRACT).

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
from datetime import UTC, datetime, timedelta
from operator import attrgetter

from pipeline.events.model import (
    MAX_DEVICE_STRING,
    MAX_SEQ_STEP,
    PLAUSIBLE_TIMES,
    TableEvent,
    cut_length,
)
from pipeline.replay.findings import Finding, Severity


@dataclass
class Sequenced:
    events: list[TableEvent]
    findings: list[Finding] = field(default_factory=list)
    incomplete_rounds: set[str] = field(default_factory=set)
    duplicates: int = 0


def sequence(arrived: Iterable[TableEvent]) -> Sequenced:
    """Put a table-day's events, in the order they arrived, in the order they happened."""
    sequencer = Sequencer()
    sequencer.add(arrived)
    return sequencer.sequenced()


class Sequencer:
    """:func:`sequence` of every event added so far, kept up to date as batches arrive, at
    about the cost of each batch: the usual batch only extends each device's stream and the
    merged order at their ends. A batch that cannot (an event that belongs before events
    already merged) has the merged order rebuilt, and :meth:`add` says so."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._duplicates: dict[str, Finding] = {}
        """One finding per event delivered more than once, however many times it was."""
        self._copies = 0
        """Deliveries beyond each event's first."""
        self._overlong: dict[tuple[str, str], _Cut] = {}
        self._devices: dict[str, _DeviceStream] = {}
        self._merged: list[TableEvent] = []

    def add(self, arrived: Iterable[TableEvent]) -> bool:
        """Add events that arrived after those added before; False when events already in
        the merged order changed places (the new ones do not all go at its end)."""
        seen = self._seen
        by_device: dict[str, list[TableEvent]] = {}
        for event in arrived:
            if event.event_id in seen:
                self._copies += 1
                if event.event_id not in self._duplicates:
                    self._duplicates[event.event_id] = _duplicate(event)
                continue
            seen.add(event.event_id)
            for name in event.overlong():
                cut = self._overlong.setdefault((event.device_id, name), _Cut(event, name))
                cut.events += 1
            by_device.setdefault(event.device_id, []).append(event)
        appended = True
        for device, events in by_device.items():
            stream = self._devices.setdefault(device, _DeviceStream(device))
            if not stream.extend(events):  # late: the device's stream is redone in full
                self._devices[device] = _DeviceStream(device)
                self._devices[device].extend(stream.arrivals + events)
                appended = False
            elif (
                appended
                and stream.added
                and not self._merges_at_end(device, stream.in_order[-stream.added])
            ):
                appended = False
        if appended:
            tails = [
                stream.in_order[len(stream.in_order) - stream.added :]
                for device, stream in sorted(self._devices.items())
                if device in by_device
            ]
            self._merged += _merge(tails)
        else:
            self._merged = _merge([stream.in_order for _, stream in sorted(self._devices.items())])
        return appended

    def sequenced(self) -> Sequenced:
        """Everything added so far, sequenced. Its ``events`` list is the sequencer's own,
        which later additions extend."""
        findings = list(self._duplicates.values())
        findings += [cut.finding() for _, cut in sorted(self._overlong.items())]
        incomplete: set[str] = set()
        for _, stream in sorted(self._devices.items()):
            findings += stream.withheld
            findings += stream.reorders
            first = stream.in_order[0] if stream.in_order else None
            if first is not None and stream.unaccounted(FIRST_SEQ, first.seq):
                rounds = self._rounds_until(first)
                findings.append(head_missing(first, rounds))
                incomplete |= rounds
            findings += stream.gaps
            incomplete |= stream.incomplete
        return Sequenced(self._merged, findings, incomplete, self._copies)

    def _rounds_until(self, first: TableEvent) -> set[str]:
        """The rounds a device's missing head could hold events of: every round with an event
        (of any device) up to the device's first delivered one, and that one's round. Only
        a day with a missing head pays for this scan."""
        rounds = {e.round_id for e in self._merged if e.occurred_at <= first.occurred_at}
        rounds.add(first.round_id)
        return {r for r in rounds if r}

    def _merges_at_end(self, device: str, first: TableEvent) -> bool:
        """Whether the device's first new event merges after every event merged since the
        device's last one (:func:`_merge` takes the earliest next event of the devices), so
        the merged order only grows at its end."""
        key = (first.occurred_at, device)
        for event in reversed(self._merged):
            if event.device_id == device:
                return True
            if (event.occurred_at, event.device_id) > key:
                return False
        return True


FIRST_SEQ = 1
"""A device numbers its events of a table-day from 1, at the table's opening."""


def head_missing(first: TableEvent, rounds: set[str]) -> Finding:
    """NJ-DATA-HEAD-MISSING: the device's first delivered event of the day is ``first``, not
    seq 1; ``rounds`` are the rounds withheld for it."""
    missing = first.seq - FIRST_SEQ
    named = ", ".join(sorted(rounds)[:3]) + (", ..." if len(rounds) > 3 else "")
    withheld = (
        f"{len(rounds)} round(s) up to that event ({named}) are marked incomplete and their "
        "checks withheld"
        if rounds
        else "no round precedes it"
    )
    return Finding(
        "NJ-DATA-HEAD-MISSING",
        Severity.HIGH,
        first.table_id,
        f"{first.device_id} starts the table-day at seq {first.seq} ({first.payload_type} "
        f"{first.event_id}), not at seq {FIRST_SEQ}: its first {missing} event(s) never "
        f"arrived; {withheld}. Find the device's missing events (its log, or the file or "
        "delivery that held the start of the day), deliver them, then replay the table-day.",
        round_id=first.round_id,
        event_ids=(first.event_id,),
    )


def missing_heads(events: Iterable[TableEvent]) -> list[TableEvent]:
    """The first event (lowest ``seq``) of each device that does not start at seq 1, by
    device."""
    firsts: dict[str, TableEvent] = {}
    for event in events:
        known = firsts.get(event.device_id)
        if known is None or event.seq < known.seq:
            firsts[event.device_id] = event
    return [e for _, e in sorted(firsts.items()) if e.seq > FIRST_SEQ]


def redelivered_file(
    table_id: str, copy: str, original: str, sha256: str, events: int, first_event_id: str
) -> Finding:
    """NJ-DATA-DUPLICATE: input file ``copy`` is ``original`` (loaded before) delivered again
    under another name, its ``events`` events of the table-day added nothing."""
    return Finding(
        "NJ-DATA-DUPLICATE",
        Severity.LOW,
        table_id,
        f"{copy} is {original} delivered again under another name (the same bytes, SHA-256 "
        f"{sha256[:16]}, so the same {events:,} events of this table-day): they are applied "
        f"once, from {original}, and nothing of {copy} was added. Find why the file was "
        "delivered twice (a transfer retried under a new name, a copy left in the inbox) so "
        "that the next one is not taken for new data.",
        event_ids=(first_event_id,),
    )


def _duplicate(event: TableEvent) -> Finding:
    return Finding(
        "NJ-DATA-DUPLICATE",
        Severity.INFO,
        event.table_id,
        f"{event.payload_type} {event.event_id} (device {event.device_id} seq "
        f"{event.seq}) was delivered more than once; it is applied once.",
        round_id=event.round_id,
        event_ids=(event.event_id,),
    )


@dataclass
class _Cut:
    """The events of one device whose string ``name`` was cut at intake."""

    first: TableEvent
    name: str
    events: int = 0

    def finding(self) -> Finding:
        e = self.first
        value = getattr(e, self.name) if self.name in _ENVELOPE else e.fields[self.name]
        where = f", round {e.round_id}" if e.round_id else ""
        return Finding(
            "NJ-DATA-CONTRACT",
            Severity.MEDIUM,
            e.table_id,
            f"{self.events:,} event(s) of {e.device_id} carried a {self.name} longer than "
            f"{MAX_DEVICE_STRING:,} characters (the first: {e.payload_type} {e.event_id} seq "
            f"{e.seq}{where}; {cut_length(value)}). A device string keeps at most "
            f"{MAX_DEVICE_STRING:,} characters at intake (MAX_DEVICE_STRING: a longer one, held "
            "on every delivery, in the quality gate and in the reports, would exhaust the "
            "close's memory): each was cut to its first characters followed by its length and "
            "SHA-256, so the events still replay and equal values stay equal. Find what filled "
            "the field (the device's firmware or configuration, a terminal's input) and have "
            "it corrected.",
            round_id=e.round_id,
            event_ids=(e.event_id,),
        )


_ENVELOPE = frozenset({"event_id", "table_id", "device_id"})


def _when(micros: int) -> str:
    """An event time for a message, however far out of range."""
    try:
        return (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)).isoformat()
    except OverflowError:
        return f"{micros:,} microseconds from 1970-01-01 UTC"


def plausible_time(micros: int) -> bool:
    """Whether an event time lies in :data:`~pipeline.events.model.PLAUSIBLE_TIMES`."""
    return PLAUSIBLE_TIMES[0] <= micros < PLAUSIBLE_TIMES[1]


def implausible_time(event: TableEvent) -> Finding:
    """NJ-DATA-CONTRACT: ``event``'s time is no time a table dealt; it is withheld."""
    low, high = (_when(t)[:10] for t in PLAUSIBLE_TIMES)
    rnd = event.round_id
    return Finding(
        "NJ-DATA-CONTRACT",
        Severity.HIGH,
        event.table_id,
        f"{event.payload_type} {event.event_id} ({event.device_id} seq {event.seq}"
        f"{f', round {rnd}' if rnd else ''}) is stamped {_when(event.occurred_at)}, outside "
        f"the plausible device times [{low}, {high}) UTC: the device's clock is broken. The "
        "event is withheld from the replay"
        f"{f' and round {rnd} is marked incomplete, its checks withheld' if rnd else ''}; "
        "nothing it recorded is counted. Set the device's clock, take the event's true time "
        "from the device's log, and deliver it again under a new event id.",
        round_id=rnd,
        event_ids=(event.event_id,),
    )


def implausible_seq(event: TableEvent, highest: int) -> Finding:
    """NJ-DATA-CONTRACT: ``event``'s seq jumps more than MAX_SEQ_STEP above ``highest``."""
    rnd = event.round_id
    return Finding(
        "NJ-DATA-CONTRACT",
        Severity.HIGH,
        event.table_id,
        f"{event.payload_type} {event.event_id} ({event.device_id}"
        f"{f', round {rnd}' if rnd else ''}) numbers itself seq {event.seq:,}, "
        f"{event.seq - highest:,} above the device's highest so far ({highest:,}); a device "
        f"counts a table-day's events from 1 and no lost stretch spans {MAX_SEQ_STEP:,}: its "
        "counter is broken. The event is withheld from the replay"
        f"{f' and round {rnd} is marked incomplete, its checks withheld' if rnd else ''}; the "
        f"device's later events are judged against seq {highest:,}. Check the device's "
        "sequence counter and deliver the event again with its true seq.",
        round_id=rnd,
        event_ids=(event.event_id,),
    )


class _DeviceStream:
    """One device's events: in arrival order (for reordering), in ``seq`` order (for gaps
    and clock skew), and the findings about them."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.arrivals: list[TableEvent] = []
        self.in_order: list[TableEvent] = []
        self.reorders: list[Finding] = []
        self.withheld: list[Finding] = []
        """Events no device could have sent (an implausible time or seq), kept out of the
        order."""
        self.added = 0
        """How many events the last :meth:`extend` put in order."""
        self._withheld_seqs: set[int] = set()
        """The seqs of events withheld for their time: delivered, so no gap."""
        self.gaps: list[Finding] = []
        """Gaps and clock skew, in ``seq`` order."""
        self.incomplete: set[str] = set()
        self._highest = 0
        self._expected = FIRST_SEQ
        self._previous: TableEvent | None = None

    def extend(self, arrivals: list[TableEvent]) -> bool:
        """Add events that arrived after the stream's; False (nothing added) when one of
        them has a ``seq`` not above every ``seq`` already here."""
        if self.in_order and min(e.seq for e in arrivals) <= self.in_order[-1].seq:
            return False
        kept = []
        for event in arrivals:
            if not plausible_time(event.occurred_at):
                self._withhold(implausible_time(event), event)
                self._withheld_seqs.add(event.seq)
                continue
            if event.seq > self._highest + MAX_SEQ_STEP:
                self._withhold(implausible_seq(event, self._highest), event)
                continue
            kept.append(event)
            if event.seq < self._highest:
                self.reorders.append(
                    Finding(
                        "NJ-DATA-REORDERED",
                        Severity.INFO,
                        event.table_id,
                        f"{event.payload_type} seq {event.seq} from {self.device} arrived "
                        f"after seq {self._highest}; it was put back in order.",
                        round_id=event.round_id,
                        event_ids=(event.event_id,),
                    )
                )
            if event.seq > self._highest:
                self._highest = event.seq
        self.arrivals += arrivals
        in_order = sorted(kept, key=attrgetter("seq"))
        self.added = len(in_order)
        for event in in_order:
            self._check_gap_and_clock(event)
        self.in_order += in_order
        return True

    def _withhold(self, finding: Finding, event: TableEvent) -> None:
        self.withheld.append(finding)
        if event.round_id:
            self.incomplete.add(event.round_id)

    def unaccounted(self, low: int, high: int) -> bool:
        """Whether a seq in [low, high) was never delivered (events withheld for their time
        were delivered)."""
        return high - low > sum(low <= s < high for s in self._withheld_seqs)

    def _check_gap_and_clock(self, event: TableEvent) -> None:
        previous, expected = self._previous, self._expected
        if (
            previous is not None and event.seq > expected and self.unaccounted(expected, event.seq)
        ):  # a missing head: see sequenced()
            rounds = {r for r in (previous.round_id if previous else None, event.round_id) if r}
            self.incomplete |= rounds
            missing = f"seq {expected}"
            if event.seq > expected + 1:
                missing += f"-{event.seq - 1}"
            self.gaps.append(
                Finding(
                    "NJ-DATA-GAP",
                    Severity.HIGH,
                    event.table_id,
                    f"{self.device} never delivered {missing} (before {event.payload_type} seq "
                    f"{event.seq}); round {', '.join(sorted(rounds)) or '(none)'} is marked "
                    "incomplete and its checks are withheld. Recover the device log.",
                    round_id=event.round_id if event.round_id in rounds else None,
                    event_ids=tuple(e.event_id for e in (previous, event) if e),
                )
            )
        if previous is not None and event.occurred_at < previous.occurred_at:
            behind = (previous.occurred_at - event.occurred_at) / 1e6
            self.gaps.append(
                Finding(
                    "NJ-DATA-CLOCK-SKEW",
                    Severity.LOW,
                    event.table_id,
                    f"{self.device} stamped seq {event.seq} {behind:.1f} s before seq "
                    f"{previous.seq}; its clock is suspect, check the device's time source.",
                    round_id=event.round_id,
                    event_ids=(event.event_id,),
                )
            )
        self._expected = max(expected, event.seq + 1)
        self._previous = event


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
