"""Irregularities: N.J.A.C. 19:47-3.12 and 7.11 as amended (shared/regulations/002_...), and
Chemin de Fer 4.12."""

from __future__ import annotations

import itertools

import pytest

from pipeline.rules.cards import Rank
from pipeline.rules.config import DisclosedCardProcedure, TableRules, problems
from pipeline.rules.games import Game
from pipeline.rules.irregularities import (
    ErrorCardFate,
    UnrectifiedDeal,
    banker_extra_card_initial_deal,
    banker_two_cards_instead_of_one,
    card_after_stay,
    disclosed_card_discards,
    dominant_player_called_card,
    dominant_player_three_cards,
    face_up_card_voids_hand,
    face_up_in_shoe_discards,
    unauthorized_player_third_card,
    unrectified_deal,
    unrectified_outcome,
)

from ._golden import NO_THIRD, banker_table, card_values

TABLE_2 = banker_table("table2.txt")
TABLE_3 = banker_table("table3.txt")
VALUES = {rank: card_values()[rank.value][0] for rank in Rank}
TEN_VALUE = [Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING]


def rules(game: Game = Game.PUNTO_BANCO, **kwargs: object) -> TableRules:
    if game is Game.CHEMIN_DE_FER:
        kwargs.setdefault("vig_deferral", False)
    r = TableRules("irr", game, **kwargs)  # type: ignore[arg-type]
    assert problems(r) == []
    return r


@pytest.mark.rule("PB-3.12a-UNAUTHORIZED-THIRD", "MB-7.11a-UNAUTHORIZED-THIRD")
@pytest.mark.parametrize("game", [Game.PUNTO_BANCO, Game.MINIBACCARAT], ids=lambda g: g.name)
def test_unauthorized_player_third_card_both_fates(game: Game) -> None:
    """N.J.A.C. 19:47-3.12(a) (7.11(a)): a third card dealt to the Player's Hand when none is
    authorized becomes the Banker's third card if Table 2 obliges the Banker to draw (the
    "If No Third Card" column: banker 0-5); otherwise the first card of the next hand, or,
    if disclosed, the pre-selected (c) procedure (PB-3.12a-UNAUTHORIZED-THIRD)."""
    r = rules(game)
    seen = set()
    for player in (6, 7, 8, 9):  # a player who must not draw: stays on 6-7, or a natural
        for banker in range(10):
            must_draw = player < 8 and banker < 8 and TABLE_2[banker][NO_THIRD] == "D"
            for disclosed in (False, True):
                fate = unauthorized_player_third_card(r, player, banker, disclosed)
                if must_draw:
                    expected = ErrorCardFate.BANKER_THIRD_CARD
                elif disclosed:
                    expected = ErrorCardFate.DISCLOSED_PROCEDURE
                else:
                    expected = ErrorCardFate.NEXT_HAND_FIRST_CARD
                assert fate is expected, (player, banker, disclosed)
                seen.add(fate)
    assert seen == set(ErrorCardFate) - {ErrorCardFate.PLAYER_THIRD_CARD}  # 4.12(i) only
    # the worked cases: banker 5 must draw, banker 6 must stay
    assert unauthorized_player_third_card(r, 6, 5, True) is ErrorCardFate.BANKER_THIRD_CARD
    assert unauthorized_player_third_card(r, 7, 6, False) is ErrorCardFate.NEXT_HAND_FIRST_CARD


@pytest.mark.rule("PB-3.12c-DISCLOSED", "CF-4.12h-DISCLOSED")
@pytest.mark.parametrize("game", [Game.PUNTO_BANCO, Game.CHEMIN_DE_FER], ids=lambda g: g.name)
@pytest.mark.parametrize("ten_value_discards", [1, 10])
def test_disclosed_card_procedure_c1(game: Game, ten_value_discards: int) -> None:
    """N.J.A.C. 19:47-3.12(c)1, 4.12(h)1: the disclosed card and as many more cards as its
    value go face up to the discard; a disclosed ten, jack, queen or king takes "either one or
    ten additional cards, as pre-selected" (PB-3.12c-DISCLOSED, CF-4.12h-DISCLOSED)."""
    r = rules(
        game,
        disclosed_card_procedure=DisclosedCardProcedure.DISCARD_BY_VALUE,
        disclosed_ten_value_discards=ten_value_discards,
    )
    for rank in Rank:
        expected = ten_value_discards if rank in TEN_VALUE else VALUES[rank]
        assert disclosed_card_discards(r, rank) == expected, rank
    assert disclosed_card_discards(r, Rank.ACE) == 1
    assert disclosed_card_discards(r, Rank.EIGHT) == 8  # the summary's example: 8 and 8 more


@pytest.mark.rule("MB-7.11c-DISCLOSED")
def test_minibaccarat_disclosed_ten_may_discard_nothing_more() -> None:
    """N.J.A.C. 19:47-7.11(c)1 (temporary amendment): "an additional number of cards equal to
    the value of the disclosed card" - a ten-value card's value is 0 (7.1(b)), so a
    Minibaccarat table may pre-select 0 as well as 1 or 10 (MB-7.11c-DISCLOSED)."""
    for n in (0, 1, 10):
        r = rules(Game.MINIBACCARAT, disclosed_ten_value_discards=n)
        assert all(disclosed_card_discards(r, rank) == n for rank in TEN_VALUE)
        assert disclosed_card_discards(r, Rank.NINE) == 9


@pytest.mark.rule("PB-3.12c-DISCLOSED", "CF-4.12h-DISCLOSED", "MB-7.11c-DISCLOSED")
@pytest.mark.parametrize("game", list(Game), ids=lambda g: g.name)
def test_disclosed_card_procedures_c2_and_c3(game: Game) -> None:
    """N.J.A.C. 19:47-3.12(c)2-3, 4.12(h)2-3, 7.11(c)2-3: (c)2 discards the card and ONE more
    face down, whatever its rank; (c)3 uses it as the first card of a simulated round, so no
    count of discards applies (None) (PB-3.12c-DISCLOSED)."""
    two = rules(game, disclosed_card_procedure=DisclosedCardProcedure.DISCARD_ONE_FACE_DOWN)
    three = rules(game, disclosed_card_procedure=DisclosedCardProcedure.SIMULATED_ROUND)
    for rank in Rank:
        assert disclosed_card_discards(two, rank) == 1
        assert disclosed_card_discards(three, rank) is None


@pytest.mark.rule("PB-3.12d-FACE-UP", "CF-4.12j-FACE-UP", "MB-7.11d-FACE-UP")
@pytest.mark.parametrize("rank", list(Rank), ids=lambda r: r.name)
def test_card_found_face_up_in_the_shoe(rank: Rank) -> None:
    """N.J.A.C. 19:47-3.12(d), 4.12(j), 7.11(d): a card found face up in the shoe is discarded
    with "an additional number of cards ... equal to the value of the card" - the defined
    "Value" of 3.1(b): a ten-value card takes no more cards, an ace one (PB-3.12d-FACE-UP)."""
    assert face_up_in_shoe_discards(rank) == VALUES[rank]


# --- Chemin de Fer 4.12 --------------------------------------------------------------------------


@pytest.mark.rule("CF-4.12b-BANKER-EXTRA")
def test_banker_with_extra_cards_in_the_initial_deal_counts_zero() -> None:
    """N.J.A.C. 19:47-4.12(b): "the Point Count of his hand shall be regarded as zero"
    (CF-4.12b-BANKER-EXTRA)."""
    assert banker_extra_card_initial_deal() == 0


@pytest.mark.rule("CF-4.12c-PLAYER-EXTRA")
def test_three_cards_to_the_dominant_player() -> None:
    """N.J.A.C. 19:47-4.12(c): "the highest that can be made with two or all three of the
    cards" - checked for every triple of values against a brute force (CF-4.12c-PLAYER-EXTRA)."""
    assert dominant_player_three_cards([5, 3, 9]) == 8  # 5+3
    assert dominant_player_three_cards([4, 4, 9]) == 8  # 4+4 beats 4+9=3 and all three=7
    assert dominant_player_three_cards([2, 3, 4]) == 9  # all three
    assert dominant_player_three_cards([0, 0, 0]) == 0
    for a, b, c in itertools.product(range(10), repeat=3):
        pairs = [(a + b) % 10, (a + c) % 10, (b + c) % 10]
        assert dominant_player_three_cards([a, b, c]) == max([*pairs, (a + b + c) % 10])


@pytest.mark.rule("CF-4.12d-BANKER-TWO")
def test_banker_takes_two_cards_instead_of_one() -> None:
    """N.J.A.C. 19:47-4.12(d): "the lowest that can be made with two [of] the cards", read as
    the Banker's two-card hand completed by either one of the two extra cards - the
    three-card hand he was entitled to (CF-4.12d-BANKER-TWO)."""
    assert banker_two_cards_instead_of_one([2, 3], [4, 9]) == 4  # 5+4=9, 5+9=14->4
    assert banker_two_cards_instead_of_one([0, 6], [1, 2]) == 7
    for two in itertools.product(range(10), repeat=2):
        for extra in itertools.product(range(10), repeat=2):
            want = min((sum(two) + e) % 10 for e in extra)
            assert banker_two_cards_instead_of_one(list(two), list(extra)) == want


@pytest.mark.rule("CF-4.12b-BANKER-EXTRA", "CF-4.12c-PLAYER-EXTRA", "CF-4.12d-BANKER-TWO")
def test_which_rule_counts_an_unrectified_deal() -> None:
    """N.J.A.C. 19:47-4.12(b)-(d): three Banker cards against two Player cards is (b), more
    than two in the initial deal; three Player cards against two Banker cards is (c); four
    Banker cards is (d), two taken instead of one; any other deal is none of them
    (CF-4.12b-BANKER-EXTRA, CF-4.12c-PLAYER-EXTRA, CF-4.12d-BANKER-TWO)."""
    assert unrectified_deal(True, 2, 3) is UnrectifiedDeal.BANKER_EXTRA_INITIAL
    assert unrectified_deal(True, 2, 4) is UnrectifiedDeal.BANKER_TWO_FOR_ONE
    assert unrectified_deal(True, 3, 4) is UnrectifiedDeal.BANKER_TWO_FOR_ONE
    assert unrectified_deal(False, 3, 2) is UnrectifiedDeal.PLAYER_EXTRA_INITIAL
    for wrong in ((True, 2, 2), (True, 3, 3), (True, 2, 5), (False, 2, 3), (False, 4, 2)):
        assert unrectified_deal(*wrong) is None, wrong


@pytest.mark.rule("CF-4.12b-BANKER-EXTRA", "CF-4.12c-PLAYER-EXTRA", "CF-4.12d-BANKER-TWO")
def test_unrectified_outcomes() -> None:
    """N.J.A.C. 19:47-4.12(b): the Banker's three cards count zero, and a card he draws after
    counts on top of it; (c) the Player's count is the highest of two or three cards; (d) the
    Banker's count is the lowest two-card hand completed by either extra card. The other hand
    counts its cards (CF-4.12b-BANKER-EXTRA, CF-4.12c-PLAYER-EXTRA, CF-4.12d-BANKER-TWO)."""
    b = unrectified_outcome(UnrectifiedDeal.BANKER_EXTRA_INITIAL, [2, 3], [9, 9, 9])
    assert (b.player_points, b.banker_points, b.banker_cards) == (5, 0, 3)
    b = unrectified_outcome(UnrectifiedDeal.BANKER_EXTRA_INITIAL, [2, 3, 1], [9, 9, 9, 4])
    assert (b.player_points, b.banker_points, b.total_cards) == (6, 4, 7)
    c = unrectified_outcome(UnrectifiedDeal.PLAYER_EXTRA_INITIAL, [4, 4, 9], [3, 3])
    assert (c.player_points, c.banker_points, c.winner.value) == (8, 6, "PLAYER")
    d = unrectified_outcome(UnrectifiedDeal.BANKER_TWO_FOR_ONE, [7, 0], [2, 3, 4, 9])
    assert (d.player_points, d.banker_points, d.winner.value) == (7, 4, "PLAYER")
    # either extra card may make the lowest: here the first of the two (3+3+5=11 -> 1, not 7)
    d = unrectified_outcome(UnrectifiedDeal.BANKER_TWO_FOR_ONE, [7, 0], [3, 3, 5, 1])
    assert (d.player_points, d.banker_points, d.winner.value) == (7, 1, "PLAYER")


@pytest.mark.rule("CF-4.12i-CARD-TO-PLAYER")
def test_dominant_player_called_card() -> None:
    """N.J.A.C. 19:47-4.12(i) with 4.9(a): the Dominant Player has said "Card" when his count
    obliges him to draw, 0-4, unless either hand is a natural; on 5 the choice is his and on
    6-7 he stays (CF-4.12i-CARD-TO-PLAYER)."""
    for player in range(10):
        for banker in range(10):
            must = player <= 4 and banker < 8
            assert dominant_player_called_card(player, banker) is must, (player, banker)


@pytest.mark.rule("CF-4.12e-CARD-AFTER-STAY", "CF-4.9c-TABLE3")
@pytest.mark.parametrize("dealer_called_card", [False, True])
def test_card_dealt_after_stay(dealer_called_card: bool) -> None:
    """N.J.A.C. 19:47-4.12(e)-(f): a card dealt face up to the Dominant Player after "Stay"
    becomes the Banker's card when the Banker must draw (Table 3, "If No 3rd Card": 0-5) -
    and under (e) also when he would have had the option, which (f), after the dealer
    mistakenly said "Card", excludes; otherwise (h) governs (CF-4.12e-CARD-AFTER-STAY)."""
    for player in (5, 6, 7):  # a Dominant Player who may say "Stay"
        for banker in range(10):
            cell = "S" if banker >= 8 else TABLE_3[banker][NO_THIRD]
            takes = cell == "D" or (cell == "Op." and not dealer_called_card)
            expected = (
                ErrorCardFate.BANKER_THIRD_CARD if takes else ErrorCardFate.DISCLOSED_PROCEDURE
            )
            assert card_after_stay(player, banker, dealer_called_card) is expected
    assert card_after_stay(6, 3, dealer_called_card) is ErrorCardFate.BANKER_THIRD_CARD
    assert card_after_stay(6, 6, dealer_called_card) is ErrorCardFate.DISCLOSED_PROCEDURE


@pytest.mark.rule("CF-4.12j-LAST-HAND-VOID", "CF-4.12j-FACE-UP", "PB-3.12d-FACE-UP")
@pytest.mark.parametrize("game", list(Game))
def test_face_up_card_voids_only_chemin_de_fer_last_hand(game: Game) -> None:
    """N.J.A.C. 19:47-4.12(j): "The last hand of a shoe shall be void when a card of that hand
    is found face upwards in the shoe." Any other hand, and every hand of Punto Banco (3.12(d))
    and Minibaccarat (7.11(d)), whose texts stop at the first sentence, goes on after the
    discards."""
    assert face_up_card_voids_hand(game, last_hand_of_shoe=False) is False
    assert face_up_card_voids_hand(game, last_hand_of_shoe=True) is (game is Game.CHEMIN_DE_FER)
