"""Who receives a bank the Banker had to give up (Chemin de Fer 4.11(b), (d)).

A small table-level record kept across rounds, beside the state machine: it reads the pit's
BankPassed, PatronSeated/PatronLeft and the next BankerWager, and says when the bank did not
go where 4.11(b) sends it. Refused offers are not recorded, so a receiver further round the
table than the Banker's right is not a finding; a receiver who is the passing Banker, or is
not seated, or is not the next Banker, is. A bank passed voluntarily and then defeated goes on
as 4.11(b) would have sent it from the Banker who passed it (4.11(d)): back to that Banker is
a finding. A participant who moved to a seat the bank reaches sooner misses the turn that seat
gives (4.11(e)): a move is a patron's PatronLeft and PatronSeated at another seat between the
same two rounds, and the bank passed to the new seat on the first offer to reach it is a
finding."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from pipeline.events.model import TableEvent
from pipeline.replay.checks import Flag
from pipeline.replay.findings import Severity
from pipeline.rules.codes import rule
from pipeline.rules.roles import move_promotes, offer_reaches

CODE = "CF-4.11b-PASSED-TO"
DEFEATED = "CF-4.11d-PASSED-BANK-DEFEATED"
SEAT_MOVE = "CF-4.11e-SEAT-MOVE"


@dataclass(frozen=True, slots=True)
class SeatMove:
    """A participant who moved up in turn to become the Banker (4.11(e)): ``left`` and
    ``seated`` are the PatronLeft and PatronSeated of the move, ``banker`` the bank's seat."""

    left: TableEvent
    seated: TableEvent
    banker: int


@dataclass
class BankPassing:
    seated: set[int] = field(default_factory=set)
    passed: TableEvent | None = None
    """The mandatory pass whose receiver has not yet taken the bank."""
    uncertain: bool = False
    """Events were lost since the pass (a receiver may have left unrecorded): no finding."""
    volunteered: TableEvent | None = None
    """The voluntary pass (4.11(c)) the bank has been held under since, until it is defeated
    or its Banker leaves: of several in a row, the first."""
    volunteered_unjudged: bool = False
    """Whether the pass the defeated bank goes on from is unclear: events were lost since
    ``volunteered`` (a mandatory pass among them may have ended it), the bank was passed
    voluntarily again (4.11(d) does not say from which of the passers it then goes on), or
    the passer left the table (another participant may take the seat)."""
    banker: int | None = None
    """The seat holding the bank: the last Banker's wager's, or the seat it was passed to."""
    departed: dict[str, TableEvent] = field(default_factory=dict)
    """Patrons who left a seat since the last round started, by patron id: sitting down again
    before the next round is a move (4.11(e))."""
    moved: dict[int, SeatMove] = field(default_factory=dict)
    """Seats taken by a move up in turn, whose next turn to become the Banker is missed."""

    def apply(self, e: TableEvent, lost: bool) -> Iterator[Flag]:
        """The flags ``e`` raises; ``lost`` when ``e`` belongs to a round with lost events."""
        self.uncertain = self.uncertain or lost
        self.volunteered_unjudged = self.volunteered_unjudged or lost
        kind = e.payload_type
        if lost:
            self.moved.clear()  # who sat where may be among the events lost
        if kind == "RoundStarted":
            self.departed.clear()
        elif kind == "PatronSeated":
            self._seated(e)
            self.seated.add(int(e.get("seat")))
        elif kind == "PatronLeft":
            seat = int(e.get("seat"))
            self.seated.discard(seat)
            self.moved.pop(seat, None)
            if e.get("patron_id") is not None:
                self.departed[str(e.get("patron_id"))] = e
            if self.passed is not None and self.passed.get("to_seat") == seat:
                self.passed = None  # the receiver left: the bank goes on round the table
            if self.volunteered is not None and seat == self.volunteered.get("seat"):
                self.volunteered_unjudged = True
            if seat == self.banker:
                # A Banker who leaves ends the passed bank: the next is bid for (4.5(b)).
                self.banker, self.volunteered = None, None
        elif kind == "BankPassed":
            yield from self._passed(e)
            yield from self._turns(e)
            to = e.get("to_seat")
            self.banker = None if to is None else int(to)
        elif kind == "BankerWager":
            self.banker = int(e.get("seat"))
            if self.passed is not None:
                yield from self._taken(e)

    def _passed(self, e: TableEvent) -> Iterator[Flag]:
        self.passed, self.uncertain = None, False
        if e.get("voluntary"):
            if self.volunteered is None:
                self.volunteered, self.volunteered_unjudged = e, False
            else:
                self.volunteered_unjudged = True
            return  # 4.11(c): offered round the table, then to the highest offer
        volunteered, self.volunteered = self.volunteered, None
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
        if volunteered is not None and not self.volunteered_unjudged:
            yield from self._defeated(volunteered, e)
        self.passed = e

    def _seated(self, e: TableEvent) -> None:
        """A patron sitting down: a move if the same patron left another seat since the last
        round started; kept if it moves the patron up in turn (4.11(e))."""
        patron = e.get("patron_id")
        left = self.departed.pop(str(patron), None) if patron is not None else None
        if left is None or self.banker is None:
            return
        seat, before = int(e.get("seat")), int(left.get("seat"))
        if seat != before and move_promotes(self.banker, before, seat, self.seated):
            self.moved[seat] = SeatMove(left, e, self.banker)

    def _turns(self, e: TableEvent) -> Iterator[Flag]:
        """4.11(e): each seat taken by a move up in turn, that this pass offered the bank to,
        has had its turn; taking the bank on it is the finding."""
        frm, to = int(e.get("seat")), e.get("to_seat")
        receiver = None if to is None else int(to)
        for seat, move in list(self.moved.items()):
            if not offer_reaches(frm, receiver, seat, self.seated):
                continue
            del self.moved[seat]
            if receiver != seat:
                continue
            before = int(move.left.get("seat"))
            yield Flag(
                SEAT_MOVE,
                Severity.HIGH,
                f"The participant who left seat {before} (event {move.left.event_id}) sat down "
                f"at seat {seat} (event {move.seated.event_id}), which the bank, then at seat "
                f"{move.banker}, reaches sooner; the bank was then passed to seat {seat} (event "
                f"{e.event_id}). A participant who moves up in turn misses that turn to become "
                f"the Banker in the new seat ({rule(SEAT_MOVE).citation}). Offer the bank on to "
                "the next participant, or correct the record of the seats.",
                seat=seat,
                event_ids=(move.left.event_id, move.seated.event_id, e.event_id),
            )

    def _defeated(self, volunteered: TableEvent, e: TableEvent) -> Iterator[Flag]:
        """4.11(d): the passed bank, defeated, goes where 4.11(b) would have sent it from the
        Banker who passed it voluntarily: to that Banker's right and on counterclockwise,
        never back to that Banker."""
        passer, frm, to = int(volunteered.get("seat")), int(e.get("seat")), int(e.get("to_seat"))
        if to != passer:
            return
        yield Flag(
            DEFEATED,
            Severity.HIGH,
            f"Seat {passer} passed the bank voluntarily (event {volunteered.event_id}); when "
            f"seat {frm} lost it, the bank went back to seat {passer} (event {e.event_id}). A "
            "passed bank that is defeated goes on as it would have had it not been passed: to "
            f"the right of seat {passer}, then counterclockwise ({rule(DEFEATED).citation}). "
            "Correct the record of who took the bank, or offer it on from seat "
            f"{passer}'s right.",
            seat=to,
            event_ids=(volunteered.event_id, e.event_id),
        )

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
