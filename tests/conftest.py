"""Shared pytest fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from pipeline.rules.codes import RULE_CODES
from pipeline.stream.broker import local_broker

# One fixed application key for the whole run (and every process a test starts), so no test
# writes a key under the user's home; tests of the key's sources set their own.
os.environ.setdefault("BACCARAT_AUDIT_KEY", "5a" * 32)


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[str]:
    """Bootstrap string ("127.0.0.1:PORT") of an in-memory tansu broker for this session.

    Under pytest-xdist every worker is its own session, so each worker starts its own broker
    on its own free port. Tests share the broker within a worker: use unique topic names
    and consumer group ids (e.g. with a uuid suffix).
    """
    with local_broker() as bootstrap:
        yield bootstrap


@pytest.fixture(autouse=True)
def _rule_codes_exist(request: pytest.FixtureRequest) -> None:
    """A ``rule`` marker (the rule codes a test checks, from the N.J.A.C. 19:47 rule-code
    table :data:`pipeline.rules.codes.RULE_CODES`) must name codes that exist."""
    for marker in request.node.iter_markers("rule"):
        assert marker.args, f"{request.node.nodeid}: @pytest.mark.rule needs at least one code"
        unknown = [code for code in marker.args if code not in RULE_CODES]
        assert not unknown, f"{request.node.nodeid}: unknown rule code(s) {unknown}"
