"""Great Expectations validates each frame's evidence rows on a thread of its own while DuckDB
counts the next frame (:func:`pipeline.quality.run._validate`): what GX raises there reaches
the caller, and the day's frames are dropped all the same. That the outcomes keep their
order is held by the determinism tests, which compare stored results byte for byte.

The process keeps one GX context for all its gates (``_Workspace``): what it registers is made
once, what a validation leaves behind is dropped, and gates on two threads, or in a child
forked while another thread validates, find what each finds alone."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.config.catalog import load_catalog
from pipeline.ledger.store import Ledger
from pipeline.quality import run
from tests.forking import exit_code_of_child_forked_holding

DAY = date(2026, 11, 24)


def test_an_error_on_the_gx_thread_reaches_the_caller(
    clean_ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    validated: list[str] = []
    real = run.gx_run

    def failing_on_the_second(validation: Any, frame: Any, index_columns: list[str]) -> Any:
        validated.append(validation.suite.name)
        if len(validated) == 2:
            raise RuntimeError(f"GX failed on {validation.suite.name}")
        return real(validation, frame, index_columns)

    monkeypatch.setattr(run, "gx_run", failing_on_the_second)
    with Ledger(clean_ledger, read_only=True) as ledger:
        with pytest.raises(RuntimeError, match="GX failed on raw_events"):
            run.validate_day(ledger, DAY, load_catalog())
        ((frames_left,),) = ledger.con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name LIKE 'quality_%'"
        ).fetchall()
    assert len(validated) >= 2
    assert frames_left == 0


def _outcomes(report: run.QualityReport) -> list[tuple[str, str, bool, int | None]]:
    return [
        (o.frame, o.description or o.expectation, o.success, o.unexpected_count)
        for s in report.suites
        for o in s.expectations
    ]


def test_a_process_that_validates_day_after_day_keeps_no_batch_and_registers_nothing_again(
    faulty_ledger: Path,
) -> None:
    """The stream's writer closes a day every day in one process: GX's data sources, assets
    and batch definitions are made once, and each validation's batch and metrics are dropped
    when it ends."""
    catalog = load_catalog()
    with Ledger(faulty_ledger, read_only=True) as ledger:
        first = run.validate_day(ledger, DAY, catalog)
        registered = dict(run._workspace._batch_definitions)
        second = run.validate_day(ledger, DAY, catalog)
    assert run._workspace._batch_definitions == registered
    assert {"raw_events", "ledger"} <= {suite for suite, _ in registered}
    for definition in registered.values():
        engine = definition.data_asset.datasource.get_execution_engine()
        assert engine.batch_manager.batch_cache == {}
        assert engine._metric_cache == {}
    assert first.failed > 0  # the faults are found each time, and the same ones
    assert _outcomes(second) == _outcomes(first)


def test_two_gates_at_once_in_one_process_find_what_each_finds_alone(
    clean_ledger: Path, faulty_ledger: Path
) -> None:
    catalog = load_catalog()

    def validated(path: Path) -> run.QualityReport:
        with Ledger(path, read_only=True) as ledger:
            return run.validate_day(ledger, DAY, catalog)

    alone = [validated(clean_ledger), validated(faulty_ledger)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        together = list(pool.map(validated, [clean_ledger, faulty_ledger]))
    assert [_outcomes(r) for r in together] == [_outcomes(r) for r in alone]
    assert alone[0].verdict == "PASSED" and alone[1].verdict == "BLOCKED"


def test_a_child_forked_while_another_thread_validates_can_validate(clean_ledger: Path) -> None:
    catalog = load_catalog()
    with Ledger(clean_ledger, read_only=True) as ledger:
        run.validate_day(ledger, DAY, catalog)  # the process's GX context is made

    def validates() -> bool:
        with Ledger(clean_ledger, read_only=True) as ledger:
            return run.validate_day(ledger, DAY, catalog).verdict == "PASSED"

    # the lock held as if the GX thread were validating at the fork
    assert exit_code_of_child_forked_holding(run._workspace._lock, validates, within=60) == 0
