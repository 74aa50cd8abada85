"""Alerts are driven from the ledger's outbox, so a crash loses none and repeats none: the
consumer process dies (``os._exit``) right after committing the batch that raised an
exception and before alerting on it; the restarted stream alerts on it once, and a third run
alerts on nothing. Against the real broker and a local webhook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from datetime import date
from pathlib import Path

import pytest
from alert_receivers import WebhookReceiver

from pipeline.ledger.store import Ledger
from pipeline.rules.config import TableRules
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from pipeline.stream.alerts import IDEMPOTENCY_HEADER
from pipeline.stream.producer import EventPublisher
from pipeline.stream.settings import KafkaSettings

pytestmark = pytest.mark.broker

DAY = date(2026, 11, 24)

WORKER = """
import os, sys
from pipeline.config.catalog import load_catalog
from pipeline.stream.alerts import AlertDispatcher, AlertFilter, WebhookChannel
from pipeline.stream.consumer import FaultPoint, run_consumer
from pipeline.stream.settings import KafkaSettings

bootstrap, topic, exceptions_topic, group, db, url, crash = sys.argv[1:]
settings = KafkaSettings(
    bootstrap_servers=bootstrap, topic=topic, exceptions_topic=exceptions_topic, group_id=group
)

def die_after_commit(point, number):
    if crash == "crash" and point == FaultPoint.COMMITTED:
        os._exit(3)  # no finally, no flush: the process is gone

alerts = AlertDispatcher()
alerts.add(WebhookChannel(url), AlertFilter())
report = run_consumer(
    settings, db, load_catalog(), until_idle=1.0, max_batch=100_000,
    fault_hook=die_after_commit, alerts=alerts,
)
print(alerts.summary(), flush=True)
"""


def _stream(
    settings: KafkaSettings, db: Path, url: str, crash: bool
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BACCARAT_KAFKA_")}
    argv = [sys.executable, "-c", WORKER, settings.bootstrap_servers, settings.topic]
    argv += [settings.exceptions_topic, settings.group_id, str(db), url]
    argv.append("crash" if crash else "run")
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)


def test_a_crash_between_commit_and_alert_alerts_once_after_the_restart(
    stream_settings: KafkaSettings,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    events = simulate(1, 1, 7, parse_faults("none"), DAY, catalog).events_by_table["T01"]
    held_back = events[len(events) // 2]  # a gap: NJ-DATA-GAP, HIGH, alerted
    with EventPublisher(stream_settings) as publisher:
        publisher.send_many(e for e in events if e is not held_back)
    db = tmp_path / "ledger.duckdb"
    with WebhookReceiver() as hook:
        crashed = _stream(stream_settings, db, hook.url, crash=True)
        assert crashed.returncode == 3, crashed.stderr[-2000:]
        with Ledger(db, read_only=True) as ledger:
            outbox = ledger.con.execute(
                "SELECT count(*) FILTER (published_at IS NULL), count(*) FROM exception_notices"
            ).fetchone()
            marked = ledger.con.execute("SELECT count(*) FROM alert_deliveries").fetchone()
        assert outbox == (1, 1), "the gap was committed, not yet published"
        assert marked == (0,) and hook.bodies == [], "the process died before alerting"

        restarted = _stream(stream_settings, db, hook.url, crash=False)
        assert restarted.returncode == 0, restarted.stderr[-2000:]
        assert "alerts: 1 sent by webhook, 0 failed" in restarted.stdout
        again = _stream(stream_settings, db, hook.url, crash=False)
        assert again.returncode == 0, again.stderr[-2000:]
        assert "alerts: 0 sent by webhook, 0 failed" in again.stdout, "never sent twice"
    [alert] = hook.bodies
    body = json.loads(alert.body)
    assert (body["code"], body["state"]) == ("NJ-DATA-GAP", "RAISED")
    assert alert.headers[IDEMPOTENCY_HEADER] == body["alert_id"]
    with Ledger(db, read_only=True) as ledger:
        assert ledger.con.execute(
            "SELECT count(*) FROM exception_notices WHERE published_at IS NULL"
        ).fetchone() == (0,)
        assert ledger.con.execute("SELECT count(*) FROM alert_deliveries").fetchone() == (1,)
