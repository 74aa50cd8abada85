"""The emulated Chemin de Fer Banker's own dealing errors, N.J.A.C. 19:47-4.12(a)-(d) and (i).

The Banker deals the cards himself (4.8(d)), and sometimes wrongly. :func:`plan_misdeal` lays
out one such hand from the front of the shoe: where each card goes, when the pit reports it,
and what is announced and settled, either as the rule says or, ``mishandled``, as a careless
dealer does (the hand annulled by 4.12(a) played anyway; the hands of (b)-(d) and (i) counted
as the cards lie). The emulator (:mod:`pipeline.simulate.table`) emits the plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pipeline.rules.cards import Card, hand_points, point_count
from pipeline.rules.deal import Options
from pipeline.rules.draw import Draw, banker_rule, naturals_end_deal, player_rule
from pipeline.rules.games import Game
from pipeline.rules.irregularities import (
    UnrectifiedDeal,
    dominant_player_called_card,
    unrectified_outcome,
)
from pipeline.rules.outcome import RoundOutcome, outcome_of

MISDEALS = (
    "banker_wrong_order",
    "banker_extra_initial",
    "player_extra_initial",
    "banker_two_for_one",
    "banker_took_player_card",
)
"""The rule subjects (:mod:`pipeline.rules.codes`) of the misdeals the Banker makes."""

REPORTED_KIND = {
    "banker_wrong_order": "BANKER_WRONG_ORDER",
    "banker_extra_initial": "BANKER_EXTRA_CARD",
    "player_extra_initial": "PLAYER_EXTRA_CARD",
    "banker_two_for_one": "BANKER_EXTRA_CARD",
    "banker_took_player_card": "BANKER_EXTRA_CARD",
}
"""The IrregularityReported kind the pit reports each misdeal under."""

CARDS_NEEDED = 8
"""The most cards a planned misdeal takes from the shoe (4.12(b) with both hands drawing)."""


@dataclass(frozen=True, slots=True)
class MisdealPlan:
    subject: str
    hands: tuple[str, ...]
    """The hand ("PLAYER" or "BANKER") each card from the front of the shoe goes to, in order."""
    report_after: int
    """How many of those cards are dealt before the pit reports the misdeal."""
    named: int | None
    """The card the report names (4.12(i): the card the Banker took); ``None``: the report
    names none, the excess card cannot be told (4.12(a)-(d))."""
    announced: RoundOutcome | None
    """What the dealer announces; ``None``: the hand is annulled, voided with its wagers
    returned (4.12(a))."""
    settled: RoundOutcome | None
    """The outcome the wagers are settled by; ``None`` when annulled."""

    @property
    def kind(self) -> str:
        return REPORTED_KIND[self.subject]

    @property
    def mishandled(self) -> bool:
        """Whether the dealer got the rule wrong: played an annulled hand, or announced counts
        the rule does not give."""
        if self.subject == "banker_wrong_order":
            return self.announced is not None
        assert self.announced is not None and self.settled is not None
        said = (self.announced.player_points, self.announced.banker_points)
        return said != (self.settled.player_points, self.settled.banker_points)


def plan_misdeal(
    subject: str, shoe: Sequence[Card], options: Options, *, mishandled: bool
) -> MisdealPlan | None:
    """The hand in which the Banker misdeals as ``subject`` says, dealt from the front of
    ``shoe`` (at least :data:`CARDS_NEEDED` cards); ``None`` when these cards cannot make that
    misdeal (a natural ends the deal, 4.9(a)4, (b); a Dominant Player who does not call "Card" for
    4.12(i); a Banker who does not draw for 4.12(d))."""
    if subject not in MISDEALS:
        raise ValueError(f"unknown misdeal {subject!r}; choose one of {', '.join(MISDEALS)}")
    c = list(shoe[:CARDS_NEEDED])
    p2, b2 = hand_points((c[0], c[2])), hand_points((c[1], c[3]))
    if naturals_end_deal(p2, b2):
        return None
    plan = _plan(subject, c, p2, b2, options, mishandled)
    if (
        plan is None
        or not mishandled
        or subject in ("banker_wrong_order", "banker_took_player_card")
    ):
        return plan
    return replace(plan, announced=as_dealt(plan, c))  # (b)-(d): the cards counted as they lie


def _plan(
    subject: str, c: list[Card], p2: int, b2: int, options: Options, mishandled: bool
) -> MisdealPlan | None:
    values = [card.value for card in c]
    if subject == "banker_wrong_order":
        # The Banker takes the third card for his hand: P-B-B-P (4.12(a)).
        played = outcome_of((c[0], c[3]), (c[1], c[2])) if mishandled else None
        return MisdealPlan(
            subject, ("PLAYER", "BANKER", "BANKER", "PLAYER"), 4, None, played, played
        )
    if subject == "banker_took_player_card":
        return _card_to_player(c, p2, b2, options, mishandled)
    if subject == "banker_extra_initial":
        # P-B-P-B-B; then play proceeds by section 9 with the Banker counting zero (4.12(b)).
        hands = ["PLAYER", "BANKER", "PLAYER", "BANKER", "BANKER"]
        player, banker = [values[0], values[2]], [values[1], values[3], values[4]]
        third = _player_draws(p2, 0, options)
        if third:
            hands.append("PLAYER")
            player.append(values[5])
        if banker_rule(Game.CHEMIN_DE_FER, p2, 0, player[2] if third else None) is Draw.DRAW:
            hands.append("BANKER")
            banker.append(values[len(hands) - 1])
        return _counted(subject, hands, 5, UnrectifiedDeal.BANKER_EXTRA_INITIAL, player, banker)
    if subject == "player_extra_initial":
        # P-B-P-B-P: three cards to the Dominant Player; the Banker stays (4.12(c)).
        hands = ["PLAYER", "BANKER", "PLAYER", "BANKER", "PLAYER"]
        player, banker = [values[0], values[2], values[4]], [values[1], values[3]]
        return _counted(subject, hands, 5, UnrectifiedDeal.PLAYER_EXTRA_INITIAL, player, banker)
    # banker_two_for_one: after the initial deal, two cards where one was drawn (4.12(d))
    hands = ["PLAYER", "BANKER", "PLAYER", "BANKER"]
    player, banker = [values[0], values[2]], [values[1], values[3]]
    third = _player_draws(p2, b2, options)
    if third:
        hands.append("PLAYER")
        player.append(values[4])
    if banker_rule(Game.CHEMIN_DE_FER, p2, b2, player[2] if third else None) is not Draw.DRAW:
        return None
    at = len(hands)
    hands += ["BANKER", "BANKER"]
    banker += [values[at], values[at + 1]]
    return _counted(subject, hands, len(hands), UnrectifiedDeal.BANKER_TWO_FOR_ONE, player, banker)


def _player_draws(player_points: int, banker_points: int, options: Options) -> bool:
    """4.9(a): the Dominant Player draws on 0-4, chooses on 5."""
    rule = player_rule(Game.CHEMIN_DE_FER, player_points, banker_points)
    return rule is Draw.DRAW or (rule is Draw.OPTION and options.player_draws_on_5)


def _counted(
    subject: str,
    hands: list[str],
    report_after: int,
    deal: UnrectifiedDeal,
    player: list[int],
    banker: list[int],
) -> MisdealPlan:
    """4.12(b)-(d): settled and announced by the count the rule gives."""
    legal = unrectified_outcome(deal, player, banker)
    return MisdealPlan(subject, tuple(hands), report_after, None, legal, legal)


def _card_to_player(
    c: list[Card], p2: int, b2: int, options: Options, mishandled: bool
) -> MisdealPlan | None:
    """4.12(i): the Dominant Player called "Card" and the Banker took the fifth card for his
    hand. By the rule it is the Player's, and the Banker then draws or stays by Table 3;
    ``mishandled``, the Banker keeps it and the hands are announced as they lie."""
    if not dominant_player_called_card(p2, b2):
        return None
    hands = ["PLAYER", "BANKER", "PLAYER", "BANKER", "BANKER"]
    player, banker = [c[0], c[2], c[4]], [c[1], c[3]]
    if mishandled:
        kept = outcome_of((c[0], c[2]), (c[1], c[3], c[4]))
        return MisdealPlan(
            "banker_took_player_card", tuple(hands), 5, 4, kept, outcome_of(player, banker)
        )
    rule = banker_rule(Game.CHEMIN_DE_FER, p2, b2, c[4].value)
    if rule is Draw.DRAW or (rule is Draw.OPTION and options.banker_draws_on_option):
        hands.append("BANKER")
        banker.append(c[5])
    legal = outcome_of(player, banker)
    return MisdealPlan("banker_took_player_card", tuple(hands), 5, 4, legal, legal)


def as_dealt(plan: MisdealPlan, shoe: Sequence[Card]) -> RoundOutcome:
    """What the cards add up to in the hands they were dealt to: the count a careless dealer
    announces for 4.12(b)-(d)."""
    player = [card.value for card, hand in zip(shoe, plan.hands, strict=False) if hand == "PLAYER"]
    banker = [card.value for card, hand in zip(shoe, plan.hands, strict=False) if hand == "BANKER"]
    return RoundOutcome(point_count(player), point_count(banker), len(player), len(banker))
