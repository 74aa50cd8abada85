"""Serve the dashboards with ``streamlit run``: for ``make dashboard``, the browser test and the
page-load benchmark, so all three run the app the same way.

    python -m dashboards.server --db LEDGER [--port 8501]

With ``BACCARAT_KAFKA_BOOTSTRAP_SERVERS`` set (and the other ``BACCARAT_KAFKA_*`` the stream
reads), the exception queue follows the exceptions topic (:mod:`dashboards.feed`).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from pipeline.stream.settings import ENV_VARS, PREFIX, KafkaSettings, env_var

APP = Path(__file__).with_name("app.py")
ROOT = APP.parent.parent


def streamlit_command(port: int, script: Path = APP) -> list[str]:
    """``streamlit run`` of ``script`` on 127.0.0.1:``port``; the dashboards' app through
    :mod:`dashboards.warm` (its pages' modules imported first), any other script (the
    page-load benchmark's text-only page) as Streamlit runs it."""
    launcher = "dashboards.warm" if script == APP else "streamlit"
    return [
        sys.executable,
        "-m",
        launcher,
        "run",
        str(script),
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


PR_SET_PDEATHSIG = 1
"""Linux ``prctl`` option: the signal a process gets when the thread that started it dies."""
STOP_SECONDS = 15.0
"""How long a stopped server's Streamlit process has to exit on SIGTERM before it is killed."""


def _die_with_parent(parent: int) -> Callable[[], None]:
    """What the Streamlit child runs before the server: on Linux, ask for SIGTERM when the
    thread of ``parent`` that started it dies, even by SIGKILL (a killed
    ``python -m dashboards.server`` left its child serving the port), and exit if ``parent``
    is already gone. Elsewhere only the parent's own signal handlers (:func:`serve`) stop
    the child. libc is loaded here, in the parent: the child only calls into it."""
    prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)

    def in_child() -> None:
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # it died between the fork and the prctl
            os._exit(1)

    return in_child


def start_streamlit(
    port: int,
    env: dict[str, str],
    output: IO[bytes] | IO[str] | int | None,
    script: Path = APP,
) -> subprocess.Popen[bytes]:
    """The Streamlit server of ``script`` on 127.0.0.1:``port`` as a child process that dies
    with the thread that started it (:func:`_die_with_parent`); ``output``: where its log
    goes (None: this process's)."""
    return subprocess.Popen(
        streamlit_command(port, script),
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=output,
        stderr=subprocess.STDOUT if output is not None else None,
        preexec_fn=_die_with_parent(os.getpid()),
    )


def stop_streamlit(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (Streamlit closes its sessions and the port), then SIGKILL after
    :data:`STOP_SECONDS`."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_SECONDS)


@contextmanager
def running_dashboard(
    db: Path,
    port: int,
    *,
    log: IO[bytes] | IO[str] | None = None,
    acks: Path | None = None,
    feed: KafkaSettings | None = None,
    start_timeout: float = 60.0,
    script: Path = APP,
) -> Iterator[str]:
    """Serve the dashboards (or another Streamlit ``script``) over ``db`` on
    127.0.0.1:``port`` (following the exceptions topic of ``feed``, if given); yields the
    base URL once the server answers its health check, and stops it afterwards."""
    process = start_streamlit(
        port,
        dashboard_env(db, acks, feed),
        log if log is not None else subprocess.DEVNULL,
        script,
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
        stop_streamlit(process)


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
    return serve(args.port, dashboard_env(args.db.absolute(), feed=feed))


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class _Stopped(Exception):
    """The server was told to stop (one of :data:`STOP_SIGNALS`)."""


def _stop_asked(signum: int, _frame: object) -> None:
    raise _Stopped(signum)


def serve(port: int, env: dict[str, str]) -> int:
    """Run the Streamlit server until it exits, or until this process is told to stop (one
    of :data:`STOP_SIGNALS`), and then stop it: a ``python -m dashboards.server`` that was
    killed left its Streamlit child holding the port. Returns the child's exit code, 0 when
    stopped by a signal."""
    process = start_streamlit(port, env, None)  # a signal before the handlers: it dies with us
    for signum in STOP_SIGNALS:
        signal.signal(signum, _stop_asked)
    stopped = False
    try:
        process.wait()
    except _Stopped:
        stopped = True
    finally:
        for signum in STOP_SIGNALS:  # a second signal must not cut the stop short
            signal.signal(signum, signal.SIG_IGN)
        stop_streamlit(process)
    return 0 if stopped else process.returncode


if __name__ == "__main__":
    sys.exit(main())
