"""Data quality gates: Great Expectations suites on the raw events and on the derived ledger
of one gaming date (:mod:`pipeline.quality.run`), and the gate of the gaming-day close
(:mod:`pipeline.quality.gate`)."""
