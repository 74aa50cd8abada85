"""Each round's row names its dealer (issue 26), so a dealer's record reads the rounds: the
dealer its RoundStarted names (``schemas/round.avsc``, ``dealer_id``), else the one who
opened the table for it (TableOpened's ``dealer_id``). No rule of N.J.A.C. 19:47 names who
dealt a round; the events do."""

from __future__ import annotations

from dataclasses import replace

from tests.replay.builder import DEALER, clean_day, table


def test_a_round_is_dealt_by_the_dealer_its_start_names_else_the_tables() -> None:
    b, rounds = clean_day()
    relieved = rounds[1].started
    events = [
        replace(e, fields={**e.fields, "dealer_id": "DLR-RELIEF"}) if e.event_id == relieved else e
        for e in b.events
    ]
    dealt = [(r.round_id, r.dealer_id) for r in b.replay(events).rounds]
    assert dealt == [
        (rounds[0].round_id, DEALER),
        (rounds[1].round_id, "DLR-RELIEF"),
        (rounds[2].round_id, DEALER),  # naming none, the table's dealer again
    ]


def test_a_table_opened_again_under_another_dealer_deals_its_later_rounds() -> None:
    """The rounds before a second TableOpened of the day keep the dealer who opened the table
    for them; the table-day's summary names the last one."""
    b = table()
    before = b.round(player="TH 6C", banker="3D 4S")
    b.open(series=(), dealer_id="DLR-LATER")
    after = b.round(player="2H 3C", banker="9D TS")
    result = b.replay()
    assert [(r.round_id, r.dealer_id) for r in result.rounds] == [
        (before.round_id, DEALER),
        (after.round_id, "DLR-LATER"),
    ]
    assert result.summary is not None and result.summary.dealer_id == "DLR-LATER"
