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
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pipeline.events.model import TableEvent
from pipeline.replay.findings import Severity
from pipeline.replay.state import RoundState, ShoeState
from pipeline.rules.codes import code_for, rule
from pipeline.rules.config import TableRules
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome


class Phase(enum.Enum):
    """Which rounds a check reads."""

    SETTLED = "settled"
    """A complete, non-simulated round whose hands give an outcome: announcement, wagers,
    settlements and vigorish are all on record."""
    VOIDED = "voided"
    """A round the pit voided (3.12(e), 4.12(k))."""
    SIMULATED = "simulated"
    """A simulated round dealt with a disclosed card, without wagers (3.12(c)3, 4.12(h)3,
    7.11(c)3)."""


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

    @property
    def game(self) -> Game:
        return self.rules.game

    def code(self, subject_or_code: str) -> str:
        """The rule code of ``subject_or_code`` in this round's game."""
        if "-" in subject_or_code:
            return subject_or_code
        return code_for(self.game, subject_or_code)

    def citation(self, subject_or_code: str) -> str:
        """``N.J.A.C. 19:47-...`` for the game's rule on ``subject_or_code``."""
        return rule(self.code(subject_or_code)).citation

    def wager_event_ids(self) -> tuple[str, ...]:
        return tuple(i for ids in self.round.wager_events.values() for i in ids)

    def settlements(self) -> tuple[TableEvent, ...]:
        return tuple(self.round.settled)


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
    betting,
    chemin_de_fer_money,
    disclosed,
    voided,
    voids,
)

__all__ = ["REGISTRY", "Flag", "Phase", "RoundView", "round_check", "run_checks"]
