"""The live feed: every exception the consumer raises or withdraws, on the exceptions topic.

Each batch records its notices in the ledger in the batch's own transaction
(:mod:`pipeline.ledger.notices`); once it is committed, :class:`NoticePublisher` sends the
ledger's pending notices to ``settings.exceptions_topic`` (default ``audit-exceptions``),
keyed by table id like the events, as Avro (:mod:`pipeline.events.exception_notices`),
waits for the broker's acknowledgements, and marks them published. A crash before the mark
sends them again on the next batch: the topic is at-least-once, and a subscriber
de-duplicates on ``(finding_id, state, notice_seq)``. Then ``on_sent`` is told which ledger
has new notices (the alerts, :mod:`pipeline.stream.alerts`, read them from its outbox).

Like every alert, a notice on the topic names the table's pit and the dealer at that moment
and links to the exception in the dashboards when their base URL is configured
(:class:`~pipeline.stream.alerts.Alert`); ``dashboard_url`` is null otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any

from pipeline.config.dashboard_links import DashboardLinks
from pipeline.events.exception_notices import NoticeCodec, utc
from pipeline.ledger.notices import ExceptionNotice, mark_published, pending_notices
from pipeline.ledger.store import Delivery, Ledger
from pipeline.replay.findings import Severity
from pipeline.rules.gaming_day import GamingDay
from pipeline.stream.alerts import Alert, alerts_of
from pipeline.stream.sender import AcknowledgedSender
from pipeline.stream.settings import KafkaSettings


def notice_record(alert: Alert, published_at: datetime) -> dict[str, Any]:
    """The alert's notice as an ``AuditExceptionNotice`` Avro record, with its place and
    link."""
    notice = alert.notice
    return {
        "notice_seq": notice.notice_seq,
        "state": notice.state,
        "finding_id": notice.exception_id,
        "code": notice.code,
        "severity": notice.severity,
        "section": notice.section,
        "table_id": notice.table_id,
        "gaming_date": notice.gaming_date,
        "shoe_id": notice.shoe_id,
        "round_id": notice.round_id,
        "seat": notice.seat,
        "patron_id": notice.patron_id,
        "serial": notice.serial,
        "expected_cents": notice.expected_cents,
        "actual_cents": notice.actual_cents,
        "message": notice.message,
        "evidence_event_ids": list(notice.source_event_ids),
        "recorded_at": utc(notice.recorded_at),
        "published_at": published_at,
        "pit": alert.place.pit,
        "dealer_id": alert.place.dealer_id,
        "dashboard_url": alert.link,
    }


def notice_from_record(record: Mapping[str, Any]) -> ExceptionNotice:
    """The inverse of :func:`notice_record`: a decoded ``AuditExceptionNotice`` as the
    ledger's notice, its time naive UTC as the ledger stores it."""
    return ExceptionNotice(
        notice_seq=int(record["notice_seq"]),
        state=str(record["state"]),
        exception_id=str(record["finding_id"]),
        table_id=str(record["table_id"]),
        gaming_date=record["gaming_date"],
        code=str(record["code"]),
        section=str(record["section"]),
        severity=str(record["severity"]),
        severity_rank=int(Severity[record["severity"]]),  # an enum of the schema: always known
        shoe_id=record["shoe_id"],
        round_id=record["round_id"],
        seat=record["seat"],
        patron_id=record["patron_id"],
        serial=record["serial"],
        expected_cents=record["expected_cents"],
        actual_cents=record["actual_cents"],
        message=str(record["message"]),
        source_event_ids=tuple(record["evidence_event_ids"]),
        recorded_at=record["recorded_at"].astimezone(UTC).replace(tzinfo=None),
    )


def notice_days(deliveries: Iterable[Delivery], gaming_day: GamingDay) -> set[tuple[str, date]]:
    """The table-days whose exceptions a batch of deliveries may have changed: each event's
    own, and its table's day before, where a session still open at the boundary keeps its
    events (:meth:`~pipeline.ledger.store.Ledger.realign_boundary_sessions`)."""
    days: set[tuple[str, date]] = set()
    for delivery in deliveries:
        day = gaming_day.date_of(delivery.event.occurred_at)
        days.add((delivery.event.table_id, day))
        days.add((delivery.event.table_id, day - timedelta(days=1)))
    return days


class NoticePublisher:
    """Sends a ledger's pending notices and marks them published (see the module doc)."""

    def __init__(
        self,
        settings: KafkaSettings,
        retrying: Callable[[Callable[[], Any], str], Any],
        *,
        codec: NoticeCodec | None = None,
        on_sent: Callable[[Ledger], None] | None = None,
        links: DashboardLinks | None = None,
    ) -> None:
        self.codec = codec or NoticeCodec()
        self.links = links or DashboardLinks()
        self.sender = AcknowledgedSender(settings, settings.exceptions_topic, retrying)
        self.retrying = retrying
        self.on_sent = on_sent

    @property
    def sent(self) -> int:
        return self.sender.sent

    def publish_pending(self, ledger: Ledger) -> int:
        """Send every notice ``ledger`` has not published yet; returns how many."""
        notices = pending_notices(ledger)
        if not notices:
            return 0
        now = datetime.now(UTC)
        self.sender.send(
            [
                (a.notice.table_id.encode("utf-8"), self.codec.encode(notice_record(a, now)), [])
                for a in alerts_of(ledger, notices, self.links)
            ],
            f"{len(notices)} exception notice(s)",
        )
        self.retrying(
            lambda: mark_published(ledger, notices, now),
            f"marking {len(notices)} exception notice(s) published in {ledger.path}",
        )
        if self.on_sent is not None:
            self.on_sent(ledger)
        return len(notices)

    def close(self) -> None:
        self.sender.close()
