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
