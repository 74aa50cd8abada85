"""Run the quality suites on one gaming date of a ledger with Great Expectations (GX Core 1.x)
and report what they found.

The process keeps one ephemeral (in-memory) GX context: one pandas data source per suite and
one DataFrame asset per frame, made once; each run validates a GX ExpectationSuite of the
day's expectations per frame on a batch of it. Failing expectations are data findings: they
are counted, described, classified by their :class:`~pipeline.quality.suites.Level` and
written to a JSON file and an offline Data Docs page; :func:`run_quality` returns normally
whatever they say. Whether they block the close is for :mod:`pipeline.quality.gate` to
decide.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.events import default_codec
from pipeline.ledger.quality_frames import (
    Frames,
    event_contract,
    ledger_frames,
    raw_event_frames,
    table_days,
)
from pipeline.ledger.quality_measures import SAMPLE, type_witnesses
from pipeline.ledger.quality_results import day_fingerprint
from pipeline.ledger.store import Ledger
from pipeline.quality.levels import Level
from pipeline.rules.config import TableRules

if TYPE_CHECKING:  # Great Expectations loads in seconds: while DuckDB builds the frames
    from pipeline.quality.suites import Expectations


@dataclass
class ExpectationOutcome:
    """One expectation's verdict, with what it observed."""

    suite: str
    frame: str
    expectation: str
    description: str | None
    kwargs: dict[str, Any]
    success: bool
    level: Level
    why: str
    """What a failure makes untrustworthy (BLOCK) or where the replay reports it (WARN)."""
    element_count: int | None = None
    unexpected_count: int | None = None
    unexpected_percent: float | None = None
    observed_value: Any = None
    unexpected_sample: list[Any] = field(default_factory=list)
    unexpected_rows: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    @property
    def name(self) -> str:
        """``suite.frame: description``, how reports and the gate name an expectation."""
        return f"{self.suite}.{self.frame}: {self.description or self.expectation}"

    def headline(self) -> str:
        what = f"[{self.level}] {self.suite}.{self.frame}: "
        what += self.description or f"{self.expectation} {self.kwargs}"
        if self.error:
            return f"{what}: could not be evaluated ({self.error})"
        if self.unexpected_count is not None:
            return (
                f"{what}: {self.unexpected_count} of "
                f"{self.element_count} rows fail, e.g. {self.unexpected_sample[:3]}"
            )
        return f"{what}: observed {self.observed_value!r}"


@dataclass
class SuiteReport:
    name: str
    success: bool
    evaluated: int
    failed: int
    rows: dict[str, int]
    seconds: float
    failures: list[ExpectationOutcome]
    expectations: list[ExpectationOutcome]


@dataclass
class QualityReport:
    """What the suites found for one gaming date; ``success`` is a data verdict only."""

    gaming_date: date
    ledger: Path
    suites: list[SuiteReport]
    seconds: float
    fingerprint: str = ""
    """The ledger state validated (:func:`~pipeline.ledger.quality_results.day_fingerprint`):
    a close compares it with the ledger's state at closing time, and validates again when the
    day changed since."""
    result_file: Path | None = None
    docs_file: Path | None = None
    docs_problem: str | None = None
    """Why the Data Docs page is the plain one (GX's rendering failed or was unsafe)."""
    gx_results: list[Any] = field(default_factory=list, repr=False, compare=False)
    """GX's ExpectationSuiteValidationResult per validated frame, for the Data Docs."""

    @property
    def success(self) -> bool:
        return all(s.success for s in self.suites)

    @property
    def verdict(self) -> str:
        """``PASSED``; ``WARNINGS`` when only WARN expectations failed (the close goes ahead);
        ``BLOCKED`` when a BLOCK expectation failed (the close is refused)."""
        if self.blocking():
            return "BLOCKED"
        return "WARNINGS" if self.failing() else "PASSED"

    def blocking(self) -> list[ExpectationOutcome]:
        return [f for f in self.failing() if f.level is Level.BLOCK]

    def warnings(self) -> list[ExpectationOutcome]:
        return [f for f in self.failing() if f.level is Level.WARN]

    @property
    def evaluated(self) -> int:
        return sum(s.evaluated for s in self.suites)

    @property
    def failed(self) -> int:
        return sum(s.failed for s in self.suites)

    def suite(self, name: str) -> SuiteReport:
        return next(s for s in self.suites if s.name == name)

    def failing(self) -> list[ExpectationOutcome]:
        return [f for s in self.suites for f in s.failures]

    def summary(self) -> str:
        parts = [
            f"{s.name} {s.evaluated - s.failed}/{s.evaluated} expectations met" for s in self.suites
        ]
        return (
            f"quality {self.gaming_date}: {self.verdict}; {'; '.join(parts)}; "
            f"{len(self.blocking())} blocking, {len(self.warnings())} warnings "
            f"({self.seconds:.1f} s)"
        )

    def to_json(self, *, with_passing: bool = True) -> dict[str, Any]:
        return {
            "gaming_date": self.gaming_date.isoformat(),
            "ledger": str(self.ledger),
            "verdict": self.verdict,
            "success": self.success,
            "evaluated": self.evaluated,
            "failed": self.failed,
            "blocking": len(self.blocking()),
            "warnings": len(self.warnings()),
            "fingerprint": self.fingerprint,
            "seconds": round(self.seconds, 3),
            "docs_problem": self.docs_problem,
            "suites": [
                {
                    "name": s.name,
                    "success": s.success,
                    "evaluated": s.evaluated,
                    "failed": s.failed,
                    "rows": s.rows,
                    "seconds": round(s.seconds, 3),
                    "failures": [asdict(f) for f in s.failures],
                    **(
                        {"expectations": [_brief(e) for e in s.expectations]}
                        if with_passing
                        else {}
                    ),
                }
                for s in self.suites
            ],
        }


def _brief(e: ExpectationOutcome) -> dict[str, Any]:
    return {
        "frame": e.frame,
        "expectation": e.expectation,
        "description": e.description,
        "level": e.level.value,
        "success": e.success,
        "unexpected_count": e.unexpected_count,
        "element_count": e.element_count,
    }


def run_quality(
    ledger_path: Path,
    gaming_date: date,
    out_dir: Path | None = None,
    *,
    catalog: Mapping[str, TableRules] | None = None,
    catalog_path: Path = DEFAULT_CATALOG,
    tolerance_s: float = 600.0,
) -> QualityReport:
    """Validate the raw events and the ledger rows of ``gaming_date`` and write
    ``quality-<date>.json`` and the Data Docs page ``quality-<date>.html`` to ``out_dir``
    (default: ``reports`` next to the ledger).

    Opens the ledger read-only. Returns normally whatever the data looks like; only an
    unusable ledger or catalog raises.
    """
    catalog = catalog if catalog is not None else load_catalog(catalog_path)
    with Ledger(ledger_path, read_only=True) as ledger:
        report = validate_day(ledger, gaming_date, catalog, tolerance_s)
    write_results(report, out_dir if out_dir is not None else ledger_path.parent / "reports")
    return report


FRAMES_MEMORY = "384MB"
"""DuckDB's memory while it holds a day's frames. GX, pandas and the evidence rows take about
350 MB besides, so the gate stays under 1 GB whatever the day's size. Measured on a 24-table
day (1.0M events), whose frames spill beyond it: the gate peaked at 718 MB in 13.5 s of CPU
(unsorted frames). With frames sorted, as before: 731 MB in 15.5 s; with 512 MB at 849 MB in
15.9 s, with 256 MB at 618 MB in 19.4 s (spilling more)."""


def validate_day(
    ledger: Ledger,
    gaming_date: date,
    catalog: Mapping[str, TableRules],
    tolerance_s: float = 600.0,
) -> QualityReport:
    """Validate ``gaming_date`` over an open ledger (the close validates on its own writer
    connection: DuckDB allows one configuration per file and process).

    The frames live in DuckDB within :data:`FRAMES_MEMORY` (beyond it DuckDB spills them to
    its temporary directory), so a day of any size validates in bounded memory."""
    started = time.perf_counter()
    contract = event_contract(default_codec())
    fingerprint = day_fingerprint(ledger, gaming_date)
    tables = table_days(ledger, gaming_date, catalog)
    # DuckDB releases the GIL while it builds the frames: GX imports on the other core
    gx_loaded = threading.Thread(target=_import_suites, name="import-gx", daemon=True)
    gx_loaded.start()
    with ledger.memory_held_to(FRAMES_MEMORY):
        raw = derived = None
        try:
            raw = raw_event_frames(ledger, gaming_date, contract, tables)
            derived = ledger_frames(ledger, gaming_date)
            gx_loaded.join()
            from pipeline.quality.suites import RawSuiteParams, ledger_suite, raw_events_suite

            gx_results: list[Any] = []
            suites = [
                _validate(
                    "raw_events",
                    raw,
                    raw_events_suite(RawSuiteParams(contract, tables, catalog, tolerance_s)),
                    gx_results,
                ),
                _validate("ledger", derived, ledger_suite(contract, catalog), gx_results),
            ]
        finally:
            for frames in (raw, derived):
                if frames is not None:
                    frames.drop()
    return QualityReport(
        gaming_date,
        ledger.path,
        suites,
        time.perf_counter() - started,
        fingerprint,
        gx_results=gx_results,
    )


def _import_suites() -> None:
    """Import the suites and Great Expectations (an import error shows again, in the caller,
    when it imports them itself)."""
    from pipeline.quality.gx_import import import_great_expectations

    import_great_expectations()
    import pipeline.quality.measure
    import pipeline.quality.suites  # noqa: F401


def write_results(report: QualityReport, out_dir: Path) -> None:
    """Write ``quality-<date>.json`` (every outcome) and ``quality-<date>.html`` (GX Data
    Docs, readable offline) to ``out_dir``, and note both paths in the report."""
    from pipeline.quality.docs import write_data_docs

    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"quality-{report.gaming_date.isoformat()}"
    report.result_file = stem.with_suffix(".json")
    report.docs_file = stem.with_suffix(".html")
    write_data_docs(report, report.docs_file)  # first: a rendering problem goes in the JSON
    report.result_file.write_text(
        json.dumps(report.to_json(), indent=2, default=json_default) + "\n"
    )


class _Workspace:
    """The process's in-memory GX context, with one pandas data source per suite and one
    DataFrame asset and batch definition per frame, made once.

    Registering them writes GX's whole project configuration out as YAML (32 times a gate:
    about 0.3 s of a warm gate's 1.6-2.2 s of CPU on a 1-table day) though nothing reads it
    back; a suite's expectations change with the day, so they are never registered: each
    validation runs a suite of its own on a batch of the frame (:func:`gx_run`). The lock
    keeps one validation at a time in GX, which is Python on one core anyway, so the data
    source's engine can forget each batch and metric when its validation ends: a process
    that closes day after day keeps nothing of them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._context: Any = None
        self._sources: dict[str, Any] = {}
        self._batch_definitions: dict[tuple[str, str], Any] = {}
        os.register_at_fork(after_in_child=self._fresh_lock_in_child)

    def _fresh_lock_in_child(self) -> None:
        """A process forked while another thread validated (the replay's workers fork) would
        wait for the lock forever: the child gets its own."""
        self._lock = threading.Lock()

    def batch_definition(self, suite: str, frame: str) -> Any:
        """The whole-DataFrame batch definition of ``frame`` in ``suite``'s data source."""
        with self._lock:
            if (suite, frame) not in self._batch_definitions:
                if self._context is None:
                    self._context = _context()
                if suite not in self._sources:
                    self._sources[suite] = self._context.data_sources.add_pandas(suite)
                asset = self._sources[suite].add_dataframe_asset(frame)
                self._batch_definitions[suite, frame] = asset.add_batch_definition_whole_dataframe(
                    "gaming_day"
                )
            return self._batch_definitions[suite, frame]

    @contextmanager
    def validating(self, batch_definition: Any) -> Iterator[None]:
        """One validation on ``batch_definition`` at a time; its batch and metrics are then
        forgotten (GX 1.24 keeps the metrics in its engine's ``_metric_cache``, with no
        public way to drop them)."""
        with self._lock:
            try:
                yield
            finally:
                engine = batch_definition.data_asset.datasource.get_execution_engine()
                engine.batch_manager.reset_batch_cache()
                engine._metric_cache.clear()


_workspace = _Workspace()


def _context() -> Any:
    """An in-memory GX context without analytics or progress bars."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(),
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False),
    )
    return gx.get_context(mode="ephemeral", project_config=config)


def _validate(
    suite: str, frames: Frames, expectations: Expectations, gx_results: list[Any]
) -> SuiteReport:
    """Validate every frame of ``suite``: DuckDB counts each expectation over the whole frame
    (:mod:`pipeline.quality.measure`), GX validates the evidence rows and reports them.

    GX validates on a thread of its own, frame after frame as their evidence rows are read:
    its validation is Python on one core, while DuckDB (which releases the GIL) counts the
    next frame on the other (both suites of a 24-table day: 3.0 s -> 2.8 s). The GX objects
    are all made first, on this thread; the GX thread only runs them."""
    from pipeline.quality.measure import measure, settle

    started = time.perf_counter()
    validations = {
        frame_name: gx_validation(suite, frame_name, expectations[frame_name])
        for frame_name in frames.tables
        if expectations.get(frame_name)
    }
    runs = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"gx-{suite}") as gx:
        for frame_name, validation in validations.items():
            measured = measure(frames, frame_name, validation.suite.expectations)
            evidence = frames.rows_at(
                frame_name,
                [
                    *type_witnesses(frames, frame_name),
                    *(p for m in measured.values() if m for p in m.evidence),
                ],
            )
            run = gx.submit(gx_run, validation, evidence, frames.index_columns[frame_name])
            runs.append((frame_name, measured, run))
    outcomes: list[ExpectationOutcome] = []
    for frame_name, measured, run in runs:
        result = run.result()
        for r in result.results:  # GX saw the evidence rows; the counts are the whole frame's
            settle(r.result, measured[r.expectation_config.id])
        gx_results.append(result)
        outcomes.extend(_outcome(suite, frame_name, r) for r in result.results)
    failures = [o for o in outcomes if not o.success]
    return SuiteReport(
        name=suite,
        success=not failures,
        evaluated=len(outcomes),
        failed=len(failures),
        rows=dict(frames.rows),
        seconds=time.perf_counter() - started,
        failures=failures,
        expectations=outcomes,
    )


@dataclass(frozen=True)
class GxValidation:
    """A GX suite of one frame's expectations and the batch definition it validates."""

    batch_definition: Any
    suite: Any


def gx_validation(suite: str, frame: str, expectations: list[Any]) -> GxValidation:
    """The validation of ``expectations`` on the DataFrame asset ``frame`` of ``suite``'s
    data source; the GX suite is named ``suite.frame`` and each expectation has an id of its
    own, which keys what :func:`~pipeline.quality.measure.measure` counted for it."""
    import great_expectations as gx

    checks = gx.ExpectationSuite(name=f"{suite}.{frame}", expectations=expectations)
    for expectation in checks.expectations:
        expectation.id = str(uuid.uuid4())
    return GxValidation(_workspace.batch_definition(suite, frame), checks)


def gx_run(validation: GxValidation, frame: pd.DataFrame, index_columns: list[str]) -> Any:
    """GX's ExpectationSuiteValidationResult of ``validation`` on ``frame``."""
    from great_expectations.core.run_identifier import RunIdentifier

    with _workspace.validating(validation.batch_definition):
        batch = validation.batch_definition.get_batch(batch_parameters={"dataframe": frame})
        result = batch.validate(
            validation.suite,
            result_format={
                "result_format": "SUMMARY",
                "partial_unexpected_count": SAMPLE,
                "unexpected_index_column_names": index_columns,
            },
        )
    run = RunIdentifier(run_time=datetime.now(UTC))
    result.meta.update(run_id=run, validation_time=run.run_time)
    return result


def _outcome(suite: str, frame: str, r: Any) -> ExpectationOutcome:
    from pipeline.quality.suites import level_of

    config = r.expectation_config
    kwargs = {k: _plain(v) for k, v in config.kwargs.items() if k != "batch_id"}
    if "row_condition" in kwargs and kwargs["row_condition"] is not None:
        kwargs["row_condition"] = str(config.kwargs["row_condition"])
    result: dict[str, Any] = dict(r.result or {})
    info = r.exception_info or {}
    raised = bool(info.get("raised_exception")) if isinstance(info, dict) else False
    meta = dict(config.meta or {})
    return ExpectationOutcome(
        suite=suite,
        frame=frame,
        expectation=str(config.type),
        description=getattr(config, "description", None),
        kwargs=kwargs,
        success=bool(r.success),
        level=level_of(meta),
        why=str(meta.get("why", "")),
        element_count=result.get("element_count"),
        unexpected_count=result.get("unexpected_count"),
        unexpected_percent=_plain(result.get("unexpected_percent")),
        observed_value=_plain(result.get("observed_value")),
        unexpected_sample=_plain(result.get("partial_unexpected_list", []))[:SAMPLE],
        unexpected_rows=_plain(result.get("partial_unexpected_index_list", []))[:SAMPLE],
        error=str(info.get("exception_message")) if raised else None,
    )


def _plain(value: Any) -> Any:
    """JSON-friendly Python values from numpy/pandas scalars and containers."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        try:
            value = value.item()
        except (ValueError, AttributeError):
            return str(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is pd.NaT:
        return None
    return value


def json_default(value: object) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    return str(value)
