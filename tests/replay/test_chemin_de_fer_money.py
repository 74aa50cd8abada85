"""Chemin de Fer money and control: the Banker's stake is the covered bank (4.7(e)) and the
Dominant Player controls the Player's Hand (4.8(c))."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import TableDayBuilder, only, table

BANKER_WINS: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}
PLAYER_FIVE_STAYS: dict[str, Any] = {"player": "2H 3C", "banker": "3D 4S"}  # 4.9(a)2 choice


def cf() -> TableDayBuilder:
    return table("cf-5", "T04")


@pytest.mark.rule("CF-4.7e-UNCOVERED")
def test_banker_settled_on_the_whole_bank_when_only_part_was_covered() -> None:
    """CF-4.7e-UNCOVERED, N.J.A.C. 19:47-4.7(e): a $1,000 bank covered for $400 is a $400 Banker
    wager. Recorded as $1,000, won and charged vigorish on $1,000, it is one CRITICAL finding
    with the right stake, payout and vigorish."""
    b = cf()
    r = b.round(
        **BANKER_WINS,
        wagers={1: {"BANKER": 100_000}, 5: {"PLAYER": 40_000}},
        bank={"seat": 1, "amount": 100_000, "banco": [(5, "PARTIAL", 40_000)]},
    )
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.seat, f.expected_cents, f.actual_cents) == (
        "CF-4.7e-UNCOVERED",
        Severity.CRITICAL,
        r.round_id,
        1,
        40_000,
        100_000,
    )
    withdrawn = next(e.event_id for e in b.events if e.get("action") == "BANK_UNCOVERED_WITHDRAWN")
    assert f.event_ids == (r.banker_wager, withdrawn, r.wagers[(1, "BANKER")])
    assert "win paying $400.00 with $20.00 vigorish" in f.message
    assert "$1,000.00 was paid and $50.00 vigorish charged" in f.message
    assert "N.J.A.C. 19:47-4.7(e)" in f.message


@pytest.mark.rule("CF-4.7e-UNCOVERED")
def test_banker_settled_on_the_covered_part_is_clean() -> None:
    """CF-4.7e-UNCOVERED, N.J.A.C. 19:47-4.7(e): the legal case: the uncovered $600 withdrawn,
    the Banker wagers, wins and pays vigorish on $400."""
    b = cf()
    b.round(**BANKER_WINS, bank={"seat": 1, "amount": 100_000, "banco": [(5, "PARTIAL", 40_000)]})
    assert b.replay().findings == []


PLAYER_WINS: dict[str, Any] = {"player": "4H 4C", "banker": "TD 7S"}  # Player natural 8


@pytest.mark.parametrize(("paid", "found"), [(40_000, []), (150_000, ["CF-4.7a-ACCEPTED"])])
@pytest.mark.rule("CF-4.7a-ACCEPTED")
def test_a_wager_against_the_bank_wins_what_was_accepted(paid: int, found: list[str]) -> None:
    """CF-4.7a-ACCEPTED, N.J.A.C. 19:47-4.7(a), 4.10(b): $1,500 put up against a $1,000 bank
    and accepted for $400 (the Banker's wager is $400) is a $400 wager. Paid $400 when the
    Player's Hand wins, it is clean; paid $1,500, it is one CRITICAL finding with both
    amounts, the wager and the settlement, while the Banker lost only $400."""
    b = cf()
    r = b.round(
        **PLAYER_WINS,
        wagers={1: {"BANKER": 40_000}, 5: {"PLAYER": 150_000}},
        bank={"seat": 1, "amount": 100_000, "banco": [(5, "PARTIAL", 40_000)]},
        paid={(5, "PLAYER"): paid},
    )
    result = b.replay()
    assert [f.code for f in result.findings] == found
    if found:
        f = only(result)
        assert (f.severity, f.seat, f.expected_cents, f.actual_cents) == (
            Severity.CRITICAL,
            5,
            40_000,
            150_000,
        )
        assert f.event_ids == (r.wagers[(5, "PLAYER")], r.settled_id(5, "PLAYER"))
        assert "N.J.A.C. 19:47-4.7(a), 4.10(b)" in f.message
        assert f.message.endswith("overpaid by $1,100.00.")


@pytest.mark.parametrize(
    ("banker", "withdrawn", "found"),
    [
        (220_000, None, ["CF-4.7e-NO-MORE-BETS"]),
        (230_000, 20_000, ["CF-4.7e-WITHDRAWN", "CF-4.7e-NO-MORE-BETS", "CF-4.7e-UNCOVERED"]),
    ],
)
@pytest.mark.rule("CF-4.7e-NO-MORE-BETS", "CF-4.7e-WITHDRAWN", "CF-4.7e-UNCOVERED")
def test_a_partial_accepted_after_no_more_bets_covers_nothing(
    banker: int, withdrawn: int | None, found: list[str]
) -> None:
    """CF-4.7e-NO-MORE-BETS, CF-4.7e-WITHDRAWN, CF-4.7e-UNCOVERED, N.J.A.C. 19:47-4.7(e): a
    $2,500 bank, $2,200 covered before "No More Bets" and a $100 partial accepted after it.
    The late acceptance is its own finding (expected $0, accepted $100) and covers nothing:
    the Banker's $2,200 wager and $300 withdrawn are clean. Counted as cover ($2,300 staked,
    $200 withdrawn), each is a finding with both amounts."""
    b = cf()
    r = b.round(
        **BANKER_WINS,
        wagers={1: {"BANKER": banker}, 5: {"PLAYER": 220_000}},
        bank={
            "seat": 1,
            "amount": 250_000,
            "banco": [(5, "PARTIAL", 220_000)],
            "late_banco": [(7, "PARTIAL", 10_000)],
        },
        betting_closed="before cards",
    )
    events = b.events
    if withdrawn is not None:  # the pit recorded the late $100 as cover
        (recorded,) = [e for e in events if e.get("action") == "BANK_UNCOVERED_WITHDRAWN"]
        events[events.index(recorded)] = replace(
            recorded, fields={**recorded.fields, "amount_cents": withdrawn}
        )
    result = b.replay(events)
    assert sorted(f.code for f in result.findings) == sorted(found)
    late = only(result, "CF-4.7e-NO-MORE-BETS")
    assert (late.seat, late.expected_cents, late.actual_cents) == (7, 0, 10_000)
    assert late.event_ids == (r.betting_closed, r.banco[-1])
    assert "$2,200.00 of the $2,500.00 bank was covered in time" in late.message
    if withdrawn is not None:
        f = only(result, "CF-4.7e-WITHDRAWN")
        assert (f.seat, f.expected_cents, f.actual_cents) == (1, 30_000, 20_000)
        assert "N.J.A.C. 19:47-4.7(e)" in f.message
        uncovered = only(result, "CF-4.7e-UNCOVERED")
        assert (uncovered.expected_cents, uncovered.actual_cents) == (220_000, 230_000)


@pytest.mark.parametrize(
    ("banco", "dominant"),
    [
        ([(5, "PARTIAL", 30_000), (7, "PARTIAL", 50_000)], 7),  # the highest wager
        ([(5, "PARTIAL", 50_000), (7, "PARTIAL", 50_000)], 5),  # equal: nearest counterclockwise
        ([(7, "BANCO_SEUL", None)], 7),  # banco seul
    ],
)
@pytest.mark.rule("CF-4.8c-DOMINANT")
def test_the_players_hand_is_the_dominant_players(
    banco: list[tuple[int, str, int | None]], dominant: int
) -> None:
    """CF-4.8c-DOMINANT, N.J.A.C. 19:47-4.8(c): the Player's Hand's choice on a five is the
    Dominant Player's. Made by the Dominant Player it is clean; made by another seat it is one
    HIGH finding naming the option and the Banker's wager."""
    for chooser in {5, 7}:
        b = cf()
        r = b.round(
            **PLAYER_FIVE_STAYS,
            bank={"seat": 1, "amount": 100_000, "banco": banco},
            hand_options=False,
        )
        option = b.emit(
            "pit", "HandOption", round_id=r.round_id, hand="PLAYER", drew=False, seat=chooser
        )
        result = b.replay()
        if chooser == dominant:
            assert result.findings == [], chooser
            continue
        f = only(result)
        assert (f.code, f.severity, f.seat, f.event_ids) == (
            "CF-4.8c-DOMINANT",
            Severity.HIGH,
            chooser,
            (option, r.banker_wager),
        )
        assert (
            f"the Dominant Player, who alone controls that hand, was seat {dominant}" in f.message
        )


BANKER_LOSES: dict[str, Any] = {"player": "TH 7C", "banker": "3D 3S"}


def lost_bank(b: TableDayBuilder, to_seat: int | None) -> str:
    """Seat 1's bank loses to seat 5's banco with seat 7 also seated; the pit records the
    mandatory pass to ``to_seat``."""
    b.seat(7)
    b.round(
        **BANKER_LOSES,
        bank={"seat": 1, "amount": 100_000, "banco": [(5, "BANCO_SEUL", None)]},
        keep_bank=True,
    )
    return b.emit("pit", "BankPassed", seat=1, to_seat=to_seat, voluntary=False, round_id=None)


@pytest.mark.rule("CF-4.11b-PASSED-TO")
def test_the_bank_taken_by_another_than_its_receiver() -> None:
    """CF-4.11b-PASSED-TO, N.J.A.C. 19:47-4.11(b): the participant who accepts a passed bank
    becomes the Banker: passed to seat 5, the next Banker's wager by seat 7 is one HIGH
    finding naming the pass and the wager."""
    b = cf()
    passed = lost_bank(b, 5)
    r = b.round(
        **BANKER_WINS, bank={"seat": 7, "amount": 100_000, "banco": [(5, "BANCO_SEUL", None)]}
    )
    f = only(b.replay(), "CF-4.11b-PASSED-TO")
    assert (f.severity, f.seat, f.round_id, f.event_ids) == (
        Severity.HIGH,
        7,
        r.round_id,
        (passed, r.banker_wager),
    )
    assert "passed to seat 5" in f.message and "N.J.A.C. 19:47-4.11(b)" in f.message


@pytest.mark.parametrize(
    ("to_seat", "who"), [(1, "the passing Banker"), (9, "no seated participant")]
)
@pytest.mark.rule("CF-4.11b-PASSED-TO")
def test_the_bank_passed_to_nobody_who_may_take_it(to_seat: int, who: str) -> None:
    """CF-4.11b-PASSED-TO, N.J.A.C. 19:47-4.11(b): the bank goes to a seated participant other
    than the Banker who lost it."""
    b = cf()
    passed = lost_bank(b, to_seat)
    f = only(b.replay(), "CF-4.11b-PASSED-TO")
    assert (f.seat, f.event_ids) == (1, (passed,))
    assert who in f.message


@pytest.mark.rule("CF-4.11b-PASSED-TO")
def test_the_bank_taken_by_its_receiver_or_bid_for_after_it_left_is_clean() -> None:
    """CF-4.11b-PASSED-TO, N.J.A.C. 19:47-4.11(b): the legal cases: seat 5 (or, refusals not
    being recorded, seat 7 further round) takes the bank it was passed; a receiver who left
    before taking it leaves the bank to the next taker."""
    for to_seat in (5, 7):
        b = cf()
        lost_bank(b, to_seat)
        other = 7 if to_seat == 5 else 5
        b.round(
            **BANKER_WINS,
            bank={"seat": to_seat, "amount": 100_000, "banco": [(other, "BANCO_SEUL", None)]},
        )
        assert "CF-4.11b-PASSED-TO" not in [f.code for f in b.replay().findings]
    b = cf()
    lost_bank(b, 5)
    b.patron_leaves(5)
    b.round(**BANKER_WINS, bank={"seat": 7, "amount": 100_000, "banco": [(1, "BANCO_SEUL", None)]})
    assert "CF-4.11b-PASSED-TO" not in [f.code for f in b.replay().findings]
