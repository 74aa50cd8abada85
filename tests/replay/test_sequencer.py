"""What devices and networks do to a stream: duplicates, reordering, gaps and clock skew
(NJ-DATA-*), and a replay that does not depend on the order a day was delivered in."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.events.model import TableEvent
from pipeline.replay.findings import Finding, Severity
from pipeline.replay.rows import ReplayResult
from pipeline.replay.sequencer import Sequencer, sequence
from tests.replay.builder import busy_day, clean_day, codes, only, table


def without(events: list[TableEvent], *ids: str) -> list[TableEvent]:
    return [e for e in events if e.event_id not in ids]


def rows(result: ReplayResult) -> tuple[object, ...]:
    """Everything a replay derives except its findings (and their count in the summary)."""
    summary = dataclasses.replace(result.summary, findings=0) if result.summary else None
    return (
        result.rounds,
        result.cards,
        result.wagers,
        result.settlements,
        result.vig_ledger,
        result.forms,
        result.form_events,
        result.form_series,
        summary,
        result.event_count,
    )


@pytest.mark.rule("NJ-DATA-DUPLICATE")
def test_duplicate_is_applied_once() -> None:
    """NJ-DATA-DUPLICATE (N.J.A.C. 19:47-3.7 to 3.10 as recorded): an event delivered twice is
    applied once; an INFO finding says so and every row is as if it came once."""
    b, rounds = clean_day()
    events = b.events
    settled = b.by_id(rounds[1].settled_id(3, "PLAYER"))
    result = b.replay([*events, settled])
    f = only(result)
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "NJ-DATA-DUPLICATE",
        Severity.INFO,
        rounds[1].round_id,
        (settled.event_id,),
    )
    assert f.message == (
        f"WagerSettled {settled.event_id} (device T01-pit seq {settled.seq}) was delivered more "
        "than once; it is applied once."
    )
    assert result.summary is not None and result.summary.duplicates == 1
    clean = b.replay()
    assert rows(result)[:8] == rows(clean)[:8]


@pytest.mark.rule("NJ-DATA-REORDERED")
def test_reordered_delivery_is_restored() -> None:
    """N.J.A.C. 19:47-3.7-3.10: NJ-DATA-REORDERED: a card delivered after a later card of its device
    is put back by seq; an INFO finding names it and the replay is otherwise that of the ordered
    day."""
    b, rounds = clean_day()
    events = b.events
    third, fourth = rounds[1].cards[2], rounds[1].cards[3]
    i, j = (next(k for k, e in enumerate(events) if e.event_id == x) for x in (third, fourth))
    events[i], events[j] = events[j], events[i]
    result = b.replay(events)
    f = only(result)
    late = b.by_id(third)
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "NJ-DATA-REORDERED",
        Severity.INFO,
        rounds[1].round_id,
        (third,),
    )
    assert f.message == (
        f"CardDealt seq {late.seq} from T01-shoe arrived after seq {late.seq + 1}; it was put "
        "back in order."
    )
    assert rows(result) == rows(b.replay())


@pytest.mark.rule("NJ-DATA-GAP", "PB-3.3a-PLAYER")
def test_dropped_card_marks_the_round_incomplete_and_withholds_its_checks() -> None:
    """N.J.A.C. 19:47-3.7-3.10: NJ-DATA-GAP: a missing shoe seq makes the round INCOMPLETE; its
    payout error (N.J.A.C. 19:47-3.3(a)) is withheld, never guessed at; the rounds around it are
    checked."""
    b = table()
    b.round(player="TH 6C", banker="3D 4S", wagers={3: {"BANKER": 10_000}})
    bad = b.round(
        player="2H 3C 4D",
        banker="5D KS 9C",
        wagers={3: {"PLAYER": 10_000}},
        paid={(3, "PLAYER"): 20_000},
    )
    after = b.round(player="TH 6C", banker="3D 4S", wagers={3: {"BANKER": 10_000}}, vig={3: 0})
    dropped = b.by_id(bad.cards[2])
    result = b.replay(without(b.events, dropped.event_id))
    assert codes(result) == ["NJ-DATA-GAP", "PB-3.3c-VIG"]
    gap = only(result, "NJ-DATA-GAP")
    assert (gap.severity, gap.round_id, gap.event_ids) == (
        Severity.HIGH,
        bad.round_id,
        (bad.cards[1], bad.cards[3]),
    )
    assert gap.message == (
        f"T01-shoe never delivered seq {dropped.seq} (before CardDealt seq {dropped.seq + 1}); "
        f"round {bad.round_id} is marked incomplete and its checks are withheld. Recover the "
        "device log."
    )
    assert only(result, "PB-3.3c-VIG").round_id == after.round_id
    status = {r.round_id: r.status for r in result.rounds}
    assert status[bad.round_id] == "INCOMPLETE"
    assert [s.round_id for s in result.settlements].count(bad.round_id) == 0
    assert [w.round_id for w in result.wagers].count(bad.round_id) == 1


@pytest.mark.rule("NJ-DATA-GAP")
def test_several_events_dropped_are_one_gap() -> None:
    """N.J.A.C. 19:47-3.7-3.10: NJ-DATA-GAP: two consecutive pit events lost are reported as one
    range."""
    b, rounds = clean_day()
    lost = (rounds[0].settled_id(5, "PLAYER"), rounds[0].settled_id(5, "TIE"))
    seqs = sorted(b.by_id(i).seq for i in lost)
    f = only(b.replay(without(b.events, *lost)))
    assert (f.code, f.round_id) == ("NJ-DATA-GAP", rounds[0].round_id)
    assert f.message.startswith(f"T01-pit never delivered seq {seqs[0]}-{seqs[1]} (before ")


@pytest.mark.rule("NJ-DATA-GAP")
def test_dropped_round_start_does_not_merge_rounds() -> None:
    """N.J.A.C. 19:47-3.7-3.10: NJ-DATA-GAP: incomplete rounds 'are never guessed at'
    (pipeline.replay.sequencer); a lost RoundStarted must not move its cards into the round
    before."""
    b, rounds = clean_day()
    result = b.replay(without(b.events, rounds[1].started))
    first = next(r for r in result.rounds if r.round_id == rounds[0].round_id)
    assert first.player_cards == "TH 6C"
    assert all(c.round_id == b.by_id(c.event_id).round_id for c in result.cards)


@pytest.mark.rule("NJ-DATA-CLOCK-SKEW")
def test_device_clock_running_backwards() -> None:
    """N.J.A.C. 19:47-3.7-3.10: NJ-DATA-CLOCK-SKEW: the pit terminal stamped its seq 2 three seconds
    before its seq 1; the events are still applied in seq order and nothing else is reported."""
    b, _ = clean_day()
    events = b.events
    events[1] = dataclasses.replace(events[1], occurred_at=events[0].occurred_at - 3_000_000)
    result = b.replay(events)
    f = only(result)
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "NJ-DATA-CLOCK-SKEW",
        Severity.LOW,
        None,
        (events[1].event_id,),
    )
    assert f.message == (
        "T01-pit stamped seq 2 3.0 s before seq 1; its clock is suspect, check the device's time "
        "source."
    )
    assert rows(result) == rows(b.replay())


# ---------------------------------------------------------------------- order independence
BUSY, _ = busy_day()
BUSY_EVENTS = BUSY.events


@pytest.mark.rule("NJ-DATA-REORDERED", "NJ-DATA-DUPLICATE")
def test_busy_day_has_the_findings_it_was_built_with() -> None:
    """NJ-DATA-REORDERED: The property below compares something: the busy day's own findings
    (N.J.A.C. 19:47-3.5(e) burn, 3.9(c) Table 2, 3.2(d), 3.3(b), 3.3(c)3ii gap)."""
    assert codes(BUSY.replay()) == [
        "PB-3.2d-NO-MORE-BETS",
        "PB-3.3b-TIE",
        "PB-3.3c3ii-FORM-SEQUENCE",
        "PB-3.5e-BURN",
        "PB-3.9c-TABLE2",
    ]


def comparable(result: ReplayResult) -> tuple[Counter[Finding], tuple[object, ...]]:
    """Findings (less the INFO notes on reordering, which describe the delivery itself) and
    rows."""
    kept = Counter(f for f in result.findings if f.code != "NJ-DATA-REORDERED")
    return kept, rows(result)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    repeats=st.lists(st.integers(0, len(BUSY_EVENTS) - 1), max_size=4),
)
@pytest.mark.rule("NJ-DATA-REORDERED", "NJ-DATA-DUPLICATE")
def test_replay_does_not_depend_on_delivery_order(data: st.DataObject, repeats: list[int]) -> None:
    """N.J.A.C. 19:47-3.7-3.10: NJ-DATA-REORDERED and NJ-DATA-DUPLICATE (pipeline.replay.sequencer):
    each device's events are ordered by seq and devices merged by time, so any delivery order of the
    same day, with any events delivered twice, gives the same findings and the same rows."""
    extra = [BUSY_EVENTS[i] for i in repeats]
    in_order = BUSY.replay([*BUSY_EVENTS, *extra])
    delivered = data.draw(st.permutations([*BUSY_EVENTS, *extra]))
    shuffled = BUSY.replay(delivered)
    assert comparable(shuffled) == comparable(in_order)
    reordered = [f for f in shuffled.findings if f.code == "NJ-DATA-REORDERED"]
    assert all(f.severity is Severity.INFO for f in reordered)


@pytest.mark.rule("NJ-DATA-REORDERED", "NJ-DATA-DUPLICATE", "NJ-DATA-GAP", "NJ-DATA-CLOCK-SKEW")
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_sequencing_batch_by_batch_equals_sequencing_everything(data: st.DataObject) -> None:
    """N.J.A.C. 19:47-3.7-3.10: the live consumer's sequencer, fed a day batch by batch, says
    at every batch what sequencing everything so far says (NJ-DATA-REORDERED, duplicates,
    gaps, clock skew, the merged order), however the devices' deliveries lag each other."""
    b, _ = busy_day()
    events = b.events
    devices = sorted({e.device_id for e in events})
    lag = dict(
        zip(
            devices,
            data.draw(st.lists(st.integers(0, 900), min_size=len(devices), max_size=len(devices))),
            strict=True,
        )
    )
    arrival = sorted(events, key=lambda e: e.occurred_at + lag[e.device_id] * 1_000_000)
    late = data.draw(st.lists(st.integers(0, len(arrival) - 1), max_size=3))
    for index in sorted(set(late), reverse=True):  # a few events overtaken by later ones
        arrival.append(arrival.pop(index))
    dropped = set(data.draw(st.lists(st.integers(0, len(arrival) - 1), max_size=2)))
    again = data.draw(st.lists(st.integers(0, len(arrival) - 1), max_size=3))
    arrival = [e for i, e in enumerate(arrival) if i not in dropped]
    arrival += [arrival[i % len(arrival)] for i in again]
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(arrival) - 1), max_size=8))))
    sequencer = Sequencer()
    so_far: list[TableEvent] = []
    for start, end in itertools.pairwise([0, *cuts, len(arrival)]):
        sequencer.add(arrival[start:end])
        so_far += arrival[start:end]
        assert sequencer.sequenced() == sequence(so_far)
