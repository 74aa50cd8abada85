"""Closing gaming day D while the stream writes day D+1 (:mod:`pipeline.stream.closes`),
against the real bundled broker, with `baccarat-audit close` run as the accountant would and
two dashboards reading the ledger in processes of their own.

The stream takes the close between two batches and runs it beside them: its batches go on
while the day is sealed and archived, a late event of the closed day is held apart, nothing
is lost, and both days verify. Meanwhile the stream lends the ledger to nobody, so it writes
the dashboards' copy itself when they ask: they get fresh snapshots during the close, each
one committed state (the closed day wholly before its seal or wholly after). A request left
by an account the roles file does not allow to close is refused by the stream, which goes
on."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaProducer

from pipeline.config.catalog import gaming_day_of
from pipeline.events import default_codec
from pipeline.events.convert import to_record
from pipeline.events.model import TableEvent
from pipeline.ledger.snapshots import WRITERS_COPY, writers_folder
from pipeline.ledger.store import CLOSED_GAMING_DAY, Ledger
from pipeline.reports.verify import verify
from pipeline.rules.config import TableRules
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import SimulationResult, simulate
from pipeline.stream.closes import CloseRequest, CloseServer, ask, folder, serving
from pipeline.stream.consumer import BatchReport, run_consumer
from pipeline.stream.settings import KafkaSettings
from pipeline.stream.topics import ensure_topics

pytestmark = pytest.mark.broker

READER = Path(__file__).with_name("dashboard_reader.py")
ROOT = Path(__file__).parents[2]


def _send(settings: KafkaSettings, events: list[TableEvent], pause: float = 0.0) -> None:
    codec = default_codec()
    producer = KafkaProducer(**settings.producer_kwargs(acks="all"))
    try:
        for start in range(0, len(events), 200):
            for event in events[start : start + 200]:
                value = codec.encode(to_record(codec, event))
                producer.send(settings.topic, key=event.table_id.encode(), value=value)
            producer.flush()
            time.sleep(pause)
    finally:
        producer.close()


def _events(day: SimulationResult) -> list[TableEvent]:
    return [e for events in day.events_by_table.values() for e in events]


class Stream:
    """The consumer on a thread, serving closes, with the time of every batch it commits."""

    def __init__(
        self, settings: KafkaSettings, db: Path, reports: Path, catalog: Mapping[str, TableRules]
    ) -> None:
        self.stop = threading.Event()
        self.batches: list[tuple[float, BatchReport]] = []
        self.closes = CloseServer(db, reports, catalog)
        self.thread = threading.Thread(
            target=run_consumer,
            args=(settings, db, catalog),
            kwargs={
                "until_idle": None,
                "max_batch": 200,
                "stop": self.stop,
                "lend_every": 0.3,
                "closes": self.closes,
                "on_batch": lambda b: self.batches.append((time.monotonic(), b)),
            },
        )

    def events(self) -> int:
        return sum(b.events for _, b in self.batches)

    def wait_for(self, events: int, within: float = 120.0) -> None:
        deadline = time.monotonic() + within
        while self.events() < events:
            assert time.monotonic() < deadline, f"{self.events()} of {events} events loaded"
            time.sleep(0.1)


@pytest.fixture
def stream(
    stream_settings: KafkaSettings, catalog: Mapping[str, TableRules], tmp_path: Path
) -> Iterator[Stream]:
    ensure_topics(stream_settings, partitions=3)
    running = Stream(stream_settings, tmp_path / "ledger.duckdb", tmp_path / "reports", catalog)
    running.thread.start()
    yield running
    running.stop.set()
    running.thread.join(timeout=120)
    assert not running.thread.is_alive()


def _stream_day_d(
    stream: Stream, settings: KafkaSettings, small_day: SimulationResult
) -> tuple[list[TableEvent], date]:
    """Day D sent and loaded by the stream: its events and its date."""
    day_d = _events(small_day)
    _send(settings, day_d)
    stream.wait_for(len(day_d))
    return day_d, gaming_day_of().date_of(day_d[0].occurred_at)


def _consistent(day: Mapping[str, Any], deliveries: int) -> bool:
    """Whether the closed day as a reader's snapshot holds it is one committed state: all of
    it, its table-days' totals counting its rows, and either not yet sealed (its rows in the
    file) or sealed (read from its archive, none left in the file)."""
    whole = day["deliveries"] == deliveries and day["rounds_counted"] == day["rounds"]
    before = not day["sealed"] and not day["archived"] and day["stored"] == deliveries
    after = day["sealed"] and day["archived"] and day["stored"] == 0
    return bool(whole and (before or after))


def test_day_d_closes_while_the_stream_writes_day_d_plus_1_and_both_days_verify(
    stream: Stream,
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="pipeline.stream.ledgers")
    db = tmp_path / "ledger.duckdb"
    day_d, closed = _stream_day_d(stream, stream_settings, small_day)
    next_day = _events(simulate(4, 2, 11, parse_faults("none"), closed + timedelta(days=1)))
    late = small_day.events_by_table["T01"][-5:]  # sent again after the close: redelivered
    assert serving(db) is not None, "the stream marks the ledger it serves closes for"

    readers = [
        subprocess.Popen(
            [sys.executable, str(READER), str(db), str(tmp_path / "stop"), str(closed)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    feeding = threading.Thread(target=_send, args=(stream_settings, next_day, 0.15))
    feeding.start()
    stream.wait_for(len(day_d) + 600)
    asked, asked_at = time.monotonic(), time.time()
    close = subprocess.run(
        [sys.executable, "-m", "pipeline", "close", "--db", str(db), "--gaming-day",
         str(closed), "--json", "--out", str(tmp_path / "unused"), "--actor", "demo-controller"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    answered, answered_at = time.monotonic(), time.time()
    feeding.join()
    _send(stream_settings, late)
    stream.wait_for(len(day_d) + len(next_day))

    assert close.returncode in (0, 1), close.stderr  # 1: the day has blocking exceptions
    result = json.loads(close.stdout)
    assert result["gaming_date"] == str(closed) and result["seal"]["seq"] == 1
    assert all(Path(f).parent == tmp_path / "reports" for f in result["seal"]["reports"])
    assert not (tmp_path / "unused").exists(), "the stream writes to its own --reports"
    during = [at for at, _ in stream.batches if asked <= at <= answered]
    gaps = [b - a for a, b in zip([asked, *during], [*during, answered], strict=True)]
    assert len(during) >= 5, f"{len(during)} batches in the {answered - asked:.1f} s close"
    assert max(gaps) < (answered - asked) / 2, f"batches waited {max(gaps):.1f} s"

    (tmp_path / "stop").touch()
    for reader in readers:
        out, _ = reader.communicate(timeout=120)
        read = json.loads(out)
        assert read["errors"] == [] and read["snapshots"] >= 2, read
        assert read["slowest"] < 5, read
        closing = [s for s in read["taken"] if asked_at <= s["taken_at"] <= answered_at]
        assert any(s["by_writer"] for s in closing), (
            f"no copy the stream wrote during the {answered - asked:.1f} s close: {read['taken']}"
        )
        inconsistent = [s for s in read["taken"] if not _consistent(s, len(day_d))]
        assert inconsistent == [], f"snapshots of no committed state of {closed}: {inconsistent}"
        assert read["taken"][-1]["sealed"], "read again once the close lends the ledger again"
    written = [r.getMessage() for r in caplog.records if "readers' copy" in r.getMessage()]
    assert written and all(m.startswith("wrote") for m in written), written
    assert not (writers_folder(db) / WRITERS_COPY).exists(), "removed at the next loan"

    stream.stop.set()
    stream.thread.join(timeout=120)
    with Ledger(db) as ledger:
        days = dict(
            ledger.con.execute("SELECT gaming_date, count(*) FROM deliveries GROUP BY 1").fetchall()
        )
        held = ledger.con.execute(
            "SELECT count(*) FROM dead_letters WHERE reason = ?", [CLOSED_GAMING_DAY]
        ).fetchone()
        assert days == {closed: len(day_d), closed + timedelta(days=1): len(next_day)}
        assert held == (len(late),), "the closed day's late events are held apart"
        assert verify(ledger, tmp_path / "reports" / "seal-anchors.jsonl") == []


def test_a_request_from_an_account_not_allowed_to_close_is_refused_and_the_stream_goes_on(
    stream: Stream,
    stream_settings: KafkaSettings,
    small_day: SimulationResult,
    tmp_path: Path,
) -> None:
    db = tmp_path / "ledger.duckdb"
    day_d, closed = _stream_day_d(stream, stream_settings, small_day)
    answer = ask(db, CloseRequest(closed, actor="somebody-else"), wait=60)
    assert not answer["ok"] and answer["exit"] == 2
    assert "may not act as somebody-else" in answer["error"]
    assert sorted(p.name for p in folder(db).iterdir()) == ["serving.json"]
    more = _events(simulate(1, 0.5, 12, parse_faults("none"), closed + timedelta(days=1)))
    _send(stream_settings, more)
    stream.wait_for(len(day_d) + len(more))


@pytest.mark.parametrize(
    ("name", "body", "said"),
    [
        ("2026-13-45", "{}", "2026-13-45 is not a date"),
        ("2026-11-24", "{not json", "not JSON"),
        ("2026-11-24", "[1, 2]", "a JSON list, not an object"),
        ("2026-11-24", '{"actor": ["x"]}', "actor must be text, not list"),
    ],
)
def test_a_malformed_request_gets_an_answer_saying_what_is_wrong(
    name: str, body: str, said: str, catalog: Mapping[str, TableRules], tmp_path: Path
) -> None:
    """A request written by hand or cut short: answered with exit 2 and what to do; the
    serving goes on (nothing reaches the stream's thread) and no ledger is opened."""
    db = tmp_path / "ledger.duckdb"
    server = CloseServer(db, tmp_path / "reports", catalog)
    server.start()
    stem = f"{name}.{'0' * 32}"
    (folder(db) / f"{stem}.json").write_text(body, encoding="utf-8")
    server.serve()
    server.stop()
    answer = json.loads((folder(db) / f"{stem}.answer.json").read_text(encoding="utf-8"))
    assert answer["ok"] is False and answer["exit"] == 2, answer
    assert said in answer["error"] and "ask again" in answer["error"]
    assert sorted(p.name for p in folder(db).iterdir()) == [f"{stem}.answer.json"]
    assert not db.exists()
