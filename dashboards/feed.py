"""The live exceptions feed: the dashboards as a subscriber of the ``audit-exceptions`` topic.

The ledger the dashboards read is a snapshot (:mod:`dashboards.source`): copying a growing
streamed ledger and rerunning a page on the copy took seconds at 2,500 events/s, so a new
exception reached the analyst's queue seconds after it reached the topic (issue 14). The
stream consumer publishes every exception it raises or withdraws on the exceptions topic
once the ledger transaction that holds it has committed (:mod:`pipeline.stream.notices`).
:class:`ExceptionFeed` reads that topic on a thread of the dashboard server, keeping the
latest notice of each exception, and the queue shows at once what the feed announced that
the snapshot does not hold yet, marked as *unconfirmed*.

Nothing the feed says is taken on trust: the next snapshot confirms each notice
(:func:`reconcile`): a notice is confirmed when the snapshot's outbox of exception notices
(:mod:`pipeline.ledger.notices`) holds the same notice (number, state, code, severity, table,
message); until then it is shown apart from the ledger's rows and cannot be acknowledged,
and a notice the snapshot contradicts is reported as a mismatch.

The feed is on when ``BACCARAT_KAFKA_BOOTSTRAP_SERVERS`` is set, with the settings the stream
command reads (``BACCARAT_KAFKA_*``, :class:`~pipeline.stream.settings.KafkaSettings`; the
topic is ``BACCARAT_KAFKA_EXCEPTIONS_TOPIC``). One feed serves every session of the server.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pandas as pd
from kafka import KafkaConsumer, TopicPartition

from pipeline.events.exception_notices import NoticeCodec, NoticeDecodeError
from pipeline.ledger.notices import RAISED, ExceptionNotice
from pipeline.stream.notices import notice_from_record
from pipeline.stream.settings import KafkaSettings, env_var

POLL_MS = 100
RECONNECT_SECONDS = (0.5, 10.0)
"""The feed connects again after the broker failed it: first after 0.5 s, then twice as long
each time, at most 10 s, for as long as the server runs."""
COMPARED = ("state", "code", "severity", "table_id", "message")
"""What must agree between a notice on the feed and the same notice in the ledger."""


class ExceptionFeed:
    """Follows the exceptions topic from its beginning on a daemon thread (see the module
    doc); reconnects with backoff when the broker fails it and says why in :attr:`problem`.
    The topic is at least once: a repeated notice (same exception, same or lower number) is
    dropped."""

    def __init__(self, settings: KafkaSettings, codec: NoticeCodec | None = None) -> None:
        self.settings = settings
        self._codec = codec or NoticeCodec()
        self._latest: dict[str, ExceptionNotice] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="exceptions-feed", daemon=True)
        self.problem: str | None = None
        """Why the feed is not following the topic right now; None while it is."""
        self.undecodable = 0

    def start(self) -> ExceptionFeed:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def notices(self, day: date) -> list[ExceptionNotice]:
        """The latest notice of each exception of gaming day ``day``, oldest first."""
        with self._lock:
            found = [n for n in self._latest.values() if n.gaming_date == day]
        return sorted(found, key=lambda n: n.notice_seq)

    def take(self, message: bytes) -> None:
        """Keep one message of the topic (the feed's thread calls it for each)."""
        try:
            record = self._codec.decode(message)
        except NoticeDecodeError:
            self.undecodable += 1  # not the pipeline's: nothing to show
            return
        notice = notice_from_record(record)
        with self._lock:
            current = self._latest.get(notice.exception_id)
            if current is None or notice.notice_seq > current.notice_seq:
                self._latest[notice.exception_id] = notice

    def _run(self) -> None:
        delay, longest = RECONNECT_SECONDS
        while not self._stop.is_set():
            try:
                self._follow()
            except Exception as err:  # the broker or the network: say so, connect again
                self.problem = f"the exceptions feed lost the broker ({type(err).__name__}: {err})"
                self._stop.wait(delay)
                delay = min(delay * 2, longest)

    def _follow(self) -> None:
        topic = self.settings.exceptions_topic
        consumer = KafkaConsumer(**self.settings.client_kwargs(), enable_auto_commit=False)
        try:
            while not self._stop.is_set() and not consumer.assignment():
                numbers = consumer.partitions_for_topic(topic)
                if not numbers:
                    self.problem = f"the exceptions topic {topic!r} does not exist yet"
                    self._stop.wait(1.0)
                    continue
                partitions = [TopicPartition(topic, p) for p in sorted(numbers)]
                consumer.assign(partitions)
                consumer.seek_to_beginning(*partitions)
            self.problem = None
            while not self._stop.is_set():
                for batch in consumer.poll(timeout_ms=POLL_MS).values():
                    for record in batch:
                        self.take(record.value)
        finally:
            consumer.close()


_feeds: dict[KafkaSettings, ExceptionFeed] = {}
_feeds_lock = threading.Lock()


def configured(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the feed is on: ``BACCARAT_KAFKA_BOOTSTRAP_SERVERS`` is set."""
    return bool((os.environ if environ is None else environ).get(env_var("bootstrap_servers")))


def exceptions_feed(environ: Mapping[str, str] | None = None) -> ExceptionFeed | None:
    """The server's feed, started on first use; None when ``BACCARAT_KAFKA_BOOTSTRAP_SERVERS``
    is not set. Raises :class:`~pipeline.stream.settings.KafkaSettingsError` for settings
    that cannot work."""
    if not configured(environ):
        return None
    settings = KafkaSettings.from_env(environ).validate()
    with _feeds_lock:
        feed = _feeds.get(settings)
        if feed is None:
            feed = _feeds[settings] = ExceptionFeed(settings).start()
        return feed


def stop_feeds() -> None:
    """Stop every feed of this process (a server's stop with it; tests stop theirs)."""
    with _feeds_lock:
        for feed in _feeds.values():
            feed.stop()
        _feeds.clear()


@dataclass
class Reconciled:
    """The feed's notices of a day against a snapshot's (see :func:`reconcile`)."""

    raised: list[ExceptionNotice] = field(default_factory=list)
    """Raised on the feed, not in the snapshot yet: unconfirmed new exceptions."""
    withdrawn: list[ExceptionNotice] = field(default_factory=list)
    """Withdrawn on the feed, not in the snapshot yet: the snapshot still lists them."""
    confirmed: int = 0
    mismatched: list[ExceptionNotice] = field(default_factory=list)
    """The snapshot holds a notice with this number for the exception, and it differs."""

    @property
    def raised_ids(self) -> set[str]:
        return {n.exception_id for n in self.raised}


def reconcile(
    live: Sequence[ExceptionNotice], ledger_notices: pd.DataFrame, listed: set[str]
) -> Reconciled:
    """Sort the feed's notices by what the snapshot says of them. ``ledger_notices``: the
    snapshot's notices of the day (columns ``notice_seq`` and :data:`COMPARED` plus
    ``exception_id``); ``listed``: the exceptions the snapshot lists. A raise of a listed
    exception or a withdrawal of one not listed changes nothing on the page, so neither is
    reported as unconfirmed (it is still checked against the snapshot once it holds it)."""
    held: dict[tuple[str, int], tuple[Any, ...]] = {
        (str(r["exception_id"]), int(r["notice_seq"])): tuple(r[c] for c in COMPARED)
        for r in ledger_notices[["exception_id", "notice_seq", *COMPARED]].to_dict("records")
    }
    out = Reconciled()
    for notice in live:
        in_ledger = held.get((notice.exception_id, notice.notice_seq))
        if in_ledger is None:
            if notice.state == RAISED and notice.exception_id not in listed:
                out.raised.append(notice)
            elif notice.state != RAISED and notice.exception_id in listed:
                out.withdrawn.append(notice)
        elif in_ledger == tuple(getattr(notice, c) for c in COMPARED):
            out.confirmed += 1
        else:
            out.mismatched.append(notice)
    return out


def frame_of(notices: Sequence[ExceptionNotice]) -> pd.DataFrame:
    """Notices as rows shaped like the queue's (:func:`dashboards.queries.exceptions`)."""
    return pd.DataFrame(
        {
            "exception_id": [n.exception_id for n in notices],
            "severity": [n.severity for n in notices],
            "code": [n.code for n in notices],
            "table_id": [n.table_id for n in notices],
            "round_id": [n.round_id for n in notices],
            "seat": pd.array([n.seat for n in notices], dtype="Int64"),
            "serial": pd.array([n.serial for n in notices], dtype="Int64"),
            "expected_cents": pd.array([n.expected_cents for n in notices], dtype="Int64"),
            "actual_cents": pd.array([n.actual_cents for n in notices], dtype="Int64"),
            "message": [n.message for n in notices],
            "announced": pd.to_datetime([n.recorded_at for n in notices], utc=True),
        }
    )
