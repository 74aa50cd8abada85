"""The live feed against the real broker: a fault streamed in is RAISED once on the exceptions
topic (and alerted by webhook, signed), naming the pit and the dealer and linking to the
exception in the dashboards; the event that explains it WITHDRAWS it.

One table for one clean hour, with one device event held back: the consumer finds a gap
(NJ-DATA-GAP, HIGH). The held-back event then arrives late, consumed by the ``stream``
command alerting on gaps only: the gap is explained, and the replay notes the late arrival
instead (NJ-DATA-REORDERED, INFO, not alerted).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from alert_receivers import WebhookReceiver

from pipeline.config.dashboard_links import DashboardLinks
from pipeline.config.keys import load_keyring
from pipeline.events.exception_notices import NoticeCodec
from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from pipeline.stream.alerts import (
    SIGNATURE_HEADER,
    AlertDispatcher,
    AlertFilter,
    WebhookChannel,
    webhook_authentic,
)
from pipeline.stream.cli import main as stream_main
from pipeline.stream.consumer import run_consumer
from pipeline.stream.producer import EventPublisher
from pipeline.stream.settings import KafkaSettings

pytestmark = pytest.mark.broker

DAY = date(2026, 11, 24)
DASHBOARDS = "http://dashboards.casino.example:8501"


@pytest.fixture
def webhook() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as receiver:
        yield receiver


def test_a_gap_is_raised_once_and_withdrawn_when_the_late_event_explains_it(
    stream_settings: KafkaSettings,
    catalog: Mapping[str, TableRules],
    read_topic: Any,
    webhook: WebhookReceiver,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = stream_settings
    events = simulate(1, 1, 7, parse_faults("none"), DAY, catalog).events_by_table["T01"]
    held_back = events[len(events) // 2]
    db = tmp_path / "ledger.duckdb"
    codec = NoticeCodec()

    def published(expected: int) -> list[dict[str, Any]]:
        records = read_topic(settings, settings.exceptions_topic, expected)
        for record in records:
            assert record.key == b"T01", "keyed by table, like the events"
        return [codec.decode(r.value) for r in records]

    with EventPublisher(settings) as publisher:
        publisher.send_many(e for e in events if e is not held_back)
    links = DashboardLinks.from_setting(DASHBOARDS)
    alerts = AlertDispatcher(links=links)
    alerts.add(WebhookChannel(webhook.url), AlertFilter())
    first = run_consumer(settings, db, catalog, until_idle=1.0, alerts=alerts, links=links)
    alerts.close(timeout=10)
    assert alerts.summary() == "alerts: 1 sent by webhook, 0 failed"
    notices = published(first.notices)
    [gap] = notices
    assert (gap["state"], gap["code"], gap["severity"], gap["table_id"]) == (
        "RAISED", "NJ-DATA-GAP", "HIGH", "T01",
    )  # fmt: skip
    assert gap["gaming_date"] == DAY and gap["section"] and gap["message"]
    assert gap["evidence_event_ids"], "the evidence travels with the notice"
    assert gap["published_at"] >= gap["recorded_at"]
    assert first.notices == 1
    # the notice names the pit and the dealer, and opens the exception in the dashboards
    dealer = next(e.get("dealer_id") for e in events if e.payload_type == "TableOpened")
    assert (gap["pit"], gap["dealer_id"]) == ("BACCARAT-1", dealer)
    assert gap["dashboard_url"] == links.exception(DAY, gap["finding_id"])

    [alert] = webhook.bodies
    assert webhook_authentic(alert.body, alert.headers[SIGNATURE_HEADER], load_keyring())
    alerted = json.loads(alert.body)
    assert alerted["finding_id"] == gap["finding_id"]
    assert (alerted["pit"], alerted["dealer_id"], alerted["dashboard_url"]) == (
        gap["pit"], gap["dealer_id"], gap["dashboard_url"],
    )  # fmt: skip

    # the late event arrives; this time through the command, alerting on gaps only
    with EventPublisher(settings) as publisher:
        publisher.send(held_back)
    argv = ["stream", "--bootstrap", settings.bootstrap_servers, "--db", str(db)]
    argv += ["--topic", settings.topic, "--group", settings.group_id, "--until-idle", "1"]
    argv += ["--alert-webhook", webhook.url, "--alert-min-severity", "INFO"]
    argv += ["--alert-code", "NJ-DATA-GAP", "--dashboard-url", DASHBOARDS]
    with pytest.MonkeyPatch.context() as env:
        env.setenv("BACCARAT_KAFKA_EXCEPTIONS_TOPIC", settings.exceptions_topic)
        assert stream_main(argv) == 0
    out = capsys.readouterr().out
    assert "(2 raised or withdrawn on the exceptions topic)" in out
    assert "alerts: 1 sent by webhook, 0 failed" in out
    notices = published(3)
    assert [(n["state"], n["code"]) for n in notices] == [
        ("RAISED", "NJ-DATA-GAP"),
        ("WITHDRAWN", "NJ-DATA-GAP"),
        ("RAISED", "NJ-DATA-REORDERED"),
    ]
    withdrawn = notices[1]
    assert withdrawn["finding_id"] == gap["finding_id"]
    assert withdrawn["dashboard_url"] == gap["dashboard_url"], "--dashboard-url links it"
    assert (withdrawn["pit"], withdrawn["dealer_id"]) == (gap["pit"], gap["dealer_id"])
    assert withdrawn["evidence_event_ids"] == gap["evidence_event_ids"]
    assert [json.loads(a.body)["state"] for a in webhook.bodies] == ["RAISED", "WITHDRAWN"], (
        "NJ-DATA-REORDERED is not among the alerted codes"
    )
    with Ledger(db, read_only=True) as ledger:
        unsent = ledger.con.execute(
            "SELECT count(*) FROM exception_notices WHERE published_at IS NULL"
        ).fetchone()
    assert unsent == (0,)
