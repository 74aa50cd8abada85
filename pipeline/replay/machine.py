"""The replay: one state machine per table, recomputing every round from the cards.

The recorded is never overwritten by the recomputed: both are kept side by side in the rows
this module produces, and every difference becomes a :class:`Finding` with the rule code, the
amounts in cents and the event ids that prove it.

The machine applies events to the table, shoe, round and bank state; what it checks itself
is what needs state across rounds or before a round ends:

1. shoe start: decks, card count, who cut, cut, second cutting card, burn (3.1(a),
   3.5(c)-(e));
2. deferred vigorish until collected or documented before the reshuffle or when the patron
   leaves (3.3(c)2, (c)4), and the Forms (:mod:`pipeline.replay.forms`);
3. the cutting card and "last hand" (3.8(e)), and Chemin de Fer's last hand of a shoe, the
   one the cutting card appears in (4.12(g), (j), (k)); irregularities between and during rounds
   (3.12, 4.12, 7.11), among them the Chemin de Fer Banker's own misdeals (4.12(a)-(d), (i));
4. Chemin de Fer's bank (:mod:`pipeline.replay.bank`): bid (4.5(b)), Banker's limits
   (4.6(b)), banco priority and cover (4.7), passing on a loss (4.11(a)1).

When a round ends it hands a read-only view to the registered round checks of
:mod:`pipeline.replay.checks` (the deal and the draw tables, wagers, the announcement,
settlements, vigorish, the settlement order, voids), one small function per requirement,
and keeps their flags as findings of the round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from pipeline.events.model import TableEvent
from pipeline.events.payloads import (
    CardsHandedTo,
    CuratorChanged,
    DeviceFault,
    IrregularityReported,
)
from pipeline.replay.bank import Bank
from pipeline.replay.checks import (
    BANCO_ACTIONS,
    Flag,
    Phase,
    RoundView,
    due_settlements,
    run_checks,
)
from pipeline.replay.checks.bank_passing import BankPassing
from pipeline.replay.checks.disclosed import disclosed_discards_face_down
from pipeline.replay.checks.error_cards import error_what
from pipeline.replay.checks.offers import OfferOrder
from pipeline.replay.checks.settlement import recorded_steps
from pipeline.replay.findings import Finding, Severity, money
from pipeline.replay.forms import FormControl
from pipeline.replay.pit import PracticeRecorder
from pipeline.replay.rows import (
    CardRow,
    ReplayResult,
    RoundRow,
    SettlementRow,
    TableDaySummary,
    VigRow,
    WagerRow,
)
from pipeline.replay.sequencer import FIRST_SEQ, Sequenced, missing_heads, sequence
from pipeline.replay.state import (
    CarriedCard,
    CuratorChange,
    CuratorState,
    DealtCard,
    ErrorCard,
    HandedCards,
    Irregularity,
    RoundState,
    SeatBalance,
    ShoeState,
    UnrectifiedReport,
    void_claims_insufficient_cards,
)
from pipeline.rules.cards import Card, Rank, Suit, hand_points
from pipeline.rules.codes import code_for, rule_in
from pipeline.rules.config import TableRules
from pipeline.rules.draw import Draw, player_rule
from pipeline.rules.games import Game
from pipeline.rules.irregularities import (
    ErrorCardFate,
    card_after_stay,
    disclosed_card_discards,
    dominant_player_called_card,
    face_up_in_shoe_discards,
    unauthorized_player_third_card,
    unrectified_deal,
    unrectified_outcome,
)
from pipeline.rules.outcome import RoundOutcome, outcome_of
from pipeline.rules.settlement import (
    Settlement,
    Wager,
)
from pipeline.rules.shoe import (
    burned_cards,
    cut_card_problem,
    cut_offer_problem,
    may_deal_another_round,
    shoe_problems,
    shuffle_problems,
)
from pipeline.rules.variants import variant

ERROR_CARD_SUBJECTS = {
    "PLAYER_THIRD_CARD_UNAUTHORIZED": "unauthorized_third",
    "PLAYER_EXTRA_CARD": "unauthorized_third",
    "BANKER_EXTRA_CARD": "drawn_in_error",
}
"""Irregularities reported during a round about one card dealt in error: the round goes on
with the card where the regulation sends it (3.12(a)-(b), 4.12(e)-(g), 7.11(a)-(b)). Where the
dealer deals (Punto Banco, Minibaccarat), the only card the Player's Hand can get in excess is a
third card no rule authorized (3.12(a), 7.11(a)), and a card the Banker's Hand was not entitled
to is a card drawn in error (3.12(b), 7.11(b)). Chemin de Fer's own misdeals come first
(:meth:`TableReplay._banker_misdealt`)."""

NAMED_CARD_KINDS = frozenset({"CARD_DRAWN_IN_ERROR", "CARD_DISCLOSED_IN_ERROR"})
"""Reports that may name, by its shoe position, a card already read into one of the round's
hands: it is then a card dealt in error to that hand (3.12(a)-(c), 7.11(a)-(c))."""

HAND_SUBJECTS = {"PLAYER": "unauthorized_third", "BANKER": "drawn_in_error"}
"""The rule a card dealt in error to a hand falls under, by the hand that received it."""

UNRECTIFIED_SUBJECTS = {
    "BANKER_EXTRA_CARD": "banker_extra_initial",
    "PLAYER_EXTRA_CARD": "player_extra_initial",
}
"""Chemin de Fer: an extra card reported without its shoe position. The report cannot say
which card is the excess one, so the deal cannot be rectified and 4.12(b)-(d) count the
hands (a report naming the card is rectified by 4.12(g)-(i))."""


class UnknownRulesError(LookupError):
    """A table opened under a rules id the catalog does not hold."""


class TableReplay:
    def __init__(self, table_id: str, catalog: Mapping[str, TableRules]) -> None:
        self.table_id = table_id
        self.catalog = catalog
        self.rules: TableRules | None = None
        self.posted_limits: tuple[int, int] | None = None
        """The minimum and maximum wagers the table posted when it opened, where its device
        reports them (8.2): the limits its wagers are judged by."""
        self.result = ReplayResult(table_id)
        self.findings = self.result.findings
        self.shoe: ShoeState | None = None
        self.round: RoundState | None = None
        self.incomplete: set[str] = set()
        self.deferred: dict[int, SeatBalance] = {}
        self.deferred_unknown_after: str | None = None
        """The first incomplete round of the shoe: from it on, the seats' deferred balances
        may lack events that were lost, so a finding about them cannot be confirmed; it is
        reported as such, not as a critical one, until the next shoe starts with every
        balance settled (3.3(c)2)."""
        self.seated: dict[int, str | None] = {}
        self.irregularity: Irregularity | None = None
        self.forms = FormControl(table_id, self.findings)
        self.practice = PracticeRecorder(table_id)
        """What the table practised of the rules that bind its pit (3.5(b), 3.10(c)1)."""
        self.curator = CuratorState()
        self.summary = TableDaySummary(table_id)
        self.dealer_in_force: str | None = None
        """Who deals the next round: the dealer the last RoundStarted named, else the one
        the last TableOpened named (round.avsc's ``dealer_id``)."""
        self.bank = Bank()
        """Chemin de Fer's bank (4.5-4.7, 4.11)."""
        self.bank_passing = BankPassing()
        self.offers = OfferOrder(table_id)
        """Chemin de Fer's offers of the cut, the bank and partial wagers in turn (4.4(c),
        4.7(d), 4.11(b)-(d))."""
        self.carried: CarriedCard | None = None
        self.last_batch: str | None = None
        """The two-batch shuffler's batch of the last shoe started (7.1(d)4)."""

    # ------------------------------------------------------------------ plumbing
    @property
    def game(self) -> Game:
        return self.require_rules().game

    def require_rules(self) -> TableRules:
        if self.rules is None:
            raise UnknownRulesError(
                f"table {self.table_id}: events arrived before TableOpened; the table's rules "
                "are unknown. Deliver the TableOpened event first."
            )
        return self.rules

    def find(
        self,
        subject_or_code: str,
        severity: Severity,
        message: str,
        *,
        event_ids: tuple[str, ...] = (),
        seat: int | None = None,
        expected: int | None = None,
        actual: int | None = None,
        round_id: str | None = None,
        serial: int | None = None,
        between_rounds: bool = False,
        patron_id: str | None = None,
    ) -> None:
        """Record a finding; it names the round in play unless ``round_id`` is given or the
        event that caused it happens ``between_rounds`` (forms, deferred vigorish, leaving),
        and the patron at ``seat`` unless ``patron_id`` names the one it concerns (who owed a
        deferral may have left the seat to another)."""
        code = self._code(subject_or_code)
        rnd = self.round
        self.findings.append(
            Finding(
                code,
                severity,
                self.table_id,
                message,
                shoe_id=self.shoe.shoe_id if self.shoe else None,
                round_id=round_id or (rnd.round_id if rnd and not between_rounds else None),
                seat=seat,
                patron_id=patron_id or self._patron(seat),
                serial=serial,
                expected_cents=expected,
                actual_cents=actual,
                event_ids=event_ids,
                game=self.game,
            )
        )

    def _patron(self, seat: int | None) -> str | None:
        if seat is None:
            return None
        if self.round and seat in self.round.patrons:
            return self.round.patrons[seat]
        return self.seated.get(seat)

    # ------------------------------------------------------------------ driver
    def replay(self, arrived: list[TableEvent]) -> ReplayResult:
        """The whole table-day at once: :func:`sequence`, :meth:`feed`, :meth:`finish`."""
        if not any(e.payload_type == "TableOpened" for e in arrived):
            return self.withheld(arrived)
        sequenced = sequence(arrived)
        self.incomplete = sequenced.incomplete_rounds
        self.feed(sequenced.events)
        return self.finish(sequenced)

    def withheld(self, arrived: list[TableEvent]) -> ReplayResult:
        """Half a day (or a day whose opening was lost): nothing can be checked without the
        table's rules. Say so once, naming each device whose events start past seq 1 (the
        day's head is missing: NJ-DATA-HEAD-MISSING); the day is re-derived when the opening
        arrives."""
        heads = missing_heads(arrived)
        where = "; ".join(
            f"{e.device_id} starts at seq {e.seq} ({e.seq - FIRST_SEQ} event(s) missing before "
            f"{e.payload_type} {e.event_id})"
            for e in heads
        )
        self.findings.append(
            Finding(
                "NJ-DATA-HEAD-MISSING" if heads else "NJ-DATA-GAP",
                Severity.HIGH,
                self.table_id,
                f"{len(arrived)} events arrived for table {self.table_id} but not its "
                "TableOpened event, which names the game and rules; the table-day is withheld "
                "until it arrives. "
                + (
                    f"The day's head is missing: {where}. Find and deliver the pit terminal's "
                    "opening event and the events before these, then replay the table-day."
                    if heads
                    else "Deliver the pit terminal's opening event."
                ),
                event_ids=tuple(e.event_id for e in (heads or arrived[:3])),
            )
        )
        self.result.event_count = len(arrived)
        return self.result

    def feed(self, events: list[TableEvent]) -> None:
        """Apply events in the sequencer's order; ``self.incomplete`` must already hold the
        rounds the sequencer found incomplete."""
        incomplete = self.incomplete
        for event in events:
            if incomplete and self.deferred_unknown_after is None and event.round_id in incomplete:
                self.deferred_unknown_after = event.round_id
            handler = _HANDLERS.get(event.payload_type)
            if handler is not None:
                handler(self, event)
            lost = event.round_id in incomplete
            for flag in (
                *self.offers.apply(event, lost, self.bank_passing),
                *self.bank_passing.apply(event, lost),
            ):
                self.find(
                    flag.code,
                    flag.severity,
                    flag.message,
                    event_ids=flag.event_ids,
                    seat=flag.seat,
                    round_id=flag.round_id,
                )

    def finish(self, sequenced: Sequenced) -> ReplayResult:
        """End the day (the round in play, an open irregularity, the Forms) and give the
        result: the sequencer's findings first, then the replay's."""
        self._close_round()
        self._close_irregularity(None)
        self.forms.close_day()
        self.result.findings[:0] = sequenced.findings
        self.result.event_count = len(sequenced.events)
        self.summary.duplicates = sequenced.duplicates
        self.result.forms = self.forms.rows()
        self.result.form_events = self.forms.event_rows()
        self.result.form_series = self.forms.series_rows()
        self.result.practices = list(self.practice.rows)
        self.summary.comp_vig_cents = self.forms.comp_cents()
        self.summary.findings = len(self.findings)
        self.result.summary = self.summary
        return self.result

    # ------------------------------------------------------------------ table
    def on_TableOpened(self, e: TableEvent) -> None:
        rules_id = str(e.get("rules_id"))
        if rules_id not in self.catalog:
            raise UnknownRulesError(
                f"table {self.table_id} opened under rules {rules_id!r} (event {e.event_id}), "
                f"which the rule catalog does not hold; known: {sorted(self.catalog)}. Add the "
                "filed configuration to the catalog and replay again."
            )
        previous, self.rules = self.rules, self.catalog[rules_id]
        if self.rules.game.value != e.get("game"):
            raise UnknownRulesError(
                f"table {self.table_id}: TableOpened says game {e.get('game')} but rules "
                f"{rules_id!r} are for {self.rules.game.value} (event {e.event_id})"
            )
        if previous is not None and _vigorish_of(previous) != _vigorish_of(self.rules):
            self.find(
                "vig_one_rate",
                Severity.HIGH,
                f"Table {self.table_id} reopened under rules {rules_id!r} charging "
                f"{_vigorish_of(self.rules)} after {previous.rules_id!r} charging "
                f"{_vigorish_of(previous)} the same gaming day (event {e.event_id}); one "
                f"vigorish applies to all players at a table ({self._citation('vig_one_rate')}). "
                "Keep the table's filed vigorish for the day.",
                event_ids=(e.event_id,),
                between_rounds=True,
            )
        self._posted_limits(e)
        self.offers.records_declines = self.rules.records_declined_offers
        self.summary.rules_id = rules_id
        self.summary.game = self.rules.game.value
        self.summary.pit = str(e.get("pit"))
        self.summary.location = str(e.get("location"))
        self.summary.gaming_date = e.get("gaming_date")
        self.summary.dealer_id = e.get("dealer_id")
        self.dealer_in_force = self.summary.dealer_id
        self.forms.game = self.rules.game
        self.forms.location = self.summary.location
        self.forms.gaming_date = self.summary.gaming_date
        self.forms.pit = self.summary.pit
        self.practice.table_opened(e.event_id, self.summary.pit)

    def _posted_limits(self, e: TableEvent) -> None:
        """8.2: the limits a table posts are those filed for it. A limit the device does not
        report is the filed one; a device that reports neither leaves the filed ones."""
        rules = self.require_rules()
        filed = (rules.min_wager_cents, rules.max_wager_cents)
        low, high = e.get("min_wager_cents"), e.get("max_wager_cents")
        if low is None and high is None:
            self.posted_limits = None
            return
        posted = (
            int(low) if low is not None else filed[0],
            int(high) if high is not None else filed[1],
        )
        self.posted_limits = posted
        if posted == filed:
            return
        code = "NJ-8.2-POSTED-LIMITS"
        self.find(
            code,
            Severity.MEDIUM,
            f"Table {self.table_id} opened posting wagers of {money(posted[0])} to "
            f"{money(posted[1])}, but rules {rules.rules_id!r} file {money(filed[0])} to "
            f"{money(filed[1])} for it ({self._citation(code)}). Post the filed limits, or file "
            "the ones posted; its wagers are judged by the limits posted.",
            event_ids=(e.event_id,),
            between_rounds=True,
        )

    def on_TableClosed(self, e: TableEvent) -> None:
        self._close_round()
        for seat in sorted(self.deferred):
            self._deadline(seat, "the table closed", e)

    def on_DeviceFault(self, e: TableEvent) -> None:
        """No rule of 19:47 governs the devices, and what a fault loses, repeats or reorders
        the sequencer finds by seq; but a fault a device reports and recovers from (a card
        read twice, a jam) leaves no gap, so the round it names is flagged for review."""
        fault = e.payload_as(DeviceFault)
        self.find(
            "NJ-DATA-DEVICE-FAULT",
            Severity.LOW,
            f"Device {e.device_id} reported fault {fault.code} ({fault.message}) "
            + (f"during round {fault.round_id}" if fault.round_id else "between rounds")
            + f" at seq {e.seq}: check the events it sent around then against the table's "
            "surveillance record.",
            event_ids=(e.event_id,),
            round_id=fault.round_id,
            between_rounds=fault.round_id is None,
        )

    def on_CuratorChanged(self, e: TableEvent) -> None:
        """3.6(b)-(d), 3.11: the shoe changed hands. :mod:`pipeline.replay.checks.curator`
        reads the change when the round in play (or the next one) closes."""
        change = e.payload_as(CuratorChanged)
        curator = self.curator
        curator.changes.append(
            CuratorChange(
                e.event_id,
                change.round_id,
                curator.seat,
                curator.known,
                tuple(change.declined),
                change.seat,
                tuple(sorted(self.seated)),
            )
        )
        curator.known, curator.seat = True, change.seat

    def on_PatronSeated(self, e: TableEvent) -> None:
        seat, patron = int(e.get("seat")), e.get("patron_id")
        balance = self.deferred.get(seat)
        debtor = balance.patron_id if balance is not None else None
        if None not in (debtor, patron) and debtor != patron:  # the debtor left, unrecorded
            why = f"patron {patron} took the seat ({debtor}, who owed it, had left)"
            self._deadline(seat, why, e)
        self.seated[seat] = patron

    def on_PatronLeft(self, e: TableEvent) -> None:
        seat = int(e.get("seat"))
        self._deadline(seat, "the patron left", e)
        self.seated.pop(seat, None)

    def on_PatronRequest(self, e: TableEvent) -> None:
        """A patron's request about the cards or the shoe (schema id 6) breaks no rule of one
        round: granting it is the casino's to decide. What it prepares shows across the days a
        patron plays, so the pattern stage reads the requests from the deliveries
        (:mod:`pipeline.patterns.stage`) and the replay has nothing to do with them."""

    def on_OfferDeclined(self, e: TableEvent) -> None:
        """An offer of the cut, a partial wager or the bank declined in turn (schema id 7)
        changes nothing in a round: :class:`~pipeline.replay.checks.offers.OfferOrder` reads it
        with the event that records who accepted (4.4(c), 4.11(b)-(c)), or when the round of
        the partial wagers ends (4.7(d))."""

    # ------------------------------------------------------------------ shoe
    def on_ShoeStarted(self, e: TableEvent) -> None:
        self._close_round()
        previous_batch = self.last_batch
        if self.shoe is not None:  # no ShoeEnded: the previous shoe was completed all the same
            for seat in sorted(self.deferred):
                self._deadline(
                    seat, f"shoe {self.shoe.shoe_id} gave way to {e.get('shoe_id')} unended", e
                )
        self.deferred_unknown_after = None
        rules = self.require_rules()
        self.shoe = ShoeState(str(e.get("shoe_id")), e, int(e.get("cards_in_shoe")))
        self.summary.shoes += 1
        batch, self.last_batch = e.get("batch"), e.get("batch")
        for problem in shoe_problems(
            rules,
            int(e.get("decks")),
            int(e.get("cards_in_shoe")),
            int(e.get("cut_position")),
            int(e.get("cut_card_from_back")),
        ) + shuffle_problems(rules, str(e.get("shuffle_method")), batch, previous_batch):
            self.find(
                problem.rule_code,
                Severity.MEDIUM,
                f"Shoe {self.shoe.shoe_id}: {problem.message}.",
                event_ids=(e.event_id,),
            )
        self._check_cut_offered(self.shoe, e)
        self.practice.shoe_started(
            rules, self.shoe.shoe_id, e.event_id, str(e.get("shuffle_method"))
        )

    def _check_cut_offered(self, shoe: ShoeState, e: TableEvent) -> None:
        """3.5(c), 4.4(c), 7.5(d): the cut is offered to the participants seated
        (:func:`~pipeline.rules.shoe.cut_offer_problem`)."""
        cut_by = e.get("cut_by_seat")
        problem = cut_offer_problem(None if cut_by is None else int(cut_by), self.seated)
        if problem is None:
            return
        self.find(
            "cut_offered",
            Severity.MEDIUM,
            f"Shoe {shoe.shoe_id} (event {e.event_id}): {problem} "
            f"({self._citation('cut_offered')}). Check who cut the cards against surveillance; "
            "if a participant did sit there, the pit terminal lost the seating: deliver its "
            "PatronSeated and replay the table-day.",
            seat=int(cut_by),
            event_ids=(e.event_id,),
        )

    def on_ShoeEnded(self, e: TableEvent) -> None:
        self._close_round()
        self._close_irregularity(None)
        for seat in sorted(self.deferred):
            self._deadline(seat, "the shoe was completed", e)
        if self.shoe is not None and self.shoe.cut_card_round is None:
            self._check_cut_card(self.shoe, None, e)
        self.shoe = None
        # A card kept for "the next hand of play" goes into the reshuffle with the shoe: the
        # next shoe opens with its own cards (3.12(a)-(b); 4.12(g) once the cutting card is out).
        self.carried = None

    def on_CutCardReached(self, e: TableEvent) -> None:
        if self.shoe:
            self.shoe.cut_card_round = e.round_id
            self.shoe.cut_card_event = e.event_id
            self._check_cut_card(self.shoe, int(e.get("position")), e)
        if self.round:
            self.round.cut_card = e

    def _check_cut_card(self, shoe: ShoeState, recorded_at: int | None, e: TableEvent) -> None:
        started = shoe.started
        problem = cut_card_problem(
            shoe.cards_in_shoe,
            int(started.get("cut_card_from_back")),
            recorded_at,
            shoe.last_hand_position,
        )
        if problem:
            self.find(
                "cut_card_seen",
                Severity.MEDIUM,
                f"Shoe {shoe.shoe_id}: {problem} ({self._citation('cut_card_seen')}). Check the "
                "shoe's cutting card reading and the hands dealt after it.",
                event_ids=(started.event_id, e.event_id),
                between_rounds=recorded_at is None,
            )

    def on_LastHandAnnounced(self, e: TableEvent) -> None:
        if not variant(self.game).last_hand:
            return  # Chemin de Fer: 4.12(g), (j), (k) know the cutting card, not "last hand"
        if self.shoe:
            self.shoe.last_hand_announced = True
        if self.shoe and self.shoe.cut_card_round != e.round_id:
            self.find(
                "last_hand",
                Severity.MEDIUM,
                f'"Last hand" was announced after round {e.round_id} but the cutting '
                f"card appeared in {self.shoe.cut_card_round or 'no round'} "
                f"({self._citation('last_hand')}).",
                event_ids=(e.event_id,),
            )

    def on_CardDealt(self, e: TableEvent) -> None:
        card = Card(Rank[str(e.get("rank"))], Suit[str(e.get("suit"))])
        dealt = DealtCard(
            card,
            str(e.get("hand")),
            int(e.get("position")),
            e.event_id,
            e.get("face_up") is not False,
        )
        if self.shoe is not None:
            self.shoe.last_position = max(self.shoe.last_position, dealt.position)
        if dealt.hand == "BURN":
            if self.shoe is not None:
                self.shoe.burn_cards.append(dealt)
            return
        self._check_burn()
        rnd = self.round
        if rnd is not None and rnd.error_card is not None and self._after_error_card(rnd, dealt):
            return
        if dealt.hand == "DISCARD":
            if self.irregularity is not None:
                self.irregularity.discards.append(dealt)
            return
        if rnd is None or rnd.round_id != e.round_id:
            self._unattributable(e)
            return
        if self._irregularity_counted_by(rnd):
            self._close_irregularity(None)
        carried = self.carried
        if carried is not None and not rnd.simulated and carried.report.round_id != rnd.round_id:
            self._check_carried(carried, dealt)
        rnd.cards.append(dealt)
        if self.shoe is not None:
            self.shoe.last_hand_position = max(self.shoe.last_hand_position, dealt.position)
        if rnd.first_card is None:
            rnd.first_card = e.event_id

    def _irregularity_counted_by(self, rnd: RoundState) -> bool:
        """Whether the next card dealt to ``rnd``'s hands ends the discards of the open
        irregularity (3.12(c)-(d), 4.12(h), (j), 7.11(c)-(d)): not in a simulated round, which
        resolves it, nor while a card dealt in error this round waits on its procedure, nor for
        a card disclosed in this round under (c)3, whose simulated round follows this one."""
        irr = self.irregularity
        if irr is None or rnd.simulated or rnd.error_card is not None:
            return False
        return irr.expected_extra is not None or irr.event.round_id != rnd.round_id

    def _check_carried(self, carried: CarriedCard, first: DealtCard) -> None:
        """3.12(a)-(b), 4.12(g), 7.11(a)-(b): the card dealt or drawn in error (undisclosed)
        opens the next hand of play."""
        self.carried = None
        if first.position != carried.position:
            code = code_for(self.game, carried.subject)
            self.find(
                code,
                Severity.MEDIUM,
                f"The card {error_what(carried.report)} at shoe position "
                f"{carried.position} was not the first card of the next hand (it began at "
                f"position {first.position}); {self._citation(code)}.",
                event_ids=(carried.report.event_id, first.event_id),
            )

    def _after_error_card(self, rnd: RoundState, dealt: DealtCard) -> bool:
        """After a card dealt in error became the Banker's third card (3.12(a), 4.12(e)-(f),
        7.11(a)): the Banker takes no other card and the card is not discarded. Returns whether
        ``dealt`` is consumed here (the shoe reading the moved card again, or a card the
        regulation does not let into the round)."""
        error = rnd.error_card
        assert error is not None
        if error.fate is not ErrorCardFate.BANKER_THIRD_CARD:
            return False
        if dealt.position == error.card.position and dealt.hand == "BANKER":
            return True  # the card read again where the dealer placed it
        if dealt.hand == "BANKER":
            where = f"the Banker's Hand took another card ({dealt.card}) instead"
        elif dealt.hand == "DISCARD" and dealt.position == error.card.position:
            where = "it was discarded instead"
        else:
            return False
        code = code_for(self.game, error.subject)
        self.find(
            code,
            Severity.HIGH,
            f"The card {error_what(error.report)} ({error.card.card}, position "
            f"{error.card.position}) becomes the Banker's third card, because the Banker's "
            f"Hand must draw ({self._citation(code)}); {where}.",
            event_ids=(error.report.event_id, error.card.event_id, dealt.event_id),
        )
        return True

    def _unattributable(self, e: TableEvent) -> None:
        """An event of a round that is not the one in play (its RoundStarted was lost or came
        out of place): never guessed into another round; that round is incomplete."""
        round_id = e.round_id
        if round_id is None or round_id in self.incomplete:
            return
        self.incomplete.add(round_id)
        self.findings.append(
            Finding(
                "NJ-DATA-GAP",
                Severity.HIGH,
                self.table_id,
                f"{e.payload_type} for round {round_id} arrived while "
                f"{self.round.round_id if self.round else 'no round'} was in play; round "
                f"{round_id} is marked incomplete and its checks are withheld.",
                shoe_id=self.shoe.shoe_id if self.shoe else None,
                round_id=round_id,
                event_ids=(e.event_id,),
            )
        )

    def _check_burn(self) -> None:
        """3.5(e): the first card and as many more as its burn count go to the discards."""
        shoe = self.shoe
        if shoe is None or shoe.burn_checked:
            return
        shoe.burn_checked = True
        if not shoe.burn_cards:
            self.find(
                "burn",
                Severity.MEDIUM,
                f"Shoe {shoe.shoe_id}: no card was burned before play ({self._citation('burn')}).",
                event_ids=(shoe.started.event_id,),
            )
            return
        first = shoe.burn_cards[0].card
        expected = burned_cards(first.rank)
        actual = len(shoe.burn_cards)
        if actual != expected:
            self.find(
                "burn",
                Severity.MEDIUM,
                f"Shoe {shoe.shoe_id}: the first card was {first}, so {expected} cards "
                f"are burned (it and {expected - 1} more, tens and faces count ten, "
                f"{self._citation('burn')}); {actual} were burned.",
                event_ids=tuple(c.event_id for c in shoe.burn_cards),
            )

    # ------------------------------------------------------------------ irregularities
    def on_IrregularityReported(self, e: TableEvent) -> None:
        report = e.payload_as(IrregularityReported)
        rnd = self.round if self.round is not None and self.round.round_id == e.round_id else None
        if rnd is not None:
            self._irregularity_in_round(rnd, e, report)
            return
        self._close_round()
        self._close_irregularity(None)
        self._card_outside_hands(e, report)

    def _irregularity_in_round(
        self, rnd: RoundState, e: TableEvent, report: IrregularityReported
    ) -> None:
        """An irregularity reported during the round in play. No rule of 3.12, 4.12 or 7.11
        ends a round early, so the round goes on and is judged when it closes:

        - the Chemin de Fer Banker's own misdeal, 4.12(a)-(d) (:meth:`_banker_misdealt`);
        - a card dealt in error to a hand, named by the report or by its position:
          3.12(a)-(c), 4.12(e)-(i), 7.11(a)-(c) (:meth:`_error_card`);
        - a card drawn in error, disclosed or found face up that never reached a hand: the
          next hand's first card or the discard procedure, 3.12(b)-(d), 4.12(g)-(j),
          7.11(b)-(d) (:meth:`_card_outside_hands`); a card found face up in Chemin de Fer's
          last hand of a shoe also voids the hand, 4.12(j) (checks.last_hand);
        - insufficient cards: the round is void, 3.12(e), 4.12(k) (7.11 as 3.12); whether the
          pit voided it is judged when it closes (checks.voids);
        - anything else (Punto Banco's and Minibaccarat's dealer dealing the hands in the
          wrong order, which no irregularity rule voids, or OTHER): the cards stand and the
          deal checks of 3.7-3.9, 7.7-7.9 judge them.
        """
        kind = report.kind
        if self._banker_misdealt(rnd, e, report):
            return
        if kind in ERROR_CARD_SUBJECTS:
            hand = "PLAYER" if kind.startswith("PLAYER") else "BANKER"
            self._error_card(rnd, e, report, ERROR_CARD_SUBJECTS[kind], hand)
            return
        named = None
        if kind in NAMED_CARD_KINDS and report.position is not None:
            named = next((c for c in rnd.cards if c.position == report.position), None)
        if named is not None:
            self._error_card(rnd, e, report, HAND_SUBJECTS[named.hand], named.hand)
        elif kind == "INSUFFICIENT_CARDS":
            rnd.insufficient_reported = e
        else:
            if kind == "CARD_FACE_UP_IN_SHOE":
                rnd.face_up_in_shoe = e  # a Chemin de Fer last hand is void (checks.last_hand)
            self._card_outside_hands(e, report)

    def _card_outside_hands(self, e: TableEvent, report: IrregularityReported) -> None:
        """A card drawn in error, disclosed or found face up that is in no hand: an undisclosed
        card drawn in error opens the next hand (3.12(b), 4.12(g), 7.11(b)); a disclosed one
        and a card found face up in the shoe go to the discard rack with as many more as the
        procedure says (3.12(c)-(d), 4.12(h), (j), 7.11(c)-(d)), counted at the next card
        dealt to a hand (or, under (c)3, by the simulated round that must follow)."""
        rules = self.require_rules()
        if report.kind == "CARD_DRAWN_IN_ERROR" and report.position is not None:
            self.carried = CarriedCard(e, "drawn_in_error", report.position)
            return
        if report.card_rank is None:
            return
        rank = Rank[report.card_rank]
        if report.kind == "CARD_FACE_UP_IN_SHOE":
            expected: int | None = face_up_in_shoe_discards(rank)
        elif report.kind == "CARD_DISCLOSED_IN_ERROR":
            expected = disclosed_card_discards(rules, rank)
            self._check_reported_procedure(rules, e, report)
        else:
            return
        self._close_irregularity(None)
        self.irregularity = Irregularity(e, expected)

    def _check_reported_procedure(
        self, rules: TableRules, e: TableEvent, report: IrregularityReported
    ) -> None:
        reported = report.procedure
        if reported is not None and reported != rules.disclosed_card_procedure.name:
            self.find(
                "disclosed",
                Severity.MEDIUM,
                f"The dealer followed {reported} but the casino pre-selected "
                f"{rules.disclosed_card_procedure.name} for a disclosed card.",
                event_ids=(e.event_id,),
            )

    def _banker_misdealt(
        self, rnd: RoundState, e: TableEvent, report: IrregularityReported
    ) -> bool:
        """Chemin de Fer, where the Banker deals (4.8(d)): a report of his own misdeal during
        the round. Wrong order: the hand is annulled (4.12(a)), judged when it closes. An
        extra card the report does not name: 4.12(b)-(d) count the hands. An extra card to
        the Player's Hand the report names: the deal is rectified, the card is one drawn in
        error (4.12(g)-(h)). Returns whether the report was one of these."""
        if not variant(self.game).participant_bank:
            return False
        kind = report.kind
        if kind == "BANKER_WRONG_ORDER":
            rnd.annulled = e
            return True
        if kind in UNRECTIFIED_SUBJECTS and report.position is None:
            self._unrectified(rnd, e, kind)
            return True
        if kind == "PLAYER_EXTRA_CARD":
            self._error_card(rnd, e, report, "drawn_in_error", "PLAYER")
            return True
        return False

    def _unrectified(self, rnd: RoundState, e: TableEvent, kind: str) -> None:
        """Chemin de Fer 4.12(b)-(d): an extra card the Banker dealt, reported without naming
        it. Which rule counts the hands depends on the cards each hand holds at the report."""
        player = sum(1 for c in rnd.cards if c.hand == "PLAYER")
        banker = sum(1 for c in rnd.cards if c.hand == "BANKER")
        deal = unrectified_deal(kind == "BANKER_EXTRA_CARD", player, banker)
        if deal is not None:
            rnd.unrectified = UnrectifiedReport(e, deal)
            return
        if rnd.round_id in self.incomplete:
            return  # a card of the round was lost (NJ-DATA-GAP): the hands it held are unknown
        subject = UNRECTIFIED_SUBJECTS[kind]
        self.find(
            subject,
            Severity.MEDIUM,
            f"An extra card ({kind}) was reported in round {rnd.round_id} when the Player's "
            f"Hand held {player} cards and the Banker's {banker}; none of "
            f"{self._citation('banker_extra_initial')}, (c) or (d) describes that deal, so the "
            "report cannot be applied. Correct the report or the card reading.",
            event_ids=(e.event_id,),
        )

    def _error_card(
        self,
        rnd: RoundState,
        e: TableEvent,
        report: IrregularityReported,
        subject: str,
        hand: str,
    ) -> None:
        """A card dealt in error during the round: the round goes on, with the card where the
        regulation sends it.

        - An unauthorized third card to the Player's Hand (3.12(a), 7.11(a)), or in Chemin de
          Fer a card to the Dominant Player after "Stay" (4.12(e)): the Banker's third card if
          the Banker's Hand must draw (in Chemin de Fer also when it may), else the next
          hand's first card, or if disclosed the pre-selected procedure of 3.12(c), 4.12(h),
          7.11(c).
        - A card the Banker's Hand was not entitled to is a card drawn in error (3.12(b),
          4.12(g), 7.11(b)): the next hand's first card, or if disclosed the (c)/(h) procedure;
          in Chemin de Fer, the card the Dominant Player had called for is his (4.12(i)).

        The announcement and settlements are then checked against the corrected hands.
        """
        rules = self.require_rules()
        position = report.position
        dealt = next((c for c in reversed(rnd.cards) if c.position == position), None)
        player = [c for c in rnd.cards if c.hand == "PLAYER"]
        banker = [c for c in rnd.cards if c.hand == "BANKER"]
        if self._banker_took_player_card(rnd, e, dealt, player, banker):
            return
        code = code_for(self.game, subject)
        what = error_what(e)
        expected_hand = player if hand == "PLAYER" else banker
        if dealt is None or len(expected_hand) < 3 or dealt is not expected_hand[-1]:
            self.find(
                code,
                Severity.MEDIUM,
                f"A card {what} was reported at shoe position {position}, but round "
                f"{rnd.round_id} has no such card there; the report cannot be applied "
                f"({self._citation(code)}). Correct the report or the card reading.",
                event_ids=(e.event_id,),
            )
            return
        p2 = hand_points(c.card for c in player[:2])
        b2 = hand_points(c.card for c in banker[:2])
        if subject == "unauthorized_third":
            if player_rule(self.game, p2, b2) is Draw.DRAW:
                self.find(
                    code,
                    Severity.MEDIUM,
                    f"The Player's Hand with {p2} (Banker {b2}) was entitled to the card at "
                    f"position {position}, reported as {what} "
                    f"({self._citation(code)}); it stays the Player's card. Correct the report.",
                    event_ids=(e.event_id, dealt.event_id),
                )
                return
            if variant(self.game).participant_bank:
                fate = card_after_stay(p2, b2, dealer_called_card=False)
            else:
                fate = unauthorized_player_third_card(rules, p2, b2, dealt.face_up)
        else:
            fate = (
                ErrorCardFate.DISCLOSED_PROCEDURE
                if dealt.face_up
                else ErrorCardFate.NEXT_HAND_FIRST_CARD
            )
        rnd.error_card = ErrorCard(e, dealt, fate, subject, tuple(rnd.cards))
        rnd.cards.remove(dealt)
        if fate is ErrorCardFate.BANKER_THIRD_CARD:
            rnd.cards.append(replace(dealt, hand="BANKER"))
        elif fate is ErrorCardFate.NEXT_HAND_FIRST_CARD:
            self.carried = CarriedCard(e, subject, dealt.position)
        else:
            self._check_reported_procedure(rules, e, report)
            self.irregularity = Irregularity(e, disclosed_card_discards(rules, dealt.card.rank))

    def _banker_took_player_card(
        self,
        rnd: RoundState,
        e: TableEvent,
        dealt: DealtCard | None,
        player: list[DealtCard],
        banker: list[DealtCard],
    ) -> bool:
        """Chemin de Fer 4.12(i): the Banker took for his hand the card the Dominant Player
        had called for (the fifth card, the Player holding two and obliged to draw). The
        card is the Player's; the Banker then draws or stays by Table 3 against it. Returns
        whether the report is this case, applied."""
        if not variant(self.game).participant_bank or dealt is None:
            return False
        if len(player) != 2 or len(banker) != 3 or dealt is not banker[-1]:
            return False
        p2 = hand_points(c.card for c in player)
        b2 = hand_points(c.card for c in banker[:2])
        if not dominant_player_called_card(p2, b2):
            return False
        rnd.error_card = ErrorCard(
            e, dealt, ErrorCardFate.PLAYER_THIRD_CARD, "banker_took_player_card", tuple(rnd.cards)
        )
        rnd.cards.remove(dealt)
        rnd.cards.append(replace(dealt, hand="PLAYER"))
        return True

    def _close_irregularity(self, simulated_round: RoundState | None) -> None:
        """3.12(c)-(d): count what went to the discard rack after the irregular card."""
        irr = self.irregularity
        if irr is None:
            return
        self.irregularity = None
        kind = str(irr.event.get("kind"))
        subject = "face_up" if kind == "CARD_FACE_UP_IN_SHOE" else "disclosed"
        ids = (irr.event.event_id, *tuple(c.event_id for c in irr.discards))
        if irr.expected_extra is None:  # (c)3: a simulated round must follow
            if simulated_round is None:
                self.find(
                    subject,
                    Severity.MEDIUM,
                    "The pre-selected procedure is a simulated round with the disclosed "
                    f"card ({self._citation(subject)}3); none was dealt.",
                    event_ids=ids,
                )
            return
        for flag in disclosed_discards_face_down(self.require_rules(), irr):
            self.find(flag.code, flag.severity, flag.message, event_ids=flag.event_ids)
        actual = len(irr.discards) - 1  # the irregular card itself is discarded too
        if actual != irr.expected_extra:
            rank = irr.event.get("card_rank")
            self.find(
                subject,
                Severity.MEDIUM,
                f"A {kind.replace('_', ' ').lower()} ({rank}) goes to the discard rack with "
                f"{irr.expected_extra} more cards "
                f"({self._citation(subject)}); {actual} more were "
                "discarded.",
                event_ids=ids,
            )

    # ------------------------------------------------------------------ rounds
    def on_RoundStarted(self, e: TableEvent) -> None:
        self._close_round()
        self._check_burn()
        simulated = bool(e.get("simulated"))
        disclosed = None
        if simulated:
            irr = self.irregularity
            self.irregularity = None
            if irr is not None and irr.expected_extra is not None:
                self.irregularity = irr
                self._close_irregularity(None)
            elif irr is not None:
                disclosed = irr.event
        else:
            self._close_irregularity(None)
        if self.shoe is not None and self.shoe.cut_card_round and not simulated:
            self._after_the_cutting_card(self.shoe, e)
        named = e.get("dealer_id")
        if named is not None:  # round.avsc: a RoundStarted names the dealer only on a change
            self.dealer_in_force = str(named)
        self.round = RoundState(
            str(e.round_id),
            str(e.get("shoe_id")),
            int(e.get("round_number")),
            simulated,
            e.event_id,
            e.occurred_at,
            dealer_id=self.dealer_in_force,
            disclosed=disclosed,
        )

    def _after_the_cutting_card(self, shoe: ShoeState, e: TableEvent) -> None:
        """A round starting once the cutting card appeared in ``shoe``: "last hand" was
        announced first where the game has one (3.8(e)), and the shoe still has a hand to deal
        (3.8(e) one after the hand of the cutting card, 4.12(g), (j), (k) none). A shoe whose
        round was voided for insufficient cards is the void round's finding
        (checks.voided), not this one."""
        announces = variant(self.game).last_hand
        if announces and shoe.rounds_after_cut == 0 and not shoe.last_hand_announced:
            self.find(
                "last_hand",
                Severity.MEDIUM,
                f'The cutting card appeared in {shoe.cut_card_round} but "last hand" '
                f"was not announced before the next round ({self._citation('last_hand')}).",
                event_ids=(e.event_id,),
                round_id=shoe.cut_card_round,
            )
        dealt_past = not may_deal_another_round(self.game, shoe.rounds_after_cut)
        shoe.rounds_after_cut += 1
        if not dealt_past or shoe.voided_for_insufficient is not None:
            return
        last = (
            f'the "last hand" that followed the cutting card in {shoe.cut_card_round}'
            if announces
            else f"round {shoe.cut_card_round}, in which the cutting card appeared (event "
            f"{shoe.cut_card_event}), the shoe's last hand"
        )
        self.find(
            "hand_after_last",
            Severity.MEDIUM,
            f"Round {e.round_id} was dealt from shoe {shoe.shoe_id} after {last} "
            f"({self._citation('hand_after_last')}). No hand follows the shoe's last until the "
            "cards are reshuffled: review the shoe's end with surveillance and the wagers "
            "settled on the hands dealt after it.",
            event_ids=(e.event_id,),
            round_id=e.round_id,
        )

    def on_BettingClosed(self, e: TableEvent) -> None:
        if self.round is not None:
            self.round.betting_closed = e.event_id
            if self.round.first_card is not None:
                self.round.closed_after_cards = e.event_id

    def on_WagerPlaced(self, e: TableEvent) -> None:
        rnd = self.round
        if rnd is None or rnd.round_id != e.round_id:
            return
        seat = int(e.get("seat"))
        wager = Wager[str(e.get("wager"))]
        key = (seat, wager)
        rnd.wagers[key] = rnd.wagers.get(key, 0) + int(e.get("amount_cents"))
        rnd.wager_events.setdefault(key, []).append(e.event_id)
        rnd.patrons[seat] = e.get("patron_id")
        _note_late(rnd, e)

    def on_WagerWithdrawn(self, e: TableEvent) -> None:
        rnd = self.round
        if rnd is None or rnd.round_id != e.round_id:
            return
        key = (int(e.get("seat")), Wager[str(e.get("wager"))])
        rnd.wagers[key] = rnd.wagers.get(key, 0) - int(e.get("amount_cents"))
        _note_late(rnd, e)

    def on_CardsHandedTo(self, e: TableEvent) -> None:
        """3.7(d), 7.7(c)3: a hand's cards handed to a player, kept with the wagers on both
        hands as they stand now; :mod:`pipeline.replay.checks.handed` judges it when the round
        closes. The burn and the discards are no hand a player is handed: such an event is not
        read."""
        rnd = self.round
        handed = e.payload_as(CardsHandedTo)
        if rnd is None or rnd.round_id != e.round_id or handed.hand not in ("PLAYER", "BANKER"):
            return
        stakes = {
            wager: {s: cents for (s, w), cents in rnd.wagers.items() if w is wager}
            for wager in (Wager.PLAYER, Wager.BANKER)
        }
        rnd.handed.append(
            HandedCards(
                e.event_id,
                handed.hand,
                handed.third_card,
                handed.seat,
                handed.patron_id,
                stakes[Wager.PLAYER],
                stakes[Wager.BANKER],
            )
        )

    def on_ResultAnnounced(self, e: TableEvent) -> None:
        if self.round is not None:
            self.round.announced = e

    def on_HandOption(self, e: TableEvent) -> None:
        if self.round is not None:
            self.round.options.append(e)

    def on_WagerSettled(self, e: TableEvent) -> None:
        if self.round is not None and self.round.round_id == e.round_id:
            self.round.settled.append(e)

    def on_VigCollected(self, e: TableEvent) -> None:
        self._vig(e, "COLLECTED")

    def on_VigDeferred(self, e: TableEvent) -> None:
        self._vig(e, "DEFERRED")
        seat = int(e.get("seat"))
        balance = self.deferred.get(seat)
        if balance is None or balance.cents == 0:  # a new debt: the patron who defers it
            balance = self.deferred[seat] = SeatBalance(e.get("patron_id"))
        balance.cents += int(e.get("amount_cents"))
        balance.event_ids.append(e.event_id)
        self._vig_row(e, "DEFERRED", balance.cents)

    def _vig(self, e: TableEvent, kind: str) -> None:
        if self.round is not None and self.round.round_id == e.round_id:
            self.round.vig.append(e)
        if kind == "COLLECTED":
            self.summary.vig_collected_cents += int(e.get("amount_cents"))
            self._vig_row(e, kind, self.deferred.get(int(e.get("seat")), SeatBalance(None)).cents)

    def _vig_row(self, e: TableEvent, kind: str, balance: int) -> None:
        self.result.vig_ledger.append(
            VigRow(
                self.table_id,
                self.shoe.shoe_id if self.shoe else None,
                e.round_id,
                int(e.get("seat")),
                e.get("patron_id"),
                kind,
                int(e.get("amount_cents")),
                balance,
                e.event_id,
                e.occurred_at,
            )
        )

    def on_DeferredVigCollected(self, e: TableEvent) -> None:
        seat = int(e.get("seat"))
        amount = int(e.get("amount_cents"))
        balance = self.deferred.get(seat)
        owed = balance.cents if balance else 0
        if amount > owed:
            self.find(
                "deferred_deadline",
                self._deferral_severity(),
                f"Seat {seat} paid {money(amount)} of deferred vigorish but only "
                f"{money(owed)} was marked.{self._deferral_caveat()}",
                seat=seat,
                expected=owed,
                actual=amount,
                event_ids=(*(balance.event_ids if balance else ()), e.event_id),
                between_rounds=True,
                patron_id=balance.patron_id if balance else None,
            )
        if balance:
            balance.cents = max(0, owed - amount)
            balance.event_ids.append(e.event_id)
        self.summary.vig_collected_cents += amount
        self._vig_row(e, "DEFERRED_COLLECTED", balance.cents if balance else 0)

    def on_RoundVoided(self, e: TableEvent) -> None:
        if self.round is not None:
            self.round.voided = e
        shoe = self.shoe
        insufficient = code_for(self.game, "insufficient")
        if (
            shoe is not None
            and shoe.voided_for_insufficient is None
            and void_claims_insufficient_cards(self.game, self.round, e, insufficient)
        ):
            shoe.voided_for_insufficient = e

    # ------------------------------------------------------------------ forms
    def on_FormSeriesReceived(self, e: TableEvent) -> None:
        self.forms.series(e)

    def on_CompVigFormIssued(self, e: TableEvent) -> None:
        seat = e.get("seat")
        balance = self.deferred.get(int(seat)) if seat is not None else None
        owed = balance.cents if balance is not None else 0
        documented = self.forms.issued(e, owed, self._deferral_severity())
        if balance is not None and owed:
            self._form_patron(e, balance)
            counted = min(documented, owed)
            if documented != owed:
                code = "PB-3.3c3-COMP-FORM"
                over = (
                    f" Only the {money(counted)} deferred is counted as a complimentary."
                    if documented > owed
                    else ""
                )
                self.find(
                    code,
                    self._deferral_severity(),
                    f"Form {e.get('serial')} documents {money(documented)} for seat "
                    f"{seat} but {money(owed)} of vigorish was deferred there "
                    f"({self._citation(code)}).{over}{self._deferral_caveat()}",
                    seat=int(seat),
                    expected=owed,
                    actual=documented,
                    serial=int(e.get("serial")),
                    event_ids=(*balance.event_ids, e.event_id),
                    between_rounds=True,
                    patron_id=balance.patron_id,
                )
            balance.cents = owed - counted
            balance.event_ids.append(e.event_id)
            self._vig_row(
                replace(e, fields={**e.fields, "amount_cents": counted}),
                "DOCUMENTED",
                balance.cents,
            )

    def _form_patron(self, e: TableEvent, balance: SeatBalance) -> None:
        """3.3(c)3i (7.3(c)3): the Form names the patron who owed the deferred vigorish, the
        one whose complimentary it is; a Form naming another patron at that seat credits the
        wrong patron."""
        named, owed_by = e.get("patron_id"), balance.patron_id
        if named is None or owed_by is None or named == owed_by:
            return
        code = "PB-3.3c3-COMP-FORM"
        self.find(
            code,
            Severity.HIGH,
            f"Form {e.get('serial')} names patron {named}, but the {money(balance.cents)} "
            f"deferred at seat {e.get('seat')} was owed by {owed_by} ({self._citation(code)}). "
            "Correct the Form: the complimentary is the patron's who owed the vigorish.",
            seat=int(e.get("seat")),
            serial=int(e.get("serial")),
            event_ids=(e.event_id, *balance.event_ids),
            between_rounds=True,
        )

    def on_CompVigFormVoided(self, e: TableEvent) -> None:
        self.forms.voided(e)

    def on_FormOriginalCounted(self, e: TableEvent) -> None:
        self.forms.original(e)

    def on_FormDuplicateReceived(self, e: TableEvent) -> None:
        self.forms.duplicate(e)

    # ------------------------------------------------------------------ deferred deadlines
    def _deferral_severity(self) -> Severity:
        """A deferred-vigorish difference is critical, unless events of the shoe were lost
        (then it may be theirs, and it cannot be confirmed)."""
        return Severity.CRITICAL if self.deferred_unknown_after is None else Severity.MEDIUM

    def _deferral_caveat(self) -> str:
        if self.deferred_unknown_after is None:
            return ""
        return (
            f" This cannot be confirmed: round {self.deferred_unknown_after} of this shoe lost "
            "events (NJ-DATA-GAP), which may hold the missing deferral or collection; deliver "
            "them and replay the table-day."
        )

    def _deadline(self, seat: int, why: str, e: TableEvent) -> None:
        """3.3(c)2 and (c)4: deferred vigorish is collected or documented when the shoe is
        completed or the patron leaves, whichever is first."""
        balance = self.deferred.pop(seat, None)
        if balance is None or balance.cents == 0:  # a debt settled in time cites nothing later
            return
        self.find(
            "deferred_deadline",
            self._deferral_severity(),
            f"Seat {seat} still owed {money(balance.cents)} of deferred vigorish when "
            f"{why}; it must be collected or documented on a Complimentary Vigorish Form "
            f"first ({self._citation('deferred_deadline')}). Treat it as uncollected without a "
            f"form.{self._deferral_caveat()}",
            seat=seat,
            expected=balance.cents,
            actual=0,
            event_ids=(*balance.event_ids, e.event_id),
            between_rounds=True,
            patron_id=balance.patron_id,
        )
        self.summary.vig_uncollected_cents += balance.cents
        self._vig_row(
            replace(
                e,
                fields={
                    "seat": seat,
                    "patron_id": balance.patron_id,
                    "amount_cents": balance.cents,
                    "round_id": None,
                },
            ),
            "WRITTEN_OFF",
            0,
        )

    # ------------------------------------------------------------------ Chemin de Fer bank
    def on_BankBid(self, e: TableEvent) -> None:
        self.bank.bid(e)

    def on_BankerWager(self, e: TableEvent) -> None:
        if self.round is not None:
            self.round.bank.append(e)
            if self.round.first_card is not None:
                self.round.banker_wagers_after_cards.append(e)
        self._report(self.bank.banker_wager(e))

    def on_PlayerBancoWager(self, e: TableEvent) -> None:
        rnd = self.round
        if rnd is None:
            return
        rnd.bank.append(e)
        closed = rnd.betting_closed is not None or rnd.first_card is not None
        if closed and e.get("action") in BANCO_ACTIONS:
            rnd.late_acceptances.append(e)

    def on_BancoCalled(self, e: TableEvent) -> None:
        """A call for the whole bank, accepted or not, is read with the round's wagers against
        the Banker when it settles (4.7(b)-(d), :meth:`Bank.settled`)."""
        if self.round is not None:
            self.round.bank.append(e)

    """A call for the whole bank, accepted or not, is read with the round's wagers against the
    Banker when it settles (4.7(b)-(d), :meth:`Bank.settled`)."""

    def on_BankPassed(self, e: TableEvent) -> None:
        self._close_round()
        self.bank.passed(e)

    # ------------------------------------------------------------------ round evaluation
    def _close_round(self) -> None:
        rnd, self.round = self.round, None
        if rnd is None:
            return
        self.round = rnd  # so findings name it
        try:
            self._evaluate(rnd)
        finally:
            self.round = None
            self.curator.changes.clear()

    def _evaluate(self, rnd: RoundState) -> None:
        rules = self.require_rules()
        self._report(self.bank.round_ended(rnd))
        player = tuple(c.card for c in rnd.cards if c.hand == "PLAYER")
        banker = tuple(c.card for c in rnd.cards if c.hand == "BANKER")
        incomplete = rnd.round_id in self.incomplete
        if variant(rules.game).participant_bank:
            # 4.7(d) is read before the round's settlement moves the bank's banco suivi on
            self._report(
                self.offers.partial_wagers(
                    rnd, incomplete, self.bank.suivi_seat, self.bank.suivi_known
                )
            )
        if incomplete:
            self.bank.events_lost()
        status = "INCOMPLETE" if incomplete else "COMPLETE"
        outcome: RoundOutcome | None = None
        if rnd.voided is not None:
            status = "VOID"
            self._run_checks(self._view(rnd), Phase.VOIDED)
        elif not incomplete and rnd.unrectified is not None:
            outcome = unrectified_outcome(
                rnd.unrectified.deal, [c.value for c in player], [c.value for c in banker]
            )
        elif not incomplete and 2 <= len(player) <= 3 and 2 <= len(banker) <= 3:
            outcome = outcome_of(player, banker)
        elif not incomplete and not rnd.simulated:
            status = "INCOMPLETE"
            self._run_checks(self._view(rnd), Phase.MISDEALT)
        if rnd.simulated:
            self._close_irregularity(rnd)
            self._run_checks(self._view(rnd), Phase.SIMULATED)
        row = RoundRow(
            self.table_id,
            rnd.shoe_id,
            rnd.round_id,
            rnd.round_number,
            rnd.simulated,
            status,
            " ".join(map(str, player)),
            " ".join(map(str, banker)),
            rnd.started_at,
            rnd.started_event,
            dealer_id=rnd.dealer_id,
        )
        self.result.rounds.append(row)
        self.result.cards.extend(
            CardRow(
                self.table_id,
                rnd.shoe_id,
                rnd.round_id,
                c.position,
                c.card.rank.name,
                c.card.suit.name,
                c.hand,
                c.event_id,
            )
            for c in rnd.cards
        )
        if incomplete:
            self._record_wagers(rnd, late_ids=set())
            return
        if outcome is None:
            return
        row.player_points, row.banker_points = outcome.player_points, outcome.banker_points
        row.winner, row.total_cards = outcome.winner.value, outcome.total_cards
        row.natural = outcome.player_natural or outcome.banker_natural
        row.dragon_7 = outcome.dragon_7
        self._run_checks(self._view(rnd, outcome), Phase.DEALT)
        row.options_taken = ",".join(
            f"{o.get('hand')}:{'DRAW' if o.get('drew') else 'STAY'}" for o in rnd.options
        )
        if rnd.simulated:
            return
        self.summary.rounds += 1
        late_ids = {e.event_id for e in (*rnd.late, *rnd.after_first_card)}
        self._record_wagers(rnd, late_ids=late_ids)
        if rnd.announced is not None:
            a = rnd.announced
            row.announced = (
                f"{a.get('player_points')}-{a.get('banker_points')} "
                f"{a.get('winner')} {a.get('total_cards')} cards"
            )
        view = self._view(rnd, outcome, due_settlements(rules, rnd, outcome))
        self._record_settlements(view)
        self._run_checks(view, Phase.SETTLED)
        self.practice.round_settled(rules, rnd.shoe_id, rnd.round_id, recorded_steps(rnd))
        if variant(rules.game).participant_bank:
            self._report(self.bank.settled(rnd, outcome))

    def _record_settlements(self, view: RoundView) -> None:
        """A row per wager settled, the recomputed beside the recorded, and the day's totals."""
        rnd = view.round
        for seat, settlements in view.due.items():
            for s in settlements:
                events = view.settled_on(seat, s.wager)
                self.result.settlements.append(
                    SettlementRow(
                        self.table_id,
                        rnd.round_id,
                        seat,
                        rnd.patrons.get(seat),
                        s.wager.value,
                        s.stake_cents,
                        s.result.value,
                        s.paid_cents,
                        s.vig_cents,
                        str(events[-1].get("outcome")) if events else None,
                        sum(int(x.get("paid_cents")) for x in events) if events else None,
                        s.rule_code,
                        tuple(x.event_id for x in events),
                    )
                )
                self.summary.add_settlement(s)

    def _view(
        self,
        rnd: RoundState,
        outcome: RoundOutcome | None = None,
        due: Mapping[int, tuple[Settlement, ...]] | None = None,
    ) -> RoundView:
        shoe = self.shoe
        left = shoe.cards_in_shoe - (shoe.last_position + 1) if shoe is not None else None
        return RoundView(
            self.require_rules(),
            rnd,
            shoe,
            outcome,
            left,
            due or {},
            curator=self.curator,
            posted_limits=self.posted_limits,
        )

    def _run_checks(self, view: RoundView, when: Phase) -> None:
        """The registered checks of :mod:`pipeline.replay.checks` for ``when``."""
        self._report(run_checks(view, when))

    def _report(self, flags: Iterable[Flag]) -> None:
        """Each flag as a finding of the round in play (or the round it names)."""
        for flag in flags:
            self.find(
                flag.code,
                flag.severity,
                flag.message,
                event_ids=flag.event_ids,
                seat=flag.seat,
                expected=flag.expected,
                actual=flag.actual,
                round_id=flag.round_id,
            )

    def _code(self, subject_or_code: str) -> str:
        """The rule code of ``subject_or_code`` in this table's game."""
        return subject_or_code if "-" in subject_or_code else code_for(self.game, subject_or_code)

    def _citation(self, subject_or_code: str) -> str:
        """The section this game's rule for ``subject_or_code`` is in, as cited in messages
        and in the finding's section (:func:`~pipeline.rules.codes.rule_in`)."""
        return rule_in(self.game, self._code(subject_or_code)).citation

    def _record_wagers(self, rnd: RoundState, late_ids: set[str]) -> None:
        for (seat, wager), amount in sorted(
            rnd.wagers.items(), key=lambda kv: (kv[0][0], kv[0][1].value)
        ):
            ids = tuple(rnd.wager_events.get((seat, wager), ()))
            self.result.wagers.append(
                WagerRow(
                    self.table_id,
                    rnd.round_id,
                    seat,
                    rnd.patrons.get(seat),
                    wager.value,
                    amount,
                    any(i in late_ids for i in ids),
                    ids,
                )
            )
            self.summary.handle_cents += amount


def _vigorish_of(rules: TableRules) -> str:
    """The vigorish a table charges, as its players see it (3.3(d), 4.10(d), 7.3(e))."""
    if rules.tie_vig_quarter:
        return "25 % of Banker wagers on a tie"
    return f"{rules.vig_percent} %"


def _note_late(rnd: RoundState, e: TableEvent) -> None:
    """A wager event after "No More Bets" was recorded, or else after the first card."""
    if rnd.betting_closed is not None:
        rnd.late.append(e)
    elif rnd.first_card is not None:
        rnd.after_first_card.append(e)


_HANDLERS: dict[str, Callable[[TableReplay, TableEvent], None]] = {
    name.removeprefix("on_"): handler
    for name, handler in vars(TableReplay).items()
    if name.startswith("on_")
}
"""What each payload type does to the replay (``on_<PayloadType>``)."""


def replay_table(
    table_id: str, events: list[TableEvent], catalog: Mapping[str, TableRules]
) -> ReplayResult:
    """Replay one table's events (in arrival order) under the catalog's rules."""
    return TableReplay(table_id, catalog).replay(events)


__all__ = ["TableReplay", "UnknownRulesError", "replay_table"]
