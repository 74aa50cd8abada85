"""The emulated Chemin de Fer hands that 4.12 rules on: the Banker's own dealing errors,
N.J.A.C. 19:47-4.12(a)-(d) and (i), and a card of the shoe's last hand found face up, 4.12(j).

The Banker deals the cards himself (4.8(d)), and sometimes wrongly. :func:`plan_misdeal` lays
out one such hand from the front of the shoe: where each card goes, when the pit reports it,
and what is announced and settled, either as the rule says or, ``mishandled``, as a careless
dealer does (the hand annulled by 4.12(a) played anyway; the hands of (b)-(d) and (i) counted
as the cards lie). :func:`plan_last_hand_face_up` lays out the last hand whose card is found
face up: void by the rule, or dealt on and settled. The emulator
(:mod:`pipeline.simulate.table`) emits either plan the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pipeline.rules.cards import Card, hand_points, point_count
from pipeline.rules.deal import InsufficientCardsError, Options, deal_order, deal_round
from pipeline.rules.draw import Draw, banker_rule, naturals_end_deal, player_rule
from pipeline.rules.games import Game
from pipeline.rules.irregularities import (
    UnrectifiedDeal,
    dominant_player_called_card,
    face_up_in_shoe_discards,
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

LAST_HAND_FACE_UP = "last_hand_face_up"
"""The rule subject of a card of the shoe's last hand found face up in the shoe (4.12(j))."""

REPORTED_KIND = {
    "banker_wrong_order": "BANKER_WRONG_ORDER",
    "banker_extra_initial": "BANKER_EXTRA_CARD",
    "player_extra_initial": "PLAYER_EXTRA_CARD",
    "banker_two_for_one": "BANKER_EXTRA_CARD",
    "banker_took_player_card": "BANKER_EXTRA_CARD",
    LAST_HAND_FACE_UP: "CARD_FACE_UP_IN_SHOE",
}
"""The IrregularityReported kind the pit reports each planned hand under."""

VOID_REASONS = {
    "banker_wrong_order": "Banker took cards in the wrong order in the initial deal",
    LAST_HAND_FACE_UP: "a card of the shoe's last hand was found face up in the shoe",
}
"""The hands the rule voids, with every wager returned (4.12(a) "annulled", 4.12(j) "void"),
and the reason the pit records for the void."""

MISHANDLING = {
    "banker_wrong_order": "Banker's misdeal (BANKER_WRONG_ORDER) played though annulled",
    LAST_HAND_FACE_UP: "a card of the shoe's last hand found face up (CARD_FACE_UP_IN_SHOE), "
    "the hand dealt on and settled though void",
}
"""What the careless dealer does with a hand the rule voids, as the ground truth says it; any
other misdeal is announced as the cards lie (:attr:`MisdealPlan.mishandling`)."""

CARDS_NEEDED = 8
"""The most cards a planned misdeal takes from the shoe (4.12(b) with both hands drawing)."""


@dataclass(frozen=True, slots=True)
class MisdealPlan:
    subject: str
    hands: tuple[str, ...]
    """Where each card from the front of the shoe goes, in order: a hand ("PLAYER" or
    "BANKER"), or the discard bucket ("DISCARD", 4.12(j))."""
    report_after: int
    """How many of those cards are dealt before the pit reports the misdeal."""
    named: int | None
    """The card the report names (4.12(i): the card the Banker took; 4.12(j): the card found
    face up); ``None``: the report names none, the excess card cannot be told (4.12(a)-(d))."""
    announced: RoundOutcome | None
    """What the dealer announces; ``None``: the hand is void, its wagers returned (4.12(a),
    (j), :data:`VOID_REASONS`)."""
    settled: RoundOutcome | None
    """The outcome the wagers are settled by; ``None`` when void."""

    @property
    def kind(self) -> str:
        return REPORTED_KIND[self.subject]

    @property
    def mishandling(self) -> str:
        """What the dealer did against the rule, as the ground truth says it."""
        default = f"Banker's misdeal ({self.kind}) announced as the cards lie"
        return MISHANDLING.get(self.subject, default)

    @property
    def mishandled(self) -> bool:
        """Whether the dealer got the rule wrong: played a void hand, or announced counts the
        rule does not give."""
        if self.subject in VOID_REASONS:
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


def plan_last_hand_face_up(
    shoe: Sequence[Card], behind_cut: int, options: Options, *, mishandled: bool
) -> MisdealPlan | None:
    """The shoe's last hand, in which the card right behind the cutting card, ``behind_cut``
    cards into ``shoe``, is found face up in the shoe (4.12(j)). By the first sentence it goes
    to the discard bucket face up with as many more as its value; by the second the hand is
    void. ``mishandled``, the dealer deals the hand on from the cards after the discards and
    settles it. ``None`` when the hand ends before that card (the cutting card then comes out
    in a later hand), or when the cards left after the discards could not complete it."""
    face_up = shoe[behind_cut]
    discarded = 1 + face_up_in_shoe_discards(face_up.rank)
    played = [*shoe[:behind_cut], *shoe[behind_cut + discarded :]]
    try:
        deal = deal_round(Game.CHEMIN_DE_FER, played, options)
    except InsufficientCardsError:
        return None
    order = deal_order(len(deal.player), len(deal.banker))
    if len(order) <= behind_cut:
        return None
    dealt = (*order[:behind_cut], *("DISCARD",) * discarded)
    if not mishandled:
        return MisdealPlan(LAST_HAND_FACE_UP, dealt, behind_cut, behind_cut, None, None)
    hands = (*dealt, *order[behind_cut:])
    return MisdealPlan(LAST_HAND_FACE_UP, hands, behind_cut, behind_cut, deal.outcome, deal.outcome)


def as_dealt(plan: MisdealPlan, shoe: Sequence[Card]) -> RoundOutcome:
    """What the cards add up to in the hands they were dealt to: the count a careless dealer
    announces for 4.12(b)-(d)."""
    player = [card.value for card, hand in zip(shoe, plan.hands, strict=False) if hand == "PLAYER"]
    banker = [card.value for card, hand in zip(shoe, plan.hands, strict=False) if hand == "BANKER"]
    return RoundOutcome(point_count(player), point_count(banker), len(player), len(banker))
