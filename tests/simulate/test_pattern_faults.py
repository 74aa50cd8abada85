"""The emulator's ground truth for the multi-day patterns: informed patrons and colluding
dealers behave as their manifest lines say, and the manifest says how each is found."""

from __future__ import annotations

import random
from datetime import date, timedelta

from pipeline.events.model import TableEvent
from pipeline.rules.codes import RULE_CODES
from pipeline.simulate.faults import FaultKind
from pipeline.simulate.patrons import INFORMED_ROUNDS, INFORMED_STAKE_UNITS
from pipeline.simulate.run import simulate
from pipeline.simulate.stream import TableStream
from pipeline.simulate.table import (
    CARD_TURN_REQUEST,
    DEALER_PATRON_CODE,
    INFORMED_BETTING_CODE,
    collusive_overpayment,
)

DAY = date(2026, 10, 5)


def _of(events: list[TableEvent], payload_type: str) -> list[TableEvent]:
    return [e for e in events if e.payload_type == payload_type]


def test_the_pattern_codes_exist() -> None:
    assert {INFORMED_BETTING_CODE, DEALER_PATRON_CODE} <= set(RULE_CODES)


def test_an_informed_patrons_big_stakes_go_on_the_winner() -> None:
    """On the rounds an informed patron knows, the stake is five units on the side that wins;
    the patron stays for the stated number of rounds."""
    result = simulate(3, 5, seed=11, rates={FaultKind.INFORMED_BETTING: 0.1}, gaming_date=DAY)
    lines = [f for f in result.faults if f.kind == FaultKind.INFORMED_BETTING.value]
    assert lines and all(f.rule_code == INFORMED_BETTING_CODE and f.seat for f in lines)
    for line in lines:
        patron = line.detail.split()[1]
        events = result.events_by_table[line.table_id]
        placed = [e for e in _of(events, "WagerPlaced") if e.get("patron_id") == patron]
        main = [e for e in placed if e.get("wager") in ("BANKER", "PLAYER")]
        unit = min(e.get("amount_cents") for e in main)  # a one-unit round is all but certain
        winners = {e.get("round_id"): e.get("winner") for e in _of(events, "ResultAnnounced")}
        known = [e for e in main if e.get("amount_cents") == unit * INFORMED_STAKE_UNITS]
        assert len({e.get("round_id") for e in main}) >= INFORMED_ROUNDS
        assert len(known) >= INFORMED_ROUNDS // 4
        assert all(winners[e.get("round_id")] == e.get("wager") for e in known)


def test_a_colluding_dealer_overpays_the_same_patron_every_day() -> None:
    """The same table's dealer colludes with the same confederate on every day of a seed; each
    overpayment is a payout finding's line (the wager's code, round, seat and event) and each
    day adds the pair's pattern line."""
    days = [
        simulate(
            3, 3, seed=11, rates={FaultKind.COLLUSION: 0.5}, gaming_date=DAY + timedelta(days=d)
        )
        for d in range(2)
    ]
    pairs = [
        {
            (f.table_id, f.detail.split()[1], f.detail.split()[4])
            for f in day.faults
            if f.rule_code == DEALER_PATRON_CODE
        }
        for day in days
    ]
    assert pairs[0] and pairs[0] == pairs[1]
    for day in days:
        for table_id, dealer, confederate in pairs[0]:
            events = day.events_by_table[table_id]
            assert _of(events, "TableOpened")[0].get("dealer_id") == dealer
            seated = _of(events, "PatronSeated")
            assert confederate in {e.get("patron_id") for e in seated[:4]}
            settled = {e.event_id: e for e in _of(events, "WagerSettled")}
            overpaid = [
                f
                for f in day.faults
                if f.kind == FaultKind.COLLUSION.value
                and f.rule_code != DEALER_PATRON_CODE
                and f.table_id == table_id
            ]
            assert overpaid
            for line in overpaid:
                [event_id] = line.event_ids
                e = settled[event_id]
                assert e.get("patron_id") == confederate and e.get("outcome") == "WIN"
                assert (line.round_id, line.seat) == (e.get("round_id"), e.get("seat"))
                assert line.rule_code in RULE_CODES


def test_an_overpayment_is_slight() -> None:
    """Five percent of the payout, at least a dollar."""
    assert [collusive_overpayment(p) for p in (500, 2_500, 10_000, 100_000)] == [
        100,
        125,
        500,
        5_000,
    ]


def test_an_edge_sorter_has_the_cards_turned_as_the_patron_sits_down_every_day() -> None:
    """The ``edge_sorter`` prepares its preview: as the patron sits down each day the pit
    records a granted request to turn cards (PatronRequest TURN_CARDS, at the moment of the
    PatronSeated, N.J.A.C. 19:47-3.6(a)), an event id of its own each day; no other table
    records a request, and the manifest line says so."""
    days = [
        simulate(4, 2, seed=11, rates={FaultKind.EDGE_SORTER: 0.5}, gaming_date=DAY + timedelta(d))
        for d in range(2)
    ]
    ids = []
    for day in days:
        lines = [f for f in day.faults if f.kind == FaultKind.EDGE_SORTER.value]
        assert lines and all("TURN_CARDS" in f.detail for f in lines)
        cheats = {f.table_id: f.patron_id for f in lines}
        for table_id, events in day.events_by_table.items():
            requests = _of(events, "PatronRequest")
            if table_id not in cheats:
                assert requests == []
                continue
            (asked,) = requests
            seated = events[events.index(asked) - 1]
            assert seated.payload_type == "PatronSeated"
            assert seated.get("patron_id") == asked.get("patron_id") == cheats[table_id]
            assert (asked.get("seat"), asked.occurred_at) == (
                seated.get("seat"),
                seated.occurred_at,
            )
            assert (asked.get("request"), asked.get("granted")) == ("TURN_CARDS", True)
            assert asked.get("detail") == CARD_TURN_REQUEST and asked.get("round_id") is None
            ids.append(asked.event_id)
    assert ids and len(set(ids)) == len(ids)


def test_an_event_from_a_faults_own_stream_leaves_the_tables_stream_as_it_was() -> None:
    """The emulator's determinism: an event added from a fault kind's own stream takes the
    moment of the event before it and draws nothing from the table's stream, so every later
    decision and moment of the day is the one it would have been without it."""
    with_it, without = (TableStream("T01", random.Random(7), 0) for _ in range(2))
    for stream in (with_it, without):
        stream.emit("T01-pit", "PatronSeated", seat=1, patron_id="PAT-1", patron_name="A")
    with_it.emit_with(random.Random(99), "T01-pit", "TableClosed", reason="added")
    assert with_it.events[-1].occurred_at == with_it.events[-2].occurred_at
    assert with_it.rng.getstate() == without.rng.getstate()
    assert with_it.clock_micros == without.clock_micros
    later = [s.emit("T01-shoe", "TableClosed", reason="next") for s in (with_it, without)]
    assert later[0] == later[1]
    assert with_it.events[-1].occurred_at == without.events[-1].occurred_at
