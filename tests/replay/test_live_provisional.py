"""The live replay tells the findings of the round in play (provisional: the next events may
complete the round) from final ones, so the live feed never announces a half-dealt round."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.config.catalog import load_catalog
from pipeline.replay.live import LiveReplay
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

CATALOG = load_catalog()


@pytest.mark.rule("NJ-DATA-DUPLICATE")
def test_a_clean_day_cut_anywhere_has_only_provisional_findings_and_a_duplicate_is_final() -> None:
    """N.J.A.C. 19:47-3.7-3.10 as the devices record them: a batch that ends mid-round leaves
    only provisional findings (the next events complete the round); a duplicate delivery is
    final at once (NJ-DATA-DUPLICATE)."""
    events = simulate(1, 1, 5, parse_faults("none"), date(2026, 11, 24), CATALOG).events_by_table[
        "T01"
    ]
    live = LiveReplay("T01", CATALOG)
    provisional_seen = 0
    for start in range(0, len(events), 37):  # batches that end mid-round
        live.add(events[start : start + 37])
        findings = live.result().findings
        assert set(findings) == set(live.provisional), f"a final finding at event {start}"
        provisional_seen += len(live.provisional)
    assert provisional_seen > 0, "some batch ended in the middle of a round"
    assert live.result().findings == [] and live.provisional == (), "the table closed: all final"

    live.add([events[250]])  # a device sends an event again
    [duplicate] = live.result().findings
    assert duplicate.code == "NJ-DATA-DUPLICATE" and live.provisional == ()
