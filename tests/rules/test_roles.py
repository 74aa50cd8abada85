"""Curator and Banker: N.J.A.C. 19:47-3.6(b), 3.11; 4.5(b), 4.6(b), 4.7, 4.8(c), 4.11."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.rules.cards import Point
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome
from pipeline.rules.roles import (
    BancoCall,
    BancoKind,
    BancoOffer,
    PriorityBreach,
    banco_priority,
    banker_by_bid,
    banker_wager_problem,
    counterclockwise_from,
    cover_bank,
    curator_must_pass,
    dominant_player,
    move_promotes,
    next_holder,
    offer_reaches,
    priority_breach,
    seats_to_hand,
    shoe_offer_order,
)
from pipeline.rules.variants import HandingProcedure, variant

SUIVI, SEUL, PARTIAL = BancoKind.SUIVI, BancoKind.SEUL, BancoKind.PARTIAL


def oc(p: int, b: int) -> RoundOutcome:
    return RoundOutcome(Point(p), Point(b), 2, 2)


@pytest.mark.rule("PB-3.11a1-CURATOR-PASS", "CF-4.11a1-BANK-PASS")
def test_shoe_passes_only_when_the_banker_hand_loses() -> None:
    """N.J.A.C. 19:47-3.11(a)1, 4.11(a)1: "The curator shall pass the shoe whenever the
    banker's hand loses" - not when it wins, and a tie is not a loss (PB-3.11a1-CURATOR-PASS)."""
    assert curator_must_pass(oc(7, 2))
    assert not curator_must_pass(oc(2, 7))
    for n in range(10):
        assert not curator_must_pass(oc(n, n))


@pytest.mark.rule("PB-3.6b-CURATOR", "CF-4.11a1-BANK-PASS")
def test_next_holder_is_to_the_right_then_counterclockwise() -> None:
    """N.J.A.C. 19:47-3.11(b), 4.11(b): the shoe is offered "to the participant immediately to
    the right of the previous curator" and then counterclockwise (ascending seats, wrapping)
    to the first who accepts; nobody: the dealer is curator (3.6(d)2) (PB-3.6b-CURATOR)."""
    assert next_holder(3, [1, 4, 6]) == 4
    assert next_holder(3, [1, 2]) == 1  # wraps past the highest seat
    assert next_holder(7, [2, 5]) == 2
    assert next_holder(3, []) is None
    assert counterclockwise_from(3, [6, 1, 4, 3]) == [4, 6, 1, 3]
    assert counterclockwise_from(0, [3, 1, 2]) == [1, 2, 3]  # 3.6(b): start at seat 1


@pytest.mark.rule("PB-3.6b-CURATOR")
def test_the_order_the_shoe_is_offered_in() -> None:
    """N.J.A.C. 19:47-3.6(b): at the commencement of play (or after the dealer held the shoe,
    3.6(d)) from seat 1, counterclockwise; 3.11(b): after a relinquishment from the seat to the
    right of the previous curator, counterclockwise, never back to that curator, even if he
    left (PB-3.6b-CURATOR)."""
    assert shoe_offer_order(None, [5, 2, 7]) == [2, 5, 7]
    assert shoe_offer_order(None, []) == []
    assert shoe_offer_order(5, [2, 5, 7]) == [7, 2]
    assert shoe_offer_order(7, [2, 5, 7]) == [2, 5]
    assert shoe_offer_order(4, [2, 5, 7]) == [5, 7, 2]  # the curator in seat 4 left
    assert shoe_offer_order(3, [3]) == []


@pytest.mark.rule("PB-3.6b-CURATOR", "PB-3.11a1-CURATOR-PASS", "CF-4.11a1-BANK-PASS")
def test_passed_shoe_does_not_return_to_the_previous_holder() -> None:
    """N.J.A.C. 19:47-3.11(b), 4.11(b): a relinquished shoe is offered to the participant to
    the right and then to "each of the other participants" - after a mandatory pass the
    previous curator/Banker is not offered it back; with nobody else accepting, the dealer
    acts as curator (3.6(d)2) (PB-3.11a1-CURATOR-PASS)."""
    assert next_holder(3, [3, 5]) == 5
    assert next_holder(3, [3]) is None


@pytest.mark.rule("CF-4.5b-BANKER-BID")
def test_banker_by_bid() -> None:
    """N.J.A.C. 19:47-4.5(b): the highest offer becomes Banker; of equal offers, the one
    "closest to the dealer moving counterclockwise" (the lowest seat) (CF-4.5b-BANKER-BID)."""
    assert banker_by_bid({1: 50_000, 4: 100_000, 6: 75_000}) == 4
    assert banker_by_bid({6: 100_000, 2: 100_000, 4: 100_000}) == 2
    assert banker_by_bid({5: 1}) == 5
    with pytest.raises(
        ValueError, match=r"^no bids: the bank cannot be awarded \(N\.J\.A\.C\. 19:47-4\.5\(b\)\)$"
    ):
        banker_by_bid({})


@pytest.mark.rule("CF-4.6b-BANKER-LIMITS")
def test_banker_wager_limits_example_of_4_6_b() -> None:
    """N.J.A.C. 19:47-4.6(b) example: a $1,000 bid -> first wager at least $1,000; the second
    from $1,000 to $2,000; after $2,000 the third from $2,000 to $4,000 (CF-4.6b-BANKER-LIMITS)."""
    bid = 100_000
    assert banker_wager_problem(None, bid, 100_000) is None
    assert banker_wager_problem(None, bid, 150_000) is None
    assert "below the winning bid" in str(banker_wager_problem(None, bid, 99_999))
    for second in (100_000, 150_000, 200_000):
        assert banker_wager_problem(100_000, None, second) is None
    assert "below the previous" in str(banker_wager_problem(100_000, None, 99_999))
    assert "exceeds twice" in str(banker_wager_problem(100_000, None, 200_001))
    for third in (200_000, 300_000, 400_000):
        assert banker_wager_problem(200_000, None, third) is None
    assert banker_wager_problem(200_000, None, 199_999) is not None
    assert banker_wager_problem(200_000, None, 400_001) is not None
    assert banker_wager_problem(None, None, 1) is None  # no bid recorded: nothing to compare


@pytest.mark.rule("CF-4.7b-SUIVI", "CF-4.8c-DOMINANT")
def test_banco_suivi_comes_first() -> None:
    """N.J.A.C. 19:47-4.7(b), 4.8(c): the participant who equaled and lost the Banker's
    previous wager has the first option, for the whole bank, and controls the Player's Hand
    (CF-4.7b-SUIVI, CF-4.8c-DOMINANT)."""
    offers = [
        BancoOffer(2, SEUL, 10_000),
        BancoOffer(7, SUIVI, 10_000),
        BancoOffer(3, PARTIAL, 500),
    ]
    got = cover_bank(1, 10_000, offers, suivi_seat=7)
    assert got.accepted == (BancoOffer(7, SUIVI, 10_000),)
    assert (got.uncovered_cents, got.dominant_seat) == (0, 7)


@pytest.mark.rule("CF-4.7b-SUIVI", "CF-4.8c-DOMINANT")
def test_unqualified_suivi_falls_back_to_seul_nearest_counterclockwise() -> None:
    """N.J.A.C. 19:47-4.7(b)-(c): a "suivi" from someone who did not lose the previous coup
    has no priority; of several "Banco Seul", the one nearest the Banker counterclockwise
    wins (CF-4.7b-SUIVI)."""
    offers = [
        BancoOffer(7, SUIVI, 10_000),
        BancoOffer(2, SEUL, 10_000),
        BancoOffer(6, SEUL, 10_000),
    ]
    got = cover_bank(5, 10_000, offers, suivi_seat=3)
    assert got.accepted == (BancoOffer(6, SEUL, 10_000),)
    assert got.dominant_seat == 6
    assert got.uncovered_cents == 0  # banco seul covers the whole bank: nothing withdrawn, 4.7(e)
    wrap = cover_bank(8, 10_000, [BancoOffer(6, SEUL, 10_000), BancoOffer(2, SEUL, 10_000)], None)
    assert wrap.accepted == (BancoOffer(2, SEUL, 10_000),)


@pytest.mark.rule("CF-4.7b-SUIVI-FIRST", "CF-4.7c-BANCO-PRIORITY", "CF-4.7d-PARTIAL")
def test_banco_priority() -> None:
    """N.J.A.C. 19:47-4.7(b)-(d): the qualified "Suivi" first, even seated farther from the
    Banker; else the "Banco" nearest the Banker counterclockwise (wrapping past the highest
    seat); an unqualified "suivi" or the Banker's own call exercises no option, and without an
    option exercised nobody is owed the whole bank (partial wagers, 4.7(d))."""
    calls = [BancoCall(2, SEUL), BancoCall(8, SUIVI), BancoCall(6, SEUL)]
    assert banco_priority(5, calls, suivi_seat=8) == BancoCall(8, SUIVI)
    assert banco_priority(5, calls, suivi_seat=3) == BancoCall(6, SEUL)
    assert banco_priority(7, calls, suivi_seat=None) == BancoCall(2, SEUL)
    assert banco_priority(6, [BancoCall(6, SEUL), BancoCall(2, SUIVI)], suivi_seat=6) is None
    assert banco_priority(1, [BancoCall(4, SUIVI)], suivi_seat=3) is None
    assert banco_priority(1, [], suivi_seat=3) is None


@pytest.mark.rule("CF-4.7b-SUIVI-FIRST", "CF-4.7c-BANCO-PRIORITY", "CF-4.7d-PARTIAL")
def test_priority_breach() -> None:
    """N.J.A.C. 19:47-4.7(b)-(d): the wagers accepted pass over the call owed the bank when
    another caller took it (the owed option's code), partial wagers were taken (4.7(d)) or
    nothing was; an accepted banco wager counts as its caller's call."""
    suivi, seul = BancoCall(7, SUIVI), BancoCall(3, SEUL)
    to_seul = [BancoOffer(3, SEUL, 10_000)]
    partials = [BancoOffer(2, PARTIAL, 4_000)]
    assert priority_breach(1, [suivi], 7, to_seul) == PriorityBreach(suivi, "CF-4.7b-SUIVI-FIRST")
    assert priority_breach(1, [suivi, seul], 7, [BancoOffer(7, SUIVI, 10_000)]) is None
    assert priority_breach(1, [seul], None, partials) == PriorityBreach(seul, "CF-4.7d-PARTIAL")
    assert priority_breach(1, [seul], None, []) == PriorityBreach(seul, "CF-4.7c-BANCO-PRIORITY")
    # the owed call received a wager for the whole bank: two of them are CF-4.7b-SUIVI's case
    assert priority_breach(5, [], None, [BancoOffer(2, SEUL, 1), BancoOffer(7, SEUL, 1)]) is None
    assert priority_breach(5, [BancoCall(7, SEUL)], None, [BancoOffer(2, SEUL, 1)]) == (
        PriorityBreach(BancoCall(7, SEUL), "CF-4.7c-BANCO-PRIORITY")
    )
    assert priority_breach(1, [BancoCall(4, SUIVI)], 7, partials) is None  # not qualified
    assert priority_breach(1, [], None, partials) is None


@pytest.mark.rule("CF-4.7b-SUIVI-FIRST", "CF-4.7c-BANCO-PRIORITY", "CF-4.7d-PARTIAL")
@settings(max_examples=300, deadline=None)
@given(
    banker=st.integers(1, 9),
    suivi=st.none() | st.integers(1, 9),
    calls=st.lists(
        st.builds(BancoCall, st.integers(1, 9), st.sampled_from([SUIVI, SEUL])), max_size=9
    ),
    order=st.randoms(use_true_random=False),
)
def test_banco_priority_properties(
    banker: int, suivi: int | None, calls: list[BancoCall], order: random.Random
) -> None:
    """N.J.A.C. 19:47-4.7(b)-(d), for any calls: the call owed the bank is one of the calls, by
    another participant than the Banker; it is the qualified "Suivi" whenever there is one, else
    a "Banco" no other "Banco" caller sits nearer the Banker counterclockwise than; nobody is
    owed the bank only when neither option was exercised; and the order in which the calls
    were recorded never matters."""
    got = banco_priority(banker, calls, suivi)
    shuffled = list(calls)
    order.shuffle(shuffled)
    assert banco_priority(banker, shuffled, suivi) == got
    others = [c for c in calls if c.seat != banker]
    qualified = BancoCall(suivi, SUIVI) if suivi is not None else None
    seul = [c for c in others if c.kind is SEUL]
    if qualified in others:
        assert got == qualified
    elif seul:
        assert got in seul
        assert got is not None
        distance = {c.seat: (c.seat - banker) % 10 for c in seul}
        assert distance[got.seat] == min(distance.values())
    else:
        assert got is None


@pytest.mark.rule("CF-4.7b-SUIVI", "CF-4.7a-AGGREGATE", "CF-4.7e-UNCOVERED", "CF-4.8c-DOMINANT")
def test_partial_wagers_counterclockwise_until_covered() -> None:
    """N.J.A.C. 19:47-4.7(a), (d), (e), 4.8(c): partial wagers are taken from the Banker's
    right counterclockwise until the bank is covered, never beyond it; the Banker withdraws
    the uncovered part; the highest wager (ties: nearest counterclockwise) is Dominant
    (CF-4.7a-AGGREGATE, CF-4.7e-UNCOVERED)."""
    offers = [BancoOffer(s, PARTIAL, a) for s, a in ((2, 4000), (5, 3000), (7, 5000), (1, 9000))]
    got = cover_bank(4, 10_000, offers, None)
    assert got.accepted == (
        BancoOffer(5, PARTIAL, 3000),
        BancoOffer(7, PARTIAL, 5000),
        BancoOffer(1, PARTIAL, 2000),  # capped at what remains of the bank
    )
    assert got.uncovered_cents == 0
    assert got.dominant_seat == 7
    short = cover_bank(
        4, 10_000, [BancoOffer(2, PARTIAL, 3000), BancoOffer(6, PARTIAL, 3000)], None
    )
    assert sum(o.amount_cents for o in short.accepted) == 6000
    assert short.uncovered_cents == 4000
    assert short.dominant_seat == 6  # equal wagers: seat 6 is nearer the Banker (seat 4)
    nobody = cover_bank(4, 10_000, [], None)
    assert (nobody.accepted, nobody.uncovered_cents, nobody.dominant_seat) == ((), 10_000, None)


@pytest.mark.rule("CF-4.7a-AGGREGATE")
def test_the_banker_never_covers_himself() -> None:
    """N.J.A.C. 19:47-4.7(a): "the remaining participants" wager against the Banker - an offer
    from the Banker's own seat is never accepted (CF-4.7a-AGGREGATE)."""
    got = cover_bank(4, 10_000, [BancoOffer(4, PARTIAL, 5000), BancoOffer(5, PARTIAL, 1000)], None)
    assert all(o.seat != 4 for o in got.accepted)
    alone = cover_bank(4, 10_000, [BancoOffer(4, SEUL, 10_000)], None)
    assert all(o.seat != 4 for o in alone.accepted)


@pytest.mark.rule("CF-4.7a-AGGREGATE", "CF-4.7e-UNCOVERED")
@settings(max_examples=300, deadline=None)
@given(
    bank=st.integers(1, 10_000_000),
    banker=st.integers(1, 9),
    offers=st.dictionaries(st.integers(1, 9), st.integers(1, 10_000_000), max_size=8),
)
def test_partial_coverage_never_exceeds_the_bank(
    bank: int, banker: int, offers: dict[int, int]
) -> None:
    """N.J.A.C. 19:47-4.7(a), (e): for any partial offers, accepted wagers - each within its
    offer - never exceed the Banker's wager, and covered + withdrawn = the Banker's wager
    (CF-4.7a-AGGREGATE, CF-4.7e-UNCOVERED)."""
    offers.pop(banker, None)
    got = cover_bank(banker, bank, [BancoOffer(s, PARTIAL, a) for s, a in offers.items()], None)
    covered = sum(o.amount_cents for o in got.accepted)
    assert covered <= bank
    assert covered + got.uncovered_cents == bank
    for o in got.accepted:
        assert 0 < o.amount_cents <= offers[o.seat]
    if sum(offers.values()) >= bank:
        assert got.uncovered_cents == 0
    else:
        assert covered == sum(offers.values())


@pytest.mark.rule("CF-4.8c-DOMINANT")
def test_dominant_player() -> None:
    """CF-4.8c-DOMINANT, N.J.A.C. 19:47-4.8(c): the banco suivi or seul wagerer; else the
    highest wager; of equal ones the nearest the Banker counterclockwise (from seat 6: 7 before
    2); nobody against the bank, no Dominant Player."""
    seul = BancoOffer(2, BancoKind.SEUL, 10_000)
    assert dominant_player(6, [seul]) == 2
    partial = [BancoOffer(2, BancoKind.PARTIAL, 5_000), BancoOffer(7, BancoKind.PARTIAL, 5_000)]
    assert dominant_player(6, partial) == 7
    assert dominant_player(1, partial) == 2
    assert dominant_player(6, [*partial, BancoOffer(3, BancoKind.PARTIAL, 6_000)]) == 3
    assert dominant_player(6, []) is None


@pytest.mark.rule("CF-4.11e-SEAT-MOVE")
def test_a_move_up_in_turn_and_the_offer_that_reaches_it() -> None:
    """CF-4.11e-SEAT-MOVE, N.J.A.C. 19:47-4.11(e): with the bank at seat 4 (offered on from
    seat 5, counterclockwise, wrapping to seat 1), moving from seat 2 to seat 6 moves up in
    turn, from seat 6 to seat 2 does not; a pass from seat 4 to seat 1 was offered to seat 6 on
    its way, and one to seat 5 was not."""
    assert move_promotes(4, 2, 6, [1, 5])
    assert not move_promotes(4, 6, 2, [1, 5])
    assert not move_promotes(4, 4, 6, [1, 5])  # the Banker moving is no move up in turn
    assert offer_reaches(4, 1, 6, [1, 5, 6])
    assert offer_reaches(4, 6, 6, [1, 5, 6])
    assert not offer_reaches(4, 5, 6, [1, 5, 6])
    assert offer_reaches(4, None, 6, [1, 5, 6])  # nobody accepted: it went round the table


PUNTO_BANCO_HANDING = variant(Game.PUNTO_BANCO).cards_handed
MINIBACCARAT_HANDING = variant(Game.MINIBACCARAT).cards_handed


@pytest.mark.parametrize(
    ("procedure", "on_hand", "on_other", "entitled"),
    [
        # 3.7(d)1-2, 7.7(c)3i-ii: the highest wager on the hand
        (PUNTO_BANCO_HANDING, {2: 500, 5: 100}, {7: 900}, (2,)),
        (MINIBACCARAT_HANDING, {2: 500, 5: 100}, {7: 900}, (2,)),
        # 3.7(d)5: of equal wagers, the closest to the dealer counterclockwise
        (PUNTO_BANCO_HANDING, {6: 300, 2: 300, 4: 100}, {}, (2,)),
        # 7.7(c)3 names no tie-break: every equal highest wager qualifies
        (MINIBACCARAT_HANDING, {6: 300, 2: 300, 4: 100}, {}, (2, 6)),
        # 3.7(d)6: nobody on the hand, a player wagering on the other hand (a withdrawn
        # wager, 0, is none)
        (PUNTO_BANCO_HANDING, {3: 0}, {7: 900, 1: 100}, (1, 7)),
        (PUNTO_BANCO_HANDING, {}, {}, ()),
        # 7.7(c)3 says nothing of a hand without wagers
        (MINIBACCARAT_HANDING, {}, {7: 900}, None),
    ],
)
@pytest.mark.rule("PB-3.7d-HIGHEST-WAGER")
def test_seats_to_hand(
    procedure: HandingProcedure | None,
    on_hand: dict[int, int],
    on_other: dict[int, int],
    entitled: tuple[int, ...] | None,
) -> None:
    """N.J.A.C. 19:47-3.7(d)1-2, (d)5-6 and 7.7(c)3i-ii (PB-3.7d-HIGHEST-WAGER): who may be
    handed a hand's two cards."""
    assert procedure is not None
    assert seats_to_hand(procedure, on_hand, on_other) == entitled


@pytest.mark.rule("PB-3.7d-PROCEDURE")
def test_chemin_de_fer_hands_no_cards() -> None:
    """N.J.A.C. 19:47-4.8(d): the Banker deals the hands in front of the Dominant Player and
    himself; the game offers no procedure handing them to the players."""
    assert variant(Game.CHEMIN_DE_FER).cards_handed is None
