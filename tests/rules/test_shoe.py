"""The shoe: N.J.A.C. 19:47-3.1(a), 3.5(d)-(e), 3.8(e); 4.1(a), 4.4(d)-(e); 7.1(a), 7.1(d),
7.5(e)-(f)."""

from __future__ import annotations

import pytest

from pipeline.rules.cards import Rank
from pipeline.rules.config import ShuffleMethod, TableRules
from pipeline.rules.games import Game
from pipeline.rules.shoe import (
    burned_cards,
    cut_card_problem,
    may_deal_another_round,
    shoe_problems,
    shuffle_problems,
)

from ._golden import card_values

PB_8 = TableRules("shoe", Game.PUNTO_BANCO, decks=8)
MB_12_TWO_BATCH = TableRules(
    "shoe2", Game.MINIBACCARAT, decks=12, shuffle_method=ShuffleMethod.AUTOMATED_BATCH
)


def codes(found: list) -> list[str]:  # type: ignore[type-arg]
    return [p.rule_code for p in found]


@pytest.mark.rule("PB-3.1a-DECKS", "PB-3.5d-CUT", "PB-3.5e-CUT-CARD-14")
def test_a_proper_shoe_has_no_problem() -> None:
    """N.J.A.C. 19:47-3.1(a), 3.5(d)-(e): 8 decks (416 cards), cut exactly 10 cards from
    either end, second cutting card exactly 14 from the back - all allowed (PB-3.5d-CUT)."""
    assert shoe_problems(PB_8, 8, 416, 10, 14) == []
    assert shoe_problems(PB_8, 8, 416, 406, 200) == []
    six = TableRules("six", Game.CHEMIN_DE_FER, decks=6, vig_deferral=False)
    assert shoe_problems(six, 6, 312, 150, 14) == []


@pytest.mark.rule("PB-3.5d-CUT")
@pytest.mark.parametrize("cut", [0, 1, 9, 407, 415, 416])
def test_cut_closer_than_10_cards_to_either_end(cut: int) -> None:
    """N.J.A.C. 19:47-3.5(d) (4.4(d), 7.5(e)): "placing the cutting card in the stack at least
    10 cards in from either end" (PB-3.5d-CUT)."""
    found = shoe_problems(PB_8, 8, 416, cut, 14)
    assert codes(found) == ["PB-3.5d-CUT"]
    assert str(cut) in found[0].message


@pytest.mark.rule("PB-3.5e-CUT-CARD-14")
@pytest.mark.parametrize("from_back", [0, 1, 13])
def test_cutting_card_less_than_14_from_the_back(from_back: int) -> None:
    """N.J.A.C. 19:47-3.5(e) (4.4(e), 7.5(f)): "one cutting card in a position at least 14
    cards in from the back of the stack" (PB-3.5e-CUT-CARD-14)."""
    found = shoe_problems(PB_8, 8, 416, 100, from_back)
    assert codes(found) == ["PB-3.5e-CUT-CARD-14"]
    assert found[0].message == (
        f"second cutting card {from_back} cards from the back; it must be at least 14"
    )


@pytest.mark.rule("PB-3.1a-DECKS")
@pytest.mark.parametrize("cards_in_shoe", [415, 417, 364, 0])
def test_wrong_number_of_cards(cards_in_shoe: int) -> None:
    """N.J.A.C. 19:47-3.1(a): the shoe holds the table's decks of 52 cards, no more and no
    fewer (PB-3.1a-DECKS)."""
    cut = max(10, min(100, cards_in_shoe - 10))
    found = [
        p for p in shoe_problems(PB_8, 8, cards_in_shoe, cut, 14) if p.rule_code != "PB-3.5d-CUT"
    ]
    assert codes(found) == ["PB-3.1a-DECKS"]
    assert found[0].message == f"{cards_in_shoe} cards in the shoe; 8 decks hold 416"


@pytest.mark.rule("PB-3.1a-DECKS")
def test_too_few_decks_and_decks_differing_from_the_rules() -> None:
    """N.J.A.C. 19:47-3.1(a) (4.1(a), 7.1(a)): at least six decks, and the decks the table's
    rules name (PB-3.1a-DECKS)."""
    five = shoe_problems(PB_8, 5, 260, 100, 14)
    assert codes(five) == ["PB-3.1a-DECKS", "PB-3.1a-DECKS"]
    assert any("at least 6" in p.message for p in five)
    six = shoe_problems(PB_8, 6, 312, 100, 14)
    assert codes(six) == ["PB-3.1a-DECKS"]
    assert "use 8" in six[0].message


@pytest.mark.rule("MB-7.1d-TWO-BATCH")
def test_two_batch_shoe_holds_one_batch() -> None:
    """N.J.A.C. 19:47-7.1(d)2, 4-5: with an automated shuffler at least 12 decks in two equal
    batches, one batch in play: a 12-deck table deals from 6 decks (312 cards)
    (MB-7.1d-TWO-BATCH)."""
    assert shoe_problems(MB_12_TWO_BATCH, 12, 312, 100, 14) == []
    both = shoe_problems(MB_12_TWO_BATCH, 12, 624, 100, 14)
    assert codes(both) == ["MB-7.1a-DECKS"]
    assert both[0].message == "624 cards in the shoe; 12 decks split in two batches hold 312"
    ten = TableRules(
        "ten", Game.MINIBACCARAT, decks=10, shuffle_method=ShuffleMethod.AUTOMATED_BATCH
    )
    assert "MB-7.1d-TWO-BATCH" in codes(shoe_problems(ten, 10, 260, 100, 14))


@pytest.mark.rule("PB-3.1a-DECKS", "PB-3.5d-CUT", "PB-3.5e-CUT-CARD-14")
def test_every_shoe_problem_is_reported_at_once() -> None:
    """N.J.A.C. 19:47-3.1(a), 3.5(d)-(e): deck count, card count, cut and cutting card are all
    reported together (PB-3.5d-CUT, PB-3.5e-CUT-CARD-14)."""
    found = shoe_problems(PB_8, 5, 100, 5, 3)
    assert sorted(codes(found)) == sorted(
        ["PB-3.1a-DECKS", "PB-3.1a-DECKS", "PB-3.1a-DECKS", "PB-3.5d-CUT", "PB-3.5e-CUT-CARD-14"]
    )


# Each game cites its own section: 3.1(a)/3.5(d)-(e), 4.1(a)/4.4(d)-(e), 7.1(a)/7.5(e)-(f).
GAME_CODES = {
    Game.PUNTO_BANCO: ("PB-3.1a-DECKS", "PB-3.5d-CUT", "PB-3.5e-CUT-CARD-14"),
    Game.CHEMIN_DE_FER: ("CF-4.1a-DECKS", "CF-4.4e-BURN", "CF-4.4e-BURN"),
    Game.MINIBACCARAT: ("MB-7.1a-DECKS", "MB-7.5f-BURN", "MB-7.5f-BURN"),
}


@pytest.mark.rule("CF-4.1a-DECKS", "CF-4.4e-BURN", "MB-7.1a-DECKS", "MB-7.5f-BURN")
@pytest.mark.parametrize("game", list(Game), ids=lambda g: g.name)
def test_shoe_problems_cite_the_game_own_section(game: Game) -> None:
    """N.J.A.C. 19:47-4.1(a), 4.4(d)-(e) and 7.1(a), 7.5(e)-(f) repeat 3.1(a), 3.5(d)-(e) for
    Chemin de Fer and Minibaccarat; each game's problems cite its own rule code
    (CF-4.1a-DECKS, CF-4.4e-BURN, MB-7.1a-DECKS, MB-7.5f-BURN)."""
    decks_code, cut_code, cut_card_code = GAME_CODES[game]
    rules = TableRules("g", game, decks=6, vig_deferral=game is not Game.CHEMIN_DE_FER)
    assert shoe_problems(rules, 6, 312, 100, 14) == []
    assert codes(shoe_problems(rules, 5, 260, 100, 14)) == [decks_code, decks_code]
    assert codes(shoe_problems(rules, 6, 311, 100, 14)) == [decks_code]
    assert codes(shoe_problems(rules, 6, 312, 9, 14)) == [cut_code]
    assert codes(shoe_problems(rules, 6, 312, 100, 13)) == [cut_card_code]


@pytest.mark.rule("PB-3.5e-BURN", "CF-4.4e-BURN", "MB-7.5f-BURN")
@pytest.mark.parametrize("rank", list(Rank), ids=lambda r: r.name)
def test_burned_cards_every_rank(rank: Rank) -> None:
    """N.J.A.C. 19:47-3.5(e) (4.4(e), 7.5(f)): the first card "and an additional amount of
    cards equal to the amount on the first card" go to the discard; "Face cards and tens count
    as tens. Aces count as one." (PB-3.5e-BURN)."""
    _value, burn = card_values()[rank.value]
    assert burned_cards(rank) == 1 + burn
    assert 2 <= burned_cards(rank) <= 11


@pytest.mark.rule("PB-3.8e-LAST-HAND")
@pytest.mark.parametrize("game", [Game.PUNTO_BANCO, Game.MINIBACCARAT])
def test_last_hand_after_the_cutting_card(game: Game) -> None:
    """N.J.A.C. 19:47-3.8(e): when the cutting card appears the hand is completed, "last hand"
    is announced, and "At the completion of one more hand, no more cards will be dealt"
    (PB-3.8e-LAST-HAND, which Minibaccarat's rounds cite)."""
    assert may_deal_another_round(game, None)  # cutting card not seen yet
    assert may_deal_another_round(game, 0)  # the hand it appeared in is done: one more, the last
    assert not may_deal_another_round(game, 1)  # the last hand is done
    assert not may_deal_another_round(game, 5)


@pytest.mark.rule("CF-4.12g-CUT-CARD-HAND-LAST")
def test_chemin_de_fer_deals_no_hand_after_the_cutting_card_hand() -> None:
    """CF-4.12g-CUT-CARD-HAND-LAST, N.J.A.C. 19:47-4.12(g), (j), (k): a card drawn in error is
    kept for the next hand only "providing that the cutting card has not been exposed", and the
    hand the cutting card appears in is "the last hand of a shoe": none follows it."""
    assert may_deal_another_round(Game.CHEMIN_DE_FER, None)
    assert not may_deal_another_round(Game.CHEMIN_DE_FER, 0)


@pytest.mark.rule("PB-3.5a-SHUFFLE-FILED", "MB-7.1d4-BATCH-ALTERNATE")
def test_shuffle_recorded_against_the_filed_option() -> None:
    """PB-3.5a-SHUFFLE-FILED, N.J.A.C. 19:47-3.5(a), 7.1(d)4: the method recorded for a shoe is
    the table's filed one; two-batch shoes alternate A and B, the first shoe of the day free."""
    assert shuffle_problems(PB_8, "MANUAL_LACE", None, None) == []
    washed = shuffle_problems(PB_8, "MANUAL_WASH", None, None)
    assert codes(washed) == ["PB-3.5a-SHUFFLE-FILED"]
    assert (
        washed[0].message == "shuffled MANUAL_WASH, but the table's rules 'shoe' file MANUAL_LACE"
    )
    assert shuffle_problems(MB_12_TWO_BATCH, "AUTOMATED_BATCH", "A", None) == []
    assert shuffle_problems(MB_12_TWO_BATCH, "AUTOMATED_BATCH", "B", "A") == []
    for batch, named in (("A", "A"), (None, "(not recorded)")):
        found = shuffle_problems(MB_12_TWO_BATCH, "AUTOMATED_BATCH", batch, "A")
        assert codes(found) == ["MB-7.1d4-BATCH-ALTERNATE"]
        assert found[0].message == (
            f"dealt from batch {named} after a shoe of batch A; the batches alternate, one "
            "dealt while the other is shuffled"
        )


@pytest.mark.parametrize(
    ("recorded_at", "last_hand", "problem"),
    [
        (346, 345, None),  # recorded at the card it lies before
        (350, 345, None),  # cards between were burned or discarded, not dealt to hands
        (None, 345, None),  # the shoe ended before reaching it
        (  # before where it was placed
            345,
            344,
            "the cutting card was recorded at position 345, but it was placed 70 cards from "
            "the back, before position 346",
        ),
        (  # hands dealt beyond it before the record
            350,
            347,
            "hands were dealt up to position 347, past the cutting card placed 70 cards from "
            "the back (before position 346), before it was recorded",
        ),
        (
            None,
            346,
            "hands were dealt up to position 346, past the cutting card placed 70 cards from "
            "the back (before position 346), and it was never recorded",
        ),
    ],
)
@pytest.mark.rule("PB-3.5e-CUT-CARD-SEEN")
def test_cut_card_problem(recorded_at: int | None, last_hand: int, problem: str | None) -> None:
    """PB-3.5e-CUT-CARD-SEEN, N.J.A.C. 19:47-3.5(e), 3.8(e): 70 cards from the back of 416 the
    cutting card lies before position 346; the boundaries either side, and what the finding
    says about each."""
    assert cut_card_problem(416, 70, recorded_at, last_hand) == problem
