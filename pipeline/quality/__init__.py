"""Data quality gates: Great Expectations suites on the raw events and on the derived ledger
of one gaming date. Failures are data findings, reported and never raised."""

from pipeline.quality.run import ExpectationOutcome, QualityReport, SuiteReport, run_quality

__all__ = ["ExpectationOutcome", "QualityReport", "SuiteReport", "run_quality"]
