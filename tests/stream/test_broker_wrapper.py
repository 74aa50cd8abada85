"""``baccarat-audit broker``: its tansu child dies with it, however it ends, and a port in
use is said plainly (issue 25)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.stream.broker import HOST, free_port

pytestmark = pytest.mark.broker

REPO = Path(__file__).resolve().parents[2]


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(c) for c in path.read_text().split()] if path.exists() else []


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def wait_until(condition: object, seconds: float = 5.0) -> float:
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if condition():  # type: ignore[operator]
            return time.monotonic() - started
        time.sleep(0.02)
    raise AssertionError(f"not within {seconds} s")


@pytest.fixture
def wrapper() -> Iterator[tuple[subprocess.Popen[str], int, int]]:
    """A running ``baccarat-audit broker``: (its process, tansu's pid, the port)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "broker", "--port", str(port)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("broker ready"):
                break
        else:
            raise AssertionError(f"the broker did not start (exit {proc.wait()})")
        [tansu] = children(proc.pid)
        yield proc, tansu, port
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_the_tansu_child_dies_with_the_broker_command(
    wrapper: tuple[subprocess.Popen[str], int, int], signum: int
) -> None:
    proc, tansu, port = wrapper
    assert alive(tansu) and not port_free(port)
    os.kill(proc.pid, signum)
    code = proc.wait(timeout=10)
    seconds = wait_until(lambda: not alive(tansu) and port_free(port))
    print(f"{signal.Signals(signum).name}: exit {code}, tansu gone {seconds:.2f} s later")
    if signum != signal.SIGKILL:
        assert code == 0


def test_a_busy_port_is_a_clear_error_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind((HOST, 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "pipeline", "broker", "--port", str(port)],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
    print(done.stderr)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"port {port} on {HOST} is already in use" in done.stderr
    assert "pick another port with --port" in done.stderr
