"""Retry is a type question (the dlt taxonomy): a terminal error will fail the same way again
and its input goes to dead letters; a transient error (a broker timeout, a locked file) is
retried by the orchestrator."""

from __future__ import annotations


class PipelineError(Exception):
    """Base of the pipeline's own errors."""


class TerminalError(PipelineError):
    """Retrying cannot help: bad bytes, an unknown schema, a contract violation, illegal
    rules. The input is kept as a dead letter and the pipeline carries on."""


class TransientError(PipelineError):
    """Retrying may help: the broker timed out, the ledger file is locked."""
