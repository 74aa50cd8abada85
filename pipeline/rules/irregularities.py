"""Irregularities: cards dealt in error, disclosed, or found face up.

N.J.A.C. 19:47-3.12 (Punto Banco), 4.12 (Chemin de Fer) and 7.11 (Minibaccarat), as amended by
the temporary amendments that let the casino pre-select one of three procedures for a
disclosed card (3.12(c), 4.12(h), 7.11(c)).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from pipeline.rules.cards import TEN_VALUE_RANKS, Point, Rank, card_value, point_count
from pipeline.rules.codes import regulates
from pipeline.rules.config import DisclosedCardProcedure, TableRules
from pipeline.rules.draw import Draw, banker_rule, player_rule
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome
from pipeline.rules.symbol import Symbol


class ErrorCardFate(Symbol):
    BANKER_THIRD_CARD = "BANKER_THIRD_CARD"
    NEXT_HAND_FIRST_CARD = "NEXT_HAND_FIRST_CARD"
    DISCLOSED_PROCEDURE = "DISCLOSED_PROCEDURE"
    PLAYER_THIRD_CARD = "PLAYER_THIRD_CARD"
    """Chemin de Fer 4.12(i): the card the Banker took belongs to the Dominant Player."""


def unauthorized_player_third_card(
    rules: TableRules, player_points: int, banker_points: int, disclosed: bool
) -> ErrorCardFate:
    """A third card dealt to the Player's Hand when none was authorized, 3.12(a) (7.11(a)).

    It becomes the Banker's third card if the Banker's Hand must draw by Table 2 (the player
    having no authorized third card, the "no third card" column applies); otherwise it is the
    next hand's first card, unless it was disclosed, when (c) applies.
    """
    if banker_rule(rules.game, player_points, banker_points, None) is Draw.DRAW:
        return ErrorCardFate.BANKER_THIRD_CARD
    return ErrorCardFate.DISCLOSED_PROCEDURE if disclosed else ErrorCardFate.NEXT_HAND_FIRST_CARD


def card_after_stay(
    player_points: int, banker_points: int, dealer_called_card: bool
) -> ErrorCardFate:
    """Chemin de Fer: a card dealt face up to the Dominant Player after "Stay", 4.12(e)-(f).

    Under (e) it becomes the Banker's card if the Banker must draw or would have had the
    option; under (f), when the dealer mistakenly said "Card", only if the Banker must draw.
    Otherwise (h) applies.
    """
    rule = banker_rule(Game.CHEMIN_DE_FER, player_points, banker_points, None)
    if rule is Draw.DRAW or (rule is Draw.OPTION and not dealer_called_card):
        return ErrorCardFate.BANKER_THIRD_CARD
    return ErrorCardFate.DISCLOSED_PROCEDURE


def dominant_player_called_card(player_points: int, banker_points: int) -> bool:
    """Chemin de Fer 4.12(i): whether the Dominant Player, holding ``player_points`` on two
    cards, has said "Card" before any card after the initial deal: he must draw on 0-4
    (4.9(a)1), unless either hand is a natural. On 5 the choice is his (4.9(a)2) and is not
    decided by the count, so this answers only for the counts that oblige him."""
    return player_rule(Game.CHEMIN_DE_FER, player_points, banker_points) is Draw.DRAW


def disclosed_card_discards(rules: TableRules, rank: Rank) -> int | None:
    """How many cards besides the disclosed one go to the discard rack, 3.12(c), 4.12(h), 7.11(c).

    (c)1: as many as the card's value, and for a ten-value card the pre-selected one or ten
    (Minibaccarat's 7.11(c)1 reads only "value", which is zero, so it may also be zero);
    (c)2: one card face down; (c)3: none, the card starts a simulated round (returns ``None``).
    """
    procedure = rules.disclosed_card_procedure
    if procedure is DisclosedCardProcedure.DISCARD_BY_VALUE:
        if rank in TEN_VALUE_RANKS:
            return rules.disclosed_ten_value_discards
        return card_value(rank)
    if procedure is DisclosedCardProcedure.DISCARD_ONE_FACE_DOWN:
        return 1
    return None


def face_up_in_shoe_discards(rank: Rank) -> int:
    """A card found face up in the shoe is discarded with as many more cards as its "value",
    N.J.A.C. 19:47-3.12(d), 4.12(j), 7.11(d). "Value" is the defined term of 3.1(b), so a
    ten-value card discards no more cards (the 1-or-10 choice of (c)1 is not repeated here)."""
    return card_value(rank)


def face_up_card_voids_hand(game: Game, last_hand_of_shoe: bool) -> bool:
    """Whether a card of a hand found face up in the shoe voids that hand, N.J.A.C.
    19:47-4.12(j), second sentence: "The last hand of a shoe shall be void when a card of that
    hand is found face upwards in the shoe." (rule code ``CF-4.12j-LAST-HAND-VOID``).

    Only Chemin de Fer's text has the sentence; 3.12(d) and 7.11(d) stop at the first, as does
    4.12(j) for any hand before the last: the card is discarded with as many more as its value
    (:func:`face_up_in_shoe_discards`) and the hand goes on. Chemin de Fer announces no "last
    hand" (3.8(e) is Punto Banco's); its last hand is the one in which the cutting card is
    drawn, after which no hand is dealt from the shoe (4.12(g), (k)).
    """
    return last_hand_of_shoe and regulates(game, "last_hand_face_up")


class UnrectifiedDeal(Symbol):
    """A Chemin de Fer deal the Banker got wrong and cannot rectify, 4.12(b)-(d): the hands
    are counted by the regulation instead of by the cards. The value is the rule subject of
    :mod:`pipeline.rules.codes`."""

    BANKER_EXTRA_INITIAL = "banker_extra_initial"
    """4.12(b): the Banker took more than two cards in the initial deal."""
    PLAYER_EXTRA_INITIAL = "player_extra_initial"
    """4.12(c): the Banker gave the Dominant Player three cards in the initial deal."""
    BANKER_TWO_FOR_ONE = "banker_two_for_one"
    """4.12(d): after the initial deal the Banker took two cards instead of one."""


def unrectified_deal(
    extra_to_banker: bool, player_cards: int, banker_cards: int
) -> UnrectifiedDeal | None:
    """Which of 4.12(b)-(d) an extra card applies, from the cards each hand holds when the
    irregularity is reported (``None``: none of them describes that deal).

    - (b): the Banker's Hand holds three cards and the Player's two: the third went to the
      Banker in the initial deal, before any card after it;
    - (c): the Player's Hand holds three cards and the Banker's two;
    - (d): the Banker's Hand holds four cards: two taken where one was drawn.
    """
    if extra_to_banker:
        if banker_cards == 3 and player_cards == 2:
            return UnrectifiedDeal.BANKER_EXTRA_INITIAL
        if banker_cards == 4:
            return UnrectifiedDeal.BANKER_TWO_FOR_ONE
        return None
    if player_cards == 3 and banker_cards == 2:
        return UnrectifiedDeal.PLAYER_EXTRA_INITIAL
    return None


def unrectified_outcome(
    deal: UnrectifiedDeal, player_values: Sequence[int], banker_values: Sequence[int]
) -> RoundOutcome:
    """The round's outcome when ``deal`` could not be rectified, 4.12(b)-(d), from each hand's
    card values in the order the hand received them (every card, including any drawn after
    the irregularity). The card counts stay those dealt."""
    player: Point = point_count(player_values)
    banker: Point = point_count(banker_values)
    if deal is UnrectifiedDeal.BANKER_EXTRA_INITIAL:
        # "regarded as zero and the play shall proceed in accordance with section 9": a card
        # the Banker draws afterwards counts on top of zero.
        banker = point_count((banker_extra_card_initial_deal(), *banker_values[3:]))
    elif deal is UnrectifiedDeal.PLAYER_EXTRA_INITIAL:
        player = Point(dominant_player_three_cards(player_values[:3]))
    else:
        banker = Point(banker_two_cards_instead_of_one(banker_values[:2], banker_values[2:4]))
    return RoundOutcome(player, banker, len(player_values), len(banker_values))


def banker_extra_card_initial_deal() -> int:
    """Chemin de Fer 4.12(b): a Banker who took more than two cards in the initial deal and
    cannot rectify it has a point count of zero."""
    return 0


def dominant_player_three_cards(values: Sequence[int]) -> int:
    """Chemin de Fer 4.12(c): three cards to the Dominant Player in the initial deal, the excess
    one unknown: the highest count that two or all three of the cards make."""
    return max(point_count(c) for k in (2, 3) for c in combinations(values, k))


def banker_two_cards_instead_of_one(two_card_values: Sequence[int], drawn: Sequence[int]) -> int:
    """Chemin de Fer 4.12(d): a Banker who takes two cards instead of one after the initial deal
    counts the lowest total his two cards make with either one of the extra cards.

    The text reads "the lowest that can be made with two or the cards"; this takes it as the
    two-card hand completed by either extra card, the deal he was entitled to."""
    return min(point_count((*two_card_values, extra)) for extra in drawn)
