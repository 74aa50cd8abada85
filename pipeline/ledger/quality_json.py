"""What the quality gate counts as a stored payload (``deliveries.fields_json``) it can read:
strict JSON (RFC 8259, as the ingest writes it with orjson) that DuckDB's parser also reads.

One definition serves both sides of the gate, so they cannot disagree: the expectation
"payload fields are stored as JSON" fails exactly the rows that are not such JSON, and the
frames that read fields out of a payload treat those rows as having none (instead of DuckDB
stopping the whole validation with ``Malformed JSON`` on one hand-edited row). Python's
``json.loads`` alone is not enough: it takes ``NaN``/``Infinity``, which DuckDB reads but
cannot cast to cents, and a lone surrogate escape, which DuckDB refuses; DuckDB alone is not
enough either: it takes ``nan``, ``inf`` and trailing commas. The fields the frames read as
integers (:data:`INTEGER_SUFFIXES`) must hold integers too: ``"abc"``, ``true``, ``1.5`` or
``1e400`` is valid JSON but no amount or serial, and the Avro decoder never writes it. Nor
does it write a key twice in the payload's object, whose value DuckDB reads from the first
and Python from the last: ``{"amount_cents": "abc", "amount_cents": 1}`` would pass Python's
check while every frame read no amount.

Deciding a row needs Python, so SQL first names the candidates (:func:`suspect_sql`, a
superset of the rows that fail) and :func:`is_ledger_json` decides each candidate. Both
live with the ledger, whose frames (:mod:`pipeline.ledger.quality_frames`) read payloads by
them; the suites' expectation checks by them too (:mod:`pipeline.quality.suites`).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import duckdb

_LENIENT = r"(^|[\[{,:])\s*[-+]?(?i:nan|inf)|,\s*[\]}]"
"""What DuckDB's parser takes and strict JSON refuses: ``nan``/``inf`` in any case (with
``NaN``, ``Infinity``) and trailing commas. It may also match inside a string, so a row
matching it is only a candidate."""
INTEGER_SUFFIXES = ("_cents", "serial")
"""How the top-level payload fields the frames read as BIGINT end: amounts in cents and Form
serials."""
_NOT_INTEGER = (
    f'({"|".join(INTEGER_SUFFIXES)})"' + r"\s*:\s*([^-0-9\sn]|-?[0-9]+[.eE]|-?[0-9]{19})|\\u"
)
"""Where such a field may hold something else than an int64: text, a boolean, an object, a
fraction, an exponent or 19 digits and more; or a key spelled with ``\\u`` escapes, which the
pattern cannot read. It may also match inside a string or a nested object: a candidate."""
_DEEP = 100
"""Brackets from which a value may nest deeper than Python's recursion limit lets it parse."""


@cache
def _parser() -> duckdb.DuckDBPyConnection:
    """DuckDB's own parser, for its verdict on a candidate."""
    return duckdb.connect()


def suspect_sql(column: str, valid: str | None = None, distinct_keys: str | None = None) -> str:
    """SQL true for every row whose ``column`` may not be ledger JSON (never true when it is
    null: a missing payload is another expectation's finding). ``valid``: SQL of
    ``json_valid(column)`` where a query has it already. ``distinct_keys``: SQL true only
    where the payload's object is known to name each key once, cheaper than counting them
    (a hash set a row cost 1.3 s a 96-table day); by default they are counted."""
    valid = valid or f"json_valid({column})"
    keys = f"json_keys({column})"
    distinct_keys = distinct_keys or f"list_unique({keys}) = len({keys})"
    return (
        # `{}` is ledger JSON: the deliveries frame's stand-in for every payload it vouched for
        f"({column} <> '{{}}' AND ("
        # one pattern, one pass over the text: two cost 1.6x as much on a 24-table day
        f"NOT {valid} "
        f"OR regexp_matches({column}, '(?:{_LENIENT})|(?:{_NOT_INTEGER})') "
        f"OR length({column}) - length(replace(replace({column}, '[', ''), '{{', '')) "
        f">= {_DEEP} "
        f"OR CASE WHEN {valid} THEN NOT ({distinct_keys}) END))"  # json_keys reads valid JSON
    )


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON number")


def _int64(value: Any) -> bool:
    return value is None or (type(value) is int and -(2**63) <= value < 2**63)


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its (key, value) pairs in order, so that a repeated key shows."""


def is_ledger_json(value: str) -> bool:
    """Whether ``value`` is strict JSON that DuckDB's parser reads, whose object (if it is
    one) names each key once and whose integer fields (:data:`INTEGER_SUFFIXES`) hold int64
    values or null."""
    try:
        parsed = json.loads(value, parse_constant=_refuse, object_pairs_hook=_Pairs)
    except Exception:  # as GX's check: a nesting too deep for Python is not parseable either
        return False
    if isinstance(parsed, _Pairs):
        keys = [k for k, _ in parsed]
        if len(set(keys)) < len(keys):
            return False
        if not all(_int64(v) for k, v in parsed if k.endswith(INTEGER_SUFFIXES)):
            return False
    # a connection is not thread-safe: each call parses on a cursor of its own
    with _parser().cursor() as parser:
        ((valid,),) = parser.execute("SELECT json_valid(?)", [value]).fetchall()
    return bool(valid)
