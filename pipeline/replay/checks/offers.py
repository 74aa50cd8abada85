"""Chemin de Fer's offers made round the table until one accepts: the cut (4.4(c)) and a
relinquished bank (4.11(b)-(d)), and the first round of bidding a voluntarily passed bank goes
to when nobody accepts it (4.11(c)).

The pit terminal records each participant who declines an offer (``OfferDeclined``, schema id
7), before the event that says who accepted: the ``ShoeStarted`` naming who cut, the
``BankPassed`` naming who took the bank. Only a table whose rules say its pit records every
decline (``records_declined_offers``) is judged on the order of its offers: elsewhere a
participant passed over cannot be told from one who declined unrecorded. A seat taken by a
move up in turn misses that turn (4.11(e)) and is not owed the offer. The partial wagers
against the Banker (4.7(d)) are judged when their round ends, from the wagers accepted before
"No More Bets" and the declines of the round: a bank they covered whole went past no
participant without a partial wager or a decline (``CF-4.7d-PARTIAL-ORDER``); which wagers
stand, and whether partial wagers were due at all, is the bank's to judge
(``CF-4.7b-SUIVI``, ``CF-4.7d-PARTIAL``). The passer's bid in the first round needs no
decline on record: any table is judged on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from pipeline.events.model import TableEvent
from pipeline.replay.checks import (
    Flag,
    standing_acceptances,
    standing_banco_offers,
    whole_bank_calls,
)
from pipeline.replay.checks.bank_passing import BankPassing
from pipeline.replay.findings import Severity, money
from pipeline.replay.state import RoundState
from pipeline.rules.codes import rule
from pipeline.rules.roles import (
    BancoKind,
    bank_offer_order,
    cut_offer_order,
    may_bid_in_first_round,
    partial_offer_order,
    partial_wagers_passed_over,
    passed_over,
)

CUT_ORDER = "CF-4.4c-CUT-ORDER"
BANK_ORDER = "CF-4.11b-OFFER-ORDER"
PASSER_BID = "CF-4.11c-PASSER-BID"
PARTIAL_ORDER = "CF-4.7d-PARTIAL-ORDER"


@dataclass
class OfferOrder:
    table_id: str
    records_declines: bool = False
    """The table's ``records_declined_offers``: whether the order of its offers is judged."""
    declined: dict[str, list[TableEvent]] = field(default_factory=dict)
    """Declines by what was offered (``OfferKind``), since that offer last went to someone."""
    first_bidding: TableEvent | None = None
    """A voluntary pass nobody accepted: its first round of bidding runs until the bank is
    awarded (the next ``BankerWager``)."""
    seated_at_bank: frozenset[int] = frozenset()
    """Who sat when the round's Banker wagered: the participants partial wagers are offered
    to (4.7(d))."""

    def apply(self, e: TableEvent, lost: bool, passing: BankPassing) -> Iterator[Flag]:
        """The flags ``e`` raises; ``passing`` is the bank's passing as it stood before ``e``
        (who sits where, who passed the bank voluntarily, whose turn a move missed)."""
        kind = e.payload_type
        if kind == "OfferDeclined":
            self.declined.setdefault(str(e.get("offer")), []).append(e)
        elif kind == "ShoeStarted":
            yield from self._cut(e, passing.seated, self.declined.pop("CUT", []))
        elif kind == "BankPassed":
            declined = self.declined.pop("BANK", [])
            if not (lost or passing.uncertain):
                yield from self._bank(e, passing, declined)
            if e.get("voluntary") and e.get("to_seat") is None:
                self.first_bidding = e
        elif kind == "BankBid" and self.first_bidding is not None:
            yield from self._bid(self.first_bidding, e)
        elif kind == "BankerWager":
            self.first_bidding = None
            self.declined.pop("BANK", None)
            self.seated_at_bank = frozenset(passing.seated)

    def partial_wagers(
        self, rnd: RoundState, lost: bool, suivi_seat: int | None, suivi_known: bool
    ) -> Iterator[Flag]:
        """4.7(d), when ``rnd`` ends: partial wagers that covered the whole bank were offered
        from the Banker's immediate right counterclockwise, every participant before the last
        of them having wagered or declined on record. ``lost``: the round lost events (a
        decline may be among them); ``suivi_seat`` and ``suivi_known`` are the bank's: who may
        call "Banco Suivi" (4.7(b)), and whether that is known."""
        declined = [
            d for d in self.declined.pop("PARTIAL_WAGER", []) if d.get("round_id") == rnd.round_id
        ]
        banker_wager = next((e for e in rnd.bank if e.payload_type == "BankerWager"), None)
        if not self.records_declines or lost or banker_wager is None:
            return
        calls = [call for _, call in whole_bank_calls(rnd)]
        if not suivi_known and any(c.kind is BancoKind.SUIVI for c in calls):
            return  # whether the "suivi" exercised 4.7(b) is lost with the previous round
        taken = standing_acceptances(rnd)
        accepted = standing_banco_offers(rnd)
        banker, bank = int(banker_wager.get("seat")), int(banker_wager.get("amount_cents"))
        skipped = partial_wagers_passed_over(
            banker,
            bank,
            self.seated_at_bank,
            accepted,
            calls,
            suivi_seat,
            (int(d.get("seat")) for d in declined),
        )
        if not skipped:
            return
        takers = partial_offer_order(banker, {o.seat for o in accepted})
        order = partial_offer_order(banker, {*self.seated_at_bank, *takers})
        yield Flag(
            PARTIAL_ORDER,
            Severity.MEDIUM,
            f"Table {self.table_id}, round {rnd.round_id}: partial wagers by seat(s) "
            f"{_seats(takers)} covered the whole bank of {money(bank)} at seat {banker} "
            f"(event {banker_wager.event_id}), but seat(s) {_seats(skipped)}, offered a part "
            "before the last of them in turn, neither wagered nor declined on record; from the "
            f"Banker's immediate right counterclockwise the offer goes to seats {_seats(order)} "
            f"until the bank is covered ({rule(PARTIAL_ORDER).citation}). Check with "
            "surveillance whether a part of the bank was offered to them, and have the pit "
            "terminal record each participant who declines it.",
            seat=skipped[0],
            round_id=rnd.round_id,
            event_ids=(
                banker_wager.event_id,
                *(e.event_id for e in taken),
                *(d.event_id for d in declined),
            ),
        )

    def _cut(
        self, e: TableEvent, seated: Iterable[int], declined: list[TableEvent]
    ) -> Iterator[Flag]:
        """4.4(c): the stack offered from the highest-numbered seat clockwise until one
        accepts; the dealer cuts only when every participant declined."""
        if not self.records_declines:
            return
        cut_by = e.get("cut_by_seat")
        taker = None if cut_by is None else int(cut_by)
        order = cut_offer_order(seated)
        skipped = passed_over(order, taker, (int(d.get("seat")) for d in declined))
        if not skipped:
            return
        who = "the dealer cut" if taker is None else f"seat {taker} cut"
        yield Flag(
            CUT_ORDER,
            Severity.MEDIUM,
            f"Table {self.table_id}, shoe {e.get('shoe_id')} (event {e.event_id}): {who}, but "
            f"seat(s) {_seats(skipped)} before it in turn declined no offer of the cut on "
            f"record; with seats {_seats(order)} occupied the stack is offered in that order, "
            f"highest number first and clockwise, until one accepts ({rule(CUT_ORDER).citation}). "
            "Check with surveillance whether the cut was offered to them, and have the pit "
            "terminal record each participant who declines it.",
            seat=skipped[0],
            event_ids=(e.event_id, *(d.event_id for d in declined)),
        )

    def _bank(
        self, e: TableEvent, passing: BankPassing, declined: list[TableEvent]
    ) -> Iterator[Flag]:
        """4.11(b)-(d): the bank offered from the right of the previous Banker (of the Banker
        who passed it voluntarily, once it is defeated) counterclockwise until one accepts."""
        if not self.records_declines:
            return
        passer, to = int(e.get("seat")), e.get("to_seat")
        passed_by = None
        if not e.get("voluntary") and passing.volunteered is not None:
            if passing.volunteered_unjudged:
                return  # from whose right the defeated bank goes on is unclear
            passed_by = int(passing.volunteered.get("seat"))
        order = [
            seat
            for seat in bank_offer_order(passer, passing.seated, passed_by)
            if seat not in passing.moved  # 4.11(e): that turn is missed
        ]
        taker = None if to is None else int(to)
        skipped = passed_over(order, taker, (int(d.get("seat")) for d in declined))
        if not skipped:
            return
        start = passer if passed_by is None else passed_by
        taken = "nobody took it" if taker is None else f"it went to seat {taker}"
        yield Flag(
            BANK_ORDER,
            Severity.HIGH,
            f"Table {self.table_id}, after round {e.get('round_id') or 'none'}: seat {passer} "
            f"gave up the bank and {taken} (event {e.event_id}), but seat(s) {_seats(skipped)}, "
            f"offered it before in turn, declined nothing on record; from the right of seat "
            f"{start} counterclockwise the bank goes to seats {_seats(order)} until one accepts "
            f"({rule(BANK_ORDER).citation}). Offer the bank to the seats passed over, or have "
            "the pit terminal record their declines.",
            seat=skipped[0],
            round_id=e.get("round_id"),
            event_ids=(e.event_id, *(d.event_id for d in declined)),
        )

    def _bid(self, passed: TableEvent, bid: TableEvent) -> Iterator[Flag]:
        """4.11(c): the participant who passed the bank takes no part in the first round of
        the bidding for it."""
        passer, seat = int(passed.get("seat")), int(bid.get("seat"))
        if may_bid_in_first_round(seat, passer):
            return
        yield Flag(
            PASSER_BID,
            Severity.HIGH,
            f"Table {self.table_id}: seat {passer} passed the bank voluntarily after round "
            f"{passed.get('round_id') or 'none'} (event {passed.event_id}) and nobody accepted "
            f"it, then bid for it in the first round of the bidding (event {bid.event_id}); the "
            f"participant who passed the bank takes no part in that round "
            f"({rule(PASSER_BID).citation}). Set the bid aside and award the bank among the "
            "others' bids.",
            seat=seat,
            round_id=passed.get("round_id"),
            event_ids=(passed.event_id, bid.event_id),
        )


def _seats(seats: Iterable[int]) -> str:
    return ", ".join(map(str, seats)) or "none"
