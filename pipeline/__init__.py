"""Surveillance and audit event pipeline for New Jersey baccarat.

Layers, each knowing only those below it:
rules (pure) -> events (Avro contract) -> simulate / replay -> ledger (DuckDB)
-> ingest, reports -> flows and dashboards.
"""
