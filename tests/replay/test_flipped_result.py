"""A round settled as if the other side had won (3.3, 4.10(b)-(c), 7.3): a winning wager
recorded lost and its stake collected, or a losing one recorded won and paid. Each is a
finding whose amounts are what settling should have moved to the patron and what it moved,
in cents; vigorish charged by the flipped result, or not charged by it, is its own."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import table

BANKER_7_6: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}
PLAYER_9_4: dict[str, Any] = {"player": "2H 3C 4D", "banker": "5D KS 9C"}
CF_BANK: dict[str, Any] = {"seat": 1, "amount": 100_000, "banco": [(5, "BANCO_SEUL", None)]}
COLLECTED = "underpaid by $2,000.00 (the $1,000.00 stake was collected, not returned)"
RETURNED = "overpaid by $2,000.00 (the $1,000.00 stake the house wins was returned)"


@pytest.mark.parametrize(
    ("rules_id", "hands", "seat", "wager", "codes"),
    [
        ("pb-5-classic", BANKER_7_6, 3, "BANKER", ("PB-3.3c-VIG", "PB-3.3c-VIG")),
        ("pb-5-classic", PLAYER_9_4, 3, "PLAYER", ("PB-3.3a-PLAYER",)),
        ("mb-5-rounded", BANKER_7_6, 3, "BANKER", ("MB-7.3c-VIG", "MB-7.3c-VIG")),
        ("cf-5", BANKER_7_6, 1, "BANKER", ("CF-4.10c-VIG", "CF-4.10c-VIG")),
        ("cf-5", PLAYER_9_4, 5, "PLAYER", ("CF-4.7g-PLAYER",)),
    ],
)
@pytest.mark.rule("PB-3.3c-VIG", "PB-3.3a-PLAYER", "MB-7.3c-VIG", "CF-4.10c-VIG", "CF-4.7g-PLAYER")
def test_a_winning_wager_recorded_lost_and_collected(
    rules_id: str, hands: dict[str, Any], seat: int, wager: str, codes: tuple[str, ...]
) -> None:
    """PB-3.3c-VIG, PB-3.3a-PLAYER, MB-7.3c-VIG, CF-4.10c-VIG, CF-4.7g-PLAYER: N.J.A.C.
    19:47-3.3(a), (c), 4.10(b)-(c), 7.3(c): a winning wager is paid 1 to 1 (a Banker wager less
    its vigorish). Recorded lost as if the other side had won, its $1,000.00 stake collected:
    one CRITICAL finding whose amounts are the $1,000.00 due to the patron and the $1,000.00
    taken, and, for a Banker wager, the vigorish the win owed and nobody charged as another."""
    b = table(rules_id, "T04")
    stake = {"wagers": {seat: {wager: 100_000}}} if seat == 3 else {"bank": CF_BANK}
    r = b.round(
        **hands, **stake, results={(seat, wager): "LOSE"}, paid={(seat, wager): 0}, vig={seat: 0}
    )
    findings = b.replay().findings
    settlement, *vig = findings
    assert [(f.code, f.seat, f.severity) for f in findings] == [
        (code, seat, Severity.CRITICAL) for code in codes
    ]
    assert (settlement.expected_cents, settlement.actual_cents) == (100_000, -100_000)
    assert settlement.message.endswith(f"it was recorded LOSE paying $0.00: {COLLECTED}.")
    assert settlement.event_ids == (r.wagers[(seat, wager)], r.settled_id(seat, wager))
    assert [(f.expected_cents, f.actual_cents) for f in vig] == [
        (5_000, 0)
        for _ in vig  # 5 percent of the $1,000.00 won
    ]


@pytest.mark.parametrize(
    ("rules_id", "hands", "seat", "wager", "vig", "codes"),
    [
        ("pb-5-classic", PLAYER_9_4, 3, "BANKER", 5_000, ("PB-3.2a1-BANKER", "PB-3.3c-VIG")),
        ("pb-5-classic", BANKER_7_6, 3, "PLAYER", 0, ("PB-3.3a-PLAYER",)),
        ("mb-5-rounded", PLAYER_9_4, 3, "BANKER", 5_000, ("PB-3.2a1-BANKER", "MB-7.3c-VIG")),
        ("cf-5", PLAYER_9_4, 1, "BANKER", 5_000, ("CF-4.6a-BANKER", "CF-4.10c-VIG")),
        ("cf-5", BANKER_7_6, 5, "PLAYER", 0, ("CF-4.7g-PLAYER",)),
    ],
)
@pytest.mark.rule(
    "PB-3.2a1-BANKER",
    "PB-3.3a-PLAYER",
    "PB-3.3c-VIG",
    "MB-7.3c-VIG",
    "CF-4.6a-BANKER",
    "CF-4.10c-VIG",
    "CF-4.7g-PLAYER",
)
def test_a_losing_wager_recorded_won_and_paid(
    rules_id: str, hands: dict[str, Any], seat: int, wager: str, vig: int, codes: tuple[str, ...]
) -> None:
    """PB-3.2a1-BANKER, PB-3.3a-PLAYER, PB-3.3c-VIG, MB-7.3c-VIG, CF-4.6a-BANKER, CF-4.10c-VIG,
    CF-4.7g-PLAYER: N.J.A.C. 19:47-3.2(a)1-2, 3.3(a), (c), 4.6(a), 4.7(g), 4.10(b)-(c), 7.3(c):
    a losing wager is collected. Recorded won as if the other side had won and paid $1,000.00:
    one CRITICAL finding whose amounts are the $1,000.00 the house wins and the $1,000.00
    paid, and, for a Banker wager charged vigorish on the win it did not have, another whose
    amounts are no vigorish due and the $50.00 charged."""
    b = table(rules_id, "T04")
    stake = {"wagers": {seat: {wager: 100_000}}} if seat == 3 else {"bank": CF_BANK}
    r = b.round(
        **hands,
        **stake,
        results={(seat, wager): "WIN"},
        paid={(seat, wager): 100_000},
        vig={seat: vig} if vig else None,
    )
    findings = b.replay().findings
    settlement, *charged = findings
    assert [(f.code, f.seat, f.severity) for f in findings] == [
        (code, seat, Severity.CRITICAL) for code in codes
    ]
    assert (settlement.expected_cents, settlement.actual_cents) == (-100_000, 100_000)
    assert settlement.message.endswith(f"it was recorded WIN paying $1,000.00: {RETURNED}.")
    assert settlement.event_ids == (r.wagers[(seat, wager)], r.settled_id(seat, wager))
    assert [(f.expected_cents, f.actual_cents) for f in charged] == [(0, vig) for _ in charged]
