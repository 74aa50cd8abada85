"""Who receives a bank the Banker had to give up (Chemin de Fer 4.11(b)).

A small table-level record kept across rounds, beside the state machine: it reads the pit's
BankPassed, PatronSeated/PatronLeft and the next BankerWager, and says when the bank did not
go where 4.11(b) sends it. Refused offers are not recorded, so a receiver further round the
table than the Banker's right is not a finding; a receiver who is the passing Banker, or is
not seated, or is not the next Banker, is."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from pipeline.events.model import TableEvent
from pipeline.replay.checks import Flag
from pipeline.replay.findings import Severity
from pipeline.rules.codes import rule

CODE = "CF-4.11b-PASSED-TO"


@dataclass
class BankPassing:
    seated: set[int] = field(default_factory=set)
    passed: TableEvent | None = None
    """The mandatory pass whose receiver has not yet taken the bank."""
    uncertain: bool = False
    """Events were lost since the pass (a receiver may have left unrecorded): no finding."""

    def apply(self, e: TableEvent, lost: bool) -> Iterator[Flag]:
        """The flags ``e`` raises; ``lost`` when ``e`` belongs to a round with lost events."""
        self.uncertain = self.uncertain or lost
        kind = e.payload_type
        if kind == "PatronSeated":
            self.seated.add(int(e.get("seat")))
        elif kind == "PatronLeft":
            seat = int(e.get("seat"))
            self.seated.discard(seat)
            if self.passed is not None and self.passed.get("to_seat") == seat:
                self.passed = None  # the receiver left: the bank goes on round the table
        elif kind == "BankPassed":
            yield from self._passed(e)
        elif kind == "BankerWager" and self.passed is not None:
            yield from self._taken(e)

    def _passed(self, e: TableEvent) -> Iterator[Flag]:
        self.passed, self.uncertain = None, False
        if e.get("voluntary"):
            return  # 4.11(c): offered round the table, then to the highest offer
        frm, to = int(e.get("seat")), e.get("to_seat")
        if to is None:
            return  # nobody accepted: the bank is bid for again
        if int(to) == frm or int(to) not in self.seated:
            who = "the passing Banker" if int(to) == frm else "no seated participant"
            yield Flag(
                CODE,
                Severity.HIGH,
                f"The bank seat {frm} had to give up was passed to seat {to}, {who}; it goes to "
                "the seated participant to the Banker's right, then counterclockwise, who "
                f"accepts it ({rule(CODE).citation}). Correct the record of who took the bank.",
                seat=frm,
                event_ids=(e.event_id,),
            )
            return
        self.passed = e

    def _taken(self, e: TableEvent) -> Iterator[Flag]:
        passed, self.passed = self.passed, None
        assert passed is not None
        to, banker = int(passed.get("to_seat")), int(e.get("seat"))
        if banker == to or self.uncertain:
            return
        yield Flag(
            CODE,
            Severity.HIGH,
            f"The bank was passed to seat {to} (event {passed.event_id}), but seat {banker} "
            f"made the next Banker's wager; the participant who accepts the passed bank becomes "
            f"the Banker ({rule(CODE).citation}). Correct the pass or the Banker's wager.",
            seat=banker,
            event_ids=(passed.event_id, e.event_id),
        )
