"""Chemin de Fer's bank: the bid (4.5(b)), the Banker's limits (4.6(b)), wagers against the
Banker (4.7(a)-(d)) and passing the bank (4.11)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import TableDayBuilder, codes, only, table

BANKER_WINS: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}
BANKER_LOSES: dict[str, Any] = {"player": "TH 7C", "banker": "3D 3S"}
STAND_OFF: dict[str, Any] = {"player": "4H 3C", "banker": "2D 5S"}


def cf() -> TableDayBuilder:
    return table("cf-5", "T04")


def bank(
    seat: int, amount: int, *banco: tuple[int, str, int | None], **more: Any
) -> dict[str, Any]:
    return {"seat": seat, "amount": amount, "banco": list(banco), **more}


SEUL5 = (5, "BANCO_SEUL", None)


@pytest.mark.rule("CF-4.5b-BANKER-BID")
def test_bank_not_given_to_the_highest_bid() -> None:
    """CF-4.5b-BANKER-BID, N.J.A.C. 19:47-4.5(b): 'The participant offering to wager the highest
    amount on the first hand shall become the Banker'."""
    b = cf()
    r = b.round(**BANKER_WINS, bank=bank(1, 100_000, SEUL5, bids={1: 100_000, 5: 150_000}))
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.seat, f.patron_id, f.event_ids) == (
        "CF-4.5b-BANKER-BID",
        Severity.HIGH,
        r.round_id,
        1,
        "PAT-01",
        (r.banker_wager,),
    )
    assert f.message == (
        "Seat 1 took the bank, but seat 5 bid the most ($1,500.00); the highest bid becomes "
        "Banker (N.J.A.C. 19:47-4.5(b))."
    )


@pytest.mark.rule("CF-4.5b-BANKER-BID")
def test_equal_bids_go_to_the_seat_closest_counterclockwise() -> None:
    """CF-4.5b-BANKER-BID, N.J.A.C. 19:47-4.5(b): of equal bids, the one 'closest to the dealer
    moving counterclockwise' (the lowest seat number) takes the bank."""
    good = cf()
    good.round(**BANKER_WINS, bank=bank(2, 100_000, SEUL5, bids={2: 100_000, 7: 100_000}))
    assert good.replay().findings == []
    bad = cf()
    bad.round(**BANKER_WINS, bank=bank(7, 100_000, SEUL5, bids={2: 100_000, 7: 100_000}))
    f = only(bad.replay())
    assert (f.code, f.seat) == ("CF-4.5b-BANKER-BID", 7)


@pytest.mark.parametrize(
    ("first", "second", "message", "expected"),
    [
        (
            80_000,
            None,
            "first Banker wager $800.00 is below the winning bid $1,000.00 (seat 1; "
            "N.J.A.C. 19:47-4.6(b)).",
            100_000,
        ),
        (
            100_000,
            250_000,
            "Banker wager $2,500.00 exceeds twice the previous wager $1,000.00 (seat 1; "
            "N.J.A.C. 19:47-4.6(b)).",
            100_000,
        ),
        (
            100_000,
            90_000,
            "Banker wager $900.00 is below the previous wager $1,000.00 (seat 1; "
            "N.J.A.C. 19:47-4.6(b)).",
            100_000,
        ),
    ],
)
@pytest.mark.rule("CF-4.6b-BANKER-LIMITS")
def test_banker_wager_limits(first: int, second: int | None, message: str, expected: int) -> None:
    """CF-4.6b-BANKER-LIMITS, N.J.A.C. 19:47-4.6(b): the first wager is not less than the bid;
    each later one 'at least equal to, but no more than twice' the one before (expected_cents
    is the bid or previous wager the limit is measured from)."""
    b = cf()
    r = b.round(**BANKER_WINS, bank=bank(1, first, SEUL5, bids={1: 100_000}))
    if second is not None:
        r = b.round(**BANKER_WINS, bank=bank(1, second, SEUL5))
    f = only(b.replay())
    amount = second if second is not None else first
    assert (f.code, f.severity, f.round_id, f.seat, f.event_ids) == (
        "CF-4.6b-BANKER-LIMITS",
        Severity.HIGH,
        r.round_id,
        1,
        (r.banker_wager,),
    )
    assert (f.expected_cents, f.actual_cents) == (expected, amount)
    assert f.message == message


@pytest.mark.rule("CF-4.6b-BANKER-LIMITS")
def test_banker_doubling_is_within_limits() -> None:
    """CF-4.6b-BANKER-LIMITS, N.J.A.C. 19:47-4.6(b) (its own example: $1,000, then $2,000, then
    up to $4,000)."""
    b = cf()
    b.round(**BANKER_WINS, bank=bank(1, 100_000, SEUL5, bids={1: 100_000}))
    b.round(**BANKER_WINS, bank=bank(1, 200_000, SEUL5))
    b.round(**BANKER_WINS, bank=bank(1, 400_000, SEUL5))
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.6b-BANKER-LIMITS", "CF-4.11a1-BANK-PASS")
def test_new_banker_after_a_mandatory_pass_is_not_bound_by_the_old_bank() -> None:
    """CF-4.6b-BANKER-LIMITS, N.J.A.C. 19:47-4.6(b) with 4.11(b): the bank passes when the
    Banker's Hand loses and is offered counterclockwise; the new Banker may wager less."""
    b = cf()
    b.round(**BANKER_LOSES, bank=bank(1, 100_000, SEUL5, bids={1: 100_000}))
    b.round(**BANKER_WINS, bank=bank(5, 50_000, (1, "BANCO_SEUL", None)))
    assert codes(b.replay()) == []


@pytest.mark.rule("CF-4.7a-AGGREGATE", "CF-4.7b-SUIVI")
def test_wagers_against_the_banker_exceed_the_bank() -> None:
    """CF-4.7a-AGGREGATE, N.J.A.C. 19:47-4.7(a): wagers against the Banker 'shall not exceed,
    either individually or in the aggregate, the amount wagered by the Banker'. Accepting the
    second partial wager in full also breaks the counterclockwise cover of 4.7(d), so
    CF-4.7b-SUIVI is reported beside it."""
    b = cf()
    r = b.round(
        **BANKER_WINS,
        bank=bank(5, 100_000, (7, "PARTIAL", 60_000), (2, "PARTIAL", 60_000), bids={5: 100_000}),
    )
    result = b.replay()
    assert codes(result) == ["CF-4.7a-AGGREGATE", "CF-4.7b-SUIVI"]
    f = only(result, "CF-4.7a-AGGREGATE")
    assert (f.severity, f.round_id, f.expected_cents, f.actual_cents) == (
        Severity.HIGH,
        r.round_id,
        100_000,
        120_000,
    )
    assert f.event_ids == (r.banker_wager, *r.banco)
    assert f.message == (
        "Wagers against the Banker total $1,200.00, more than the bank of $1,000.00 "
        "(N.J.A.C. 19:47-4.7(a))."
    )


@pytest.mark.rule("CF-4.7b-SUIVI")
def test_banco_suivi_by_a_participant_not_entitled() -> None:
    """CF-4.7b-SUIVI, N.J.A.C. 19:47-4.7(b): only 'any participant who equaled and lost the
    immediately preceding wager of the Banker' may call banco suivi."""
    b = cf()
    r = b.round(**BANKER_WINS, bank=bank(5, 100_000, (4, "BANCO_SUIVI", None), bids={5: 100_000}))
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "CF-4.7b-SUIVI",
        Severity.HIGH,
        r.round_id,
        (r.banker_wager, *r.banco),
    )
    assert f.message == (
        "The wagers against the Banker do not follow banco suivi, then banco seul nearest "
        "counterclockwise, then partial wagers counterclockwise (N.J.A.C. 19:47-4.7(b)-(d))."
    )


@pytest.mark.rule("CF-4.7b-SUIVI")
def test_banco_suivi_survives_a_stand_off() -> None:
    """CF-4.7b-SUIVI, N.J.A.C. 19:47-4.7(b): 'A "stand off" shall not be counted' — seat 5
    equaled and lost the bank, the next round was a stand-off, so seat 5 (not seat 7, who
    tied) keeps the suivi."""
    good = cf()
    good.round(**BANKER_WINS, bank=bank(1, 100_000, SEUL5, bids={1: 100_000}))
    good.round(**STAND_OFF, bank=bank(1, 100_000, (7, "BANCO_SEUL", None)))
    good.round(**BANKER_WINS, bank=bank(1, 100_000, (5, "BANCO_SUIVI", None)))
    assert good.replay().findings == []
    bad = cf()
    bad.round(**BANKER_WINS, bank=bank(1, 100_000, SEUL5, bids={1: 100_000}))
    bad.round(**STAND_OFF, bank=bank(1, 100_000, (7, "BANCO_SEUL", None)))
    r = bad.round(**BANKER_WINS, bank=bank(1, 100_000, (7, "BANCO_SUIVI", None)))
    f = only(bad.replay())
    assert (f.code, f.round_id) == ("CF-4.7b-SUIVI", r.round_id)


@pytest.mark.rule("CF-4.7b-SUIVI", "NJ-DATA-GAP")
def test_banco_suivi_after_a_round_that_lost_events_is_not_judged() -> None:
    """CF-4.7b-SUIVI with NJ-DATA-GAP, N.J.A.C. 19:47-4.7(b): the round seat 5 won by banco
    seul lost its announcement (a seq gap), so who may call banco suivi next is unknown; the
    next round's suivi is not judged (a gap is never guessed), and the round after is."""
    b = cf()
    lost = b.round(**BANKER_WINS, bank=bank(1, 100_000, SEUL5, bids={1: 100_000}))
    b.round(**BANKER_WINS, bank=bank(1, 100_000, (5, "BANCO_SUIVI", None)))
    judged = b.round(**BANKER_WINS, bank=bank(1, 100_000, (7, "BANCO_SUIVI", None)))
    gone = b.by_id(str(lost.announced))
    result = b.replay([e for e in b.events if e is not gone])
    assert [(f.code, f.round_id) for f in result.findings] == [
        ("NJ-DATA-GAP", lost.round_id),
        ("CF-4.7b-SUIVI", judged.round_id),
    ]


@pytest.mark.rule("CF-4.11a1-BANK-PASS")
def test_banker_kept_the_bank_after_losing() -> None:
    """CF-4.11a1-BANK-PASS, N.J.A.C. 19:47-4.11(a)1: 'The Banker shall pass the shoe whenever the
    "Banker's Hand" loses'; seat 1 lost and dealt the next round as Banker."""
    b = cf()
    lost = b.round(**BANKER_LOSES, bank=bank(1, 100_000, SEUL5, bids={1: 100_000}), keep_bank=True)
    b.round(**BANKER_WINS, bank=bank(1, 100_000, SEUL5))
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.seat) == (
        "CF-4.11a1-BANK-PASS",
        Severity.HIGH,
        lost.round_id,
        1,
    )
    assert f.message == (
        f"The Banker at seat 1 lost round {lost.round_id} but kept the bank "
        "(N.J.A.C. 19:47-4.11(a)1, (b))."
    )


@pytest.mark.rule("CF-4.11a1-BANK-PASS")
def test_bank_kept_finding_carries_its_evidence() -> None:
    """CF-4.11a1-BANK-PASS, N.J.A.C. 19:47-4.11(a)1: every finding names the events that prove
    it."""
    b = cf()
    b.round(**BANKER_LOSES, bank=bank(1, 100_000, SEUL5, bids={1: 100_000}), keep_bank=True)
    kept = b.round(**BANKER_WINS, bank=bank(1, 100_000, SEUL5))
    b.end_shoe()
    f = only(b.replay())
    assert kept.banker_wager in f.event_ids


@pytest.mark.rule("CF-4.11a1-BANK-PASS")
def test_bank_passed_after_a_loss_but_not_after_a_stand_off() -> None:
    """CF-4.11a1-BANK-PASS, N.J.A.C. 19:47-4.11(a)1: a stand-off is not a loss; the bank stays
    and passes only after the loss, to the right (4.11(b))."""
    b = cf()
    tie = b.round(**STAND_OFF, bank=bank(1, 100_000, SEUL5, bids={1: 100_000}))
    loss = b.round(**BANKER_LOSES, bank=bank(1, 100_000, SEUL5))
    b.round(**BANKER_WINS, bank=bank(5, 100_000, (1, "BANCO_SEUL", None)))
    b.end_shoe()
    assert tie.bank_passed is None and loss.bank_passed is not None
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.11c-VOLUNTARY-PASS")
@pytest.mark.parametrize(
    ("wager", "expected"), [(150_000, []), (300_000, ["CF-4.11c-VOLUNTARY-PASS"])]
)
def test_voluntary_pass_binds_the_next_banker(wager: int, expected: list[str]) -> None:
    """CF-4.11c-VOLUNTARY-PASS, N.J.A.C. 19:47-4.11(c): after a voluntary relinquishment the
    next Banker wagers "equal to, but not more than twice, the amount of the previous
    Banker's last wager"."""
    b = cf()
    b.round(**BANKER_WINS, bank=bank(1, 100_000, SEUL5, bids={1: 100_000}))
    passed = b.emit("pit", "BankPassed", seat=1, to_seat=5, voluntary=True, round_id=None)
    b.round(**BANKER_WINS, bank=bank(5, wager, (1, "BANCO_SEUL", None)))
    result = b.replay()
    assert codes(result) == expected
    if expected:
        f = only(result, "CF-4.11c-VOLUNTARY-PASS")
        assert (f.seat, f.expected_cents, f.actual_cents) == (5, 100_000, 300_000)
        assert "exceeds twice the previous wager" in f.message
        assert passed not in f.event_ids  # the evidence is the new Banker's wager
