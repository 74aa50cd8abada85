"""Stopping ``python -m dashboards.server`` stops its Streamlit child: the port is free again
within seconds, whether the server was told to stop (SIGTERM, as systemd and ``kill`` do) or
killed outright (SIGKILL, which no handler sees), while Chromium has the queue open.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _chromium import Browser, free_port
from browser_harness import browser_tests
from dashboard_data import ROOT

from pipeline.ledger.store import Ledger

pytestmark = browser_tests(__name__)

FREED_WITHIN = 10.0
"""Seconds from the signal until the port can be bound again: Streamlit's own stop on
SIGTERM (sessions closed, the listening socket released) on a shared machine."""
STARTS_WITHIN = 90.0


def port_is_free(port: int) -> bool:
    """Whether a new server could listen on ``port`` (as Streamlit binds, reusing addresses
    left in TIME_WAIT by the browser's closed connections)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie holds no socket; its parent (pytest or init) reaps it


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_stopped_server_frees_its_port(
    browser: Browser, tmp_path: Path, signum: signal.Signals
) -> None:
    db = tmp_path / "ledger.duckdb"
    Ledger(db).close()  # an empty ledger: the page says there is nothing to show yet
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "dashboards.server", "--db", str(db), "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    child: int | None = None
    try:
        browser.navigate(f"http://127.0.0.1:{port}/exceptions")
        deadline = time.monotonic() + STARTS_WITHIN
        while "Exception queue" not in browser.text() or port_is_free(port):
            assert server.poll() is None, (tmp_path / "server.log").read_text()
            assert time.monotonic() < deadline, "the server never served the queue"
            time.sleep(0.5)
            if "Exception queue" not in browser.text():
                browser.navigate(f"http://127.0.0.1:{port}/exceptions")
        [child] = children_of(server.pid)

        server.send_signal(signum)
        stopped = time.monotonic()
        server.wait(timeout=30)
        while alive(child) or not port_is_free(port):
            assert time.monotonic() - stopped < FREED_WITHIN, (
                f"after {signum.name} to the server the Streamlit child {child} still "
                f"{'runs' if alive(child) else 'holds the port'}; "
                + (tmp_path / "server.log").read_text()[-2000:]
            )
            time.sleep(0.2)
        print(f"{signum.name}: port {port} free {time.monotonic() - stopped:.1f} s after")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        if child is not None and alive(child):
            os.kill(child, signal.SIGKILL)
        log.close()
