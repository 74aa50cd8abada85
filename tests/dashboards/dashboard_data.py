"""Emulated ledgers for the dashboard tests, built once per process and copied per test.

Not a conftest: ``tests/dashboards`` is no package (a package named ``dashboards`` under
``tests/`` would shadow the real one), so test modules import what they need from here.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import io
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pandas as pd
import pytest
from streamlit.runtime import context as st_context

ROOT = Path(__file__).resolve().parents[2]
HERE = str(Path(__file__).resolve().parent)
for _path in (str(ROOT), HERE):  # `dashboards` is not an installed package; `_chromium` is here
    if _path not in sys.path:
        sys.path.insert(0, _path)

from _chromium import free_port  # noqa: E402

from dashboards.server import running_dashboard  # noqa: E402
from pipeline.cli import main  # noqa: E402
from pipeline.config.installation import INSTALLATION_ENV  # noqa: E402

APP = ROOT / "dashboards" / "app.py"
DAY = date(2026, 11, 24)
SETTLED_WRONGLY = (
    "EXISTS (SELECT 1 FROM settlements x WHERE x.table_id = e.table_id AND x.round_id = "
    "e.round_id AND (x.expected_paid_cents IS DISTINCT FROM x.recorded_paid_cents OR "
    "x.expected_result IS DISTINCT FROM x.recorded_result))"
)
"""SQL: exception ``e``'s round has a wager settled wrongly (not only its vigorish), which the
round page marks "NO"."""


AUTUMN_DAY = date(2026, 10, 31)
"""The gaming day of 25 hours: New York's clocks go back at 2 a.m. on 1 November 2026."""
AUTUMN_LEDGER_GROUP = "autumn-day-ledger"
"""The xdist group of the tests that read the autumn day's emulated ledger (:func:`built_ledger`
of 2 tables for 25 hours, about a minute to build, once per process): ``--dist loadgroup``
keeps them on one worker, which builds it once."""


@functools.cache
def built_ledger(tables: int = 3, hours: float = 3.0, seed: int = 1, day: date = DAY) -> Path:
    """A closed gaming day with every kind of fault injected; do not modify it: copy it."""
    out = Path(tempfile.mkdtemp(prefix=f"dash-ledger-{tables}x{hours:g}-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)  # kept for the process only
    argv = ["demo", "--out", str(out), "--tables", str(tables), "--hours", str(hours)]
    argv += ["--seed", str(seed), "--faults", "all", "--date", day.isoformat()]
    # The same steps without Prefect: these tests are about the dashboards, and a test process
    # that already runs the flows tests' Prefect test server must not also drive the shared
    # local server (tests/flows covers the flows).
    argv += ["--plain"]
    with contextlib.redirect_stdout(io.StringIO()):
        main(argv)  # the documented way to get a replayed, closed day; 1 only if the
        # ground-truth comparison is inexact, which is not what these tests are about
    db = out / "ledger.duckdb"
    if not db.exists():
        raise RuntimeError(f"baccarat-audit {' '.join(argv)} wrote no ledger")
    return db


def ledger_copy(directory: Path, tables: int = 3, hours: float = 3.0, day: date = DAY) -> Path:
    """A private copy of the emulated ledger in ``directory`` (its journal goes beside it),
    with its anchor file, witnessed in the installation in use (each test has its own copy of
    the installation; the ledger was built in the first test's)."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "ledger.duckdb"
    built = built_ledger(tables, hours, day=day)
    shutil.copyfile(built, target)
    # the sealed days' Iceberg archive, which the seal covers, is the ledger's too
    shutil.copytree(built.parent / "archive", directory / "archive", dirs_exist_ok=True)
    anchors = directory / "reports" / "seal-anchors.jsonl"
    anchors.parent.mkdir(exist_ok=True)
    shutil.copyfile(built.parent / "reports" / anchors.name, anchors)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["witness", "sync", "--db", str(target)]) == 0
    return target


LOCAL_PROXY = 'trusted_proxies = ["127.0.0.1", "::1"]'
"""An authenticating proxy on this machine, which the packaged example does not trust."""


def installation_roles() -> Path:
    """The roles file of the installation in use (each test's own copy, tests/conftest.py)."""
    return Path(os.environ[INSTALLATION_ENV]) / "roles.toml"


def trust_localhost(roles: Path | None = None) -> Path:
    """Let the installation's roles file (by default the one in use) trust a proxy on this
    machine, for the tests that sign in with its header; returns the file."""
    path = roles if roles is not None else installation_roles()
    text = path.read_text(encoding="utf-8")
    assert "trusted_proxies = []" in text, f"{path}: not the packaged example's proxies"
    path.write_text(text.replace("trusted_proxies = []", LOCAL_PROXY), encoding="utf-8")
    return path


def installation_copy(directory: Path) -> Path:
    """A copy, in ``directory``, of the installation in use, for a server that outlives one
    test (each test's own installation is removed after it); point
    ``BACCARAT_INSTALLATION`` at it while starting the server."""
    root = directory / "installation"
    shutil.copytree(os.environ[INSTALLATION_ENV], root)
    return root


@contextlib.contextmanager
def served_ledger(directory: Path) -> Iterator[tuple[str, Path]]:
    """A 3-table, 2-hour ledger copy in ``directory`` served by ``streamlit run`` on a free
    port (its log beside it): the base URL and the ledger, until the block ends."""
    db = ledger_copy(directory, tables=3, hours=2.0)
    with (
        (db.parent / "streamlit.log").open("w") as log,
        running_dashboard(db, free_port(), log=log) as base,
    ):
        yield base, db


@dataclass(frozen=True)
class FakeClient:
    """What Streamlit's server knows of a browser connection (its ``ClientContext``): the
    handshake's headers and the TCP peer's address. AppTest has no connection, so tests put
    one in place of ``streamlit.runtime.context._get_client_context``; ``st.context.headers``
    and ``st.context.ip_address`` then read it as they read a real one."""

    headers: tuple[tuple[str, str], ...] = ()
    remote_ip: str | None = None
    cookies: dict[str, str] = field(default_factory=dict)


def request_from(
    monkeypatch: pytest.MonkeyPatch, remote_ip: str | None, **headers: str | list[str]
) -> None:
    """Make every following AppTest run come from ``remote_ip`` with these headers (keyword
    ``X_Forwarded_User`` is the header ``X-Forwarded-User``; a list repeats it)."""
    pairs = tuple(
        (name.replace("_", "-"), value)
        for name, values in headers.items()
        for value in ([values] if isinstance(values, str) else values)
    )
    client = FakeClient(pairs, remote_ip)
    monkeypatch.setattr(st_context, "_get_client_context", lambda: client)


def link_columns(grid: Any) -> dict[str, str]:
    """An AppTest grid's link columns: name -> the pattern that picks, out of each cell's
    URL, the text the cell shows (``LinkColumn``'s ``display_text``)."""
    config: dict[str, dict[str, Any]] = json.loads(grid.proto.columns or "{}")
    return {
        name: spec["type_config"]["display_text"]
        for name, spec in config.items()
        if spec.get("type_config", {}).get("type") == "link"
    }


def shown_text(url: str | None, pattern: str) -> str | None:
    """What a link cell holding ``url`` shows, worked out as the grid's script does: the
    pattern's first group, percent-decoded (``decodeURIComponent``, a ``+`` as a space)."""
    if url is None:
        return None
    found = re.search(pattern, url)
    assert found is not None, f"{url!r} does not match {pattern!r}: the cell would show the URL"
    return unquote(found.group(1).replace("+", "%20"))


def grid_rows(grid: Any) -> pd.DataFrame:
    """An AppTest grid's rows as a person reads them: each link column's cell as the id it
    shows rather than the URL it holds."""
    frame = grid.value
    assert isinstance(frame, pd.DataFrame)
    shown = frame.copy()
    for name, pattern in link_columns(grid).items():
        shown[name] = [None if pd.isna(u) else shown_text(str(u), pattern) for u in frame[name]]
    return shown
