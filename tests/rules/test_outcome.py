"""The result of a round: N.J.A.C. 19:47-3.2(a), 3.3(e)1, 3.3(h), 3.8(d), 3.9(a)."""

from __future__ import annotations

import pytest

from pipeline.rules.cards import Point, cards
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome, Winner, outcome_of

from ._reference import Hands, realizable_hands


def _outcome(p: int, b: int, p_cards: int = 2, b_cards: int = 2) -> RoundOutcome:
    return RoundOutcome(Point(p), Point(b), p_cards, b_cards)


@pytest.mark.rule("PB-3.2a1-BANKER", "PB-3.3a-PLAYER", "PB-3.3b-TIE")
def test_winner_for_every_pair_of_counts() -> None:
    """N.J.A.C. 19:47-3.2(a)1-3 (4.6(a), 4.7(g), 7.2(a)): the higher Point Count wins, equal
    counts are a tie - regardless of how many cards each hand holds (PB-3.2a1-BANKER)."""
    for p in range(10):
        for b in range(10):
            expected = Winner.PLAYER if p > b else Winner.BANKER if b > p else Winner.TIE
            for pc in (2, 3):
                for bc in (2, 3):
                    assert _outcome(p, b, pc, bc).winner is expected


@pytest.mark.rule("PB-3.3f-TOTAL-CARDS", "PB-3.8d-ONE-MORE")
def test_total_cards_is_four_five_or_six() -> None:
    """N.J.A.C. 19:47-3.2(a)4, 3.8(d): the total number of cards dealt in the round is the
    sum of both hands, 4, 5 or 6 (PB-3.3f-TOTAL-CARDS)."""
    assert outcome_of(cards("AH 2C"), cards("3D 4S")).total_cards == 4
    assert outcome_of(cards("AH 2C 5H"), cards("3D 4S")).total_cards == 5
    assert outcome_of(cards("AH 2C"), cards("3D 4S 5H")).total_cards == 5
    assert outcome_of(cards("AH 2C 5H"), cards("3D 4S 6C")).total_cards == 6


@pytest.mark.rule("PB-3.8d-ONE-MORE", "PB-3.7c-DEAL-ORDER")
@pytest.mark.parametrize(("player", "banker"), [("AH", "2C 3D"), ("AH 2C 3D 4S", "5H 6C")])
def test_a_hand_has_two_or_three_cards(player: str, banker: str) -> None:
    """N.J.A.C. 19:47-3.7(c), 3.8(d): two cards each, "in no event ... more than one
    additional card"; other sizes are rejected for either hand (PB-3.8d-ONE-MORE)."""
    wrong = len(player.split())
    rule = "a hand has two cards plus at most one more (N.J.A.C. 19:47-3.7(c), 3.8(d))"
    with pytest.raises(ValueError) as as_player:
        outcome_of(cards(player), cards(banker))
    assert str(as_player.value) == f"the Player's Hand has {wrong} cards; {rule}"
    with pytest.raises(ValueError) as as_banker:
        outcome_of(cards(banker), cards(player))
    assert str(as_banker.value) == f"the Banker's Hand has {wrong} cards; {rule}"


@pytest.mark.rule("PB-3.3h-DRAGON-PUSH", "PB-3.3i-DRAGON-7")
def test_dragon_7_is_a_winning_three_card_banker_7() -> None:
    """N.J.A.C. 19:47-3.3(h): a "dragon 7 hand" is "a three card Banker's Hand with a Point
    Count of seven that wins" (PB-3.3h-DRAGON-PUSH, PB-3.3i-DRAGON-7)."""
    assert outcome_of(cards("2H 3C 9D"), cards("4S 6H 7C")).dragon_7  # 4 vs 7, three cards
    assert not outcome_of(cards("2H 3C"), cards("4S 3H")).dragon_7  # two-card 7 wins
    assert not outcome_of(cards("2H 3C 2D"), cards("4S 6H 7C")).dragon_7  # 7-7 tie
    assert not outcome_of(cards("2H 3C 3D"), cards("4S 6H 7C")).dragon_7  # loses to 8
    assert not outcome_of(cards("2H 3C 9D"), cards("4S 6H 6C")).dragon_7  # a 6 wins
    for hands in realizable_hands(Game.PUNTO_BANCO):
        expected = hands.banker_cards == 3 and hands.banker_points == 7 > hands.player_points
        assert hands.outcome().dragon_7 is expected


@pytest.mark.rule("PB-3.3e1-BANKER-SIX")
def test_banker_wins_with_6() -> None:
    """N.J.A.C. 19:47-3.3(e)1: a winning Banker's Hand "that has a Point Count of six", two or
    three cards; not a tie at 6 nor a losing 6 (PB-3.3e1-BANKER-SIX)."""
    assert _outcome(5, 6).banker_wins_with_6
    assert _outcome(0, 6, 3, 3).banker_wins_with_6
    assert not _outcome(6, 6).banker_wins_with_6
    assert not _outcome(7, 6).banker_wins_with_6
    assert not _outcome(5, 7).banker_wins_with_6


@pytest.mark.rule("PB-3.3g-BONUS")
def test_margins() -> None:
    """N.J.A.C. 19:47-3.2(a)5: the bonus wager is decided by the points by which the selected
    hand beats the other; negative when it loses. TIE has no margin (PB-3.3g-BONUS)."""
    for p in range(10):
        for b in range(10):
            outcome = _outcome(p, b, 3, 3)
            assert outcome.margin(Winner.PLAYER) == p - b
            assert outcome.margin(Winner.BANKER) == b - p
    with pytest.raises(ValueError) as tie:
        _outcome(1, 1).margin(Winner.TIE)
    assert str(tie.value) == "a margin is measured for the PLAYER or BANKER hand, not TIE"


@pytest.mark.rule("PB-3.9a-NATURAL")
def test_naturals_of_the_outcome() -> None:
    """N.J.A.C. 19:47-3.9(a): a natural is a two-card 8 or 9, for either hand
    (PB-3.9a-NATURAL)."""
    outcome = outcome_of(cards("4H 4D"), cards("9C KS"))
    assert outcome.player_natural and outcome.banker_natural
    assert outcome.natural(Winner.PLAYER) and outcome.natural(Winner.BANKER)
    three = outcome_of(cards("4H 2D 2C"), cards("3C 6S KD"))
    assert (three.player_points, three.banker_points) == (8, 9)
    assert not three.player_natural and not three.banker_natural


@pytest.mark.rule("PB-3.9a-NATURAL", "PB-3.8d-ONE-MORE", "PB-3.3f-TOTAL-CARDS")
def test_realizable_hands_are_what_the_tables_allow() -> None:
    """N.J.A.C. 19:47-3.9: sanity of the reference enumeration used by the settlement tests -
    naturals only as two-card hands ending the deal, every count 0-9 reachable, and 4-6 cards
    in total (PB-3.9a-NATURAL)."""
    for game in Game:
        hands = realizable_hands(game)
        assert {h.player_points for h in hands} == set(range(10))
        assert {h.player_cards + h.banker_cards for h in hands} == {4, 5, 6}
        for h in hands:
            if h.natural_player or h.natural_banker:
                assert (h.player_cards, h.banker_cards) == (2, 2)
    assert Hands(0, 7, 3, 3) in realizable_hands(Game.PUNTO_BANCO)
