"""Progress on the long commands (``simulate``, ``replay``, ``close``, ``demo``), on stderr and
only when stderr is a terminal: a script, a pipe, a log file or a CI job gets the results and
nothing else.

``rich`` is imported only when a bar is drawn, so the CLI's start-up does not pay for it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Tick = Callable[[], None]
"""Advance the bar by one unit (a table emulated, a step done); a no-op when none is drawn."""


def _no_tick() -> None:
    """What ticking does when no bar is drawn."""


@contextmanager
def progress(description: str, total: int | None = None) -> Iterator[Tick]:
    """A bar (``total`` units) or a spinner with the elapsed time (no ``total``) while the
    block runs, when stderr is a terminal; otherwise nothing at all."""
    if not sys.stderr.isatty():
        yield _no_tick
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (
        (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        if total is not None
        else (SpinnerColumn(), TextColumn("{task.description}"))
    )
    with Progress(
        *columns, TimeElapsedColumn(), console=Console(stderr=True), transient=True
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda: bar.advance(task)
