"""The emulator's ground truth for the multi-day patterns: informed patrons and colluding
dealers behave as their manifest lines say, and the manifest says how each is found."""

from __future__ import annotations

from datetime import date, timedelta

from pipeline.events.model import TableEvent
from pipeline.rules.codes import RULE_CODES
from pipeline.simulate.faults import FaultKind
from pipeline.simulate.patrons import INFORMED_ROUNDS, INFORMED_STAKE_UNITS
from pipeline.simulate.run import simulate
from pipeline.simulate.table import (
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
