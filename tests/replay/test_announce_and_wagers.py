"""The announcement (3.10(a)) and "No More Bets" (3.2(d), 4.7(e), 7.2(d))."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import only, table

PLAYER_9_BANKER_4: dict[str, Any] = {"player": "2H 3C 4D", "banker": "5D KS 9C"}  # six cards
WAGERS: dict[int, dict[str, int]] = {3: {"BANKER": 10_000}, 4: {"PLAYER": 10_000}}


@pytest.mark.parametrize(
    ("announce", "wrong"),
    [
        ({"winner": "BANKER"}, "winner BANKER (cards show PLAYER)"),
        ({"player_points": 8}, "Player count 8 (cards show 9)"),
        ({"banker_points": 5}, "Banker count 5 (cards show 4)"),
        ({"total_cards": 5}, "total cards 5 (cards show 6)"),
        (
            {"player_points": 4, "banker_points": 9, "winner": "BANKER"},
            "Player count 4 (cards show 9); Banker count 9 (cards show 4); winner BANKER "
            "(cards show PLAYER)",
        ),
        ({"winner": "TIE"}, "winner TIE (cards show PLAYER)"),
    ],
)
@pytest.mark.rule("PB-3.10a-ANNOUNCE")
def test_announcement_disagrees_with_the_cards(announce: dict[str, Any], wrong: str) -> None:
    """PB-3.10a-ANNOUNCE, N.J.A.C. 19:47-3.10(a): the dealer announces each hand's final Point
    Count, the winner, and (total-card wagers offered) the number of cards; every wrong item is
    named in one finding whose evidence is the announcement and the cards."""
    b = table()
    r = b.round(**PLAYER_9_BANKER_4, wagers=WAGERS, announce=announce)
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.round_id, f.seat) == (
        "PB-3.10a-ANNOUNCE",
        Severity.HIGH,
        r.round_id,
        None,
    )
    assert f.event_ids == (r.announced, *r.cards)
    assert f.message == f"The dealer announced {wrong} (N.J.A.C. 19:47-3.10(a))."
    assert result.rounds[0].winner == "PLAYER"  # recomputed, never overwritten
    assert result.rounds[0].announced is not None


@pytest.mark.rule("PB-3.10a-ANNOUNCE")
def test_no_announcement() -> None:
    """PB-3.10a-ANNOUNCE, N.J.A.C. 19:47-3.10(a): a round without an announced result; the
    evidence is the round's start."""
    b = table()
    r = b.round(**PLAYER_9_BANKER_4, wagers=WAGERS, announce=False)
    f = only(b.replay())
    assert (f.code, f.round_id, f.event_ids) == ("PB-3.10a-ANNOUNCE", r.round_id, (r.started,))
    assert f.message == f"No result was announced for round {r.round_id} (N.J.A.C. 19:47-3.10(a))."


@pytest.mark.rule("PB-3.10a-ANNOUNCE", "PB-3.3h-DRAGON-PUSH")
def test_dragon_7_not_announced() -> None:
    """PB-3.10a-ANNOUNCE, N.J.A.C. 19:47-3.10(a) (last sentence) with 3.3(h): in the no-vigorish
    variation the dealer announces "dragon 7" when a three-card Banker 7 wins."""
    b = table("pb-dragon")
    r = b.round(player="TH 6C", banker="3D 2S 2C", wagers=WAGERS, announce={"dragon_7": False})
    f = only(b.replay())
    assert (f.code, f.round_id) == ("PB-3.10a-ANNOUNCE", r.round_id)
    assert r.announced in f.event_ids


@pytest.mark.rule("PB-3.10a-ANNOUNCE", "PB-3.3h-DRAGON-PUSH")
def test_dragon_7_announced_is_clean() -> None:
    """PB-3.10a-ANNOUNCE: N.J.A.C. 19:47-3.10(a) and 3.3(h): a dragon 7 announced as such, the
    Banker wager pushed and the dragon 7 wager paid 40 to 1 (3.3(i)), finds nothing."""
    b = table("pb-dragon")
    r = b.round(
        player="TH 6C", banker="3D 2S 2C", wagers={3: {"BANKER": 10_000, "DRAGON_7": 2_500}}
    )
    result = b.replay()
    assert result.findings == []
    assert b.by_id(r.announced or "").fields["dragon_7"] is True
    assert result.rounds[0].dragon_7 is True
    push, dragon = result.settlements
    assert (push.expected_result, push.rule_code) == ("PUSH", "PB-3.3h-DRAGON-PUSH")
    assert (dragon.expected_paid_cents, dragon.rule_code) == (100_000, "PB-3.3i-DRAGON-7")


# ---------------------------------------------------------------------- No More Bets
@pytest.mark.rule("PB-3.2d-NO-MORE-BETS")
def test_wager_placed_after_no_more_bets() -> None:
    """PB-3.2d-NO-MORE-BETS, N.J.A.C. 19:47-3.2(d): no wager is made after "No More Bets". The
    dealer honoured the late tie bet, so the settlement itself is right: one finding, whose
    evidence is BettingClosed and the late wager; the wager row is marked late."""
    b = table()
    r = b.round(player="TH 6C", banker="3D 4S", wagers=WAGERS, late_wagers=[(3, "TIE", 10_000)])
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.round_id, f.seat, f.patron_id) == (
        "PB-3.2d-NO-MORE-BETS",
        Severity.HIGH,
        r.round_id,
        3,
        "PAT-03",
    )
    assert (f.expected_cents, f.actual_cents) == (0, 10_000)  # the late amount is not honoured
    assert f.event_ids == (r.betting_closed, r.late[0])
    assert f.message == (
        'Seat 3 wager placed $100.00 on TIE after "No More Bets" (N.J.A.C. 19:47-3.2(d)).'
    )
    late = {(w.seat, w.wager): w for w in result.wagers}
    assert late[(3, "TIE")].late is True
    assert late[(3, "TIE")].event_ids == (r.late[0],)
    assert late[(3, "BANKER")].late is False


@pytest.mark.rule("PB-3.2d-NO-MORE-BETS")
def test_wager_increased_after_no_more_bets() -> None:
    """PB-3.2d-NO-MORE-BETS, N.J.A.C. 19:47-3.2(d): nor increased: the Banker wager's row sums
    both placements and is marked late."""
    b = table()
    r = b.round(player="TH 6C", banker="3D 4S", wagers=WAGERS, late_wagers=[(3, "BANKER", 5_000)])
    result = b.replay()
    f = only(result)
    assert (f.code, f.seat, f.actual_cents) == ("PB-3.2d-NO-MORE-BETS", 3, 5_000)
    row = next(w for w in result.wagers if (w.seat, w.wager) == (3, "BANKER"))
    assert (row.amount_cents, row.late) == (15_000, True)
    assert row.event_ids == (r.wagers[(3, "BANKER")], r.late[0])


@pytest.mark.rule("PB-3.2d-NO-MORE-BETS")
def test_wager_withdrawn_after_no_more_bets() -> None:
    """PB-3.2d-NO-MORE-BETS, N.J.A.C. 19:47-3.2(d): nor withdrawn."""
    b = table()
    r = b.round(
        player="TH 6C",
        banker="3D 4S",
        wagers={3: {"BANKER": 10_000, "TIE": 12_500}},
        late_withdrawals=[(3, "TIE", 2_500)],
    )
    f = only(b.replay())
    assert (f.code, f.seat, f.actual_cents, f.event_ids) == (
        "PB-3.2d-NO-MORE-BETS",
        3,
        2_500,
        (r.betting_closed, r.late[0]),
    )
    assert f.message == (
        'Seat 3 wager withdrawn $25.00 on TIE after "No More Bets" (N.J.A.C. 19:47-3.2(d)).'
    )


@pytest.mark.rule("MB-7.2d-NO-MORE-BETS")
def test_minibaccarat_late_wager() -> None:
    """MB-7.2d-NO-MORE-BETS, N.J.A.C. 19:47-7.2(d)."""
    b = table("mb-5-rounded", "T02")
    r = b.round(player="TH 6C", banker="3D 4S", wagers=WAGERS, late_wagers=[(4, "TIE", 2_500)])
    f = only(b.replay())
    assert (f.code, f.seat, f.round_id) == ("MB-7.2d-NO-MORE-BETS", 4, r.round_id)
    assert f.message.endswith('after "No More Bets" (N.J.A.C. 19:47-7.2(d)).')


@pytest.mark.rule("CF-4.7e-NO-MORE-BETS")
def test_chemin_de_fer_late_wager() -> None:
    """CF-4.7e-NO-MORE-BETS, N.J.A.C. 19:47-4.7(e): no wager after "No More Bets" (only the
    Banker's uncovered part is withdrawn, which the builder records before it)."""
    b = table("cf-5", "T04")
    r = b.round(
        player="TH 7C",
        banker="3D 3S",
        bank={
            "seat": 1,
            "amount": 100_000,
            "bids": {1: 100_000},
            "banco": [(5, "PARTIAL", 60_000)],
        },
        late_wagers=[(7, "PLAYER", 10_000)],
    )
    result = b.replay()
    late = only(result, "CF-4.7e-NO-MORE-BETS")
    assert (late.seat, late.actual_cents, late.event_ids) == (
        7,
        10_000,
        (r.betting_closed, r.late[0]),
    )
    assert late.message.endswith('after "No More Bets" (N.J.A.C. 19:47-4.7(e)).')
    assert [f.code for f in result.findings] == ["CF-4.7e-NO-MORE-BETS"]
