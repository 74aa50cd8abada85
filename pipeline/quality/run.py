"""Run the quality suites on one gaming date of a ledger with Great Expectations (GX Core 1.x)
and report what they found.

An ephemeral (in-memory) GX context is built per run: one pandas data source per suite, one
DataFrame asset and one GX ExpectationSuite per frame, validated through a
ValidationDefinition. Failing expectations are data findings: they are counted, described and
written to a JSON file, and :func:`run_quality` returns normally whatever they say.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.events import default_codec
from pipeline.ledger.store import Ledger
from pipeline.quality.frames import (
    Frames,
    event_contract,
    ledger_frames,
    raw_event_frames,
    table_days,
)
from pipeline.quality.suites import Expectations, RawSuiteParams, ledger_suite, raw_events_suite
from pipeline.rules.config import TableRules

SAMPLE = 20
"""How many offending values and rows a failing expectation reports."""


@dataclass
class ExpectationOutcome:
    """One expectation's verdict, with what it observed."""

    suite: str
    frame: str
    expectation: str
    description: str | None
    kwargs: dict[str, Any]
    success: bool
    element_count: int | None = None
    unexpected_count: int | None = None
    unexpected_percent: float | None = None
    observed_value: Any = None
    unexpected_sample: list[Any] = field(default_factory=list)
    unexpected_rows: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    def headline(self) -> str:
        what = self.description or f"{self.expectation} {self.kwargs}"
        if self.error:
            return f"{self.suite}.{self.frame}: {what}: could not be evaluated ({self.error})"
        if self.unexpected_count is not None:
            return (
                f"{self.suite}.{self.frame}: {what}: {self.unexpected_count} of "
                f"{self.element_count} rows fail, e.g. {self.unexpected_sample[:3]}"
            )
        return f"{self.suite}.{self.frame}: {what}: observed {self.observed_value!r}"


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
    result_file: Path | None = None

    @property
    def success(self) -> bool:
        return all(s.success for s in self.suites)

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
        return f"quality {self.gaming_date}: {'; '.join(parts)} ({self.seconds:.1f} s)"

    def to_json(self, *, with_passing: bool = True) -> dict[str, Any]:
        return {
            "gaming_date": self.gaming_date.isoformat(),
            "ledger": str(self.ledger),
            "success": self.success,
            "evaluated": self.evaluated,
            "failed": self.failed,
            "seconds": round(self.seconds, 3),
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
    ``quality-<date>.json`` to ``out_dir`` (default: ``reports`` next to the ledger).

    Opens the ledger read-only. Returns normally whatever the data looks like; only an
    unusable ledger or catalog raises.
    """
    started = time.perf_counter()
    catalog = catalog if catalog is not None else load_catalog(catalog_path)
    contract = event_contract(default_codec())
    with Ledger(ledger_path, read_only=True) as ledger:
        tables = table_days(ledger.con, gaming_date, catalog)
        raw = raw_event_frames(ledger.con, gaming_date, contract, tables)
        derived = ledger_frames(ledger.con, gaming_date)
    context = _context()
    suites = [
        _validate(
            context,
            "raw_events",
            raw,
            raw_events_suite(RawSuiteParams(contract, tables, catalog, tolerance_s)),
        ),
        _validate(context, "ledger", derived, ledger_suite(contract, catalog)),
    ]
    report = QualityReport(gaming_date, ledger_path, suites, time.perf_counter() - started)
    out_dir = out_dir if out_dir is not None else ledger_path.parent / "reports"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"quality-{gaming_date.isoformat()}.json"
    path.write_text(json.dumps(report.to_json(), indent=2, default=_json_default) + "\n")
    report.result_file = path
    return report


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


def _validate(context: Any, suite: str, frames: Frames, expectations: Expectations) -> SuiteReport:
    import great_expectations as gx

    started = time.perf_counter()
    source = context.data_sources.add_pandas(suite)
    outcomes: list[ExpectationOutcome] = []
    for frame_name, frame in frames.frames.items():
        wanted = expectations.get(frame_name, [])
        if not wanted:
            continue
        batch = source.add_dataframe_asset(frame_name).add_batch_definition_whole_dataframe(
            "gaming_day"
        )
        gx_suite = context.suites.add(
            gx.ExpectationSuite(name=f"{suite}.{frame_name}", expectations=wanted)
        )
        definition = context.validation_definitions.add(
            gx.ValidationDefinition(name=f"{suite}.{frame_name}", data=batch, suite=gx_suite)
        )
        result = definition.run(
            batch_parameters={"dataframe": frame},
            result_format={
                "result_format": "SUMMARY",
                "partial_unexpected_count": SAMPLE,
                "unexpected_index_column_names": frames.index_columns[frame_name],
            },
        )
        outcomes.extend(_outcome(suite, frame_name, r) for r in result.results)
    failures = [o for o in outcomes if not o.success]
    return SuiteReport(
        name=suite,
        success=not failures,
        evaluated=len(outcomes),
        failed=len(failures),
        rows={name: len(frame) for name, frame in frames.frames.items()},
        seconds=time.perf_counter() - started,
        failures=failures,
        expectations=outcomes,
    )


def _outcome(suite: str, frame: str, r: Any) -> ExpectationOutcome:
    config = r.expectation_config
    kwargs = {k: _plain(v) for k, v in config.kwargs.items() if k != "batch_id"}
    if "row_condition" in kwargs and kwargs["row_condition"] is not None:
        kwargs["row_condition"] = str(config.kwargs["row_condition"])
    result: dict[str, Any] = dict(r.result or {})
    info = r.exception_info or {}
    raised = bool(info.get("raised_exception")) if isinstance(info, dict) else False
    return ExpectationOutcome(
        suite=suite,
        frame=frame,
        expectation=str(config.type),
        description=getattr(config, "description", None),
        kwargs=kwargs,
        success=bool(r.success),
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


def _json_default(value: object) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    return str(value)
