"""Great Expectations validates each frame's evidence rows on a thread of its own while DuckDB
counts the next frame (:func:`pipeline.quality.run._validate`): what GX raises there reaches
the caller, and the day's frames are dropped all the same. That the outcomes keep their
order is held by the determinism tests, which compare stored results byte for byte."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.config.catalog import load_catalog
from pipeline.ledger.store import Ledger
from pipeline.quality import run

DAY = date(2026, 11, 24)


def test_an_error_on_the_gx_thread_reaches_the_caller(
    clean_ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    validated: list[str] = []
    real = run.gx_run

    def failing_on_the_second(definition: Any, frame: Any, index_columns: list[str]) -> Any:
        validated.append(definition.name)
        if len(validated) == 2:
            raise RuntimeError(f"GX failed on {definition.name}")
        return real(definition, frame, index_columns)

    monkeypatch.setattr(run, "gx_run", failing_on_the_second)
    with Ledger(clean_ledger, read_only=True) as ledger:
        with pytest.raises(RuntimeError, match="GX failed on raw_events"):
            run.validate_day(ledger, DAY, load_catalog())
        ((frames_left,),) = ledger.con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name LIKE 'quality_%'"
        ).fetchall()
    assert len(validated) >= 2
    assert frames_left == 0
