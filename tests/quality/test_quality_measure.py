"""The gate counts expectations in DuckDB and shows Great Expectations only the evidence rows
(:mod:`pipeline.quality.measure`). Whatever the rows hold, the result must be the one GX gives
on the whole frame: the same success, counts, percentages, sample values and offending rows.
The frame here is built to break a translation: nulls everywhere, more failures than the
sample holds, duplicates far apart, strings Python and DuckDB read differently."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pytest
from great_expectations.expectations.core.expect_column_max_to_be_between import (
    ExpectColumnMaxToBeBetween,
)
from great_expectations.expectations.core.expect_column_pair_values_a_to_be_greater_than_b import (
    ExpectColumnPairValuesAToBeGreaterThanB,
)
from great_expectations.expectations.core.expect_column_values_to_be_between import (
    ExpectColumnValuesToBeBetween,
)
from great_expectations.expectations.core.expect_column_values_to_be_in_set import (
    ExpectColumnValuesToBeInSet,
)
from great_expectations.expectations.core.expect_column_values_to_be_of_type import (
    ExpectColumnValuesToBeOfType,
)
from great_expectations.expectations.core.expect_column_values_to_be_unique import (
    ExpectColumnValuesToBeUnique,
)
from great_expectations.expectations.core.expect_column_values_to_match_regex import (
    ExpectColumnValuesToMatchRegex,
)
from great_expectations.expectations.core.expect_column_values_to_not_be_null import (
    ExpectColumnValuesToNotBeNull,
)
from great_expectations.expectations.core.expect_compound_columns_to_be_unique import (
    ExpectCompoundColumnsToBeUnique,
)
from great_expectations.expectations.expectation import Expectation
from great_expectations.expectations.row_conditions import Column

from pipeline.config.catalog import load_catalog
from pipeline.ledger.quality_frames import Frames
from pipeline.ledger.quality_measures import SAMPLE, type_witnesses
from pipeline.ledger.store import Ledger
from pipeline.quality import run
from pipeline.quality.measure import measure, settle
from pipeline.quality.run import gx_run, gx_validation, validate_day
from pipeline.quality.suites import (
    UUID_PATTERN,
    ExpectColumnValuesToBeLedgerJson,
    block,
    string_dtype,
)

DAY = date(2026, 11, 24)
META = block("test")
INDEX = ["k", "kind"]


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_JSON = [
    '{"a": 1}',
    "[1, 2]",
    "7",
    '{"a": NaN}',
    "-Infinity",
    '{"a": nan}',
    "inf",
    "[1,]",
    '{"a": 1 ,}',
    '"\\ud800"',
    '{"s": "[x,]"}',
    '{"s": ",inf"}',
    "[" * 1500 + "]" * 1500,
    "{",
    "",
    " ",
    None,
]
"""Values DuckDB's JSON parser, Python's and strict JSON disagree on; strings that only look
like lenient JSON; and plain ones."""


def _rows(n: int, seed: int) -> Iterator[tuple[Any, ...]]:
    rng = random.Random(seed)
    ids = [_uuid(rng) for _ in range(n)]
    for k in rng.sample(range(n), n):  # stored out of frame order
        pick = rng.random()
        event_id: str | None = ids[k]
        if pick < 0.1:
            event_id = ids[rng.randrange(n)]  # a duplicate, anywhere in the frame
        elif pick < 0.13:
            event_id = ids[k] + "\n"  # Python's $ matches before it; RE2's does not
        elif pick < 0.16:
            event_id = ids[k].upper()
        elif pick < 0.19:
            event_id = None
        yield (
            k,
            event_id,
            rng.choice(["A", "B", "B", None]),
            rng.choice(["red", "black", "black", "green", "", "RED", None]),
            rng.choice([rng.randrange(-5, 120), None]),
            rng.choice([rng.uniform(-3.0, 3.0), -1.5, None]),
            rng.choice([rng.randrange(0, 10), None]),
            rng.choice([rng.randrange(0, 10), None]),
            rng.choice(_JSON),
            rng.choice([True, True, False, None]),
            rng.choice(["s1", "s2", None]),
            rng.choice([1, 2, None]),
        )


def _frames(con: duckdb.DuckDBPyConnection, n: int, seed: int) -> Frames:
    con.execute(
        "CREATE OR REPLACE TABLE src (k BIGINT, id VARCHAR, kind VARCHAR, v VARCHAR, "
        "n BIGINT, x DOUBLE, a BIGINT, b BIGINT, j VARCHAR, flag BOOLEAN, c1 VARCHAR, c2 BIGINT)"
    )
    rows = list(_rows(n, seed))
    if rows:
        con.executemany("INSERT INTO src VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    frames = Frames(con, "test")
    frames.add("f", "SELECT * FROM src", "k", INDEX)
    return frames


def _suite() -> list[Expectation]:
    text = string_dtype()
    colours = ["red", "black"]
    return [
        ExpectColumnValuesToBeOfType(column="k", type_="int64", meta=META),
        ExpectColumnValuesToBeOfType(column="n", type_="int64", meta=META),
        ExpectColumnValuesToBeOfType(column="id", type_=text, meta=META),
        ExpectColumnValuesToNotBeNull(column="id", meta=META),
        ExpectColumnValuesToNotBeNull(column="k", meta=META),
        ExpectColumnValuesToMatchRegex(column="id", regex=UUID_PATTERN, meta=META),
        ExpectColumnValuesToBeUnique(column="id", meta=META),
        ExpectColumnValuesToBeInSet(column="v", value_set=colours, meta=META),
        ExpectColumnValuesToBeInSet(
            column="v", value_set=colours, row_condition=Column("kind") == "A", meta=META
        ),
        ExpectColumnValuesToBeInSet(
            column="v", value_set=["it's"], row_condition=Column("kind").is_in(["A"]), meta=META
        ),
        ExpectColumnValuesToBeInSet(column="flag", value_set=[True], meta=META),
        ExpectColumnValuesToBeBetween(column="n", min_value=0, max_value=100, meta=META),
        ExpectColumnValuesToBeBetween(
            column="n", min_value=0, row_condition=Column("kind") == "B", meta=META
        ),
        ExpectColumnValuesToBeBetween(column="x", min_value=-1.5, meta=META),
        ExpectColumnValuesToBeBetween(
            column="x", min_value=-1.5, max_value=2.0, strict_min=True, meta=META
        ),
        ExpectColumnValuesToBeLedgerJson(column="j", meta=META),
        ExpectCompoundColumnsToBeUnique(column_list=["c1", "c2"], meta=META),
        ExpectColumnPairValuesAToBeGreaterThanB(
            column_A="a", column_B="b", or_equal=True, meta=META
        ),
        ExpectColumnPairValuesAToBeGreaterThanB(column_A="a", column_B="b", meta=META),
    ]


def _comparable(results: Any) -> list[tuple[str, bool, bool, dict[str, Any]]]:
    return [
        (r.expectation_config.type, r.success, _raised(r), r.to_json_dict()["result"])
        for r in results.results
    ]


def _raised(r: Any) -> bool:
    """Whether GX could not evaluate the expectation (it may store the error per metric)."""
    return "'raised_exception': True" in str(r.exception_info)


def _whole_and_evidence(
    frames: Frames, suite: Callable[[], list[Expectation]]
) -> tuple[Any, Any, int]:
    """GX's results of the expectations ``suite`` makes on the whole frame ``f``; on its
    evidence rows with the counts settled; and how many evidence rows GX saw."""
    table = frames.tables["f"]
    whole = frames.con.execute(f"SELECT * FROM {table} ORDER BY {frames.order['f']}").df()
    expected = gx_run(gx_validation("whole", "f", suite()), whole, INDEX)
    validation = gx_validation("evidence", "f", suite())
    measured = measure(frames, "f", validation.suite.expectations)
    evidence = frames.rows_at(
        "f",
        [*type_witnesses(frames, "f"), *(p for m in measured.values() if m for p in m.evidence)],
    )
    got = gx_run(validation, evidence, INDEX)
    for r in got.results:
        settle(r.result, measured[r.expectation_config.id])
    return expected, got, len(evidence)


@pytest.mark.parametrize(("rows", "seed"), [(0, 1), (1, 1), (30, 2), (600, 3)])
def test_counts_in_duckdb_give_the_result_gx_gives_on_the_whole_frame(rows: int, seed: int) -> None:
    frames = _frames(duckdb.connect(), rows, seed)
    expected, got, evidence = _whole_and_evidence(frames, _suite)

    assert _comparable(got) == _comparable(expected)
    if rows >= 600:  # the frame must really exercise what it claims to
        failing = {t for t, ok, _, _ in _comparable(expected) if not ok}
        assert len(failing) >= 8, failing
        assert any(raised for _, _, raised, _ in _comparable(expected))
        assert evidence < rows / 2
        assert any((r.result.get("unexpected_count") or 0) > SAMPLE for r in expected.results)


def test_a_row_that_makes_gx_raise_is_evidence_even_after_the_sample() -> None:
    """Integers with a null are pandas' nullable Int64, whose NA GX cannot compare: GX
    raises on the whole frame, so it must raise on the evidence too, although the row comes
    after more than SAMPLE failures and the columns' first nulls are on another row."""
    con = duckdb.connect()
    con.execute("CREATE TABLE src (k BIGINT, kind VARCHAR, a BIGINT, b BIGINT)")
    rows = [(0, "A", None, None)] + [(k, "A", 1, 2) for k in range(1, 40)] + [(40, "A", None, 1)]
    con.executemany("INSERT INTO src VALUES (?, ?, ?, ?)", rows)
    frames = Frames(con, "test")
    frames.add("f", "SELECT * FROM src", "k", INDEX)
    expected, got, _ = _whole_and_evidence(
        frames,
        lambda: [ExpectColumnPairValuesAToBeGreaterThanB(column_A="a", column_B="b", meta=META)],
    )

    assert [_raised(r) for r in expected.results] == [True]
    assert _comparable(got) == _comparable(expected)


def test_an_expectation_without_a_translation_is_refused() -> None:
    con = duckdb.connect()
    frames = _frames(con, 5, 1)
    with pytest.raises(TypeError, match="expect_column_max_to_be_between has no SQL"):
        measure(frames, "f", [ExpectColumnMaxToBeBetween(column="n", max_value=3, meta=META)])
    with pytest.raises(TypeError, match=r"row condition .* has no SQL translation"):
        measure(
            frames,
            "f",
            [ExpectColumnValuesToNotBeNull(column="n", row_condition=Column("n") > 3, meta=META)],
        )


def test_a_column_name_is_never_spliced_into_sql() -> None:
    con = duckdb.connect()
    frames = _frames(con, 5, 1)
    hostile = ExpectColumnValuesToNotBeNull(column='n" IS NULL OR true OR "n', meta=META)
    with pytest.raises(ValueError, match="not a plain lowercase SQL name"):
        measure(frames, "f", [hostile])


@pytest.mark.parametrize("order", ["k DESC", "k NULLS FIRST", "abs(n), k", "k; DROP TABLE src"])
def test_a_frame_is_ordered_by_plain_ascending_columns_only(order: str) -> None:
    """rows_at counts the rows before a row as bare columns sort (ascending, nulls last): a
    frame ordered otherwise would quote other rows than GX sees first, so it is refused."""
    con = duckdb.connect()
    con.execute("CREATE TABLE src (k BIGINT, n BIGINT)")
    with pytest.raises(ValueError, match="must list plain columns"):
        Frames(con, "test").add("f", "SELECT * FROM src", order, ["k"])
    # refused before any SQL ran: `src` still exists (the last order would have dropped it)
    assert con.execute("SELECT count(*) FROM src").fetchall() == [(0,)]


def test_a_day_validates_the_same_in_little_memory_and_the_limit_is_restored(
    faulty_ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frames live in DuckDB within FRAMES_MEMORY and spill beyond it: squeezed to a few
    MB, the faulty day gives the same outcomes; the connection has its usual limit after."""
    catalog = load_catalog()
    with Ledger(faulty_ledger, read_only=True) as ledger:
        ((usual,),) = ledger.con.execute("SELECT current_setting('memory_limit')").fetchall()
        roomy = validate_day(ledger, DAY, catalog)
        monkeypatch.setattr(run, "FRAMES_MEMORY", "24MB")
        squeezed = validate_day(ledger, DAY, catalog)
        ((limit,),) = ledger.con.execute("SELECT current_setting('memory_limit')").fetchall()
        leftovers = ledger.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE temporary UNION ALL "
            "SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal"
        ).fetchall()

    assert roomy.failed > 0, "the faulty day must fail something to compare"
    assert [asdict(o) for s in squeezed.suites for o in s.expectations] == [
        asdict(o) for s in roomy.suites for o in s.expectations
    ]
    assert limit == usual
    assert leftovers == []


def test_a_frame_row_is_indexed_by_its_place_in_frame_order(tmp_path: Path) -> None:
    """A frame's rows are stored unsorted: a row shown to GX is indexed by its place in the
    frame's order (nulls last, as DuckDB's ORDER BY), even when the rows were stored
    shuffled, span many row groups, are written on several threads and spill beyond a
    squeezed memory limit."""
    con = duckdb.connect(tmp_path / "ledger.duckdb")  # a file: its temporary files spill
    con.execute(
        "CREATE TABLE src AS SELECT i AS k, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 100 END "
        "AS g, repeat(md5(i::VARCHAR), 4) AS payload FROM range(400000) t(i) ORDER BY hash(i)"
    )
    con.execute("SET threads = 2")
    con.execute("SET memory_limit = '32MB'")
    frames = Frames(con, "test")
    frames.add("f", "SELECT * FROM src", "g, k", INDEX)
    table = frames.tables["f"]
    place = dict(con.execute("SELECT k, row_number() OVER (ORDER BY g, k) - 1 FROM src").fetchall())
    picked = con.execute(
        f"SELECT rowid, k FROM {table} WHERE k IN (0, 1, 7, 99, 123456, 399999)"
    ).fetchall()
    shown = frames.rows_at("f", [row for row, _ in picked])

    ((stored_shuffled,),) = con.execute(
        f"SELECT count(*) FROM (SELECT k, rowid AS r FROM {table}) WHERE k <> r"
    ).fetchall()
    assert stored_shuffled > 390_000
    assert len(shown) == 6
    assert list(shown.index) == sorted(place[k] for _, k in picked)
    assert [place[k] for k in shown["k"]] == list(shown.index)
    assert place[0] > place[99]  # the null group comes last
