"""A child forked while another thread of the parent holds a lock: the check that a module's
``os.register_at_fork`` handler gives the child a lock of its own."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

import pytest


def exit_code_of_child_forked_holding(
    lock: threading.Lock, child: Callable[[], bool], within: float
) -> int:
    """Fork while ``lock`` is held, as if another thread held it at the fork; the child runs
    ``child`` and exits 0 when it returns true, 1 when false, 2 when it raises. Returns the
    child's exit code; fails the test, after killing the child, when it has not ended within
    ``within`` seconds (it waited for a lock its parent's other thread held)."""
    with lock:
        pid = os.fork()
        if pid == 0:
            try:
                os._exit(0 if child() else 1)
            except BaseException:
                os._exit(2)
    deadline = time.monotonic() + within
    while (waited := os.waitpid(pid, os.WNOHANG)) == (0, 0) and time.monotonic() < deadline:
        time.sleep(0.05)
    if waited == (0, 0):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child waited for a lock its parent's other thread held")
    return os.waitstatus_to_exitcode(waited[1])
