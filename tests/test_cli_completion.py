"""Shell completion of ``baccarat-audit`` (argcomplete): what a shell registered with
``eval "$(register-python-argcomplete baccarat-audit)"`` is offered, asked the way the shell
asks (the ``_ARGCOMPLETE`` protocol), from the real command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def completions(line: str, tmp_path: Path) -> list[str]:
    out = tmp_path / "completions"
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(out),
    }
    run = subprocess.run(
        [sys.executable, "-m", "pipeline"], env=env, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    return out.read_text(encoding="utf-8").split()


@pytest.mark.parametrize(
    ("line", "offered"),
    [
        ("baccarat-audit clo", ["close"]),
        ("baccarat-audit close --gam", ["--gaming-day"]),
        ("baccarat-audit verify-b", ["verify-bundle"]),
    ],
)
def test_commands_and_options_complete(line: str, offered: list[str], tmp_path: Path) -> None:
    assert completions(line, tmp_path) == offered


def test_without_the_shell_asking_nothing_changes(tmp_path: Path) -> None:
    """No ``_ARGCOMPLETE``: the command runs as it always does (argcomplete not even loaded)."""
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, pipeline.cli as c; c.main(['--version']); "
            "print('argcomplete' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.stdout.strip().endswith("False"), run.stdout + run.stderr
