"""A day without its head: a device whose events of the table-day do not start at seq 1 lost
them (NJ-DATA-HEAD-MISSING), and the rounds they could belong to are withheld, never guessed.

Devices number their events of a table-day from 1 at the table's opening (the emulator's
TableStream, the builder, schemas/README.md), so a first seq above 1 is never normal.
"""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.events.model import TableEvent
from pipeline.replay.findings import Severity
from pipeline.replay.live import LiveReplay
from pipeline.replay.machine import replay_table
from pipeline.simulate.run import simulate
from tests.replay.builder import CATALOG, codes, only, table


@pytest.mark.rule("NJ-DATA-HEAD-MISSING", "PB-3.3a-PLAYER", "PB-3.3c-VIG")
def test_a_device_whose_head_is_lost_withholds_the_rounds_before_its_first_event() -> None:
    """NJ-DATA-HEAD-MISSING, N.J.A.C. 19:47-3.7-3.10: the card reader's first events of the
    day (the shoe's start
    and the first round's cards) never arrived, the opening did. The first round's payout
    error (3.3(a)) cannot be checked without its cards and is withheld; the round whose first
    card is the first one delivered is withheld too (its burn may be among the lost); a later
    round's error (3.3(c)) is still found."""
    b = table()
    lost = b.round(
        player="2H 3C 4D",
        banker="5D KS 9C",
        wagers={3: {"PLAYER": 10_000}},
        paid={(3, "PLAYER"): 20_000},
    )
    second = b.round(player="TH 6C", banker="3D 4S", wagers={3: {"BANKER": 10_000}})
    third = b.round(player="TH 6C", banker="3D 4S", wagers={3: {"BANKER": 10_000}}, vig={3: 0})
    last_lost = b.by_id(lost.cards[-1])
    arrived = [e for e in b.events if not (e.device_id == "T01-shoe" and e.seq <= last_lost.seq)]
    first = next(e for e in arrived if e.device_id == "T01-shoe")
    assert first.event_id == second.cards[0]
    result = b.replay(arrived)
    assert codes(result) == ["NJ-DATA-HEAD-MISSING", "PB-3.3c-VIG"]
    head = only(result, "NJ-DATA-HEAD-MISSING")
    assert (head.severity, head.round_id, head.event_ids) == (
        Severity.HIGH,
        second.round_id,
        (first.event_id,),
    )
    assert head.message == (
        f"T01-shoe starts the table-day at seq {first.seq} (CardDealt {first.event_id}), not "
        f"at seq 1: its first {first.seq - 1} event(s) never arrived; 2 round(s) up to that "
        f"event ({lost.round_id}, {second.round_id}) are marked incomplete and their checks "
        "withheld. Find the device's missing events (its log, or the file or delivery that "
        "held the start of the day), deliver them, then replay the table-day."
    )
    status = {r.round_id: r.status for r in result.rounds}
    assert status[lost.round_id] == status[second.round_id] == "INCOMPLETE"
    assert status[third.round_id] == "COMPLETE"
    assert only(result, "PB-3.3c-VIG").round_id == third.round_id
    live = LiveReplay("T01", CATALOG)
    for start in range(0, len(arrived), 7):
        live.add(arrived[start : start + 7])
    assert live.result() == result
    whole = b.replay()
    assert codes(whole) == ["PB-3.3a-PLAYER", "PB-3.3c-VIG"]  # the head, delivered, is checked


@pytest.mark.rule("NJ-DATA-HEAD-MISSING")
def test_an_emulated_day_cut_at_its_head_says_so_for_every_device() -> None:
    """NJ-DATA-HEAD-MISSING, N.J.A.C. 19:47-3.7-3.10: the issue's day (its first events lost
    with the opening, the
    devices starting mid-sequence) is one HIGH finding that names each device, its first seq,
    how many events are missing and that event; nothing is replayed or guessed."""
    events = simulate(1, 2, 3, {}, date(2026, 11, 24)).events_by_table["T01"]
    arrived = events[1140:]
    result = replay_table("T01", arrived, CATALOG)
    f = only(result)
    assert (f.code, f.severity, result.rounds) == ("NJ-DATA-HEAD-MISSING", Severity.HIGH, [])
    firsts: dict[str, TableEvent] = {}
    for e in arrived:
        firsts.setdefault(e.device_id, e)
    heads = {device: e for device, e in firsts.items() if e.seq > 1}
    assert sorted(heads) == ["T01-bets", "T01-pit", "T01-shoe"]  # accounting starts later
    assert f.event_ids == tuple(e.event_id for _, e in sorted(heads.items()))
    for device, e in heads.items():
        assert (
            f"{device} starts at seq {e.seq} ({e.seq - 1} event(s) missing before "
            f"{e.payload_type} {e.event_id})"
        ) in f.message
    assert f.message.endswith("then replay the table-day.")


@pytest.mark.rule("NJ-DATA-HEAD-MISSING")
def test_clean_emulated_days_start_every_device_at_seq_1() -> None:
    """NJ-DATA-HEAD-MISSING, N.J.A.C. 19:47-3.7-3.10: the contract the head check rests on, as
    the emulator keeps it (per table-day, so a second day starts again at 1); a clean day has
    no data finding."""
    for day in (date(2026, 11, 24), date(2026, 11, 25)):
        for table_id, events in simulate(2, 1, 7, {}, day).events_by_table.items():
            firsts: dict[str, int] = {}
            for e in events:
                firsts.setdefault(e.device_id, e.seq)
            assert set(firsts.values()) == {1}
            assert not [
                f for f in replay_table(table_id, events, CATALOG).findings
                if f.code.startswith("NJ-DATA")
            ]  # fmt: skip
