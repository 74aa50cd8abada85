"""Alerts: exception notices pushed to people, by webhook (JSON POST) and e-mail (SMTP).

Each channel has an :class:`AlertFilter` (a minimum severity and, optionally, the rule codes
it carries). :class:`AlertDispatcher` delivers on its own thread, so a slow or dead receiver
never holds up the stream: each alert is tried a few times with backoff, then given up,
with an ERROR log line naming the exception and a ``failed`` count in the run's summary.

What to alert on comes from the ledger's outbox of exception notices, not from memory
(:meth:`AlertDispatcher.sync`): each route (a channel with its filter) is a durable alert
channel of the ledger (:func:`~pipeline.ledger.notices.register_alert_channel`), its
undelivered notices are queued, and each delivery is marked in the ledger by the consumer's
thread, the ledger's one writer. A stream killed after committing a batch and before
alerting, or while a receiver was down, sends those alerts when it starts again; one that had
delivered and marked an alert does not send it again. Between a delivery and its mark (until
the consumer's next turn, under a second) a crash makes the alert go out twice: delivery is
at least once, and every alert carries an idempotency key, ``alert_id``
(``<finding id>-<raised|withdrawn>-<notice seq>``; the webhook's ``Idempotency-Key`` header,
the e-mail's ``Message-ID``), for the receiver to drop the repeat. An alert given up after
its retries is sent again when the stream restarts.

A webhook body is signed with the installation's webhook key (Ed25519,
:mod:`pipeline.config.keys`), which only the pipeline's service account holds; a receiver
holds only its public half, so nothing it keeps can forge an alert. The header::

    X-Baccarat-Signature: keyid=<key id>, ed25519=<signature, hex>

is the Ed25519 signature of the bytes ``baccarat-audit webhook\n`` followed by the exact
body, by the key ``keyid`` of the installation's public keyring (``keyring.json``: the entry
of purpose ``webhook`` with that ``key_id``; its ``public_key`` is the raw key, hex).
Retired keys stay in the keyring, so an alert signed before a rotation still verifies.
:func:`webhook_authentic` is the receiver's check; there is no shared secret.

Every alert names the table's pit and the dealer dealing when the exception happened (read
from the ledger as the alert is queued, :func:`~pipeline.ledger.notices.notice_places`), and
links to the exception in the dashboards' queue when their base URL is configured
(:mod:`pipeline.config.dashboard_links`); without it, the alert's text says once that it
carries no link.

Table, round and patron ids and the message quote strings the floor's devices chose. Every
string of an alert goes through :func:`pipeline.safe_text.visible`, so control and bidi
characters cannot forge e-mail headers, new lines in a chat message, or hide text; JSON
encoding does the quoting.
"""

from __future__ import annotations

import json
import logging
import queue
import smtplib
import socket
import threading
import time
import urllib.request
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Protocol

from pipeline.config.dashboard_links import NO_LINK_NOTE, DashboardLinks
from pipeline.config.keys import Keyring, signer
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.notices import (
    NOWHERE,
    ExceptionNotice,
    NoticePlace,
    mark_delivered,
    notice_places,
    register_alert_channel,
    undelivered_notices,
)
from pipeline.ledger.store import Ledger
from pipeline.replay.findings import Severity, money
from pipeline.safe_text import visible
from pipeline.stream.retry import Backoff

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Baccarat-Signature"
WEBHOOK_PURPOSE = "webhook"
"""The installation key that signs webhook bodies (:data:`pipeline.config.keys.PURPOSES`)."""
IDEMPOTENCY_HEADER = "Idempotency-Key"
SEND_TIMEOUT_SECONDS = 5.0
DEFAULT_BACKOFF = Backoff(initial=0.5, factor=2.0, maximum=4.0, attempts=4, deadline=15.0)
"""Four tries over about 3.5 s: long enough for a receiver restarting, short enough that a
dead one does not pile up a queue."""


@dataclass(frozen=True)
class AlertFilter:
    """Which notices a channel carries: at least ``min_severity``, and one of ``codes``
    (every code when empty)."""

    min_severity: Severity = Severity.HIGH
    codes: frozenset[str] = frozenset()

    def wants(self, notice: ExceptionNotice) -> bool:
        return notice.severity_rank >= self.min_severity and (
            not self.codes or notice.code in self.codes
        )

    def describe(self) -> str:
        """``>=HIGH``, ``>=INFO codes NJ-DATA-GAP,PB-3.10b-SETTLEMENT``."""
        codes = f" codes {','.join(sorted(self.codes))}" if self.codes else ""
        return f">={self.min_severity.name}{codes}"


@dataclass(frozen=True)
class Alert:
    """A notice as people are alerted to it: with its place and its link."""

    notice: ExceptionNotice
    place: NoticePlace = NOWHERE
    link: str | None = None
    """The exception in the dashboards' queue; ``None`` when no base URL is configured."""


def alerts_of(
    ledger: Ledger, notices: Sequence[ExceptionNotice], links: DashboardLinks
) -> list[Alert]:
    """``notices`` of ``ledger`` with their places (one question for all) and links."""
    places = notice_places(ledger, notices)
    return [
        Alert(
            n,
            places.get(n.notice_seq, NOWHERE),
            links.exception(n.gaming_date, n.exception_id),
        )
        for n in notices
    ]


def alert_id(notice: ExceptionNotice) -> str:
    """The alert's idempotency key: the same for every delivery of one notice."""
    return f"{notice.exception_id}-{notice.state.lower()}-{notice.notice_seq}"


def _text(value: str | None) -> str | None:
    return None if value is None else visible(value)


def alert_document(alert: Alert) -> dict[str, Any]:
    """The alert as JSON-ready data, every string made visible (see the module doc), with
    its plain-text rendering as ``text`` (:func:`alert_text`)."""
    notice = alert.notice
    text = _text
    return {
        "alert_id": visible(alert_id(notice)),
        "state": notice.state,
        "finding_id": notice.exception_id,
        "code": notice.code,
        "severity": notice.severity,
        "section": notice.section,
        "table_id": text(notice.table_id),
        "gaming_date": notice.gaming_date.isoformat(),
        "shoe_id": text(notice.shoe_id),
        "round_id": text(notice.round_id),
        "seat": notice.seat,
        "patron_id": text(notice.patron_id),
        "serial": notice.serial,
        "expected_cents": notice.expected_cents,
        "actual_cents": notice.actual_cents,
        "message": visible(notice.message),
        "evidence_event_ids": [visible(e) for e in notice.source_event_ids],
        "recorded_at": notice.recorded_at.isoformat() + "Z",
        "pit": text(alert.place.pit),
        "dealer_id": text(alert.place.dealer_id),
        "dashboard_url": alert.link,
        "text": alert_text(alert),
    }


def alert_text(alert: Alert) -> str:
    """The alert as plain text, the e-mail's body and the webhook's ``text``: the message,
    the rule, where (table, pit, dealer, round...), the money, and the link to the exception
    in the dashboards, or one line saying there is none."""
    notice = alert.notice
    lines = [visible(notice.message), "", f"{notice.section} (rule {notice.code})"]
    for label, value in (
        ("Table", _text(notice.table_id)), ("Pit", _text(alert.place.pit)),
        ("Dealer", _text(alert.place.dealer_id)), ("Gaming day", notice.gaming_date.isoformat()),
        ("Shoe", _text(notice.shoe_id)), ("Round", _text(notice.round_id)),
        ("Seat", notice.seat), ("Patron", _text(notice.patron_id)),
        ("Form serial", notice.serial),
    ):  # fmt: skip
        if value is not None:
            lines.append(f"{label}: {value}")
    for label, cents in (("Expected", notice.expected_cents), ("Recorded", notice.actual_cents)):
        if cents is not None:
            lines.append(f"{label}: {money(cents)}")
    lines += [
        f"Exception id: {visible(notice.exception_id)}",
        f"Recorded at: {notice.recorded_at.isoformat()}Z",
        f"Open in the dashboards: {alert.link}" if alert.link else NO_LINK_NOTE,
    ]
    return "\n".join(lines) + "\n"


def alert_headline(notice: ExceptionNotice) -> str:
    """One line: ``[CRITICAL] PB-3.10b-SETTLEMENT raised at table T01, round R7``."""
    where = f"table {visible(notice.table_id)}"
    if notice.round_id is not None:
        where += f", round {visible(notice.round_id)}"
    return ledger_exceptions.exception_line(
        notice.severity, notice.code, f"{notice.state.lower()} at {where}"
    )


class AlertChannel(Protocol):
    name: str

    @property
    def target(self) -> str:
        """Where it delivers (a URL, a relay and its recipients): part of its durable name."""

    def send(self, alert: Alert) -> None:
        """Deliver one alert; raise on any failure (the dispatcher retries)."""


class WebhookChannel:
    """POSTs each alert as JSON to ``url``, signed (see the module doc)."""

    name = "webhook"

    def __init__(self, url: str, timeout: float = SEND_TIMEOUT_SECONDS) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"--alert-webhook {url!r}: give an http:// or https:// URL")
        signer(WEBHOOK_PURPOSE)  # refused now, not after every alert's retries
        self.url = url
        self.timeout = timeout

    @property
    def target(self) -> str:
        return self.url

    def send(self, alert: Alert) -> None:
        document = alert_document(alert)
        body = json.dumps(document, sort_keys=True).encode("utf-8")
        request = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                SIGNATURE_HEADER: signature_header(body),
                IDEMPOTENCY_HEADER: document["alert_id"],
            },
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            response.read()  # urlopen raises HTTPError for 4xx and 5xx


def signature_header(body: bytes) -> str:
    """The :data:`SIGNATURE_HEADER` value of ``body``, signed with the installation's current
    webhook key (see the module doc)."""
    key = signer(WEBHOOK_PURPOSE)
    return f"keyid={key.key_id}, ed25519={key.sign(body)}"


def webhook_authentic(body: bytes, header: str, keyring: Keyring) -> bool:
    """Whether ``header`` (the :data:`SIGNATURE_HEADER` value) is a signature of ``body`` by
    a webhook key of ``keyring``: what a receiver checks, with the public keyring only."""
    parts = dict(part.strip().partition("=")[::2] for part in header.split(",") if "=" in part)
    key_id, signature = parts.get("keyid"), parts.get("ed25519")
    if not key_id or not signature:
        return False
    return keyring.verify(WEBHOOK_PURPOSE, key_id, body, signature)


class EmailChannel:
    """Sends each alert as a plain-text e-mail through an SMTP relay at ``host:port``."""

    name = "e-mail"

    def __init__(
        self,
        host: str,
        port: int,
        to: Sequence[str],
        sender: str | None = None,
        timeout: float = SEND_TIMEOUT_SECONDS,
    ) -> None:
        if not to:
            raise ValueError("--alert-smtp needs at least one --alert-to ADDRESS")
        self.host, self.port, self.to = host, port, list(to)
        self.sender = sender or f"baccarat-audit@{socket.getfqdn()}"
        self.timeout = timeout

    @property
    def target(self) -> str:
        return f"{self.host}:{self.port} to {','.join(sorted(self.to))}"

    def message(self, alert: Alert) -> EmailMessage:
        mail = EmailMessage()
        mail["Subject"] = alert_headline(alert.notice)
        mail["From"] = self.sender
        mail["To"] = ", ".join(self.to)
        # a repeat is the same mail
        mail["Message-ID"] = f"<{visible(alert_id(alert.notice))}@baccarat-audit>"
        mail.set_content(alert_text(alert))
        return mail

    def send(self, alert: Alert) -> None:
        with smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp:
            smtp.send_message(self.message(alert))


@dataclass
class _Route:
    channel: AlertChannel
    only: AlertFilter

    @property
    def key(self) -> str:
        """The route's durable name in a ledger: a channel served to another target or with
        another filter is another channel, which starts from its own first notice."""
        return f"{self.channel.name} {self.channel.target} {self.only.describe()}"


@dataclass(frozen=True)
class _Job:
    route: _Route
    alert: Alert
    outbox: Path
    """The ledger whose notice it is, to mark the delivery in."""


@dataclass
class AlertDispatcher:
    """Delivers alerts on a background thread (see the module doc). ``close`` waits for the
    queue to drain. ``links``: the dashboards' base URL the alerts link to (none by
    default)."""

    routes: list[_Route] = field(default_factory=list)
    links: DashboardLinks = field(default_factory=DashboardLinks)
    backoff: Backoff = DEFAULT_BACKOFF
    sleep: Callable[[float], None] = time.sleep
    sent: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._queued: set[tuple[Path, str, int]] = set()
        """(ledger, route key, notice seq) of the alerts queued and not marked yet, or given
        up in this run: not queued again."""
        self._delivered: list[_Job] = []
        """Delivered, to be marked in their ledger by the consumer's thread."""
        self._synced: weakref.WeakSet[Ledger] = weakref.WeakSet()

    def add(self, channel: AlertChannel, only: AlertFilter) -> None:
        self.routes.append(_Route(channel, only))

    def sync(self, ledger: Ledger, *, new_notices: bool = False) -> None:
        """From the consumer's thread: mark in ``ledger`` the deliveries made since the last
        call; then, on a ledger not seen since it was opened or when it has ``new_notices``,
        queue every alert its outbox holds undelivered (see the module doc)."""
        with self._lock:
            mine = [j for j in self._delivered if j.outbox == ledger.path]
            self._delivered = [j for j in self._delivered if j.outbox != ledger.path]
        now = datetime.now(UTC)
        for route in self.routes:
            done = [j.alert.notice.notice_seq for j in mine if j.route is route]
            mark_delivered(ledger, route.key, done, now)
        with self._lock:
            self._queued -= {(ledger.path, j.route.key, j.alert.notice.notice_seq) for j in mine}
        if not new_notices and ledger in self._synced:
            return
        self._synced.add(ledger)
        for route in self.routes:
            register_alert_channel(ledger, route.key)
            only = route.only
            notices = undelivered_notices(ledger, route.key, only.min_severity, only.codes)
            for alert in alerts_of(ledger, notices, self.links):
                key = (ledger.path, route.key, alert.notice.notice_seq)
                with self._lock:
                    if key in self._queued:
                        continue
                    self._queued.add(key)
                self._put(_Job(route, alert, ledger.path))

    @property
    def unmarked(self) -> int:
        """Deliveries waiting for :meth:`sync` to mark them."""
        with self._lock:
            return len(self._delivered)

    def close(self, timeout: float | None = None) -> None:
        """Wait for the queue to drain (the deliveries stay to be marked by :meth:`sync`)."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    def summary(self) -> str:
        names = [r.channel.name for r in self.routes]
        return "alerts: " + ", ".join(
            f"{self.sent[n]} sent by {n}, {self.failed[n]} failed" for n in dict.fromkeys(names)
        )

    def _put(self, job: _Job) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="alerts", daemon=True)
            self._thread.start()
        self._queue.put(job)

    def _run(self) -> None:
        while (job := self._queue.get()) is not None:
            self._deliver(job)

    def _deliver(self, job: _Job) -> None:
        route, notice = job.route, job.alert.notice
        delays = self.backoff.delays()
        for attempt in range(len(delays) + 1):
            try:
                route.channel.send(job.alert)
            except Exception as exc:  # any receiver failure: retried, then counted
                if attempt < len(delays):
                    self.sleep(delays[attempt])
                    continue
                self.failed[route.channel.name] += 1
                log.error(
                    "alert not delivered by %s after %d attempts (%s: %s): %s, exception %s; "
                    "it is in the ledger and on the exceptions topic, and alerted again when "
                    "the stream restarts",
                    route.channel.name, attempt + 1, type(exc).__name__, exc,
                    alert_headline(notice), notice.exception_id,
                )  # fmt: skip
            else:
                self.sent[route.channel.name] += 1
                with self._lock:
                    self._delivered.append(job)
                return
