"""The rows a replay derives. Each keeps the ids of the events it came from (its provenance),
and recorded values sit beside recomputed ones, never replacing them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from pipeline.replay.findings import Finding
from pipeline.rules.settlement import Result, Settlement


@dataclass
class RoundRow:
    table_id: str
    shoe_id: str
    round_id: str
    round_number: int
    simulated: bool
    status: str  # COMPLETE, INCOMPLETE (data gap or malformed deal), VOID (3.12(e))
    player_cards: str
    banker_cards: str
    started_at: int
    started_event: str
    player_points: int | None = None
    banker_points: int | None = None
    winner: str | None = None
    total_cards: int | None = None
    natural: bool | None = None
    dragon_7: bool | None = None
    announced: str | None = None
    options_taken: str = ""
    dealer_id: str | None = None
    """The dealer its RoundStarted names, else the one the table's previous RoundStarted or
    TableOpened named (:attr:`pipeline.replay.state.RoundState.dealer_id`)."""


@dataclass(frozen=True)
class CardRow:
    table_id: str
    shoe_id: str
    round_id: str | None
    position: int
    rank: str
    suit: str
    hand: str
    event_id: str


@dataclass(frozen=True)
class WagerRow:
    table_id: str
    round_id: str
    seat: int
    patron_id: str | None
    wager: str
    amount_cents: int
    late: bool
    event_ids: tuple[str, ...]


@dataclass(frozen=True)
class SettlementRow:
    table_id: str
    round_id: str
    seat: int
    patron_id: str | None
    wager: str
    stake_cents: int
    expected_result: str
    expected_paid_cents: int
    expected_vig_cents: int
    recorded_result: str | None
    recorded_paid_cents: int | None
    rule_code: str
    event_ids: tuple[str, ...]


@dataclass(frozen=True)
class VigRow:
    """One movement of vigorish at a seat: COLLECTED, DEFERRED (marker button placed),
    DEFERRED_COLLECTED, DOCUMENTED (on a Form) or WRITTEN_OFF (deadline missed)."""

    table_id: str
    shoe_id: str | None
    round_id: str | None
    seat: int
    patron_id: str | None
    kind: str
    amount_cents: int
    balance_after_cents: int
    event_id: str
    occurred_at: int


@dataclass(frozen=True)
class FormRow:
    table_id: str
    serial: int
    status: str  # ISSUED or VOIDED
    amount_cents: int
    patron_name: str | None
    patron_id: str | None
    gaming_date: date | None
    pit: str | None
    table_location: str | None
    dealer_signature: str | None
    pit_boss_signature: str | None
    pit_clerk_signature: str | None
    patron_signature: str | None
    signature_missing_reason: str | None
    marked_void: bool | None
    event_id: str


@dataclass(frozen=True)
class FormEventRow:
    table_id: str
    serial: int
    kind: str  # ORIGINAL_COUNTED or DUPLICATE_RECEIVED
    amount_cents: int
    patron_name: str | None
    table_location: str | None
    gaming_date: date | None
    marked_void: bool
    matched: bool
    event_id: str


@dataclass(frozen=True)
class FormSeriesRow:
    table_id: str
    first_serial: int
    last_serial: int
    used: int
    voided: int
    event_id: str


@dataclass(frozen=True)
class PracticeRow:
    """What a table's devices show it practised, for the rules that bind a pit's tables
    together (:mod:`pipeline.replay.pit`): a shuffling option recorded for a shoe, or a
    settlement procedure a round was recorded in.

    ``breaks`` is empty for the table's first shoe or round under ``practice``; a
    SETTLEMENT row naming another procedure in ``breaks`` is the table's first round whose
    recorded order keeps to ``practice`` and breaks that one (``detail`` says how)."""

    table_id: str
    pit: str
    game: str
    subject: str  # SHUFFLE or SETTLEMENT
    practice: str  # the shuffling option, or the settlement procedure's number (b)1-4
    breaks: str | None
    shoe_id: str | None
    round_id: str | None
    detail: str | None
    event_ids: tuple[str, ...]


@dataclass
class TableDaySummary:
    """The accountant's figures for one table and gaming day (all cents)."""

    table_id: str
    rules_id: str | None = None
    game: str | None = None
    pit: str | None = None
    location: str | None = None
    gaming_date: date | None = None
    dealer_id: str | None = None
    shoes: int = 0
    rounds: int = 0
    handle_cents: int = 0
    win_by_wager: dict[str, int] = field(default_factory=dict)
    """House win per wager type before vigorish: stakes lost minus winnings paid."""
    vig_expected_cents: int = 0
    vig_collected_cents: int = 0
    vig_uncollected_cents: int = 0
    comp_vig_cents: int = 0
    duplicates: int = 0
    findings: int = 0

    def add_settlement(self, s: Settlement) -> None:
        house = (
            s.stake_cents
            if s.result is Result.LOSE
            else (-s.paid_cents if s.result is Result.WIN else 0)
        )
        self.win_by_wager[s.wager.value] = self.win_by_wager.get(s.wager.value, 0) + house
        self.vig_expected_cents += s.vig_cents

    @property
    def win_cents(self) -> int:
        """Table game win as recomputed: wager results plus vigorish collected. Vigorish
        documented on Forms is a complimentary (3.3(c)3vii) and not in the win."""
        return sum(self.win_by_wager.values()) + self.vig_collected_cents


APPENDED_ROWS: tuple[str, ...] = ("rounds", "cards", "wagers", "settlements", "vig_ledger")
"""The lists of a :class:`ReplayResult` the replay only appends to as a day goes on (a round's
rows when it ends, vigorish as it moves); the others are rebuilt whole at the end of a day."""


@dataclass
class ReplayResult:
    table_id: str
    rounds: list[RoundRow] = field(default_factory=list)
    cards: list[CardRow] = field(default_factory=list)
    wagers: list[WagerRow] = field(default_factory=list)
    settlements: list[SettlementRow] = field(default_factory=list)
    vig_ledger: list[VigRow] = field(default_factory=list)
    forms: list[FormRow] = field(default_factory=list)
    form_events: list[FormEventRow] = field(default_factory=list)
    form_series: list[FormSeriesRow] = field(default_factory=list)
    practices: list[PracticeRow] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    summary: TableDaySummary | None = None
    event_count: int = 0
