"""Alerts against local receivers: a signed webhook and an SMTP relay, each filtered by
severity and code; device strings cannot forge headers or hide text; a receiver that fails
is retried, then counted and logged, and never holds up the caller."""

from __future__ import annotations

import json
import logging
import socket
import time
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from alert_receivers import SmtpReceiver, WebhookReceiver

from pipeline.cli import ingest_paths, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.config.dashboard_links import (
    DAY_PARAM,
    EXCEPTION_PARAM,
    NO_LINK_NOTE,
    QUEUE_PATH,
    DashboardLinks,
    DashboardUrlError,
)
from pipeline.config.keys import load_keyring, rotate, signer
from pipeline.ingest.pits import judge_pits
from pipeline.ledger.notices import RAISED, WITHDRAWN, ExceptionNotice, record_notices
from pipeline.ledger.store import Ledger
from pipeline.replay.findings import Finding, Severity
from pipeline.replay.rows import ReplayResult
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from pipeline.stream.alerts import (
    IDEMPOTENCY_HEADER,
    SIGNATURE_HEADER,
    AlertDispatcher,
    AlertFilter,
    EmailChannel,
    WebhookChannel,
    alert_id,
    signature_header,
    webhook_authentic,
)
from pipeline.stream.cli import main as stream_main
from pipeline.stream.retry import Backoff
from tests.outbox import insert_notice

SHORT_PAY = ExceptionNotice(
    notice_seq=1, state=RAISED, exception_id="f00d", table_id="T01",
    gaming_date=date(2026, 11, 24), code="PB-3.10b-SETTLEMENT",
    section="N.J.A.C. 19:47-3.10(b)", severity="CRITICAL", severity_rank=4, shoe_id="S1",
    round_id="T01-R007", seat=3, patron_id=None, serial=None, expected_cents=2000,
    actual_cents=1000, message="Player wager on seat 3 paid $10.00, owed $20.00",
    source_event_ids=("e1", "e2"), recorded_at=datetime(2026, 11, 24, 22, 15, 3),
)  # fmt: skip
GAP = replace(
    SHORT_PAY, notice_seq=2, exception_id="beef", code="NJ-DATA-GAP", severity="HIGH",
    severity_rank=3, message="device T01-shoe skipped seq 7",
)  # fmt: skip
DUPLICATE = replace(
    SHORT_PAY, notice_seq=3, exception_id="cafe", code="NJ-DATA-DUPLICATE", severity="INFO",
    severity_rank=0, message="event delivered twice",
)  # fmt: skip
HOSTILE = replace(
    SHORT_PAY, notice_seq=4, exception_id="bad1",
    round_id="R1\r\nBcc: thief@example.com", table_id="T01\u202etxt.exe",
    message="paid\r\nX-Injected: yes\n\nlook here",
)  # fmt: skip
NO_WAIT = Backoff(initial=0.01, attempts=3, maximum=0.01)


def outbox(tmp_path: Path, notices: list[ExceptionNotice]) -> Ledger:
    """A ledger whose outbox holds ``notices`` as a consumer's batch left them (recorded,
    not published yet): what the alerts are driven from (pipeline.ledger.notices)."""
    ledger = Ledger(tmp_path / "outbox.duckdb")
    for notice in notices:
        insert_notice(ledger.con, notice)
    return ledger


def alerted(
    dispatcher: AlertDispatcher, tmp_path: Path, notices: list[ExceptionNotice]
) -> AlertDispatcher:
    """The consumer's turns on a ledger with ``notices`` in its outbox: queue their alerts,
    wait for the deliveries, mark them."""
    with outbox(tmp_path, notices) as ledger:
        dispatcher.sync(ledger)
        dispatcher.close(timeout=30)
        dispatcher.sync(ledger)
    return dispatcher


def test_the_webhook_gets_each_wanted_alert_signed_with_the_webhook_key(tmp_path: Path) -> None:
    with WebhookReceiver() as receiver:
        alerts = AlertDispatcher()
        alerts.add(WebhookChannel(receiver.url), AlertFilter(Severity.HIGH))
        alerted(
            alerts,
            tmp_path,
            [SHORT_PAY, GAP, DUPLICATE, replace(GAP, state=WITHDRAWN, notice_seq=5)],
        )
    bodies = [json.loads(post.body) for post in receiver.bodies]
    assert [(b["code"], b["state"]) for b in bodies] == [
        ("PB-3.10b-SETTLEMENT", RAISED), ("NJ-DATA-GAP", RAISED), ("NJ-DATA-GAP", WITHDRAWN),
    ], "INFO is below the threshold"  # fmt: skip
    first = bodies[0]
    assert (first["expected_cents"], first["actual_cents"], first["seat"]) == (2000, 1000, 3)
    assert first["evidence_event_ids"] == ["e1", "e2"] and first["round_id"] == "T01-R007"
    public = load_keyring()  # all a receiver holds: no secret
    webhook_key = public.current("webhook").key_id
    for post in receiver.bodies:
        assert post.headers["Content-Type"] == "application/json"
        header = post.headers[SIGNATURE_HEADER]
        assert header.startswith(f"keyid={webhook_key}, ed25519=")
        assert webhook_authentic(post.body, header, public)
        forged = post.body.replace(b"2000", b"9000")
        assert not webhook_authentic(forged, header, public), "a forged body fails"
    assert alerts.summary() == "alerts: 3 sent by webhook, 0 failed"


def test_a_webhook_signature_is_no_seal_or_journal_signature_and_survives_rotation(
    tmp_path: Path,
) -> None:
    """Only the webhook key signs alerts: a journal key's signature of the same body does not
    pass, a header without key id or signature does not, and after the webhook key is
    rotated an alert signed before verifies still (the keyring keeps the retired key)."""
    body = b'{"finding_id": "f1"}'
    before = signature_header(body)
    journal_signed = signer("journal").sign(body)
    ring = load_keyring()
    assert webhook_authentic(body, before, ring)
    assert not webhook_authentic(
        body, f"keyid={ring.current('journal').key_id}, ed25519={journal_signed}", ring
    )
    assert not webhook_authentic(body, "sha256=" + "0" * 64, ring)
    assert not webhook_authentic(body, before.split(",")[1], ring)
    rotate("webhook")
    after = signature_header(body)
    ring = load_keyring()
    assert after != before
    assert webhook_authentic(body, before, ring) and webhook_authentic(body, after, ring)


def test_a_webhook_is_refused_at_once_without_the_webhook_key(tmp_path: Path) -> None:
    from pipeline.config.installation import InstallationError, installation

    installation().private_key_path("webhook").unlink()
    with pytest.raises(InstallationError, match="webhook signing key is missing"):
        WebhookChannel("http://127.0.0.1:9/alerts")


def test_a_code_list_narrows_what_a_channel_carries() -> None:
    only_gaps = AlertFilter(Severity.INFO, frozenset({"NJ-DATA-GAP"}))
    assert [n.code for n in (SHORT_PAY, GAP, DUPLICATE) if only_gaps.wants(n)] == ["NJ-DATA-GAP"]
    critical = AlertFilter(Severity.CRITICAL)
    assert [n.code for n in (SHORT_PAY, GAP, DUPLICATE) if critical.wants(n)] == [
        "PB-3.10b-SETTLEMENT"
    ]


def test_the_email_names_the_exception_and_the_money(tmp_path: Path) -> None:
    with SmtpReceiver() as relay:
        alerts = AlertDispatcher()
        channel = EmailChannel("127.0.0.1", relay.port, ["pit@casino.example", "sv@casino.example"])
        alerts.add(channel, AlertFilter(Severity.CRITICAL))
        alerted(alerts, tmp_path, [SHORT_PAY, GAP])
    [mail] = relay.messages
    assert relay.recipients == [["pit@casino.example", "sv@casino.example"]]
    assert mail["Subject"] == "[CRITICAL] PB-3.10b-SETTLEMENT raised at table T01, round T01-R007"
    body = mail.get_content()
    assert "Expected: $20.00" in body and "Recorded: $10.00" in body
    assert "N.J.A.C. 19:47-3.10(b)" in body and "Exception id: f00d" in body
    assert alerts.summary() == "alerts: 1 sent by e-mail, 0 failed"


def test_device_strings_cannot_forge_headers_or_hide_text(tmp_path: Path) -> None:
    with SmtpReceiver() as relay, WebhookReceiver() as hook:
        alerts = AlertDispatcher()
        alerts.add(EmailChannel("127.0.0.1", relay.port, ["pit@casino.example"]), AlertFilter())
        alerts.add(WebhookChannel(hook.url), AlertFilter())
        alerted(alerts, tmp_path, [HOSTILE])
    [mail] = relay.messages
    assert relay.recipients == [["pit@casino.example"]], "no Bcc smuggled in"
    assert mail["Bcc"] is None and mail["X-Injected"] is None
    assert "\r" not in mail["Subject"] and "\n" not in mail["Subject"]
    assert "\u202e" not in mail["Subject"] and "\u202e" not in mail.get_content()
    [post] = hook.bodies
    sent = json.loads(post.body)
    assert "\n" not in sent["message"] and "\u202e" not in sent["table_id"]
    assert "X-Injected" not in post.headers


def test_a_receiver_that_fails_at_first_is_retried_until_it_answers(tmp_path: Path) -> None:
    with WebhookReceiver(fail=2) as receiver:
        alerts = AlertDispatcher(backoff=NO_WAIT)
        alerts.add(WebhookChannel(receiver.url), AlertFilter())
        alerted(alerts, tmp_path, [SHORT_PAY])
    assert receiver.attempts == 3 and len(receiver.bodies) == 1
    assert alerts.summary() == "alerts: 1 sent by webhook, 0 failed"


def test_a_dead_receiver_is_counted_and_logged_and_never_blocks(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        dead_port = unused.getsockname()[1]
    with SmtpReceiver(fail=100) as relay:
        alerts = AlertDispatcher(backoff=Backoff(initial=0.3, attempts=3, maximum=0.3))
        alerts.add(WebhookChannel(f"http://127.0.0.1:{dead_port}/alerts"), AlertFilter())
        alerts.add(EmailChannel("127.0.0.1", relay.port, ["pit@casino.example"]), AlertFilter())
        with outbox(tmp_path, [SHORT_PAY, GAP]) as ledger:
            started = time.monotonic()
            alerts.sync(ledger)
            assert time.monotonic() - started < 0.25, "the consumer does not wait for receivers"
            with caplog.at_level(logging.ERROR, logger="pipeline.stream.alerts"):
                alerts.close(timeout=30)
    assert relay.attempts == 6, "three tries for each of the two alerts"
    assert alerts.summary() == "alerts: 0 sent by webhook, 2 failed, 0 sent by e-mail, 2 failed"
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 4
    assert any("webhook after 3 attempts" in m and "exception f00d" in m for m in lines)


@pytest.mark.parametrize(
    ("options", "complaint"),
    [
        (["--alert-code", "NJ-NOT-A-CODE"], "--alert-code NJ-NOT-A-CODE: no such rule code"),
        (["--alert-to", "pit@casino.example"], "--alert-to needs --alert-smtp"),
        (["--alert-smtp", "relay-without-port"], "give HOST:PORT"),
        (["--alert-webhook", "file:///etc/passwd"], "give an http:// or https:// URL"),
        (["--alert-smtp", "127.0.0.1:25"], "--alert-smtp needs at least one --alert-to"),
        (["--dashboard-url", "ftp://audit.example"], "give an http:// or https:// URL"),
        (["--dashboard-url", "https://audit.example/?day=1"], "leave out the query"),
    ],
)
def test_the_stream_command_refuses_alert_options_that_cannot_work(
    options: list[str], complaint: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["stream", "--bootstrap", "127.0.0.1:9", "--db", str(tmp_path / "l.duckdb")]
    assert stream_main(argv + options) == 2
    assert complaint in capsys.readouterr().err
    assert not (tmp_path / "l.duckdb").exists(), "refused before anything was opened"


# ---------------------------------------------------------------------- from the outbox
def _outbox(path: Path) -> Ledger:
    """A ledger whose outbox holds two notices: a CRITICAL short payout and a LOW fault."""
    ledger = Ledger(path)
    findings = [
        Finding("PB-3.10b-SETTLEMENT", Severity.CRITICAL, "T01", "paid $10.00, owed $20.00"),
        Finding("NJ-DATA-DEVICE-FAULT", Severity.LOW, "T01", "card read twice"),
    ]
    with ledger.transaction():
        ledger.replace_table_day("T01", date(2026, 11, 24), ReplayResult("T01", findings=findings))
        judge_pits(ledger)
        record_notices(ledger, [("T01", date(2026, 11, 24))])
    return ledger


def _webhook_alerts(url: str) -> AlertDispatcher:
    alerts = AlertDispatcher(backoff=NO_WAIT)
    alerts.add(WebhookChannel(url), AlertFilter(Severity.HIGH))
    return alerts


def test_alerts_come_from_the_outbox_and_a_marked_one_is_never_sent_again(
    tmp_path: Path,
) -> None:
    with WebhookReceiver() as hook, _outbox(tmp_path / "ledger.duckdb") as ledger:
        alerts = _webhook_alerts(hook.url)
        alerts.sync(ledger)
        alerts.close(timeout=30)
        alerts.sync(ledger)  # the consumer's next turn marks the delivery
        assert alerts.unmarked == 0
        for _restart in range(2):
            again = _webhook_alerts(hook.url)
            again.sync(ledger)
            again.close(timeout=30)
            assert again.summary() == "alerts: 0 sent by webhook, 0 failed"
        marked = ledger.con.execute("SELECT channel FROM alert_deliveries").fetchall()
    [post] = hook.bodies
    assert json.loads(post.body)["code"] == "PB-3.10b-SETTLEMENT", "LOW is below the filter"
    assert marked == [(f"webhook {hook.url} >=HIGH",)]


def test_a_crash_between_delivery_and_its_mark_resends_with_the_same_idempotency_key(
    tmp_path: Path,
) -> None:
    with WebhookReceiver() as hook, _outbox(tmp_path / "ledger.duckdb") as ledger:
        crashed = _webhook_alerts(hook.url)
        crashed.sync(ledger)
        crashed.close(timeout=30)  # delivered; the process dies before the next turn marks it
        restarted = _webhook_alerts(hook.url)
        restarted.sync(ledger)
        restarted.close(timeout=30)
        restarted.sync(ledger)
    first, second = hook.bodies
    assert first.body == second.body, "at least once: the same alert again"
    key = first.headers[IDEMPOTENCY_HEADER]
    assert key == second.headers[IDEMPOTENCY_HEADER] == json.loads(first.body)["alert_id"]
    assert len({json.loads(p.body)["alert_id"] for p in hook.bodies}) == 1, "one after de-dup"


def test_an_alert_given_up_is_not_retried_in_the_run_but_after_a_restart(tmp_path: Path) -> None:
    with WebhookReceiver(fail=3) as hook, _outbox(tmp_path / "ledger.duckdb") as ledger:
        down = _webhook_alerts(hook.url)  # three tries, all refused
        down.sync(ledger)
        down.close(timeout=30)
        down.sync(ledger, new_notices=True)  # a later batch: the given-up alert is not queued
        down.close(timeout=30)
        assert down.summary() == "alerts: 0 sent by webhook, 1 failed" and hook.attempts == 3
        up = _webhook_alerts(hook.url)  # the stream restarts; the receiver answers now
        up.sync(ledger)
        up.close(timeout=30)
        up.sync(ledger)
        assert up.summary() == "alerts: 1 sent by webhook, 0 failed"
        assert ledger.con.execute("SELECT count(*) FROM alert_deliveries").fetchone() == (1,)


def test_every_alert_carries_its_idempotency_key(tmp_path: Path) -> None:
    with SmtpReceiver() as relay, WebhookReceiver() as hook:
        alerts = AlertDispatcher()
        alerts.add(EmailChannel("127.0.0.1", relay.port, ["pit@casino.example"]), AlertFilter())
        alerts.add(WebhookChannel(hook.url), AlertFilter())
        alerted(alerts, tmp_path, [SHORT_PAY, replace(SHORT_PAY, state=WITHDRAWN, notice_seq=9)])
    assert alert_id(SHORT_PAY) == "f00d-raised-1"
    assert [p.headers[IDEMPOTENCY_HEADER] for p in hook.bodies] == [
        "f00d-raised-1",
        "f00d-withdrawn-9",
    ]
    assert [m["Message-ID"] for m in relay.messages] == [
        "<f00d-raised-1@baccarat-audit>", "<f00d-withdrawn-9@baccarat-audit>",
    ]  # fmt: skip


# ---------------------------------------------------------------------- link, pit and dealer
DASHBOARDS = "https://audit.casino.example/baccarat"
DAY = date(2026, 11, 24)


def test_the_dashboard_url_is_an_http_url_and_the_link_is_url_encoded() -> None:
    links = DashboardLinks.from_setting(DASHBOARDS + "/")
    hostile = "f00d&day=1999-01-01#x y/\u202e"
    link = links.exception(date(2026, 3, 7), hostile)
    assert link is not None
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{DASHBOARDS}/{QUEUE_PATH}"
    assert parse_qs(parts.query) == {DAY_PARAM: ["2026-03-07"], EXCEPTION_PARAM: [hostile]}
    assert not parts.fragment and " " not in link
    assert DashboardLinks.from_setting(None).exception(DAY, "f00d") is None
    assert DashboardLinks.from_setting("  ").base is None
    for bad, says in (
        ("javascript:alert(1)", "give an http:// or https:// URL"),
        ("https://", "name the host"),
        ("https://audit.example#top", "leave out the query and the fragment"),
        ("https://audit.example/a b", "leave out spaces"),
        ("http://audit.example:0", "give a port"),
    ):
        with pytest.raises(DashboardUrlError, match=says):
            DashboardLinks.from_setting(bad)


def _replayed(path: Path) -> Ledger:
    """A ledger holding one emulated hour of T01 with payout faults, replayed from its
    files (pit, dealer, rounds and deliveries), and its notices recorded as a batch does."""
    emulated = simulate(1, 1, 5, parse_faults("payout=0.05"), DAY)
    ledger = Ledger(path / "replayed.duckdb")
    ingest_paths(ledger, write_simulation(emulated, path, DAY), DEFAULT_CATALOG)
    with ledger.transaction():
        record_notices(ledger, [("T01", DAY)])
    return ledger


def _opening_dealer(ledger: Ledger) -> str:
    rows = ledger.con.execute(
        "SELECT json_extract_string(fields_json, '$.dealer_id') FROM deliveries "
        "WHERE payload_type = 'TableOpened'"
    ).fetchall()
    return str(rows[0][0])


@pytest.mark.rule("PB-3.3a-PLAYER")
def test_every_alert_links_to_its_exception_and_names_the_pit_and_the_dealer(
    tmp_path: Path,
) -> None:
    """A short or over payout (N.J.A.C. 19:47-3.3(a)) brings the pit supervisor to the table:
    the webhook and the e-mail name the pit and the dealer, and open the exception in the
    queue of the dashboards at the configured base URL."""
    with SmtpReceiver() as relay, WebhookReceiver() as hook, _replayed(tmp_path) as ledger:
        dealer = _opening_dealer(ledger)
        alerts = AlertDispatcher(links=DashboardLinks.from_setting(DASHBOARDS))
        alerts.add(WebhookChannel(hook.url), AlertFilter(Severity.CRITICAL))
        alerts.add(EmailChannel("127.0.0.1", relay.port, ["pit@casino.example"]), AlertFilter(
            Severity.CRITICAL))  # fmt: skip
        alerts.sync(ledger)
        alerts.close(timeout=30)
    assert hook.bodies and len(relay.messages) == len(hook.bodies)
    for post, mail in zip(hook.bodies, relay.messages, strict=True):
        sent = json.loads(post.body)
        assert (sent["pit"], sent["dealer_id"]) == ("BACCARAT-1", dealer)
        query = parse_qs(urlsplit(sent["dashboard_url"]).query)
        assert query == {DAY_PARAM: [DAY.isoformat()], EXCEPTION_PARAM: [sent["finding_id"]]}
        assert sent["dashboard_url"].startswith(f"{DASHBOARDS}/{QUEUE_PATH}?")
        body = mail.get_content().replace("\r\n", "\n")  # SMTP's line ends
        for text in (sent["text"], body):
            assert "Pit: BACCARAT-1" in text and f"Dealer: {dealer}" in text
            assert f"Open in the dashboards: {sent['dashboard_url']}" in text
            assert NO_LINK_NOTE not in text
        assert sent["text"] == body, "one rendering of the alert's text"


def test_without_a_dashboard_url_an_alert_says_once_that_it_has_no_link(tmp_path: Path) -> None:
    with SmtpReceiver() as relay, WebhookReceiver() as hook, _replayed(tmp_path) as ledger:
        alerts = AlertDispatcher()
        alerts.add(WebhookChannel(hook.url), AlertFilter(Severity.CRITICAL))
        alerts.add(EmailChannel("127.0.0.1", relay.port, ["pit@casino.example"]), AlertFilter(
            Severity.CRITICAL))  # fmt: skip
        alerts.sync(ledger)
        alerts.close(timeout=30)
    assert hook.bodies and relay.messages
    for post in hook.bodies:
        sent = json.loads(post.body)
        assert sent["dashboard_url"] is None and sent["text"].count(NO_LINK_NOTE) == 1
        assert sent["pit"] == "BACCARAT-1", "the pit and the dealer come all the same"
    for mail in relay.messages:
        body = mail.get_content()
        assert body.count(NO_LINK_NOTE) == 1 and "Open in the dashboards" not in body


def test_the_stream_command_refuses_a_bad_dashboard_url_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BACCARAT_DASHBOARD_URL", "audit.example")
    argv = ["stream", "--bootstrap", "127.0.0.1:9", "--db", str(tmp_path / "l.duckdb")]
    assert stream_main(argv) == 2
    assert "BACCARAT_DASHBOARD_URL 'audit.example'" in capsys.readouterr().err
    assert not (tmp_path / "l.duckdb").exists(), "refused before anything was opened"
