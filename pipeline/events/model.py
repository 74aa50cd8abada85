"""The in-memory form of one table event, shared by the emulator, the codecs and the replay.

Field names follow the Avro envelope (``schemas/table_event.avsc``). ``payload_type`` is the
payload record's short name (``"CardDealt"``) and ``fields`` its fields, with enum symbols as
strings, dates as :class:`datetime.date`, and ``occurred_at`` as integer microseconds since the
Unix epoch (UTC), so events compare and hash without time-zone surprises.

:meth:`TableEvent.payload_as` reads the fields as the typed record generated from the schema
(:mod:`pipeline.events.payloads`), which is what new code should use instead of :meth:`get`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

P = TypeVar("P")

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(instant: datetime) -> int:
    return (instant - _EPOCH) // timedelta(microseconds=1)


PLAUSIBLE_TIMES: tuple[int, int] = (
    _micros(datetime(2000, 1, 1, tzinfo=UTC)),
    _micros(datetime(2100, 1, 1, tzinfo=UTC)),
)
"""The device times an event can carry, as a half-open range of epoch microseconds:
[2000-01-01, 2100-01-01) UTC. The replay, the ledger and the pattern stage count gaming days,
windows of earlier days and day bounds from ``occurred_at``; a time outside this range is no
time a table dealt (a clock reset to 1970, a corrupted year 9999) and would put the event on a
gaming day nobody will close, or past the last date Python and DuckDB can represent. Such an
event is withheld from the replay with a finding (:mod:`pipeline.replay.sequencer`), never
given a gaming day of its own."""

MAX_SEQ_STEP = 1_000_000
"""How far above a device's highest ``seq`` so far its next event may number itself. A device
numbers its events of a table-day from 1 (schemas/README.md); the busiest emulated device sends
about 15,000 a day, so a step beyond a million is no lost stretch of events but a broken
counter (``2**63 - 1``): the event is withheld with one finding, and the device's next events
are judged against the sequence they continue (:mod:`pipeline.replay.sequencer`)."""

MAX_DEVICE_STRING = 1_024
"""The most characters a device string of an event (its table, device, round, shoe, dealer
or patron id, a patron's name, a note, a signature) keeps at intake. The longest a device
sends in earnest is a Complimentary Vigorish Form's patron name or signature (N.J.A.C.
19:47-3.3(c)3) or a pit note: tens of characters. Every string is held once per delivery in
the ledger and again in the quality gate's frames and the close's reports, so a device that
sends megabytes per field (a table id of 2 MB on each of its events) would take the close's
memory with it. A longer string is cut by :func:`bounded` (its first ``MAX_DEVICE_STRING``
characters, then its length and SHA-256, so equal strings stay equal and different ones
differ) and the replay reports it (:mod:`pipeline.replay.sequencer`)."""

_CUT_MARK = "\u2026[cut at intake from "


def bounded(value: str) -> str:
    """``value`` if it is at most :data:`MAX_DEVICE_STRING` characters long; otherwise its
    first ``MAX_DEVICE_STRING`` characters, then its length and the first 16 hex digits of
    its SHA-256 (so the result is longer than the limit, which is how the replay tells a cut
    string)."""
    if len(value) <= MAX_DEVICE_STRING or _is_cut(value):
        return value  # a string cut before (read back from the ledger or a bundle) stays
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{value[:MAX_DEVICE_STRING]}{_CUT_MARK}{len(value):,} characters, sha256 {digest}]"


def _is_cut(value: str) -> bool:
    return (
        len(value) <= MAX_DEVICE_STRING + 80
        and value.startswith(_CUT_MARK, MAX_DEVICE_STRING)
        and value.endswith("]")
    )


def cut_length(value: str) -> str:
    """What :func:`bounded` wrote after the kept characters of a cut string (its original
    length and digest), for messages."""
    return value[MAX_DEVICE_STRING + len(_CUT_MARK) : -1]


class PayloadTypeError(TypeError):
    """An event was read as a payload record it does not hold."""


@dataclass(slots=True)
class TableEvent:
    event_id: str
    table_id: str
    device_id: str
    seq: int
    occurred_at: int
    payload_type: str
    fields: dict[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def payload_as(self, kind: type[P]) -> P:
        """The payload as the record ``kind`` (``event.payload_as(CardDealt)``).

        Built on each call (about a microsecond; the replay's hot paths keep :meth:`get`).
        Fields an in-memory event leaves out take the schema's default; a payload of another
        type, or fields the record lacks or does not know, raise :class:`PayloadTypeError`
        naming the event.
        """
        if kind.__name__ != self.payload_type:
            raise PayloadTypeError(
                f"event {self.event_id} (table {self.table_id}, device {self.device_id}, "
                f"seq {self.seq}) is a {self.payload_type}, not a {kind.__name__}"
            )
        try:
            return kind(**self.fields)
        except TypeError as exc:
            raise PayloadTypeError(
                f"event {self.event_id} (table {self.table_id}, device {self.device_id}, "
                f"seq {self.seq}): its {self.payload_type} fields do not fit the schema: {exc}"
            ) from exc

    def overlong(self) -> list[str]:
        """The names of the envelope and payload strings longer than
        :data:`MAX_DEVICE_STRING`: those :func:`bounded` cut at intake."""
        envelope = [
            name
            for name, value in (
                ("event_id", self.event_id),
                ("table_id", self.table_id),
                ("device_id", self.device_id),
            )
            if len(value) > MAX_DEVICE_STRING
        ]
        return envelope + [
            k for k, v in self.fields.items() if type(v) is str and len(v) > MAX_DEVICE_STRING
        ]

    @property
    def round_id(self) -> str | None:
        value = self.fields.get("round_id")
        return str(value) if value is not None else None
