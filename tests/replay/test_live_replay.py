"""The live consumer's replay (:class:`~pipeline.replay.live.LiveReplay`) gives exactly the
result of replaying everything delivered so far, batch after batch, faults included."""

from __future__ import annotations

import functools
import itertools
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.config.catalog import load_catalog
from pipeline.events.model import TableEvent
from pipeline.replay.live import CHECKPOINT_EVERY, CHECKPOINT_SPACING, LiveReplay
from pipeline.replay.machine import UnknownRulesError, replay_table
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.replay.builder import TICK
from tests.replay.builder import table as builder_table

CATALOG = load_catalog()
DAY = date(2026, 11, 24)
TABLES = ("T01", "T02", "T03", "T04")
"""The first four tables of the emulated floor: Punto Banco, Minibaccarat and Chemin de Fer."""


@functools.cache
def delivered(faults: str, table_id: str) -> list[TableEvent]:
    """Three hours of one table's events in the order the emulator delivers them."""
    return simulate(len(TABLES), 3.0, 5, parse_faults(faults), DAY, CATALOG).events_by_table[
        table_id
    ]


def batches(events: list[TableEvent], cuts: list[int]) -> list[list[TableEvent]]:
    bounds = [0, *sorted({c % (len(events) + 1) for c in cuts}), len(events)]
    return [events[a:b] for a, b in itertools.pairwise(bounds)]


@pytest.mark.rule("NJ-DATA-GAP", "NJ-DATA-DUPLICATE", "NJ-DATA-REORDERED")
@settings(max_examples=20, deadline=None)
@given(
    faults=st.sampled_from(["none", "all"]),
    table_id=st.sampled_from(TABLES),
    cuts=st.lists(st.integers(0, 10**6), max_size=6),
)
def test_batch_after_batch_equals_replaying_everything(
    faults: str, table_id: str, cuts: list[int]
) -> None:
    """N.J.A.C. 19:47-3.7-3.10: every check the replay makes (NJ-DATA-GAP, duplicates and
    reordering among them), made on each batch of a live day, gives what replaying the whole
    day so far gives: the same rows, findings and figures."""
    events = delivered(faults, table_id)
    live = LiveReplay(table_id, CATALOG)
    so_far: list[TableEvent] = []
    for batch in batches(events, cuts):
        live.add(batch)
        so_far += batch
        assert live.result() == replay_table(table_id, so_far, CATALOG)


@pytest.mark.rule("NJ-DATA-REORDERED", "NJ-DATA-GAP")
def test_a_clean_day_never_starts_over() -> None:
    """N.J.A.C. 19:47-3.7-3.10: without late events or gaps (no NJ-DATA-REORDERED, no
    NJ-DATA-GAP) each batch only applies its own events."""
    events = delivered("none", "T01")
    live = LiveReplay("T01", CATALOG)
    for batch in batches(events, list(range(50, len(events), 50))):
        live.add(batch)
        live.result()
    assert live.restarts == 0
    assert live.result() == replay_table("T01", events, CATALOG)


@pytest.mark.rule("NJ-DATA-REORDERED")
def test_an_event_arriving_late_starts_the_machine_over() -> None:
    """N.J.A.C. 19:47-3.7-3.10: an event whose place is before events already applied
    (NJ-DATA-REORDERED) is put back in order; the machine replays the day again to apply it
    there."""
    events = delivered("none", "T02")
    late = events.pop(len(events) // 2)
    live = LiveReplay("T02", CATALOG)
    live.add(events)
    live.result()
    live.add([late])
    result = live.result()
    assert live.restarts == 1
    assert result == replay_table("T02", [*events, late], CATALOG)
    assert "NJ-DATA-REORDERED" in {f.code for f in result.findings}


@pytest.mark.rule("NJ-DATA-REORDERED", "NJ-DATA-GAP")
def test_a_late_event_goes_back_to_a_checkpoint_not_to_the_first_event() -> None:
    """N.J.A.C. 19:47-3.7-3.10: an event of late in the day held back for a few batches opens
    a gap (NJ-DATA-GAP), then arrives out of order and fills it (NJ-DATA-REORDERED): the
    machine goes back to a checkpoint before it, applies the events since again, and gives
    what replaying the whole day gives; it never replays the day's earlier events."""
    events = delivered("none", "T01")
    late = events.pop(len(events) - 400)
    live = LiveReplay("T01", CATALOG)
    batches_of_100 = batches(events, list(range(100, len(events), 100)))
    so_far: list[TableEvent] = []
    gaps: set[str] = set()
    for number, batch in enumerate(batches_of_100, start=1):
        so_far += batch
        live.add(batch)
        gaps |= {f.code for f in live.result().findings if f.code == "NJ-DATA-GAP"}
        if number == len(batches_of_100) - 2:
            so_far.append(late)
            live.add([late])
            live.result()
    assert live.restarts == 2
    assert 0 < live.reapplied < 2 * (CHECKPOINT_SPACING + 400)
    result = live.result()
    assert result == replay_table("T01", so_far, CATALOG)
    assert gaps == {"NJ-DATA-GAP"}
    assert "NJ-DATA-REORDERED" in {f.code for f in result.findings}


@pytest.mark.rule("NJ-DATA-GAP", "NJ-DATA-REORDERED")
def test_a_late_event_after_a_big_batch_goes_back_within_it() -> None:
    """N.J.A.C. 19:47-3.7-3.10: the day's events but one arrive in one big batch, then the
    one held back, from near its end (NJ-DATA-GAP filled, NJ-DATA-REORDERED): the machine
    goes back to a checkpoint taken inside the big batch, not to its start, and gives what
    replaying the whole day gives."""
    events = delivered("none", "T01")
    assert len(events) > 2 * CHECKPOINT_EVERY
    late = events.pop(len(events) - 400)
    live = LiveReplay("T01", CATALOG)
    live.add(events)
    assert "NJ-DATA-GAP" in {f.code for f in live.result().findings}
    live.add([late])
    result = live.result()
    assert live.restarts == 1
    assert 0 < live.reapplied < CHECKPOINT_EVERY + 400
    assert result == replay_table("T01", [*events, late], CATALOG)
    assert "NJ-DATA-REORDERED" in {f.code for f in result.findings}


@pytest.mark.rule("NJ-DATA-GAP", "NJ-DATA-DUPLICATE", "NJ-DATA-REORDERED")
def test_small_batches_of_a_faulty_day_going_back_to_checkpoints() -> None:
    """NJ-DATA-GAP, NJ-DATA-DUPLICATE, NJ-DATA-REORDERED (N.J.A.C. 19:47-3.7-3.10): days with
    every fault (gaps, duplicates, late events) in batches of 150 events, so that machines go
    back to checkpoints again and again, give after every batch what replaying the whole day
    so far gives."""
    restarts = reapplied = 0
    for table_id in TABLES:
        events = delivered("all", table_id)
        live = LiveReplay(table_id, CATALOG)
        so_far: list[TableEvent] = []
        for batch in batches(events, list(range(150, len(events), 150))):
            live.add(batch)
            so_far += batch
            assert live.result() == replay_table(table_id, so_far, CATALOG)
        restarts, reapplied = restarts + live.restarts, reapplied + live.reapplied
    assert restarts > 0
    assert reapplied < restarts * 2 * (CHECKPOINT_SPACING + 150)


@pytest.mark.rule("NJ-DATA-HEAD-MISSING")
def test_a_day_without_its_opening_is_withheld_until_it_arrives() -> None:
    """N.J.A.C. 19:47-3.7-3.10: NJ-DATA-HEAD-MISSING until the TableOpened event naming the
    rules (the pit terminal's seq 1) arrives; then the day replays as a whole."""
    events = delivered("none", "T03")
    opening, rest = events[0], events[1:]
    assert opening.payload_type == "TableOpened"
    live = LiveReplay("T03", CATALOG)
    live.add(rest)
    assert live.result() == replay_table("T03", rest, CATALOG)
    assert [f.code for f in live.result().findings] == ["NJ-DATA-HEAD-MISSING"]
    live.add([opening])
    assert live.result() == replay_table("T03", [*rest, opening], CATALOG)


@pytest.mark.rule("NJ-DATA-CONTRACT")
def test_unknown_rules_raise_as_the_whole_replay_does() -> None:
    """N.J.A.C. 19:47-3.7-3.10: a table opened under rules the catalog lacks is reported as
    NJ-DATA-CONTRACT by the caller, live or not."""
    events = delivered("none", "T01")
    catalog = {k: v for k, v in CATALOG.items() if k != events[0].get("rules_id")}
    live = LiveReplay("T01", catalog)
    live.add(events)
    with pytest.raises(UnknownRulesError):
        replay_table("T01", events, catalog)
    with pytest.raises(UnknownRulesError):
        live.result()


@pytest.mark.rule("NJ-DATA-GAP")
def test_a_gap_in_a_round_the_machine_already_withheld_starts_it_over() -> None:
    """N.J.A.C. 19:47-3.7-3.10: the machine marks a round incomplete itself when a card of it
    arrives out of place (NJ-DATA-GAP); a later gap in that same round, found by the
    sequencer, must still start the day over, since a whole replay withholds the round from
    its first event. Found by review: comparing the machine's set with the sequencer's
    missed it."""
    b = builder_table()
    b.round(player="9H 2C", banker="3D 4S 6C", wagers={3: {"BANKER": 10_000}})
    second = b.round(player="9H 2C", banker="3D 4S 6C", wagers={3: {"BANKER": 10_000}})
    day = b.events
    first_id = next(e.round_id for e in day if e.payload_type == "RoundStarted")
    assert first_id is not None
    assert first_id != b.by_id(second.started).round_id
    started = b.by_id(second.started).occurred_at

    def stray(event_id: str, seq: int, at: int) -> TableEvent:
        """A card of the first round from a second reader."""
        fields = {
            "round_id": first_id, "rank": "TWO", "suit": "CLUBS", "hand": "PLAYER",
            "position": 90 + seq,
        }  # fmt: skip
        return TableEvent(event_id, "T01", "T01-x", seq, at, "CardDealt", fields)

    batches = [
        [*day, stray("x-1", 1, started + TICK // 2)],
        [stray("x-3", 3, day[-1].occurred_at + TICK)],
    ]
    live, so_far = LiveReplay("T01", CATALOG), []
    for batch in batches:
        live.add(batch)
        so_far += batch
        assert live.result() == replay_table("T01", so_far, CATALOG)
    assert live.restarts == 1
    statuses = {r.round_id: r.status for r in live.result().rounds}
    assert statuses[first_id] == "INCOMPLETE"
