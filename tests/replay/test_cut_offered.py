"""Who cut the cards (N.J.A.C. 19:47-3.5(c), 4.4(c), 7.5(d)): the dealer offers the stack to
the participants, from the highest-numbered seat clockwise, until one accepts, and cuts it
when none does. ``ShoeStarted.cut_by_seat`` records who cut; the seats then occupied
(``PatronSeated``, ``PatronLeft``) are who could have been offered the cut. Which participants
declined is not recorded, so any seated participant may have accepted."""

from __future__ import annotations

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import TableDayBuilder, only

GAMES = [
    ("pb-5-classic", "PB-3.5c-CUT-OFFERED", "N.J.A.C. 19:47-3.5(c)"),
    ("cf-5", "CF-4.4c-CUT-OFFERED", "N.J.A.C. 19:47-4.4(c)"),
    ("mb-5-rounded", "MB-7.5d-CUT-OFFERED", "N.J.A.C. 19:47-7.5(d)"),
]


def seated_table(rules_id: str, *seats: int) -> TableDayBuilder:
    b = TableDayBuilder("T02", rules_id)
    b.open()
    for seat in seats:
        b.seat(seat)
    return b


@pytest.mark.rule("PB-3.5c-CUT-OFFERED", "CF-4.4c-CUT-OFFERED", "MB-7.5d-CUT-OFFERED")
@pytest.mark.parametrize(("rules_id", "code", "cited"), GAMES)
@pytest.mark.parametrize("cut_by_seat", [2, 6, None])
def test_a_seated_participant_or_the_dealer_cuts(
    rules_id: str, code: str, cited: str, cut_by_seat: int | None
) -> None:
    """PB-3.5c-CUT-OFFERED, CF-4.4c-CUT-OFFERED, MB-7.5d-CUT-OFFERED (N.J.A.C. 19:47-3.5(c),
    4.4(c), 7.5(d)): the stack is offered from seat 6 down; seat 6 may accept, or seat 2
    after 6 declined, or the dealer cut when both declined. None of these is a finding."""
    b = seated_table(rules_id, 2, 6)
    b.shoe(cut_by_seat=cut_by_seat)
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.rule("PB-3.5c-CUT-OFFERED", "CF-4.4c-CUT-OFFERED", "MB-7.5d-CUT-OFFERED")
@pytest.mark.parametrize(("rules_id", "code", "cited"), GAMES)
def test_a_cut_from_an_empty_seat(rules_id: str, code: str, cited: str) -> None:
    """PB-3.5c-CUT-OFFERED, CF-4.4c-CUT-OFFERED, MB-7.5d-CUT-OFFERED (N.J.A.C. 19:47-3.5(c),
    4.4(c), 7.5(d)): the cut is offered "to the participants"; a cut recorded from seat 4,
    which its patron left before the shuffle, was made by nobody it could be offered to."""
    b = seated_table(rules_id, 2, 4, 6)
    b.patron_leaves(4)
    started = b.shoe(cut_by_seat=4)
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.round_id, f.event_ids) == (
        code,
        Severity.MEDIUM,
        4,
        None,
        (started,),
    )
    assert f.message == (
        f"Shoe T02-S01 (event {started}): the cards were recorded as cut from seat 4, where no "
        f"participant sat; the stack could be offered to seats 6, 2 in that order ({cited}). "
        "Check who cut the cards against surveillance; if a participant did sit there, the pit "
        "terminal lost the seating: deliver its PatronSeated and replay the table-day."
    )


@pytest.mark.rule("PB-3.5c-CUT-OFFERED")
def test_a_participant_cut_at_an_empty_table() -> None:
    """PB-3.5c-CUT-OFFERED, N.J.A.C. 19:47-3.5(c): "If no participant accepts the cut, the
    dealer shall cut the cards"; with nobody seated only the dealer can cut."""
    b = seated_table("pb-5-classic")
    b.shoe(cut_by_seat=1)
    b.end_shoe()
    f = only(b.replay())
    assert f.code == "PB-3.5c-CUT-OFFERED"
    assert "could be offered to nobody: no participant was seated, so the dealer cuts" in (
        f.message
    )
