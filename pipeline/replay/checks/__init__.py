"""The replay's rule checks: small pure functions over a finished round, one per requirement.

The state machine (:mod:`pipeline.replay.machine`) only applies events; when a round ends it
hands a read-only :class:`RoundView` to every registered check that applies to the game, and
turns each :class:`Flag` a check returns into a finding naming the table, shoe, round and
patron. A check knows the rules and the round, never the ledger, the clock or other tables:
like beancount's plugins, each can be read, tested and cited on its own.

A check is registered with :func:`round_check`::

    @round_check(when=Phase.SETTLED)
    def announcement_matches_cards(view: RoundView) -> Iterator[Flag]:
        '''3.10(a): ...'''

``Flag.code`` is a rule code (``PB-3.12e-INSUFFICIENT``) or a subject the game's own
subchapter regulates (``insufficient``), which :func:`pipeline.rules.codes.code_for` turns
into the game's code; the citation in a message comes from the same table
(:meth:`RoundView.citation`), never written by hand.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from pipeline.events.model import TableEvent
from pipeline.replay.findings import Severity
from pipeline.replay.state import CuratorState, RoundState, ShoeState, last_hand_face_up
from pipeline.rules.codes import code_for, rule_in
from pipeline.rules.config import TableRules
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome
from pipeline.rules.roles import BancoCall, BancoKind, BancoOffer
from pipeline.rules.settlement import Settlement, Wager, offered_wagers, settle_seat
from pipeline.rules.variants import Variant, variant


class Phase(enum.Enum):
    """Which rounds a check reads."""

    MISDEALT = "misdealt"
    """A complete, non-simulated round whose hands cannot give an outcome (a hand with fewer
    than two or more than three cards)."""
    SIMULATED = "simulated"
    """A simulated round dealt with a disclosed card, without wagers (3.12(c)3, 4.12(h)3,
    7.11(c)3), after the irregularity it resolves was counted."""
    DEALT = "dealt"
    """A complete round whose hands give an outcome, simulated or not: the deal itself."""
    SETTLED = "settled"
    """A complete, non-simulated round whose hands give an outcome: announcement, wagers,
    settlements and vigorish are all on record."""
    VOIDED = "voided"
    """A round the pit voided (3.12(e), 4.12(a), (j), (k))."""


@dataclass(frozen=True, slots=True)
class Flag:
    """What a check found; the machine adds where (table, shoe, round, patron)."""

    code: str
    severity: Severity
    message: str
    event_ids: tuple[str, ...] = ()
    seat: int | None = None
    expected: int | None = None
    actual: int | None = None
    round_id: str | None = None
    """The round the finding is about, when it is not the round that revealed it (a Banker
    who kept the bank after losing the round before, 4.11(a)1)."""


@dataclass(frozen=True, slots=True)
class RoundView:
    """One finished round as the checks see it. ``round`` and ``shoe`` are the machine's
    state objects; checks read them and never change them."""

    rules: TableRules
    round: RoundState
    shoe: ShoeState | None
    outcome: RoundOutcome | None = None
    cards_left: int | None = None
    """Cards left in the shoe after the last one dealt, when the shoe is known."""
    due: Mapping[int, tuple[Settlement, ...]] = field(default_factory=dict)
    """The recomputed settlement of every seat's offered wagers (:func:`due_settlements`),
    at :attr:`Phase.SETTLED`; the machine lists the same ones in its settlement rows."""
    curator: CuratorState | None = None
    """Punto Banco's curator, with the changes recorded since the previous round closed."""
    posted_limits: tuple[int, int] | None = None
    """The minimum and maximum wagers the table posted when it opened (8.2); ``None``: the
    filed ones."""

    @property
    def game(self) -> Game:
        return self.rules.game

    @property
    def variant(self) -> Variant:
        return variant(self.rules.game)

    def code(self, subject_or_code: str) -> str:
        """The rule code of ``subject_or_code`` in this round's game."""
        if "-" in subject_or_code:
            return subject_or_code
        return code_for(self.game, subject_or_code)

    def citation(self, subject_or_code: str) -> str:
        """``N.J.A.C. 19:47-...`` for the game's rule on ``subject_or_code``, in the game's
        own section where it repeats a Punto Banco rule (:func:`~pipeline.rules.codes.rule_in`)."""
        return rule_in(self.game, self.code(subject_or_code)).citation

    def cite(self, subject: str) -> str:
        """The first section of the game's rule on ``subject``, naming its draw table
        (:meth:`Variant.cite`)."""
        return self.variant.cite(subject)

    @property
    def last_hand_face_up(self) -> TableEvent | None:
        """The report of a card of this round found face up in the shoe, when that makes the
        round void: the shoe's last hand in Chemin de Fer (4.12(j)); ``None`` otherwise."""
        return last_hand_face_up(self.game, self.round)

    def settled_on(self, seat: int, wager: Wager) -> list[TableEvent]:
        """The settlements recorded for ``seat``'s ``wager``, in order."""
        return [
            e
            for e in self.round.settled
            if int(e.get("seat")) == seat and e.get("wager") == wager.value
        ]

    def wager_event_ids(self) -> tuple[str, ...]:
        return tuple(i for ids in self.round.wager_events.values() for i in ids)

    def settlements(self) -> tuple[TableEvent, ...]:
        return tuple(self.round.settled)


ACCEPTED = "CF-4.7a-ACCEPTED"
BANCO_ACTIONS: Mapping[str, BancoKind] = {k.value: k for k in BancoKind}
"""A ``PlayerBancoWager``'s action symbols taken as wagers against the Banker."""


def standing_acceptances(rnd: RoundState) -> list[TableEvent]:
    """Chemin de Fer 4.7(a)-(e): the wagers against the Banker the pit accepted (banco
    suivi, banco seul or partial) before "No More Bets", in the order recorded; one accepted
    after it covers nothing (:func:`~pipeline.replay.checks.chemin_de_fer_money`'s finding)."""
    late = {e.event_id for e in rnd.late_acceptances}
    return [
        e
        for e in rnd.bank
        if e.payload_type == "PlayerBancoWager"
        and e.get("action") in BANCO_ACTIONS
        and e.event_id not in late
    ]


def standing_banco_offers(rnd: RoundState) -> list[BancoOffer]:
    """The wagers against the Banker that stand (:func:`standing_acceptances`), as the rules
    read them."""
    return [
        BancoOffer(
            int(e.get("seat")), BANCO_ACTIONS[str(e.get("action"))], int(e.get("amount_cents"))
        )
        for e in standing_acceptances(rnd)
    ]


WHOLE_BANK_CALLS: Mapping[str, BancoKind] = {k.value: k for k in (BancoKind.SUIVI, BancoKind.SEUL)}
"""A ``BancoCalled``'s call symbols that claim the whole bank (4.7(b), (c))."""


def whole_bank_calls(rnd: RoundState) -> list[tuple[TableEvent, BancoCall]]:
    """The round's announcements to take the whole bank (``BancoCalled``, 4.7(b)-(c)),
    accepted or not, each with its event."""
    return [
        (e, BancoCall(int(e.get("seat")), WHOLE_BANK_CALLS[str(e.get("call"))]))
        for e in rnd.bank
        if e.payload_type == "BancoCalled" and e.get("call") in WHOLE_BANK_CALLS
    ]


def accepted_against_the_bank(rnd: RoundState) -> dict[int, int]:
    """What the pit accepted of each seat's wager against the Banker, by seat
    (:func:`standing_acceptances`)."""
    accepted: dict[int, int] = {}
    for e in standing_acceptances(rnd):
        seat = int(e.get("seat"))
        accepted[seat] = accepted.get(seat, 0) + int(e.get("amount_cents"))
    return accepted


def offered_stakes(rules: TableRules, rnd: RoundState) -> dict[int, dict[Wager, int]]:
    """Each seat's standing wagers the table offers (a wager the table does not offer is a
    finding, never settled), by seat. In Chemin de Fer a wager against the Banker the pit
    accepted is the amount accepted (4.7(a)): the rest never stood against the bank."""
    offered = offered_wagers(rules)
    accepted = accepted_against_the_bank(rnd) if variant(rules.game).participant_bank else {}
    stakes: dict[int, dict[Wager, int]] = {}
    for (seat, wager), amount in rnd.wagers.items():
        if wager is Wager.PLAYER and seat in accepted:
            amount = min(amount, accepted[seat])
        if amount > 0 and wager in offered:
            stakes.setdefault(seat, {})[wager] = amount
    return stakes


def due_settlements(
    rules: TableRules, rnd: RoundState, outcome: RoundOutcome
) -> dict[int, tuple[Settlement, ...]]:
    """What each seat's offered wagers settle at (3.3, 4.10(b)-(c), 7.3), seats in order. A
    Chemin de Fer wager put up beyond what the pit accepted is settled under
    ``CF-4.7a-ACCEPTED``, so a settlement on the amount put up is that rule's finding."""
    stakes = offered_stakes(rules, rnd)
    due = {seat: settle_seat(rules, outcome, stakes[seat]) for seat in sorted(stakes)}
    for seat, settlements in due.items():
        put_up = rnd.wagers.get((seat, Wager.PLAYER), 0)
        due[seat] = tuple(
            replace(s, rule_code=ACCEPTED)
            if s.wager is Wager.PLAYER and s.stake_cents < put_up
            else s
            for s in settlements
        )
    return due


RoundCheck = Callable[[RoundView], Iterable[Flag]]


@dataclass(frozen=True, slots=True)
class Registered:
    check: RoundCheck
    when: Phase
    games: frozenset[Game]


REGISTRY: list[Registered] = []
"""Every round check, in registration order (the order findings of one round are listed)."""


def round_check(
    *, when: Phase, games: Iterable[Game] = tuple(Game)
) -> Callable[[RoundCheck], RoundCheck]:
    """Register a round check for ``games`` (all three by default) at ``when``."""

    def register(check: RoundCheck) -> RoundCheck:
        REGISTRY.append(Registered(check, when, frozenset(games)))
        return check

    return register


def run_checks(view: RoundView, when: Phase) -> list[Flag]:
    """Every flag the registered checks raise on ``view`` at ``when``."""
    game = view.game
    return [
        flag
        for entry in REGISTRY
        if entry.when is when and game in entry.games
        for flag in entry.check(view)
    ]


# The modules below register their checks on import; the list is the registry's table of
# contents.
from pipeline.replay.checks import (  # noqa: E402,F401
    announcement,
    banker_deal,
    betting,
    chemin_de_fer_money,
    curator,
    deal,
    disclosed,
    error_cards,
    handed,
    last_hand,
    late_wagers,
    settlement,
    voided,
    voids,
    wagers,
)

__all__ = [
    "REGISTRY",
    "Flag",
    "Phase",
    "Registered",
    "RoundView",
    "due_settlements",
    "offered_stakes",
    "round_check",
    "run_checks",
]
