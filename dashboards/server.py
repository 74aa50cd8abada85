"""Serve the dashboards with ``streamlit run``: for ``make dashboard``, the browser test and the
page-load benchmark, so all three run the app the same way.

    python -m dashboards.server --db LEDGER [--port 8501]

With ``BACCARAT_KAFKA_BOOTSTRAP_SERVERS`` set (and the other ``BACCARAT_KAFKA_*`` the stream
reads), the exception queue follows the exceptions topic (:mod:`dashboards.feed`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from pipeline.stream.settings import ENV_VARS, PREFIX, KafkaSettings, env_var

APP = Path(__file__).with_name("app.py")
ROOT = APP.parent.parent


def streamlit_command(port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "dashboards.warm",  # streamlit run, with the pages' modules imported first
        "run",
        str(APP),
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "viewer",
    ]


def dashboard_env(
    db: Path, acks: Path | None = None, feed: KafkaSettings | None = None
) -> dict[str, str]:
    """The environment the app reads: the ledger (``BACCARAT_DB``), when given the
    acknowledgement journal (``BACCARAT_ACKS``; otherwise the one next to the ledger) and the
    cluster whose exceptions topic the queue follows (``BACCARAT_KAFKA_*``,
    :mod:`dashboards.feed`; without one, none: the feed is off).
    ``FORWARDED_ALLOW_IPS`` is emptied so that the server never takes a client's address
    from ``X-Forwarded-For``: the dashboards believe a proxy's user header by the address
    the request really came from (:mod:`dashboards.ui`)."""
    env = {
        **os.environ,
        "BACCARAT_DB": str(db),
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
        "FORWARDED_ALLOW_IPS": "",
    }
    env.pop("BACCARAT_ACKS", None)
    if acks is not None:
        env["BACCARAT_ACKS"] = str(acks)
    for name in [n for n in env if n.startswith(PREFIX)]:
        del env[name]
    if feed is not None:
        for setting in ENV_VARS:
            value = getattr(feed, setting)
            if value is not None:
                env[env_var(setting)] = (
                    str(value).lower() if isinstance(value, bool) else str(value)
                )
    return env


@contextmanager
def running_dashboard(
    db: Path,
    port: int,
    *,
    log: IO[bytes] | IO[str] | None = None,
    acks: Path | None = None,
    feed: KafkaSettings | None = None,
    start_timeout: float = 60.0,
) -> Iterator[str]:
    """Serve the dashboards over ``db`` on 127.0.0.1:``port`` (following the exceptions topic
    of ``feed``, if given); yields the base URL once the server answers its health check, and
    stops it afterwards."""
    process = subprocess.Popen(
        streamlit_command(port),
        cwd=ROOT,
        env=dashboard_env(db, acks, feed),
        stdin=subprocess.DEVNULL,
        stdout=log if log is not None else subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while not _healthy(base):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"streamlit did not start on port {port} within {start_timeout:g} s "
                    f"(exit code {process.poll()}); see its log"
                )
            time.sleep(0.3)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, required=True, help="the DuckDB ledger to show")
    parser.add_argument("--port", type=int, default=8501)
    args = parser.parse_args(argv)
    if not args.db.exists():
        parser.error(f"{args.db}: no ledger here; run `baccarat-audit demo` first")
    feed = KafkaSettings.from_env() if os.environ.get(env_var("bootstrap_servers")) else None
    return subprocess.call(
        streamlit_command(args.port), cwd=ROOT, env=dashboard_env(args.db, feed=feed)
    )


if __name__ == "__main__":
    sys.exit(main())
