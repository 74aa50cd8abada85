"""Dealing one round: N.J.A.C. 19:47-3.7(c), 3.8(c)-(d), 3.9, 3.12(e); 4.8(d), 4.9, 4.12(k)."""

from __future__ import annotations

import itertools

import pytest

from pipeline.rules.cards import Card, Rank, Suit, cards
from pipeline.rules.deal import (
    MOST_CARDS_IN_A_ROUND,
    Deal,
    InsufficientCardsError,
    Options,
    deal_round,
    void_for_insufficient_cards,
)
from pipeline.rules.games import Game
from pipeline.rules.outcome import Winner

from ._reference import expected_deal

RANK_OF_VALUE = {0: Rank.TEN, **{v: Rank(str(v)) for v in range(2, 10)}, 1: Rank.ACE}
ALL_OPTIONS = [Options(p, b) for p in (True, False) for b in (True, False)]


def _card(value: int, suit: Suit = Suit.CLUBS) -> Card:
    return Card(RANK_OF_VALUE[value], suit)


@pytest.mark.rule("PB-3.7c-DEAL-ORDER", "CF-4.8d-DEAL-ORDER")
@pytest.mark.parametrize("game", list(Game), ids=lambda g: g.name)
def test_first_and_third_cards_to_player_second_and_fourth_to_banker(game: Game) -> None:
    """N.J.A.C. 19:47-3.7(c) (4.8(d), 7.7(c)): "The first and third card dealt shall
    constitute ... the Player's Hand. The second and fourth ... the Banker's Hand"
    (PB-3.7c-DEAL-ORDER, CF-4.8d-DEAL-ORDER)."""
    shoe = cards("AH 2C 5D 4S 9H 9C")  # player A+5 = 6 stays, banker 2+4 = 6 stays
    deal = deal_round(game, shoe)
    assert deal.player == cards("AH 5D")
    assert deal.banker == cards("2C 4S")
    assert deal.cards_used == 4
    assert deal.options_taken == ()


@pytest.mark.rule("PB-3.9a-NATURAL", "PB-3.8d-ONE-MORE")
@pytest.mark.parametrize("game", list(Game), ids=lambda g: g.name)
@pytest.mark.parametrize(
    "shoe",
    [
        "4H 2C 4D 3S 9C 9D",  # player natural 8, banker 5 (would draw)
        "9H TC KD 3S 9C 9D",  # player natural 9, banker 3
        "2H 4C 2D 5S 9C 9D",  # player 4 (would draw), banker natural 9
        "TH 8C QD KS 9C 9D",  # player 0, banker natural 8
        "8H 9C KD QS 9C 9D",  # naturals both
    ],
)
def test_a_natural_stops_the_deal(game: Game, shoe: str) -> None:
    """N.J.A.C. 19:47-3.9(a), 4.9(a)4, 4.9(b): with a natural in either hand no more cards
    are dealt to either hand (PB-3.9a-NATURAL)."""
    deal = deal_round(game, cards(shoe))
    assert deal.cards_used == 4
    assert len(deal.player) == len(deal.banker) == 2


@pytest.mark.rule("PB-3.8c-THIRD-ORDER", "PB-3.9b-TABLE1", "PB-3.9c-TABLE2")
@pytest.mark.parametrize("game", [Game.PUNTO_BANCO, Game.MINIBACCARAT], ids=lambda g: g.name)
def test_player_third_card_is_dealt_before_the_banker_third_card(game: Game) -> None:
    """N.J.A.C. 19:47-3.8(c): a third card goes "first ... to the Player's Hand and then to
    the Banker's Hand": card 5 to the player, card 6 to the banker (PB-3.8c-THIRD-ORDER)."""
    deal = deal_round(game, cards("2H 3C 2D 3S 7H 9C 5D"))
    # player 4 draws the 7; banker 6 against a third card of 7 draws (Table 2).
    assert deal.player == cards("2H 2D 7H")
    assert deal.banker == cards("3C 3S 9C")
    assert deal.cards_used == 6


@pytest.mark.rule("PB-3.8c-THIRD-ORDER", "PB-3.9c-TABLE2")
def test_banker_takes_card_5_when_the_player_stays() -> None:
    """N.J.A.C. 19:47-3.8(c), 3.9(c) Table 2 "If No Third Card Drawn": player 6 stays and
    banker 4 draws the fifth card (PB-3.8c-THIRD-ORDER)."""
    deal = deal_round(Game.PUNTO_BANCO, cards("3H 2C 3D 2S 9H 8C"))
    assert deal.player == cards("3H 3D")
    assert deal.banker == cards("2C 2S 9H")


@pytest.mark.rule("PB-3.9c-TABLE2", "PB-3.1b-VALUE")
def test_ten_value_player_third_card_uses_column_0() -> None:
    """N.J.A.C. 19:47-3.9(e), 3.1(b): a jack as the player's third card has value 0, so
    banker 4 stays (column 0 is "S") while a 2 makes it draw (PB-3.9c-TABLE2)."""
    stays = deal_round(Game.PUNTO_BANCO, cards("KH 4C QD TS JH 9C"))
    assert stays.player == cards("KH QD JH")
    assert stays.banker == cards("4C TS")
    draws = deal_round(Game.PUNTO_BANCO, cards("KH 4C QD TS 2H 9C"))
    assert draws.banker == cards("4C TS 9C")


@pytest.mark.rule("CF-4.9a-PLAYER")
def test_chemin_de_fer_player_option_on_5_is_recorded() -> None:
    """N.J.A.C. 19:47-4.9(a)2: on 5 the Dominant Player may say "Card" or "Stay"; the choice
    is recorded in ``options_taken`` and the banker then uses the matching column of
    Table 3 (CF-4.9a-PLAYER)."""
    shoe = cards("2H TC 3D 4S 8H 9C")  # player 5, banker 4
    stay = deal_round(Game.CHEMIN_DE_FER, shoe, Options(player_draws_on_5=False))
    assert stay.options_taken == ("PLAYER:STAY",)
    assert stay.player == cards("2H 3D")
    assert stay.banker == cards("TC 4S 8H")  # banker 4, no third card: draws
    draw = deal_round(Game.CHEMIN_DE_FER, shoe, Options(player_draws_on_5=True))
    assert draw.options_taken == ("PLAYER:DRAW",)
    assert draw.player == cards("2H 3D 8H")
    assert draw.banker == cards("TC 4S")  # banker 4 against an 8: stays


@pytest.mark.rule("CF-4.9c-TABLE3")
@pytest.mark.parametrize(
    ("shoe", "banker_points", "third"),
    [("TH 3C 2D KS 9H 5C", 3, 9), ("TH 2C 2D 3S 4H 5C", 5, 4)],
)
def test_chemin_de_fer_banker_option_is_recorded(shoe: str, banker_points: int, third: int) -> None:
    """N.J.A.C. 19:47-4.9(f)-(g): an "Op." cell of Table 3 (banker 3 vs 9, banker 5 vs 4) is
    the Banker's choice, recorded in ``options_taken`` (CF-4.9c-TABLE3)."""
    dealt = cards(shoe)
    draw = deal_round(Game.CHEMIN_DE_FER, dealt, Options(banker_draws_on_option=True))
    assert draw.outcome.banker_cards == 3
    assert draw.options_taken == ("BANKER:DRAW",)
    stay = deal_round(Game.CHEMIN_DE_FER, dealt, Options(banker_draws_on_option=False))
    assert stay.options_taken == ("BANKER:STAY",)
    assert stay.banker == (dealt[1], dealt[3])
    assert stay.player[2].value == third
    assert stay.outcome.banker_points == banker_points


@pytest.mark.rule("CF-4.9a-PLAYER", "CF-4.9c-TABLE3")
def test_chemin_de_fer_both_options_in_one_round() -> None:
    """N.J.A.C. 19:47-4.9(a)2 and Table 3: player 5 draws a 4, banker 5 then has the option;
    both choices are recorded, player first (CF-4.9a-PLAYER, CF-4.9c-TABLE3)."""
    deal = deal_round(Game.CHEMIN_DE_FER, cards("2H 2C 3D 3S 4H 7C"))
    assert deal.options_taken == ("PLAYER:DRAW", "BANKER:DRAW")
    assert deal.cards_used == 6


@pytest.mark.rule("PB-3.9b-TABLE1", "PB-3.9c-TABLE2")
@pytest.mark.parametrize("game", [Game.PUNTO_BANCO, Game.MINIBACCARAT], ids=lambda g: g.name)
def test_punto_banco_has_no_options(game: Game) -> None:
    """N.J.A.C. 19:47-3.9(b)-(f), 7.9: Tables 1 and 2 leave no choice, so the Chemin de Fer
    options are ignored: player 5 draws, banker 3 vs 9 draws (PB-3.9b-TABLE1)."""
    no = Options(player_draws_on_5=False, banker_draws_on_option=False)
    deal = deal_round(game, cards("2H TC 3D 3S 9H 5C"), no)  # player 5, banker 3
    assert deal.options_taken == ()
    assert deal.player == cards("2H 3D 9H")
    assert deal.banker == cards("TC 3S 5C")


SHORT_SHOES = [
    "",
    "9H",
    "9H 9C 9D",  # not even the initial four
    "2H 3C 2D 3S",  # player 4 must draw: no fifth card
    "2H 3C 2D 3S 7H",  # player drew; banker 6 vs 7 must draw: no sixth card
    "3H 2C 3D 2S",  # player 6 stays, banker 4 must draw: no fifth card
]


@pytest.mark.rule("CF-4.12k-INSUFFICIENT")
@pytest.mark.parametrize("shoe", ["9H 9C 9D", "2H 3C 2D 3S"])
def test_chemin_de_fer_insufficient_cards_cite_4_12_k(shoe: str) -> None:
    """N.J.A.C. 19:47-4.12(k): in Chemin de Fer "If there are found to be insufficient cards
    in the shoe to complete a hand ... that hand shall be void" - the error cites 4.12(k), the
    Chemin de Fer section, not Punto Banco's 3.12(e) (CF-4.12k-INSUFFICIENT)."""
    with pytest.raises(InsufficientCardsError, match=r"19:47-4\.12\(k\)"):
        deal_round(Game.CHEMIN_DE_FER, cards(shoe))


@pytest.mark.rule("PB-3.12e-INSUFFICIENT", "CF-4.12k-INSUFFICIENT")
@pytest.mark.parametrize("game", list(Game), ids=lambda g: g.name)
@pytest.mark.parametrize("shoe", SHORT_SHOES)
def test_insufficient_cards_raise(game: Game, shoe: str) -> None:
    """N.J.A.C. 19:47-3.12(e), 4.12(k): a round the shoe cannot complete is void - the deal
    raises InsufficientCardsError (PB-3.12e-INSUFFICIENT, CF-4.12k-INSUFFICIENT)."""
    with pytest.raises(InsufficientCardsError, match=r"19:47-(3\.12\(e\)|4\.12\(k\))"):
        deal_round(game, cards(shoe))


@pytest.mark.rule("PB-3.12e-INSUFFICIENT", "PB-3.9a-NATURAL")
def test_exactly_enough_cards_is_not_an_error() -> None:
    """N.J.A.C. 19:47-3.12(e): four cards suffice for a natural and five for a player-only
    draw (PB-3.12e-INSUFFICIENT)."""
    assert deal_round(Game.PUNTO_BANCO, cards("9H 2C TD 3S")).cards_used == 4
    # player 4 draws an 8 (-> 2); banker 7 stays.
    assert deal_round(Game.PUNTO_BANCO, cards("2H 3C 2D 4S 8H")).cards_used == 5


@pytest.mark.rule("PB-3.8d-ONE-MORE", "PB-3.3f-TOTAL-CARDS")
def test_deal_outcome_reports_the_final_hands() -> None:
    """N.J.A.C. 19:47-3.8(d), 3.2(a)4: the deal's outcome is the final point counts and card
    counts, the winner and the total cards dealt (PB-3.8d-ONE-MORE, PB-3.3f-TOTAL-CARDS)."""
    deal = deal_round(Game.PUNTO_BANCO, cards("2H 3C 2D 3S 7H 9C"))
    outcome = deal.outcome
    assert (outcome.player_points, outcome.banker_points) == (1, 5)
    assert (outcome.player_cards, outcome.banker_cards) == (3, 3)
    assert outcome.winner is Winner.BANKER
    assert outcome.total_cards == deal.cards_used == 6
    assert isinstance(deal, Deal)


@pytest.mark.rule(
    "PB-3.7c-DEAL-ORDER",
    "PB-3.8c-THIRD-ORDER",
    "PB-3.9a-NATURAL",
    "PB-3.9b-TABLE1",
    "PB-3.9c-TABLE2",
    "CF-4.9a-PLAYER",
    "CF-4.9c-TABLE3",
)
@pytest.mark.parametrize("game", list(Game), ids=lambda g: g.name)
def test_every_two_card_count_and_third_card_value(game: Game) -> None:
    """N.J.A.C. 19:47-3.7 to 3.9 (4.8, 4.9; 7.7, 7.9): for every pair of two-card counts,
    every value of card 5 and card 6 and (Chemin de Fer) every choice, the deal matches a
    replay of the golden Tables 1-3 (PB-3.9c-TABLE2, CF-4.9c-TABLE3)."""
    options = ALL_OPTIONS if game is Game.CHEMIN_DE_FER else [Options()]
    checked = 0
    for p, b, fifth, sixth in itertools.product(range(10), range(10), range(10), (0, 4, 9)):
        shoe = [_card(p), _card(b), _card(0), _card(0), _card(fifth, Suit.HEARTS)]
        shoe += [_card(sixth, Suit.SPADES), _card(1)]
        for option in options:
            want = expected_deal(
                game, shoe, option.player_draws_on_5, option.banker_draws_on_option
            )
            got = deal_round(game, shoe, option)
            assert (got.player, got.banker, got.options_taken) == (
                want.player,
                want.banker,
                want.options_taken,
            ), (p, b, fifth, sixth, option)
            checked += 1
    assert checked == 3000 * len(options)


@pytest.mark.rule("PB-3.12e-INSUFFICIENT", "CF-4.12k-INSUFFICIENT")
@pytest.mark.parametrize(
    ("cards_left", "void"), [(0, True), (4, True), (5, True), (6, False), (7, False)]
)
def test_a_round_is_void_only_below_six_cards_left(cards_left: int, void: bool) -> None:
    """N.J.A.C. 19:47-3.12(e), 4.12(k): a round is void only if the cards left may not complete
    it; two hands of at most three cards (3.8(d)) need six at most, so with five a void is
    justified and with six it is not (PB-3.12e-INSUFFICIENT, CF-4.12k-INSUFFICIENT)."""
    assert MOST_CARDS_IN_A_ROUND == 6
    assert void_for_insufficient_cards(cards_left) is void
