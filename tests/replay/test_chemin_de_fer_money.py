"""Chemin de Fer money and control: the Banker's stake is the covered bank (4.7(e)) and the
Dominant Player controls the Player's Hand (4.8(c))."""

from __future__ import annotations

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
