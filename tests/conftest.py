"""Shared pytest fixtures."""

from __future__ import annotations

import json
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


# ---------------------------------------------------------------------- the longest first
DURATIONS = Path(__file__).with_name("durations.json")
"""Seconds each test took (setup, call and teardown; tests under a second left out), as
``--store-durations`` wrote them on a 2-core machine."""
UNMEASURED_SECONDS = 0.3
"""What a test missing from :data:`DURATIONS` is taken to cost."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-durations",
        action="store_true",
        help=f"write each test's time to {DURATIONS.name}, for the order the next runs take",
    )


def _plain_id(nodeid: str) -> str:
    """A test's node id without the ``@group`` pytest-xdist's loadgroup appends."""
    head, at, group = nodeid.rpartition("@")
    return head if at and "]" not in group else nodeid


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the tests by the measured time of their unit, the longest first: a unit is an
    ``xdist_group`` (which ``--dist loadgroup`` gives one worker) or a module (whose tests
    stay together, so its module-scoped fixtures are set up once per worker). xdist hands the
    tests out in this order (``--no-loadscope-reorder``), so the longest start at once and
    the short ones fill the workers' ends, instead of a long test collected last running
    alone at the end; within a unit the tests keep the order they were written in."""
    if not DURATIONS.exists():
        return
    took: dict[str, float] = json.loads(DURATIONS.read_text())
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        group = item.get_closest_marker("xdist_group")
        if group is not None:
            key = f"@{group.args[0] if group.args else group.kwargs['name']}"
        else:
            key = item.nodeid.split("::", 1)[0]
        units.setdefault(key, []).append(item)
    cost = {
        key: sum(took.get(_plain_id(item.nodeid), UNMEASURED_SECONDS) for item in members)
        for key, members in units.items()
    }
    items[:] = [item for key in sorted(units, key=lambda k: -cost[k]) for item in units[key]]


class _Durations:
    """Each test's seconds, summed over its phases, written at the session's end: the
    controller's view under xdist, which receives every worker's reports."""

    def __init__(self) -> None:
        self.took: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid = _plain_id(report.nodeid)
        self.took[nodeid] = self.took.get(nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return  # a worker: the controller writes
        kept = {k: round(v, 2) for k, v in sorted(self.took.items()) if v >= 1.0}
        DURATIONS.write_text(json.dumps(kept, indent=0, sort_keys=True) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--store-durations"):
        config.pluginmanager.register(_Durations(), "store-durations")
