"""The live feed against the real broker: a fault streamed in is RAISED once on the exceptions
topic (and alerted by webhook, signed); the event that explains it WITHDRAWS it.

One table for one clean hour, with one device event held back: the consumer finds a gap
(NJ-DATA-GAP, HIGH). The held-back event then arrives late: the gap is explained, and the
replay notes the late arrival instead (NJ-DATA-REORDERED, INFO, below the alert threshold).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from alert_receivers import WebhookReceiver

from pipeline.config.keys import authentic
from pipeline.events.exception_notices import NoticeCodec
from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from pipeline.stream.alerts import SIGNATURE_HEADER, AlertDispatcher, AlertFilter, WebhookChannel
from pipeline.stream.consumer import ConsumerReport, run_consumer
from pipeline.stream.producer import EventPublisher
from pipeline.stream.settings import KafkaSettings

pytestmark = pytest.mark.broker

DAY = date(2026, 11, 24)


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
) -> None:
    settings = stream_settings
    events = simulate(1, 1, 7, parse_faults("none"), DAY, catalog).events_by_table["T01"]
    held_back = events[len(events) // 2]
    db = tmp_path / "ledger.duckdb"
    codec = NoticeCodec()

    def stream(events_sent: list[Any]) -> tuple[ConsumerReport, list[dict[str, Any]]]:
        with EventPublisher(settings) as publisher:
            for event in events_sent:
                publisher.send(event)
        alerts = AlertDispatcher()
        alerts.add(WebhookChannel(webhook.url), AlertFilter())
        received = len(webhook.bodies)
        report = run_consumer(settings, db, catalog, until_idle=1.0, alerts=alerts)
        alerts.close(timeout=10)
        sent = len(webhook.bodies) - received
        assert alerts.summary() == f"alerts: {sent} sent by webhook, 0 failed"
        records = read_topic(settings, settings.exceptions_topic, report.notices)
        for record in records:
            assert record.key == b"T01", "keyed by table, like the events"
        return report, [codec.decode(r.value) for r in records]

    first, notices = stream([e for e in events if e is not held_back])
    [gap] = notices
    assert (gap["state"], gap["code"], gap["severity"], gap["table_id"]) == (
        "RAISED", "NJ-DATA-GAP", "HIGH", "T01",
    )  # fmt: skip
    assert gap["gaming_date"] == DAY and gap["section"] and gap["message"]
    assert gap["evidence_event_ids"], "the evidence travels with the notice"
    assert gap["published_at"] >= gap["recorded_at"]
    assert first.notices == 1

    [alert] = webhook.bodies
    assert authentic(alert.body, alert.headers[SIGNATURE_HEADER].removeprefix("sha256="))
    assert json.loads(alert.body)["finding_id"] == gap["finding_id"]

    second, notices = stream([held_back])
    assert [(n["state"], n["code"]) for n in notices] == [
        ("RAISED", "NJ-DATA-GAP"),
        ("WITHDRAWN", "NJ-DATA-GAP"),
        ("RAISED", "NJ-DATA-REORDERED"),
    ]
    withdrawn = notices[1]
    assert withdrawn["finding_id"] == gap["finding_id"]
    assert withdrawn["evidence_event_ids"] == gap["evidence_event_ids"]
    assert second.notices == 2
    assert [json.loads(a.body)["state"] for a in webhook.bodies] == ["RAISED", "WITHDRAWN"], (
        "the INFO notice is below the HIGH threshold"
    )
    with Ledger(db, read_only=True) as ledger:
        unsent = ledger.con.execute(
            "SELECT count(*) FROM exception_notices WHERE published_at IS NULL"
        ).fetchone()
    assert unsent == (0,)
