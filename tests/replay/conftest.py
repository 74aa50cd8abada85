"""Shared configuration of the replay tests.

Every test names the rule it checks with ``@pytest.mark.rule("CODE", ...)`` (codes from
:data:`pipeline.rules.codes.RULE_CODES`) and cites the section of N.J.A.C. 19:47 in its
docstring. Fixtures are built with :mod:`tests.replay.builder`.
"""

from __future__ import annotations

import pytest

from pipeline.rules.codes import RULE_CODES


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "rule(*codes): the rule codes (pipeline.rules.codes.RULE_CODES) a test checks",
    )


@pytest.fixture(autouse=True)
def _rule_codes_exist(request: pytest.FixtureRequest) -> None:
    """A ``rule`` marker must name codes that exist (the N.J.A.C. 19:47 rule-code table)."""
    for marker in request.node.iter_markers("rule"):
        assert marker.args, f"{request.node.nodeid}: @pytest.mark.rule needs at least one code"
        unknown = [code for code in marker.args if code not in RULE_CODES]
        assert not unknown, f"{request.node.nodeid}: unknown rule code(s) {unknown}"
