"""The emulated Chemin de Fer Banker's misdeals (pipeline.simulate.misdeals), N.J.A.C.
19:47-4.12(a)-(d), (i): a plan handled by the rule is never a fault, one mishandled always
changes what the pit records, and an unknown misdeal is refused; and the last hand of a shoe
with a card found face up, 4.12(j): void by the rule, dealt on and settled when mishandled."""

from __future__ import annotations

import random

import pytest

from pipeline.rules.cards import RANKS, SUITS, Card
from pipeline.rules.deal import Options
from pipeline.rules.irregularities import face_up_in_shoe_discards
from pipeline.simulate.misdeals import (
    CARDS_NEEDED,
    MISDEALS,
    plan_last_hand_face_up,
    plan_misdeal,
)


def shoes(n: int) -> list[list[Card]]:
    rng = random.Random(7)
    deck = [Card(rank, suit) for rank in RANKS for suit in SUITS]
    return [rng.sample(deck, CARDS_NEEDED) for _ in range(n)]


@pytest.mark.parametrize("subject", MISDEALS)
def test_plans_by_the_rule_and_against_it(subject: str) -> None:
    """N.J.A.C. 19:47-4.12(a)-(d), (i): handled by the rule, a plan is no fault; mishandled, it
    is one whenever the emulator records it (the annulled hand played, or counts the rule does
    not give announced); every plan's hands take at most the cards it was given, and the
    report comes after cards were dealt."""
    planned = mishandled = 0
    for shoe in shoes(400):
        legal = plan_misdeal(subject, shoe, Options(), mishandled=False)
        if legal is None:
            continue
        planned += 1
        assert not legal.mishandled
        assert 4 <= len(legal.hands) <= CARDS_NEEDED and 0 < legal.report_after <= len(legal.hands)
        wrong = plan_misdeal(subject, shoe, Options(), mishandled=True)
        assert (
            wrong is not None
            and wrong.hands[: legal.report_after] == legal.hands[: legal.report_after]
        )
        mishandled += wrong.mishandled
    assert planned > 50 and mishandled > 25, (planned, mishandled)


def test_annulled_hand_is_not_settled() -> None:
    """N.J.A.C. 19:47-4.12(a): by the rule the hand is annulled: nothing announced or
    settled; played anyway, it is announced and settled from the cards as the Banker took
    them (P-B-B-P)."""
    shoe = next(
        s for s in shoes(50) if plan_misdeal("banker_wrong_order", s, Options(), mishandled=False)
    )
    legal = plan_misdeal("banker_wrong_order", shoe, Options(), mishandled=False)
    played = plan_misdeal("banker_wrong_order", shoe, Options(), mishandled=True)
    assert legal is not None and (legal.announced, legal.settled) == (None, None)
    assert played is not None and played.mishandled and played.announced == played.settled
    assert played.hands == ("PLAYER", "BANKER", "BANKER", "PLAYER")


def test_unknown_misdeal_is_refused() -> None:
    """N.J.A.C. 19:47-4.12: only the misdeals of (a)-(d) and (i) are planned; another name is
    a programming error that lists them."""
    with pytest.raises(ValueError, match="banker_wrong_order"):
        plan_misdeal("banker_dropped_the_shoe", shoes(1)[0], Options(), mishandled=False)


@pytest.mark.parametrize("behind_cut", range(6))
def test_last_hand_with_a_card_found_face_up(behind_cut: int) -> None:
    """N.J.A.C. 19:47-4.12(j): the card behind the cutting card is found face up and goes to
    the discard bucket with as many more as its value (first sentence); by the rule the hand is
    then void, nothing announced or settled (second sentence); mishandled, the hand is dealt on
    from the cards after the discards and settled. A hand that ends before the card is no such
    hand."""
    planned = 0
    for shoe in (s + s for s in shoes(200)):
        legal = plan_last_hand_face_up(shoe, behind_cut, Options(), mishandled=False)
        wrong = plan_last_hand_face_up(shoe, behind_cut, Options(), mishandled=True)
        if legal is None:
            assert wrong is None
            continue
        planned += 1
        discarded = 1 + face_up_in_shoe_discards(shoe[behind_cut].rank)
        assert legal.kind == "CARD_FACE_UP_IN_SHOE" and legal.named == legal.report_after
        assert legal.report_after == behind_cut and not legal.mishandled
        assert (legal.announced, legal.settled) == (None, None)
        assert legal.hands[behind_cut:] == ("DISCARD",) * discarded
        assert wrong is not None and wrong.mishandled and wrong.announced == wrong.settled
        assert wrong.hands[: len(legal.hands)] == legal.hands
        assert "DISCARD" not in wrong.hands[len(legal.hands) :]
    assert planned > 50 if behind_cut < 4 else planned > 0, planned
