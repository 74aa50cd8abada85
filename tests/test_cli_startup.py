"""The CLI's small commands do not import the heavy libraries: building the parser, ``--help``
of every command, ``odds`` and ``validate-rules`` run without DuckDB, pandas, pyarrow,
fastavro, Great Expectations, Prefect, Kafka or Streamlit in the process. Checked by what is
loaded, not by timing, so a shared, busy machine cannot make it flaky; the times are
measured by ``benchmarks/bench_startup.py``."""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import build_parser
from pipeline.config.catalog import DEFAULT_CATALOG

HEAVY = (
    "duckdb",
    "pandas",
    "pyarrow",
    "numpy",
    "fastavro",
    "great_expectations",
    "prefect",
    "kafka",
    "streamlit",
    "flows",
    "dashboards",
)

# Runs the CLI as the installed script does, then says which heavy modules were loaded.
PROBE = """
import contextlib, io, json, sys
from pipeline.cli import main
heavy, argv = json.loads(sys.argv[1])
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(argv)
    except SystemExit as exit:
        code = exit.code
print(json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules]}))
"""


def _run(argv: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([HEAVY, argv])],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["odds", "--decks", "8"],
        ["odds", "--decks", "6", "--all-wagers", "--json"],
        ["validate-rules", str(DEFAULT_CATALOG)],
        *([command, "--help"] for command in _commands()),
    ],
    ids=" ".join,
)
def test_small_commands_load_no_heavy_library(argv: list[str]) -> None:
    ran = _run(argv)
    assert ran["code"] == 0, f"{' '.join(argv)} exited {ran['code']}"
    assert ran["loaded"] == [], (
        f"`baccarat-audit {' '.join(argv)}` imported {ran['loaded']}: import them inside the "
        "command that needs them (see the import block of pipeline/cli.py)"
    )


def test_the_probe_sees_a_command_that_opens_the_ledger(tmp_path: Path) -> None:
    """The check above is not vacuous: a command that opens a ledger does load DuckDB."""
    (tmp_path / "events").mkdir()
    ran = _run(["ingest", "--db", str(tmp_path / "ledger.duckdb"), str(tmp_path / "events")])
    assert ran["code"] == 0
    assert "duckdb" in ran["loaded"]


def test_python_dash_m_pipeline_runs_the_cli() -> None:
    odds = subprocess.run(
        [sys.executable, "-m", "pipeline", "odds", "--decks", "8", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert odds.returncode == 0, odds.stderr
    assert json.loads(odds.stdout)
    bare = subprocess.run(
        [sys.executable, "-m", "pipeline"], capture_output=True, text=True, timeout=60
    )
    assert bare.returncode == 2
    assert "usage: baccarat-audit" in bare.stderr


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    """`baccarat-audit rules | head -1`: the pipe closes after one line; the command stops
    with the SIGPIPE exit status a Unix tool gives (141), not a BrokenPipeError traceback.
    The pipe holds one page, less than the output, so the command is still writing when
    the reader goes away."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    with os.fdopen(read_end, "rb") as reader:
        process = subprocess.Popen(
            [sys.executable, "-m", "pipeline", "rules"], stdout=write_end, stderr=subprocess.PIPE
        )
        os.close(write_end)
        assert reader.readline().startswith(b"| code |")
    assert process.stderr is not None
    errors = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141, errors
    assert "Traceback" not in errors
