"""Chemin de Fer's offers made in turn until one accepts: the cut, N.J.A.C. 19:47-4.4(c), partial
wagers against the Banker until they cover the bank, 4.7(d), and a relinquished bank,
4.11(b)-(d), with the passer kept out of the first round of bidding, 4.11(c)."""

from __future__ import annotations

import pytest

from pipeline.rules.roles import (
    BancoCall,
    BancoKind,
    BancoOffer,
    bank_offer_order,
    cut_offer_order,
    may_bid_in_first_round,
    partial_offer_order,
    partial_wagers_passed_over,
    passed_over,
)


@pytest.mark.rule("CF-4.4c-CUT-ORDER")
def test_the_cut_is_offered_from_the_highest_seat_clockwise() -> None:
    """CF-4.4c-CUT-ORDER, N.J.A.C. 19:47-4.4(c): "begin with the participant seated in the
    highest number position ... and working clockwise": seats 7, 4, 2 in that order. Seat 2
    cuts legally after 7 and 4 declined; seat 2 cutting after only 7 declined passes over 4;
    the dealer cuts only when all three declined."""
    order = cut_offer_order([2, 7, 4])
    assert order == [7, 4, 2]
    assert passed_over(order, 2, [7, 4]) == ()
    assert passed_over(order, 7, []) == ()
    assert passed_over(order, 2, [7]) == (4,)
    assert passed_over(order, None, [7, 4, 2]) == ()
    assert passed_over(order, None, [7]) == (4, 2)


def parts(*wagers: tuple[int, int]) -> list[BancoOffer]:
    return [BancoOffer(seat, BancoKind.PARTIAL, cents) for seat, cents in wagers]


@pytest.mark.rule("CF-4.7d-PARTIAL-ORDER")
def test_partial_wagers_are_offered_from_the_banker_s_immediate_right() -> None:
    """CF-4.7d-PARTIAL-ORDER, N.J.A.C. 19:47-4.7(d): "beginning with one seated to the
    immediate right of the Banker and moving counterclockwise": with the Banker at seat 4, the
    order is 5, 1, 2. Seats 1 and 2 covering the $1,000 bank pass seat 5 over unless it
    declined; a seat after the last partial wager (seat 2 when 5 and 1 cover it) is left
    nothing in turn."""
    seated = [1, 2, 4, 5]
    assert partial_offer_order(4, seated) == [5, 1, 2]
    covered = parts((1, 50_000), (2, 50_000))
    assert partial_wagers_passed_over(4, 100_000, seated, covered, [], None, []) == (5,)
    assert partial_wagers_passed_over(4, 100_000, seated, covered, [], None, [5]) == ()
    first = parts((5, 50_000), (1, 50_000))
    assert partial_wagers_passed_over(4, 100_000, seated, first, [], None, []) == ()


@pytest.mark.rule("CF-4.7d-PARTIAL-ORDER")
def test_a_bank_not_covered_whole_passes_nobody_over() -> None:
    """CF-4.7d-PARTIAL-ORDER, N.J.A.C. 19:47-4.7(d): partial wagers are accepted until they
    equal the Banker's wager "or until the dealer announces 'No More Bets'"; a bank left
    uncovered in part had room for the seat without a wager, so nobody was passed over."""
    assert partial_wagers_passed_over(1, 100_000, [1, 2, 3], parts((3, 40_000)), [], None, []) == ()


@pytest.mark.rule("CF-4.7d-PARTIAL-ORDER", "CF-4.7d-PARTIAL")
def test_partial_wagers_are_judged_only_when_neither_option_was_exercised() -> None:
    """CF-4.7d-PARTIAL-ORDER, N.J.A.C. 19:47-4.7(d): "If the options granted by subsections (b)
    and (c) ... are not exercised". Seat 2's "Banco Seul" (4.7(c)) or, from the participant who
    equaled and lost the last coup, "Banco Suivi" (4.7(b)) owed it the whole bank: partial
    wagers taken instead are CF-4.7d-PARTIAL's, not an order of partial wagers. A "Banco
    Suivi" from anyone else exercises no option, and the partial wagers are judged."""
    seated, covered = [1, 2, 3, 4], parts((3, 40_000), (4, 60_000))
    seul, suivi = BancoCall(2, BancoKind.SEUL), BancoCall(2, BancoKind.SUIVI)
    assert partial_wagers_passed_over(1, 100_000, seated, covered, [seul], None, []) == ()
    assert partial_wagers_passed_over(1, 100_000, seated, covered, [suivi], 2, []) == ()
    assert partial_wagers_passed_over(1, 100_000, seated, covered, [suivi], 4, []) == (2,)
    whole = [BancoOffer(2, BancoKind.SEUL, 100_000)]
    assert partial_wagers_passed_over(1, 100_000, seated, whole, [], None, []) == ()


@pytest.mark.rule("CF-4.11b-OFFER-ORDER")
def test_the_bank_is_offered_from_the_banker_s_right_counterclockwise() -> None:
    """CF-4.11b-OFFER-ORDER, N.J.A.C. 19:47-4.11(b): offered "to the seated participant to the
    right of the previous Banker and then to each other seated participant, moving
    counterclockwise": from seat 5, seats 6, 1, 3, never 5 itself. Seat 1 takes it legally
    after seat 6 declined; taking it with no decline from seat 6 passes 6 over."""
    order = bank_offer_order(5, [1, 3, 5, 6])
    assert order == [6, 1, 3]
    assert passed_over(order, 1, [6]) == ()
    assert passed_over(order, 6, []) == ()
    assert passed_over(order, 1, []) == (6,)
    assert passed_over(order, 3, [1]) == (6,)


@pytest.mark.rule("CF-4.11b-OFFER-ORDER")
def test_a_defeated_passed_bank_is_offered_from_the_right_of_its_passer() -> None:
    """CF-4.11b-OFFER-ORDER, N.J.A.C. 19:47-4.11(d): seat 1 passed the bank voluntarily, seat 3
    lost it; it is offered "as it would have been ... had it not been voluntarily passed":
    from seat 1's right, to seats 5 and 6, passing both seat 3 and seat 1."""
    assert bank_offer_order(3, [1, 3, 5, 6], passed_by=1) == [5, 6]


@pytest.mark.rule("CF-4.11b-OFFER-ORDER")
def test_a_taker_the_offer_never_reaches_passes_nobody_over() -> None:
    """CF-4.11b-OFFER-ORDER, N.J.A.C. 19:47-4.11(b): a bank recorded as taken by the Banker who
    gave it up is not in the order at all; that is CF-4.11b-PASSED-TO's finding, and nobody is
    passed over on its account."""
    assert passed_over(bank_offer_order(5, [1, 5, 6]), 5, []) == ()


@pytest.mark.rule("CF-4.11c-PASSER-BID")
def test_the_passer_takes_no_part_in_the_first_round_of_bidding() -> None:
    """CF-4.11c-PASSER-BID, N.J.A.C. 19:47-4.11(c): "the participant who passed the Bank shall
    not be permitted to take part in the first round of such bidding"; every other participant
    may bid."""
    assert may_bid_in_first_round(3, passer=5)
    assert not may_bid_in_first_round(5, passer=5)
