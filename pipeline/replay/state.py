"""The replay's state: what a table, its shoe and the round in play hold while events are
applied. The state machine (:mod:`pipeline.replay.machine`) changes it; the checks
(:mod:`pipeline.replay.checks`) only read it."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.events.model import TableEvent
from pipeline.rules.cards import Card
from pipeline.rules.games import Game
from pipeline.rules.irregularities import ErrorCardFate, UnrectifiedDeal, face_up_card_voids_hand
from pipeline.rules.settlement import Wager


@dataclass
class DealtCard:
    card: Card
    hand: str
    position: int
    event_id: str
    face_up: bool = True


@dataclass
class RoundState:
    round_id: str
    shoe_id: str
    round_number: int
    simulated: bool
    started_event: str
    started_at: int
    dealer_id: str | None = None
    """Who dealt the round: the dealer its RoundStarted names, else the one the table's
    previous RoundStarted or TableOpened named (a RoundStarted names the dealer only on a
    change: round.avsc)."""
    betting_closed: str | None = None
    first_card: str | None = None
    """The event id of the round's first card dealt to a hand: it closes betting whatever the
    pit terminal recorded (3.2(d) with 3.7(b), 4.7(e) with 4.8(d), 7.2(d) with 7.7(b))."""
    closed_after_cards: str | None = None
    """The event id of a "No More Bets" recorded after the round's first card."""
    after_first_card: list[TableEvent] = field(default_factory=list)
    """Wagers made, increased or withdrawn after the first card but not after a recorded "No
    More Bets" (those are in ``late``)."""
    wagers: dict[tuple[int, Wager], int] = field(default_factory=dict)
    wager_events: dict[tuple[int, Wager], list[str]] = field(default_factory=dict)
    patrons: dict[int, str | None] = field(default_factory=dict)
    late: list[TableEvent] = field(default_factory=list)
    cards: list[DealtCard] = field(default_factory=list)
    announced: TableEvent | None = None
    settled: list[TableEvent] = field(default_factory=list)
    vig: list[TableEvent] = field(default_factory=list)
    options: list[TableEvent] = field(default_factory=list)
    voided: TableEvent | None = None
    cut_card: TableEvent | None = None
    bank: list[TableEvent] = field(default_factory=list)
    late_acceptances: list[TableEvent] = field(default_factory=list)
    """Chemin de Fer wagers against the Banker accepted after "No More Bets" or the first
    card (4.7(e)): recorded with ``bank`` but covering nothing."""
    banker_wagers_after_cards: list[TableEvent] = field(default_factory=list)
    """Chemin de Fer: Banker's wagers recorded once the round's first card was dealt; the
    Banker wagers "immediately prior to dealing the cards" (4.6(a))."""
    error_card: ErrorCard | None = None
    disclosed: TableEvent | None = None
    """For a simulated round: the report of the disclosed card it is dealt with (3.12(c)3,
    4.12(h)3, 7.11(c)3)."""
    annulled: TableEvent | None = None
    """Chemin de Fer 4.12(a): the report that the Banker took cards in the wrong order in the
    initial deal, which annuls the hand."""
    insufficient_reported: TableEvent | None = None
    """The pit's report that the shoe cannot complete this round: the round is void (3.12(e),
    4.12(k); Minibaccarat by 7.11 as 3.12)."""
    unrectified: UnrectifiedReport | None = None
    """Chemin de Fer 4.12(b)-(d): an extra card reported without naming it, so the deal
    cannot be rectified and the regulation, not the cards, gives the counts."""
    handed: list[HandedCards] = field(default_factory=list)
    """Each hand's cards handed to a player (3.7(d), 7.7(c)3), in the order recorded."""
    face_up_in_shoe: TableEvent | None = None
    """The pit's report, during this round, of a card found face up in the shoe: discarded
    with as many more as its value (3.12(d), 4.12(j), 7.11(d)); in Chemin de Fer's last hand
    of a shoe it also voids the round (4.12(j), :func:`last_hand_face_up`)."""

    @property
    def banker_misdealt(self) -> bool:
        """Whether the Banker's deal was reported wrong beyond rectifying (4.12(a)-(d)): the
        deal order and the draw tables do not judge such a round; 4.12 says what counts."""
        return self.annulled is not None or self.unrectified is not None


@dataclass(frozen=True, slots=True)
class HandedCards:
    """One CardsHandedTo event, with every seat's wager on each hand as it stood when the
    cards were handed: the wagers the dealer had before him (3.7(d), 7.7(c)3)."""

    event_id: str
    hand: str
    third_card: bool
    seat: int
    patron_id: str | None
    on_player: dict[int, int]
    on_banker: dict[int, int]

    @property
    def on_hand(self) -> dict[int, int]:
        """Each seat's wager on the hand handed."""
        return self.on_player if self.hand == "PLAYER" else self.on_banker

    @property
    def on_other_hand(self) -> dict[int, int]:
        return self.on_banker if self.hand == "PLAYER" else self.on_player


@dataclass(frozen=True, slots=True)
class UnrectifiedReport:
    """An extra card reported without naming it, and which of 4.12(b)-(d) counts the deal."""

    report: TableEvent
    deal: UnrectifiedDeal


@dataclass
class ErrorCard:
    """A card dealt in error during the round, reported and moved where the regulation sends
    it; ``as_dealt`` are the round's cards before the move, to recognise a round settled as if
    nothing had happened."""

    report: TableEvent
    card: DealtCard
    fate: ErrorCardFate
    subject: str
    as_dealt: tuple[DealtCard, ...]


@dataclass
class CarriedCard:
    """A card that must open the next hand of play (3.12(a)-(b), 4.12(g), 7.11(a)-(b))."""

    report: TableEvent
    subject: str
    position: int


@dataclass
class ShoeState:
    shoe_id: str
    started: TableEvent
    cards_in_shoe: int
    burn_cards: list[DealtCard] = field(default_factory=list)
    burn_checked: bool = False
    cut_card_round: str | None = None
    cut_card_event: str | None = None
    """The CutCardReached that showed the cutting card in ``cut_card_round``."""
    last_hand_announced: bool = False
    rounds_after_cut: int = 0
    last_position: int = -1
    last_hand_position: int = -1
    """The furthest shoe position dealt to a hand (not burned or discarded)."""
    voided_for_insufficient: TableEvent | None = None
    """The RoundVoided that ended the shoe's play for insufficient cards (3.12(e), 4.12(k)):
    no round follows it until the next shoe."""


def last_hand_face_up(game: Game, rnd: RoundState) -> TableEvent | None:
    """The report of a card of ``rnd`` found face up in the shoe when that voids ``rnd``: the
    cutting card came out in it, so it is the shoe's last hand, and ``game``'s rule voids such
    a hand (Chemin de Fer 4.12(j)); ``None`` otherwise."""
    report = rnd.face_up_in_shoe
    if report is None or not face_up_card_voids_hand(game, rnd.cut_card is not None):
        return None
    return report


def void_claims_insufficient_cards(
    game: Game, rnd: RoundState | None, void: TableEvent, insufficient_code: str
) -> bool:
    """Whether ``void`` voids its round for insufficient cards (3.12(e), 4.12(k)): it says so
    by its rule code, or names none, and no other rule voids the round: annulled under
    4.12(a), or a Chemin de Fer last hand with a card found face up (4.12(j))."""
    if rnd is not None and (rnd.annulled is not None or last_hand_face_up(game, rnd) is not None):
        return False
    return void.get("rule_code") in (None, insufficient_code)


@dataclass
class Irregularity:
    event: TableEvent
    expected_extra: int | None
    discards: list[DealtCard] = field(default_factory=list)


@dataclass
class SeatBalance:
    """The deferred vigorish a seat's marker button shows (3.3(c)2): one patron's debt,
    from the deferral that opened it until it is settled."""

    patron_id: str | None
    """The patron who deferred it: the debtor, whoever sits at the seat later."""
    cents: int = 0
    event_ids: list[str] = field(default_factory=list)
    """What makes up ``cents``: the deferrals, and the payments and Forms that reduced it,
    in order; the evidence of any finding about the debt."""


@dataclass(frozen=True, slots=True)
class CuratorChange:
    """One CuratorChanged event, with the table as it stood when the shoe changed hands."""

    event_id: str
    after_round: str | None
    """The round after which the shoe changed hands; ``None`` at the commencement of play."""
    previous: int | None
    """The participant who held the shoe; ``None``: nobody yet, or the dealer (3.6(d))."""
    previous_known: bool
    """Whether ``previous`` is known: the table had reported a curator before this change."""
    declined: tuple[int, ...]
    seat: int | None
    """The new curator; ``None``: the dealer acts as curator."""
    seated: tuple[int, ...]
    """The seats occupied when the shoe was offered."""


@dataclass
class CuratorState:
    """Punto Banco's curator (3.6, 3.11), known from the table's first CuratorChanged on."""

    known: bool = False
    seat: int | None = None
    changes: list[CuratorChange] = field(default_factory=list)
    """Changes recorded since the last round closed; the checks of the round closing next read
    them, then the machine forgets them."""
