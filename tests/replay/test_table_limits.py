"""Table limits, N.J.A.C. 19:47-8.2 ("Minimum and maximum wagers"): every wager is at least the
minimum and at most the maximum the casino filed for the table (pb-5-classic: $100 to
$50,000; cf-5: $100 to $100,000)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import TableDayBuilder, codes, only, table

BANKER_WINS: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}


@pytest.mark.parametrize(
    ("stake", "found"),
    [
        (9_999, ["NJ-8.2-TABLE-LIMITS"]),
        (10_000, []),
        (5_000_000, []),
        (5_000_001, ["NJ-8.2-TABLE-LIMITS"]),
    ],
)
@pytest.mark.rule("NJ-8.2-TABLE-LIMITS")
def test_limits_are_inclusive(stake: int, found: list[str]) -> None:
    """NJ-8.2-TABLE-LIMITS, N.J.A.C. 19:47-8.2: the posted minimum and maximum themselves are
    accepted; one cent beyond either is a finding."""
    b = table()
    b.round(**BANKER_WINS, wagers={3: {"PLAYER": stake}})
    assert codes(b.replay()) == found


@pytest.mark.rule("NJ-8.2-TABLE-LIMITS")
def test_wager_under_the_minimum_is_named_and_still_settled() -> None:
    """NJ-8.2-TABLE-LIMITS, N.J.A.C. 19:47-8.2: a $25 tie bet at a $100 table is one MEDIUM
    finding naming the wager and the limit; it is settled and checked like any other wager, so
    an underpaid one is a second, CRITICAL finding."""
    b = table()
    r = b.round(player="4H 3C", banker="2D 5S", wagers={3: {"TIE": 2_500}})
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.expected_cents, f.actual_cents) == (
        "NJ-8.2-TABLE-LIMITS",
        Severity.MEDIUM,
        3,
        10_000,
        2_500,
    )
    assert f.event_ids == (r.wagers[(3, "TIE")],)
    assert f.message == (
        "Seat 3 wagered $25.00 on TIE, under the minimum of $100.00 that rules 'pb-5-classic' "
        "set for the table (N.J.A.C. 19:47-8.2). Refuse such a wager or correct the table's "
        "limits."
    )
    underpaid = table()
    underpaid.round(
        player="4H 3C", banker="2D 5S", wagers={3: {"TIE": 2_500}}, paid={(3, "TIE"): 10_000}
    )
    assert codes(underpaid.replay()) == ["NJ-8.2-TABLE-LIMITS", "PB-3.3b-TIE"]


@pytest.mark.rule("NJ-8.2-TABLE-LIMITS", "PB-3.2d-NO-MORE-BETS")
def test_wagers_placed_in_two_steps_count_as_one() -> None:
    """NJ-8.2-TABLE-LIMITS, N.J.A.C. 19:47-8.2: the limit is on the wager, not on each stack of
    chips: $60 on the Player, then $40 more (late, PB-3.2d-NO-MORE-BETS), is a $100 wager."""
    b = table()
    b.round(**BANKER_WINS, wagers={3: {"PLAYER": 6_000}}, late_wagers=[(3, "PLAYER", 4_000)])
    assert codes(b.replay()) == ["PB-3.2d-NO-MORE-BETS"]


@pytest.mark.rule("NJ-8.2-TABLE-LIMITS", "CF-4.7e-UNCOVERED")
def test_chemin_de_fer_partial_banco_under_the_minimum() -> None:
    """NJ-8.2-TABLE-LIMITS, N.J.A.C. 19:47-8.2 and 4.7(d)-(e) (CF-4.7e-UNCOVERED): a partial
    wager against the bank is a wager like any other; $25 covering what is left of the bank at a
    $100 table is refused, the Banker withdraws the uncovered $25 instead."""
    b = table("cf-5", "T04")
    bank = {"seat": 1, "amount": 22_500, "banco": [(4, "PARTIAL", 20_000), (5, "PARTIAL", 2_500)]}
    b.round(**BANKER_WINS, bank=bank)
    f = only(b.replay())
    assert (f.code, f.seat, f.actual_cents) == ("NJ-8.2-TABLE-LIMITS", 5, 2_500)
    assert "under the minimum of $100.00 that rules 'cf-5'" in f.message


@pytest.mark.parametrize(
    ("posted", "stake", "found"),
    [
        ({"min_wager_cents": 10_000, "max_wager_cents": 5_000_000}, 20_000, []),
        ({"min_wager_cents": 25_000}, 20_000, ["NJ-8.2-POSTED-LIMITS", "NJ-8.2-TABLE-LIMITS"]),
        ({"max_wager_cents": 10_000}, 20_000, ["NJ-8.2-POSTED-LIMITS", "NJ-8.2-TABLE-LIMITS"]),
        ({"min_wager_cents": 25_000}, 30_000, ["NJ-8.2-POSTED-LIMITS"]),
    ],
)
@pytest.mark.rule("NJ-8.2-POSTED-LIMITS", "NJ-8.2-TABLE-LIMITS")
def test_the_limits_posted_at_the_table(
    posted: dict[str, Any], stake: int, found: list[str]
) -> None:
    """NJ-8.2-POSTED-LIMITS, NJ-8.2-TABLE-LIMITS, N.J.A.C. 19:47-8.2: the limits a table posts
    when it opens are those filed for it ($100 to $50,000 for pb-5-classic), else a finding
    naming both; its wagers are judged by the limits posted, which the patron saw. Posted as
    filed, a $200 wager is clean; under a posted $250 minimum or over a posted $100 maximum it
    is a finding too."""
    b = TableDayBuilder("T01", "pb-5-classic")
    opened = b.open(**posted)
    b.shoe()
    b.round(**BANKER_WINS, wagers={3: {"PLAYER": stake}})
    result = b.replay()
    assert codes(result) == found
    if found:
        f = only(result, "NJ-8.2-POSTED-LIMITS")
        assert (f.severity, f.round_id, f.event_ids) == (Severity.MEDIUM, None, (opened,))
        assert "but rules 'pb-5-classic' file $100.00 to $50,000.00" in f.message
    if "NJ-8.2-TABLE-LIMITS" in found:
        assert "posted at the table" in only(result, "NJ-8.2-TABLE-LIMITS").message
