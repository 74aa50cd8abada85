"""Chemin de Fer's offers in turn, read from the declines the pit records (OfferDeclined,
schema id 7): the cut from the highest-numbered seat clockwise (4.4(c)), partial wagers from the
Banker's immediate right counterclockwise (4.7(d)), a relinquished bank from the previous
Banker's right counterclockwise (4.11(b)-(c)), and the passer kept out of the first round of
bidding for a bank nobody accepted (4.11(c))."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import TableDayBuilder, only, table

BANKER_WINS: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}


def cf(*seats: int) -> TableDayBuilder:
    b = table("cf-5", "T04")
    for seat in seats:
        b.seat(seat)
    return b


def bank(seat: int, against: int) -> dict[str, Any]:
    """A $1,000 bank at ``seat`` covered whole by ``against`` calling "Banco Seul"."""
    return {"seat": seat, "amount": 100_000, "banco": [(against, "BANCO_SEUL", None)]}


def declined(b: TableDayBuilder, offer: str, *seats: int, round_id: str | None = None) -> None:
    for seat in seats:
        b.emit("pit", "OfferDeclined", offer=offer, seat=seat, round_id=round_id, shoe_id=b.shoe_id)


# ---------------------------------------------------------------------- 4.4(c)
@pytest.mark.rule("CF-4.4c-CUT-ORDER")
def test_the_cut_taken_after_the_seats_before_declined() -> None:
    """CF-4.4c-CUT-ORDER, N.J.A.C. 19:47-4.4(c): seats 2, 4 and 6 sit; seat 2 cuts after seats
    6 and 4, offered the stack before it, declined. Nothing is found."""
    b = cf(2, 4, 6)
    b.shoe(cut_by_seat=2, cut_declined=[6, 4])
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.4c-CUT-ORDER")
def test_the_cut_taken_out_of_turn() -> None:
    """CF-4.4c-CUT-ORDER, N.J.A.C. 19:47-4.4(c): seat 2 cuts after only seat 6 declined; seat 4,
    offered the stack before seat 2, declined nothing on record. One finding names the shoe,
    the seat passed over and the events."""
    b = cf(2, 4, 6)
    started = b.shoe(cut_by_seat=2, cut_declined=[6])
    shoe_id = b.shoe_id
    b.end_shoe()
    decline = next(e.event_id for e in b.events if e.payload_type == "OfferDeclined")
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.event_ids) == (
        "CF-4.4c-CUT-ORDER",
        Severity.MEDIUM,
        4,
        (started, decline),
    )
    assert f.message == (
        f"Table T04, shoe {shoe_id} (event {started}): seat 2 cut, but seat(s) 4 before it in "
        "turn declined no offer of the cut on record; with seats 6, 4, 2 occupied the stack is "
        "offered in that order, highest number first and clockwise, until one accepts "
        "(N.J.A.C. 19:47-4.4(c)). Check with surveillance whether the cut was offered to them, "
        "and have the pit terminal record each participant who declines it."
    )


@pytest.mark.rule("CF-4.4c-CUT-ORDER")
def test_a_table_that_records_no_declines_is_not_judged_on_the_cut_order() -> None:
    """CF-4.4c-CUT-ORDER, N.J.A.C. 19:47-3.5(c): a Punto Banco table whose pit records no
    declines (records_declined_offers false) cannot show a participant passed over."""
    b = table("pb-5-classic")
    for seat in (2, 4, 6):
        b.seat(seat)
    b.shoe(cut_by_seat=2)
    b.end_shoe()
    assert b.replay().findings == []


# ---------------------------------------------------------------------- 4.7(d)
def partials(*wagers: tuple[int, int], declined: tuple[int, ...] = ()) -> dict[str, Any]:
    """A $1,000 bank at seat 1 offered in parts: each (seat, cents) of ``wagers`` accepted,
    each seat of ``declined`` declining on record first."""
    return {
        "seat": 1,
        "amount": 100_000,
        "partial_declined": declined,
        "banco": [(seat, "PARTIAL", cents) for seat, cents in wagers],
    }


@pytest.mark.rule("CF-4.7d-PARTIAL-ORDER")
def test_partial_wagers_taken_in_turn_are_clean() -> None:
    """CF-4.7d-PARTIAL-ORDER, N.J.A.C. 19:47-4.7(d): from the Banker's immediate right seats 2
    and 3 wager $400 and $600 against seat 1's $1,000 bank and cover it; seats 4 and 5 are left
    nothing, in turn. Then seat 2 declines on record and seats 3 and 4 cover the bank. Nothing
    is found."""
    b = cf(1, 2, 3, 4, 5)
    b.round(**BANKER_WINS, bank=partials((2, 40_000), (3, 60_000)))
    b.round(**BANKER_WINS, bank=partials((3, 40_000), (4, 60_000), declined=(2,)))
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.7d-PARTIAL-ORDER")
def test_a_participant_passed_over_for_a_part_of_the_bank() -> None:
    """CF-4.7d-PARTIAL-ORDER, N.J.A.C. 19:47-4.7(d): seats 3 and 4 cover seat 1's whole bank,
    but seat 2, at the Banker's immediate right, neither wagered nor declined on record: the
    part it had the right to went to seat 4. One finding names the round, the seat passed
    over, the seats that took the bank and the section."""
    b = cf(1, 2, 3, 4, 5)
    handle = b.round(**BANKER_WINS, bank=partials((3, 40_000), (4, 60_000)))
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.round_id, f.event_ids) == (
        "CF-4.7d-PARTIAL-ORDER",
        Severity.MEDIUM,
        2,
        handle.round_id,
        (handle.banker_wager, *handle.banco),
    )
    assert f.message == (
        f"Table T04, round {handle.round_id}: partial wagers by seat(s) 3, 4 covered the whole "
        f"bank of $1,000.00 at seat 1 (event {handle.banker_wager}), but seat(s) 2, offered a "
        "part before the last of them in turn, neither wagered nor declined on record; from "
        "the Banker's immediate right counterclockwise the offer goes to seats 2, 3, 4, 5 until "
        "the bank is covered (N.J.A.C. 19:47-4.7(d)). Check with surveillance whether a part of "
        "the bank was offered to them, and have the pit terminal record each participant who "
        "declines it."
    )


@pytest.mark.rule("CF-4.7d-PARTIAL-ORDER")
def test_the_offer_goes_round_past_the_highest_seat() -> None:
    """CF-4.7d-PARTIAL-ORDER, N.J.A.C. 19:47-4.7(d): the Banker sits at seat 4, so the offer
    goes to seats 5, 1 and 2 in that order. Seat 5 declines and seats 1 and 2 cover the bank:
    clean. With seat 1's decline on record instead of seat 5's, seat 5 was passed over."""
    clean = cf(1, 2, 4, 5)
    clean.round(
        **BANKER_WINS,
        bank={**partials((1, 50_000), (2, 50_000)), "seat": 4, "partial_declined": (5,)},
    )
    clean.end_shoe()
    assert clean.replay().findings == []
    b = cf(1, 2, 4, 5)
    b.round(
        **BANKER_WINS,
        bank={**partials((1, 50_000), (2, 50_000)), "seat": 4, "partial_declined": (1,)},
    )
    b.end_shoe()
    assert only(b.replay(), "CF-4.7d-PARTIAL-ORDER").seat == 5


@pytest.mark.rule("CF-4.7d-PARTIAL-ORDER")
def test_a_bank_left_uncovered_at_no_more_bets_deprived_nobody() -> None:
    """CF-4.7d-PARTIAL-ORDER, N.J.A.C. 19:47-4.7(d)-(e): partial wagers are accepted "until
    [they] equal the amount of the wager made by the Banker or until the dealer announces 'No
    More Bets'". Seat 3's $400 is all that covers seat 1's $1,000 when "No More Bets" is
    called, and seat 2 declined nothing on record: the bank kept room for seat 2's wager, so
    the order of the offer took nothing from it. Nothing is found; the Banker withdraws the
    $600 uncovered (4.7(e))."""
    b = cf(1, 2, 3)
    b.round(**BANKER_WINS, bank=partials((3, 40_000)))
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.7d-PARTIAL", "CF-4.7d-PARTIAL-ORDER")
def test_partial_wagers_taken_past_a_banco_call_are_judged_on_priority_alone() -> None:
    """CF-4.7d-PARTIAL, N.J.A.C. 19:47-4.7(c)-(d): seat 2 calls "Banco Seul", exercising the
    option of 4.7(c), and seats 3 and 4 cover the bank with partial wagers instead. Partial
    wagers were not due at all, so their order is not judged: the one finding is the call
    passed over, not a participant passed over in the partial wagers' turn."""
    b = cf(1, 2, 3, 4)
    b.round(
        **BANKER_WINS,
        bank={**partials((3, 40_000), (4, 60_000)), "calls": [(2, "BANCO_SEUL")]},
    )
    b.end_shoe()
    assert [(f.code, f.seat) for f in b.replay().findings] == [("CF-4.7d-PARTIAL", 2)]


# ---------------------------------------------------------------------- 4.11(b)-(c)
def passing_voluntarily(*declines: int, to_seat: int | None) -> tuple[TableDayBuilder, str, str]:
    """Seats 1, 3 and 5 sit; seat 1 holds the bank and wins, then passes it voluntarily:
    ``declines`` decline it in turn and ``to_seat`` takes it (``None``: nobody)."""
    b = cf(1, 3, 5)
    first = b.round(**BANKER_WINS, bank=bank(1, 3))
    declined(b, "BANK", *declines, round_id=first.round_id)
    passed = b.emit(
        "pit", "BankPassed", seat=1, to_seat=to_seat, voluntary=True, round_id=first.round_id
    )
    return b, first.round_id, passed


@pytest.mark.rule("CF-4.11b-OFFER-ORDER")
def test_the_bank_taken_after_the_seat_to_the_right_declined() -> None:
    """CF-4.11b-OFFER-ORDER, N.J.A.C. 19:47-4.11(b)-(c): from seat 1's right the bank goes to
    seat 3, who declines, then to seat 5, who takes it. Nothing is found."""
    b, _, _ = passing_voluntarily(3, to_seat=5)
    b.round(**BANKER_WINS, bank=bank(5, 3))
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.11b-OFFER-ORDER")
def test_the_bank_offered_out_of_turn() -> None:
    """CF-4.11b-OFFER-ORDER, N.J.A.C. 19:47-4.11(b)-(c): seat 5 takes the bank seat 1 passed,
    but seat 3, to seat 1's right, declined nothing on record: it was passed over. One finding
    names the round, the seat passed over and the pass."""
    b, round_id, passed = passing_voluntarily(to_seat=5)
    b.round(**BANKER_WINS, bank=bank(5, 3))
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.round_id, f.event_ids) == (
        "CF-4.11b-OFFER-ORDER",
        Severity.HIGH,
        3,
        round_id,
        (passed,),
    )
    assert f.message == (
        f"Table T04, after round {round_id}: seat 1 gave up the bank and it went to seat 5 "
        f"(event {passed}), but seat(s) 3, offered it before in turn, declined nothing on "
        "record; from the right of seat 1 counterclockwise the bank goes to seats 3, 5 until "
        "one accepts (N.J.A.C. 19:47-4.11(b)-(d)). Offer the bank to the seats passed over, or "
        "have the pit terminal record their declines."
    )


@pytest.mark.rule("CF-4.11c-PASSER-BID")
def test_the_bidding_without_the_passer() -> None:
    """CF-4.11c-PASSER-BID, N.J.A.C. 19:47-4.11(c): seats 3 and 5 decline the bank seat 1
    passed; seats 3 and 5 bid for it and seat 3, the highest, becomes the Banker. Nothing is
    found."""
    b, _, _ = passing_voluntarily(3, 5, to_seat=None)
    b.emit("pit", "BankBid", seat=3, amount_cents=100_000, shoe_id=b.shoe_id)
    b.emit("pit", "BankBid", seat=5, amount_cents=50_000, shoe_id=b.shoe_id)
    b.round(**BANKER_WINS, bank=bank(3, 5))
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.11c-PASSER-BID")
def test_the_passer_bids_in_the_first_round() -> None:
    """CF-4.11c-PASSER-BID, N.J.A.C. 19:47-4.11(c): seat 1 passed the bank, nobody accepted it,
    and seat 1 bid for it in the first round of the bidding. One finding names the pass and
    the bid."""
    b, round_id, passed = passing_voluntarily(3, 5, to_seat=None)
    bid = b.emit("pit", "BankBid", seat=1, amount_cents=50_000, shoe_id=b.shoe_id)
    b.emit("pit", "BankBid", seat=3, amount_cents=100_000, shoe_id=b.shoe_id)
    b.round(**BANKER_WINS, bank=bank(3, 5))
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.round_id, f.event_ids) == (
        "CF-4.11c-PASSER-BID",
        Severity.HIGH,
        1,
        round_id,
        (passed, bid),
    )
    assert f.message == (
        f"Table T04: seat 1 passed the bank voluntarily after round {round_id} (event {passed}) "
        f"and nobody accepted it, then bid for it in the first round of the bidding (event "
        f"{bid}); the participant who passed the bank takes no part in that round (N.J.A.C. "
        "19:47-4.11(c)). Set the bid aside and award the bank among the others' bids."
    )
