"""Patrons' requests about the cards or the shoe (``PatronRequest``, schema id 6): how a preview
of the cards by their backs is prepared, seen on the day a request is granted.

In edge sorting a patron has the dealer turn the cards of some values end for end as they are
turned face up (the 7s, 8s and 9s, which favour the Player as the first card), asks for the
same cards to be shuffled again for the next shoe, and for an automatic shuffler, which mixes
the cards' order but, like a riffle by hand, keeps each card's orientation. Where the backs
are not printed symmetrically, the patron then reads from its back whether the next card is
one of those values, before the wagers close. N.J.A.C. 19:47-3.6(a) (4.1(a), 7.6) has every
back of the same color and design so that no card can be told by it; 3.5(a) (4.4(a), 7.5(a))
has the cards shuffled so that they are randomly intermixed, which does not turn them back.
No section forbids the dealer to grant the requests, so they are a place to look, never a
finding that a rule was broken:

* :func:`turn_request_findings`: each granted request to turn cards is an exception of its
  own (``NJ-PATTERN-CARD-TURN-REQUEST``, low severity) on its gaming day, so a person looks at
  the table's cards before the next shoe is dealt from them;
* :func:`requests_text`: the card-preview alarm (:mod:`.evidence`) names the patron's requests
  of its window, kind, day, table and whether granted, beside the wagers that carry it. The
  requests change neither its test nor its bar.

The detail is what was typed at the pit terminal: it is quoted as text with its invisible
characters shown (:func:`~pipeline.safe_text.visible`), and each output escapes it for its
medium like any other device string.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from pipeline.replay.findings import Finding, Severity
from pipeline.safe_text import visible

TURN_REQUEST_CODE = "NJ-PATTERN-CARD-TURN-REQUEST"
TURN_REQUEST_SEVERITY = Severity.LOW
"""Granting a request breaks no rule; a person looks at the table's cards the same day."""
TURN_CARDS = "TURN_CARDS"
"""The ``PatronRequestKind`` symbol of a request to turn cards end for end."""
REQUESTS_NAMED = 10
"""The most requests an alarm's message names one by one; its evidence cites them all."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One ``PatronRequest`` as the ledger stored its delivery
    (:func:`pipeline.ledger.pattern_inputs.patron_requests`)."""

    table_id: str
    gaming_date: date
    event_id: str
    occurred_at: int
    """Microseconds since the epoch, UTC, by the pit terminal's clock."""
    seat: int
    patron_id: str | None
    round_id: str | None
    request: str
    """A ``PatronRequestKind`` symbol: TURN_CARDS, KEEP_CARDS, CHANGE_SHOE,
    AUTOMATIC_SHUFFLER or OTHER."""
    detail: str | None
    granted: bool

    @property
    def said(self) -> str:
        """The words typed at the terminal, quoted, or nothing."""
        return f' "{visible(self.detail)}"' if self.detail else ""

    def describe(self) -> str:
        """``TURN_CARDS granted on 2026-11-24 at T01, seat 5 "turn the 7s"``."""
        answer = "granted" if self.granted else "refused"
        return (
            f"{self.request} {answer} on {self.gaming_date} at {self.table_id}, seat "
            f"{self.seat}{self.said}"
        )


def requests_text(requests: Sequence[RecordedRequest]) -> str:
    """A sentence naming a patron's ``requests`` of the window, the first
    :data:`REQUESTS_NAMED` of them one by one."""
    if not requests:
        return (
            "The pit terminals recorded no request of the patron about the cards or the shoe "
            "in the window."
        )
    named = "; ".join(r.describe() for r in requests[:REQUESTS_NAMED])
    more = len(requests) - REQUESTS_NAMED
    return (
        f"Requests the pit terminals recorded of the patron in the window: {named}"
        + (f"; and {more} more, cited in the evidence" if more > 0 else "")
        + "."
    )


def turn_request_findings(requests: Iterable[RecordedRequest], day: date) -> list[Finding]:
    """An exception for each request to turn cards granted on ``day``."""
    return [
        _turn_request_finding(r)
        for r in requests
        if r.gaming_date == day and r.granted and r.request == TURN_CARDS
    ]


def _turn_request_finding(r: RecordedRequest) -> Finding:
    who = f"Patron {r.patron_id}" if r.patron_id else "A patron the pit did not identify"
    during = f" during round {r.round_id}" if r.round_id else " between rounds"
    message = (
        f"{who} at seat {r.seat} of table {r.table_id} asked the dealer to turn cards"
        f"{r.said}{during}, and the request was granted. Cards turned end for end by their "
        "value can be told by their backs where the backs are not printed symmetrically, and "
        "a shuffle that mixes only their order (a riffle, an automatic shuffler) keeps them "
        "turned (edge sorting): N.J.A.C. 19:47-3.6(a) has every back of the same color and "
        "design so that no card can be told by it, and 3.5(a) asks the cards randomly "
        "intermixed, not turned back. Check the table's decks for backs that read differently "
        "turned, take the turned cards out of play before the next shoe, and review the "
        "patron's wagers against the next card (NJ-PATTERN-CARD-PREVIEW tests them across the "
        "window of days)."
    )
    return Finding(
        TURN_REQUEST_CODE,
        TURN_REQUEST_SEVERITY,
        r.table_id,
        message,
        round_id=r.round_id,
        seat=r.seat,
        patron_id=r.patron_id,
        event_ids=(r.event_id,),
    )
