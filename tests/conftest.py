"""Shared pytest fixtures."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.config.installation import INSTALLATION_ENV
from pipeline.rules.codes import RULE_CODES
from pipeline.stream.broker import local_broker
from pipeline.witness.provision import init_demo_installation

# One demo installation (roles, signing keys, a directory witness) per test process, and every
# process a test starts, so no test reads /etc/baccarat-audit; tests of the installation
# itself make their own. The legacy key verifies the fixtures sealed before signatures.
if INSTALLATION_ENV not in os.environ:
    _root = Path(tempfile.mkdtemp(prefix="baccarat-installation-")) / "installation"
    os.environ[INSTALLATION_ENV] = str(init_demo_installation(_root).root)
os.environ.setdefault("BACCARAT_LEGACY_AUDIT_KEY", "5a" * 32)
SESSION_INSTALLATION = Path(os.environ[INSTALLATION_ENV])


@pytest.fixture(autouse=True)
def _own_installation(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Each test acts in a copy of the session's installation, witness included: what the
    session's fixtures sealed is witnessed there (higher-scoped fixtures are set up first,
    in the session's own), and a test that forks or rolls back a copy of a ledger on purpose
    leaves no refusal behind for the next test."""
    scratch = Path(tempfile.mkdtemp(prefix="baccarat-installation-"))
    root = scratch / "installation"
    shutil.copytree(SESSION_INSTALLATION, root)
    monkeypatch.setenv(INSTALLATION_ENV, str(root))
    yield root
    shutil.rmtree(scratch, ignore_errors=True)


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
