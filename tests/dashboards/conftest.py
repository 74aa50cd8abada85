"""The Chromium tests' fixtures: one headless Chromium per test module, and one emulated
ledger served per module for the tests that only read it. What the tests do with them is in
``browser_harness.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _chromium import Browser, chromium
from dashboard_data import served_ledger


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """A headless Chromium for the module's tests, its network domain on (a test can set
    the headers it sends)."""
    with chromium() as b:
        b.call("Network.enable")
        yield b


@pytest.fixture(scope="module")
def served_dashboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The 3-table, 2-hour emulated day served for the module: base URL and ledger. Tests
    that write to the ledger serve a copy of their own (``browser_harness.signed_in``)."""
    with served_ledger(tmp_path_factory.mktemp("served-ledger")) as served:
        yield served
