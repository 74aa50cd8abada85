"""What an expectation of a quality suite finds on a whole frame
(:mod:`pipeline.ledger.quality_frames`), counted by DuckDB where the frame lives, and the
rows Great Expectations must see to report it.

:mod:`pipeline.quality.measure` translates each expectation into a :class:`FrameCheck`
(predicates over the frame's columns, counting exactly what GX counts on the DataFrame);
the scans over the frame's table are written here (:func:`found_on_frame`,
:func:`type_witnesses`), so that only :mod:`pipeline.ledger` runs SQL against the ledger's
connection.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from pipeline.ledger.quality_frames import ROW, Frames, hash_held_twice, quoted

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
class FrameCheck:
    """An expectation as SQL over one frame: predicates over its columns."""

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


def found_on_frame(
    frames: Frames, name: str, checks: Mapping[str | None, FrameCheck | None]
) -> dict[str | None, Measured]:
    """What each of ``checks`` (by GX id; ``None`` for an expectation GX decides from the
    column type alone, which is not counted) finds on the whole frame ``name``.

    The checks with the same row condition are counted together in one scan of the rows
    meeting it (a rule set's stake limits read only the stakes of the tables playing it, so
    a day's limits cost one pass over its stakes). A uniqueness check's rows are counted in
    that scan too; its duplicates are counted apart, over the rows holding a key more than
    once (:func:`_duplicated`). Only a check that fails reads its evidence rows."""
    table, order = frames.tables[name], frames.order[name]
    by_domain: dict[str, dict[str | None, FrameCheck]] = {}
    for i, sql in checks.items():
        if sql:  # a duplicate is found apart: here a uniqueness check counts rows only
            counted = replace(sql, unexpected="false") if sql.partition else sql
            by_domain.setdefault(sql.domain, {})[i] = counted
    found: dict[str | None, Measured] = {}
    for domain, together in by_domain.items():
        source = f"(SELECT *, rowid AS {ROW}, NULL::BIGINT AS partner FROM {table} WHERE {domain})"
        found.update(_measured(frames, source, order, together))
    for i, sql in checks.items():
        rows = found.get(i)
        if sql and sql.partition and rows and (rows.nonnull_count or 0) > 1:
            duplicated = _duplicated(frames, table, order, i, sql)
            found[i] = replace(
                rows, unexpected_count=duplicated.unexpected_count, evidence=duplicated.evidence
            )
    return found


DUPLICATES = "quality_duplicates"
"""The temporary table of one uniqueness expectation's duplicated rows, while it is counted."""


def _duplicated(frames: Frames, table: str, order: str, i: str | None, sql: FrameCheck) -> Measured:
    """What uniqueness expectation ``sql`` finds among the rows of ``table`` in its domain
    whose ``sql.partition`` columns another row of the domain holds too. Each is kept with
    ``copies`` (how many rows hold them) and ``partner`` (one other of them in frame
    ``order``: the second for the first, else the first, so a duplicate shown as evidence is
    shown with its copy), in a table both the count and the evidence rows read.

    Only the rows whose key's hash is held twice (:func:`~pipeline.ledger.quality_frames.
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
    frames: Frames, source: str, order: str, sqls: Mapping[str | None, FrameCheck]
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


def _failing_rows(
    frames: Frames, source: str, order: str, sql: FrameCheck
) -> list[tuple[Any, ...]]:
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
