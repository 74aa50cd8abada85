"""What each expectation of a suite finds on a whole frame, counted by DuckDB where the frame
lives, and the few rows Great Expectations must see to report it.

Great Expectations on pandas needs the whole day in memory (about 1.6 kB per event) and
spends seconds per million rows in Python. Here each expectation of a frame is translated to
SQL that counts, over the frame's DuckDB table, exactly what GX counts on the DataFrame:

- ``element_count``: the rows of the frame (those meeting the expectation's row condition);
- ``nonnull_count``: the rows GX does not set aside as missing (the column is not null; for a
  column pair, not both null; for compound columns, not all null); ``None`` for
  ``expect_column_values_to_not_be_null``, which counts nulls as its unexpected values;
- ``unexpected_count``, and the first :data:`SAMPLE` unexpected rows in frame order.

The evidence rows are those first unexpected rows (and, for a uniqueness expectation, one
other row of each duplicate they belong to, so the duplicate is visible among the evidence).
GX validates the frame's expectations on the evidence rows, which yields its own result,
sample values and identifying columns; :func:`settle` then puts the whole frame's counts in
it. A result that depends on the column type (``expect_column_values_to_be_of_type``) is
GX's alone: the evidence rows come from the same table, so they have the same types, and the
first null and first value of every column are among them (:func:`type_witnesses`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

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
from great_expectations.expectations.row_conditions import ComparisonCondition, Operator

from pipeline.quality.frames import ROW, Frames, hash_held_twice, quoted
from pipeline.quality.ledger_json import is_ledger_json, suspect_sql
from pipeline.quality.suites import ExpectColumnValuesToBeLedgerJson

SAMPLE = 20
"""How many offending values and rows a failing expectation reports."""


@dataclass(frozen=True)
class Measured:
    element_count: int
    nonnull_count: int | None
    unexpected_count: int
    evidence: tuple[int, ...]
    """Frame rows (:data:`ROW`) GX must see: the first unexpected rows (and their duplicates)."""


@dataclass(frozen=True)
class _Sql:
    """An expectation as SQL over one frame."""

    domain: str
    """The row condition (``true`` without one)."""
    nonnull: str | None
    """The rows GX does not set aside as missing; ``None``: it sets none aside."""
    unexpected: str
    """Which of those rows fail."""
    partition: str | None = None
    """Columns whose equal values make a row a duplicate (uniqueness expectations)."""
    witness: str | None = None
    """Rows on which GX's pandas code behaves differently (it raises): the first of them is
    evidence, so GX fails on the evidence exactly when it fails on the whole frame."""
    confirm: tuple[str, Callable[[str], bool]] | None = None
    """A column and GX's own Python check of it, for a predicate DuckDB only approximates
    (JSON): DuckDB's failures are candidates, and the check decides."""


def measure(
    frames: Frames, name: str, expectations: Sequence[Expectation]
) -> dict[str | None, Measured | None]:
    """What each of ``expectations`` finds on the whole frame ``name``, by GX id; ``None``
    for one GX decides from the column type alone.

    The expectations with the same row condition are counted together in one scan of the
    rows meeting it (a rule set's stake limits read only the stakes of the tables playing
    it, so a day's limits cost one pass over its stakes). A uniqueness expectation's rows are
    counted in that scan too; its duplicates are counted apart, over the rows holding a key
    more than once (:func:`_duplicated`). Only an expectation that fails reads its evidence
    rows."""
    table, order = frames.tables[name], frames.order[name]
    translated = {e.id: _as_sql(e) for e in expectations}
    by_domain: dict[str, dict[str | None, _Sql]] = {}
    for i, sql in translated.items():
        if sql:  # a duplicate is found apart: here a uniqueness expectation counts rows only
            counted = replace(sql, unexpected="false") if sql.partition else sql
            by_domain.setdefault(sql.domain, {})[i] = counted
    found: dict[str | None, Measured | None] = {}
    for domain, together in by_domain.items():
        source = f"(SELECT *, rowid AS {ROW}, NULL::BIGINT AS partner FROM {table} WHERE {domain})"
        found.update(_measured(frames, source, order, together))
    for i, sql in translated.items():
        rows = found.get(i)
        if sql and sql.partition and rows and (rows.nonnull_count or 0) > 1:
            duplicated = _duplicated(frames, table, order, i, sql)
            found[i] = replace(
                rows, unexpected_count=duplicated.unexpected_count, evidence=duplicated.evidence
            )
    return {e.id: found.get(e.id) for e in expectations}


DUPLICATES = "quality_duplicates"
"""The temporary table of one uniqueness expectation's duplicated rows, while it is counted."""


def _duplicated(frames: Frames, table: str, order: str, i: str | None, sql: _Sql) -> Measured:
    """What uniqueness expectation ``sql`` finds among the rows of ``table`` in its domain
    whose ``sql.partition`` columns another row of the domain holds too. Each is kept with
    ``copies`` (how many rows hold them) and ``partner`` (one other of them in frame
    ``order``: the second for the first, else the first, so a duplicate shown as evidence is
    shown with its copy), in a table both the count and the evidence rows read.

    Only the rows whose key's hash is held twice (:func:`~pipeline.quality.frames.
    hash_held_twice`) go through the windows (a hash two keys share gives each of them one
    copy there): the frame's other rows are unique. Joining every row to its copy count took
    1.2 s for the event ids of a 96-table day (4.0M deliveries), and as much again to find
    the first duplicates."""
    by = sql.partition
    assert by is not None, "a uniqueness expectation partitions its rows"
    frames.con.execute(
        f"CREATE OR REPLACE TEMP TABLE {DUPLICATES} AS SELECT * FROM ("
        f"SELECT f.rowid AS copy_row, count(*) OVER (PARTITION BY {by}) AS copies, "
        f"CASE WHEN row_number() OVER copy = 1 THEN lead(f.rowid) OVER copy "
        f"ELSE first_value(f.rowid) OVER copy END AS partner "
        f"FROM {table} f WHERE ({sql.domain}) AND {hash_held_twice(by, table, sql.domain)} "
        f"WINDOW copy AS (PARTITION BY {by} ORDER BY {order})"
        f") WHERE copies > 1"
    ).fetchall()
    try:
        source = (
            f"(SELECT f.*, f.rowid AS {ROW}, c.copies, c.partner "
            f"FROM {table} f JOIN {DUPLICATES} c ON f.rowid = c.copy_row)"
        )
        return _measured(frames, source, order, {i: sql})[i]
    finally:
        frames.con.execute(f"DROP TABLE {DUPLICATES}")


def _measured(
    frames: Frames, source: str, order: str, sqls: Mapping[str | None, _Sql]
) -> dict[str | None, Measured]:
    """Count ``sqls`` over ``source`` (a frame's rows with their :data:`ROW` and a
    ``partner`` column) in one scan, then find the evidence rows of those that fail (the
    first in frame ``order``)."""
    columns = []
    for sql in sqls.values():
        nonnull = f"({sql.domain}) AND ({sql.nonnull or 'true'})"
        witness = f"({sql.domain}) AND ({sql.witness})" if sql.witness else "false"
        columns += [
            f"count(*) FILTER (WHERE {sql.domain})",
            f"count(*) FILTER (WHERE {nonnull})",
            f"count(*) FILTER (WHERE {nonnull} AND ({sql.unexpected}))",
            f"count(*) FILTER (WHERE {witness})",
        ]
    ((*counted,),) = frames.con.execute(f"SELECT {', '.join(columns)} FROM {source}").fetchall()
    found = {}
    for n, (i, sql) in enumerate(sqls.items()):
        element_count, nonnull_count, unexpected_count, witnesses = counted[4 * n : 4 * n + 4]
        evidence: list[int] = []
        if unexpected_count:
            rows = _failing_rows(frames, source, order, sql)
            if sql.confirm:
                unexpected_count = len(rows)
            for row in rows[:SAMPLE]:
                evidence.extend(p for p in row[:2] if p is not None)
        if witnesses:
            ((first_witness,),) = frames.con.execute(
                f"SELECT {ROW} FROM {source} WHERE ({sql.domain}) AND ({sql.witness}) "
                f"ORDER BY {order} LIMIT 1"
            ).fetchall()
            evidence.append(int(first_witness))
        found[i] = Measured(
            element_count,
            nonnull_count if sql.nonnull is not None else None,
            unexpected_count,
            tuple(evidence),
        )
    return found


def _failing_rows(frames: Frames, source: str, order: str, sql: _Sql) -> list[tuple[Any, ...]]:
    """The first :data:`SAMPLE` rows of ``source`` that fail ``sql`` (row, partner), in frame
    ``order`` (a top-N over the failing rows); for a predicate DuckDB only approximates,
    every row GX's own check fails among DuckDB's candidates."""
    fails = f"({sql.domain}) AND ({sql.nonnull or 'true'}) AND ({sql.unexpected})"
    checked = f", {sql.confirm[0]}" if sql.confirm else ""
    rows = frames.con.execute(
        f"SELECT {ROW}, partner{checked} FROM {source} WHERE {fails} ORDER BY {order}"
        + ("" if sql.confirm else f" LIMIT {SAMPLE}")
    ).fetchall()
    if sql.confirm:  # DuckDB named the candidates; GX's own check decides
        rows = [r for r in rows if not sql.confirm[1](r[2])]
    return rows


def type_witnesses(frames: Frames, name: str) -> list[int]:
    """For every column, the frame row (:data:`ROW`) of its first null and of its first
    value in frame order: the pandas type of a column read from DuckDB depends on both
    (integers with a null become floats; text without any value stays ``object``), so the
    evidence rows must carry them for GX to see the types the whole frame has.

    The frame's first row is one of the two for every column; the other is looked for (a
    top-1 over the rows that have it) only in the columns that have both nulls and values."""
    table, order = frames.tables[name], frames.order[name]
    columns = frames.columns(name)
    if not columns:
        return []
    first = frames.con.execute(
        f"SELECT rowid, {', '.join(f'{quoted(c)} IS NULL' for c in columns)} FROM {table} "
        f"ORDER BY {order} LIMIT 1"
    ).fetchall()
    if not first:
        return []
    ((row, *nulls),) = first
    (values,) = frames.con.execute(
        f"SELECT {', '.join(f'count({quoted(c)})' for c in columns)}, count(*) FROM {table}"
    ).fetchall()
    *present, rows = values
    found = [int(row)]
    for column, null, count in zip(columns, nulls, present, strict=True):
        if 0 < count < rows:
            other = f"{quoted(column)} IS {'NOT' if null else ''} NULL"
            ((witness,),) = frames.con.execute(
                f"SELECT rowid FROM {table} WHERE {other} ORDER BY {order} LIMIT 1"
            ).fetchall()
            found.append(int(witness))
    return found


def settle(result: dict[str, Any], measured: Measured | None) -> None:
    """Put the whole frame's counts into GX's ``result`` of the evidence rows, with the
    percentages computed as GX computes them (``_format_map_output``). A result without
    counts (GX decided from the column type, or raised) is GX's as it is."""
    if measured is None or "element_count" not in result:
        return
    total, nonnull, unexpected = (
        measured.element_count,
        measured.nonnull_count,
        measured.unexpected_count,
    )
    result["element_count"] = total
    result["unexpected_count"] = unexpected
    of_total = unexpected / total * 100 if total else None
    if nonnull is None:
        result["unexpected_percent"] = of_total
        return
    of_nonnull = unexpected / nonnull * 100 if total and nonnull else None
    result["missing_count"] = total - nonnull
    result["missing_percent"] = (total - nonnull) / total * 100 if total else None
    result["unexpected_percent_total"] = of_total
    result["unexpected_percent_nonmissing"] = of_nonnull
    result["unexpected_percent"] = of_nonnull


def _as_sql(e: Expectation) -> _Sql | None:
    domain = _condition(getattr(e, "row_condition", None))
    if isinstance(e, ExpectColumnValuesToBeOfType):
        return None
    if isinstance(e, ExpectCompoundColumnsToBeUnique):
        columns = ", ".join(quoted(c) for c in e.column_list)
        present = " OR ".join(f"{quoted(c)} IS NOT NULL" for c in e.column_list)
        return _Sql(domain, f"({present})", f"({present}) AND copies > 1", columns)
    if isinstance(e, ExpectColumnPairValuesAToBeGreaterThanB):
        a, b = quoted(e.column_A), quoted(e.column_B)
        compare = ">=" if e.or_equal else ">"
        present = f"NOT ({a} IS NULL AND {b} IS NULL)"
        # a float NaN compares false in pandas: the row is unexpected; a nullable integer
        # NA makes GX raise, which the witness row reproduces on the evidence
        return _Sql(
            domain,
            present,
            f"NOT coalesce({a} {compare} {b}, false)",
            witness=f"({a} IS NULL) <> ({b} IS NULL)",
        )
    if isinstance(e, ExpectColumnValuesToNotBeNull):
        return _Sql(domain, None, f"{quoted(e.column)} IS NULL")
    if isinstance(e, ExpectColumnValuesToBeUnique):
        column = quoted(e.column)
        return _Sql(domain, f"{column} IS NOT NULL", f"{column} IS NOT NULL AND copies > 1", column)
    if isinstance(e, ExpectColumnValuesToBeInSet):
        column = quoted(e.column)
        values = ", ".join(_literal(v) for v in e.value_set or ())
        return _Sql(domain, f"{column} IS NOT NULL", f"{column} NOT IN ({values})")
    if isinstance(e, ExpectColumnValuesToBeBetween):
        column = quoted(e.column)
        bounds = []
        if e.min_value is not None:
            bounds.append(f"{column} {'<=' if e.strict_min else '<'} {_literal(e.min_value)}")
        if e.max_value is not None:
            bounds.append(f"{column} {'>=' if e.strict_max else '>'} {_literal(e.max_value)}")
        return _Sql(domain, f"{column} IS NOT NULL", f"({' OR '.join(bounds)})")
    if isinstance(e, ExpectColumnValuesToMatchRegex):
        column = quoted(e.column)
        pattern = _literal(_search_pattern(str(e.regex)))
        return _Sql(domain, f"{column} IS NOT NULL", f"NOT regexp_matches({column}, {pattern})")
    if isinstance(e, ExpectColumnValuesToBeLedgerJson):
        column = quoted(e.column)
        return _Sql(
            domain, f"{column} IS NOT NULL", suspect_sql(column), confirm=(column, is_ledger_json)
        )
    raise TypeError(
        f"{e.expectation_type} has no SQL translation in pipeline.quality.measure; add one "
        "(with a test that compares it with GX on a whole DataFrame) before using it in a suite"
    )


def _condition(condition: Any) -> str:
    if condition is None:
        return "true"
    if isinstance(condition, ComparisonCondition):
        column = quoted(condition.column.name)
        operator = Operator(condition.operator)  # GX may keep the enum's value
        if operator is Operator.EQUAL:
            return f"{column} = {_literal(condition.parameter)}"
        if operator is Operator.IN:
            return f"{column} IN ({', '.join(_literal(v) for v in condition.parameter)})"
    raise TypeError(
        f"row condition {condition!r} has no SQL translation in pipeline.quality.measure; "
        "only `Column(name) == value` and `Column(name).is_in(values)` are translated"
    )


def _search_pattern(regex: str) -> str:
    """``regex`` as RE2 finds it where pandas' ``str.contains`` (Python ``re.search``)
    does: Python's final ``$`` also matches before a trailing newline."""
    if regex.endswith("$") and not regex.endswith("\\$"):
        return regex[:-1] + r"\n?$"
    return regex


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"
