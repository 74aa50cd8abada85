"""Chemin de Fer rules the devices record and the replay reads: the Banker wagers before the
cards (4.6(a)), no hand is dealt after the one in which the cutting card appears (4.12(g),
(j), (k)), a voluntarily passed bank, defeated, goes on from the right of the Banker who
passed it (4.11(d)), and a participant who moves seats to come to the bank sooner misses that
turn (4.11(e))."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import TableDayBuilder, only, patron_id, table

BANKER_WINS: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}
BANKER_LOSES: dict[str, Any] = {"player": "TH 7C", "banker": "3D 3S"}


def cf() -> TableDayBuilder:
    return table("cf-5", "T04")


def bank(seat: int, against: int, **more: Any) -> dict[str, Any]:
    """A $1,000 bank at ``seat`` covered whole by ``against`` calling "Banco Seul"."""
    return {"seat": seat, "amount": 100_000, "banco": [(against, "BANCO_SEUL", None)], **more}


# ---------------------------------------------------------------------- 4.6(a)
@pytest.mark.rule("CF-4.6a-BANKER-BEFORE-CARDS")
def test_banker_wager_before_the_cards_is_legal() -> None:
    """CF-4.6a-BANKER-BEFORE-CARDS, N.J.A.C. 19:47-4.6(a): "Immediately prior to dealing the
    cards, the Banker shall place a wager"; recorded before the first card, nothing is found."""
    b = cf()
    r = b.round(**BANKER_WINS, bank=bank(1, 5))
    b.end_shoe()
    assert r.banker_wager is not None and r.banker_wager < r.cards[0]
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.6a-BANKER-BEFORE-CARDS")
def test_banker_wager_recorded_after_the_first_card() -> None:
    """CF-4.6a-BANKER-BEFORE-CARDS, N.J.A.C. 19:47-4.6(a): the Banker's wager recorded once the
    Banker has dealt the round's first card is one finding naming both events."""
    b = cf()
    r = b.round(**BANKER_WINS, bank=bank(1, 5, wager_after_cards=True))
    b.end_shoe()
    f = only(b.replay())
    assert r.banker_wager is not None
    assert (f.code, f.severity, f.round_id, f.seat, f.actual_cents, f.event_ids) == (
        "CF-4.6a-BANKER-BEFORE-CARDS",
        Severity.HIGH,
        r.round_id,
        1,
        100_000,
        (r.banker_wager, r.cards[0]),
    )
    assert f.message == (
        f"The Banker at seat 1 recorded a wager of $1,000.00 in round {r.round_id} (event "
        f"{r.banker_wager}) after the round's first card was dealt (event {r.cards[0]}); the "
        "Banker wagers immediately before the cards (N.J.A.C. 19:47-4.6(a)). Check with "
        "surveillance when the bank was put up, and the pit terminal's record of it."
    )


# ---------------------------------------------------------------------- 4.12(g), (j), (k)
@pytest.mark.rule("CF-4.12g-CUT-CARD-HAND-LAST")
def test_the_shoe_ends_with_the_cutting_card_hand() -> None:
    """CF-4.12g-CUT-CARD-HAND-LAST, N.J.A.C. 19:47-4.12(g), (j), (k): the hand in which the
    cutting card appears is the shoe's last; no "last hand" is announced and the shoe ends."""
    b = cf()
    b.round(**BANKER_WINS, bank=bank(1, 5))
    cut = b.round(**BANKER_WINS, bank=bank(1, 5), cut_card=True)
    b.end_shoe()
    assert cut.cut_card is not None and cut.last_hand is None
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.12g-CUT-CARD-HAND-LAST")
def test_a_hand_dealt_after_the_cutting_card_hand() -> None:
    """CF-4.12g-CUT-CARD-HAND-LAST, N.J.A.C. 19:47-4.12(g), (j), (k): once the cutting card is
    exposed no card is kept for "the next hand", and that hand is "the last hand of a shoe";
    each hand dealt after it is a finding on its RoundStarted."""
    b = cf()
    cut = b.round(**BANKER_WINS, bank=bank(1, 5), cut_card=True)
    after = b.round(**BANKER_WINS, bank=bank(1, 5))
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.shoe_id, f.event_ids) == (
        "CF-4.12g-CUT-CARD-HAND-LAST",
        Severity.MEDIUM,
        after.round_id,
        cut.shoe_id,
        (after.started,),
    )
    assert f.message == (
        f"Round {after.round_id} was dealt from shoe {cut.shoe_id} after round {cut.round_id}, "
        f"in which the cutting card appeared (event {cut.cut_card}), the shoe's last hand "
        "(N.J.A.C. 19:47-4.12(g), (j), (k)). No hand follows the shoe's last until the cards "
        "are reshuffled: review the shoe's end with surveillance and the wagers settled on the "
        "hands dealt after it."
    )


@pytest.mark.rule("CF-4.12g-CUT-CARD-HAND-LAST", "CF-4.12k-RESHUFFLE")
def test_a_hand_after_a_void_for_insufficient_cards_is_that_rules_finding() -> None:
    """CF-4.12g-CUT-CARD-HAND-LAST, CF-4.12k-RESHUFFLE, N.J.A.C. 19:47-4.12(g), (k): a hand
    dealt after the cutting card's, then voided for insufficient cards, then another: the
    first is dealt past the shoe's last hand (4.12(g)); the one after the void is the void's
    finding (4.12(k)), not a second 4.12(g) one."""
    b = cf()
    b.round(**BANKER_WINS, bank=bank(1, 5), cut_card=True)
    void = b.voided_round(wagers={1: {"BANKER": 100_000}, 5: {"PLAYER": 100_000}})
    after = b.round(**BANKER_WINS, bank=bank(1, 5))
    b.end_shoe()
    found = {(f.code, f.round_id) for f in b.replay().findings}
    assert ("CF-4.12g-CUT-CARD-HAND-LAST", void.round_id) in found
    assert ("CF-4.12k-RESHUFFLE", after.round_id) in found
    assert ("CF-4.12g-CUT-CARD-HAND-LAST", after.round_id) not in found


# ---------------------------------------------------------------------- 4.11(d)
def voluntarily_passed(*seats: int) -> tuple[TableDayBuilder, str]:
    """Seats 1 and 3 (and ``seats``) at the table; seat 1 holds the bank and wins, then passes
    it voluntarily to seat 3 (4.11(c))."""
    b = cf()
    b.seat(1)
    b.seat(3)
    for seat in seats:
        b.seat(seat)
    first = b.round(**BANKER_WINS, bank=bank(1, 3))
    passed = b.emit("pit", "BankPassed", seat=1, to_seat=3, voluntary=True, round_id=first.round_id)
    return b, passed


@pytest.mark.rule("CF-4.11d-PASSED-BANK-DEFEATED")
def test_defeated_passed_bank_goes_on_from_the_right_of_its_passer() -> None:
    """CF-4.11d-PASSED-BANK-DEFEATED, N.J.A.C. 19:47-4.11(d), (b): seat 1 passed the bank to seat
    3, whose hand then loses; from seat 1's right the bank is offered to seat 3 (who must pass
    it, 4.11(a)1), then seat 5, who takes it."""
    b, _ = voluntarily_passed(5)
    lost = b.round(**BANKER_LOSES, bank=bank(3, 5))
    b.round(**BANKER_WINS, bank=bank(5, 1))
    b.end_shoe()
    assert b.by_id(str(lost.bank_passed)).fields["to_seat"] == 5
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.11d-PASSED-BANK-DEFEATED")
def test_defeated_passed_bank_given_back_to_its_passer() -> None:
    """CF-4.11d-PASSED-BANK-DEFEATED, N.J.A.C. 19:47-4.11(d): the passed bank, defeated, is
    transferred "as it would have been ... had it not been voluntarily passed": from the right
    of seat 1, who passed it, never back to seat 1."""
    b, passed = voluntarily_passed()
    lost = b.round(**BANKER_LOSES, bank=bank(3, 1))
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.event_ids) == (
        "CF-4.11d-PASSED-BANK-DEFEATED",
        Severity.HIGH,
        1,
        (passed, lost.bank_passed),
    )
    assert f.message == (
        f"Seat 1 passed the bank voluntarily (event {passed}); when seat 3 lost it, the bank "
        f"went back to seat 1 (event {lost.bank_passed}). A passed bank that is defeated goes "
        "on as it would have had it not been passed: to the right of seat 1, then "
        "counterclockwise (N.J.A.C. 19:47-4.11(d), (b)). Correct the record of who took the "
        "bank, or offer it on from seat 1's right."
    )


@pytest.mark.rule("CF-4.11d-PASSED-BANK-DEFEATED")
def test_a_passer_who_left_leaves_the_seat_to_another_participant() -> None:
    """CF-4.11d-PASSED-BANK-DEFEATED, N.J.A.C. 19:47-4.11(d): once seat 1's patron, who passed
    the bank, left, a new participant in seat 1 may receive it in turn."""
    b, _ = voluntarily_passed()
    b.patron_leaves(1)
    b.seat(1)
    b.round(**BANKER_LOSES, bank=bank(3, 1))
    b.end_shoe()
    assert b.replay().findings == []


# ---------------------------------------------------------------------- 4.11(e)
def moved(before: int, after: int, *others: int) -> tuple[TableDayBuilder, str, str]:
    """Seat 1 holds the bank and wins against seat 3 (and ``others`` sit); then the patron at
    ``before`` moves to ``after``: PatronLeft, and PatronSeated for the same patron."""
    b = cf()
    for seat in sorted({1, 3, before, *others}):
        b.seat(seat)
    b.round(**BANKER_WINS, bank=bank(1, 3))
    left = b.patron_leaves(before)
    seated = b.emit(
        "pit", "PatronSeated", seat=after, patron_id=patron_id(before), patron_name="Moved"
    )
    b.seated[after] = patron_id(before)
    return b, left, seated


@pytest.mark.rule("CF-4.11e-SEAT-MOVE")
def test_a_move_up_in_turn_takes_the_bank_on_that_turn() -> None:
    """CF-4.11e-SEAT-MOVE, N.J.A.C. 19:47-4.11(e): the patron of seat 5 moves to seat 2, which
    the bank, at seat 1, reaches before seat 5; the Banker loses and the bank is passed to
    seat 2 on that very turn, which the move should have cost."""
    b, left, seated = moved(5, 2)
    lost = b.round(**BANKER_LOSES, bank=bank(1, 3))
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.patron_id, f.event_ids) == (
        "CF-4.11e-SEAT-MOVE",
        Severity.HIGH,
        2,
        "PAT-05",
        (left, seated, lost.bank_passed),
    )
    assert f.message == (
        f"The participant who left seat 5 (event {left}) sat down at seat 2 (event {seated}), "
        "which the bank, then at seat 1, reaches sooner; the bank was then passed to seat 2 "
        f"(event {lost.bank_passed}). A participant who moves up in turn misses that turn to "
        "become the Banker in the new seat (N.J.A.C. 19:47-4.11(e)). Offer the bank on to the "
        "next participant, or correct the record of the seats."
    )


@pytest.mark.rule("CF-4.11e-SEAT-MOVE")
def test_the_turn_missed_after_a_move_up() -> None:
    """CF-4.11e-SEAT-MOVE, N.J.A.C. 19:47-4.11(e): the patron who moved up to seat 2 is passed
    over and the bank goes to seat 3: the turn is missed as the rule requires."""
    b, _, _ = moved(5, 2)
    lost = b.round(**BANKER_LOSES, bank=bank(1, 3), keep_bank=True)
    b.emit("pit", "BankPassed", seat=1, to_seat=3, voluntary=False, round_id=lost.round_id)
    b.round(**BANKER_WINS, bank=bank(3, 2))
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.11e-SEAT-MOVE")
def test_a_move_that_gains_no_turn_keeps_it() -> None:
    """CF-4.11e-SEAT-MOVE, N.J.A.C. 19:47-4.11(e): the patron of seat 3 moves to seat 6, after
    seat 3 in turn from the Banker at seat 1; the move gains nothing, and the bank passed to
    seat 6 is no finding."""
    b, _, _ = moved(3, 6)
    lost = b.round(**BANKER_LOSES, bank=bank(1, 6))
    b.end_shoe()
    assert b.by_id(str(lost.bank_passed)).fields["to_seat"] == 6
    assert b.replay().findings == []
