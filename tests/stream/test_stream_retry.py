"""Transient errors are retried with backoff; terminal ones are not."""

from __future__ import annotations

import duckdb
import pytest
from kafka import errors as kafka_errors

from pipeline.ingest.errors import TerminalError, TransientError
from pipeline.stream.retry import Backoff, classify, is_transient, retry_transient


@pytest.mark.parametrize(
    "error",
    [
        kafka_errors.KafkaTimeoutError("Unable to bootstrap from 127.0.0.1:1"),
        kafka_errors.KafkaConnectionError("reset"),
        kafka_errors.RequestTimedOutError(),
        kafka_errors.NodeNotReadyError(),
        kafka_errors.LeaderNotAvailableError(),
        duckdb.TransactionException("Conflict on tuple deletion!"),
        TransientError("the broker timed out"),
        TimeoutError(),
    ],
)
def test_transient(error: Exception) -> None:
    assert is_transient(error)
    assert isinstance(classify(error), TransientError)


@pytest.mark.parametrize(
    "error",
    [
        kafka_errors.KafkaConfigurationError("Unrecognized configs"),
        kafka_errors.TopicAuthorizationFailedError(),
        duckdb.ConstraintException("duplicate key"),
        ValueError("bad"),
        TerminalError("bad bytes"),
    ],
)
def test_terminal(error: Exception) -> None:
    assert not is_transient(error)
    assert isinstance(classify(error), TerminalError)


def test_a_wrapped_listener_failure_is_classified_by_its_cause() -> None:
    wrapped = kafka_errors.KafkaError("User rebalance callback throws an error")
    wrapped.__cause__ = duckdb.TransactionException("conflict")
    assert is_transient(wrapped)


def test_retries_with_growing_delays_then_succeeds() -> None:
    calls: list[int] = []
    waits: list[float] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 4:
            raise kafka_errors.KafkaTimeoutError("broker busy")
        return "ok"

    result = retry_transient(flaky, what="poll", backoff=Backoff(initial=0.1), sleep=waits.append)
    assert result == "ok"
    assert waits == [0.1, 0.2, 0.4]


def test_gives_up_as_transient_error_after_the_budget() -> None:
    waits: list[float] = []

    def down() -> None:
        raise kafka_errors.KafkaTimeoutError("Unable to bootstrap")

    with pytest.raises(TransientError, match="still failing after 3 attempts") as caught:
        retry_transient(down, what="connect", backoff=Backoff(attempts=3), sleep=waits.append)
    assert isinstance(caught.value.__cause__, kafka_errors.KafkaTimeoutError)
    assert len(waits) == 2


def test_terminal_errors_are_not_retried() -> None:
    waits: list[float] = []

    def broken() -> None:
        raise ValueError("not a retry matter")

    with pytest.raises(ValueError):
        retry_transient(broken, what="x", sleep=waits.append)
    assert waits == []


def test_backoff_is_capped_and_bounded_by_its_deadline() -> None:
    assert Backoff(initial=1, factor=10, maximum=5, attempts=5, deadline=100).delays() == [
        1,
        5,
        5,
        5,
    ]
    assert Backoff(initial=1, factor=2, maximum=8, attempts=10, deadline=4).delays() == [1, 2]
