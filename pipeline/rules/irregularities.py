"""Irregularities: cards dealt in error, disclosed, or found face up.

N.J.A.C. 19:47-3.12 (Punto Banco), 4.12 (Chemin de Fer) and 7.11 (Minibaccarat), as amended by
the temporary amendments that let the casino pre-select one of three procedures for a
disclosed card (3.12(c), 4.12(h), 7.11(c)).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from pipeline.rules.cards import TEN_VALUE_RANKS, Rank, card_value, point_count
from pipeline.rules.config import DisclosedCardProcedure, TableRules
from pipeline.rules.draw import Draw, banker_rule
from pipeline.rules.games import Game
from pipeline.rules.symbol import Symbol


class ErrorCardFate(Symbol):
    BANKER_THIRD_CARD = "BANKER_THIRD_CARD"
    NEXT_HAND_FIRST_CARD = "NEXT_HAND_FIRST_CARD"
    DISCLOSED_PROCEDURE = "DISCLOSED_PROCEDURE"


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
