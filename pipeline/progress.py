"""Progress on the long commands (``simulate``, ``replay``, ``close``, ``demo``), on stderr and
only when stderr is a terminal: a script, a pipe, a log file or a CI job gets the results and
nothing else.

A bar says what the command does and, while it runs, which stage its work is in
(``auditing: replay T03``): the steps name themselves with :func:`stage`, wherever they run
(a plain call or a Prefect task of the same process), without knowing who watches.

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


_stage_namers: list[Callable[[str], None]] = []
"""How each bar drawn now names the stage of its work, the innermost last."""


def stage(name: str) -> None:
    """Name the stage the work of the innermost bar drawn now is in; nothing when no bar
    is drawn."""
    if _stage_namers:
        _stage_namers[-1](name)


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

        def name_stage(name: str) -> None:
            bar.update(task, description=f"{description}: {name}")
            bar.refresh()  # drawn now: a stage shorter than the refresh period still shows

        _stage_namers.append(name_stage)
        try:
            yield lambda: bar.advance(task)
        finally:
            _stage_namers.remove(name_stage)
