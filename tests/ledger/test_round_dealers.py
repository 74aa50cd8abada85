"""A round's row records its dealer (issue 26: a dealer's history reads the rounds, not every
stored day's deliveries). The dealer is the one the round's RoundStarted names, else the one
named last before it, else the one the table-day was opened under (``schemas/round.avsc``:
``dealer_id``, "null if unchanged since TableOpened or the previous RoundStarted"); no rule
of N.J.A.C. 19:47 names who dealt a round, the events do. The history and the compliance
search give the answers the deliveries give; days derived before rows recorded the dealer
(migration 25), sealed and archived without the column, still verify and still answer, from
their deliveries. Real parts: emulated days with relief dealers named mid-day, replayed,
closed into the embedded Iceberg archive.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import pandas as pd
import pytest

from pipeline.cli import ingest_paths, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.events.model import TableEvent
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger import history, round_dealers
from pipeline.ledger.migrations import MIGRATIONS
from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger
from pipeline.ledger.tables import TABLE
from pipeline.reports.verify import check
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.ledger.test_archive import DAY, LEDGER, close
from tests.replay.builder import DEALER, clean_day, table
from tests.tampering import rows_in_the_file

DAYS = [DAY + timedelta(days=n) for n in range(3)]
RELIEF = ("DLR-RELIEF-1", "DLR-RELIEF-2")
"""The dealers a RoundStarted names mid-day: a relief dealer taking the table over."""


def test_a_round_is_dealt_by_the_dealer_its_start_names_else_the_tables() -> None:
    """The replay's round rows: the relief dealer a RoundStarted names deals that round and
    the next, which names none: a RoundStarted names the dealer only on a change (round.avsc's
    ``dealer_id``: "null if unchanged since TableOpened or the previous RoundStarted")."""
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
        (rounds[2].round_id, "DLR-RELIEF"),  # naming none: unchanged
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


DELIVERIES_DEALT = """
    named AS (
        SELECT table_id, gaming_date, json_extract_string(fields_json, '$.round_id') AS round_id,
               max(json_extract_string(fields_json, '$.dealer_id')) AS dealer_id
        FROM deliveries WHERE payload_type = 'RoundStarted' GROUP BY ALL
    ),
    dealt AS (
        SELECT r.gaming_date, r.table_id, r.round_id, r.simulated,
               coalesce(last_value(n.dealer_id IGNORE NULLS) OVER (
                            PARTITION BY r.table_id, r.gaming_date
                            ORDER BY r.started_at, r.round_id
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
                        s.dealer_id) AS dealer_id
        FROM rounds r
        LEFT JOIN named n USING (table_id, gaming_date, round_id)
        LEFT JOIN table_day_summary s USING (table_id, gaming_date)
    )"""
"""Who dealt each round, read from the deliveries alone: the dealer the last RoundStarted up
to the round named (round.avsc: named only on a change), else the table-day's."""


def with_relief_dealers(events: list[TableEvent], day: date) -> list[TableEvent]:
    """``events`` with every fifth RoundStarted naming a relief dealer, in turn (the next
    rounds, naming none, are that dealer's until the next is named)."""
    started = 0
    changed = []
    for event in events:
        if event.payload_type == "RoundStarted":
            started += 1
            if started % 5 == 0:
                dealer = RELIEF[(started // 5 + day.day) % 2]
                event = replace(event, fields={**event.fields, "dealer_id": dealer})
        changed.append(event)
    return changed


def emulated_day(directory: Path, day: date) -> list[Path]:
    """Two tables for an hour on ``day``, every fault kind, relief dealers named."""
    result = simulate(2, 1, day.day, parse_faults("all"), day)
    result.events_by_table = {
        table: with_relief_dealers(events, day) for table, events in result.events_by_table.items()
    }
    return write_simulation(result, directory / str(day), day)


@pytest.fixture(scope="module")
def event_files(tmp_path_factory: pytest.TempPathFactory) -> dict[date, list[Path]]:
    directory = tmp_path_factory.mktemp("relief")
    return {day: emulated_day(directory, day) for day in DAYS}


def deliveries_answers(ledger: Ledger) -> dict[str, object]:
    """The dealer list, each dealer's days and rates, the search by dealer and each day's
    exceptions' dealers (the queue's), read from the deliveries as before rows recorded the
    dealer."""
    dealers = frame(
        ledger,
        f"WITH {DELIVERIES_DEALT} SELECT dealer_id FROM dealt WHERE NOT simulated "
        "AND dealer_id IS NOT NULL GROUP BY dealer_id ORDER BY count(*) DESC, dealer_id",
    )["dealer_id"].tolist()
    days = {
        dealer: frame(
            ledger,
            f"WITH {DELIVERIES_DEALT} SELECT gaming_date, count(DISTINCT table_id) AS tables, "
            "count(*) AS rounds FROM dealt WHERE NOT simulated AND dealer_id = ? "
            "GROUP BY ALL ORDER BY 1",
            [dealer],
        )
        for dealer in dealers
    }
    searched = {
        dealer: frame(
            ledger,
            f"WITH {DELIVERIES_DEALT} SELECT d.gaming_date, d.table_id, count(*) AS rounds "
            "FROM dealt d JOIN table_day_summary USING (table_id, gaming_date) "
            "WHERE d.dealer_id ILIKE ? GROUP BY ALL ORDER BY ALL",
            [f"%{dealer}%"],
        )
        for dealer in dealers
    }
    queue = {
        day: frame(
            ledger,
            f"WITH {DELIVERIES_DEALT} SELECT e.exception_id, "
            "coalesce(d.dealer_id, s.dealer_id) AS dealer_id FROM exceptions e "
            "LEFT JOIN dealt d USING (table_id, gaming_date, round_id) "
            "LEFT JOIN table_day_summary s USING (table_id, gaming_date) "
            "WHERE e.gaming_date = ? ORDER BY 1",
            [day],
        )
        for day in days_stored(ledger)
    }
    return {"dealers": dealers, "days": days, "search": searched, "queue": queue}


def days_stored(ledger: Ledger) -> list[date]:
    days = frame(ledger, "SELECT DISTINCT gaming_date FROM rounds ORDER BY 1")["gaming_date"]
    return [pd.Timestamp(day).date() for day in days]


def rounds_answers(ledger: Ledger) -> dict[str, object]:
    """The same questions as the history and the search answer them."""
    dealers = history.dealers(ledger)
    days = {
        dealer: history.dealer_days(ledger, dealer)[["gaming_date", "tables", "rounds"]]
        for dealer in dealers
    }
    searched = {
        dealer: history.search(ledger, history.SearchQuery(dealer=dealer)).summary[
            ["gaming_date", "table_id", "rounds"]
        ]
        for dealer in dealers
    }
    queue = {
        day: frame(ledger, *ledger_exceptions.day_rows(ledger, day))[["exception_id", "dealer_id"]]
        .sort_values("exception_id")
        .reset_index(drop=True)
        for day in days_stored(ledger)
    }
    return {"dealers": dealers, "days": days, "search": searched, "queue": queue}


def assert_same(found: dict[str, object], expected: dict[str, object]) -> None:
    assert found["dealers"] == expected["dealers"]
    assert set(RELIEF) <= set(found["dealers"])  # type: ignore[call-overload]
    for part in ("days", "search", "queue"):
        got, wanted = found[part], expected[part]
        assert isinstance(got, dict) and isinstance(wanted, dict)
        assert got.keys() == wanted.keys()
        for key, answer in wanted.items():
            pd.testing.assert_frame_equal(
                got[key].reset_index(drop=True),
                answer.reset_index(drop=True),
                check_dtype=False,
                obj=f"{part} of {key}",
            )
    queue = found["queue"]
    assert isinstance(queue, dict)
    assert any(set(RELIEF) & set(rows["dealer_id"]) for rows in queue.values())


def test_the_rounds_name_their_dealers_as_the_deliveries_did(
    event_files: dict[date, list[Path]], tmp_path: Path
) -> None:
    """Three days, two closed (read from the archive) and one open: every round's row holds
    its dealer, so no day reads deliveries for it, and the dealer list, each dealer's days
    and the search by dealer are those the RoundStarted deliveries give."""
    with Ledger(tmp_path / LEDGER) as ledger:
        for day in DAYS:
            ingest_paths(ledger, event_files[day], DEFAULT_CATALOG)
        for day in DAYS[:2]:
            close(ledger, day)
        assert round_dealers.days_without_dealers(ledger) == []
        relieved = frame(
            ledger, "SELECT count(*) AS n FROM rounds WHERE dealer_id IN (?, ?)", list(RELIEF)
        )
        assert int(relieved["n"][0]) > 0
        assert_same(rounds_answers(ledger), deliveries_answers(ledger))
        assert check(ledger).problems == []


@contextmanager
def before_rounds_named_dealers() -> Iterator[None]:
    """This version as the one before migration 25: the migrations before it, and ``rounds``
    declared without ``dealer_id`` (what a close archives is the declared columns)."""
    rounds = TABLE["rounds"]
    declared = rounds.columns
    # a frozen declaration: set back as it was however the block ends
    object.__setattr__(rounds, "columns", tuple(c for c in declared if c.name != "dealer_id"))
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("pipeline.ledger.store.MIGRATIONS", MIGRATIONS[:-1])
            yield
    finally:
        object.__setattr__(rounds, "columns", declared)


def test_days_sealed_before_rounds_named_dealers_still_verify_and_answer(
    event_files: dict[date, list[Path]], tmp_path: Path
) -> None:
    """Two days loaded and closed by the version before migration 25 (their rounds archived
    without ``dealer_id``), then the ledger migrated and a third day loaded: the old days
    verify as sealed, the history reads the deliveries of those days alone, and every answer
    is the deliveries' one, also when the columns of the days' files were not recorded. A
    dealer written into a sealed day's row since is named."""
    path = tmp_path / LEDGER
    with Ledger(path) as ledger:
        for day in DAYS[:2]:
            ingest_paths(ledger, event_files[day], DEFAULT_CATALOG)
        ledger.con.execute("ALTER TABLE rounds DROP COLUMN dealer_id")
        ledger.con.execute("DELETE FROM schema_migrations WHERE version = ?", [MIGRATIONS[-1][0]])
    with before_rounds_named_dealers(), Ledger(path) as ledger:
        for day in DAYS[:2]:
            close(ledger, day)
    with Ledger(path) as ledger:
        assert ledger.schema_version() == MIGRATIONS[-1][0]
        ingest_paths(ledger, event_files[DAYS[2]], DEFAULT_CATALOG)
        assert round_dealers.days_without_dealers(ledger) == DAYS[:2]
        assert check(ledger).problems == []
        assert_same(rounds_answers(ledger), deliveries_answers(ledger))
        close(ledger, DAYS[2])  # archived with the column, beside files without it
        assert check(ledger).problems == []
        assert_same(rounds_answers(ledger), deliveries_answers(ledger))
        # days moved out before archived_days recorded their files' columns (migration 22)
        ledger.con.execute(
            "UPDATE archived_days SET columns_json = NULL WHERE gaming_date < ?", [DAYS[2]]
        )
    with Ledger(path) as ledger:
        assert check(ledger).problems == []
        assert_same(rounds_answers(ledger), deliveries_answers(ledger))

        rows_in_the_file(ledger).con.execute(
            "UPDATE rounds SET dealer_id = 'DLR-FORGED' WHERE gaming_date = ? "
            "AND rowid = (SELECT min(rowid) FROM rounds WHERE gaming_date = ?)",
            [DAYS[0], DAYS[0]],
        )
        problems = check(ledger).problems
    assert problems == [
        f"{DAYS[0]}: rounds: 1 row(s) hold values in dealer_id, added to the table after the "
        "close (seq 1), which the seal does not cover: they were written since; set them back "
        "to null, or reopen the day and close it again to seal them"
    ]
