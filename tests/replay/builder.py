"""A small builder for one table's gaming day of events, the fixture notation of the replay tests.

It writes what an honest table's devices would record, in the order the emulator
(:mod:`pipeline.simulate.table`) records it, so a test reads like the day it describes::

    b = TableDayBuilder("T01", rules_id="pb-5-classic")
    b.open()
    b.shoe(burn="5H 2C 3D 4S 5S 6S")  # first card 5: it and 5 more are burned, 3.5(e)
    r = b.round(player="9H 2C", banker="3D 4S 6C", wagers={3: {"BANKER": 10_000}})
    b.end_shoe()
    b.close()
    result = b.replay()

Cards are written as in :func:`pipeline.rules.cards.cards` ("9H", "TS", "KD"); hands list their
cards in the order each hand receives them. The default of every helper is LEGAL: the round is
dealt in the order of 3.7(c)/3.8(c), announced from the cards, settled through the rules core
(:func:`pipeline.rules.settlement.settle_seat`) with vigorish collected, seats settled by the
table's 3.10(b) procedure, deferred vigorish collected before the patron leaves or the shoe
ends. A test injects exactly one error through a keyword override (``paid=``, ``vig=``,
``announce=``, ``late_wagers=``, ``order=``, ``settle_deferred=False``...), or by editing the
returned events (drop one, duplicate one, shuffle them).

Events carry per-device ``seq`` numbers (devices ``<table>-shoe``, ``-bets``, ``-pit``,
``-acct``), strictly increasing ``occurred_at`` (integer microseconds, one second apart) and
deterministic ids (a UUID of a counter), so findings and their ids are stable.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, NamedTuple

from pipeline.config.catalog import load_catalog
from pipeline.events.model import TableEvent
from pipeline.replay.findings import Finding
from pipeline.replay.machine import replay_table
from pipeline.replay.rows import ReplayResult
from pipeline.rules.cards import Card, cards, hand_points
from pipeline.rules.codes import regulates
from pipeline.rules.config import ShuffleMethod, TableRules
from pipeline.rules.deal import deal_order
from pipeline.rules.draw import Draw, banker_rule, player_rule
from pipeline.rules.games import Game
from pipeline.rules.irregularities import (
    disclosed_card_discards,
    face_up_in_shoe_discards,
    unrectified_deal,
    unrectified_outcome,
)
from pipeline.rules.outcome import RoundOutcome, Winner, outcome_of
from pipeline.rules.roles import counterclockwise_from, cut_offer_order
from pipeline.rules.settlement import Result, Settlement, Wager, offered_wagers, settle_seat
from pipeline.rules.settlement_order import settlement_sequence
from pipeline.rules.variants import variant

CATALOG: Mapping[str, TableRules] = load_catalog()
"""The filed rule configurations (pipeline/config/rules_catalog.toml)."""

GAMING_DATE = date(2024, 5, 1)
OPENS_AT = 1_714_557_600_000_000  # 2024-05-01 10:00:00 UTC, in microseconds
TICK = 1_000_000  # one second between consecutive events
FIRST_SERIAL, LAST_SERIAL = 1001, 1050
DEALER, PIT_BOSS, PIT_CLERK = "DLR-100", "PB-10", "PC-20"
FILLER = cards("2C 3D 4H 5S 6C 7D 8H 9S AC 2D 3H 4S 5C")  # discards whose faces do not matter


def event_id(n: int) -> str:
    """The id of the ``n``-th event a builder emits: ``00000000-0000-0000-0000-00000000000n``."""
    return str(uuid.UUID(int=n))


def patron_id(seat: int) -> str:
    return f"PAT-{seat:02d}"


def patron_name(seat: int) -> str:
    return f"Patron {seat}"


class Step(NamedTuple):
    """One settlement event the pit will record: ``kind`` is LOSE, VOID, PAY or VIG."""

    kind: str
    seat: int
    payload_type: str
    fields: dict[str, Any]


class Handings(NamedTuple):
    """To whom the dealer hands each hand's cards under 3.7(d), 7.7(c)3: its two cards
    (``initial``) and its third card (``third``), seat by hand."""

    initial: Mapping[str, int]
    third: Mapping[str, int]


@dataclass
class RoundHandle:
    """The ids of what one round recorded, for asserting evidence."""

    round_id: str
    shoe_id: str
    started: str
    outcome: RoundOutcome | None = None
    betting_closed: str | None = None
    cards: list[str] = field(default_factory=list)  # CardDealt ids in deal order
    wagers: dict[tuple[int, str], str] = field(default_factory=dict)
    late: list[str] = field(default_factory=list)
    announced: str | None = None
    options: list[str] = field(default_factory=list)
    settled: dict[tuple[int, str], list[str]] = field(default_factory=dict)
    vig: dict[int, str] = field(default_factory=dict)
    settlements: dict[int, tuple[Settlement, ...]] = field(default_factory=dict)
    bids: list[str] = field(default_factory=list)
    banker_wager: str | None = None
    banco: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    bank_passed: str | None = None
    cut_card: str | None = None
    last_hand: str | None = None
    voided: str | None = None
    misdeal_reported: str | None = None
    handed: list[str] = field(default_factory=list)  # CardsHandedTo ids in the order recorded

    def settled_id(self, seat: int, wager: str) -> str:
        (only,) = self.settled[(seat, wager)]
        return only


@dataclass(frozen=True)
class DealtInError:
    """A card dealt in error during a round and reported there (3.12(a)-(b), 4.12(e)-(g),
    7.11(a)-(b)). ``card`` reaches the Player's Hand (kind PLAYER_THIRD_CARD_UNAUTHORIZED,
    dealt after the Player's regular cards) or the Banker's Hand (BANKER_EXTRA_CARD, dealt
    last), face up unless ``face_up=False``, then IrregularityReported names it. ``then`` is
    what the dealer does with it: "NEXT_HAND" (it is read again as the next round's first
    card), "DISCARD" (read again into the discard rack with ``discards`` more cards, default
    as the pre-selected procedure requires) or "NOTHING" (left where it is, or placed in the
    Banker's Hand when ``banker`` lists it). The round's ``player`` and ``banker`` say how the
    dealer finally counted the hands; list the card in one of them if it counted there."""

    card: str
    kind: str = "PLAYER_THIRD_CARD_UNAUTHORIZED"
    then: str = "NOTHING"
    face_up: bool = True
    discards: int | None = None
    at: int | None = None
    """The card's place in the deal, counting from 0 (Chemin de Fer 4.12(i): 4, the fifth
    card, which the Dominant Player called for); by default as the kind says above."""


@dataclass(frozen=True)
class Misdealt:
    """The pit reports an irregularity during the round without naming a card, after the
    first ``after`` cards of the deal (default all of them).

    Chemin de Fer, where the Banker's own deal went wrong beyond rectifying (4.12(a)-(d)):
    ``kind`` BANKER_WRONG_ORDER (4.12(a)): the hand is annulled, voided with its wagers
    returned, unless ``played``, when it is announced and settled from the cards.
    BANKER_EXTRA_CARD or PLAYER_EXTRA_CARD (4.12(b)-(d)): the round is announced and settled
    by the counts those rules give (``announce=`` overrides, as for any round); list every
    card dealt in the round's hands and give its ``order``.

    Any other kind, and any kind at a Punto Banco or Minibaccarat table, changes nothing of
    the round (announced and settled from the cards), except that BANKER_WRONG_ORDER not
    ``played`` still voids it (what such a dealer would do)."""

    kind: str
    after: int | None = None
    played: bool = False
    card: str | None = None
    """A card the report names without a shoe position (CARD_FACE_UP_IN_SHOE,
    CARD_DISCLOSED_IN_ERROR): it goes to the discard rack right after the report, with
    ``discards`` more cards (default as 3.12(c)-(d) require; under (c)3 nothing is discarded:
    follow the round with ``round(..., simulated=True)``)."""
    discards: int | None = None
    voided: str | None = None
    """The reason the pit voids the round for, instead of announcing and settling it, every
    wager returned (a card of Chemin de Fer's last hand of a shoe found face up, 4.12(j));
    ``void_code`` is the rule code the void names (``None``: none)."""
    void_code: str | None = None


@dataclass
class IrregularityHandle:
    reported: str
    discards: list[str]


class TableDayBuilder:
    """Events of one table for one gaming day; see the module docstring."""

    def __init__(
        self,
        table_id: str = "T01",
        rules_id: str = "pb-5-classic",
        *,
        pit: str = "BACCARAT-1",
        location: str = "BAC-01",
    ) -> None:
        self.table_id = table_id
        self.rules_id = rules_id
        self.rules = CATALOG[rules_id]
        self.game = self.rules.game
        self.pit = pit
        self.location = location
        self.devices = {
            "shoe": f"{table_id}-shoe",
            "bets": f"{table_id}-bets",
            "pit": f"{table_id}-pit",
            "acct": f"{table_id}-acct",
        }
        self._events: list[TableEvent] = []
        self._seq: dict[str, int] = {}
        self._clock = OPENS_AT
        self.seated: dict[int, str] = {}
        self.deferred: dict[int, int] = {}
        self.shoe_id: str | None = None
        self.shoe_number = 0
        self.round_number = 0
        self.position = 0
        self.next_serial = FIRST_SERIAL
        self.carried: tuple[str, int] | None = None  # (round, position) opening the next hand
        self.cut_card_placed_at: str | None = None  # the ShoeStarted that placed the cutting card
        self.forms: list[dict[str, Any]] = []  # what accounting will count, in issue order

    # ------------------------------------------------------------------ plumbing
    @property
    def events(self) -> list[TableEvent]:
        """A copy of the day's events in the order they were recorded."""
        return list(self._events)

    def by_id(self, eid: str) -> TableEvent:
        return next(e for e in self._events if e.event_id == eid)

    def emit(self, device: str, payload_type: str, **fields: Any) -> str:
        """Record ``payload_type`` from ``device`` ("shoe", "bets", "pit", "acct")."""
        device_id = self.devices[device]
        self._clock += TICK
        seq = self._seq.get(device_id, 0) + 1
        self._seq[device_id] = seq
        eid = event_id(len(self._events) + 1)
        self._events.append(
            TableEvent(eid, self.table_id, device_id, seq, self._clock, payload_type, fields)
        )
        return eid

    def replay(self, events: Iterable[TableEvent] | None = None) -> ReplayResult:
        """Replay ``events`` (default: the whole day, in recorded order) under the catalog."""
        chosen = self.events if events is None else list(events)
        return replay_table(self.table_id, chosen, CATALOG)

    # ------------------------------------------------------------------ table and patrons
    def open(
        self, series: Sequence[tuple[int, int]] = ((FIRST_SERIAL, LAST_SERIAL),), **overrides: Any
    ) -> str:
        """TableOpened (pit terminal) and the Form series the pit clerk received."""
        opened = self.emit(
            "pit",
            "TableOpened",
            **{
                "game": self.game.value,
                "rules_id": self.rules_id,
                "pit": self.pit,
                "location": self.location,
                "dealer_id": DEALER,
                "gaming_date": GAMING_DATE,
                **overrides,
            },
        )
        for first, last in series:
            self.emit(
                "pit",
                "FormSeriesReceived",
                first_serial=first,
                last_serial=last,
                received_by=PIT_CLERK,
            )
        if series:
            self.next_serial = series[0][0]
        return opened

    def seat(self, seat: int) -> str:
        self.seated[seat] = patron_id(seat)
        return self.emit(
            "pit",
            "PatronSeated",
            seat=seat,
            patron_id=patron_id(seat),
            patron_name=patron_name(seat),
        )

    def _ensure_seated(self, seats: Iterable[int]) -> None:
        for seat in sorted(set(seats)):
            if seat not in self.seated:
                self.seat(seat)

    def collect_deferred(self, seat: int, amount: int | None = None) -> str:
        """DeferredVigCollected: the marker button at ``seat`` is paid (default: all of it)."""
        owed = self.deferred.get(seat, 0)
        paid = owed if amount is None else amount
        self.deferred[seat] = max(0, owed - paid)
        return self.emit(
            "pit",
            "DeferredVigCollected",
            seat=seat,
            patron_id=self.seated.get(seat),
            amount_cents=paid,
            round_id=None,
            shoe_id=self.shoe_id,
        )

    def _settle_markers(self, seats: Iterable[int]) -> None:
        for seat in seats:
            if self.deferred.get(seat):
                self.collect_deferred(seat)

    def patron_leaves(self, seat: int, *, settle_deferred: bool = True) -> str:
        """PatronLeft; by default the patron first pays any deferred vigorish (3.3(c)4)."""
        if settle_deferred:
            self._settle_markers([seat])
        self.deferred.pop(seat, None)  # unpaid: the marker is simply left behind
        pid = self.seated.pop(seat, patron_id(seat))
        return self.emit("pit", "PatronLeft", seat=seat, patron_id=pid)

    def close(self, *, settle_deferred: bool = True) -> str:
        """Every patron leaves, then TableClosed."""
        for seat in sorted(self.seated):
            self.patron_leaves(seat, settle_deferred=settle_deferred)
        return self.emit("pit", "TableClosed", reason="end of gaming day")

    # ------------------------------------------------------------------ shoe
    def shoe(
        self,
        burn: str = "3C 9D 9H 9S",
        *,
        decks: int | None = None,
        cards_in_shoe: int | None = None,
        cut_position: int = 200,
        cut_card_from_back: int | None = None,
        shuffle_method: str | None = None,
        batch: str | None = None,
        cut_by_seat: int | None = None,
        cut_declined: Iterable[int] | None = None,
    ) -> str:
        """ShoeStarted, then the burn cards (3.5(e)): ``burn`` lists them, first card first.
        The dealer cuts unless ``cut_by_seat`` names the participant who accepted the cut
        (3.5(c)); seat that participant first.
        The shoe is shuffled by the table's filed option unless ``shuffle_method`` says
        otherwise; a two-batch shuffler alternates batches A and B unless ``batch`` is given.
        At a table whose pit records declined offers, the participants offered the cut before
        the one who cut (all of them when the dealer cut) decline it first (4.4(c)), unless
        ``cut_declined`` names the seats that declined.
        Without ``cut_card_from_back`` the cutting card is placed where a round with
        ``cut_card=True`` meets it (70 cards from the back if none does), as 3.5(e) and
        3.8(e) read together require."""
        self.shoe_number += 1
        self.round_number = 0
        self.position = 0
        self.shoe_id = f"{self.table_id}-S{self.shoe_number:02d}"
        two_batch = self.rules.shuffle_method is ShuffleMethod.AUTOMATED_BATCH
        decks = self.rules.decks if decks is None else decks
        if cards_in_shoe is None:
            cards_in_shoe = (decks // 2 if two_batch else decks) * 52
        if cut_declined is None and self.rules.records_declined_offers:
            order = cut_offer_order(self.seated)
            cut_declined = order if cut_by_seat not in order else order[: order.index(cut_by_seat)]
        for seat in cut_declined or ():
            self.emit("pit", "OfferDeclined", offer="CUT", seat=seat, shoe_id=self.shoe_id)
        started = self.emit(
            "shoe",
            "ShoeStarted",
            shoe_id=self.shoe_id,
            decks=decks,
            shuffle_method=shuffle_method or self.rules.shuffle_method.value,
            cut_position=cut_position,
            cut_card_from_back=70 if cut_card_from_back is None else cut_card_from_back,
            batch=batch or (("B" if self.shoe_number % 2 == 0 else "A") if two_batch else None),
            cards_in_shoe=cards_in_shoe,
            cut_by_seat=cut_by_seat,
        )
        self.cut_card_placed_at = None if cut_card_from_back is None else started
        for card in cards(burn):
            self._card(card, None, "BURN")
        return started

    def end_shoe(self, *, settle_deferred: bool = True) -> str:
        """ShoeEnded; by default deferred vigorish is collected first (3.3(c)2, (c)4)."""
        if settle_deferred:
            self._settle_markers(sorted(self.deferred, reverse=True))
        self.deferred.clear()  # unpaid markers are left behind, as the emulator's faulty dealer
        ended = self.emit(
            "shoe",
            "ShoeEnded",
            shoe_id=self.shoe_id,
            cards_dealt=self.position,
            reason="cutting card",
        )
        self.shoe_id = None
        return ended

    def _card(
        self,
        card: Card,
        round_id: str | None,
        hand: str,
        face_up: bool = True,
        *,
        position: int | None = None,
    ) -> str:
        """CardDealt at the next shoe position, or at ``position`` when the shoe reads again a
        card that left it earlier (a card dealt in error, placed where it belongs)."""
        if (
            position is None
            and self.carried is not None
            and round_id not in (None, self.carried[0])
        ):
            position, self.carried = self.carried[1], None
        eid = self.emit(
            "shoe",
            "CardDealt",
            shoe_id=self.shoe_id,
            round_id=round_id,
            position=self.position if position is None else position,
            hand=hand,
            face_up=face_up,
            rank=card.rank.name,
            suit=card.suit.name,
        )
        if position is None:
            self.position += 1
        return eid

    # ------------------------------------------------------------------ irregularities
    def irregularity(
        self,
        card: str,
        kind: str = "CARD_DISCLOSED_IN_ERROR",
        *,
        extra: int | None = None,
        procedure: str | None = None,
        extra_face_up: bool | None = None,
    ) -> IrregularityHandle:
        """IrregularityReported between rounds, then the card and ``extra`` more to the discard
        rack (default: as the table's pre-selected procedure requires, 3.12(c)-(d), face down
        under (c)2 unless ``extra_face_up``). Under (c)3 nothing is discarded: follow with
        ``round(..., simulated=True)``."""
        (the_card,) = cards(card)
        face_up = kind == "CARD_FACE_UP_IN_SHOE"
        expected = self._required_discards(the_card, face_up)
        if procedure is None and not face_up:
            procedure = self.rules.disclosed_card_procedure.name
        reported = self.emit(
            "pit",
            "IrregularityReported",
            round_id=None,
            shoe_id=self.shoe_id,
            kind=kind,
            procedure=procedure,
            card_rank=the_card.rank.name,
            card_suit=the_card.suit.name,
            note=None,
        )
        count = expected if extra is None else extra
        if count is None:  # (c)3: the card opens a simulated round instead
            return IrregularityHandle(reported, [])
        face_down = self._face_down_discards(face_up)
        if extra_face_up is not None:
            face_down = not extra_face_up
        return IrregularityHandle(reported, self._discard(the_card, count, face_down))

    def voided_round(
        self,
        reason: str = "insufficient cards",
        wagers: Mapping[int, Mapping[str, int]] | None = None,
        *,
        settled: Mapping[tuple[int, str], tuple[str, int]] | None = None,
        vig: Mapping[int, int] | None = None,
        rule_code: str | None = None,
        reported: bool = False,
        dealt: str = "",
    ) -> RoundHandle:
        """A round voided for insufficient cards (3.12(e)): its ``wagers`` placed, the cards
        ``dealt`` to its hands before the void (``"TH 6C 3D 4S"``: Player, Banker, Player,
        Banker, as 3.7(c) deals them), the pit's INSUFFICIENT_CARDS report if ``reported``,
        then each wager returned (settled VOID paying nothing) unless ``settled`` says
        (outcome, paid) for it; ``vig`` cents charged per seat on top."""
        assert self.shoe_id is not None, "start a shoe first"
        wagers = dict(wagers or {})
        self._ensure_seated(wagers)
        self.round_number += 1
        round_id = f"{self.shoe_id}-R{self.round_number:03d}"
        started = self.emit(
            "pit",
            "RoundStarted",
            round_id=round_id,
            shoe_id=self.shoe_id,
            round_number=self.round_number,
            simulated=False,
        )
        handle = RoundHandle(round_id, self.shoe_id, started)
        for seat in sorted(wagers):
            for wager, amount in wagers[seat].items():
                handle.wagers[(seat, wager)] = self._wager(round_id, seat, wager, amount)
        for i, card in enumerate(cards(dealt) if dealt else ()):
            handle.cards.append(self._card(card, round_id, ("PLAYER", "BANKER")[i % 2]))
        if reported:
            self._report_misdeal(handle, Misdealt("INSUFFICIENT_CARDS"))
        handle.voided = self.emit(
            "pit", "RoundVoided", round_id=round_id, reason=reason, rule_code=rule_code
        )
        for seat in sorted(wagers, reverse=True):
            for wager in wagers[seat]:
                outcome, paid = (settled or {}).get((seat, wager), ("VOID", 0))
                fields = self._settled_fields(round_id, seat, wager, outcome, paid)
                handle.settled[(seat, wager)] = [self.emit("pit", "WagerSettled", **fields)]
        for seat, amount in (vig or {}).items():
            handle.vig[seat] = self.emit(
                "pit",
                "VigCollected",
                round_id=round_id,
                seat=seat,
                patron_id=self.seated.get(seat),
                amount_cents=amount,
            )
        return handle

    # ------------------------------------------------------------------ rounds
    def round(
        self,
        player: str,
        banker: str,
        wagers: Mapping[int, Mapping[str, int]] | None = None,
        *,
        order: str | None = None,
        announce: Mapping[str, Any] | bool = True,
        paid: Mapping[tuple[int, str], int] | None = None,
        results: Mapping[tuple[int, str], str] | None = None,
        unsettled: Iterable[tuple[int, str]] = (),
        extra_settlements: Sequence[tuple[int, str, str, int]] = (),
        vig: Mapping[int, int] | None = None,
        defer_vig: Iterable[int] = (),
        late_wagers: Sequence[tuple[int, str, int]] = (),
        late_withdrawals: Sequence[tuple[int, str, int]] = (),
        after_cards: Sequence[tuple[int, str, int]] = (),
        betting_closed: str | None = "before cards",
        settlement_order: Callable[[list[Step]], list[Step]] | None = None,
        cut_card: bool = False,
        last_hand: bool | None = None,
        simulated: bool = False,
        bank: Mapping[str, Any] | None = None,
        keep_bank: bool = False,
        hand_options: bool = True,
        in_error: DealtInError | None = None,
        misdealt: Misdealt | None = None,
        handed: Mapping[str, int] | None = None,
        third_handed: Mapping[str, int] | None = None,
    ) -> RoundHandle:
        """One round. ``player`` and ``banker`` are the final hands ("9H 2C", "3D 4S 6C").

        Overrides (each injects one error): ``order`` the hands in deal order ("PPBB"),
        ``announce`` fields to announce differently (False: no announcement), ``paid`` /
        ``results`` per (seat, wager), ``unsettled`` wagers never settled, ``extra_settlements``
        (seat, wager, outcome, paid) recorded on top, ``vig`` cents per seat, ``defer_vig``
        seats whose vigorish is marked instead of collected, ``late_wagers`` /
        ``late_withdrawals`` (seat, wager, cents) after "No More Bets" (the dealer honours
        them), ``after_cards`` (seat, wager, cents) placed once the cards are dealt (honoured
        too), ``betting_closed`` when the pit records "No More Bets": "before cards" (legal),
        "after cards" or ``None`` (never), ``settlement_order`` to reorder the pit's settlement
        steps, ``cut_card`` the cutting card appears (then "last hand" is announced unless
        ``last_hand=False``), ``simulated`` a 3.12(c)3 round with no wagers. Chemin de Fer:
        ``bank`` = {"seat", "amount", "bids": {seat: cents}, "calls": [(seat, "BANCO_SUIVI" or
        "BANCO_SEUL")] announced (``BancoCalled``, accepted or not), "partial_declined": [seat]
        declining a partial wager in turn (``OfferDeclined``, 4.7(d)), "banco": [(seat, action,
        cents|None)] accepted, "late_banco": [(seat, action, cents)] accepted after "No More
        Bets" (with ``betting_closed="before cards"``), "wager_after_cards": True records the
        Banker's wager once the cards are dealt}; the bank passes when the Banker's Hand loses
        unless ``keep_bank``.
        ``in_error``: a card dealt in error during the round (:class:`DealtInError`);
        ``misdealt``: the Banker's deal reported wrong beyond rectifying (:class:`Misdealt`).
        ``handed``: the seat each hand's two cards are handed to under 3.7(d) or 7.7(c)3
        ({"PLAYER": 3, "BANKER": 5}, ``CardsHandedTo`` after the fourth card); a hand's third
        card is handed to the same seat, or to the one ``third_handed`` names.
        """
        assert self.shoe_id is not None, "start a shoe first"
        wagers = dict(wagers or {})
        paid, results, vig = dict(paid or {}), dict(results or {}), dict(vig or {})
        p_cards, b_cards = cards(player), cards(banker)
        bank_seats: set[int] = set()
        if bank is not None:
            bank_seats = {int(bank["seat"]), *bank.get("bids", {})}
            bank_seats |= {
                int(s) for s, _, _ in (*bank.get("banco", ()), *bank.get("late_banco", ()))
            }
            bank_seats |= {int(s) for s, _ in bank.get("calls", ())}
            bank_seats |= {int(s) for s in bank.get("partial_declined", ())}
        self._ensure_seated(
            [*wagers, *(s for s, _, _ in (*late_wagers, *after_cards)), *bank_seats]
            if not simulated
            else []
        )

        if simulated:
            round_id = f"{self.shoe_id}-SIM{self.position:03d}"
            number = 0
        else:
            self.round_number += 1
            number = self.round_number
            round_id = f"{self.shoe_id}-R{number:03d}"
        started = self.emit(
            "pit",
            "RoundStarted",
            round_id=round_id,
            shoe_id=self.shoe_id,
            round_number=number,
            simulated=simulated,
        )
        handle = RoundHandle(round_id, self.shoe_id, started)
        if not simulated:
            if bank is not None:
                wagers = self._bank_wagers(handle, bank, wagers)
            for seat in sorted(wagers):
                for wager, amount in wagers[seat].items():
                    handle.wagers[(seat, wager)] = self._wager(round_id, seat, wager, amount)
            if betting_closed == "before cards":
                handle.betting_closed = self._close_betting(round_id)
            late_banco = (bank or {}).get("late_banco", ())
            assert not late_banco or betting_closed == "before cards", "late: after the close"
            for seat, action, cents in late_banco:
                self._banco(handle, seat, action, cents)
            stakes = {seat: dict(w) for seat, w in wagers.items()}
            for seat, wager, amount in late_wagers:
                handle.late.append(self._wager(round_id, seat, wager, amount))
                stakes.setdefault(seat, {})
                stakes[seat][wager] = stakes[seat].get(wager, 0) + amount
            for seat, wager, amount in late_withdrawals:
                handle.late.append(
                    self.emit(
                        "bets",
                        "WagerWithdrawn",
                        round_id=round_id,
                        seat=seat,
                        patron_id=self.seated.get(seat),
                        wager=wager,
                        amount_cents=amount,
                        reason=None,
                    )
                )
                stakes[seat][wager] -= amount

        self._deal(
            handle,
            p_cards,
            b_cards,
            order,
            cut_card,
            in_error,
            misdealt,
            Handings(dict(handed or {}), {**(handed or {}), **(third_handed or {})}),
        )
        if bank is not None and bank.get("wager_after_cards"):
            handle.banker_wager = self._banker_wager(handle, bank)
        if not simulated:
            for seat, wager, amount in after_cards:
                handle.late.append(self._wager(round_id, seat, wager, amount))
                stakes.setdefault(seat, {})
                stakes[seat][wager] = stakes[seat].get(wager, 0) + amount
            if betting_closed == "after cards":
                handle.betting_closed = self._close_betting(round_id)
        if self.game is Game.CHEMIN_DE_FER and hand_options:
            self._hand_options(handle, p_cards, b_cards)
        if simulated:
            return handle
        if misdealt is not None and misdealt.voided is not None:
            self._void(handle, stakes, misdealt.voided, misdealt.void_code)
            return handle
        if misdealt is not None and misdealt.kind == "BANKER_WRONG_ORDER" and not misdealt.played:
            self._annul(handle, stakes)
            return handle

        try:
            outcome = self._misdealt_outcome(misdealt, order, p_cards, b_cards)
        except ValueError:  # a hand of four cards (3.8(d)): nothing can be announced or settled
            return handle
        handle.outcome = outcome
        if announce is not False:
            fields = {
                "round_id": round_id,
                "player_points": int(outcome.player_points),
                "banker_points": int(outcome.banker_points),
                "winner": outcome.winner.value,
                "total_cards": outcome.total_cards,
                "dragon_7": self.rules.dragon_7 and outcome.dragon_7,
            }
            if isinstance(announce, Mapping):
                fields.update(announce)
            handle.announced = self.emit("pit", "ResultAnnounced", **fields)

        steps = self._settlement_steps(
            handle, stakes, outcome, paid, results, set(unsettled), vig, set(defer_vig)
        )
        steps += [
            Step(
                "EXTRA",
                seat,
                "WagerSettled",
                self._settled_fields(round_id, seat, wager, outcome_name, amount),
            )
            for seat, wager, outcome_name, amount in extra_settlements
        ]
        if settlement_order is not None:
            steps = settlement_order(steps)
        for step in steps:
            eid = self.emit("pit", step.payload_type, **step.fields)
            if step.payload_type == "WagerSettled":
                key = (step.seat, str(step.fields["wager"]))
                handle.settled.setdefault(key, []).append(eid)
            else:
                handle.vig[step.seat] = eid
                if step.payload_type == "VigDeferred":
                    amount = int(step.fields["amount_cents"])
                    self.deferred[step.seat] = self.deferred.get(step.seat, 0) + amount

        if bank is not None and outcome.winner is Winner.PLAYER and not keep_bank:
            banker_seat = int(bank["seat"])
            order_ccw = counterclockwise_from(
                banker_seat, (s for s in self.seated if s != banker_seat)
            )
            handle.bank_passed = self.emit(
                "pit",
                "BankPassed",
                seat=banker_seat,
                to_seat=order_ccw[0] if order_ccw else None,
                voluntary=False,
                round_id=None,
            )
        if last_hand is None:  # 3.8(e); Chemin de Fer has no "last hand"
            last_hand = regulates(self.game, "last_hand")
        if cut_card and last_hand:
            handle.last_hand = self.emit(
                "pit", "LastHandAnnounced", shoe_id=self.shoe_id, round_id=round_id
            )
        return handle

    def _misdealt_outcome(
        self,
        misdealt: Misdealt | None,
        order: str | None,
        p_cards: tuple[Card, ...],
        b_cards: tuple[Card, ...],
    ) -> RoundOutcome:
        """The round's outcome from its hands, or by 4.12(b)-(d) for a deal reported wrong."""
        if (
            not variant(self.game).participant_bank
            or misdealt is None
            or misdealt.kind not in ("BANKER_EXTRA_CARD", "PLAYER_EXTRA_CARD")
        ):
            return outcome_of(p_cards, b_cards)
        if order is None:
            order = "".join(hand[0] for hand in deal_order(len(p_cards), len(b_cards)))
        dealt = order[: misdealt.after]
        deal = unrectified_deal(
            misdealt.kind == "BANKER_EXTRA_CARD", dealt.count("P"), dealt.count("B")
        )
        if deal is None:  # a report no rule of 4.12(b)-(d) describes: the cards count
            return outcome_of(p_cards, b_cards)
        return unrectified_outcome(deal, [c.value for c in p_cards], [c.value for c in b_cards])

    def _annul(self, handle: RoundHandle, stakes: Mapping[int, Mapping[str, int]]) -> None:
        """4.12(a): the hand is annulled: voided, every wager returned (elsewhere, the void
        names no rule: none voids it)."""
        code = "CF-4.12a-WRONG-ORDER" if variant(self.game).participant_bank else None
        self._void(handle, stakes, "Banker took cards in the wrong order", code)

    def _void(
        self,
        handle: RoundHandle,
        stakes: Mapping[int, Mapping[str, int]],
        reason: str,
        rule_code: str | None,
    ) -> None:
        """RoundVoided for ``reason`` under ``rule_code``, then every wager returned."""
        handle.voided = self.emit(
            "pit", "RoundVoided", round_id=handle.round_id, reason=reason, rule_code=rule_code
        )
        for seat in sorted(stakes, reverse=True):
            for wager in stakes[seat]:
                fields = self._settled_fields(handle.round_id, seat, wager, "VOID", 0)
                handle.settled[(seat, wager)] = [self.emit("pit", "WagerSettled", **fields)]

    def _close_betting(self, round_id: str) -> str:
        return self.emit("pit", "BettingClosed", round_id=round_id, shoe_id=self.shoe_id)

    def _wager(self, round_id: str, seat: int, wager: str, amount: int) -> str:
        return self.emit(
            "bets",
            "WagerPlaced",
            round_id=round_id,
            seat=seat,
            patron_id=self.seated.get(seat),
            wager=wager,
            amount_cents=amount,
        )

    def _bank_wagers(
        self, handle: RoundHandle, bank: Mapping[str, Any], wagers: dict[int, Mapping[str, int]]
    ) -> dict[int, Mapping[str, int]]:
        """Chemin de Fer: bids (4.5(b)), the Banker's wager (4.6), wagers against it (4.7)."""
        banker_seat, amount = int(bank["seat"]), int(bank["amount"])
        for seat, bid in sorted(bank.get("bids", {}).items()):
            handle.bids.append(self.emit("pit", "BankBid", seat=seat, amount_cents=bid))
        if not bank.get("wager_after_cards"):
            handle.banker_wager = self._banker_wager(handle, bank)
        for seat, call in bank.get("calls", ()):
            handle.calls.append(
                self.emit("pit", "BancoCalled", round_id=handle.round_id, seat=seat, call=call)
            )
        for seat in bank.get("partial_declined", ()):
            self.emit(
                "pit",
                "OfferDeclined",
                offer="PARTIAL_WAGER",
                seat=seat,
                round_id=handle.round_id,
                shoe_id=self.shoe_id,
            )
        covered = 0
        players: dict[int, Mapping[str, int]] = {}
        for seat, action, cents in bank.get("banco", ()):
            cents = amount if cents is None else int(cents)
            covered += cents
            players[int(seat)] = {"PLAYER": cents}
            self._banco(handle, seat, action, cents)
        if covered < amount:
            self.emit(
                "pit",
                "PlayerBancoWager",
                round_id=handle.round_id,
                seat=banker_seat,
                action="BANK_UNCOVERED_WITHDRAWN",
                amount_cents=amount - covered,
            )
        if wagers:
            return wagers
        return {banker_seat: {"BANKER": min(covered, amount)}, **players}

    def _banker_wager(self, handle: RoundHandle, bank: Mapping[str, Any]) -> str:
        """The Banker's wager in support of the Banker's Hand (``BankerWager``, 4.6(a))."""
        return self.emit(
            "pit",
            "BankerWager",
            round_id=handle.round_id,
            seat=int(bank["seat"]),
            amount_cents=int(bank["amount"]),
        )

    def _banco(self, handle: RoundHandle, seat: int, action: str, cents: int) -> None:
        """A wager against the Banker the pit accepted (``PlayerBancoWager``)."""
        handle.banco.append(
            self.emit(
                "pit",
                "PlayerBancoWager",
                round_id=handle.round_id,
                seat=seat,
                action=action,
                amount_cents=cents,
            )
        )

    def _deal(
        self,
        handle: RoundHandle,
        p_cards: tuple[Card, ...],
        b_cards: tuple[Card, ...],
        order: str | None,
        cut_card: bool,
        in_error: DealtInError | None = None,
        misdealt: Misdealt | None = None,
        handings: Handings | None = None,
    ) -> None:
        """3.7(c): cards 1 and 3 to the Player's Hand, 2 and 4 to the Banker's; 3.8(c) the
        Player's third card before the Banker's. ``order`` overrides, e.g. "PPBB". Under 3.7(d)
        the ``handings`` follow the fourth card (each hand's two cards) and each third card."""
        error_card = None
        if in_error is not None:
            (error_card,) = cards(in_error.card)
            p_cards = _without(p_cards, error_card)
            b_cards = _without(b_cards, error_card)
        if order is None:
            order = "".join(hand[0] for hand in deal_order(len(p_cards), len(b_cards)))
        assert sorted(order) == sorted("P" * len(p_cards) + "B" * len(b_cards)), order
        queues = {"P": list(p_cards), "B": list(b_cards)}
        if cut_card:
            self._place_cutting_card()
            handle.cut_card = self.emit(
                "shoe",
                "CutCardReached",
                shoe_id=self.shoe_id,
                round_id=handle.round_id,
                position=self.position,
            )
        error_at = len(p_cards) + 2 if in_error and in_error.kind.startswith("PLAYER") else None
        if in_error is not None and in_error.at is not None:
            error_at = in_error.at
        report_at = None if misdealt is None else misdealt.after
        for i, letter in enumerate(order):
            if i == error_at:
                self._deal_in_error(handle, in_error, error_card)
            if i == report_at:
                self._report_misdeal(handle, misdealt)
            hand = "PLAYER" if letter == "P" else "BANKER"
            handle.cards.append(self._card(queues[letter].pop(0), handle.round_id, hand))
            if handings is not None and i == 3:
                for initial, seat in handings.initial.items():
                    handle.handed.append(self._hand_cards(handle, initial, False, seat))
            if handings is not None and i > 3 and hand in handings.third:
                handle.handed.append(self._hand_cards(handle, hand, True, handings.third[hand]))
        if in_error is not None and error_at in (None, len(order)):
            self._deal_in_error(handle, in_error, error_card)
        if misdealt is not None and report_at in (None, len(order)):
            self._report_misdeal(handle, misdealt)

    def _hand_cards(self, handle: RoundHandle, hand: str, third_card: bool, seat: int) -> str:
        """3.7(d), 7.7(c)3: the pit records to whom the dealer handed a hand's cards."""
        return self.emit(
            "pit",
            "CardsHandedTo",
            round_id=handle.round_id,
            hand=hand,
            third_card=third_card,
            seat=seat,
            patron_id=self.seated.get(seat),
        )

    def _report_misdeal(self, handle: RoundHandle, misdealt: Misdealt | None) -> None:
        """The pit reports the irregularity of ``misdealt`` by no shoe position, and the card it
        names, if any, goes to the discard rack."""
        assert misdealt is not None
        named = cards(misdealt.card) if misdealt.card else ()
        handle.misdeal_reported = self.emit(
            "pit",
            "IrregularityReported",
            round_id=handle.round_id,
            shoe_id=self.shoe_id,
            kind=misdealt.kind,
            procedure=None,
            card_rank=named[0].rank.name if named else None,
            card_suit=named[0].suit.name if named else None,
            position=None,
            note=None,
            reported_by=DEALER,
        )
        if named:
            face_up = misdealt.kind == "CARD_FACE_UP_IN_SHOE"
            count = misdealt.discards
            if count is None:
                count = self._required_discards(named[0], face_up)
            if count is not None:  # (c)3: the card opens a simulated round after this one
                self._discard(named[0], count, self._face_down_discards(face_up))

    def _required_discards(self, card: Card, face_up_in_shoe: bool) -> int | None:
        """How many more cards go to the discard rack with ``card``: 3.12(d) for a card found
        face up in the shoe, else the pre-selected procedure of 3.12(c) (``None``: (c)3)."""
        if face_up_in_shoe:
            return face_up_in_shoe_discards(card.rank)
        return disclosed_card_discards(self.rules, card.rank)

    def _face_down_discards(self, face_up_in_shoe: bool) -> bool:
        """Whether the extra discards go face down: only under (c)2 for a disclosed card."""
        return self.rules.disclosed_card_procedure.value == 2 and not face_up_in_shoe

    def _discard(
        self, card: Card, count: int, face_down: bool, *, position: int | None = None
    ) -> list[str]:
        """``card`` (read again at ``position`` when it left the shoe earlier) and ``count``
        more to the discard rack; returns the CardDealt ids."""
        discards = [self._card(card, None, "DISCARD", position=position)]
        for i in range(count):
            discards.append(
                self._card(FILLER[i % len(FILLER)], None, "DISCARD", face_up=not face_down)
            )
        return discards

    def _place_cutting_card(self) -> None:
        """The shoe's ShoeStarted, when the test left the cutting card's place open, records it
        where it now appears: before the next card (3.5(e), 3.8(e))."""
        if self.cut_card_placed_at is not None:
            return
        i, started = next(
            (i, e)
            for i, e in enumerate(self._events)
            if e.payload_type == "ShoeStarted" and e.fields["shoe_id"] == self.shoe_id
        )
        from_back = int(started.fields["cards_in_shoe"]) - self.position
        self._events[i] = replace(
            started, fields={**started.fields, "cut_card_from_back": from_back}
        )
        self.cut_card_placed_at = started.event_id

    def _deal_in_error(
        self, handle: RoundHandle, in_error: DealtInError | None, card: Card | None
    ) -> None:
        """The card dealt in error, its report, and what the dealer does with it."""
        assert in_error is not None and card is not None
        position = self.position
        hand = "PLAYER" if in_error.kind.startswith("PLAYER") else "BANKER"
        handle.cards.append(self._card(card, handle.round_id, hand, in_error.face_up))
        self.emit(
            "pit",
            "IrregularityReported",
            round_id=handle.round_id,
            shoe_id=self.shoe_id,
            kind=in_error.kind,
            procedure=self.rules.disclosed_card_procedure.name if in_error.face_up else None,
            card_rank=card.rank.name,
            card_suit=card.suit.name,
            position=position,
            note=None,
            reported_by=DEALER,
        )
        if in_error.then == "NEXT_HAND":
            self.carried = (handle.round_id, position)
        elif in_error.then == "DISCARD":
            count = in_error.discards
            if count is None:
                count = self._required_discards(card, face_up_in_shoe=False) or 0
            self._discard(card, count, self._face_down_discards(False), position=position)

    def _hand_options(
        self, handle: RoundHandle, p_cards: tuple[Card, ...], b_cards: tuple[Card, ...]
    ) -> None:
        """Chemin de Fer 4.9(a)2 and Table 3 "Op.": record which choice each hand made."""
        p2, b2 = hand_points(p_cards[:2]), hand_points(b_cards[:2])
        if player_rule(self.game, p2, b2) is Draw.OPTION:
            handle.options.append(self._option(handle, "PLAYER", len(p_cards) == 3))
        third = p_cards[2].value if len(p_cards) == 3 else None
        if banker_rule(self.game, p2, b2, third) is Draw.OPTION:
            handle.options.append(self._option(handle, "BANKER", len(b_cards) == 3))

    def _option(self, handle: RoundHandle, hand: str, drew: bool) -> str:
        return self.emit("pit", "HandOption", round_id=handle.round_id, hand=hand, drew=drew)

    def _settled_fields(
        self, round_id: str, seat: int, wager: str, outcome: str, paid: int
    ) -> dict[str, Any]:
        return {
            "round_id": round_id,
            "seat": seat,
            "patron_id": self.seated.get(seat),
            "wager": wager,
            "outcome": outcome,
            "paid_cents": paid,
        }

    def _settlement_steps(
        self,
        handle: RoundHandle,
        stakes: Mapping[int, Mapping[str, int]],
        outcome: RoundOutcome,
        paid: Mapping[tuple[int, str], int],
        results: Mapping[tuple[int, str], str],
        unsettled: set[tuple[int, str]],
        vig: Mapping[int, int],
        defer_vig: set[int],
    ) -> list[Step]:
        """3.10(b): losing wagers first (seats descending), then the table's procedure (b)1-4
        for paying winners and collecting or marking vigorish."""
        rid = handle.round_id
        offered = offered_wagers(self.rules)
        by_seat: dict[int, tuple[Settlement, ...]] = {}
        for seat, wagers in stakes.items():
            positive = {
                Wager[w]: amount
                for w, amount in wagers.items()
                if amount > 0 and Wager[w] in offered  # an unoffered wager is never settled
            }
            by_seat[seat] = settle_seat(self.rules, outcome, positive)
        handle.settlements = by_seat

        def settled(seat: int, s: Settlement, kind: str) -> list[Step]:
            key = (seat, s.wager.value)
            if key in unsettled:
                return []
            result = results.get(key, s.result.value)
            fields = self._settled_fields(
                rid, seat, s.wager.value, result, paid.get(key, s.paid_cents)
            )
            return [Step(kind, seat, "WagerSettled", fields)]

        def settle(seat: int, wanted: tuple[Result, ...], kind: str) -> list[Step]:
            chosen = [s for s in by_seat.get(seat, ()) if s.result in wanted]
            return [step for s in chosen for step in settled(seat, s, kind)]

        def collect(seat: int) -> list[Step]:
            amount = vig.get(seat, sum(s.vig_cents for s in by_seat.get(seat, ())))
            if amount <= 0:
                return []
            payload = "VigDeferred" if seat in defer_vig else "VigCollected"
            fields = {
                "round_id": rid,
                "seat": seat,
                "patron_id": self.seated.get(seat),
                "amount_cents": amount,
            }
            return [Step("VIG", seat, payload, fields)]

        steps: dict[str, Callable[[int], list[Step]]] = {
            "LOSE": lambda seat: settle(seat, (Result.LOSE,), "LOSE"),
            "VOID": lambda seat: settle(seat, (Result.VOID, Result.PUSH), "VOID"),
            "PAY": lambda seat: settle(seat, (Result.WIN,), "PAY"),
            "VIG": collect,
        }
        procedure = self.rules.settlement_procedure.value
        return [
            step
            for kind, seat in settlement_sequence(procedure, {*by_seat, *vig})
            for step in steps[kind](seat)
        ]

    # ------------------------------------------------------------------ forms
    def form_issued(self, seat: int | None, *, serial: int | None = None, **overrides: Any) -> str:
        """CompVigFormIssued (3.3(c)3i) for the vigorish deferred at ``seat``: complete and
        signed, the next serial of the series. ``overrides`` replace any field. A Form for no
        seat (``None``, a "walk-in") documents no deferral and is a finding (3.3(c)2-3)."""
        if serial is None:
            serial = self.next_serial
        self.next_serial = max(self.next_serial, serial + 1)
        owed = self.deferred.get(seat, 0) if seat is not None else 0
        name = patron_name(seat) if seat is not None else "Walk-in Patron"
        fields: dict[str, Any] = {
            "serial": serial,
            "amount_cents": owed,
            "patron_name": name,
            "patron_id": patron_id(seat) if seat is not None else None,
            "gaming_date": GAMING_DATE,
            "pit": self.pit,
            "table_location": self.location,
            "round_id": None,
            "seat": seat,
            "dealer_signature": DEALER,
            "pit_boss_signature": PIT_BOSS,
            "pit_clerk_signature": PIT_CLERK,
            "patron_signature": name,
            "signature_missing_reason": None,
            **overrides,
        }
        if seat is not None:
            self.deferred[seat] = max(0, owed - int(fields["amount_cents"]))
        self.forms.append(
            {
                "serial": serial,
                "amount_cents": int(fields["amount_cents"]),
                "patron_name": fields["patron_name"],
                "table_location": self.location,
                "gaming_date": GAMING_DATE,
                "marked_void": False,
            }
        )
        return self.emit("pit", "CompVigFormIssued", **fields)

    def form_voided(self, serial: int | None = None, **overrides: Any) -> str:
        """CompVigFormVoided (3.3(c)3vi): marked VOID, signed by the pit boss and pit clerk."""
        if serial is None:
            serial = self.next_serial
        self.next_serial = max(self.next_serial, serial + 1)
        fields = {
            "serial": serial,
            "marked_void": True,
            "pit_boss_signature": PIT_BOSS,
            "pit_clerk_signature": PIT_CLERK,
            "reason": "spoiled while writing",
            **overrides,
        }
        self.forms.append(
            {
                "serial": serial,
                "amount_cents": 0,
                "patron_name": None,
                "table_location": self.location,
                "gaming_date": GAMING_DATE,
                "marked_void": True,
            }
        )
        return self.emit("pit", "CompVigFormVoided", **fields)

    def accounting(
        self,
        *,
        original: Mapping[int, Mapping[str, Any]] | None = None,
        duplicate: Mapping[int, Mapping[str, Any]] | None = None,
        skip: Iterable[int] = (),
    ) -> list[str]:
        """End of the gaming day (3.3(c)3iii-iv): each Form's original counted from the drop
        box and its duplicate received from the pit clerk, identical unless overridden."""
        original, duplicate, skipped = dict(original or {}), dict(duplicate or {}), set(skip)
        ids = []
        for form in self.forms:
            serial = form["serial"]
            if serial in skipped:
                continue
            ids.append(
                self.emit("acct", "FormOriginalCounted", **{**form, **original.get(serial, {})})
            )
            ids.append(
                self.emit("acct", "FormDuplicateReceived", **{**form, **duplicate.get(serial, {})})
            )
        return ids


# ---------------------------------------------------------------------- shortcuts and helpers
def _without(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """``hand`` less its last copy of ``card`` (the card dealt in error is dealt separately)."""
    if card not in hand:
        return hand
    i = len(hand) - 1 - hand[::-1].index(card)
    return hand[:i] + hand[i + 1 :]


def table(rules_id: str = "pb-5-classic", table_id: str = "T01", **shoe: Any) -> TableDayBuilder:
    """A builder with the table opened and a legal shoe started (``shoe`` overrides it)."""
    b = TableDayBuilder(table_id, rules_id)
    b.open()
    b.shoe(**shoe)
    return b


def codes(result: ReplayResult) -> list[str]:
    """The codes of a replay's findings, sorted."""
    return sorted(f.code for f in result.findings)


def only(result: ReplayResult, code: str | None = None) -> Finding:
    """The one finding of a replay (with ``code``, if given); fails listing all of them."""
    chosen = [f for f in result.findings if code is None or f.code == code]
    assert len(chosen) == 1, (
        "expected exactly one finding"
        + (f" with code {code}" if code else "")
        + ", got:\n"
        + "\n".join(f.render() for f in result.findings)
    )
    return chosen[0]


def clean_day(rules_id: str = "pb-5-classic") -> tuple[TableDayBuilder, list[RoundHandle]]:
    """A short legal day with every kind of event: three rounds with Banker, Player, tie and
    side wagers, vigorish collected and deferred, a Form for a deferred balance, a void Form,
    a patron leaving mid-shoe, the shoe ending and accounting's count."""
    b = TableDayBuilder("T01", rules_id)
    b.open()
    b.shoe(burn="5H 2C 3D 4S 5S 6S")
    rounds = [
        # Player 6 stays, Banker 7 stays: Banker wins 7-6 with four cards.
        b.round(
            player="TH 6C",
            banker="3D 4S",
            wagers={
                3: {"BANKER": 10_100},
                5: {"PLAYER": 10_000, "TIE": 10_000},
                7: {"CARDS_4": 10_000},
            },
            defer_vig={3},
        ),
        # Player 5 draws a 4; Banker 5 draws against a 4 (Table 2): Player wins 9-4, six cards.
        b.round(
            player="2H 3C 4D",
            banker="5D KS 9C",
            wagers={
                3: {"PLAYER": 20_000, "PLAYER_BONUS": 10_000},
                5: {"BANKER": 10_000},
                7: {"CARDS_6": 10_000},
            },
        ),
        # 7-7: a tie; Banker and Player wagers are void, the tie bet wins 8 to 1.
        b.round(
            player="4H 3C",
            banker="2D 5S",
            wagers={3: {"BANKER": 10_000}, 7: {"TIE": 10_000, "PLAYER": 10_000}},
        ),
    ]
    b.form_voided()
    b.form_issued(seat=3)
    b.patron_leaves(3)
    b.end_shoe()
    b.close()
    b.accounting()
    return b, rounds


def busy_day() -> tuple[TableDayBuilder, list[RoundHandle]]:
    """The clean day plus errors of several kinds, so the findings are not empty."""
    b = TableDayBuilder("T09", "pb-5-classic")
    b.open()
    b.shoe(burn="5H 2C 3D 4S 5S")  # one card short of the burn
    rounds = [
        b.round(player="TH 6C", banker="3D 4S", wagers={3: {"BANKER": 10_100}}, defer_vig={3}),
        b.round(
            player="2H 3C 4D", banker="5D KS", wagers={3: {"PLAYER": 10_000}, 5: {"BANKER": 10_000}}
        ),
        b.round(
            player="4H 3C",
            banker="2D 5S",
            wagers={3: {"TIE": 10_000}, 5: {"BANKER": 10_000}},
            late_wagers=[(5, "TIE", 10_000)],
            paid={(3, "TIE"): 90_000},
        ),
        b.round(
            player="9H KC", banker="2D 3S", wagers={7: {"PLAYER": 10_000, "PLAYER_BONUS": 10_000}}
        ),
    ]
    b.form_issued(seat=3, serial=1002)
    b.patron_leaves(3)
    b.end_shoe()
    b.close()
    b.accounting()
    return b, rounds
