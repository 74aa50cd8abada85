"""A card disclosed in error (3.12(c), 4.12(h), 7.11(c)) and the deferred vigorish a shoe leaves
behind when it gives way to the next without its end recorded (3.3(c)4)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import codes, only, table

ROUND: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S", "wagers": {3: {"BANKER": 10_000}}}


@pytest.mark.rule("PB-3.12c3-SIMULATED-FIRST")
def test_simulated_round_opens_with_another_card() -> None:
    """PB-3.12c3-SIMULATED-FIRST, N.J.A.C. 19:47-3.12(c)3: 'The disclosed card shall be used as
    the first card of a simulated round'; the 5 of diamonds was disclosed, the simulated round
    opened with the 9 of clubs."""
    b = table("pb-dragon")
    b.round(**ROUND)
    irr = b.irregularity("5D")
    sim = b.round(player="9C KC", banker="3H 3S", simulated=True)
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "PB-3.12c3-SIMULATED-FIRST",
        Severity.MEDIUM,
        sim.round_id,
        (irr.reported, sim.cards[0]),
    )
    assert (
        "not with the card disclosed in error (5D)" in f.message
        and "N.J.A.C. 19:47-3.12(c)3" in f.message
    )


@pytest.mark.rule("PB-3.12c3-SIMULATED-FIRST")
def test_simulated_round_opening_with_the_disclosed_card_is_clean() -> None:
    """PB-3.12c3-SIMULATED-FIRST, N.J.A.C. 19:47-3.12(c)3: the legal case."""
    b = table("pb-dragon")
    b.round(**ROUND)
    b.irregularity("5D")
    b.round(player="5D 4C", banker="3H 3S", simulated=True)
    b.round(**ROUND)
    assert b.replay().findings == []


@pytest.mark.rule("PB-3.12c3-SIMULATED-FIRST")
def test_simulated_round_opening_with_a_card_alike_from_elsewhere() -> None:
    """PB-3.12c3-SIMULATED-FIRST, N.J.A.C. 19:47-3.12(c)3: the disclosed card itself opens the
    simulated round. The 5 of diamonds disclosed at position P went to the discards and the
    round opened with the next card, another 5 of diamonds of the shoe's eight decks: the same
    rank and suit, not the same card, and a finding naming both positions."""
    b = table("pb-dragon")
    b.round(**ROUND)
    at = b.position
    irr = b.irregularity("5D")
    discarded = b.emit(
        "shoe",
        "CardDealt",
        shoe_id=b.shoe_id,
        round_id=None,
        position=at,
        hand="DISCARD",
        face_up=True,
        rank="FIVE",
        suit="DIAMONDS",
    )
    b.position += 1
    sim = b.round(player="5D 4C", banker="3H 3S", simulated=True)
    events = [
        replace(e, fields={**e.fields, "position": at}) if e.event_id == irr.reported else e
        for e in b.events
    ]
    f = only(b.replay(events))
    assert (f.code, f.round_id, f.event_ids) == (
        "PB-3.12c3-SIMULATED-FIRST",
        sim.round_id,
        (irr.reported, sim.cards[0]),
    )
    assert discarded not in f.event_ids
    assert (
        f"opened with 5D (position {at + 1}), not with the card disclosed in error "
        f"(5D at position {at})" in f.message
    )


@pytest.mark.parametrize(("face_up", "found"), [(True, ["PB-3.12c2-FACE-DOWN"]), (False, [])])
@pytest.mark.rule("PB-3.12c2-FACE-DOWN")
def test_the_additional_card_goes_face_down(face_up: bool, found: list[str]) -> None:
    """PB-3.12c2-FACE-DOWN, N.J.A.C. 19:47-3.12(c)2: 'one additional card drawn face downwards
    ... without disclosing the additional card' (pb-4-banker6's procedure): drawn face up it is
    a finding naming the report and the card; face down it is the legal case."""
    b = table("pb-4-banker6")
    b.round(**ROUND)
    irr = b.irregularity("5D", extra_face_up=face_up)
    b.round(**ROUND)
    result = b.replay()
    assert codes(result) == found
    if found:
        assert result.findings[0].event_ids == (irr.reported, irr.discards[1])
        assert "N.J.A.C. 19:47-3.12(c)2" in result.findings[0].message


@pytest.mark.rule("PB-3.3c4-DEFERRED-DEADLINE")
def test_deferred_vigorish_left_when_a_new_shoe_starts_without_shoe_ended() -> None:
    """PB-3.3c4-DEFERRED-DEADLINE, N.J.A.C. 19:47-3.3(c)4: deferred vigorish is collected or
    documented 'when each shoe of cards is completed'. A new shoe started with no ShoeEnded
    completed the last one: the marker still owed is found at the new ShoeStarted, not at the
    end of the next shoe."""
    b = table()
    r = b.round(**ROUND, defer_vig={3})
    started = b.shoe()
    b.round(**ROUND)
    b.close(settle_deferred=False)
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.expected_cents) == (
        "PB-3.3c4-DEFERRED-DEADLINE",
        Severity.CRITICAL,
        3,
        500,
    )
    assert f.event_ids == (r.vig[3], started)
    assert "gave way to T01-S02 unended" in f.message


@pytest.mark.rule("PB-3.3c4-DEFERRED-DEADLINE")
def test_deferred_vigorish_collected_before_a_new_shoe_is_clean() -> None:
    """PB-3.3c4-DEFERRED-DEADLINE, N.J.A.C. 19:47-3.3(c)4: the legal case, the marker paid
    before the next shoe even though the shoe's end was not recorded."""
    b = table()
    b.round(**ROUND, defer_vig={3})
    b.collect_deferred(3)
    b.shoe()
    b.round(**ROUND)
    b.close()
    assert b.replay().findings == []
