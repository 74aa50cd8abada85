"""The emulated Chemin de Fer Banker's misdeals (pipeline.simulate.misdeals), N.J.A.C.
19:47-4.12(a)-(d), (i): a plan handled by the rule is never a fault, one mishandled always
changes what the pit records, and an unknown misdeal is refused."""

from __future__ import annotations

import random

import pytest

from pipeline.rules.cards import RANKS, SUITS, Card
from pipeline.rules.deal import Options
from pipeline.simulate.misdeals import CARDS_NEEDED, MISDEALS, plan_misdeal


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
