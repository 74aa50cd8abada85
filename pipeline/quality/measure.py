"""What each expectation of a suite finds on a whole frame, counted by DuckDB where the frame
lives, and the few rows Great Expectations must see to report it.

Great Expectations on pandas needs the whole day in memory (about 1.6 kB per event) and
spends seconds per million rows in Python. Here each expectation of a frame is translated to
SQL predicates (a :class:`~pipeline.ledger.quality_measures.FrameCheck`) that the ledger
counts over the frame's DuckDB table (:mod:`pipeline.ledger.quality_measures`), exactly what
GX counts on the DataFrame:

- ``element_count``: the rows of the frame (those meeting the expectation's row condition);
- ``nonnull_count``: the rows GX does not set aside as missing (the column is not null; for a
  column pair, not both null; for compound columns, not all null); ``None`` for
  ``expect_column_values_to_not_be_null``, which counts nulls as its unexpected values;
- ``unexpected_count``, and the first
  :data:`~pipeline.ledger.quality_measures.SAMPLE` unexpected rows in frame order.

The evidence rows are those first unexpected rows (and, for a uniqueness expectation, one
other row of each duplicate they belong to, so the duplicate is visible among the evidence).
GX validates the frame's expectations on the evidence rows, which yields its own result,
sample values and identifying columns; :func:`settle` then puts the whole frame's counts in
it. A result that depends on the column type (``expect_column_values_to_be_of_type``) is
GX's alone: the evidence rows come from the same table, so they have the same types, and the
first null and first value of every column are among them
(:func:`~pipeline.ledger.quality_measures.type_witnesses`).
"""

from __future__ import annotations

from collections.abc import Sequence
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

from pipeline.ledger.quality_frames import Frames, quoted
from pipeline.ledger.quality_json import is_ledger_json, suspect_sql
from pipeline.ledger.quality_measures import FrameCheck, Measured, found_on_frame
from pipeline.quality.suites import ExpectColumnValuesToBeLedgerJson


def measure(
    frames: Frames, name: str, expectations: Sequence[Expectation]
) -> dict[str | None, Measured | None]:
    """What each of ``expectations`` finds on the whole frame ``name``, by GX id; ``None``
    for one GX decides from the column type alone. Each is translated to a
    :class:`~pipeline.ledger.quality_measures.FrameCheck` and counted by the ledger
    (:func:`~pipeline.ledger.quality_measures.found_on_frame`)."""
    found = found_on_frame(frames, name, {e.id: _as_sql(e) for e in expectations})
    return {e.id: found.get(e.id) for e in expectations}


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


def _as_sql(e: Expectation) -> FrameCheck | None:
    domain = _condition(getattr(e, "row_condition", None))
    if isinstance(e, ExpectColumnValuesToBeOfType):
        return None
    if isinstance(e, ExpectCompoundColumnsToBeUnique):
        columns = ", ".join(quoted(c) for c in e.column_list)
        present = " OR ".join(f"{quoted(c)} IS NOT NULL" for c in e.column_list)
        return FrameCheck(domain, f"({present})", f"({present}) AND copies > 1", columns)
    if isinstance(e, ExpectColumnPairValuesAToBeGreaterThanB):
        a, b = quoted(e.column_A), quoted(e.column_B)
        compare = ">=" if e.or_equal else ">"
        present = f"NOT ({a} IS NULL AND {b} IS NULL)"
        # a float NaN compares false in pandas: the row is unexpected; a nullable integer
        # NA makes GX raise, which the witness row reproduces on the evidence
        return FrameCheck(
            domain,
            present,
            f"NOT coalesce({a} {compare} {b}, false)",
            witness=f"({a} IS NULL) <> ({b} IS NULL)",
        )
    if isinstance(e, ExpectColumnValuesToNotBeNull):
        return FrameCheck(domain, None, f"{quoted(e.column)} IS NULL")
    if isinstance(e, ExpectColumnValuesToBeUnique):
        column = quoted(e.column)
        return FrameCheck(
            domain, f"{column} IS NOT NULL", f"{column} IS NOT NULL AND copies > 1", column
        )
    if isinstance(e, ExpectColumnValuesToBeInSet):
        column = quoted(e.column)
        values = ", ".join(_literal(v) for v in e.value_set or ())
        return FrameCheck(domain, f"{column} IS NOT NULL", f"{column} NOT IN ({values})")
    if isinstance(e, ExpectColumnValuesToBeBetween):
        column = quoted(e.column)
        bounds = []
        if e.min_value is not None:
            bounds.append(f"{column} {'<=' if e.strict_min else '<'} {_literal(e.min_value)}")
        if e.max_value is not None:
            bounds.append(f"{column} {'>=' if e.strict_max else '>'} {_literal(e.max_value)}")
        return FrameCheck(domain, f"{column} IS NOT NULL", f"({' OR '.join(bounds)})")
    if isinstance(e, ExpectColumnValuesToMatchRegex):
        column = quoted(e.column)
        pattern = _literal(_search_pattern(str(e.regex)))
        return FrameCheck(
            domain, f"{column} IS NOT NULL", f"NOT regexp_matches({column}, {pattern})"
        )
    if isinstance(e, ExpectColumnValuesToBeLedgerJson):
        column = quoted(e.column)
        return FrameCheck(
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
