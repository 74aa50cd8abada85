"""The live consumer's in-memory table-days (:mod:`pipeline.ingest.live`) never make the
ledger differ from loading the same batches without them (ledger invariant 2: derived rows
depend only on the set of deliveries), whatever else writes to the ledger meanwhile."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pipeline.config.catalog import gaming_day_of
from pipeline.events.model import TableEvent
from pipeline.ingest.live import LiveTableDays
from pipeline.ingest.pits import judge_pits
from pipeline.ingest.stage import load_batch
from pipeline.ledger.columns import source_deliveries
from pipeline.ledger.store import Delivery, Ledger, TableDayUpdate
from pipeline.replay.machine import replay_table
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.ledger.conftest import DAY
from tests.ledger.test_ledger import CATALOG, snapshot

BATCHES = 6


def partition_batches(day: dict[str, list[TableEvent]], source: str) -> list[list[Delivery]]:
    """The day as a partition delivers it: every table's events in order, interleaved, cut
    into consecutive batches."""
    stream = sorted((e for events in day.values() for e in events), key=lambda e: e.occurred_at)
    deliveries = kafka_deliveries(source, stream)
    size = len(deliveries) // BATCHES + 1
    return [deliveries[i : i + size] for i in range(0, len(deliveries), size)]


def kafka_deliveries(source: str, events: list[TableEvent], start: int = 0) -> list[Delivery]:
    """``events`` as consecutive offsets of a partition (a Kafka delivery's occurrence is its
    offset)."""
    return [Delivery(source, start + i, e, start + i) for i, e in enumerate(events)]


def load_all(ledger: Ledger, batches: list[list[Delivery]], live: LiveTableDays | None) -> None:
    for batch in batches:
        load_batch(ledger, batch, [], CATALOG, live=live)


def test_batches_replayed_live_equal_batches_read_back(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    batches = partition_batches(day, "kafka:t:0")
    live = LiveTableDays(CATALOG)
    with Ledger(tmp_path / "live.duckdb") as fast, Ledger(tmp_path / "slow.duckdb") as slow:
        load_all(fast, batches, live)
        load_all(slow, batches, None)
        assert snapshot(fast) == snapshot(slow)
    assert live.reads == 0  # nothing read back: the batches hold every delivery
    # each table-day written whole once, when new: where its machine started over (an event
    # delivered out of order, a new gap) only the rows from the first that differs are
    assert live.rewrites == len(day)
    assert live.updates > 2 * len(day)


def test_another_writer_between_batches_is_noticed(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    """Files loaded into the live ledger mid-day change a table-day's deliveries behind the
    consumer's back; its fingerprint no longer matches and the day is read again."""
    batches = partition_batches(day, "kafka:t:0")
    events = next(iter(day.values()))
    replayed_file = source_deliveries("/data/replay.avro", events[:40])
    live = LiveTableDays(CATALOG)
    with Ledger(tmp_path / "live.duckdb") as fast, Ledger(tmp_path / "slow.duckdb") as slow:
        for ledger, cache in ((fast, live), (slow, None)):
            load_all(ledger, batches[:2], cache)
            load_batch(ledger, replayed_file, [], CATALOG)  # not through the cache
            load_all(ledger, batches[2:], cache)
        assert snapshot(fast) == snapshot(slow)
    assert live.reads == 1


def test_a_failed_batch_leaves_nothing_behind(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    """A batch whose transaction fails (here the offsets' write) is rolled back in the ledger
    and forgotten by the cache; the retry gives what an unbroken run gives."""
    batches = partition_batches(day, "kafka:t:0")
    live = LiveTableDays(CATALOG)

    def crash(_: Ledger) -> None:
        raise OSError("disk full while storing offsets")

    with Ledger(tmp_path / "live.duckdb") as fast, Ledger(tmp_path / "slow.duckdb") as slow:
        load_all(fast, batches[:3], live)
        with pytest.raises(OSError, match="disk full"):
            load_batch(fast, batches[3], [], CATALOG, live=live, in_same_transaction=crash)
        assert fast.table_days() and not [key for key in fast.table_days() if key in live]
        load_all(fast, batches[3:], live)
        load_all(slow, batches, None)
        assert snapshot(fast) == snapshot(slow)


def test_deliveries_sorting_before_those_held_are_read_in_order(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    """The ledger orders a table-day's deliveries by (source, position); a second source
    whose name sorts first cannot simply be appended, so the day is read again."""
    late, early = partition_batches(day, "kafka:t:9"), partition_batches(day, "kafka:t:0")
    live = LiveTableDays(CATALOG)
    with Ledger(tmp_path / "live.duckdb") as fast, Ledger(tmp_path / "slow.duckdb") as slow:
        for ledger, cache in ((fast, live), (slow, None)):
            load_all(ledger, late[:3], cache)
            load_all(ledger, early[:3], cache)
        assert snapshot(fast) == snapshot(slow)
    assert live.reads > len(day)


def test_rows_are_withdrawn_only_when_each_is_there_exactly_once(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    """Ledger invariant 3 for the incremental write: a row to withdraw that the ledger does
    not hold, or holds twice, makes the update refuse that table-day (the caller rewrites
    it), while the other table-days of the same call are updated."""
    results = {}
    for table_id, events in day.items():
        key = (table_id, gaming_day_of().date_of(events[0].occurred_at))
        results[key] = replay_table(table_id, events, CATALOG)
    (first, result), (second, other) = list(results.items())[:2]
    last_round = result.rounds[-1]
    its_cards = [c for c in result.cards if c.round_id == last_round.round_id]
    again: dict[str, list[Any]] = {"rounds": [last_round], "cards": its_cards}
    others_last = other.rounds[-1]
    others_again: dict[str, list[Any]] = {"rounds": [others_last]}
    with Ledger(tmp_path / "l.duckdb") as ledger, ledger.transaction():
        for key, each in results.items():
            ledger.replace_table_day(*key, each)
        judge_pits(ledger)
        written = snapshot(ledger)
        both = [
            TableDayUpdate(first, result, again, again, result),
            TableDayUpdate(second, other, others_again, others_again, other),
        ]
        assert ledger.update_table_days(both) == set()
        judge_pits(ledger)
        assert snapshot(ledger) == written
        stranger = replace(last_round, round_id="R-never-dealt")
        refused = ledger.update_table_days(
            [
                TableDayUpdate(first, result, {}, {"rounds": [stranger]}, result),
                TableDayUpdate(second, other, {}, others_again, other),
            ]
        )
        assert refused == {first}
        withdrawn = ledger.con.execute(
            "SELECT count(*) FROM rounds WHERE table_id = ? AND round_id = ?",
            [second[0], others_last.round_id],
        ).fetchall()
        assert withdrawn == [(0,)], "the sound table-day was not updated with the refused one"
        ledger.replace_table_day(*second, other)
        twice = {"cards": [its_cards[0], its_cards[0]]}
        assert ledger.update_table_days([TableDayUpdate(first, result, {}, twice, result)]) == {
            first
        }
        ledger.replace_table_day(*first, result)
        judge_pits(ledger)
        assert snapshot(ledger) == written


WIN_FROM_SETTLEMENTS = """
    SELECT wager,
      sum(CASE expected_result WHEN 'LOSE' THEN stake_cents
          WHEN 'WIN' THEN -expected_paid_cents ELSE 0 END),
      sum(CASE recorded_result WHEN 'LOSE' THEN stake_cents
          WHEN 'WIN' THEN -recorded_paid_cents ELSE 0 END)
    FROM settlements WHERE table_id = ? AND gaming_date = ? GROUP BY wager ORDER BY wager"""


def test_the_win_follows_the_settlements_changed(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    """Ledger invariant 2 for the incremental write: a table-day's win per wager (the
    close's win, N.J.A.C. 19:47-3.3 settlements summed) is what its settlements in the ledger
    sum to, whether an update's change decides it (settlements withdrawn and added again, or
    only added) or leaves it to a count of all of them (a wager losing settlements, a WIN
    without its recorded payment, whose sum may be NULL)."""
    table_id, events = next(iter(day.items()))
    key = (table_id, gaming_day_of().date_of(events[0].occurred_at))
    result = replay_table(table_id, events, CATALOG)
    last = next(
        r for r in reversed(result.rounds) if r.round_id in {s.round_id for s in result.settlements}
    )
    its = [s for s in result.settlements if s.round_id == last.round_id]
    unpaid = replace(its[0], round_id="R-unpaid", recorded_result="WIN", recorded_paid_cents=None)
    lost = replace(its[0], round_id="R-lost", recorded_result="LOSE", expected_result="LOSE")

    def win() -> list[tuple[object, ...]]:
        return ledger.con.execute(
            "SELECT wager, expected_win_cents, recorded_win_cents FROM table_day_win "
            "WHERE table_id = ? AND gaming_date = ? ORDER BY wager",
            list(key),
        ).fetchall()

    with Ledger(tmp_path / "l.duckdb") as ledger, ledger.transaction():
        ledger.replace_table_day(*key, result)
        written = win()
        changes: list[tuple[dict[str, list[Any]], dict[str, list[Any]]]] = [
            ({"settlements": its}, {"settlements": its}),
            ({}, {"settlements": its}),
            ({"settlements": its}, {}),
            ({"settlements": [lost]}, {}),
            ({"settlements": [unpaid]}, {}),
            ({}, {"settlements": [unpaid, lost]}),
        ]
        for added, withdrawn in changes:
            assert (
                ledger.update_table_days([TableDayUpdate(key, result, added, withdrawn, result)])
                == set()
            )
            assert win() == ledger.con.execute(WIN_FROM_SETTLEMENTS, list(key)).fetchall()
        assert win() == written
        judge_pits(ledger)


def test_only_the_newest_gaming_day_is_kept(tmp_path: Path) -> None:
    """Memory holds one gaming day; an event delivered late for the day before (a device
    flushing its log after the N.J.A.C. 19:47-3.3(c)3 day end) has that day read back."""
    first, second = (
        simulate(1, 2.0, 4, parse_faults("none"), day, CATALOG).events_by_table["T01"]
        for day in (DAY, DAY + timedelta(days=1))
    )
    source = "kafka:table-events:0"
    batches = [
        kafka_deliveries(source, first),
        kafka_deliveries(source, second, start=len(first)),
        kafka_deliveries(source, first[-1:], start=len(first) + len(second)),  # again, late
    ]
    live = LiveTableDays(CATALOG)
    with Ledger(tmp_path / "live.duckdb") as fast, Ledger(tmp_path / "slow.duckdb") as slow:
        load_all(fast, batches[:2], live)
        assert ("T01", DAY) not in live and ("T01", DAY + timedelta(days=1)) in live
        load_all(fast, batches[2:], live)
        load_all(slow, batches, None)
        assert snapshot(fast) == snapshot(slow)
    assert live.reads == 1


def test_a_delivery_the_ledger_holds_under_another_day_is_not_taken_twice(
    tmp_path: Path,
) -> None:
    """Ledger invariant 1: a delivery key already stored is never stored again, whatever it
    carries. A batch holding one (here offset 0 again, its event stamped in the next gaming
    day) leaves the cache one delivery ahead of the ledger unless it counts; it reads
    back."""
    first, second = (
        simulate(1, 2.0, 4, parse_faults("none"), day, CATALOG).events_by_table["T01"]
        for day in (DAY, DAY + timedelta(days=1))
    )
    source = "kafka:table-events:0"
    reused = [Delivery(source, 0, replace(first[0], occurred_at=second[0].occurred_at), 0)]
    batches = [
        kafka_deliveries(source, first),
        reused + kafka_deliveries(source, second[1:], start=len(first)),
    ]
    live = LiveTableDays(CATALOG)
    with Ledger(tmp_path / "live.duckdb") as fast, Ledger(tmp_path / "slow.duckdb") as slow:
        load_all(fast, batches, live)
        load_all(slow, batches, None)
        assert snapshot(fast) == snapshot(slow)
    assert live.reads == 1
