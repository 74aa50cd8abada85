"""The one formatter of an exception's evidence: each cited event as a line a person reads
(its time, its type, where at the table, what it says with the money in dollars), and the sum
the events prove.

A deferred-vigorish finding (N.J.A.C. 19:47-3.3(c)2 and (c)4) reads
``deferred $25.00 + $25.00 + $25.00 = $75.00 owed; deadline: shoe T01-S10 ended 02:14:05``:
the deferrals, less what was paid or documented on a Form, and the event that marks the
deadline. The exception queue of the dashboards and the evidence bundle's README and HTML
all write evidence through :func:`event_line` and :func:`proof_line`.

The lines are plain text with every device string made :func:`~pipeline.safe_text.visible`;
each output escapes them for its medium (HTML, Markdown) like any other device string.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

from pipeline.rules.config import money
from pipeline.safe_text import visible


@dataclass(frozen=True, slots=True)
class CitedEvent:
    """A cited event as the ledger stored its delivery."""

    event_id: str
    payload_type: str
    occurred_at: int
    """Microseconds since the epoch, UTC, as the device stamped it."""
    fields: Mapping[str, Any]


PHRASES: Mapping[str, str] = {
    "VigDeferred": "deferred {amount_cents} of vigorish",
    "VigCollected": "collected {amount_cents} of vigorish",
    "DeferredVigCollected": "paid {amount_cents} of deferred vigorish",
    "CompVigFormIssued": "Form {serial} documents {amount_cents}",
    "CompVigFormVoided": "Form {serial} voided",
    "FormOriginalCounted": "original of Form {serial} counted: {amount_cents}",
    "FormDuplicateReceived": "duplicate of Form {serial} received: {amount_cents}",
    "WagerPlaced": "{wager} wager of {amount_cents}",
    "WagerWithdrawn": "{wager} wager of {amount_cents} withdrawn",
    "WagerSettled": "{wager} wager of {amount_cents} settled {outcome}, paid {paid_cents}",
    "BankerWager": "Banker's wager of {amount_cents}",
    "PlayerBancoWager": "{action} for {amount_cents}",
    "CardDealt": "{rank} of {suit} to the {hand}, shoe position {position}",
    "ResultAnnounced": "{winner} announced, Player {player_points} to Banker {banker_points}",
    "RoundStarted": "round {round_id} started",
    "RoundVoided": "round {round_id} voided: {reason}",
    "ShoeStarted": "shoe {shoe_id} started, {cards_in_shoe} cards",
    "ShoeEnded": "shoe {shoe_id} ended",
    "PatronSeated": "patron {patron_id} took seat {seat}",
    "PatronLeft": "patron {patron_id} left seat {seat}",
    "TableOpened": "table opened under rules {rules_id}",
    "TableClosed": "table closed",
}
"""What an event says, by its type; ``*_cents`` fields are filled in as dollars. An event of
another type, or one missing a field its phrase names, is told field by field
(:func:`_fields_text`)."""

DEBT_TERMS: Mapping[str, tuple[int, str]] = {
    "VigDeferred": (+1, "deferred"),
    "DeferredVigCollected": (-1, "paid"),
    "CompVigFormIssued": (-1, "documented"),
}
"""The events that make up a deferred debt (3.3(c)2-3): a deferral adds to it, a payment and
a Form documenting it take from it."""

DEADLINES = frozenset({"ShoeEnded", "ShoeStarted", "PatronLeft", "PatronSeated", "TableClosed"})
"""The events that mark the deadline of 3.3(c)4 for a debt: the shoe completed (ended, or
given way to the next), the patron gone (left, or the seat taken by another), the table
closed."""

_WHERE = ("round_id", "seat", "patron_id")
"""Fields the line's place gives, so the rest of the line does not repeat them."""


def clock(occurred_at: int, zone: tzinfo) -> str:
    """``HH:MM:SS`` on ``zone``'s clock of a device's UTC microseconds."""
    return (
        datetime.fromtimestamp(occurred_at / 1_000_000, UTC).astimezone(zone).strftime("%H:%M:%S")
    )


def _value(name: str, value: Any) -> str:
    if name.endswith("_cents") and isinstance(value, int) and not isinstance(value, bool):
        return money(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return visible(str(value))


def _fields_text(fields: Mapping[str, Any], skip: Iterable[str] = ()) -> str:
    """The fields as ``name value`` pairs (money in dollars, nulls left out)."""
    left_out = set(skip)
    return ", ".join(
        f"{name.removesuffix('_cents').replace('_', ' ')} {_value(name, value)}"
        for name, value in fields.items()
        if value is not None and name not in left_out
    )


def event_text(payload_type: str, fields: Mapping[str, Any]) -> str:
    """What the event says: its phrase of :data:`PHRASES`, or its fields."""
    phrase = PHRASES.get(payload_type)
    shown = {name: _value(name, value) for name, value in fields.items() if value is not None}
    if phrase is not None:
        try:
            return phrase.format_map(shown)
        except KeyError:
            pass
    return _fields_text(fields, _WHERE)


def event_line(event: CitedEvent, zone: tzinfo) -> str:
    """``02:14:05 VigDeferred, round R12, seat 1 (PAT-000070): deferred $25.00 of vigorish``."""
    f = event.fields
    where = "".join(
        part
        for part, value in (
            (f", round {_value('round_id', f.get('round_id'))}", f.get("round_id")),
            (f", seat {_value('seat', f.get('seat'))}", f.get("seat")),
            (f" ({_value('patron_id', f.get('patron_id'))})", f.get("patron_id")),
        )
        if value is not None
    )
    return (
        f"{clock(event.occurred_at, zone)} {visible(event.payload_type)}{where}: "
        f"{event_text(event.payload_type, f)}"
    )


def proof_line(events: Sequence[CitedEvent], zone: tzinfo) -> str | None:
    """The sum the cited events prove of a deferred debt (3.3(c)2-4): ``deferred $25.00 +
    $25.00 - paid $10.00 = $40.00 owed; deadline: shoe S10 ended 02:14:05``. ``None`` when no
    cited event is part of a debt."""
    terms: list[str] = []
    owed = 0
    previous = ""
    for event in events:
        term = DEBT_TERMS.get(event.payload_type)
        amount = event.fields.get("amount_cents")
        if term is None or not isinstance(amount, int):
            continue
        sign, verb = term
        owed += sign * amount
        operator = "" if not terms else (" + " if sign > 0 else " - ")
        label = "" if verb == previous else f"{verb} "
        terms.append(f"{operator}{label}{money(amount)}")
        previous = verb
    if not terms:
        return None
    total = f"{money(owed)} owed" if owed >= 0 else f"{money(-owed)} more than was deferred"
    line = f"{''.join(terms)} = {total}"
    deadline = next((e for e in reversed(events) if e.payload_type in DEADLINES), None)
    if deadline is not None:
        said = event_text(deadline.payload_type, deadline.fields)
        line += f"; deadline: {said} {clock(deadline.occurred_at, zone)}"
    return line


def evidence_lines(events: Sequence[CitedEvent], zone: tzinfo) -> list[str]:
    """The evidence as a person reads it: the sum it proves (when it proves one), then each
    event's line, in the order they occurred."""
    ordered = sorted(events, key=lambda e: e.occurred_at)
    proof = proof_line(ordered, zone)
    return ([proof] if proof else []) + [event_line(e, zone) for e in ordered]
