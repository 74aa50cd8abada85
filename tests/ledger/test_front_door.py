"""One front door to the ledger: the ``exceptions`` table is read only through
:mod:`pipeline.ledger.exceptions`, and the ledger judges no rule.

SQL against ``exceptions`` outside ``pipeline/ledger/`` (tests excepted) fails here, naming the
file and line; so does a module of ``pipeline/ledger/`` importing replay logic. The ledger may
still name the replay's records (``Finding``, the rows of a result) until they move: those
are data, not judgement.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "pipeline" / "ledger"
FROM_EXCEPTIONS = re.compile(r"\bfrom\s+exceptions\b", re.IGNORECASE)
REPLAY_RECORDS = frozenset(
    {
        "pipeline.replay.findings",
        "pipeline.replay.rows",
        # the NJ-DATA-DUPLICATE finding of a file delivered again, which the ledger's merge
        # detects; its wording is to move beside the finding records
        "pipeline.replay.sequencer.redelivered_file",
    }
)
"""What the ledger may still import from the replay: record types and one finding's
wording, no judgement (``pipeline.replay.pit`` is judged by ``pipeline.ingest.pits``)."""
SKIPPED = {".venv", ".git", "tests", "node_modules", "__pycache__"}


def _python_files() -> list[Path]:
    return sorted(
        p
        for p in ROOT.rglob("*.py")
        if not SKIPPED.intersection(p.relative_to(ROOT).parts) and not p.is_relative_to(LEDGER)
    )


def _sql_strings(path: Path) -> list[tuple[int, str]]:
    """The string literals of ``path`` (f-strings' text included), with their lines: where
    SQL is written. Comments and ``from exceptions import ...`` statements are not."""
    found = []
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for token in tokens:
        if token.type in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)):
            found.append((token.start[0], token.string))
    return found


def test_no_sql_against_exceptions_outside_the_ledger() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _python_files()
        for line, text in _sql_strings(path)
        if FROM_EXCEPTIONS.search(text)
    ]
    assert offenders == [], (
        "SQL against `exceptions` outside pipeline/ledger/; ask pipeline.ledger.exceptions "
        f"instead: {offenders}"
    )


def test_the_guard_sees_sql_split_over_lines_and_in_any_case() -> None:
    source = 'q = (\n    "SELECT count(*) "\n    "from   exceptions WHERE x"\n)\n'
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    strings = [t.string for t in tokens if t.type == tokenize.STRING]
    assert any(FROM_EXCEPTIONS.search(s) for s in strings)
    assert not FROM_EXCEPTIONS.search("from pipeline.ledger import exceptions")


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def test_the_ledger_imports_no_replay_logic_and_no_reader() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted(LEDGER.rglob("*.py"))
        for line, module in _imports(path)
        if (
            module.startswith("pipeline.replay")
            and module != "pipeline.replay"
            and not any(module == r or module.startswith(f"{r}.") for r in REPLAY_RECORDS)
            and not any(r.startswith(f"{module}.") for r in REPLAY_RECORDS)
        )
        or module.startswith(("pipeline.reports", "dashboards"))
    ]
    assert offenders == [], offenders


def test_the_exception_row_is_declared_as_the_table_is() -> None:
    from pipeline.ledger.exceptions import EXCEPTION_COLUMNS
    from pipeline.ledger.migrations import MIGRATIONS
    from pipeline.ledger.store import Ledger

    assert MIGRATIONS  # the table is made by the migrations
    with Ledger(":memory:") as ledger:
        columns = tuple(
            name
            for (name,) in ledger.con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = 'exceptions' "
                "ORDER BY column_index"
            ).fetchall()
        )
    assert columns == EXCEPTION_COLUMNS


# ---------------------------------------------------------------------- the whole front door
GUARDED = ("pipeline", "dashboards", "flows", "benchmarks")
"""Where code may not reach past the front door: everything shipped or measured, but the
ledger package itself and the tests."""
SQL = re.compile(
    r"\bSELECT\b|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bDELETE\s+FROM\b|\bUPDATE\s+\w+\s+SET\b"
    r"|\bCREATE\s+(OR\s+REPLACE\s+)?(TEMP\s+)?(TABLE|VIEW|INDEX|SEQUENCE|MACRO)\b"
    r"|\bATTACH\b|\bPRAGMA\b|\bread_parquet\s*\(|json_extract|->>"
)
"""SQL as this code base writes it (keywords in capitals)."""
CONNECTION_CALLS = frozenset(
    {
        "execute",
        "executemany",
        "sql",
        "fetchall",
        "fetchone",
        "fetchmany",
        "fetchdf",
        "fetch_df",
        "fetchnumpy",
        "fetch_arrow_table",
        "fetch_record_batch",
    }
)
"""What only a raw DuckDB connection (or cursor, or relation) is called with."""
PAYLOAD_JSON = "fields_json"
"""The column an event's payload is stored in as JSON: read only by the ledger, which gives
payloads back as typed events or fields."""


def _guarded_files() -> list[Path]:
    return sorted(
        p
        for p in ROOT.rglob("*.py")
        if p.relative_to(ROOT).parts[0] in GUARDED
        and not SKIPPED.intersection(p.relative_to(ROOT).parts)
        and not p.is_relative_to(LEDGER)
    )


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """The lines of ``if TYPE_CHECKING:`` blocks: an import there names a type, opens nothing."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def front_door_breaches(path: Path) -> list[str]:
    """Every place ``path`` reaches past the ledger's front door: SQL written, a raw
    connection used (``.con``, ``duckdb.connect``, ``.execute``, ``.fetch*``...), DuckDB
    imported to run something, or an event's payload JSON read."""
    source = path.read_text(encoding="utf-8")
    where = path.relative_to(ROOT)
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        line = token.start[0]
        if token.type == tokenize.STRING and SQL.search(token.string):
            found.append(f"{where}:{line} writes SQL")
        if token.type in (tokenize.NAME, tokenize.STRING) and PAYLOAD_JSON in token.string:
            found.append(f"{where}:{line} reads payload JSON ({PAYLOAD_JSON})")
    tree = ast.parse(source)
    typing_only = _type_checking_lines(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in CONNECTION_CALLS
        ):
            found.append(f"{where}:{line} calls .{node.func.attr}() on a connection")
        if isinstance(node, ast.Attribute) and node.attr == "con":
            found.append(f"{where}:{line} uses a ledger's raw connection (.con)")
        if isinstance(node, ast.Import | ast.ImportFrom) and line not in typing_only:
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if "duckdb" in names or module == "duckdb":
                found.append(f"{where}:{line} imports duckdb")
    return sorted(set(found), key=lambda s: (s.split(":")[0], int(s.split(":")[1].split()[0])))


def test_nothing_outside_the_ledger_writes_sql_opens_a_connection_or_reads_payload_json() -> None:
    """Issue 26's front door: the storage can change because only ``pipeline/ledger/`` knows it."""
    breaches = [b for path in _guarded_files() for b in front_door_breaches(path)]
    assert breaches == [], (
        f"{len(breaches)} reaches past the ledger's front door; ask a named question of "
        "pipeline.ledger instead:\n" + "\n".join(breaches)
    )


def test_the_front_door_guard_sees_each_kind_of_breach(tmp_path: Path) -> None:
    sample = ROOT / "pipeline" / "_front_door_sample.py"
    sample.write_text(
        "import duckdb\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    import duckdb\n"
        "def f(ledger):\n"
        "    q = ('SELECT a '\n"
        "         'FROM rounds')\n"
        "    ledger.con.execute(q).fetchall()\n"
        "    return duckdb.connect(), 'fields_json'\n",
        encoding="utf-8",
    )
    try:
        breaches = front_door_breaches(sample)
    finally:
        sample.unlink()
    kinds = {b.split(" ", 1)[1] for b in breaches}
    assert kinds == {
        "imports duckdb",
        "writes SQL",
        "uses a ledger's raw connection (.con)",
        "calls .execute() on a connection",
        "calls .fetchall() on a connection",
        "reads payload JSON (fields_json)",
    }
    assert not any(b.startswith("pipeline/_front_door_sample.py:4 ") for b in breaches)


BELOW_THE_LEDGER = (
    "pipeline.rules",
    "pipeline.events",
    "pipeline.replay",
    "pipeline.config",
    "pipeline.witness",
    "pipeline.safe_text",
    "pipeline.exits",
    "pipeline.ledger",
)
"""The layers the ledger stands on: the stages above it (ingest, stream, quality, patterns,
bundles, reports, flows, dashboards) ask it questions, never the other way round."""


def test_the_ledger_imports_only_the_layers_below_it() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted(LEDGER.rglob("*.py"))
        for line, module in _imports(path)
        if module.split(".")[0] in ("pipeline", "dashboards", "flows")
        and module != "pipeline"
        and not any(module == b or module.startswith(f"{b}.") for b in BELOW_THE_LEDGER)
    ]
    assert offenders == [], offenders
