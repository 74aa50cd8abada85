"""One emulated table for one gaming day: the dealer follows the procedures, the devices emit.

The honest dealer deals through the rules core (:func:`pipeline.rules.deal.deal_round`) and
settles through it (:func:`pipeline.rules.settlement.settle_seat`), so a clean day is legal by
construction; the tests still recompute every round to prove it. Where a fault is switched on,
the dealer errs at that point and the fault goes to the ground-truth manifest with the rule
code the replay must report.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date

from pipeline.rules.cards import RANKS, SUITS, Card, hand_points
from pipeline.rules.codes import code_for, regulates
from pipeline.rules.config import (
    Cents,
    DisclosedCardProcedure,
    SettlementProcedure,
    ShuffleMethod,
    TableRules,
    money,
)
from pipeline.rules.deal import Deal, InsufficientCardsError, Options, deal_order, deal_round
from pipeline.rules.draw import Draw, banker_rule, player_rule
from pipeline.rules.games import Game
from pipeline.rules.irregularities import disclosed_card_discards, face_up_in_shoe_discards
from pipeline.rules.outcome import RoundOutcome, Winner
from pipeline.rules.roles import (
    BancoCall,
    BancoKind,
    BancoOffer,
    Coverage,
    banco_priority,
    bank_offer_order,
    banker_by_bid,
    cover_bank,
    curator_must_pass,
    cut_offer_order,
    dominant_player,
    priority_breach,
    seats_to_hand,
    shoe_offer_order,
)
from pipeline.rules.settlement import Result, Settlement, Wager, offered_wagers, settle_seat
from pipeline.rules.settlement_order import settlement_order_problem, settlement_sequence
from pipeline.rules.shoe import burned_cards
from pipeline.rules.variants import Variant, variant
from pipeline.rules.vigorish import rounding_error, vigorish_on_win
from pipeline.simulate.faults import FaultKind, FaultPlan, InjectedFault
from pipeline.simulate.misdeals import (
    CARDS_NEEDED,
    LAST_HAND_FACE_UP,
    MISDEALS,
    VOID_REASONS,
    MisdealPlan,
    plan_last_hand_face_up,
    plan_misdeal,
)
from pipeline.simulate.patrons import (
    CARD_BACKS_READ,
    INFORMED_ROUNDS,
    INFORMED_SHARE,
    INFORMED_STAKE_UNITS,
    PATIENT_ROUNDS,
    PATIENT_SHARE,
    Patron,
    bet_the_known_winner,
    choose_wagers,
    new_patron,
)
from pipeline.simulate.stream import Devices, TableStream

SEATS: dict[Game, tuple[int, ...]] = {
    Game.PUNTO_BANCO: tuple(range(1, 13)),
    Game.MINIBACCARAT: tuple(range(1, 8)),
    Game.CHEMIN_DE_FER: tuple(range(1, 10)),
}
SECONDS_PER_ROUND = (38.0, 62.0)  # about 60-80 rounds an hour
SHUFFLE_SECONDS = (240.0, 420.0)
INFORMED_BETTING_CODE = "NJ-PATTERN-INFORMED-BETTING"
DEALER_PATRON_CODE = "NJ-PATTERN-DEALER-PATRON"
PATIENT_CODES: Mapping[FaultKind, str] = {
    FaultKind.PATIENT_INFORMED: "NJ-PATTERN-INFORMED-ACCUMULATED",
    FaultKind.EDGE_SORTER: "NJ-PATTERN-CARD-PREVIEW",
}
"""The pattern codes :mod:`pipeline.patterns` raises (the emulator sits below the analysers)."""
CARD_TURN_REQUEST = "turn the 7s, 8s and 9s as they come up, for luck"
"""What the pit types for an ``edge_sorter``'s request to turn cards, granted as the patron
sits down each day (``NJ-PATTERN-CARD-TURN-REQUEST``, explained by the fault's manifest line:
:data:`pipeline.reports.groundtruth.CORROBORATING`)."""
COLLUSION_SHARE = 0.15
"""``collusion``'s effect size: the share of the confederate's winning wagers the colluding
dealer overpays, by :func:`collusive_overpayment`; the confederate plays
:data:`CONFEDERATE_ROUNDS` rounds a day at the dealer's table, from its opening."""
CONFEDERATE_ROUNDS = 200
WEAK_PAIR_SHARE = 0.1
"""``weak_pair``'s effect size: the share of its patron's decided wagers (won or lost) the
dealer settles in the patron's favour, a win overpaid by :func:`collusive_overpayment` or a
losing stake returned; the patron plays :data:`WEAK_PAIR_ROUNDS` rounds a day at the dealer's
table, from its opening: a few errors a day, too few for one day's test."""
WEAK_PAIR_ROUNDS = 20


def collusive_overpayment(paid: Cents) -> Cents:
    """Slight: 5 percent of the payout, at least $1.00."""
    return max(100, paid // 20)


def other_side_won(outcome: RoundOutcome) -> RoundOutcome:
    """What a ``flipped_result`` dealer settles: the round as if the other side had won, each
    hand holding the other's count and cards (so a bonus wager pays the other hand's margin)."""
    return RoundOutcome(
        player_points=outcome.banker_points,
        banker_points=outcome.player_points,
        player_cards=outcome.banker_cards,
        banker_cards=outcome.player_cards,
    )


BANKER_MISDEAL_RATE = 0.02
"""Per Chemin de Fer hand: the Banker misdeals in one of the ways of 4.12(a)-(d), (i) and the pit
reports it. It happens on a clean day too; only handling it against the rule is a fault."""
LAST_HAND_FACE_UP_RATE = 0.3
"""Per Chemin de Fer shoe whose last hand reaches the card behind the cutting card: that card
is found face up in the shoe (4.12(j)). It happens on a clean day too; only settling the hand
instead of voiding it is a fault (``last_hand_not_voided``)."""
HAND_CARDS = 6
"""The most cards a hand by the rules takes from the shoe (two hands of three)."""
SLUG_LENGTH = (20, 30)
"""Cards a false shuffle carries unshuffled from the table's last shoe into the next."""
SLUG_AT = (13, 24)
"""Where the slug goes in the next shoe: past the longest burn (a ten-valued first card and
ten more, one more if the burn is a fault), dealt in the shoe's first rounds."""
SLUG_ROUNDS_LEFT = 15
"""A slug is planted only in a shoe that has this many rounds of the day left to deal it."""
ACCEPTED_CODE = "CF-4.7a-ACCEPTED"
"""4.7(a), 4.10(b): a wager against the Banker wins or loses what the pit accepted of it."""


def overstated(deferred: Cents) -> Cents:
    """What an ``overstated_form`` Form documents of ``deferred`` vigorish: a quarter more, at
    least $1.00 more."""
    return deferred + max(100, deferred // 4)


@dataclass(frozen=True)
class PutUpBeyondAcceptance:
    """Chemin de Fer (4.7(a)): a participant put up more chips than the pit accepted of them
    against the bank, and the dealer settles a win on ``paid_cents`` instead of the amount
    accepted (the ``banco_settlement`` fault: the amount put up, or less than accepted)."""

    seat: int
    accepted_cents: Cents
    put_up_cents: Cents
    paid_cents: Cents


@dataclass
class FormBook:
    """A series of prenumbered Complimentary Vigorish Forms held by the table's pit clerk."""

    first: int
    last: int
    next_serial: int
    held_back: int | None = None  # a serial skipped to be used out of order
    issued: list[dict[str, object]] = field(default_factory=list)

    def take(self) -> int:
        if self.held_back is not None:
            serial, self.held_back = self.held_back, None
            return serial
        serial = self.next_serial
        self.next_serial += 1
        return serial


@dataclass(frozen=True)
class DealtShoe:
    """Cards another table's shoe dealt at consecutive positions, as its events recorded them:
    what a confederate can carry from that table (``cross_pit_slug``)."""

    table_id: str
    pit: str
    shoe_id: str
    ended_at_micros: int
    first_position: int
    cards: tuple[Card, ...]
    event_ids: tuple[str, ...]
    """The ``CardDealt`` event of each card."""


@dataclass(frozen=True)
class PlantedSlug:
    """A run of cards put into a new shoe in the order an earlier shoe dealt them."""

    kind: FaultKind
    positions: range
    """Where the run lies in the new shoe."""
    origin: str
    """How it got there and where it was dealt before, for the manifest."""
    carried_event_ids: tuple[str, ...] = ()
    """The events of the earlier shoe's cards, when another table dealt them."""


@dataclass
class Shoe:
    shoe_id: str
    cards: list[Card]
    position: int
    cut_card_at: int
    cut_card_seen: bool = False
    rounds_after_cut_card: int | None = None
    slug: PlantedSlug | None = None
    """Cards dealt in an earlier shoe's order (a false shuffle, or a slug carried from another
    pit), if any."""
    batch: str | None = None

    @property
    def remaining(self) -> list[Card]:
        return self.cards[self.position :]


class TableEmulator:
    """Plays one table from opening to closing and returns its events."""

    def __init__(
        self,
        *,
        table_id: str,
        pit: str,
        location: str,
        rules: TableRules,
        gaming_date: date,
        opens_at_micros: int,
        closes_at_micros: int,
        rng: random.Random,
        faults: FaultPlan,
        form_series: tuple[int, int],
        patron_numbers: Iterator[int],
        pit_procedure: SettlementProcedure | None = None,
        other_pit_shoes: Sequence[DealtShoe] = (),
    ) -> None:
        """``pit_procedure``: the settlement procedure of the other Punto Banco tables of the
        pit, given when this table departs from it (the PIT fault: ``rules`` file another).
        ``other_pit_shoes``: what a table of another pit dealt this day, which a confederate
        can carry here (the ``cross_pit_slug`` fault)."""
        self.table_id = table_id
        self.pit = pit
        self.location = location
        self.rules = rules
        self.game = rules.game
        self.variant: Variant = variant(rules.game)
        self.gaming_date = gaming_date
        self.closes_at = closes_at_micros
        self.rng = rng
        self.faults = faults
        self.dev = Devices.at(table_id)
        self.out = TableStream(table_id, rng, opens_at_micros)
        self.book = FormBook(form_series[0], form_series[1], form_series[0])
        self.patron_numbers = patron_numbers
        self.pit_procedure = pit_procedure
        self.other_pit_shoes = tuple(other_pit_shoes)
        self.seated: dict[int, Patron] = {}
        self.dealer = f"DLR-{rng.randint(100, 999)}"
        # The collusion fault is decided first from the fault RNG, which is seeded without the
        # date: the same table's dealer colludes with the same confederate every day.
        self.confederate: str | None = None
        if faults.roll(FaultKind.COLLUSION):
            self.dealer = f"DLR-{faults.rng.randint(100, 999)}"
            self.confederate = f"PAT-{faults.rng.randint(900_000, 999_999):06d}"
        # A patient cheat, from the kind's own stream (also seeded without the date): the same
        # patron back at the same table every day. A Chemin de Fer table's wagers follow the
        # bank (4.6-4.7), so none sits there.
        self.patient: tuple[FaultKind, str] | None = None
        for kind in PATIENT_CODES:
            if (
                self.patient is None
                and not variant(self.game).participant_bank
                and faults.roll(kind)
            ):
                self.patient = (kind, f"PAT-{faults.draws(kind).randint(800_000, 899_999)}")
        # A weak pair, from the kind's own stream (seeded without the date): the same dealer at
        # the same table with the same patron every day, slipping on rounds of the day's own.
        self.weak_partner: str | None = None
        if (
            self.confederate is None
            and not variant(self.game).participant_bank
            and faults.roll(FaultKind.WEAK_PAIR)
        ):
            own = faults.draws(FaultKind.WEAK_PAIR)
            self.dealer = f"DLR-{own.randint(100, 999)}"
            self.weak_partner = f"PAT-{own.randint(700_000, 799_999)}"
            self.weak_slips = random.Random(f"{own.getrandbits(64)}:{gaming_date}")
        self.pit_boss = f"PB-{rng.randint(10, 99)}"
        self.pit_clerk = f"PC-{rng.randint(10, 99)}"
        self.shoe_number = 0
        self.batch = "A"
        self.last_shoes: dict[str | None, Shoe] = {}
        """The last shoe dealt from each batch (None: a table without batches)."""
        self.confederate_seat: int | None = None
        self.offered = offered_wagers(rules)
        # Chemin de Fer bank state (4.5-4.7, 4.11)
        self.banker_seat: int | None = None
        self.banker_last_wager: Cents | None = None
        self.suivi_seat: int | None = None
        self.passed_bank_wager: Cents | None = None
        self.volunteered_by: int | None = None
        """The Banker who passed the bank voluntarily (the first, of several passes in a row),
        until the passed bank is defeated or its Banker leaves (4.11(d))."""
        self.volunteered_unclear = False
        """Whether the seat a defeated passed bank goes on from is one the replay leaves
        unjudged: the bank was passed voluntarily again, or its first passer left (4.11(d)
        does not say)."""
        self.shoe_id: str | None = None
        self._covering = cover_bank(0, 0, (), None)
        # Punto Banco's curator (3.6, 3.11); None: the dealer, or play has not commenced
        self.curator_seat: int | None = None
        self._accepted_late: BancoOffer | None = None
        """A partial wager against the Banker the pit accepts after "No More Bets" this round
        (the ``late_acceptance`` fault): it covers nothing (4.7(e))."""
        self._put_up_beyond: PutUpBeyondAcceptance | None = None
        """This round's wager against the Banker put up beyond what was accepted, if any."""
        self.declines = random.Random(f"{rng.getstate()[1][:8]!r}:declines")
        """The stream the pit's records of declined offers draw their ids from (emitted at the
        moment of the event before them), so recording them leaves the table's day as it was."""
        self.passer_bidding: tuple[int, str] | None = None
        """The seat of the Banker who passed the bank voluntarily and, nobody accepting it,
        bids in the first round for it (the ``offer_order`` fault, 4.11(c)), and the round after
        which it passed."""
        self._if_settled: list[InjectedFault] = []
        """Faults of the round in play the replay reads only in a hand settled: a void hand
        returns every wager, whatever was accepted and when."""

    # ------------------------------------------------------------------ helpers
    def _fault(self, kind: FaultKind, detail: str, rule_code: str, **where: object) -> None:
        self.faults.record(self._injected(kind, detail, rule_code, **where))

    def _injected(
        self, kind: FaultKind, detail: str, rule_code: str, **where: object
    ) -> InjectedFault:
        return InjectedFault(kind.value, detail, rule_code, self.table_id, **where)  # type: ignore[arg-type]

    def _card_fields(self, card: Card) -> dict[str, str]:
        return {"rank": card.rank.name, "suit": card.suit.name}

    # ------------------------------------------------------------------ the day
    def run(self) -> TableStream:
        out = self.out
        out.emit(
            self.dev.pit,
            "TableOpened",
            game=self.game.value,
            rules_id=self.rules.rules_id,
            pit=self.pit,
            location=self.location,
            dealer_id=self.dealer,
            gaming_date=self.gaming_date,
            min_wager_cents=self.rules.min_wager_cents,
            max_wager_cents=self.rules.max_wager_cents,
        )
        out.emit(
            self.dev.pit,
            "FormSeriesReceived",
            first_serial=self.book.first,
            last_serial=self.book.last,
            received_by=self.pit_clerk,
        )
        for i, seat in enumerate(
            self.rng.sample(SEATS[self.game], k=min(4, len(SEATS[self.game])))
        ):
            self._seat_patron(seat, confederate=i == 0 and self.confederate is not None)
        if self.patient is not None:
            self._seat_patron(min(set(SEATS[self.game]) - set(self.seated)), patient=True)
        if self.weak_partner is not None:
            self._seat_patron(min(set(SEATS[self.game]) - set(self.seated)), weak_partner=True)
        if variant(self.game).curator:
            self._offer_shoe(after_round=None)  # 3.6(b): the commencement of play
        while out.clock_micros < self.closes_at:
            self._play_shoe()
        for seat in sorted(self.seated):
            self._patron_leaves(seat)
        out.emit(self.dev.pit, "TableClosed", reason="end of gaming day")
        self._accounting()
        if self.patient is not None:
            kind, patron_id = self.patient
            knows = (
                f"knows the winner of {PATIENT_SHARE:.0%} of rounds and stakes "
                f"{INFORMED_STAKE_UNITS} units on it"
                if kind is FaultKind.PATIENT_INFORMED
                else "has the dealer turn the 7s, 8s and 9s on sitting down (a granted "
                "PatronRequest TURN_CARDS), reads the back of the next card (7, 8 or 9, or not) "
                "and bets Player on it"
            )
            self._fault(
                kind,
                f"patron {patron_id}, back at this table every day, {knows}, for "
                f"{PATIENT_ROUNDS} rounds a day (named once days of evidence stand together)",
                PATIENT_CODES[kind],
                patron_id=patron_id,
            )
        if self.weak_partner is not None:
            self._fault(
                FaultKind.WEAK_PAIR,
                f"dealer {self.dealer} overpays patron {self.weak_partner}, or returns the "
                f"patron's losing stake, on about {WEAK_PAIR_SHARE:.0%} of the patron's decided "
                f"wagers, {WEAK_PAIR_ROUNDS} rounds a day (named once days of errors stand "
                "together)",
                DEALER_PATRON_CODE,
                patron_id=self.weak_partner,
            )
        if self.confederate is not None:
            self._fault(
                FaultKind.COLLUSION,
                f"dealer {self.dealer} overpays patron {self.confederate} on about "
                f"{COLLUSION_SHARE:.0%} of the patron's winning wagers, every day",
                DEALER_PATRON_CODE,
            )
        return out

    # ------------------------------------------------------------------ patrons
    def _seat_patron(
        self,
        seat: int,
        confederate: bool = False,
        patient: bool = False,
        weak_partner: bool = False,
    ) -> None:
        patron = new_patron(self.rng, next(self.patron_numbers), seat, self.rules)
        if weak_partner and self.weak_partner is not None:
            patron.patron_id = self.weak_partner
            patron.rounds_left = WEAK_PAIR_ROUNDS
        elif patient and self.patient is not None:
            kind, patron.patron_id = self.patient
            patron.rounds_left = PATIENT_ROUNDS
            patron.patient_share = PATIENT_SHARE if kind is FaultKind.PATIENT_INFORMED else 0.0
            patron.reads_card_backs = kind is FaultKind.EDGE_SORTER
        elif confederate and self.confederate is not None:
            patron.patron_id = self.confederate
            patron.rounds_left = CONFEDERATE_ROUNDS
        elif (
            not self.variant.participant_bank
            and self.faults.roll(FaultKind.INFORMED_BETTING)
            and self._time_for(INFORMED_ROUNDS)
        ):
            patron.knows_outcomes = True
            patron.rounds_left = max(patron.rounds_left, INFORMED_ROUNDS)
            self._fault(
                FaultKind.INFORMED_BETTING,
                f"patron {patron.patron_id} knows the winner of {INFORMED_SHARE:.0%} of rounds "
                f"and stakes {INFORMED_STAKE_UNITS} units on it, for {patron.rounds_left} rounds",
                INFORMED_BETTING_CODE,
                seat=seat,
                patron_id=patron.patron_id,
            )
        self.seated[seat] = patron
        self.out.emit(
            self.dev.pit,
            "PatronSeated",
            seat=seat,
            patron_id=patron.patron_id,
            patron_name=patron.name,
        )
        if patron.reads_card_backs:
            # The preparation: the dealer turns the values the patron reads as they are turned
            # face up, so their backs read apart in the shoes shuffled from them. The kind's
            # stream is seeded without the date, the same every day; with the date, the day's
            # event id is its own.
            own = self.faults.streams[FaultKind.EDGE_SORTER]
            self.out.emit_with(
                random.Random(f"{own.getrandbits(64)}:{self.gaming_date}"),
                self.dev.pit,
                "PatronRequest",
                round_id=None,
                seat=seat,
                patron_id=patron.patron_id,
                request="TURN_CARDS",
                detail=CARD_TURN_REQUEST,
                granted=True,
            )

    def _time_for(self, rounds: int) -> bool:
        """Whether the day leaves time for ``rounds`` more rounds, the slowest pace and a
        shuffle every 60 rounds included: an informed patron plays the rounds the fault
        states."""
        seconds = rounds * SECONDS_PER_ROUND[1] + (rounds // 60 + 1) * SHUFFLE_SECONDS[1]
        return self.closes_at - self.out.clock_micros > seconds * 1_000_000

    def _patron_leaves(self, seat: int) -> None:
        self._resolve_deferred(seat, deadline="patron leaves")
        patron = self.seated.pop(seat)
        self.out.emit(self.dev.pit, "PatronLeft", seat=seat, patron_id=patron.patron_id)
        if self.volunteered_by == seat:
            self.volunteered_unclear = True
        if self.banker_seat == seat:
            self.banker_seat = None
            self.banker_last_wager = None
            self.volunteered_by, self.volunteered_unclear = None, False
        if self.suivi_seat == seat:
            self.suivi_seat = None

    def _between_rounds(self, round_id: str) -> None:
        for seat in list(self.seated):
            patron = self.seated[seat]
            patron.rounds_left -= 1
            if patron.rounds_left <= 0:
                self._patron_leaves(seat)
        for seat in SEATS[self.game]:
            if seat not in self.seated and self.rng.random() < 0.03:
                self._seat_patron(seat)
        # Chemin de Fer needs a Banker and someone to wager against the bank (4.7).
        needed = 2 if self.variant.participant_bank else 1
        while len(self.seated) < needed:
            self._seat_patron(
                self.rng.choice([s for s in SEATS[self.game] if s not in self.seated])
            )
        if self.curator_seat is not None and self.curator_seat not in self.seated:
            self._offer_shoe(after_round=round_id)  # the curator left: 3.11(b)

    def _offer_shoe(self, after_round: str | None) -> None:
        """3.6(b)-(d), 3.11(b): the dealer offers the shoe in order until a participant
        accepts; if nobody does, the dealer acts as curator."""
        declined = []
        order = shoe_offer_order(self.curator_seat, self.seated)
        self.curator_seat = None
        for seat in order:
            if self.rng.random() < 0.75:
                self.curator_seat = seat
                break
            declined.append(seat)
        self.out.emit(
            self.dev.pit,
            "CuratorChanged",
            round_id=after_round,
            declined=declined,
            seat=self.curator_seat,
        )

    # ------------------------------------------------------------------ deferred vigorish
    def _resolve_deferred(self, seat: int, deadline: str) -> None:
        """3.3(c)2, (c)4: collect or document deferred vigorish at the deadline."""
        patron = self.seated[seat]
        owed = patron.deferred_vig_cents
        if owed == 0:
            return
        if self.faults.roll(FaultKind.DEFERRED_VIG):
            self._fault(
                FaultKind.DEFERRED_VIG,
                f"marker of {money(owed)} left unresolved when the {deadline}",
                code_for(self.game, "deferred_deadline"),
                seat=seat,
            )
            patron.deferred_vig_cents = 0
            return
        if patron.pays_deferred_vig:
            self.out.emit(
                self.dev.pit,
                "DeferredVigCollected",
                seat=seat,
                patron_id=patron.patron_id,
                amount_cents=owed,
                round_id=None,
                shoe_id=self.shoe_id,
            )
        else:
            self._issue_form(patron, owed)
        patron.deferred_vig_cents = 0

    # ------------------------------------------------------------------ forms
    def _issue_form(self, patron: Patron, amount: Cents) -> None:
        """3.3(c)3i: the pit clerk prepares a serially prenumbered Form."""
        if self.rng.random() < 0.1:
            self._void_form()
        detail = None
        if self.faults.roll(FaultKind.FORMS):
            details = ["gap", "out_of_order", "duplicate", "mismatch", "missing_signature"]
            details.append("walk_in")  # 3.3(c)2-3: a Form tied to no seat's deferral
            if regulates(self.game, "form_table"):
                details.append("wrong_pit")  # 3.3(c)3i: another pit than the table's
            detail = self.rng.choice(details)
        serial = self.book.take()
        if detail == "gap":
            skipped, serial = serial, self.book.take()
            self._fault(
                FaultKind.FORMS, "serial skipped", "PB-3.3c3ii-FORM-SEQUENCE", serial=skipped
            )
        elif detail == "out_of_order" and self.book.held_back is None:
            held = serial
            serial = self.book.take()
            self.book.held_back = held
            self._fault(
                FaultKind.FORMS,
                f"serial {held} used after {serial}",
                "PB-3.3c3ii-FORM-SEQUENCE",
                serial=held,
            )
        elif detail == "duplicate" and self.book.issued:
            self.book.next_serial -= 1  # the serial we took goes back in the book
            serial = int(str(self.book.issued[-1]["serial"]))
            self._fault(
                FaultKind.FORMS, "serial used twice", "PB-3.3c3ii-FORM-SEQUENCE", serial=serial
            )
        signatures = {
            "dealer_signature": self.dealer,
            "pit_boss_signature": self.pit_boss,
            "pit_clerk_signature": self.pit_clerk,
        }
        has_patron_signature = self.rng.random() < 0.6
        reason = None if has_patron_signature else "patron left the table before signing"
        if detail == "missing_signature":
            signatures[self.rng.choice(tuple(signatures))] = None  # type: ignore[assignment]
            self._fault(FaultKind.FORMS, "signature missing", "PB-3.3c3-COMP-FORM", serial=serial)
        if detail == "wrong_pit":
            self._fault(
                FaultKind.FORMS,
                "Form records another pit than the table's",
                code_for(self.game, "form_table"),
                serial=serial,
            )
        documented = amount
        if self.faults.roll(FaultKind.OVERSTATED_FORM):
            documented = overstated(amount)
        form = dict(
            serial=serial,
            amount_cents=documented,
            patron_name=patron.name,
            patron_id=patron.patron_id,
            gaming_date=self.gaming_date,
            pit=f"{self.pit}-ELSEWHERE" if detail == "wrong_pit" else self.pit,
            table_location=self.location,
            round_id=None,
            seat=patron.seat,
            patron_signature=patron.name if has_patron_signature else None,
            signature_missing_reason=reason,
            **signatures,
        )
        event_id = self._emit_form(form, mismatch=detail == "mismatch")
        if documented != amount:
            self._fault(
                FaultKind.OVERSTATED_FORM,
                f"Form documents {money(documented)} of the {money(amount)} of vigorish seat "
                f"{patron.seat} deferred",
                "PB-3.3c3-COMP-FORM",
                seat=patron.seat,
                serial=serial,
                event_ids=(event_id,),
            )
        if detail == "walk_in":
            walk_in = self.book.take()
            name = "Walk-in Patron"
            self._emit_form(
                {
                    **form,
                    "serial": walk_in,
                    "seat": None,
                    "patron_id": None,
                    "patron_name": name,
                    "patron_signature": name,
                    "signature_missing_reason": None,
                },
                mismatch=False,
            )
            self._fault(
                FaultKind.FORMS,
                "a walk-in Form documenting no seat's deferred vigorish",
                code_for(self.game, "form_deferred"),
                serial=walk_in,
            )
        if detail == "mismatch":
            self._fault(
                FaultKind.FORMS,
                "duplicate disagrees with the original",
                "PB-3.3c3iv-FORM-MATCH",
                serial=serial,
                event_ids=(event_id,),
            )

    def _emit_form(self, form: Mapping[str, object], *, mismatch: bool) -> str:
        """CompVigFormIssued, and the Form in the book accounting will count."""
        event_id = self.out.emit(self.dev.pit, "CompVigFormIssued", **form)
        self.book.issued.append(
            {
                "serial": form["serial"],
                "amount_cents": form["amount_cents"],
                "patron_name": form["patron_name"],
                "void": False,
                "mismatch": mismatch,
                "event_id": event_id,
            }
        )
        return event_id

    def _void_form(self) -> None:
        """3.3(c)3vi: a spoiled Form is marked VOID and signed by the pit boss and pit clerk."""
        serial = self.book.take()
        marked, boss, clerk = True, self.pit_boss, self.pit_clerk
        if self.faults.roll(FaultKind.FORMS):
            flaw = self.rng.choice(("unmarked", "boss", "clerk"))
            marked = flaw != "unmarked"
            boss = None if flaw == "boss" else boss  # type: ignore[assignment]
            clerk = None if flaw == "clerk" else clerk  # type: ignore[assignment]
            self._fault(
                FaultKind.FORMS, f"void form flaw: {flaw}", "PB-3.3c3vi-FORM-VOID", serial=serial
            )
        event_id = self.out.emit(
            self.dev.pit,
            "CompVigFormVoided",
            serial=serial,
            marked_void=marked,
            pit_boss_signature=boss,
            pit_clerk_signature=clerk,
            reason="spoiled while writing",
        )
        self.book.issued.append(
            {
                "serial": serial,
                "amount_cents": 0,
                "patron_name": None,
                "void": True,
                "mismatch": False,
                "event_id": event_id,
            }
        )

    def _accounting(self) -> None:
        """3.3(c)3iii-iv: originals counted from the drop box, duplicates at accounting."""
        if self.book.held_back is not None:
            # The held-back serial was never used: the manifest already names it.
            self.book.held_back = None
        for form in self.book.issued:
            common = dict(
                serial=form["serial"],
                patron_name=form["patron_name"],
                table_location=self.location,
                gaming_date=self.gaming_date,
                marked_void=form["void"],
            )
            amount = int(str(form["amount_cents"]))
            self.out.emit(self.dev.accounting, "FormOriginalCounted", amount_cents=amount, **common)
            duplicate_amount = amount + 500 if form["mismatch"] else amount
            self.out.emit(
                self.dev.accounting,
                "FormDuplicateReceived",
                amount_cents=duplicate_amount,
                **common,
            )

    # ------------------------------------------------------------------ shoe
    def _new_shoe(self) -> Shoe:
        self.shoe_number += 1
        shoe_id = f"{self.table_id}-{self.gaming_date:%Y%m%d}-S{self.shoe_number:02d}"
        two_batch = self.rules.shuffle_method is ShuffleMethod.AUTOMATED_BATCH
        decks_in_play = self.rules.decks // 2 if two_batch else self.rules.decks
        cards = [Card(r, s) for _ in range(decks_in_play) for r in RANKS for s in SUITS]
        self.rng.shuffle(cards)
        declared_cards = len(cards)
        cut_from_back = self.rng.randint(60, 84)
        details = ["card_count", "burn", "cut_card", "shuffle"]
        if two_batch and self.shoe_number > 1:
            details.append("batch")  # 7.1(d)4: the same batch dealt twice running
        detail = self.rng.choice(details) if self.faults.roll(FaultKind.SHOE) else None
        if detail == "card_count":
            cards.pop()
            declared_cards = len(cards)
            self._fault(
                FaultKind.SHOE,
                "a card is missing from the shoe",
                code_for(self.game, "decks"),
                round_id=None,
            )
        elif detail == "cut_card":
            cut_from_back = self.rng.randint(6, 13)
            self._fault(
                FaultKind.SHOE,
                f"second cutting card {cut_from_back} from the back",
                code_for(self.game, "cut_card_14"),
            )
        cut_position = self.rng.randint(20, len(cards) - 20)
        cards = cards[cut_position:] + cards[:cut_position]
        slug = self._false_shuffle(cards, self.batch if two_batch else None) or self._carried_slug(
            cards
        )
        self.out.advance(self.rng.uniform(*SHUFFLE_SECONDS))
        batch = None
        if two_batch:
            batch, self.batch = self.batch, "B" if self.batch == "A" else "A"
            if detail == "batch":
                batch, self.batch = self.batch, batch  # the last shoe's batch again
                self._fault(
                    FaultKind.SHOE, f"batch {batch} dealt twice running", "MB-7.1d4-BATCH-ALTERNATE"
                )
        method = self.rules.shuffle_method
        if detail == "shuffle":
            method = self.rng.choice([m for m in ShuffleMethod if m is not method])
            self._fault(
                FaultKind.SHOE,
                f"shoe recorded as shuffled {method.value}, not the filed option",
                code_for(self.game, "shuffle_filed"),
            )
        self.out.emit(
            self.dev.shoe,
            "ShoeStarted",
            shoe_id=shoe_id,
            decks=self.rules.decks,
            shuffle_method=method.value,
            cut_position=cut_position,
            cut_card_from_back=cut_from_back,
            batch=batch,
            cards_in_shoe=declared_cards,
            shuffled_by=self.dealer,
            cut_by_seat=self._offer_cut(shoe_id),
        )
        shoe = Shoe(shoe_id, cards, 0, len(cards) - cut_from_back, batch=batch)
        shoe.slug = slug
        burn = burned_cards(cards[0].rank)
        if detail == "burn":
            burn += self.rng.choice((-1, 1)) if burn > 1 else 1
            self._fault(FaultKind.SHOE, "wrong number of cards burned", code_for(self.game, "burn"))
        for _ in range(burn):
            self._deal_card(shoe, None, "BURN")
        return shoe

    def _offer_cut(self, shoe_id: str) -> int | None:
        """4.4(c): a seated participant accepts the cut (the dealer cuts at an empty table);
        where the pit records declined offers, the participants offered the stack before,
        highest number first and clockwise, decline it on record. The ``offer_order`` fault
        leaves one of them out: passed over."""
        cut_by = self.rng.choice(sorted(self.seated)) if self.seated else None
        if cut_by is None or not self.rules.records_declined_offers:
            return cut_by
        order = cut_offer_order(self.seated)
        before = order[: order.index(cut_by)]
        if before and self.faults.roll(FaultKind.OFFER_ORDER):
            skipped = self.faults.draws(FaultKind.OFFER_ORDER).choice(before)
            before.remove(skipped)
            self._fault(
                FaultKind.OFFER_ORDER,
                f"seat {cut_by} cut shoe {shoe_id}; seat {skipped}, offered the stack before it, "
                "was passed over without declining",
                "CF-4.4c-CUT-ORDER",
                seat=skipped,
            )
        self._decline("CUT", before, shoe_id=shoe_id)
        return cut_by

    def _decline(self, offer: str, seats: list[int], **where: str | None) -> None:
        for seat in seats:
            self.out.emit_with(
                self.declines, self.dev.pit, "OfferDeclined", offer=offer, seat=seat, **where
            )

    def _false_shuffle(self, cards: list[Card], batch: str | None) -> PlantedSlug | None:
        """The false shuffle, when it is rolled: a run of the cards the batch's last shoe
        dealt, put back unshuffled into ``cards`` where the shoe's first rounds deal it.
        Planted only where the day leaves time to deal it."""
        last = self.last_shoes.get(batch)
        if (
            last is None
            or not self._time_for_a_slug()
            or not self.faults.roll(FaultKind.FALSE_SHUFFLE)
        ):
            return None
        return self._plant_slug(
            cards,
            FaultKind.FALSE_SHUFFLE,
            last.cards[: last.position],
            lambda start, end: f"left unshuffled from {last.shoe_id} positions {start}-{end}",
            self.rng,
        )

    def _carried_slug(self, cards: list[Card]) -> PlantedSlug | None:
        """A slug carried across pits, when it is rolled: a run of the cards a table of another
        pit dealt from a shoe that has ended, brought by a confederate and put into ``cards``
        where the shoe's first rounds deal it. Its choices come from the kind's own stream."""
        kind = FaultKind.CROSS_PIT_SLUG
        ended = [s for s in self.other_pit_shoes if s.ended_at_micros < self.out.clock_micros]
        if not ended or not self._time_for_a_slug() or not self.faults.roll(kind):
            return None
        draws = self.faults.draws(kind)
        source = draws.choice(ended)
        return self._plant_slug(
            cards,
            kind,
            source.cards,
            lambda start, end: (
                f"carried from table {source.table_id} (pit {source.pit}), shoe "
                f"{source.shoe_id} positions {source.first_position + start}-"
                f"{source.first_position + end}"
            ),
            draws,
            source.event_ids,
        )

    def _time_for_a_slug(self) -> bool:
        """Whether the day leaves a new shoe time to deal a slug planted in its first rounds."""
        time_left = self.closes_at - self.out.clock_micros
        return time_left >= SLUG_ROUNDS_LEFT * SECONDS_PER_ROUND[1] * 1e6

    def _plant_slug(
        self,
        cards: list[Card],
        kind: FaultKind,
        dealt: Sequence[Card],
        origin: Callable[[int, int], str],
        draws: random.Random,
        dealt_event_ids: Sequence[str] = (),
    ) -> PlantedSlug | None:
        """A run of 20-30 of the ``dealt`` cards (an earlier shoe's, in the order dealt) put
        into ``cards`` where the new shoe's first rounds deal it, one copy of each taken out
        first so the shoe still holds its decks; a confederate sits down to bet the outcomes
        (Chemin de Fer: the seat of the lowest number, since wagers follow the bank). ``None``
        when ``dealt`` is shorter than the run or ``cards`` lack a copy of one of its cards.
        ``origin`` describes the run's first and last index into ``dealt``; ``draws`` makes
        the choices."""
        length = draws.randint(*SLUG_LENGTH)
        if len(dealt) < length:
            return None
        start = draws.randint(0, len(dealt) - length)
        slug = dealt[start : start + length]
        if Counter(slug) - Counter(cards):
            return None
        for card in slug:
            cards.remove(card)
        at = draws.randint(*SLUG_AT)
        cards[at:at] = slug
        free = [seat for seat in SEATS[self.game] if seat not in self.seated]
        if free and not self.variant.participant_bank:
            self.confederate_seat = draws.choice(free)
            self._seat_patron(self.confederate_seat)
            patron = self.seated[self.confederate_seat]
            patron.rounds_left = max(patron.rounds_left, SLUG_ROUNDS_LEFT)
        else:
            self.confederate_seat = min(self.seated, default=None)
        return PlantedSlug(
            kind,
            range(at, at + length),
            origin(start, start + length - 1),
            tuple(dealt_event_ids[start : start + length]),
        )

    def _slug_tip(self, shoe: Shoe) -> Wager | None:
        """What the confederate bets when the next round is dealt from the slug: the winner
        the slug's known cards give (dealt with the default options, which decide every Punto
        Banco and Minibaccarat round)."""
        if shoe.slug is None or shoe.position not in shoe.slug.positions or len(shoe.remaining) < 6:
            return None
        winner = deal_round(self.game, shoe.remaining).outcome.winner
        return {Winner.BANKER: Wager.BANKER, Winner.PLAYER: Wager.PLAYER, Winner.TIE: Wager.TIE}[
            winner
        ]

    def _deal_card(self, shoe: Shoe, round_id: str | None, hand: str, face_up: bool = True) -> str:
        if not shoe.cut_card_seen and shoe.position >= shoe.cut_card_at and round_id:
            shoe.cut_card_seen = True
            self.out.emit(
                self.dev.shoe,
                "CutCardReached",
                shoe_id=shoe.shoe_id,
                round_id=round_id,
                position=shoe.position,
            )
        card = shoe.cards[shoe.position]
        event_id = self.out.emit(
            self.dev.shoe,
            "CardDealt",
            shoe_id=shoe.shoe_id,
            round_id=round_id,
            position=shoe.position,
            hand=hand,
            face_up=face_up,
            **self._card_fields(card),
        )
        shoe.position += 1
        return event_id

    def _play_shoe(self) -> None:
        shoe = self._new_shoe()
        self.shoe_id = shoe.shoe_id
        round_number = 0
        while self.out.clock_micros < self.closes_at:
            round_number += 1
            round_id = f"{shoe.shoe_id}-R{round_number:03d}"
            try:
                self._play_round(shoe, round_id, round_number)
            except InsufficientCardsError:
                break
            if shoe.cut_card_seen:
                if not regulates(self.game, "last_hand"):
                    # Chemin de Fer (4.12(g), (k)): the hand with the cutting card is the
                    # shoe's last; no "last hand" is announced and none follows.
                    break
                if shoe.rounds_after_cut_card is None:
                    shoe.rounds_after_cut_card = 0
                    self.out.emit(
                        self.dev.pit, "LastHandAnnounced", shoe_id=shoe.shoe_id, round_id=round_id
                    )
                else:
                    break
            self._between_rounds(round_id)
            self._maybe_irregularity(shoe)
        for seat in sorted(self.seated, reverse=True):
            self._resolve_deferred(seat, deadline="shoe ended")
        self.out.emit(
            self.dev.shoe,
            "ShoeEnded",
            shoe_id=shoe.shoe_id,
            cards_dealt=shoe.position,
            reason="cutting card" if shoe.cut_card_seen else "end of gaming day",
            rounds_dealt=round_number,
        )
        if shoe.slug is not None:
            planted = shoe.slug.positions
            dealt = min(shoe.position, planted.stop) - planted.start
            self._fault(
                shoe.slug.kind,
                f"shoe {shoe.shoe_id} positions {planted.start}-{planted.stop - 1} "
                f"({dealt} of {len(planted)} dealt) {shoe.slug.origin}",
                code_for(self.game, "false_shuffle"),
                event_ids=shoe.slug.carried_event_ids,
            )
            self.confederate_seat = None
        self.last_shoes[shoe.batch] = shoe

    # ------------------------------------------------------------------ irregularities
    def _maybe_irregularity(self, shoe: Shoe) -> None:
        """3.12(b)-(d): a card drawn in error and disclosed, or found face up in the shoe."""
        if self.rng.random() >= 0.01 or len(shoe.remaining) < 30:
            return
        card = shoe.cards[shoe.position]
        face_up = self.rng.random() < 0.3
        kind = "CARD_FACE_UP_IN_SHOE" if face_up else "CARD_DISCLOSED_IN_ERROR"
        procedure = self.rules.disclosed_card_procedure
        irregularity_id = self.out.emit(
            self.dev.pit,
            "IrregularityReported",
            round_id=None,
            kind=kind,
            procedure=None if face_up else procedure.name,
            card_rank=card.rank.name,
            card_suit=card.suit.name,
            note=None,
            shoe_id=shoe.shoe_id,
            position=shoe.position,
            reported_by=self.dealer,
        )
        extra = (
            face_up_in_shoe_discards(card.rank)
            if face_up
            else disclosed_card_discards(self.rules, card.rank)
        )
        if extra is None:  # (c)3: the card opens a simulated round with no wagers
            misplaced = self.faults.roll(FaultKind.IRREGULARITY)
            if misplaced:  # the disclosed card is discarded and the round opens with the next
                self._deal_card(shoe, None, "DISCARD")
            round_id = self._simulated_round(shoe)
            if misplaced:
                self._fault(
                    FaultKind.IRREGULARITY,
                    "the simulated round did not open with the disclosed card",
                    code_for(self.game, "simulated_first"),
                    round_id=round_id,
                )
            return
        one_face_down = not face_up and procedure is DisclosedCardProcedure.DISCARD_ONE_FACE_DOWN
        shown = one_face_down and self.faults.roll(FaultKind.IRREGULARITY)
        if shown:
            self._fault(
                FaultKind.IRREGULARITY,
                "the additional card of procedure (c)2 was discarded face up",
                code_for(self.game, "disclosed_face_down"),
                event_ids=(irregularity_id,),
            )
        elif self.faults.roll(FaultKind.IRREGULARITY):
            wrong = extra + 1 if extra == 0 or self.rng.random() < 0.5 else extra - 1
            self._fault(
                FaultKind.IRREGULARITY,
                f"{wrong} cards discarded after the {kind} card instead of {extra}",
                code_for(self.game, "face_up" if face_up else "disclosed"),
                event_ids=(irregularity_id,),
            )
            extra = wrong
        self._deal_card(shoe, None, "DISCARD")
        for _ in range(extra):
            # (c)2 discards its one extra card face down; (c)1 and (d) face up.
            self._deal_card(shoe, None, "DISCARD", face_up=not one_face_down or shown)

    def _simulated_round(self, shoe: Shoe) -> str:
        """3.12(c)3: dealt by the rules, no wagers, then discarded. Returns its round id."""
        round_id = f"{shoe.shoe_id}-SIM{shoe.position:03d}"
        self.out.emit(
            self.dev.pit,
            "RoundStarted",
            round_id=round_id,
            shoe_id=shoe.shoe_id,
            round_number=0,
            simulated=True,
        )
        deal = deal_round(self.game, shoe.remaining, self._options())
        self._emit_deal(shoe, round_id, deal)
        last_hand_rule = regulates(self.game, "last_hand")
        if shoe.cut_card_seen and shoe.rounds_after_cut_card is None and last_hand_rule:
            # 3.8(e): the hand in which the cutting card appeared is completed, then "last
            # hand" is announced, simulated or not.
            shoe.rounds_after_cut_card = 0
            self.out.emit(
                self.dev.pit, "LastHandAnnounced", shoe_id=shoe.shoe_id, round_id=round_id
            )
        return round_id

    # ------------------------------------------------------------------ rounds
    def _options(self) -> Options:
        return Options(
            player_draws_on_5=self.rng.random() < 0.5,
            banker_draws_on_option=self.rng.random() < 0.5,
        )

    def _emit_deal(
        self,
        shoe: Shoe,
        round_id: str,
        deal: Deal,
        stakes: Mapping[int, Mapping[Wager, Cents]] | None = None,
    ) -> None:
        """3.7(c): cards 1 and 3 to the Player's Hand, 2 and 4 to the Banker's; then the
        Player's third card and the Banker's third card (3.8(c)). At a table that hands the
        cards to the players (3.7(d), 7.7(c)3), each hand is handed after the fourth card to
        the seat :meth:`_hand_over` chooses from the round's ``stakes``, and each third card to
        the seat that was handed its hand (3.7(d)3-4)."""
        handing = stakes is not None and self.rules.cards_handed_to_players
        handed_to: dict[str, int | None] = {}
        for i, hand in enumerate(deal_order(len(deal.player), len(deal.banker))):
            self._deal_card(shoe, round_id, hand)
            if handing and stakes is not None and i == 3:
                handed_to = {h: self._hand_over(round_id, h, stakes) for h in ("PLAYER", "BANKER")}
            seat = handed_to.get(hand) if i > 3 else None
            if seat is not None:
                self._emit_handed(round_id, hand, True, seat)

    def _hand_over(
        self, round_id: str, hand: str, stakes: Mapping[int, Mapping[Wager, Cents]]
    ) -> int | None:
        """3.7(d)1-2, (d)5-6, 7.7(c)3i-ii: ``hand``'s two cards to the seat
        :func:`seats_to_hand` names first; ``None`` when it names nobody (the dealer turns the
        hand up). The CARDS_HANDED fault hands it to another seat that wagered this round."""
        procedure = self.variant.cards_handed
        if procedure is None:
            return None
        other = "BANKER" if hand == "PLAYER" else "PLAYER"
        entitled = seats_to_hand(
            procedure,
            {seat: wagers.get(Wager[hand], 0) for seat, wagers in stakes.items()},
            {seat: wagers.get(Wager[other], 0) for seat, wagers in stakes.items()},
        )
        if not entitled:
            return None
        seat = entitled[0]
        others = [s for s in sorted(stakes) if s not in entitled and any(stakes[s].values())]
        if others and self.faults.roll(FaultKind.CARDS_HANDED):
            seat = self.faults.draws(FaultKind.CARDS_HANDED).choice(others)
            self._fault(
                FaultKind.CARDS_HANDED,
                f"the {hand} hand handed to seat {seat}, not the highest wager on it "
                f"(seat {entitled[0]})",
                code_for(self.game, "cards_handed"),
                round_id=round_id,
                seat=seat,
            )
        self._emit_handed(round_id, hand, False, seat)
        return seat

    def _emit_handed(self, round_id: str, hand: str, third_card: bool, seat: int) -> None:
        patron = self.seated.get(seat)
        self.out.emit(
            self.dev.pit,
            "CardsHandedTo",
            round_id=round_id,
            hand=hand,
            third_card=third_card,
            seat=seat,
            patron_id=patron.patron_id if patron is not None else None,
        )

    def _late_wager(
        self,
        round_id: str,
        stakes: dict[int, dict[Wager, Cents]],
        kind: FaultKind,
        subject: str,
    ) -> bool:
        """Fault: a wager increased after "No More Bets" (3.2(d)), or after the first card with
        "No More Bets" recorded late or never (3.7(b)); the dealer honours it. Late chips that
        would take the wager over the table maximum are not added, so the fault is that one
        alone (8.2). Whether a wager was made."""
        seat = self.rng.choice(sorted(stakes))
        wager = next(iter(stakes[seat]))
        extra = self.rules.min_wager_cents
        if stakes[seat][wager] + extra > self.rules.max_wager_cents:
            return False
        stakes[seat][wager] += extra
        event_id = self.out.emit(
            self.dev.bets,
            "WagerPlaced",
            round_id=round_id,
            seat=seat,
            patron_id=self.seated[seat].patron_id,
            wager=wager.value,
            amount_cents=extra,
        )
        when = "No More Bets" if kind is FaultKind.LATE_WAGER else "the first card"
        self._fault(
            kind,
            f"{wager.value} increased by {money(extra)} after {when}",
            code_for(self.game, subject),
            round_id=round_id,
            seat=seat,
            event_ids=(event_id,),
        )
        return True

    def _faulty_deal(self, shoe: Shoe) -> tuple[Deal, str, str] | None:
        """A deal where one hand draws or stays against Table 1/2/3; ``None`` if the cards
        leave no room for a draw error (a natural)."""
        cards = shoe.remaining
        if len(cards) < 6:
            return None
        player, banker = [cards[0], cards[2]], [cards[1], cards[3]]
        p, b = hand_points(player), hand_points(banker)
        p_rule = player_rule(self.game, p, b)
        if p_rule is Draw.STAY and (p >= 8 or b >= 8):
            return None
        wrong_hand = self.rng.choice(("PLAYER", "BANKER"))
        next_card = 4
        player_draws = p_rule is Draw.DRAW or (p_rule is Draw.OPTION and self.rng.random() < 0.5)
        if wrong_hand == "PLAYER":
            if p_rule is Draw.OPTION:
                wrong_hand = "BANKER"  # the Chemin de Fer 5 is a free choice, not an error
            else:
                player_draws = not player_draws
        third = None
        if player_draws:
            third = cards[next_card]
            player.append(third)
            next_card += 1
        b_rule = banker_rule(self.game, p, b, third.value if third else None)
        if wrong_hand == "BANKER" and b_rule is Draw.OPTION:
            return None
        banker_draws = b_rule is Draw.DRAW
        if wrong_hand == "BANKER":
            banker_draws = not banker_draws
        if banker_draws:
            banker.append(cards[next_card])
        subject = "player_draw" if wrong_hand == "PLAYER" else "banker_draw"
        return Deal(tuple(player), tuple(banker), ()), wrong_hand, code_for(self.game, subject)

    def _play_round(self, shoe: Shoe, round_id: str, round_number: int) -> None:
        out, pit = self.out, self.dev.pit
        out.advance(self.rng.uniform(*SECONDS_PER_ROUND) - 24.0)
        out.emit(
            pit,
            "RoundStarted",
            round_id=round_id,
            shoe_id=shoe.shoe_id,
            round_number=round_number,
            simulated=False,
        )
        if len(shoe.remaining) < 6:
            # 3.12(e): not enough cards to be sure of completing the round: void it.
            out.emit(
                pit,
                "RoundVoided",
                round_id=round_id,
                reason="insufficient cards",
                rule_code=code_for(self.game, "insufficient"),
            )
            raise InsufficientCardsError(round_id)
        if self.variant.participant_bank:
            stakes = self._chemin_de_fer_wagers(round_id)
        else:
            stakes = self._place_wagers(round_id, shoe, self._slug_tip(shoe))
        after_cards = not self.variant.participant_bank and self.faults.roll(
            FaultKind.CARDS_CLOSE_BETS
        )
        closed_after_cards = after_cards and self.rng.random() < 0.5
        if not after_cards:
            out.emit(pit, "BettingClosed", round_id=round_id, shoe_id=shoe.shoe_id)
            if not self.variant.participant_bank and self.faults.roll(FaultKind.LATE_WAGER):
                self._late_wager(round_id, stakes, FaultKind.LATE_WAGER, "no_more_bets")
            if self._accepted_late is not None:
                self._accept_late(round_id, self._accepted_late)

        options = self._options()
        # A hand the rule voids returns every wager as recorded, which would leave a fault
        # already made in them (the whole bank recorded as the Banker's wager, 4.7(e)) nothing
        # to be found by: only a hand without one is planned to go wrong (4.12).
        planned = self.variant.participant_bank and not any(
            f.round_id == round_id for f in self.faults.injected
        )
        if planned and self._last_hand_face_up(shoe, round_id, stakes, options):
            return
        misdeal = planned and self.rng.random() < BANKER_MISDEAL_RATE
        if misdeal and self._banker_misdeal(shoe, round_id, stakes, options):
            return
        deal = deal_round(self.game, shoe.remaining, options)
        if self.faults.roll(FaultKind.THIRD_CARD):
            faulty = self._faulty_deal(shoe)
            if faulty is not None:
                deal, hand, code = faulty
                self._fault(
                    FaultKind.THIRD_CARD,
                    f"the {hand} hand drew or stayed against the draw table",
                    code,
                    round_id=round_id,
                )
        self._emit_deal(shoe, round_id, deal, stakes)
        if after_cards:
            moved = self._late_wager(
                round_id, stakes, FaultKind.CARDS_CLOSE_BETS, "bets_after_cards"
            )
            if closed_after_cards:
                out.emit(pit, "BettingClosed", round_id=round_id, shoe_id=shoe.shoe_id)
                if not moved:  # the late "No More Bets" is the fault on its own
                    self._fault(
                        FaultKind.CARDS_CLOSE_BETS,
                        '"No More Bets" recorded after the cards, no wager moved',
                        code_for(self.game, "bets_after_cards"),
                        round_id=round_id,
                    )
        for taken in deal.options_taken:
            hand, _, choice = taken.partition(":")
            two_cards = deal.player[:2] if hand == "PLAYER" else deal.banker[:2]
            chooser = self._covering.dominant_seat if hand == "PLAYER" else self.banker_seat
            others = [
                seat for seat in sorted(self.seated) if seat not in (chooser, self.banker_seat)
            ]
            if hand == "PLAYER" and others and self.faults.roll(FaultKind.BANK):
                chooser = self.rng.choice(others)
                self._fault(
                    FaultKind.BANK,
                    f"the Player's Hand's choice made by seat {chooser}, not the Dominant Player",
                    "CF-4.8c-DOMINANT",
                    round_id=round_id,
                    seat=chooser,
                )
            out.emit(
                pit,
                "HandOption",
                round_id=round_id,
                hand=hand,
                drew=choice == "DRAW",
                points=hand_points(two_cards),
                seat=chooser,
            )
        outcome = deal.outcome
        self._announce(round_id, outcome)
        self._settle(round_id, outcome, stakes)
        if self.variant.participant_bank:
            self._pass_bank(outcome, round_id)
        elif self.curator_seat is not None and (
            curator_must_pass(outcome) or self.rng.random() < 0.05
        ):
            self._offer_shoe(after_round=round_id)  # 3.11(a): compulsory or by choice

    def _banker_misdeal(
        self,
        shoe: Shoe,
        round_id: str,
        stakes: dict[int, dict[Wager, Cents]],
        options: Options,
    ) -> bool:
        """Chemin de Fer: the Banker misdeals (4.12(a)-(d), (i), :mod:`pipeline.simulate.misdeals`)
        and the pit reports it; the hand is then played, or voided, by the rule unless an
        IRREGULARITY fault makes the dealer get it wrong. Returns whether the hand was played
        here (``False``: these cards cannot make the misdeal drawn, play the hand normally)."""
        if len(shoe.remaining) < CARDS_NEEDED:
            return False
        subject = self.rng.choice(MISDEALS)
        fault = self.faults.roll(FaultKind.IRREGULARITY)
        plan = plan_misdeal(subject, shoe.remaining, options, mishandled=fault)
        if plan is not None and fault and not plan.mishandled:
            # The slip would leave the same counts as the rule: nothing to find, so no fault.
            plan = plan_misdeal(subject, shoe.remaining, options, mishandled=False)
        if plan is None:
            return False
        self._play_planned(shoe, round_id, stakes, plan, FaultKind.IRREGULARITY)
        return True

    def _last_hand_face_up(
        self,
        shoe: Shoe,
        round_id: str,
        stakes: dict[int, dict[Wager, Cents]],
        options: Options,
    ) -> bool:
        """Chemin de Fer: the cutting card comes out in this hand, the shoe's last, and the card
        behind it is found face up in the shoe (4.12(j), :mod:`pipeline.simulate.misdeals`);
        the hand is voided by the rule unless a ``last_hand_not_voided`` fault makes the dealer
        deal it on and settle it. Returns whether the hand was played here."""
        behind_cut = shoe.cut_card_at - shoe.position
        if not regulates(self.game, LAST_HAND_FACE_UP) or not 0 <= behind_cut < HAND_CARDS:
            return False
        voided = plan_last_hand_face_up(shoe.remaining, behind_cut, options, mishandled=False)
        if voided is None:
            return False  # the hand ends before the cutting card
        # The fault brings its own face-up card, so its rate is per last hand that can have one
        # and a fault day does not wait on the clean rate to see it.
        fault = self.faults.roll(FaultKind.LAST_HAND_NOT_VOIDED)
        if not fault and self.rng.random() >= LAST_HAND_FACE_UP_RATE:
            return False
        plan = (
            plan_last_hand_face_up(shoe.remaining, behind_cut, options, mishandled=True)
            if fault
            else voided
        )
        assert plan is not None  # the same cards and deal as the voided plan
        self._play_planned(shoe, round_id, stakes, plan, FaultKind.LAST_HAND_NOT_VOIDED)
        return True

    def _play_planned(
        self,
        shoe: Shoe,
        round_id: str,
        stakes: dict[int, dict[Wager, Cents]],
        plan: MisdealPlan,
        kind: FaultKind,
    ) -> None:
        """Deal ``plan`` with the pit's report where it falls, then void the hand or announce,
        settle and pass the bank; a plan mishandled is a ``kind`` fault."""
        start = shoe.position
        report = ""
        for i, hand in enumerate(plan.hands):
            if i == plan.report_after:
                report = self._report_misdeal(shoe, round_id, plan, start)
            self._deal_card(shoe, round_id, hand)
        if plan.report_after == len(plan.hands):
            report = self._report_misdeal(shoe, round_id, plan, start)
        code = code_for(self.game, plan.subject)
        if plan.mishandled:
            self._fault(
                kind,
                f"{plan.mishandling} against {code}",
                code,
                round_id=round_id,
                event_ids=(report,),
            )
            if plan.subject == "banker_took_player_card":  # the card kept: counts misannounced
                self._fault(
                    kind,
                    "hands announced with the card the Dominant Player called for in the Banker's",
                    code_for(self.game, "announce"),
                    round_id=round_id,
                )
        if plan.announced is None or plan.settled is None:
            self._void(shoe, round_id, stakes, VOID_REASONS[plan.subject], code)
            return
        self._announce(round_id, plan.announced, may_err=False)
        self._settle(round_id, plan.settled, stakes)
        self._pass_bank(plan.settled, round_id)

    def _report_misdeal(self, shoe: Shoe, round_id: str, plan: MisdealPlan, start: int) -> str:
        """The pit's report of the planned hand: with the card the Banker took for 4.12(i), or
        the card found face up for 4.12(j); naming none otherwise (the excess card cannot be
        told, 4.12(a)-(d))."""
        at = None if plan.named is None else start + plan.named
        card = {} if at is None else self._card_fields(shoe.cards[at])
        return self.out.emit(
            self.dev.pit,
            "IrregularityReported",
            round_id=round_id,
            shoe_id=shoe.shoe_id,
            kind=plan.kind,
            procedure=None,
            card_rank=card.get("rank"),
            card_suit=card.get("suit"),
            position=at,
            note=None,
            reported_by=self.dealer,
        )

    def _void(
        self,
        shoe: Shoe,
        round_id: str,
        stakes: dict[int, dict[Wager, Cents]],
        reason: str,
        code: str,
    ) -> None:
        """4.12(a), (j): the hand is annulled or void: voided, every wager returned. Under (a)
        the bank "may be transferred"; this Banker keeps it."""
        self._if_settled.clear()
        self.out.emit(
            self.dev.pit,
            "RoundVoided",
            round_id=round_id,
            reason=reason,
            rule_code=code,
            shoe_id=shoe.shoe_id,
        )
        for seat in sorted(stakes, reverse=True):
            for wager, amount in stakes[seat].items():
                self.out.emit(
                    self.dev.pit,
                    "WagerSettled",
                    round_id=round_id,
                    seat=seat,
                    patron_id=self._patron_id(seat),
                    wager=wager.value,
                    outcome="VOID",
                    paid_cents=0,
                    amount_cents=amount,
                )

    def _announce(self, round_id: str, outcome: RoundOutcome, *, may_err: bool = True) -> None:
        """3.10(a): the dealer announces each hand's count, the winner and total cards (with an
        ANNOUNCEMENT fault, one of them wrong, unless the round has a fault of its own)."""
        player, banker, winner = outcome.player_points, outcome.banker_points, outcome.winner
        total = outcome.total_cards
        if may_err and self.faults.roll(FaultKind.ANNOUNCEMENT):
            wrong = self.rng.choice(("winner", "banker_points", "total_cards"))
            if wrong == "winner":
                winner = Winner.PLAYER if winner is Winner.BANKER else Winner.BANKER
            elif wrong == "banker_points":
                banker = (banker + self.rng.randint(1, 9)) % 10  # type: ignore[assignment]
            else:
                total = 10 - total  # 4 <-> 6, 5 -> 5 is avoided below
                if total == outcome.total_cards:
                    total = 6 if total == 5 else 5
            self._fault(
                FaultKind.ANNOUNCEMENT,
                f"announced {wrong} wrong",
                code_for(self.game, "announce"),
                round_id=round_id,
            )
        self.out.emit(
            self.dev.pit,
            "ResultAnnounced",
            round_id=round_id,
            player_points=player,
            banker_points=banker,
            winner=winner.value,
            total_cards=total,
            dragon_7=self.rules.dragon_7 and outcome.dragon_7,
        )

    def _upcoming_winner(self, shoe: Shoe) -> Wager | None:
        """What an informed patron knows: the side the next round's cards will win, or None
        on a tie (Punto Banco and Minibaccarat hands have no options to choose)."""
        winner = deal_round(self.game, shoe.remaining, Options()).outcome.winner
        return {Winner.BANKER: Wager.BANKER, Winner.PLAYER: Wager.PLAYER}.get(winner)

    def _place_wagers(
        self, round_id: str, shoe: Shoe, tip: Wager | None
    ) -> dict[int, dict[Wager, Cents]]:
        """Every seated patron's wagers; with a ``tip`` (the round is dealt from a slug), the
        confederate stakes five units on it; an informed patron sometimes bets the winner."""
        stakes: dict[int, dict[Wager, Cents]] = {}
        informed = any(p.knows_outcomes or p.patient_share for p in self.seated.values())
        upcoming = self._upcoming_winner(shoe) if informed else None
        for seat in sorted(self.seated):
            patron = self.seated[seat]
            if tip is not None and seat == self.confederate_seat and tip in self.offered:
                wagers = {tip: min(patron.unit_cents * 5, self.rules.max_wager_cents)}
            else:
                wagers = choose_wagers(self.rng, patron, self.rules)
                if (
                    patron.knows_outcomes
                    and upcoming is not None
                    and self.faults.rng.random() < INFORMED_SHARE
                ) or (
                    patron.patient_share
                    and upcoming is not None
                    and self.faults.draws(FaultKind.PATIENT_INFORMED).random()
                    < patron.patient_share
                ):
                    wagers = bet_the_known_winner(patron, self.rules, wagers, upcoming)
                elif patron.reads_card_backs and shoe.remaining[0].value in CARD_BACKS_READ:
                    wagers = bet_the_known_winner(patron, self.rules, wagers, Wager.PLAYER, 1)
            stakes[seat] = wagers
            for wager, amount in wagers.items():
                self.out.emit(
                    self.dev.bets,
                    "WagerPlaced",
                    round_id=round_id,
                    seat=seat,
                    patron_id=patron.patron_id,
                    wager=wager.value,
                    amount_cents=amount,
                )
        return stakes

    # ------------------------------------------------------------------ settlement
    def _settle(
        self, round_id: str, outcome: RoundOutcome, stakes: dict[int, dict[Wager, Cents]]
    ) -> None:
        """3.10(b): losing wagers first, then the pit's procedure (b)1-4 for paying winners
        and marking or collecting vigorish, seats in descending order."""
        for fault in self._if_settled:
            self.faults.record(fault)
        self._if_settled.clear()
        flipped = self._flips(round_id, outcome)
        settled_as = other_side_won(outcome) if flipped else outcome
        by_seat = {seat: settle_seat(self.rules, settled_as, s) for seat, s in stakes.items()}
        if flipped:
            self._flipped_faults(round_id, outcome, stakes, by_seat)
        recorded: list[tuple[str, int, str]] = []
        """The steps 3.10(b) places, as recorded: (LOSE | PAY | VIG, seat, event id)."""

        def settle(step: str, seat: int, results: tuple[Result, ...]) -> None:
            for s in by_seat[seat]:
                if s.result in results:
                    event_id = self._emit_settlement(round_id, seat, s, may_err=not flipped)
                    if step != "VOID":
                        recorded.append((step, seat, event_id))

        def vigorish(seat: int) -> None:
            event_id = self._vigorish(
                round_id, seat, by_seat[seat], stakes[seat], may_err=not flipped
            )
            if event_id is not None:
                recorded.append(("VIG", seat, event_id))

        steps: dict[str, Callable[[int], None]] = {
            "LOSE": lambda seat: settle("LOSE", seat, (Result.LOSE,)),
            "VOID": lambda seat: settle("VOID", seat, (Result.VOID, Result.PUSH)),
            "PAY": lambda seat: settle("PAY", seat, (Result.WIN,)),
            "VIG": vigorish,
        }
        for step, seat in settlement_sequence(self.rules.settlement_procedure.value, by_seat):
            steps[step](seat)
        self._departure_shown(recorded)

    def _flips(self, round_id: str, outcome: RoundOutcome) -> bool:
        """Whether the dealer settles this round as if the other side had won (the
        ``flipped_result`` fault): only a round a side won, and none whose other faults the
        flip would change the findings of (a flipped round is its dealer's only slip)."""
        return (
            outcome.winner is not Winner.TIE
            and not any(f.round_id == round_id for f in self.faults.injected)
            and self.faults.roll(FaultKind.FLIPPED_RESULT)
        )

    def _flipped_faults(
        self,
        round_id: str,
        outcome: RoundOutcome,
        stakes: dict[int, dict[Wager, Cents]],
        flipped: dict[int, tuple[Settlement, ...]],
    ) -> None:
        """The ground truth of a flipped round: a line per wager whose result or payout the
        flip changed, under the rule the cards settle it by, and one per seat whose vigorish
        the flip changed, under the vigorish rule (3.3(c), 4.10(c), 7.3(c)): charged on a
        Banker wager that lost, or not on one that won."""
        for seat, recorded in flipped.items():
            due = settle_seat(self.rules, outcome, stakes[seat])
            for right, wrong in zip(due, recorded, strict=True):
                if (right.result, right.paid_cents) == (wrong.result, wrong.paid_cents):
                    continue
                self._fault(
                    FaultKind.FLIPPED_RESULT,
                    f"{right.wager.value} wager of {money(right.stake_cents)} should "
                    f"{right.result.value.lower()} and be paid {money(right.paid_cents)}; "
                    f"settled {wrong.result.value} paying {money(wrong.paid_cents)}",
                    self._as_accepted(seat, right).rule_code,
                    round_id=round_id,
                    seat=seat,
                )
            vig_due, vig_charged = (sum(s.vig_cents for s in x) for x in (due, recorded))
            if vig_due != vig_charged:
                self._fault(
                    FaultKind.FLIPPED_RESULT,
                    f"vigorish of {money(vig_charged)} charged instead of {money(vig_due)}",
                    code_for(self.game, "vig"),
                    round_id=round_id,
                    seat=seat,
                )

    def _as_accepted(self, seat: int, s: Settlement) -> Settlement:
        """``s`` under ``CF-4.7a-ACCEPTED`` where it settles a wager put up beyond what the pit
        accepted against the bank (the ``banco_settlement`` fault's seat): any error in its
        settlement breaks the rule on the amount accepted."""
        beyond = self._put_up_beyond
        if beyond is None or beyond.seat != seat or s.wager is not Wager.PLAYER:
            return s
        return replace(s, rule_code=ACCEPTED_CODE)

    def _departure_shown(self, recorded: list[tuple[str, int, str]]) -> None:
        """The PIT fault: this table files and keeps to another settlement procedure than the
        other Punto Banco tables of its pit (3.10(c)1). It is on record from the first round
        whose recorded order the pit's procedure does not allow, where the devices first show
        the difference; a day without one shows none."""
        if self.pit_procedure is None:
            return
        problem = settlement_order_problem(self.pit_procedure.value, recorded)
        if problem is None:
            return
        self._fault(
            FaultKind.PIT,
            f"table files and settles by procedure (b){self.rules.settlement_procedure.value}, "
            f"its pit by (b){self.pit_procedure.value}: {problem}",
            code_for(self.game, "pit_procedure"),
        )
        self.pit_procedure = None  # one fault: the table-day's departure, shown

    def _emit_settlement(self, round_id: str, seat: int, s: Settlement, *, may_err: bool) -> str:
        """Record ``s``; unless ``may_err`` is false, with the dealer's slips each kind rolls
        for (a payout over or under, a losing stake returned, a collusive overpayment, a
        wager against the bank settled on more or less than accepted)."""
        s = self._as_accepted(seat, s)
        beyond = self._put_up_beyond if s.rule_code == ACCEPTED_CODE else None
        paid = s.paid_cents
        patron_id = self._patron_id(seat)
        # the weak pair's dealer slips on a share of the patron's decided wagers either way
        slipped = (
            s.result in (Result.WIN, Result.LOSE)
            and patron_id is not None
            and patron_id == self.weak_partner
            and self.weak_slips.random() < WEAK_PAIR_SHARE
        )
        overpaid = (
            may_err
            and s.result is Result.WIN
            and paid > 0
            and patron_id is not None
            and (
                slipped
                or (patron_id == self.confederate and self.faults.rng.random() < COLLUSION_SHARE)
            )
        )
        fault = (
            may_err
            and not overpaid
            and s.result is Result.WIN
            and paid > 0
            and self.faults.roll(FaultKind.PAYOUT)
        )
        # a losing stake given back as if the wager were void: money, though nothing is paid
        returned = (
            may_err
            and s.result is Result.LOSE
            and (slipped or self.faults.roll(FaultKind.RETURNED_STAKE))
        )
        # a win settled on another amount than accepted, unless the dealer errs otherwise here
        misstated = (
            beyond if may_err and s.result is Result.WIN and not (overpaid or fault) else None
        )
        if overpaid:
            paid += collusive_overpayment(paid)
        elif fault:
            paid += self.rng.choice((-1, 1)) * max(100, paid // 10)
        elif misstated is not None:
            paid = misstated.paid_cents
        event_id = self.out.emit(
            self.dev.pit,
            "WagerSettled",
            round_id=round_id,
            seat=seat,
            patron_id=patron_id,
            wager=s.wager.value,
            outcome=(Result.VOID if returned else s.result).value,
            paid_cents=paid,
            amount_cents=s.stake_cents,
        )
        if returned:
            self._fault(
                FaultKind.WEAK_PAIR if slipped else FaultKind.RETURNED_STAKE,
                f"{s.wager.value} lost its {money(s.stake_cents)} stake, recorded VOID and "
                "returned"
                + (
                    f" by dealer {self.dealer} to patron {patron_id} (a settlement finding; the "
                    f"pair's {DEALER_PATRON_CODE} is its own line)"
                    if slipped
                    else ""
                ),
                s.rule_code,
                round_id=round_id,
                seat=seat,
                event_ids=(event_id,),
            )
        if overpaid:
            self._fault(
                FaultKind.WEAK_PAIR if slipped else FaultKind.COLLUSION,
                f"dealer {self.dealer} overpaid patron {patron_id} by "
                f"{money(paid - s.paid_cents)}: {s.wager.value} paid {money(paid)} instead of "
                f"{money(s.paid_cents)} (a payout finding; the pair's {DEALER_PATRON_CODE} is its "
                "own line)",
                s.rule_code,
                round_id=round_id,
                seat=seat,
                event_ids=(event_id,),
            )
        if fault:
            self._fault(
                FaultKind.PAYOUT,
                f"{s.wager.value} paid {money(paid)} instead of {money(s.paid_cents)}",
                s.rule_code,
                round_id=round_id,
                seat=seat,
                event_ids=(event_id,),
            )
        if misstated is not None:
            self._fault(
                FaultKind.BANCO_SETTLEMENT,
                f"{s.wager.value} of {money(misstated.put_up_cents)} put up, "
                f"{money(misstated.accepted_cents)} accepted against the bank, paid {money(paid)}",
                s.rule_code,
                round_id=round_id,
                seat=seat,
                event_ids=(event_id,),
            )
        return event_id

    def _patron_id(self, seat: int) -> str | None:
        patron = self.seated.get(seat)
        return patron.patron_id if patron else None

    def _vigorish(
        self,
        round_id: str,
        seat: int,
        settlements: tuple[Settlement, ...],
        stakes: dict[Wager, Cents],
        *,
        may_err: bool,
    ) -> str | None:
        """3.3(c)2: collect now or defer with a marker button; 4.10(c) Chemin de Fer and
        7.3(d) tie vigorish are always collected at once. The id of the event that collected
        or marked it; ``None`` when nothing was. Unless ``may_err`` is false, the
        ``vigorish`` fault may get the amount wrong."""
        due = sum(s.vig_cents for s in settlements)
        if due == 0:
            return None
        owed = due
        if may_err and self.faults.roll(FaultKind.VIGORISH):
            banker_stake = stakes.get(Wager.BANKER, 0)
            other_pct = replace(self.rules, vig_percent=9 - self.rules.vig_percent)
            other_rounding = replace(self.rules, vig_rounding=not self.rules.vig_rounding)
            candidates = [
                ("missed", 0),
                ("wrong percentage", vigorish_on_win(other_pct, banker_stake)),
            ]
            if code_for(self.game, "vig_rounding") != code_for(self.game, "vig"):
                # Chemin de Fer's rounding is part of its one vigorish rule (4.10(c)).
                candidates.append(("wrong rounding", vigorish_on_win(other_rounding, banker_stake)))
            detail, owed = self.rng.choice(candidates)
            # The replay names the rule the amount breaks, whatever the dealer's slip was.
            subject = "vig_rounding" if rounding_error(self.rules, banker_stake, owed) else "vig"
            tie_vig = any(s.result is Result.VOID and s.vig_cents for s in settlements)
            if owed == due or (tie_vig and detail != "missed"):
                owed = due
            else:
                self._fault(
                    FaultKind.VIGORISH,
                    f"vigorish {detail}: {money(owed)} instead of {money(due)}",
                    "MB-7.3d-TIE-VIG" if tie_vig else code_for(self.game, subject),
                    round_id=round_id,
                    seat=seat,
                )
        if owed == 0:
            return None
        patron = self.seated[seat]
        tie_vig = any(s.result is Result.VOID and s.vig_cents for s in settlements)
        deferred = self.rules.vig_deferral and not tie_vig and self.rng.random() < 0.4
        if deferred:
            patron.deferred_vig_cents += owed
        return self.out.emit(
            self.dev.pit,
            "VigDeferred" if deferred else "VigCollected",
            round_id=round_id,
            seat=seat,
            patron_id=patron.patron_id,
            amount_cents=owed,
        )

    # ------------------------------------------------------------------ Chemin de Fer
    def _chemin_de_fer_wagers(self, round_id: str) -> dict[int, dict[Wager, Cents]]:
        """4.5-4.7: the bank by bid, the Banker's wager within limits, banco priority."""
        out, pit = self.out, self.dev.pit
        if self.banker_seat is not None and self.banker_last_wager is None:
            # A bank passed on (4.11(b)-(c)): the new Banker wagers at least the previous
            # Banker's last wager and at most twice it.
            floor = self.passed_bank_wager or self.seated[self.banker_seat].unit_cents
            wager = floor * self.rng.choice((2, 3, 4)) // 2
            self.suivi_seat = None
        elif self.banker_seat is None or self.banker_seat not in self.seated:
            bidders = self.rng.sample(sorted(self.seated), k=min(3, len(self.seated) - 1))
            bids = {s: self.seated[s].unit_cents * self.rng.choice((2, 4, 6)) for s in bidders}
            if self.passer_bidding is not None:
                (passer, passed_after), self.passer_bidding = self.passer_bidding, None
                bids.pop(passer, None)  # whoever sits there now bids only by the fault
                if passer in self.seated:
                    bids[passer] = self.seated[passer].unit_cents
                    self._fault(
                        FaultKind.OFFER_ORDER,
                        f"seat {passer} passed the bank voluntarily, nobody accepted it, and "
                        f"seat {passer} bid in the first round of the bidding",
                        "CF-4.11c-PASSER-BID",
                        round_id=passed_after,
                        seat=passer,
                    )
            for seat in sorted(bids):
                out.emit(pit, "BankBid", seat=seat, amount_cents=bids[seat], shoe_id=self.shoe_id)
            self.banker_seat = banker_by_bid(bids)
            wager = bids[self.banker_seat]
            self.suivi_seat = None
        else:
            assert self.banker_last_wager is not None
            wager = self.banker_last_wager * self.rng.choice((2, 2, 2, 2, 3, 4)) // 2
        wager = min(wager, self.rules.max_wager_cents)
        if self.banker_last_wager is not None and wager < self.banker_last_wager:
            wager = self.banker_last_wager
        banker = self.banker_seat
        out.emit(pit, "BankerWager", round_id=round_id, seat=banker, amount_cents=wager)
        others = [s for s in sorted(self.seated) if s != banker]
        calls = self._banco_calls(others)
        for call in calls:
            out.emit(pit, "BancoCalled", round_id=round_id, seat=call.seat, call=call.kind.value)
        offers = [BancoOffer(c.seat, c.kind, wager) for c in calls]
        owed = banco_priority(banker, calls, self.suivi_seat)
        passed_over = (
            owed if owed is not None and self.faults.roll(FaultKind.BANCO_PRIORITY) else None
        )
        if passed_over is not None:
            # The dealer passes over the call 4.7(b)-(c) owes the bank: for another caller's,
            # or, with no other caller, for partial wagers (4.7(d)).
            instead = [o for o in offers if o.seat != passed_over.seat]
            offers = [self.rng.choice(instead)] if instead else self._partial_offers(others, wager)
        elif not calls:
            offers = self._partial_offers(others, wager)
        coverage = self._cover(banker, wager, offers)
        if passed_over is not None:
            self._banco_priority_fault(round_id, banker, calls, coverage)
        elif not calls:
            coverage = self._pass_over_a_partial(round_id, banker, wager, offers, coverage)
        coverage = self._plan_late_acceptance(banker, coverage)
        for offer in coverage.accepted:
            out.emit(
                pit,
                "PlayerBancoWager",
                round_id=round_id,
                seat=offer.seat,
                action=offer.kind.value,
                amount_cents=offer.amount_cents,
            )
        if coverage.uncovered_cents:
            out.emit(
                pit,
                "PlayerBancoWager",
                round_id=round_id,
                seat=banker,
                action="BANK_UNCOVERED_WITHDRAWN",
                amount_cents=coverage.uncovered_cents,
            )
        covered = wager - coverage.uncovered_cents
        self.banker_last_wager = wager
        self._covering = coverage
        stakes: dict[int, dict[Wager, Cents]] = {banker: {Wager.BANKER: covered}}
        if coverage.uncovered_cents and self.faults.roll(FaultKind.BANK):
            stakes[banker][Wager.BANKER] = wager
            self._fault(
                FaultKind.BANK,
                f"Banker's wager recorded and settled as the whole bank of {money(wager)}; only "
                f"{money(covered)} was covered",
                "CF-4.7e-UNCOVERED",
                round_id=round_id,
                seat=banker,
            )
        for offer in coverage.accepted:
            stakes[offer.seat] = {Wager.PLAYER: offer.amount_cents}
        if self._accepted_late is not None:
            late = self._accepted_late
            stakes[late.seat] = {Wager.PLAYER: late.amount_cents}
        self._put_up_beyond = self._plan_put_up_beyond(coverage)
        beyond = self._put_up_beyond
        placed = {seat: dict(wagers) for seat, wagers in stakes.items()}
        if beyond is not None:
            placed[beyond.seat][Wager.PLAYER] = beyond.put_up_cents
        for seat, wagers in sorted(placed.items()):
            for w, amount in wagers.items():
                out.emit(
                    self.dev.bets,
                    "WagerPlaced",
                    round_id=round_id,
                    seat=seat,
                    patron_id=self.seated[seat].patron_id,
                    wager=w.value,
                    amount_cents=amount,
                )
        return stakes

    def _cover(self, banker: int, wager: Cents, offers: list[BancoOffer]) -> Coverage:
        """The wagers against the Banker that stand (4.7(a)-(e)) among ``offers``."""
        coverage = cover_bank(banker, wager, offers, self.suivi_seat)
        while short := [
            o for o in coverage.accepted if o.amount_cents < self.rules.min_wager_cents
        ]:
            # 8.2: what is left of the bank may be less than the table minimum; nobody may wager
            # that little, so it stays uncovered and the Banker withdraws it (4.7(e)).
            offers = [o for o in offers if o.seat != short[0].seat]
            coverage = cover_bank(banker, wager, offers, self.suivi_seat)
        return coverage

    def _pass_over_a_partial(
        self,
        round_id: str,
        banker: int,
        wager: Cents,
        offers: list[BancoOffer],
        coverage: Coverage,
    ) -> Coverage:
        """4.7(d): partial wagers are offered from the Banker's immediate right
        counterclockwise until they cover the bank. Every emulated participant wagers a part
        when offered one, so an honest round has no decline before the last partial wager to
        record. The ``offer_order`` fault, where the pit records declined offers and partial
        wagers cover the whole bank, has the dealer skip a participant before the last of
        them, without a decline, and the seats after it cover the bank: the coverage taken."""
        if (
            not self.rules.records_declined_offers
            or coverage.uncovered_cents
            or len(coverage.accepted) < 2
            or not self.faults.roll(FaultKind.OFFER_ORDER)
        ):
            return coverage
        skipped = self.faults.draws(FaultKind.OFFER_ORDER).choice(coverage.accepted[:-1]).seat
        taken = self._cover(banker, wager, [o for o in offers if o.seat != skipped])
        if taken.uncovered_cents:
            return coverage  # the seats after it cannot cover the bank: nobody is left out
        self._fault(
            FaultKind.OFFER_ORDER,
            f"seat {skipped} was passed over for a part of seat {banker}'s bank of "
            f"{money(wager)}, without declining; seat(s) "
            f"{', '.join(str(o.seat) for o in taken.accepted)} covered it",
            "CF-4.7d-PARTIAL-ORDER",
            round_id=round_id,
            seat=skipped,
        )
        return taken

    def _plan_late_acceptance(self, banker: int, coverage: Coverage) -> Coverage:
        """The ``late_acceptance`` fault, when rolled for a bank that partial wagers cover in
        part: the pit accepts the last of them (counterclockwise) after "No More Bets". The
        dealer settles the hand on the wagers accepted in time (4.7(e)): the Banker withdraws
        the late one's amount with the rest, and it controls nothing (4.8(c)). The hand keeps
        as many events as without the fault. Returns the coverage in time."""
        self._accepted_late = None
        if (
            not coverage.uncovered_cents
            or len(coverage.accepted) < 2
            or not self.faults.roll(FaultKind.LATE_ACCEPTANCE)
        ):
            return coverage
        *timely, late = coverage.accepted
        self._accepted_late = late
        return Coverage(
            tuple(timely),
            coverage.uncovered_cents + late.amount_cents,
            dominant_player(banker, timely),
        )

    def _accept_late(self, round_id: str, late: BancoOffer) -> None:
        """The pit records ``late`` accepted after "No More Bets"; a fault only in a hand that
        is settled (a void hand returns it with every other wager)."""
        event_id = self.out.emit(
            self.dev.pit,
            "PlayerBancoWager",
            round_id=round_id,
            seat=late.seat,
            action=late.kind.value,
            amount_cents=late.amount_cents,
        )
        self._if_settled.append(
            self._injected(
                FaultKind.LATE_ACCEPTANCE,
                f"{late.kind.value} wager of {money(late.amount_cents)} against the Banker "
                'accepted after "No More Bets"',
                code_for(self.game, "no_more_bets"),
                round_id=round_id,
                seat=late.seat,
                event_ids=(event_id,),
            )
        )

    def _plan_put_up_beyond(self, coverage: Coverage) -> PutUpBeyondAcceptance | None:
        """The ``banco_settlement`` fault, when rolled: a participant whose wager the pit
        accepted puts up a table minimum more than accepted, and a win is settled on the amount
        put up or on a table minimum less than accepted."""
        if not coverage.accepted or not self.faults.roll(FaultKind.BANCO_SETTLEMENT):
            return None
        draws = self.faults.draws(FaultKind.BANCO_SETTLEMENT)
        offer = draws.choice(coverage.accepted)
        excess = self.rules.min_wager_cents
        accepted = offer.amount_cents
        if accepted + excess > self.rules.max_wager_cents:
            return None
        under = accepted > excess and draws.random() < 0.5
        paid = accepted - excess if under else accepted + excess
        return PutUpBeyondAcceptance(offer.seat, accepted, accepted + excess, paid)

    def _banco_calls(self, others: list[int]) -> list[BancoCall]:
        """Who announces "Banco Suivi" (4.7(b): only the participant who equaled and lost the
        Banker's previous wager does) and "Banco Seul" (4.7(c): any of the others, one to
        three of them at once)."""
        calls: list[BancoCall] = []
        if self.suivi_seat in others and self.rng.random() < 0.5:
            calls.append(BancoCall(self.suivi_seat, BancoKind.SUIVI))
        if self.rng.random() < 0.3:
            free = [s for s in others if s != self.suivi_seat]
            count = min(len(free), self.rng.choice((1, 1, 2, 3)))
            calls += [BancoCall(s, BancoKind.SEUL) for s in self.rng.sample(free, count)]
        return calls

    def _partial_offers(self, others: list[int], wager: Cents) -> list[BancoOffer]:
        """4.7(d): every participant offers to cover a part of the bank."""
        return [
            BancoOffer(
                seat,
                BancoKind.PARTIAL,
                min(self.seated[seat].unit_cents * self.rng.choice((1, 2, 3)), wager),
            )
            for seat in others
        ]

    def _banco_priority_fault(
        self, round_id: str, banker: int, calls: list[BancoCall], coverage: Coverage
    ) -> None:
        """The ground truth of a bank given past the call owed it (4.7(b)-(d))."""
        breach = priority_breach(banker, calls, self.suivi_seat, coverage.accepted)
        assert breach is not None, "a misdirected bank passes over the call owed it"
        taken = ", ".join(f"seat {o.seat} {o.kind.value}" for o in coverage.accepted)
        self._fault(
            FaultKind.BANCO_PRIORITY,
            f"seat {breach.owed.seat}'s {breach.owed.kind.value} call passed over; taken: "
            f"{taken or 'nothing'}",
            breach.rule_code,
            round_id=round_id,
            seat=breach.owed.seat,
        )

    def _pass_bank(self, outcome: RoundOutcome, round_id: str) -> None:
        """4.11(a)1, (b): the bank passes when the Banker's Hand loses; 4.7(b) banco suivi
        belongs to whoever equaled the bank and lost."""
        assert self.banker_seat is not None
        accepted = self._covering.accepted
        full = [o for o in accepted if o.kind in (BancoKind.SUIVI, BancoKind.SEUL)]
        if outcome.winner is Winner.BANKER and full:
            self.suivi_seat = full[0].seat
        elif outcome.winner is not Winner.TIE:
            self.suivi_seat = None
        if curator_must_pass(outcome) or self.rng.random() < 0.05:
            previous = self.banker_seat
            mandatory = curator_must_pass(outcome)
            # 4.11(d): a passed bank, defeated, goes on from the right of the Banker who passed
            # it voluntarily, as 4.11(b) would have sent it had it not been passed.
            order = bank_offer_order(
                previous, self.seated, self.volunteered_by if mandatory else None
            )
            to_seat = order[0] if order else None
            recorded = to_seat
            # an offer order the replay cannot tell is no place for the offer_order fault
            judged = not (mandatory and self.volunteered_unclear)
            if mandatory:
                self.volunteered_by, self.volunteered_unclear = None, False
            elif self.volunteered_by is None:
                self.volunteered_by = previous
            else:
                self.volunteered_unclear = True
            if mandatory and to_seat is not None and self.faults.roll(FaultKind.BANK):
                recorded = previous  # the pit records the pass back to the Banker who lost
                self._fault(
                    FaultKind.BANK,
                    f"the bank seat {previous} lost recorded as passed to seat {previous}",
                    "CF-4.11b-PASSED-TO",
                    seat=previous,
                )
            elif to_seat is not None:
                to_seat = recorded = self._offer_bank(round_id, previous, order, mandatory, judged)
            self.out.emit(
                self.dev.pit,
                "BankPassed",
                seat=previous,
                to_seat=recorded,
                voluntary=not mandatory,
                round_id=round_id,
            )
            self.passed_bank_wager = self.banker_last_wager
            self.banker_seat = to_seat
            self.banker_last_wager = None

    def _offer_bank(
        self, round_id: str, passer: int, order: list[int], mandatory: bool, judged: bool
    ) -> int | None:
        """Who takes the bank offered in ``order`` (4.11(b)-(d)): the first, honestly. The
        ``offer_order`` fault, where the pit records declined offers, gives it to the second,
        the first passed over without a decline; or, for a voluntary pass, has every seat
        decline it and its passer bid in the first round of the bidding (4.11(c))."""
        if (
            not self.rules.records_declined_offers
            or len(order) < 2
            or not judged
            or not self.faults.roll(FaultKind.OFFER_ORDER)
        ):
            return order[0]
        if not mandatory and self.faults.draws(FaultKind.OFFER_ORDER).random() < 0.5:
            self._decline("BANK", order, round_id=round_id, shoe_id=self.shoe_id)
            self.passer_bidding = (passer, round_id)
            return None
        self._fault(
            FaultKind.OFFER_ORDER,
            f"the bank seat {passer} gave up went to seat {order[1]}; seat {order[0]}, offered "
            "it first, was passed over without declining",
            "CF-4.11b-OFFER-ORDER",
            round_id=round_id,
            seat=order[0],
        )
        return order[1]
