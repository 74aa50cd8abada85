"""Punto Banco's curator from the pit terminal's CuratorChanged events: the shoe is offered in
order (3.6(b), (d), 3.11(b)) and passes when the Banker's Hand loses (3.11(a)1)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pipeline.replay.findings import Finding, Severity
from tests.replay.builder import TableDayBuilder

Hands = tuple[str, str]
"""(Player's Hand, Banker's Hand)."""
PLAYER_WINS: Hands = ("9H KC", "2D 4S")  # a natural 9 beats 6: the Banker's Hand loses
BANKER_WINS: Hands = ("2H 4C", "3D 4S")  # 6 and 7 stand: the Banker's Hand wins
TIE: Hands = ("2H 4C", "3D 3S")


def day(
    seats: Sequence[int],
    first: tuple[list[int], int | None],
    hands: Hands,
    after: tuple[list[int], int | None] | None = None,
) -> tuple[list[Finding], str]:
    """Seats patrons, offers the shoe at the commencement of play (``first`` = declined seats,
    the seat that took it), deals one round with a wager at the first seat, optionally records
    a change of curator ``after`` it, and deals a second round."""
    b = TableDayBuilder("T01", rules_id="pb-5-classic")
    b.open()
    for seat in seats:
        b.seat(seat)
    declined, taken = first
    b.emit("pit", "CuratorChanged", round_id=None, declined=declined, seat=taken)
    b.shoe()
    r = b.round(*hands, wagers={seats[0]: {"PLAYER": 10_000}})
    if after is not None:
        declined, taken = after
        b.emit("pit", "CuratorChanged", round_id=r.round_id, declined=declined, seat=taken)
    b.round(*BANKER_WINS, wagers={seats[0]: {"BANKER": 10_000}})
    b.end_shoe()
    b.close()
    return b.replay().findings, r.round_id


def codes(findings: list[Finding]) -> list[tuple[str, Severity, int | None]]:
    return [(f.code, f.severity, f.seat) for f in findings]


@pytest.mark.rule("PB-3.11a1-CURATOR-PASS")
def test_a_curator_who_keeps_the_shoe_after_the_banker_lost() -> None:
    """PB-3.11a1-CURATOR-PASS: N.J.A.C. 19:47-3.11(a)1, "The curator shall pass the shoe
    whenever the banker's hand loses": no change of curator after such a round is a finding
    naming the curator's seat and the round."""
    findings, round_id = day([3, 6], ([], 3), PLAYER_WINS)
    assert codes(findings) == [("PB-3.11a1-CURATOR-PASS", Severity.MEDIUM, 3)]
    assert findings[0].round_id == round_id
    assert "lost round" in findings[0].message and "seat 3 kept the shoe" in findings[0].message
    assert "N.J.A.C. 19:47-3.11(a)1" in findings[0].message


@pytest.mark.rule("PB-3.11a1-CURATOR-PASS")
@pytest.mark.parametrize(
    ("first", "hands", "after"),
    [
        (([], 3), PLAYER_WINS, ([], 6)),  # passed to the right, 3.11(b)
        (([], 3), BANKER_WINS, None),  # the curator may keep the shoe, 3.11(a)
        (([], 3), TIE, None),  # a tie is not a loss
        (([], 3), BANKER_WINS, ([6], None)),  # a voluntary pass; seat 6 declines: the dealer
        (([3, 6], None), PLAYER_WINS, None),  # the dealer is curator (3.6(d)2): nothing to pass
    ],
)
def test_the_legal_ways_of_keeping_and_passing_the_shoe(
    first: tuple[list[int], int | None],
    hands: Hands,
    after: tuple[list[int], int | None] | None,
) -> None:
    """PB-3.11a1-CURATOR-PASS: N.J.A.C. 19:47-3.11(a), (b) and 3.6(d)2: every legal way of
    keeping and passing the shoe finds nothing."""
    findings, _ = day([3, 6], first, hands, after)
    assert findings == []


@pytest.mark.rule("PB-3.11a1-CURATOR-PASS", "PB-3.6b-CURATOR")
def test_a_table_that_reports_no_curator_is_not_checked() -> None:
    """PB-3.11a1-CURATOR-PASS: N.J.A.C. 19:47-3.11(a)1 is read from CuratorChanged events; a
    table whose devices never report one (older devices) raises neither PB-3.6b-CURATOR nor
    PB-3.11a1-CURATOR-PASS, whatever the hands."""
    b = TableDayBuilder("T01", rules_id="pb-5-classic")
    b.open()
    b.shoe()
    b.round(*PLAYER_WINS, wagers={3: {"PLAYER": 10_000}})
    b.round(*PLAYER_WINS, wagers={3: {"PLAYER": 10_000}})
    b.end_shoe()
    b.close()
    assert b.replay().findings == []


@pytest.mark.rule("PB-3.6b-CURATOR")
@pytest.mark.parametrize(
    ("first", "expected_seat"),
    [
        (([], 5), 5),  # seat 2 was skipped: 3.6(b) starts at the lowest seat, counterclockwise
        (([2], None), None),  # the dealer took the shoe before seat 5 was offered it
        (([5], 2), 2),  # offered out of order
    ],
)
def test_the_shoe_offered_out_of_order_at_the_commencement_of_play(
    first: tuple[list[int], int | None], expected_seat: int | None
) -> None:
    """PB-3.6b-CURATOR: N.J.A.C. 19:47-3.6(b), "the dealer calling the game shall offer the
    shoe to the participant in seat number one ... [then] to each of the other participants in
    turn counterclockwise", and 3.6(d)2: the dealer only when nobody accepts."""
    findings, _ = day([2, 5], first, BANKER_WINS)
    assert codes(findings) == [("PB-3.6b-CURATOR", Severity.MEDIUM, expected_seat)]
    assert "offered from seat 1 counterclockwise: 2, 5" in findings[0].message
    assert "N.J.A.C. 19:47-3.6(b), 3.11(b)" in findings[0].message


@pytest.mark.rule("PB-3.6b-CURATOR")
def test_the_shoe_passed_to_the_wrong_participant_after_the_banker_lost() -> None:
    """PB-3.6b-CURATOR: N.J.A.C. 19:47-3.11(b): after a relinquishment the shoe goes "to the
    participant immediately to the right of the previous curator" (seat 3 -> 6, then 1): seat
    1 taking it while seat 6 was never offered it is a finding; the pass itself satisfies
    3.11(a)1."""
    findings, _ = day([1, 3, 6], ([1], 3), PLAYER_WINS, after=([], 1))
    assert codes(findings) == [("PB-3.6b-CURATOR", Severity.MEDIUM, 1)]
    assert "from the right of the previous curator in seat 3 counterclockwise: 6, 1" in (
        findings[0].message
    )


@pytest.mark.rule("PB-3.6b-CURATOR")
@pytest.mark.parametrize(
    ("seats", "first", "after"),
    [
        ([2, 5], ([2], 5), None),  # seat 2 declined, seat 5 accepted
        ([2, 5], ([2, 5], None), None),  # nobody accepted: the dealer, 3.6(d)2
        ([1, 3, 6], ([1], 3), ([6], 1)),  # 3 -> 6 declined -> 1 accepted, wrapping around
        ([1, 3, 6], ([1], 3), ([6, 1], None)),  # 3 is not offered its own shoe back
    ],
)
def test_the_shoe_offered_in_order_finds_nothing(
    seats: list[int],
    first: tuple[list[int], int | None],
    after: tuple[list[int], int | None] | None,
) -> None:
    """PB-3.6b-CURATOR: N.J.A.C. 19:47-3.6(b), (d)2, 3.11(b): offers in the order the
    regulation gives find nothing."""
    findings, _ = day(seats, first, PLAYER_WINS if after else BANKER_WINS, after)
    assert findings == []
