"""Chemin de Fer's priority among the calls for the whole bank, N.J.A.C. 19:47-4.7(b)-(d):
judged against every call recorded (``BancoCalled``), refused ones included."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import TableDayBuilder, only, table

BANKER_WINS: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}
STAND_OFF: dict[str, Any] = {"player": "4H 3C", "banker": "2D 5S"}
PLAYER_FIVE_STAYS: dict[str, Any] = {"player": "2H 3C", "banker": "3D 4S"}  # 4.9(a)2 choice
SUIVI, SEUL = "BANCO_SUIVI", "BANCO_SEUL"


def cf() -> TableDayBuilder:
    return table("cf-5", "T04")


def seat_5_loses_a_banco(b: TableDayBuilder) -> None:
    """Seat 5 covers seat 1's whole bank and loses: seat 5 has the first option next, 4.7(b)."""
    b.round(**BANKER_WINS, bank={"seat": 1, "amount": 100_000, "banco": [(5, SEUL, None)]})


@pytest.mark.rule("CF-4.7b-SUIVI-FIRST")
def test_the_qualified_suivi_passed_over_for_a_banco() -> None:
    """CF-4.7b-SUIVI-FIRST, N.J.A.C. 19:47-4.7(b): seat 5 equaled and lost the Banker's
    preceding wager and called "Banco Suivi"; the dealer gave the bank to seat 3's "Banco",
    nearer the Banker but second in priority. The finding names seat 5 and both calls."""
    b = cf()
    seat_5_loses_a_banco(b)
    r = b.round(
        **BANKER_WINS,
        bank={
            "seat": 1,
            "amount": 100_000,
            "calls": [(5, SUIVI), (3, SEUL)],
            "banco": [(3, SEUL, None)],
        },
    )
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.seat) == (
        "CF-4.7b-SUIVI-FIRST",
        Severity.HIGH,
        r.round_id,
        5,
    )
    assert set(r.calls) <= set(f.event_ids) and r.banker_wager in f.event_ids
    assert f.message == (
        'Seat 5 called "Banco Suivi" and had equaled and lost the Banker\'s preceding wager, so '
        "N.J.A.C. 19:47-4.7(b) owed it the wager for the whole bank, but seat 3 received it "
        "instead."
    )


@pytest.mark.rule("CF-4.7c-BANCO-PRIORITY")
@pytest.mark.parametrize(
    ("banker", "callers", "owed"),
    [
        (5, (2, 7), 7),  # counterclockwise from seat 5: 6, 7, ... 1, 2
        (7, (2, 6), 2),  # from seat 7 the order wraps past the highest seat to 1, 2
    ],
)
def test_banco_seul_given_to_a_caller_farther_counterclockwise(
    banker: int, callers: tuple[int, int], owed: int
) -> None:
    """CF-4.7c-BANCO-PRIORITY, N.J.A.C. 19:47-4.7(c): of several "Banco Seul" calls, the
    caller seated nearest the Banker counterclockwise takes the bank; the dealer gave it to the
    other caller."""
    (taker,) = set(callers) - {owed}
    b = cf()
    b.seat(9)
    r = b.round(
        **BANKER_WINS,
        bank={
            "seat": banker,
            "amount": 100_000,
            "bids": {banker: 100_000},
            "calls": [(s, SEUL) for s in callers],
            "banco": [(taker, SEUL, None)],
        },
    )
    f = only(b.replay())
    assert (f.code, f.round_id, f.seat) == ("CF-4.7c-BANCO-PRIORITY", r.round_id, owed)
    assert f"N.J.A.C. 19:47-4.7(c) owed it the wager for the whole bank, but seat {taker}" in (
        f.message
    )


@pytest.mark.rule("CF-4.7d-PARTIAL")
def test_partial_wagers_taken_over_a_banco_call() -> None:
    """CF-4.7d-PARTIAL, N.J.A.C. 19:47-4.7(d): partial wagers only "if the options granted by
    subsections (b) and (c) ... are not exercised"; seat 4 called "Banco" and the dealer took
    seats 2 and 3's partial wagers instead."""
    b = cf()
    r = b.round(
        **BANKER_WINS,
        bank={
            "seat": 1,
            "amount": 100_000,
            "calls": [(4, SEUL)],
            "banco": [(2, "PARTIAL", 30_000), (3, "PARTIAL", 40_000)],
        },
    )
    f = only(b.replay())
    assert (f.code, f.round_id, f.seat) == ("CF-4.7d-PARTIAL", r.round_id, 4)
    assert (
        "partial wagers by seat(s) 2, 3 were taken instead, which N.J.A.C. 19:47-4.7(d) allows "
        "only when neither option was exercised"
    ) in f.message


@pytest.mark.rule("CF-4.7c-BANCO-PRIORITY")
def test_a_lone_banco_call_refused_and_the_bank_withdrawn() -> None:
    """CF-4.7c-BANCO-PRIORITY, N.J.A.C. 19:47-4.7(c), (e): seat 4's "Banco" was the only call
    and nobody wagered against the Banker, who withdrew the whole bank: the call was refused."""
    b = cf()
    b.round(**BANKER_WINS, bank={"seat": 1, "amount": 100_000, "calls": [(4, SEUL)]})
    f = only(b.replay())
    assert (f.code, f.seat) == ("CF-4.7c-BANCO-PRIORITY", 4)
    assert "no wager against the Banker was taken" in f.message


@pytest.mark.rule("CF-4.7b-SUIVI-FIRST", "CF-4.7c-BANCO-PRIORITY", "CF-4.7d-PARTIAL")
@pytest.mark.parametrize(
    ("calls", "banco"),
    [
        # the qualified loser's suivi over a nearer "Banco" (4.7(b))
        ([(5, SUIVI), (3, SEUL)], [(5, SUIVI, None)]),
        # a "suivi" by seat 7, who lost nothing, exercises no option: seat 3's "Banco" nearest
        ([(7, SUIVI), (3, SEUL), (6, SEUL)], [(3, SEUL, None)]),
        # seat 5 may call "Banco" instead of "Suivi": it is then one of the (c) callers
        ([(5, SEUL), (8, SEUL)], [(5, SEUL, None)]),
        # nobody called: partial wagers counterclockwise (4.7(d))
        ([], [(2, "PARTIAL", 30_000), (3, "PARTIAL", 40_000)]),
        # only an unqualified "suivi": no option was exercised, partial wagers stand
        ([(7, SUIVI)], [(2, "PARTIAL", 60_000)]),
    ],
)
def test_calls_honoured_in_priority_are_clean(
    calls: list[tuple[int, str]], banco: list[tuple[int, str, int | None]]
) -> None:
    """CF-4.7b-SUIVI-FIRST, CF-4.7c-BANCO-PRIORITY, CF-4.7d-PARTIAL, N.J.A.C. 19:47-4.7(b)-(d):
    the legal cases, after seat 5 equaled and lost seat 1's bank."""
    b = cf()
    seat_5_loses_a_banco(b)
    b.round(**BANKER_WINS, bank={"seat": 1, "amount": 100_000, "calls": calls, "banco": banco})
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.7b-SUIVI-FIRST")
def test_a_stand_off_keeps_the_first_option() -> None:
    """CF-4.7b-SUIVI-FIRST, N.J.A.C. 19:47-4.7(b): 'A "stand off" shall not be counted': seat
    5 lost, seat 7 then tied, so seat 5's "Suivi" still comes first and seat 7's does not."""
    good = cf()
    seat_5_loses_a_banco(good)
    good.round(**STAND_OFF, bank={"seat": 1, "amount": 100_000, "banco": [(7, SEUL, None)]})
    suivi = {"seat": 1, "amount": 100_000, "calls": [(7, SUIVI), (5, SUIVI)]}
    good.round(**BANKER_WINS, bank={**suivi, "banco": [(5, SUIVI, None)]})
    assert good.replay().findings == []
    bad = cf()
    seat_5_loses_a_banco(bad)
    bad.round(**STAND_OFF, bank={"seat": 1, "amount": 100_000, "banco": [(7, SEUL, None)]})
    r = bad.round(**BANKER_WINS, bank={**suivi, "banco": [(2, "PARTIAL", 50_000)]})
    f = only(bad.replay())
    assert (f.code, f.round_id, f.seat) == ("CF-4.7d-PARTIAL", r.round_id, 5)


@pytest.mark.rule("CF-4.7b-SUIVI-FIRST", "NJ-DATA-GAP")
def test_a_suivi_call_after_a_round_that_lost_events_is_not_judged() -> None:
    """CF-4.7b-SUIVI-FIRST with NJ-DATA-GAP, N.J.A.C. 19:47-4.7(b): the round seat 5 lost
    lost its announcement, so whether seat 5's "Suivi" was qualified is unknown and its refusal
    is not judged (a gap is never guessed); a round of "Banco" calls only still is."""
    b = cf()
    lost = b.round(
        **BANKER_WINS,
        bank={"seat": 1, "amount": 100_000, "bids": {1: 100_000}, "banco": [(5, SEUL, None)]},
    )
    suivi = {"seat": 1, "amount": 100_000, "calls": [(5, SUIVI), (3, SEUL)]}
    b.round(**BANKER_WINS, bank={**suivi, "banco": [(3, SEUL, None)]})
    gone = b.by_id(str(lost.announced))
    result = b.replay([e for e in b.events if e is not gone])
    assert [(f.code, f.round_id) for f in result.findings] == [("NJ-DATA-GAP", lost.round_id)]


@pytest.mark.rule("CF-4.7c-BANCO-PRIORITY", "CF-4.8c-DOMINANT")
def test_the_wrong_caller_who_wagered_controls_the_players_hand() -> None:
    """CF-4.7c-BANCO-PRIORITY, CF-4.8c-DOMINANT, N.J.A.C. 19:47-4.7(c), 4.8(c): seat 2 took
    the bank seat 7 was owed and then chose for the Player's Hand. The Dominant Player is whoever
    made the wager against the Banker, so the round holds one finding, the priority's."""
    b = cf()
    r = b.round(
        **PLAYER_FIVE_STAYS,
        bank={
            "seat": 5,
            "amount": 100_000,
            "bids": {5: 100_000},
            "calls": [(7, SEUL), (2, SEUL)],
            "banco": [(2, SEUL, None)],
        },
        hand_options=False,
    )
    b.emit("pit", "HandOption", round_id=r.round_id, hand="PLAYER", drew=False, seat=2)
    f = only(b.replay())
    assert (f.code, f.seat) == ("CF-4.7c-BANCO-PRIORITY", 7)
