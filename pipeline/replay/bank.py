"""Chemin de Fer's bank, N.J.A.C. 19:47-4.5 to 4.7 and 4.11: who holds it, what the Banker may
wager, who may take banco suivi, and whether a losing Banker passed it.

The bank lives across rounds, so it is state of its own beside the round, as the Forms are
(:class:`pipeline.replay.forms.FormControl`). The machine hands it the bank's events and the
finished rounds; it answers with :class:`~pipeline.replay.checks.Flag` s, which the machine
turns into findings naming the table, shoe and round.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.events.model import TableEvent
from pipeline.replay.checks import Flag, standing_banco_offers, whole_bank_calls
from pipeline.replay.findings import Severity, money
from pipeline.replay.state import RoundState
from pipeline.rules.codes import rule
from pipeline.rules.outcome import RoundOutcome, Winner
from pipeline.rules.roles import (
    BancoKind,
    BancoOffer,
    banker_by_bid,
    banker_wager_problem,
    cover_bank,
    curator_must_pass,
    priority_breach,
)

BANK_PASS = "CF-4.11a1-BANK-PASS"


@dataclass(frozen=True, slots=True)
class PassDue:
    """The Banker at ``seat`` lost ``round_id``: the bank must pass before the next round
    (4.11(a)1); ``evidence`` are the ids of the events that show the loss."""

    seat: int
    round_id: str
    evidence: tuple[str, ...]


@dataclass
class Bank:
    bids: dict[int, int] = field(default_factory=dict)
    """Bids for the bank since it was last awarded (4.5(b))."""
    banker_seat: int | None = None
    banker_last: int | None = None
    """The Banker's last wager: the floor of the next one, and half its ceiling (4.6(b))."""
    bid_amount: int | None = None
    """The winning bid, the floor of the new Banker's first wager (4.6(b))."""
    pass_due: PassDue | None = None
    suivi_seat: int | None = None
    """Who may take banco suivi: the banco wagerer who lost the last coup (4.7(b))."""
    suivi_known: bool = True
    """Whether ``suivi_seat`` is known: after an incomplete round (lost events) who, if
    anyone, may take banco suivi is not, so the next 4.7(b) check is withheld."""
    after_voluntary_pass: bool = False

    def bid(self, e: TableEvent) -> None:
        """A ``BankBid``."""
        self.bids[int(e.get("seat"))] = int(e.get("amount_cents"))

    def banker_wager(self, e: TableEvent) -> list[Flag]:
        """A ``BankerWager``: 4.5(b) the highest bid takes the bank; 4.6(b) the Banker's wager
        limits (4.11(c) after a voluntary pass)."""
        flags: list[Flag] = []
        seat, amount = int(e.get("seat")), int(e.get("amount_cents"))
        if self.bids:
            winner = banker_by_bid(self.bids)
            if seat != winner:
                flags.append(
                    Flag(
                        "CF-4.5b-BANKER-BID",
                        Severity.HIGH,
                        f"Seat {seat} took the bank, but seat {winner} bid the most "
                        f"({money(self.bids[winner])}); the highest bid becomes Banker "
                        f"({rule('CF-4.5b-BANKER-BID').citation}).",
                        seat=seat,
                        event_ids=(e.event_id,),
                    )
                )
            self.bid_amount = self.bids.get(seat)
            self.bids = {}
            self.banker_last = None
        elif self.banker_seat is not None and seat != self.banker_seat:
            self.banker_last = None
            self.bid_amount = None

        problem = banker_wager_problem(self.banker_last, self.bid_amount, amount)
        if problem:
            # 4.11(c): after a voluntary pass the new Banker wagers from the previous Banker's
            # last wager up to twice it.
            code = (
                "CF-4.11c-VOLUNTARY-PASS" if self.after_voluntary_pass else "CF-4.6b-BANKER-LIMITS"
            )
            flags.append(
                Flag(
                    code,
                    Severity.HIGH,
                    f"{problem} (seat {seat}; {rule(code).citation}).",
                    seat=seat,
                    expected=self.banker_last or self.bid_amount,
                    actual=amount,
                    event_ids=(e.event_id,),
                )
            )
        self.after_voluntary_pass = False
        self.banker_seat, self.banker_last, self.bid_amount = seat, amount, None
        return flags

    def passed(self, e: TableEvent) -> None:
        """A ``BankPassed``, voluntary (4.11(c)) or not (4.11(a)-(b))."""
        if self.pass_due is not None and int(e.get("seat")) == self.pass_due.seat:
            self.pass_due = None
        to_seat = e.get("to_seat")
        self.banker_seat = int(to_seat) if to_seat is not None else None
        self.suivi_seat, self.suivi_known = None, True
        self.after_voluntary_pass = bool(e.get("voluntary"))
        if not self.after_voluntary_pass:
            # 4.11(b): a mandatory pass sets no wager floor; 4.11(c) (voluntary) keeps the
            # previous Banker's last wager as the new Banker's floor.
            self.banker_last = None
            self.bid_amount = None

    def events_lost(self) -> None:
        """A round lost events: who may take banco suivi next is unknown."""
        self.suivi_known = False

    def round_ended(self, rnd: RoundState) -> list[Flag]:
        """4.11(a)1: the Banker who lost the previous round did not pass the bank before this
        one ended (the finding names the round lost)."""
        due, self.pass_due = self.pass_due, None
        if due is None:
            return []
        kept = tuple(b.event_id for b in rnd.bank if b.payload_type == "BankerWager")
        return [
            Flag(
                BANK_PASS,
                Severity.HIGH,
                f"The Banker at seat {due.seat} lost round {due.round_id} but kept the bank "
                f"({rule(BANK_PASS).citation}).",
                seat=due.seat,
                round_id=due.round_id,
                event_ids=(*due.evidence, *kept),
            )
        ]

    def settled(self, rnd: RoundState, outcome: RoundOutcome) -> list[Flag]:
        """4.7(a)-(d): the wagers against the Banker cover at most the bank, by banco suivi,
        then banco seul, then partial wagers; 4.11(a)1: the bank passes on a loss."""
        offers = [e for e in rnd.bank if e.payload_type == "PlayerBancoWager"]
        banker_wager = next((e for e in rnd.bank if e.payload_type == "BankerWager"), None)
        if banker_wager is None:
            return []
        flags: list[Flag] = []
        bank = int(banker_wager.get("amount_cents"))
        seat = int(banker_wager.get("seat"))
        accepted = standing_banco_offers(rnd)
        covered = sum(o.amount_cents for o in accepted)
        ids = tuple(e.event_id for e in (banker_wager, *offers))
        if covered > bank:
            flags.append(
                Flag(
                    "CF-4.7a-AGGREGATE",
                    Severity.HIGH,
                    f"Wagers against the Banker total {money(covered)}, more than the bank "
                    f"of {money(bank)} ({rule('CF-4.7a-AGGREGATE').citation}).",
                    expected=bank,
                    actual=covered,
                    event_ids=ids,
                )
            )
        expected = cover_bank(seat, bank, accepted, self.suivi_seat)
        if not self.suivi_known or sorted(expected.accepted, key=lambda o: o.seat) == sorted(
            accepted, key=lambda o: o.seat
        ):
            # The accepted wagers agree among themselves; the calls refused may still show that
            # they went to the wrong participants.
            flags += self._priority(rnd, seat, accepted, ids)
        else:
            flags.append(
                Flag(
                    "CF-4.7b-SUIVI",
                    Severity.HIGH,
                    "The wagers against the Banker do not follow banco suivi, then banco "
                    "seul nearest counterclockwise, then partial wagers counterclockwise "
                    f"({rule('CF-4.7b-SUIVI').citation}).",
                    event_ids=ids,
                )
            )
        full = [o for o in accepted if o.kind is not BancoKind.PARTIAL]
        if outcome.winner is Winner.BANKER and full:
            self.suivi_seat, self.suivi_known = full[0].seat, True
        elif outcome.winner is not Winner.TIE:
            self.suivi_seat, self.suivi_known = None, True
        if curator_must_pass(outcome):
            self.pass_due = PassDue(
                seat,
                rnd.round_id,
                tuple(x for x in (rnd.announced.event_id if rnd.announced else None,) if x),
            )
        return flags

    def _priority(
        self,
        rnd: RoundState,
        banker_seat: int,
        accepted: list[BancoOffer],
        ids: tuple[str, ...],
    ) -> list[Flag]:
        """4.7(b)-(d) against every call for the whole bank, refused ones included
        (``BancoCalled``): the call owed the whole bank did not receive it
        (:func:`~pipeline.rules.roles.priority_breach`). Another caller took it, or nobody did
        (``CF-4.7b-SUIVI-FIRST`` when the first option of 4.7(b) was passed over, else
        ``CF-4.7c-BANCO-PRIORITY``), or partial wagers were taken (``CF-4.7d-PARTIAL``).
        Accepted wagers that disagree among themselves are ``CF-4.7b-SUIVI``'s finding, and
        this check is then not run: one finding per coverage.

        4.8(c) follows from who wagered: the Dominant Player is judged against the accepted
        wagers (``CF-4.8c-DOMINANT``), so the caller who wrongly took the bank and then made the
        Player's Hand's choices is one finding, this one, not two.
        """
        announced = [e for e in rnd.bank if e.payload_type == "BancoCalled"]
        calls = [call for _, call in whole_bank_calls(rnd)]
        suivi_called = any(c.kind is BancoKind.SUIVI for c in calls) or any(
            o.kind is BancoKind.SUIVI for o in accepted
        )
        if not self.suivi_known and suivi_called:
            return []  # whether the "suivi" was qualified is lost with the previous round
        breach = priority_breach(banker_seat, calls, self.suivi_seat, accepted)
        if breach is None:
            return []
        owed = breach.owed
        option, why = (
            ("Banco Suivi", "had equaled and lost the Banker's preceding wager")
            if owed.kind is BancoKind.SUIVI
            else ("Banco Seul", "was the caller seated nearest the Banker counterclockwise")
        )
        full = [o for o in accepted if o.kind is not BancoKind.PARTIAL]
        if full:
            what = f"seat {full[0].seat} received it instead"
        elif accepted:
            what = (
                f"partial wagers by seat(s) {', '.join(str(o.seat) for o in accepted)} were "
                f"taken instead, which {rule('CF-4.7d-PARTIAL').citation} allows only when "
                "neither option was exercised"
            )
        else:
            what = "no wager against the Banker was taken"
        owed_citation = rule(owed.option_code).citation
        return [
            Flag(
                breach.rule_code,
                Severity.HIGH,
                f'Seat {owed.seat} called "{option}" and {why}, so {owed_citation} owed it the '
                f"wager for the whole bank, but {what}.",
                seat=owed.seat,
                event_ids=(*ids, *(e.event_id for e in announced)),
            )
        ]


__all__ = ["Bank", "PassDue"]
