"""Every wager's result and payout (3.2(a), 3.3, 7.3, 4.7(g)), recomputed from the cards."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import codes, only, table

BANKER_7_6: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}  # Banker wins 7-6, four cards
PLAYER_9_4: dict[str, Any] = {
    "player": "2H 3C 4D",
    "banker": "5D KS 9C",
}  # Player wins by 5, six cards
PLAYER_7_6_FIVE: dict[str, Any] = {
    "player": "TH 5C 2D",
    "banker": "3D 3S",
}  # Player wins 7-6, five cards
TIE_7: dict[str, Any] = {"player": "4H 3C", "banker": "2D 5S"}
BANKER_NATURAL: dict[str, Any] = {"player": "TH 5C", "banker": "4D 4S"}  # Banker natural 8 beats 5
BANKER_SIX: dict[str, Any] = {"player": "TH 4C KD", "banker": "3D 3S"}  # Banker wins 6-4
DRAGON: dict[str, Any] = {"player": "TH 6C", "banker": "3D 2S 2C"}  # three-card Banker 7 wins


@pytest.mark.parametrize(
    ("rules_id", "hands", "wager", "stake", "paid", "expected", "code", "cite", "how"),
    [
        (
            "pb-5-classic",
            BANKER_7_6,
            "BANKER",
            10_000,
            9_000,
            10_000,
            "PB-3.3c-VIG",
            "3.3(c)",
            "underpaid by $10.00",
        ),
        (
            "pb-5-classic",
            PLAYER_9_4,
            "PLAYER",
            10_000,
            12_000,
            10_000,
            "PB-3.3a-PLAYER",
            "3.2(a)2, 3.3(a)",
            "overpaid by $20.00",
        ),
        (
            "pb-5-classic",
            TIE_7,
            "TIE",
            10_000,
            90_000,
            80_000,
            "PB-3.3b-TIE",
            "3.2(a)3, 3.3(b)",
            "overpaid by $100.00",
        ),
        (
            "pb-5-classic",
            BANKER_7_6,
            "CARDS_4",
            10_000,
            10_000,
            15_000,
            "PB-3.3f-TOTAL-CARDS",
            "3.2(a)4, 3.3(f)",
            "underpaid by $50.00",
        ),
        (
            "pb-5-classic",
            BANKER_7_6,
            "CARDS_4",
            10_001,
            15_002,
            15_001,
            "PB-3.3f-TOTAL-CARDS",
            "3.2(a)4, 3.3(f)",
            "overpaid by $0.01",
        ),
        (
            "pb-5-classic",
            PLAYER_7_6_FIVE,
            "CARDS_5",
            10_000,
            15_000,
            20_000,
            "PB-3.3f-TOTAL-CARDS",
            "3.2(a)4, 3.3(f)",
            "underpaid by $50.00",
        ),
        (
            "pb-5-classic",
            PLAYER_9_4,
            "CARDS_6",
            10_000,
            15_000,
            20_000,
            "PB-3.3f-TOTAL-CARDS",
            "3.2(a)4, 3.3(f)",
            "underpaid by $50.00",
        ),
        (
            "pb-5-classic",
            PLAYER_9_4,
            "PLAYER_BONUS",
            10_000,
            10_000,
            20_000,
            "PB-3.3g-BONUS",
            "3.2(a)5, 3.3(g)",
            "underpaid by $100.00",
        ),
        (
            "pb-5-classic",
            BANKER_NATURAL,
            "BANKER_BONUS",
            10_000,
            30_000,
            10_000,
            "PB-3.3g-BONUS",
            "3.2(a)5, 3.3(g)",
            "overpaid by $200.00",
        ),
        (
            "pb-4-banker6",
            BANKER_SIX,
            "BANKER",
            10_000,
            10_000,
            5_000,
            "PB-3.3e1-BANKER-SIX",
            "3.3(e)1",
            "overpaid by $50.00",
        ),
        (
            "pb-4-banker6",
            TIE_7,
            "TIE",
            10_000,
            80_000,
            90_000,
            "PB-3.3b-TIE",
            "3.2(a)3, 3.3(b)",
            "underpaid by $100.00",
        ),
        (
            "pb-4-banker6",
            PLAYER_9_4,
            "PLAYER_BONUS",
            10_000,
            20_000,
            30_000,
            "PB-3.3g-BONUS",
            "3.2(a)5, 3.3(g)",
            "underpaid by $100.00",
        ),
        (
            "pb-dragon",
            DRAGON,
            "DRAGON_7",
            2_500,
            75_000,
            100_000,
            "PB-3.3i-DRAGON-7",
            "3.2(a)6ii, 3.3(i)",
            "underpaid by $250.00",
        ),
        (
            "mb-5-rounded",
            BANKER_7_6,
            "CARDS_4",
            10_000,
            20_000,
            15_000,
            "PB-3.3f-TOTAL-CARDS",
            "7.2(a)4, 7.3(g) (mirrors 3.2(a)4, 3.3(f))",
            "overpaid by $50.00",
        ),
        (
            "cf-5",
            PLAYER_9_4,
            "PLAYER",
            100_000,
            95_000,
            100_000,
            "CF-4.7g-PLAYER",
            "4.7(g), 4.10(b)",
            "underpaid by $50.00",
        ),
    ],
)
@pytest.mark.rule(
    "PB-3.3a-PLAYER",
    "PB-3.3b-TIE",
    "PB-3.3c-VIG",
    "PB-3.3e1-BANKER-SIX",
    "PB-3.3f-TOTAL-CARDS",
    "PB-3.3g-BONUS",
    "PB-3.3i-DRAGON-7",
    "CF-4.7g-PLAYER",
)
def test_payout_over_or_under(
    rules_id: str,
    hands: dict[str, Any],
    wager: str,
    stake: int,
    paid: int,
    expected: int,
    code: str,
    cite: str,
    how: str,
) -> None:
    """PB-3.3a-PLAYER: A winning wager paid at other than its odds (N.J.A.C. 19:47-3.3(a) 1 to 1,
    3.3(b) 8 or 9 to 1, 3.3(c) Banker 1 to 1, 3.3(e)1 Banker six 1 to 2, 3.3(f) total cards 3 to 2 /
    2 to 1 (7.3(g) at Minibaccarat), 3.3(g) bonus Paytable A or B, 3.3(i) dragon 7 40 to 1, 4.7(g)
    Chemin de Fer 1 to 1) is one CRITICAL finding with the expected and recorded payouts and the
    wager and settlement events.
    Fractions of a cent are not paid (3 to 2 on $100.01 is $150.01, not $150.015)."""
    b = table(rules_id, "T07")
    if rules_id == "cf-5":
        banco = [(5, "BANCO_SEUL", None)]
        bank = {"seat": 1, "amount": stake, "bids": {1: stake}, "banco": banco}
        r = b.round(**hands, bank=bank, paid={(5, wager): paid})
        seat = 5
    else:
        # 3.2(b): pb-4-banker6 takes a bonus wager only beside a Player or Banker wager.
        base = {"PLAYER": stake} if wager == "PLAYER_BONUS" else {}
        r = b.round(**hands, wagers={3: {**base, wager: stake}}, paid={(3, wager): paid})
        seat = 3
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.table_id, f.round_id, f.seat) == (
        code,
        Severity.CRITICAL,
        "T07",
        r.round_id,
        seat,
    )
    assert (f.expected_cents, f.actual_cents) == (expected, paid)
    assert f.event_ids == (r.wagers[(seat, wager)], r.settled_id(seat, wager))
    assert f"(N.J.A.C. 19:47-{cite})" in f.message
    assert f.message.endswith(f": {how}.")
    assert f.patron_id == f"PAT-{seat:02d}"
    row = next(s for s in result.settlements if (s.seat, s.wager) == (seat, wager))
    assert (row.expected_paid_cents, row.recorded_paid_cents) == (expected, paid)


COLLECTED = "underpaid by $100.00 (the $100.00 stake was collected, not returned)"
RETURNED = "overpaid by $100.00 (the $100.00 stake the house wins was returned)"


@pytest.mark.parametrize(
    ("rules_id", "hands", "wager", "recorded", "expected", "code", "moved", "how"),
    [
        (
            "pb-5-classic",
            TIE_7,
            "BANKER",
            "LOSE",
            "void",
            "PB-3.2a1-BANKER",
            (0, -10_000),
            COLLECTED,
        ),
        (
            "pb-5-classic",
            TIE_7,
            "PLAYER",
            "LOSE",
            "void",
            "PB-3.3a-PLAYER",
            (0, -10_000),
            COLLECTED,
        ),
        (
            "pb-5-classic",
            BANKER_7_6,
            "PLAYER",
            "VOID",
            "lose",
            "PB-3.3a-PLAYER",
            (-10_000, 0),
            RETURNED,
        ),
        (
            "pb-5-classic",
            BANKER_7_6,
            "PLAYER",
            "PUSH",
            "lose",
            "PB-3.3a-PLAYER",
            (-10_000, 0),
            RETURNED,
        ),
        (
            "pb-dragon",
            DRAGON,
            "BANKER",
            "LOSE",
            "push",
            "PB-3.3h-DRAGON-PUSH",
            (0, -10_000),
            COLLECTED,
        ),
        (
            "pb-dragon",
            DRAGON,
            "BANKER",
            "VOID",
            "push",
            "PB-3.3h-DRAGON-PUSH",
            (0, 0),
            "settled wrongly",
        ),
        (
            "pb-5-classic",
            {"player": "8H KC", "banker": "4D 4S"},
            "PLAYER_BONUS",
            "LOSE",
            "void",
            "PB-3.3g-BONUS",
            (0, -10_000),
            COLLECTED,
        ),
    ],
)
@pytest.mark.rule("PB-3.2a1-BANKER", "PB-3.3a-PLAYER", "PB-3.3h-DRAGON-PUSH", "PB-3.3g-BONUS")
def test_wager_settled_with_the_wrong_result(
    rules_id: str,
    hands: dict[str, Any],
    wager: str,
    recorded: str,
    expected: str,
    code: str,
    moved: tuple[int, int],
    how: str,
) -> None:
    """PB-3.2a1-BANKER: N.J.A.C. 19:47-3.2(a)1iii and (a)2iii: Banker and Player wagers are void on
    a tie; 3.2(a)6i / 3.3(h): a dragon 7 Banker wager is a push; 3.2(a)5iii: a bonus wager is void
    on naturals of equal count; 3.3: a losing wager is collected. Nothing is paid either way, but
    the stake is money: taking a stake that is returned, or returning one the house wins, is
    a finding whose amounts are what moved to the patron, due and recorded (a losing stake
    returned is +$100.00 to the patron, not "$0.00 paid as $0.00")."""
    b = table(rules_id)
    r = b.round(**hands, wagers={3: {wager: 10_000}}, results={(3, wager): recorded})
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, (f.expected_cents, f.actual_cents)) == (
        code,
        Severity.CRITICAL,
        3,
        moved,
    )
    assert f.event_ids == (r.wagers[(3, wager)], r.settled_id(3, wager))
    assert f"should {expected} and be paid $0.00" in f.message
    assert f.message.endswith(f"it was recorded {recorded} paying $0.00: {how}.")


@pytest.mark.rule("PB-3.3a-PLAYER")
def test_wager_never_settled() -> None:
    """PB-3.3a-PLAYER, N.J.A.C. 19:47-3.3(a) and 3.10(b): a winning Player wager never paid."""
    b = table()
    r = b.round(**PLAYER_9_4, wagers={3: {"PLAYER": 10_000}}, unsettled=[(3, "PLAYER")])
    f = only(b.replay())
    assert (f.code, f.seat, f.expected_cents, f.actual_cents) == ("PB-3.3a-PLAYER", 3, 10_000, None)
    assert f.event_ids == (r.wagers[(3, "PLAYER")],)
    assert f.message == "Seat 3's PLAYER wager of $100.00 was never settled; it should win $100.00."


@pytest.mark.rule("PB-3.10b-SETTLEMENT")
def test_settlement_without_a_wager() -> None:
    """PB-3.10b-SETTLEMENT, N.J.A.C. 19:47-3.10(b): a payout to a seat that wagered nothing."""
    b = table()
    r = b.round(
        **PLAYER_9_4,
        wagers={3: {"PLAYER": 10_000}},
        extra_settlements=[(1, "PLAYER", "WIN", 10_000)],
    )
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.expected_cents, f.actual_cents) == (
        "PB-3.10b-SETTLEMENT",
        Severity.CRITICAL,
        1,
        0,
        10_000,
    )
    assert f.event_ids == (r.settled_id(1, "PLAYER"),)
    assert f.message == "Seat 1 was settled WIN on PLAYER paying $100.00 without a wager on record."


@pytest.mark.rule("PB-3.3a-PLAYER")
def test_winning_wager_paid_twice() -> None:
    """PB-3.3a-PLAYER, N.J.A.C. 19:47-3.3(a): a winning Player wager is paid 1 to 1 once; paid
    twice the patron received $200.00 for a $100.00 wager."""
    b = table()
    r = b.round(
        **PLAYER_9_4,
        wagers={3: {"PLAYER": 10_000}},
        extra_settlements=[(3, "PLAYER", "WIN", 10_000)],
    )
    f = only(b.replay())
    assert (f.severity, f.seat, f.expected_cents, f.actual_cents) == (
        Severity.CRITICAL,
        3,
        10_000,
        20_000,
    )
    assert set(r.settled[(3, "PLAYER")]) <= set(f.event_ids)


@pytest.mark.rule("PB-3.2b-WAGER-OFFERED")
def test_wager_the_table_does_not_offer() -> None:
    """PB-3.2b-WAGER-OFFERED, N.J.A.C. 19:47-3.2(b) and 3.2(a)6iii: pb-5-classic offers total-card
    and bonus wagers, so it may not take a dragon 7 wager."""
    b = table()
    r = b.round(**DRAGON, wagers={3: {"DRAGON_7": 2_500, "BANKER": 10_000}})
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.seat, f.actual_cents, f.event_ids) == (
        "PB-3.2b-WAGER-OFFERED",
        Severity.HIGH,
        3,
        2_500,
        (r.wagers[(3, "DRAGON_7")],),
    )
    assert f.message == (
        "Seat 3 wagered $25.00 on DRAGON_7, which rules 'pb-5-classic' do not offer "
        "(N.J.A.C. 19:47-3.2(b))."
    )


@pytest.mark.rule("PB-3.3e1-BANKER-SIX", "PB-3.3h-DRAGON-PUSH", "MB-7.3f-NO-VIG")
def test_no_vigorish_variations_settle_clean() -> None:
    """PB-3.3e1-BANKER-SIX: N.J.A.C. 19:47-3.3(e)1 (a winning Banker 6 pays 1 to 2, no vigorish),
    3.3(h) (no vigorish, a dragon 7 Banker win pushes) and 7.3(f)2 (no vigorish when the total-card
    wagers cover the Banker wager, MB-7.3f-NO-VIG): the honest settlements find nothing and expect
    no vigorish."""
    expectations = []
    for rules_id, hands, wagers in (
        ("pb-4-banker6", BANKER_SIX, {"BANKER": 10_000}),
        ("pb-4-banker6", BANKER_7_6, {"BANKER": 10_000}),
        ("pb-dragon", DRAGON, {"BANKER": 10_000}),
        ("pb-dragon", BANKER_7_6, {"BANKER": 10_000}),
        ("mb-5-rounded", BANKER_7_6, {"BANKER": 10_000, "CARDS_4": 6_000, "CARDS_5": 4_000}),
    ):
        b = table(rules_id)
        b.round(**hands, wagers={3: wagers})
        result = b.replay()
        assert codes(result) == [], rules_id
        banker = next(s for s in result.settlements if s.wager == "BANKER")
        expectations.append(
            (banker.expected_paid_cents, banker.expected_vig_cents, banker.rule_code)
        )
        assert result.vig_ledger == []
    assert expectations == [
        (5_000, 0, "PB-3.3e1-BANKER-SIX"),
        (10_000, 0, "PB-3.3e1-BANKER-SIX"),
        (0, 0, "PB-3.3h-DRAGON-PUSH"),
        (10_000, 0, "PB-3.3h-DRAGON-PUSH"),
        (10_000, 0, "MB-7.3f-NO-VIG"),
    ]


@pytest.mark.parametrize(("base", "found"), [(True, []), (False, ["PB-3.2b-WAGER-OFFERED"])])
@pytest.mark.rule("PB-3.2b-WAGER-OFFERED")
def test_bonus_wager_needs_a_base_wager_where_the_casino_requires_it(
    base: bool, found: list[str]
) -> None:
    """PB-3.2b-WAGER-OFFERED, N.J.A.C. 19:47-3.2(b): pb-4-banker6 chose to require 'a regular
    baccarat wager on either the Banker's Hand or Player's Hand in order to be able to place an
    optional bonus wager'; a bonus wager alone is refused there."""
    b = table("pb-4-banker6")
    stakes = {"PLAYER_BONUS": 5_000, **({"PLAYER": 5_000} if base else {})}
    b.round(**BANKER_NATURAL, wagers={3: stakes})
    result = b.replay()
    assert codes(result) == found
    if found:
        assert only(result).message == (
            "Seat 3 made a PLAYER_BONUS wager without a Banker or Player wager, which this table "
            "requires (N.J.A.C. 19:47-3.2(b))."
        )
