"""Transient or terminal: which errors of the streaming path are worth retrying.

A broker that times out, is not reachable yet, or is electing a leader; a ledger whose
transaction conflicted or whose file is briefly locked: these are
:class:`~pipeline.ingest.errors.TransientError` and are retried with exponential backoff.
Everything else is terminal. Bad *messages* never get here: the consumer turns them into
dead letters and carries on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from kafka import errors as kafka_errors

from pipeline.ingest.errors import PipelineError, TerminalError, TransientError
from pipeline.ledger.store import LedgerConflict, LedgerError, LedgerIOError

log = logging.getLogger(__name__)

T = TypeVar("T")

_TRANSIENT_KAFKA_NAMES = frozenset(
    {
        "NoBrokersAvailable",  # kafka-python 2.x; 3.x raises KafkaTimeoutError instead
        "KafkaTimeoutError",
        "KafkaConnectionError",
        "NodeNotReadyError",
        "RequestTimedOutError",
        "CoordinatorNotAvailableError",
        "NotCoordinatorError",
        "RebalanceInProgressError",
        "LeaderNotAvailableError",
        "NotLeaderForPartitionError",
        "UnknownTopicOrPartitionError",
        "BrokerNotAvailableError",
    }
)


def is_transient(exc: BaseException) -> bool:
    """True if retrying the same operation may succeed."""
    if isinstance(exc, TransientError):
        return True
    if isinstance(exc, TerminalError):
        return False
    if isinstance(exc, kafka_errors.KafkaError):
        if getattr(exc, "retriable", False) or type(exc).__name__ in _TRANSIENT_KAFKA_NAMES:
            return True
        # A failing rebalance listener (e.g. the ledger was busy) is wrapped in a KafkaError.
        cause = exc.__cause__
        return cause is not None and is_transient(cause)
    if type(exc).__name__ in _TRANSIENT_KAFKA_NAMES:
        return True
    if isinstance(exc, LedgerConflict):
        return True  # a write-write conflict with another worker: the whole batch reruns
    if isinstance(exc, LedgerIOError | LedgerError):
        return "lock" in str(exc).lower()
    return isinstance(exc, ConnectionError | TimeoutError)


def classify(exc: BaseException) -> PipelineError:
    """``exc`` as the pipeline's TransientError or TerminalError (the original as cause)."""
    if isinstance(exc, PipelineError):
        return exc
    kind: type[PipelineError] = TransientError if is_transient(exc) else TerminalError
    error = kind(f"{type(exc).__name__}: {exc}")
    error.__cause__ = exc
    return error


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff: ``initial``, times ``factor`` per attempt, capped at ``maximum``
    seconds; gives up after ``attempts`` tries or ``deadline`` seconds, whichever first."""

    initial: float = 0.2
    factor: float = 2.0
    maximum: float = 5.0
    attempts: int = 8
    deadline: float = 120.0

    def delays(self) -> list[float]:
        delays, delay, total = [], self.initial, 0.0
        for _ in range(self.attempts - 1):
            if total + delay > self.deadline:
                break
            delays.append(delay)
            total += delay
            delay = min(delay * self.factor, self.maximum)
        return delays


def retry_transient(
    operation: Callable[[], T],
    *,
    what: str,
    backoff: Backoff | None = None,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[BaseException, float], None] | None = None,
) -> T:
    """Run ``operation``; on a transient error wait and run it again.

    A terminal error is raised at once; a transient one that outlasts the backoff is raised
    as :class:`TransientError` (cause: the last error) so the orchestrator can reschedule.
    """
    delays = (backoff or Backoff()).delays()
    for attempt in range(len(delays) + 1):
        try:
            return operation()
        except Exception as exc:
            if not is_transient(exc):
                raise
            if attempt == len(delays):
                raise TransientError(
                    f"{what}: still failing after {attempt + 1} attempts: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            delay = delays[attempt]
            log.warning("%s: %s: %s; retrying in %.1f s", what, type(exc).__name__, exc, delay)
            if on_retry is not None:
                on_retry(exc, delay)
            sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover
