"""``stream`` against an address where no broker listens exits after a bounded wait
(``--connect-timeout``), exit 75, saying what is wrong and what to do (issue 25)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from pipeline.stream.broker import free_port

REPO = Path(__file__).resolve().parents[2]


def test_stream_gives_up_on_an_unreachable_broker_after_the_connect_timeout(
    tmp_path: Path,
) -> None:
    bootstrap = f"127.0.0.1:{free_port()}"  # nothing listens there
    db = tmp_path / "ledger.duckdb"
    argv = ["stream", "--bootstrap", bootstrap, "--db", str(db), "--until-idle", "1"]
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.stream.cli", *argv, "--connect-timeout", "2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    seconds = time.monotonic() - started
    print(f"exit {done.returncode} after {seconds:.1f} s:\n{done.stderr}")
    assert done.returncode == 75
    assert f"no Kafka broker answered at {bootstrap} within 2 s" in done.stderr
    assert "--connect-timeout SECONDS waits longer" in done.stderr
    assert "Traceback" not in done.stderr
    assert seconds < 15, "bounded by the connect timeout (plus the interpreter's start)"


def test_a_connect_timeout_of_zero_is_refused(tmp_path: Path) -> None:
    from pipeline.stream.cli import main

    argv = ["stream", "--bootstrap", "127.0.0.1:1", "--db", str(tmp_path / "l.duckdb")]
    assert main([*argv, "--connect-timeout", "0"]) == 2
