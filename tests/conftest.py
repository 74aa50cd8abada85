"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pipeline.stream.broker import local_broker


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[str]:
    """Bootstrap string ("127.0.0.1:PORT") of an in-memory tansu broker for this session.

    Under pytest-xdist every worker is its own session, so each worker starts its own broker
    on its own free port. Tests share the broker within a worker: use unique topic names
    and consumer group ids (e.g. with a uuid suffix).
    """
    with local_broker() as bootstrap:
        yield bootstrap
