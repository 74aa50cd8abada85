"""Betting closes with the first card (3.2(d) and 3.7(b), 4.7(e) and 4.8(d), 7.2(d) and 7.7(b)):
a wager made after the cards is late whatever the pit terminal says."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import codes, only, table

HANDS: dict[str, Any] = {"player": "2H 3C 4D", "banker": "5D KS 9C"}  # Player 9, Banker 4
WAGERS: dict[int, dict[str, int]] = {3: {"BANKER": 10_000}}


@pytest.mark.parametrize("betting_closed", [None, "after cards"])
@pytest.mark.rule("PB-3.7b-CARDS-CLOSE-BETS")
def test_a_wager_after_the_first_card_is_late_without_no_more_bets(
    betting_closed: str | None,
) -> None:
    """PB-3.7b-CARDS-CLOSE-BETS, N.J.A.C. 19:47-3.2(d), 3.7(b): a $500 Player wager added once
    the cards are out, with "No More Bets" never recorded or recorded after the deal, is one
    HIGH finding naming the first card and the wager; the wager row is marked late."""
    b = table()
    r = b.round(
        **HANDS, wagers=WAGERS, after_cards=[(5, "PLAYER", 50_000)], betting_closed=betting_closed
    )
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.round_id, f.seat, f.actual_cents) == (
        "PB-3.7b-CARDS-CLOSE-BETS",
        Severity.HIGH,
        r.round_id,
        5,
        50_000,
    )
    assert f.event_ids == (r.cards[0], r.late[0])
    assert "N.J.A.C. 19:47-3.2(d), 3.7(b)" in f.message
    assert "first card" in f.message
    late_row = next(w for w in result.wagers if w.seat == 5)
    assert late_row.late


@pytest.mark.rule("PB-3.2d-NO-MORE-BETS", "PB-3.7b-CARDS-CLOSE-BETS")
def test_a_wager_after_no_more_bets_and_the_cards_is_reported_once() -> None:
    """PB-3.2d-NO-MORE-BETS, N.J.A.C. 19:47-3.2(d): a wager after a recorded "No More Bets" that
    also follows the cards is the "No More Bets" finding alone, not a second one under
    PB-3.7b-CARDS-CLOSE-BETS."""
    b = table()
    b.round(**HANDS, wagers=WAGERS, after_cards=[(5, "PLAYER", 50_000)])
    assert codes(b.replay()) == ["PB-3.2d-NO-MORE-BETS"]


@pytest.mark.parametrize(
    ("rules_id", "code"),
    [("mb-5-rounded", "MB-7.7b-CARDS-CLOSE-BETS"), ("pb-5-classic", "PB-3.7b-CARDS-CLOSE-BETS")],
)
@pytest.mark.rule("MB-7.7b-CARDS-CLOSE-BETS", "PB-3.7b-CARDS-CLOSE-BETS")
def test_each_game_cites_its_own_section(rules_id: str, code: str) -> None:
    """MB-7.7b-CARDS-CLOSE-BETS, N.J.A.C. 19:47-7.2(d), 7.7(b): Minibaccarat cites chapter 7."""
    b = table(rules_id)
    b.round(**HANDS, wagers=WAGERS, after_cards=[(5, "PLAYER", 10_000)], betting_closed=None)
    assert codes(b.replay()) == [code]


@pytest.mark.rule("PB-3.7b-CARDS-CLOSE-BETS")
def test_wagers_before_the_cards_without_no_more_bets_are_on_time() -> None:
    """PB-3.7b-CARDS-CLOSE-BETS, N.J.A.C. 19:47-3.7(b): the legal case: every wager before the
    first card, with "No More Bets" recorded before it or by a device that records none,
    raises nothing (recorded late, it is a finding of its own: the test below)."""
    for closed in (None, "before cards"):
        b = table()
        b.round(**HANDS, wagers=WAGERS, betting_closed=closed)
        result = b.replay()
        assert result.findings == [], closed
        assert not any(w.late for w in result.wagers)


@pytest.mark.parametrize(
    ("closed", "found"), [("before cards", []), ("after cards", ["PB-3.7b-CARDS-CLOSE-BETS"])]
)
@pytest.mark.rule("PB-3.7b-CARDS-CLOSE-BETS")
def test_no_more_bets_recorded_after_the_cards_with_no_wager_moved(
    closed: str, found: list[str]
) -> None:
    """PB-3.7b-CARDS-CLOSE-BETS, N.J.A.C. 19:47-3.2(d), 3.7(b): "No More Bets" comes before
    "Cards". Recorded after the first card, it is the procedure not kept even though no
    wager moved: one MEDIUM finding naming the first card and the late record."""
    b = table()
    r = b.round(**HANDS, wagers=WAGERS, betting_closed=closed)
    result = b.replay()
    assert codes(result) == found
    if found:
        f = only(result)
        assert (f.severity, f.round_id, f.event_ids) == (
            Severity.MEDIUM,
            r.round_id,
            (r.cards[0], r.betting_closed),
        )
        assert "N.J.A.C. 19:47-3.2(d), 3.7(b)" in f.message
