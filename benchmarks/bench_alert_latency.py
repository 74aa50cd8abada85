"""Issue 14: from a published event to the exception in front of people, at 2,500 events/s.

    python benchmarks/bench_alert_latency.py [--rate 2500] [--seconds 40] [--tables 24]
        [--probe-every 2] [--max-batch 5000] [--lend-every 1] [--no-browser] [--no-feed]
        [--smoke]

Against the bundled tansu broker: a producer process sends a clean emulated day (tables
interleaved) at ``--rate`` events/s while ``run_consumer`` streams it into a DuckDB ledger
(lending it to readers every ``--lend-every`` s), with a webhook alert channel. Every
``--probe-every`` seconds the producer sends a *probe*: an earlier event of the stream sent
again, which the replay reports at once as NJ-DATA-DUPLICATE (the clean day has no other
exception). Per probe, from the moment the producer called ``send()`` (CLOCK_MONOTONIC, one
clock for every process on the machine) to:

1. ``topic``: the RAISED notice read from the exceptions topic by a subscriber;
2. ``webhook``: the alert POST received by a local HTTP receiver;
3. ``browser``: the exception counted on the analyst's queue in headless Chromium
   (``streamlit run dashboards/app.py`` on the streamed ledger, nobody clicking): the
   queue's "New since you looked" count, read every 0.1 s; the k-th probe is the one that
   makes it reach k (probes are two seconds apart and arrive in order). The dashboard
   follows the exceptions topic (:mod:`dashboards.feed`), so the queue shows a new exception
   before a ledger snapshot holds it; ``--no-feed``: without the feed, the queue waits for
   a snapshot (the path before it).

Where the browser's time goes is reported too: how often the page showed a newer ledger
snapshot during the run, and, after the run on the final ledger, what one snapshot copy and
one rerun of the queue page cost.

Before the clock starts, a warm-up sends the day's first events and one probe, so the
queue has a gaming day to show when the browser opens it. ``--smoke`` (what
tests/benchmarks runs): 500 events/s for 8 s, 3 tables, no browser, nothing saved; prints
the result as JSON. The machine's load average is recorded with the result: the consumer
shares the cores with the broker, the producer, the dashboard and the browser.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import multiprocessing as mp
import os
import pickle
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "dashboards"))  # Chromium
from _common import demo_installation, save, scratch_folder
from bench_kafka import dist, interleave, paced_producer

from pipeline.config.catalog import load_catalog
from pipeline.events import default_codec
from pipeline.events.convert import to_record
from pipeline.events.exception_notices import NoticeCodec
from pipeline.replay.findings import Severity
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from pipeline.stream.alerts import AlertDispatcher, AlertFilter, WebhookChannel
from pipeline.stream.broker import local_broker
from pipeline.stream.consumer import ConsumerReport, run_consumer
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics

DAY = date(2026, 11, 24)
SEED = 3
PROBE_CODE = "NJ-DATA-DUPLICATE"
PROBE_LAG = 50
"""A probe repeats the event sent this many messages before it."""
EVENTS_PER_TABLE_HOUR = 1000
"""About what the emulator deals (a little over, so the day is long enough)."""
WARM_UP_EVENTS = 2000
NEW_METRIC = "New since you looked"


def build_messages(
    rate: float, seconds: float, tables: int, probe_every: float
) -> tuple[list[tuple[bytes, bytes]], dict[int, str]]:
    """The warm-up and the paced stream: (key, value) pairs, and the probes among them by
    message index -> the repeated event's id. The warm-up is the first WARM_UP_EVENTS
    messages plus one probe."""
    wanted = int(rate * seconds) + WARM_UP_EVENTS
    hours = math.ceil(wanted / (tables * EVENTS_PER_TABLE_HOUR)) + 1
    day = simulate(tables, hours, SEED, parse_faults("none"), DAY, load_catalog())
    events = interleave(day)[:wanted]
    codec = default_codec()
    encoded = [(e.table_id.encode(), codec.encode(to_record(codec, e))) for e in events]
    messages: list[tuple[bytes, bytes]] = []
    probes: dict[int, str] = {}
    between = max(PROBE_LAG + 1, int(rate * probe_every))
    for i, message in enumerate(encoded):
        messages.append(message)
        if i == WARM_UP_EVENTS - 1 or (
            i >= WARM_UP_EVENTS and (i - WARM_UP_EVENTS) % between == between - 1
        ):
            probes[len(messages)] = events[i - PROBE_LAG].event_id
            messages.append(encoded[i - PROBE_LAG])
    return messages, probes


class Arrivals:
    """First arrival (monotonic) of each probe's notice, by the repeated event's id."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}
        self.lock = threading.Lock()

    def note(self, event_id: str) -> None:
        with self.lock:
            self.at.setdefault(event_id, time.monotonic())


def subscribe(settings: KafkaSettings, arrivals: Arrivals, stop: threading.Event) -> None:
    """Read the exceptions topic from the beginning; note each RAISED probe notice."""
    codec = NoticeCodec()
    consumer = KafkaConsumer(**settings.client_kwargs())
    try:
        partitions = [
            TopicPartition(settings.exceptions_topic, p)
            for p in sorted(consumer.partitions_for_topic(settings.exceptions_topic) or ())
        ]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        while not stop.is_set():
            for batch in consumer.poll(timeout_ms=50).values():
                for record in batch:
                    notice = codec.decode(record.value)
                    if notice["state"] == "RAISED" and notice["code"] == PROBE_CODE:
                        arrivals.note(notice["evidence_event_ids"][0])
    finally:
        consumer.close()


@contextmanager
def webhook_receiver(arrivals: Arrivals) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            alert = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if alert["state"] == "RAISED":
                arrivals.note(alert["evidence_event_ids"][0])
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/alerts"
    finally:
        server.shutdown()
        server.server_close()


class QueueWatcher:
    """The analyst's queue in Chromium: the times its "new" count went up, and the times the
    page showed a new ledger snapshot (its sidebar names the snapshot's time)."""

    def __init__(self, db: Path, stack: ExitStack, feed: KafkaSettings | None) -> None:
        from _chromium import chromium, free_port

        from dashboards.server import running_dashboard

        log = stack.enter_context((db.parent / "streamlit.log").open("w"))
        base = stack.enter_context(running_dashboard(db, free_port(), log=log, feed=feed))
        self.browser = stack.enter_context(chromium())
        self.browser.navigate(f"{base}/exceptions")
        self.browser.wait_for("Exception queue", NEW_METRIC, timeout=180)
        self.start = self.count()
        self.rises: list[tuple[float, int]] = []
        self.snapshots: list[float] = []
        self.wal = db.with_name(db.name + ".wal")
        self.wal_mb_max = 0.0

    def count(self) -> int:
        value = self.browser.evaluate(
            "(() => { const m = [...document.querySelectorAll('[data-testid=stMetric]')]"
            f".find(e => e.innerText.startsWith({NEW_METRIC!r})); "
            "return m ? m.querySelector('[data-testid=stMetricValue]').innerText : null; })()"
        )
        return int(value) if value is not None else -1

    def snapshot_shown(self) -> str | None:
        shown = self.browser.evaluate(
            "(() => { const s = document.querySelector('[data-testid=stSidebar]'); "
            "const m = s && s.innerText.match(/read-only snapshot of ([0-9:]+)/); "
            "return m ? m[1] : null; })()"
        )
        return None if shown is None else str(shown)

    def watch(self, until: threading.Event) -> None:
        last, last_snapshot = self.start, self.snapshot_shown()
        while not until.is_set():
            now, value, shown = time.monotonic(), self.count(), self.snapshot_shown()
            if value > last:
                self.rises.append((now, value - self.start))
                last = value
            if shown is not None and shown != last_snapshot:
                self.snapshots.append(now)
                last_snapshot = shown
            with contextlib.suppress(FileNotFoundError):
                self.wal_mb_max = max(self.wal_mb_max, round(self.wal.stat().st_size / 1e6, 1))
            time.sleep(0.1)

    def snapshot_gaps(self) -> dict[str, float | int]:
        """How often the page showed a newer snapshot (a full rerun on a fresh copy)."""
        gaps: dict[str, float | int] = dist([b - a for a, b in itertools.pairwise(self.snapshots)])
        return gaps

    def seen_at(self, k: int) -> float | None:
        """When the count first reached ``k`` new exceptions."""
        return next((t for t, count in self.rises if count >= k), None)


def rerun_costs(db: Path, repeat: int = 3) -> dict[str, Any]:
    """After the run, on the final ledger with nothing else running: its size, one snapshot
    copy of it (what :mod:`dashboards.source` does each time the ledger changed) and one
    rerun of the queue page on the copy (AppTest, after a first run): the two steps a new
    exception waits for on the snapshot path, besides the consumer lending the ledger
    (``--lend-every``) and the page noticing the change (``$BACCARAT_LIVE_SECONDS``)."""
    import shutil
    import statistics

    from streamlit.testing.v1 import AppTest

    copies = []
    for _ in range(repeat):
        started = time.monotonic()
        shutil.copyfile(db, db.with_name("copy.duckdb"))
        copies.append(time.monotonic() - started)
    os.environ["BACCARAT_DB"] = str(db)
    page = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "dashboards" / "app.py"))
    page.run(timeout=300)
    reruns = []
    for _ in range(repeat):
        started = time.monotonic()
        page.run(timeout=300)
        reruns.append(time.monotonic() - started)
    return {
        "ledger_mb": round(db.stat().st_size / 1e6, 1),
        "snapshot_copy_s": round(statistics.median(copies), 3),
        "queue_page_rerun_s": round(statistics.median(reruns), 3),
    }


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    messages, probes = build_messages(args.rate, args.seconds, args.tables, args.probe_every)
    warm = WARM_UP_EVENTS + 1
    messages_file, sent_file = work / "messages.pickle", work / "sent.pickle"
    messages_file.write_bytes(pickle.dumps(messages[warm:]))
    catalog = load_catalog()
    db = work / "ledger.duckdb"
    topic_seen, webhook_seen = Arrivals(), Arrivals()
    stop = threading.Event()
    reports: list[ConsumerReport] = []
    with ExitStack() as stack, local_broker() as bootstrap:
        tag = uuid.uuid4().hex[:8]
        settings = KafkaSettings(
            bootstrap_servers=bootstrap,
            topic=f"bench-alert-{tag}",
            group_id=f"bench-alert-{tag}",
            exceptions_topic=f"bench-alert-exceptions-{tag}",
        )
        ensure_topics(settings)
        url = stack.enter_context(webhook_receiver(webhook_seen))
        alerts = AlertDispatcher()
        alerts.add(WebhookChannel(url), AlertFilter(Severity.INFO, frozenset({PROBE_CODE})))

        def consume() -> None:
            report = run_consumer(
                settings,
                db,
                catalog,
                until_idle=None,
                stop=stop,
                max_batch=args.max_batch,
                lend_every=args.lend_every,
                alerts=alerts,
                create_topics=False,
            )
            reports.append(report)

        consumer = threading.Thread(target=consume, name="bench-consumer")
        subscriber = threading.Thread(
            target=subscribe, args=(settings, topic_seen, stop), name="bench-subscriber"
        )
        consumer.start()
        subscriber.start()
        warm_up = KafkaProducer(**settings.producer_kwargs(acks="all"))
        for key, value in messages[:warm]:
            warm_up.send(settings.topic, key=key, value=value)
        warm_up.flush()
        warm_up.close()
        first_probe = probes[WARM_UP_EVENTS]
        deadline = time.monotonic() + 120
        while first_probe not in topic_seen.at and time.monotonic() < deadline:
            time.sleep(0.1)
        if first_probe not in topic_seen.at:
            stop.set()
            raise RuntimeError("the warm-up's probe never reached the exceptions topic")
        feed = None if args.no_feed else settings
        watcher = None if args.no_browser else QueueWatcher(db, stack, feed)
        sent_done = threading.Event()
        watching = (
            threading.Thread(target=watcher.watch, args=(sent_done,), name="bench-browser")
            if watcher is not None
            else None
        )
        ctx = mp.get_context("spawn")
        go = ctx.Event()
        producer = ctx.Process(
            target=paced_producer,
            args=(bootstrap, settings.topic, str(messages_file), args.rate, go, str(sent_file)),
        )
        producer.start()
        if watching is not None:
            watching.start()
        go.set()
        producer.join()
        if producer.exitcode != 0:
            stop.set()
            raise RuntimeError(f"producer process failed with exit code {producer.exitcode}")
        measured = {i - warm: e for i, e in probes.items() if i >= warm}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(
            e in topic_seen.at for e in measured.values()
        ):
            time.sleep(0.2)
        time.sleep(5.0)  # the last alerts and the browser's last rerun
        sent_done.set()
        if watching is not None:
            watching.join()
        stop.set()
        consumer.join()
        subscriber.join()
        alerts.close(timeout=30)
    sent = pickle.loads(sent_file.read_bytes())
    send_times = [s for s, _, _ in sent["sent"]]
    ordered = sorted(measured.items())
    topic, webhook, browser, topic_to_browser = [], [], [], []
    for k, (index, event_id) in enumerate(ordered, start=1):
        sent_at = send_times[index]
        if event_id in topic_seen.at:
            topic.append(topic_seen.at[event_id] - sent_at)
        if event_id in webhook_seen.at:
            webhook.append(webhook_seen.at[event_id] - sent_at)
        shown = watcher.seen_at(k) if watcher is not None else None
        if shown is not None:
            browser.append(shown - sent_at)
            if event_id in topic_seen.at:
                topic_to_browser.append(shown - topic_seen.at[event_id])
    report = reports[0]
    return {
        "target_rate_events_per_s": args.rate,
        "achieved_send_rate_events_per_s": (len(send_times) - 1) / sent["send_span_s"],
        "events": len(send_times),
        "tables": args.tables,
        "max_batch": args.max_batch,
        "lend_every_s": args.lend_every,
        "probes": len(ordered),
        "load_average_1min_before_after": [load_before, os.getloadavg()[0]],
        "cpus": os.cpu_count(),
        "consumer": {
            "batches": report.batches,
            "notices": report.notices,
            "retries": report.retries,
            "events_per_s_of_work": round(report.events_per_second),
        },
        "alerts": alerts.summary(),
        "latency_topic": dist(topic),
        "latency_webhook": dist(webhook),
        "latency_browser": dist(browser) if watcher is not None else "not measured (--no-browser)",
        "latency_topic_to_browser": dist(topic_to_browser) if watcher is not None else None,
        "queue_path": "snapshot only (--no-feed)" if args.no_feed else "exceptions feed",
        "ledger_wal_mb_max": watcher.wal_mb_max if watcher is not None else None,
        "snapshots_shown_interval": watcher.snapshot_gaps() if watcher is not None else None,
        "after_the_run": rerun_costs(db) if watcher is not None else None,
    }


def main(argv: list[str] | None = None) -> int:
    demo_installation()  # the stream's alerts and the dashboards' journal are signed in one
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=2500.0)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--probe-every", type=float, default=2.0)
    parser.add_argument("--max-batch", type=int, default=5000)
    parser.add_argument("--lend-every", type=float, default=1.0)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument(
        "--no-feed",
        action="store_true",
        help="the queue without the live exceptions feed: it waits for ledger snapshots",
    )
    parser.add_argument("--smoke", action="store_true", help="a short run; nothing saved")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rate, args.seconds, args.tables, args.no_browser = 500.0, 8.0, 3, True
    work = scratch_folder("bench-alert-latency-")
    result = run(args, work)
    result["command"] = "python benchmarks/bench_alert_latency.py" + (
        " --smoke" if args.smoke else " --no-feed" if args.no_feed else ""
    )
    print(json.dumps(result, indent=2))
    if not args.smoke:
        name = "alert_latency_no_feed" if args.no_feed else "alert_latency"
        print(f"saved {save(name, result)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
