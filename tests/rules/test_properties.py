"""Property tests (hypothesis) over cards, deals, rule configurations and stakes:
N.J.A.C. 19:47-3.1, 3.7-3.9, 3.2-3.3, 4.9, 4.10, 7.3."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.rules.cards import Card, Suit, hand_points
from pipeline.rules.config import TableRules
from pipeline.rules.deal import InsufficientCardsError, Options, deal_round
from pipeline.rules.games import Game
from pipeline.rules.outcome import outcome_of
from pipeline.rules.settlement import Result, Wager, offered_wagers, settle, settle_seat

from ._reference import (
    Hands,
    ShoeTooShort,
    cards_strategy,
    expected_deal,
    expected_settlement,
    legal_rules,
    points,
    realizable_hands,
)

PROPERTY = settings(max_examples=400, deadline=None)
stakes_strategy = st.integers(min_value=1, max_value=100_000_000)


@pytest.mark.rule("PB-3.1c-POINT-COUNT", "PB-3.1b-VALUE")
@PROPERTY
@given(st.lists(cards_strategy, min_size=1, max_size=6))
def test_point_count_is_a_single_digit(hand: list[Card]) -> None:
    """N.J.A.C. 19:47-3.1(c): the Point Count is "a single digit number from 0 to 9 inclusive",
    the right digit of the total of the 3.1(b) values (PB-3.1c-POINT-COUNT)."""
    got = hand_points(hand)
    assert 0 <= got <= 9
    assert got == points(hand)


@pytest.mark.rule("PB-3.1b-VALUE", "PB-3.2a1-BANKER")
@PROPERTY
@given(
    player=st.lists(cards_strategy, min_size=2, max_size=3),
    banker=st.lists(cards_strategy, min_size=2, max_size=3),
    suits=st.permutations(list(Suit)),
)
def test_outcome_does_not_depend_on_suits(
    player: list[Card], banker: list[Card], suits: list[Suit]
) -> None:
    """N.J.A.C. 19:47-3.1(b), 3.2(a): only ranks have a value; re-suiting every card leaves
    the outcome unchanged (PB-3.1b-VALUE)."""
    remap = dict(zip(list(Suit), suits, strict=True))

    def resuit(hand: list[Card]) -> list[Card]:
        return [Card(c.rank, remap[c.suit]) for c in hand]

    assert outcome_of(player, banker) == outcome_of(resuit(player), resuit(banker))


@pytest.mark.rule(
    "PB-3.7c-DEAL-ORDER",
    "PB-3.8c-THIRD-ORDER",
    "PB-3.8d-ONE-MORE",
    "PB-3.9a-NATURAL",
    "PB-3.9b-TABLE1",
    "PB-3.9c-TABLE2",
    "CF-4.9a-PLAYER",
    "CF-4.9c-TABLE3",
    "PB-3.12e-INSUFFICIENT",
)
@PROPERTY
@given(
    game=st.sampled_from(list(Game)),
    shoe=st.lists(cards_strategy, min_size=0, max_size=8),
    player_draws_on_5=st.booleans(),
    banker_draws_on_option=st.booleans(),
)
def test_deal_round_on_a_random_shoe(
    game: Game, shoe: list[Card], player_draws_on_5: bool, banker_draws_on_option: bool
) -> None:
    """N.J.A.C. 19:47-3.7(c), 3.8(c)-(d), 3.9 Tables 1-2 (4.9 and Table 3): a round uses 4 to 6
    cards from the front of the shoe, and every decision matches the golden tables; a shoe
    too short raises InsufficientCardsError (3.12(e)) (PB-3.9c-TABLE2, CF-4.9c-TABLE3)."""
    options = Options(player_draws_on_5, banker_draws_on_option)
    try:
        want = expected_deal(game, shoe, player_draws_on_5, banker_draws_on_option)
    except ShoeTooShort:
        with pytest.raises(InsufficientCardsError):
            deal_round(game, shoe, options)
        return
    got = deal_round(game, shoe, options)
    assert 4 <= got.cards_used <= 6
    assert (got.player, got.banker, got.options_taken) == (
        want.player,
        want.banker,
        want.options_taken,
    )
    used = {id(c) for c in (*got.player, *got.banker)}
    assert used == {id(c) for c in shoe[: got.cards_used]}
    if game is not Game.CHEMIN_DE_FER:
        assert got.options_taken == ()


def _seat(rules: TableRules, data: st.DataObject) -> dict[Wager, int]:
    offered = sorted(offered_wagers(rules), key=lambda w: w.value)
    chosen = data.draw(st.lists(st.sampled_from(offered), min_size=1, unique=True))
    return {w: data.draw(stakes_strategy) for w in chosen}


@pytest.mark.rule(
    "PB-3.2a1-BANKER",
    "PB-3.3c-VIG",
    "PB-3.3c1-VIG-ROUNDING",
    "PB-3.3e1-BANKER-SIX",
    "PB-3.3e2-TOTAL-CARD-COVER",
    "PB-3.3g-BONUS",
    "PB-3.3h-DRAGON-PUSH",
    "MB-7.3d-TIE-VIG",
    "CF-4.10c-VIG",
)
@PROPERTY
@given(rules=legal_rules(), data=st.data())
def test_settlement_conserves_money(rules: TableRules, data: st.DataObject) -> None:
    """N.J.A.C. 19:47-3.2, 3.3, 4.10, 7.3: for any legal rules, any final hands the deal can
    produce and any stakes of a seat, every settlement is whole cents, pays >= 0 and charges
    vigorish >= 0, and the patron's net is payout - vigorish on a win, -stake on a loss and
    -vigorish on a void or push; each wager equals the independent reading
    (PB-3.3c-VIG, PB-3.3h-DRAGON-PUSH, MB-7.3d-TIE-VIG, ...)."""
    hands: Hands = data.draw(st.sampled_from(sorted(realizable_hands(rules.game), key=repr)))
    seat = _seat(rules, data)
    settlements = settle_seat(rules, hands.outcome(), seat)
    assert [s.wager for s in settlements] == [w for w in Wager if w in seat]
    for s in settlements:
        for amount in (s.stake_cents, s.paid_cents, s.vig_cents, s.net_cents):
            assert type(amount) is int
        assert s.stake_cents == seat[s.wager]
        assert s.paid_cents >= 0 and s.vig_cents >= 0
        if s.result is Result.WIN:
            assert s.net_cents == s.paid_cents - s.vig_cents
            assert s.paid_cents > 0 or s.stake_cents == 1
        elif s.result is Result.LOSE:
            assert s.net_cents == -s.stake_cents
            assert s.paid_cents == 0 and s.vig_cents == 0
        else:
            assert s.net_cents == -s.vig_cents
            assert s.paid_cents == 0
        if not rules.vig_rounding:
            assert s.vig_cents <= Fraction(s.stake_cents, 4)  # at most 25 % (7.3(d)) or 5 %
        want = expected_settlement(rules, hands, s.wager, s.stake_cents, seat)
        assert (s.result, s.paid_cents, s.vig_cents) == want
        assert s.rule_code


@pytest.mark.rule("PB-3.3c-VIG", "PB-3.2a1-BANKER", "PB-3.3a-PLAYER")
@PROPERTY
@given(rules=legal_rules(), shoe=st.lists(cards_strategy, min_size=6, max_size=6), data=st.data())
def test_dealt_round_settles_like_the_reference(
    rules: TableRules, shoe: list[Card], data: st.DataObject
) -> None:
    """N.J.A.C. 19:47-3.7-3.9 then 3.2-3.3: a round dealt from a random shoe settles every
    wager of a random seat exactly as the independent reading (PB-3.3c-VIG)."""
    deal = deal_round(rules.game, shoe)
    outcome = deal.outcome
    hands = Hands(
        outcome.player_points, outcome.banker_points, outcome.player_cards, outcome.banker_cards
    )
    assert hands in realizable_hands(rules.game)
    seat = _seat(rules, data)
    for wager, stake in seat.items():
        got = settle(rules, outcome, wager, stake, seat)
        want = expected_settlement(rules, hands, wager, stake, seat)
        assert (got.result, got.paid_cents, got.vig_cents) == want
