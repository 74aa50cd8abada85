"""The exception queue as a subscriber of the exceptions topic (issue 14): an exception the
stream published shows in the queue before any ledger snapshot holds it, marked unconfirmed,
and the next snapshot confirms it (or contradicts it, which the page says); a withdrawal
likewise. Against the session's tansu broker, through AppTest; the benchmark
(benchmarks/bench_alert_latency.py) shows the same in Chromium at 2,500 events/s."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
from dashboard_data import APP, DAY, grid_rows, ledger_copy
from kafka import KafkaProducer
from streamlit.testing.v1 import AppTest

from dashboards import feed, source
from pipeline.events.exception_notices import NoticeCodec
from pipeline.ledger.notices import RAISED, WITHDRAWN, ExceptionNotice
from pipeline.ledger.store import Ledger
from pipeline.safe_text import markdown_text
from pipeline.stream.alerts import Alert
from pipeline.stream.notices import notice_record
from pipeline.stream.settings import PREFIX, KafkaSettings, env_var
from pipeline.stream.topics import ensure_topics
from tests.outbox import insert_notice
from tests.tampering import rows_in_the_file

TIMEOUT = 120
UNCONFIRMED = "Live, not yet confirmed by the ledger"
NOTICE = ExceptionNotice(
    notice_seq=1_000_001,
    state=RAISED,
    exception_id="feed-critical-1",
    table_id="T01",
    gaming_date=DAY,
    code="PB-3.10b-SETTLEMENT",
    section="N.J.A.C. 19:47-3.10(b)",
    severity="CRITICAL",
    severity_rank=4,
    shoe_id="S-LIVE",
    round_id="R-LIVE-1",
    seat=3,
    patron_id=None,
    serial=None,
    expected_cents=2000,
    actual_cents=1000,
    message="Player wager on seat 3 paid $10.00, owed $20.00",
    source_event_ids=("e-live",),
    recorded_at=datetime(2026, 11, 24, 22, 0),
)


def topics_of_its_own(bootstrap: str) -> KafkaSettings:
    """Settings for topics no other test uses, created."""
    suffix = uuid.uuid4().hex[:8]
    made = KafkaSettings(
        bootstrap_servers=bootstrap,
        topic=f"table-events-{suffix}",
        exceptions_topic=f"audit-exceptions-{suffix}",
        group_id=f"auditors-{suffix}",
    )
    ensure_topics(made)
    return made


@pytest.fixture
def settings(kafka_broker: str) -> KafkaSettings:
    return topics_of_its_own(kafka_broker)


@pytest.fixture
def ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: KafkaSettings
) -> Iterator[Path]:
    db = ledger_copy(tmp_path)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    for name in ("BACCARAT_ACKS", "BACCARAT_RULES", "FORWARDED_ALLOW_IPS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(env_var("bootstrap_servers"), settings.bootstrap_servers)
    monkeypatch.setenv(env_var("exceptions_topic"), settings.exceptions_topic)
    yield db
    feed.stop_feeds()
    db.unlink()  # the snapshot refresher of this ledger stops


def publish(settings: KafkaSettings, notice: ExceptionNotice) -> None:
    """What the stream does once the notice's batch committed (pipeline.stream.notices)."""
    producer = KafkaProducer(**settings.producer_kwargs(acks="all"))
    try:
        record = notice_record(Alert(notice), datetime.now(UTC))
        producer.send(settings.exceptions_topic, NoticeCodec().encode(record))
        producer.flush()
    finally:
        producer.close()


def commit(db: Path, notice: ExceptionNotice) -> None:
    """What the stream's batch transaction writes: the exception (gone, for a withdrawal)
    and its notice in the outbox."""
    n = notice
    with Ledger(db) as writer, writer.transaction():
        rows_in_the_file(writer)  # the stream writes an open day's rows
        if n.state == RAISED:
            writer.con.execute(
                "INSERT INTO exceptions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [n.exception_id, n.table_id, n.gaming_date, n.code, n.section, n.severity,
                 n.severity_rank, n.shoe_id, n.round_id, n.seat, n.patron_id, n.serial,
                 n.expected_cents, n.actual_cents, n.message, list(n.source_event_ids)],
            )  # fmt: skip
        else:
            writer.con.execute("DELETE FROM exceptions WHERE exception_id = ?", [n.exception_id])
        insert_notice(writer.con, n)


def until_the_feed_has(notice: ExceptionNotice) -> None:
    following = feed.exceptions_feed()
    assert following is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(n.notice_seq == notice.notice_seq for n in following.notices(DAY)):
            return
        time.sleep(0.05)
    raise AssertionError(f"the feed never received notice {notice.notice_seq}: {following.problem}")


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> str:
    return str(next(m.value for m in at.metric if m.label == label))


def unconfirmed_rows(at: AppTest) -> pd.DataFrame | None:
    """The rows of the unconfirmed panel, if the page shows it."""
    if not any(UNCONFIRMED in m.value for m in at.markdown):
        return None
    frames = [grid_rows(d) for d in at.dataframe if "announced" in d.value.columns]
    assert len(frames) == 1
    rows: pd.DataFrame = frames[0]
    return rows


def queue_ids(at: AppTest) -> set[str]:
    queue = next(grid_rows(d) for d in at.dataframe if "held_by" in d.value.columns)
    return set(queue["exception_id"])


def test_a_published_exception_shows_unconfirmed_then_the_snapshot_confirms_it(
    ledger: Path, settings: KafkaSettings
) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    assert unconfirmed_rows(at) is None and metric(at, "New since you looked") == "0"
    before = source.latest()
    assert before is not None

    publish(settings, NOTICE)
    until_the_feed_has(NOTICE)
    run(at)
    after = source.latest()
    assert after is not None and after.key == before.key, "the ledger was not copied again"
    rows = unconfirmed_rows(at)
    assert rows is not None, "shown from the feed, before any snapshot holds it"
    assert list(rows["exception_id"]) == [NOTICE.exception_id] and bool(rows["new"].iloc[0])
    assert rows["at_stake"].iloc[0] == 10.0
    assert NOTICE.exception_id not in queue_ids(at), "not among the ledger's rows"
    assert metric(at, "New since you looked") == "1"
    [banner] = [e.value for e in at.error]
    assert "1 new CRITICAL exception(s)" in banner and markdown_text("R-LIVE-1") in banner

    commit(ledger, NOTICE)
    run(at)
    assert unconfirmed_rows(at) is None, "the snapshot holds the same notice: confirmed"
    assert NOTICE.exception_id in queue_ids(at)
    assert metric(at, "New since you looked") == "1", "still new: confirmed is not seen"
    assert [e.value for e in at.error] == [banner]


def test_a_notice_the_snapshot_contradicts_is_reported(
    ledger: Path, settings: KafkaSettings
) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    commit(ledger, replace(NOTICE, severity="HIGH", severity_rank=3))
    publish(settings, NOTICE)
    until_the_feed_has(NOTICE)
    run(at)
    assert unconfirmed_rows(at) is None
    assert any("The ledger contradicts the live feed" in e.value for e in at.error)


def test_a_withdrawal_on_the_feed_is_said_until_the_snapshot_confirms_it(
    ledger: Path, settings: KafkaSettings
) -> None:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    commit(ledger, NOTICE)
    run(at)
    assert NOTICE.exception_id in queue_ids(at)
    withdrawal = replace(NOTICE, notice_seq=NOTICE.notice_seq + 1, state=WITHDRAWN)
    publish(settings, NOTICE)
    publish(settings, withdrawal)
    until_the_feed_has(withdrawal)
    run(at)
    [said] = [w.value for w in at.warning if "Withdrawn on the live feed" in w.value]
    assert markdown_text(NOTICE.exception_id) in said
    assert NOTICE.exception_id in queue_ids(at), "the ledger's rows stay as the snapshot has them"

    commit(ledger, withdrawal)
    run(at)
    assert not [w for w in at.warning if "Withdrawn on the live feed" in w.value]
    assert NOTICE.exception_id not in queue_ids(at)


def test_hostile_strings_on_the_feed_stay_text(ledger: Path, settings: KafkaSettings) -> None:
    hostile = replace(NOTICE, table_id="T9](javascript:alert(1))**", round_id="<b>R</b>")
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    publish(settings, hostile)
    until_the_feed_has(hostile)
    run(at)
    [banner] = [e.value for e in at.error]
    assert markdown_text(hostile.table_id) in banner and "](javascript:" not in banner
    rows = unconfirmed_rows(at)
    assert rows is not None and list(rows["table_id"]) == [hostile.table_id], "a cell: text"


def test_the_feed_keeps_the_latest_notice_of_each_exception_once() -> None:
    """The topic is at least once: a repeat or an older notice changes nothing."""
    codec = NoticeCodec()
    following = feed.ExceptionFeed(KafkaSettings(bootstrap_servers="127.0.0.1:1"), codec)
    now = datetime.now(UTC)
    later = replace(NOTICE, notice_seq=NOTICE.notice_seq + 1, state=WITHDRAWN)
    for notice in (NOTICE, later, NOTICE, later):
        following.take(codec.encode(notice_record(Alert(notice), now)))
    following.take(b"not a notice")
    [kept] = following.notices(DAY)
    assert kept == later  # the ledger's notice, field for field, back from the topic
    assert following.undecodable == 1 and following.notices(DAY.replace(day=25)) == []


def test_without_a_bootstrap_server_there_is_no_feed() -> None:
    assert feed.exceptions_feed({}) is None
    assert not feed.configured({f"{PREFIX}EXCEPTIONS_TOPIC": "audit-exceptions"})


def test_reconcile_sorts_the_feed_by_what_the_snapshot_holds_and_lists() -> None:
    held = replace(NOTICE, notice_seq=1, exception_id="held")
    differs = replace(NOTICE, notice_seq=2, exception_id="differs")
    new = replace(NOTICE, notice_seq=3, exception_id="new")
    raised_again = replace(NOTICE, notice_seq=4, exception_id="listed")
    withdrawn = replace(NOTICE, notice_seq=5, exception_id="gone", state=WITHDRAWN)
    never_listed = replace(NOTICE, notice_seq=6, exception_id="never", state=WITHDRAWN)
    ledger_notices = pd.DataFrame(
        [
            {c: getattr(n, c) for c in ("exception_id", "notice_seq", *feed.COMPARED)}
            for n in (held, replace(differs, message="something else"))
        ]
    )
    found = feed.reconcile(
        [held, differs, new, raised_again, withdrawn, never_listed],
        ledger_notices,
        listed={"held", "differs", "listed", "gone"},
    )
    assert found.confirmed == 1
    assert [n.exception_id for n in found.mismatched] == ["differs"]
    assert [n.exception_id for n in found.raised] == ["new"], "a listed one is on the page"
    assert [n.exception_id for n in found.withdrawn] == ["gone"], "one never listed: nothing"
