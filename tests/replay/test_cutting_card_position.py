"""The cutting card recorded where it was placed (3.5(e) with 3.8(e); 4.4(e), 7.5(e)): the shoe
start says how far from the back it went, the CutCardReached event where it appeared."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import codes, only, table

ROUND: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S", "wagers": {3: {"BANKER": 10_000}}}
BURNED = 4  # the default burn "3C 9D 9H 9S": a 3 and three more


@pytest.mark.rule("PB-3.5e-CUT-CARD-SEEN")
def test_cutting_card_recorded_before_where_it_was_placed() -> None:
    """PB-3.5e-CUT-CARD-SEEN, N.J.A.C. 19:47-3.5(e), 3.8(e): the cutting card 70 cards from the
    back of 416 lies before position 346; recorded at position 4 it cannot have appeared."""
    b = table(cut_card_from_back=70)
    r = b.round(**ROUND, cut_card=True)
    b.round(**ROUND)
    b.end_shoe()
    f = only(b.replay())
    started = next(e.event_id for e in b.events if e.payload_type == "ShoeStarted")
    assert (f.code, f.severity, f.event_ids) == (
        "PB-3.5e-CUT-CARD-SEEN",
        Severity.MEDIUM,
        (started, r.cut_card),
    )
    assert (
        "recorded at position 4, but it was placed 70 cards from the back, before position 346"
        in (f.message)
    )


@pytest.mark.parametrize("recorded", [True, False])
@pytest.mark.rule("PB-3.5e-CUT-CARD-SEEN")
def test_hands_dealt_past_the_cutting_card(recorded: bool) -> None:
    """PB-3.5e-CUT-CARD-SEEN, N.J.A.C. 19:47-3.8(e): 'When the cutting card appears' the hand
    is completed and one more is played. Placed before position 10, it was passed by the
    second round's cards and recorded only in the third (or never): found at the record (or at
    the shoe's end)."""
    b = table(cut_card_from_back=416 - 10)
    b.round(**ROUND)
    b.round(**ROUND)  # positions 8-11
    if recorded:
        b.round(**ROUND, cut_card=True)
        b.round(**ROUND)
    b.end_shoe()
    found = [f for f in b.replay().findings if f.code == "PB-3.5e-CUT-CARD-SEEN"]
    assert len(found) == 1
    assert "hands were dealt up to position 11, past the cutting card" in found[0].message
    assert ("before it was recorded" if recorded else "it was never recorded") in found[0].message


@pytest.mark.rule("PB-3.5e-CUT-CARD-SEEN")
def test_cutting_card_recorded_where_it_lies_is_clean() -> None:
    """PB-3.5e-CUT-CARD-SEEN, N.J.A.C. 19:47-3.5(e): the legal case, placed before position 8
    and recorded there, then "last hand"; and a shoe ended before reaching its cutting card."""
    b = table(cut_card_from_back=416 - BURNED - 4)
    b.round(**ROUND)
    b.round(**ROUND, cut_card=True)
    b.round(**ROUND)
    b.end_shoe()
    assert codes(b.replay()) == []
    short_day = table()
    short_day.round(**ROUND)
    short_day.end_shoe()
    assert codes(short_day.replay()) == []
