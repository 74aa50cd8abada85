"""Where an alerted exception happened, as the ledger answers it (``notice_places``): the
table's pit, and the dealer dealing at that moment, who changes when a relief dealer takes
the table (a ``RoundStarted`` naming a new dealer; null means unchanged).

The exceptions here are short and over payouts (N.J.A.C. 19:47-3.2(a), 3.3(a), the rule codes
below):
the kind a pit supervisor is called to, so the alert must name the right dealer.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from pipeline.cli import ingest_paths, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.ledger.notices import (
    NoticePlace,
    notice_places,
    pending_notices,
    record_notices,
)
from pipeline.ledger.store import Ledger
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)
RELIEF = "DLR-RELIEF"


@pytest.mark.rule("PB-3.3a-PLAYER", "PB-3.2a1-BANKER")
def test_each_notice_names_its_pit_and_the_dealer_at_that_moment(tmp_path: Path) -> None:
    emulated = simulate(1, 3, 5, parse_faults("payout=0.05"), DAY)
    events = emulated.events_by_table["T01"]
    opening = next(e for e in events if e.payload_type == "TableOpened")
    dealt = [e for e in events if e.payload_type == "RoundStarted" and not e.get("simulated")]
    relieved_at = dealt[len(dealt) // 2]
    # the relief dealer takes the table from the middle round on
    relieved_at.fields["dealer_id"] = RELIEF
    db = tmp_path / "ledger.duckdb"
    with Ledger(db) as ledger:
        ingest_paths(ledger, write_simulation(emulated, tmp_path, DAY), DEFAULT_CATALOG)
        with ledger.transaction():
            record_notices(ledger, [("T01", DAY)])
        notices = [n for n in pending_notices(ledger) if n.round_id is not None]
        places = notice_places(ledger, notices)
        started = dict(
            ledger.con.execute(
                "SELECT round_id, started_at FROM rounds WHERE table_id = 'T01'"
            ).fetchall()
        )
        # a notice the ledger does not hold has no place to tell
        stranger = replace(notices[0], notice_seq=10**9)
        assert notice_places(ledger, [stranger]) == {}
    before = [n for n in notices if started[n.round_id] < relieved_at.occurred_at]
    after = [n for n in notices if started[n.round_id] >= relieved_at.occurred_at]
    assert before and after, "payout faults on both sides of the relief"
    for notice in before:
        assert places[notice.notice_seq] == NoticePlace("BACCARAT-1", opening.get("dealer_id"))
    for notice in after:
        assert places[notice.notice_seq] == NoticePlace("BACCARAT-1", RELIEF)
