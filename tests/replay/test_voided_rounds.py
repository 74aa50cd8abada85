"""Voided rounds audited (3.12(e), 4.12(k)): the wagers returned, and no round dealt from the
shoe after a void for insufficient cards."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from pipeline.replay.rows import ReplayResult
from tests.replay.builder import TableDayBuilder, codes, only, table

ROUND: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S", "wagers": {3: {"BANKER": 10_000}}}
SHORT_SHOE = 8 + 5  # 4 burned, 4 dealt, 5 left: a void for insufficient cards is justified
SHORT_SHOE_FINDINGS = {"PB-3.1a-DECKS", "PB-3.5d-CUT", "PB-3.5e-CUT-CARD-SEEN"}
"""The short shoe's own findings (too few decks, a cut too near its end, no room for the
cutting card), beside the one tested."""


def void_codes(result: ReplayResult) -> list[str]:
    return [c for c in codes(result) if c not in SHORT_SHOE_FINDINGS]


WAGERS: dict[int, dict[str, int]] = {3: {"BANKER": 10_000}, 5: {"PLAYER": 20_000}}


@pytest.mark.parametrize(
    ("settled", "paid"),
    [({(5, "PLAYER"): ("WIN", 20_000)}, 20_000), ({(3, "BANKER"): ("LOSE", 0)}, 0)],
)
@pytest.mark.rule("PB-3.12e-VOID-RETURNED")
def test_a_void_round_paid_or_collected_as_if_it_counted(
    settled: dict[tuple[int, str], tuple[str, int]], paid: int
) -> None:
    """PB-3.12e-VOID-RETURNED, N.J.A.C. 19:47-3.12(e): a void round's wagers are returned; a
    $200 Player wager paid as a win, or a Banker wager collected as lost, is one CRITICAL
    finding naming the void and the settlement."""
    b = table(cards_in_shoe=SHORT_SHOE)
    b.round(**ROUND)
    void = b.voided_round(wagers=WAGERS, settled=settled)
    b.end_shoe()
    result = b.replay()
    f = only(result, "PB-3.12e-VOID-RETURNED")
    ((seat, wager),) = settled
    assert (f.severity, f.round_id, f.seat, f.actual_cents, f.expected_cents) == (
        Severity.CRITICAL,
        void.round_id,
        seat,
        paid,
        0,
    )
    assert f.event_ids == (void.voided, void.settled_id(seat, wager))
    assert "N.J.A.C. 19:47-3.12(e)" in f.message and "record the settlement as VOID" in f.message
    assert void_codes(result) == ["PB-3.12e-VOID-RETURNED"]


@pytest.mark.rule("PB-3.12e-VOID-RETURNED")
def test_vigorish_charged_on_a_void_round() -> None:
    """PB-3.12e-VOID-RETURNED, N.J.A.C. 19:47-3.12(e): no vigorish on a round that did not
    count."""
    b = table(cards_in_shoe=SHORT_SHOE)
    b.round(**ROUND)
    void = b.voided_round(wagers=WAGERS, vig={3: 500})
    b.end_shoe()
    f = only(b.replay(), "PB-3.12e-VOID-RETURNED")
    assert (f.code, f.seat, f.actual_cents, f.event_ids) == (
        "PB-3.12e-VOID-RETURNED",
        3,
        500,
        (void.voided, void.vig[3]),
    )


@pytest.mark.rule("PB-3.12e-VOID-RETURNED", "PB-3.12e-RESHUFFLE")
def test_a_void_round_with_its_wagers_returned_then_a_new_shoe_is_clean() -> None:
    """PB-3.12e-VOID-RETURNED, PB-3.12e-RESHUFFLE, N.J.A.C. 19:47-3.12(e): the legal case: the
    wagers returned (VOID, nothing paid), the shoe ended and the next round dealt from a new
    shoe raise nothing."""
    b = table(cards_in_shoe=SHORT_SHOE)
    b.round(**ROUND)
    b.voided_round(wagers=WAGERS)
    b.end_shoe()
    b.shoe()
    b.round(**ROUND)
    b.end_shoe()
    assert void_codes(b.replay()) == []


@pytest.mark.rule("PB-3.12e-RESHUFFLE")
def test_dealing_on_after_a_void_for_insufficient_cards() -> None:
    """PB-3.12e-RESHUFFLE, N.J.A.C. 19:47-3.12(e): "a new round shall commence after the entire
    set of cards are reshuffled": a round dealt from the same shoe after the void is HIGH,
    naming the void and the round's start."""
    b = table()
    b.round(**ROUND)
    b.voided_round(rule_code="PB-3.12e-INSUFFICIENT")
    after = b.round(**ROUND)
    b.end_shoe()
    result = b.replay()
    f = only(result, "PB-3.12e-RESHUFFLE")
    void_id = next(e.event_id for e in b.events if e.payload_type == "RoundVoided")
    assert (f.severity, f.round_id, f.event_ids) == (
        Severity.HIGH,
        after.round_id,
        (void_id, after.started),
    )
    assert "reshuffled" in f.message and "N.J.A.C. 19:47-3.12(e)" in f.message


@pytest.mark.rule("PB-3.12e-RESHUFFLE")
def test_a_void_for_another_reason_does_not_end_the_shoe() -> None:
    """PB-3.12e-RESHUFFLE, N.J.A.C. 19:47-3.12(e): only a void for insufficient cards ends the
    shoe's play; a round voided under another section (its rule_code says which) may be
    followed by more rounds."""
    b = table()
    b.round(**ROUND)
    b.voided_round(reason="card found face up", rule_code="PB-3.12d-FACE-UP")
    b.round(**ROUND)
    b.end_shoe()
    assert "PB-3.12e-RESHUFFLE" not in codes(b.replay())


@pytest.mark.rule("CF-4.12k-RESHUFFLE", "CF-4.12k-VOID-RETURNED")
def test_chemin_de_fer_cites_4_12_k() -> None:
    """CF-4.12k-RESHUFFLE, CF-4.12k-VOID-RETURNED, N.J.A.C. 19:47-4.12(k): a hand dealt after
    the void, and a void hand paid as a win, cite chapter 4."""
    b = TableDayBuilder("T04", "cf-5")
    b.open()
    b.shoe()
    b.voided_round(wagers={2: {"PLAYER": 10_000}}, settled={(2, "PLAYER"): ("WIN", 10_000)})
    b.round(
        player="9H KC",
        banker="2D 3S",
        bank={"seat": 1, "amount": 10_000, "bids": {1: 10_000}, "banco": [(2, "BANCO_SEUL", None)]},
    )
    found = codes(b.replay())
    assert "CF-4.12k-RESHUFFLE" in found and "CF-4.12k-VOID-RETURNED" in found
