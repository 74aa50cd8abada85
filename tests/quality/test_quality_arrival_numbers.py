"""The deliveries frame numbers each delivery's place in arrival order and among the copies of
its event a batch of whole sources at a time (:data:`pipeline.ledger.quality_frames._arrivals_sql`,
:func:`~pipeline.ledger.quality_frames.number_copies`), never sorting the whole day: the numbers
must be exactly those of the two whole-day windows they replace, for any mix of sources,
file versions (a position delivered twice), duplicates, other days and batch sizes."""

from __future__ import annotations

from datetime import date

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.ledger.columns import ARRIVAL_ORDER_SQL
from pipeline.ledger.quality_frames import (
    _arrivals_sql,
    _source_batches,
    number_copies,
    source_range,
)

DAY = date(2026, 11, 24)

_delivery = st.tuples(
    st.sampled_from(["file-b.avro", "file-a.avro", "kafka:events:0", "kafka:events:10"]),
    st.integers(0, 6),  # position: a file's second version repeats the first one's
    st.sampled_from(["e1", "e2", "e3", "e4", "e5"]),  # event ids: duplicates across sources
    st.integers(0, 3),  # seq
    st.integers(0, 2),  # occurrence
    st.sampled_from([DAY, date(2026, 11, 23)]),
)
# the writer keeps (source, event_id, seq, occurrence) unique, which makes arrival order total
_deliveries = st.lists(_delivery, max_size=40, unique_by=lambda d: (d[0], d[2], d[3], d[4]))


@given(_deliveries, st.integers(1, 25))
@settings(max_examples=300, deadline=None)
def test_arrival_and_copy_numbers_are_the_whole_day_windows(
    rows: list[tuple[str, int, str, int, int, date]], most: int
) -> None:
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE deliveries (source VARCHAR, position BIGINT, event_id VARCHAR, "
        "seq BIGINT, occurrence BIGINT, gaming_date DATE)"
    )
    if rows:
        con.executemany("INSERT INTO deliveries VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.execute(
        "CREATE TABLE numbered (delivery BIGINT, event_id VARCHAR, quality_order BIGINT, "
        "copy_number BIGINT)"
    )
    with _source_batches(con, DAY, most) as batches:
        for sources in batches:
            con.execute(
                f"INSERT INTO numbered WITH {_arrivals_sql('deliveries')} "
                "SELECT a.delivery, d.event_id, a.arrival, a.copy_number FROM arrivals a "
                "JOIN (SELECT rowid AS delivery, event_id FROM deliveries) d USING (delivery)",
                {"day": DAY, **source_range(sources)},
            )
    number_copies(con, "numbered")
    ours = con.execute(
        "SELECT delivery, quality_order, copy_number FROM numbered ORDER BY delivery"
    ).fetchall()
    windows = con.execute(
        f"SELECT rowid, row_number() OVER (ORDER BY {ARRIVAL_ORDER_SQL}), "
        f"row_number() OVER (PARTITION BY event_id ORDER BY {ARRIVAL_ORDER_SQL}) "
        "FROM deliveries WHERE gaming_date = ? ORDER BY rowid",
        [DAY],
    ).fetchall()
    sizes = dict(
        con.execute(
            "SELECT source, count(*) FROM deliveries WHERE gaming_date = ? GROUP BY source", [DAY]
        ).fetchall()
    )

    assert ours == windows
    # each batch holds whole sources, at most `most` deliveries unless a source alone has more
    assert all(sum(sizes[s] for s in sources) <= most or len(sources) == 1 for sources in batches)
    assert sorted(s for sources in batches for s in sources) == sorted(sizes)
