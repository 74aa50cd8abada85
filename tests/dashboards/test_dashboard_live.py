"""Live pages through AppTest: an exception written to the ledger after the page was first
shown is marked new on the queue and the table board, a CRITICAL one is announced by name
(device strings escaped), and "Mark all as seen" clears the marks. The pages rerun on their
own through a fragment timer, which AppTest does not fire; tests/dashboards/
test_dashboard_live_browser.py shows that in Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from dashboard_data import APP, DAY, grid_rows, ledger_copy
from streamlit.testing.v1 import AppTest

from pipeline.ledger.notices import record_notices
from pipeline.ledger.store import Ledger
from pipeline.safe_text import markdown_text
from tests.tampering import rows_in_the_file

TIMEOUT = 120


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = ledger_copy(tmp_path)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    for name in ("BACCARAT_ACKS", "BACCARAT_RULES", "FORWARDED_ALLOW_IPS"):
        monkeypatch.delenv(name, raising=False)
    yield db


def add_exception(
    db: Path, exception_id: str, severity: str = "CRITICAL", table_id: str = "T01"
) -> None:
    """What the stream does when it finds an exception: a new row in the day's exceptions."""
    rank = {"CRITICAL": 4, "HIGH": 3}[severity]
    with Ledger(db) as ledger:
        rows_in_the_file(ledger).con.execute(
            "INSERT INTO exceptions VALUES (?, ?, ?, 'PB-3.10b-SETTLEMENT', "
            "'N.J.A.C. 19:47-3.10(b)', ?, ?, 'S-LIVE', 'R-LIVE-1', 3, NULL, NULL, 2000, 1000, "
            "'Player wager on seat 3 paid $10.00, owed $20.00', ['e-live'])",
            [exception_id, table_id, DAY, severity, rank],
        )


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> str:
    return str(next(m.value for m in at.metric if m.label == label))


def test_the_queue_marks_an_exception_that_arrived_since_the_user_looked(ledger: Path) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    assert metric(at, "New since you looked") == "0", "what was there at first is seen"
    assert not at.error

    add_exception(ledger, "live-critical-1")
    run(at)  # the rerun the live fragment starts once the ledger changed
    assert metric(at, "New since you looked") == "1"
    [banner] = [e.value for e in at.error]
    assert "1 new CRITICAL exception(s)" in banner
    where = f"at table {markdown_text('T01')}, round {markdown_text('R-LIVE-1')}"
    assert f"PB-3.10b-SETTLEMENT {where}" in banner
    rows = grid_rows(at.dataframe[0])
    assert isinstance(rows, pd.DataFrame)
    assert rows.iloc[0]["exception_id"] == "live-critical-1" and bool(rows.iloc[0]["new"])
    assert int(rows["new"].sum()) == 1

    at.button(key="queue-seen").click()
    run(at)
    assert metric(at, "New since you looked") == "0" and not at.error
    rows = grid_rows(at.dataframe[0])
    assert not rows["new"].any()


def test_a_hostile_table_id_in_the_banner_stays_text(ledger: Path) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    add_exception(ledger, "live-hostile", table_id="T9](javascript:alert(1))**")
    run(at)
    [banner] = [e.value for e in at.error]
    assert markdown_text("T9](javascript:alert(1))**") in banner
    assert "](javascript:" not in banner


def test_the_table_board_counts_new_exceptions_per_table(ledger: Path) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    at.switch_page("views/table_board.py")
    run(at)
    assert metric(at, "New since you looked") == "0"
    add_exception(ledger, "live-high-1", severity="HIGH")
    add_exception(ledger, "live-high-2", severity="HIGH")
    run(at)
    assert metric(at, "New since you looked") == "2"
    assert not at.error, "nothing CRITICAL arrived: no red banner"
    board = grid_rows(at.dataframe[0])
    assert isinstance(board, pd.DataFrame)
    assert dict(zip(board["table_id"], board["new_exceptions"], strict=True))["T01"] == 2
    assert int(board["new_exceptions"].sum()) == 2


def test_the_tone_is_a_short_wav_made_locally() -> None:
    from dashboards.live import tone

    wav = tone()
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE"
    assert len(wav) == 44 + 2 * 3200, "a 44-byte header, 0.4 s of 16-bit mono at 8 kHz"


def test_a_new_exception_does_not_move_the_one_being_inspected(ledger: Path) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    options = list(at.selectbox(key="inspect").options)
    at.selectbox(key="inspect").set_value(grid_rows(at.dataframe[0]).iloc[2]["exception_id"])
    run(at)
    inspected = at.selectbox(key="inspect").value
    add_exception(ledger, "live-critical-2")
    run(at)
    assert at.selectbox(key="inspect").value == inspected
    assert len(at.selectbox(key="inspect").options) == len(options) + 1


def test_on_a_streamed_ledger_only_what_the_feed_announced_is_new(ledger: Path) -> None:
    """The stream's ledger holds the exceptions of each round in play too; those the next
    events may explain are not news until the feed raises them."""
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    add_exception(ledger, "live-final")
    add_exception(ledger, "live-in-play")
    with Ledger(ledger) as writer, writer.transaction():
        record_notices(writer, [("T01", DAY)], provisional=["live-in-play"])
    run(at)
    assert metric(at, "New since you looked") == "1"
    rows = grid_rows(at.dataframe[0])
    assert list(rows.loc[rows["new"], "exception_id"]) == ["live-final"]


def test_exceptions_of_a_round_in_play_are_neither_listed_nor_counted(ledger: Path) -> None:
    """On a streamed day the ledger also holds what only ending the day now would find at a
    table still open (the round in play): the next events may explain it, so it came and
    went with each snapshot and the queue's total wandered with no withdrawal. The queue
    lists and counts only what the feed announced there, and says how many it leaves out;
    at a closed table everything stays listed."""
    with Ledger(ledger) as writer:
        rows_in_the_file(writer).con.execute(
            "DELETE FROM deliveries WHERE table_id = 'T01' AND payload_type = 'TableClosed'"
        )  # T01 is still open
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    total = len(grid_rows(at.dataframe[0]))
    add_exception(ledger, "live-final")
    add_exception(ledger, "live-in-play")
    add_exception(ledger, "closed-table-held", table_id="T02")
    with Ledger(ledger) as writer, writer.transaction():
        record_notices(
            writer, [("T01", DAY), ("T02", DAY)], provisional=["live-in-play", "closed-table-held"]
        )
    run(at)
    listed = set(grid_rows(at.dataframe[0])["exception_id"])
    assert {"live-final", "closed-table-held"} <= listed and "live-in-play" not in listed
    assert metric(at, "Shown") == f"{total + 2} of {total + 2}"
    assert any("Not listed or counted: 1 exception(s) of rounds still in play" in c.value
               for c in at.caption)  # fmt: skip


def test_the_tone_plays_once_per_new_critical_exception_when_asked_for(ledger: Path) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    add_exception(ledger, "live-quiet")
    run(at)
    assert at.error and not at.get("audio"), "no tone unless the user turned it on"
    at.toggle(key="live_sound").set_value(True)
    add_exception(ledger, "live-loud")
    run(at)
    assert len(at.get("audio")) == 1
    run(at)
    assert not at.get("audio"), "announced once, not at every rerun"
    assert at.error, "the banner stays until the exceptions are marked seen"
