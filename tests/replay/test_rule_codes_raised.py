"""docs/rule-codes.md is generated from the code table and the replay's own scenarios, and
every code is raised from events or says what raises it instead."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.replay.raised import NOT_FROM_EVENTS, ROOT, Raised, problems, render


@pytest.mark.rule("PB-3.6b-CURATOR", "PB-3.11a1-CURATOR-PASS")
def test_every_listed_code_is_raised_from_events_and_the_listing_is_current() -> None:
    """PB-3.6b-CURATOR: docs/rule-codes.md once listed PB-3.6b-CURATOR and
    PB-3.11a1-CURATOR-PASS (N.J.A.C. 19:47-3.6(b), 3.11(a)1) with tests that only exercised
    helpers. Runs the replay scenarios with every finding watched: each code is raised from
    events by some test, or NOT_FROM_EVENTS says what raises it instead, and the listing is
    what `python -m tests.replay.raised` writes."""
    run = subprocess.run(
        [sys.executable, "-m", "tests.replay.raised", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-4000:] + run.stdout[-2000:]


@pytest.mark.rule("PB-3.6b-CURATOR", "NJ-DATA-CONTRACT")
def test_the_check_names_codes_never_raised_and_stale_exceptions() -> None:
    """PB-3.6b-CURATOR: the check itself, on made-up evidence (N.J.A.C. 19:47-3.6(b)): a code
    nobody raises is named, a code listed as raised elsewhere that events now raise must leave
    the list, and the listing marks both kinds."""
    raised = {"PB-3.6b-CURATOR": Raised({"test_curator::t"}, {"CuratorChanged"})}
    found = problems({**raised, "NJ-DATA-CONTRACT": Raised()})
    assert "PB-3.11a1-CURATOR-PASS: no replay of events raises it" in "\n".join(found)
    assert (
        "NJ-DATA-CONTRACT: listed in NOT_FROM_EVENTS but raised from events; remove it from "
        "the list" in found
    )
    text = render(raised)
    assert "| `CuratorChanged` | `test_curator::t` |" in text
    assert "| **never raised** |  |" in text
    assert f"| none: {NOT_FROM_EVENTS['NJ-DATA-CONTRACT'].source} | `test_ledger` |" in text
