"""Who the dashboards act for: a proxy's user header only from a trusted proxy address, the
OIDC sign-in, otherwise read-only; roles checked like the command line's; the last action on
an exception stands; a journal that does not verify changes no status."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from dashboard_data import (
    APP,
    DAY,
    grid_rows,
    installation_roles,
    ledger_copy,
    request_from,
    trust_localhost,
)
from streamlit.testing.v1 import AppTest
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from dashboards.server import dashboard_env
from pipeline.bundle.acks import AckJournal
from pipeline.ledger.store import Ledger

TIMEOUT = 120
SITE_ROLES = """
trusted_proxies = ["10.0.0.0/24"]
proxy_user_header = "X-Auth-Request-User"

[users]
"analyst@casino.example" = ["analyst"]
"controller@casino.example" = ["accountant"]
"""


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    db: Path = ledger_copy(tmp_path)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    for name in ("BACCARAT_ACKS", "BACCARAT_RULES", "FORWARDED_ALLOW_IPS"):
        monkeypatch.delenv(name, raising=False)
    return db


@pytest.fixture
def site_roles() -> Path:
    """The installation's roles file (this test's copy of it) says :data:`SITE_ROLES`."""
    path: Path = installation_roles()
    path.write_text(SITE_ROLES)
    return path


def _app(page: str | None = None, **settings: dict[str, object]) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for name, value in settings.items():
        setattr(at, name, value)
    at.run()
    if page:
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _signed_in(at: AppTest) -> str:
    return " ".join(str(t.value) for t in at.sidebar.text if "Signed in" in str(t.value))


def _can_record(at: AppTest) -> bool:
    return any(b.key == "ack-submit" for b in at.button)


def _critical(db: Path) -> str:
    with Ledger(db, read_only=True) as ledger:
        row = ledger.con.execute(
            "SELECT min(exception_id) FROM exceptions WHERE severity_rank >= 4"
        ).fetchone()
    assert row is not None
    return str(row[0])


def _status(at: AppTest, exception_id: str) -> str:
    frame = grid_rows(at.dataframe[0])
    return str(frame.set_index("exception_id").loc[exception_id, "status"])


# ---------------------------------------------------------------------- the proxy header
@pytest.mark.parametrize("address", ["127.0.0.1", "::1", None])  # None: Streamlit's loopback
def test_a_forged_user_header_from_this_machine_is_ignored_by_default(
    ledger: Path, monkeypatch: pytest.MonkeyPatch, address: str | None
) -> None:
    # any local process can send the header; the packaged example trusts no proxy
    request_from(monkeypatch, address, X_Forwarded_User="demo-admin")
    at = _app()
    assert _signed_in(at) == "" and not _can_record(at)
    assert any(
        "Ignored the X-Forwarded-User header: the request came from" in w.value
        and f"trusted_proxies in {installation_roles()}" in w.value
        for w in at.sidebar.warning
    )
    assert AckJournal.for_ledger(ledger).records() == []


def test_a_roles_file_named_in_the_environment_is_not_read(
    ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "my.toml"
    mine.write_text('trusted_proxies = ["127.0.0.1"]\n[users]\nmallory = ["admin"]\n')
    monkeypatch.setenv("BACCARAT_ROLES", str(mine))
    request_from(monkeypatch, "127.0.0.1", X_Forwarded_User="mallory")
    at = _app()
    assert _signed_in(at) == "" and not _can_record(at)


@pytest.mark.parametrize("address", ["203.0.113.9", "10.0.1.1", "192.168.0.10"])
def test_a_spoofed_user_header_from_an_untrusted_address_is_ignored(
    ledger: Path, site_roles: Path, monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    request_from(monkeypatch, address, X_Auth_Request_User="analyst@casino.example")
    at = _app()
    assert _signed_in(at) == ""
    assert any(
        f"the request came from {address}, which is not one of the trusted_proxies in "
        f"{site_roles}" in w.value
        for w in at.sidebar.warning
    )
    assert not _can_record(at)
    assert any("read-only" in i.value for i in at.info)


def test_localhost_is_not_trusted_unless_configured(
    ledger: Path, site_roles: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    request_from(monkeypatch, "127.0.0.1", X_Auth_Request_User="analyst@casino.example")
    at = _app()
    assert _signed_in(at) == "" and not _can_record(at)
    assert any("came from localhost" in w.value for w in at.sidebar.warning)


def test_the_user_header_from_a_trusted_proxy_signs_in(
    ledger: Path, site_roles: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    request_from(monkeypatch, "10.0.0.7", X_Auth_Request_User="analyst@casino.example")
    at = _app()
    expected = "analyst@casino.example (proxy header X-Auth-Request-User from 10.0.0.7)"
    assert expected in _signed_in(at)
    target = str(at.selectbox(key="inspect").value)
    at.radio(key="ack-action").set_value("ESCALATE")
    at.text_area(key="ack-note").input("to the shift manager")
    at.button(key="ack-submit").click().run()
    records = AckJournal.for_ledger(ledger).records()
    assert [(r.exception_id, r.actor, r.actor_source) for r in records] == [
        (target, "analyst@casino.example", "proxy header X-Auth-Request-User from 10.0.0.7")
    ]


def test_the_signed_in_name_is_shown_as_text(
    ledger: Path, site_roles: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "![x](https://evil.example/p.png) [click](https://evil.example)"
    request_from(monkeypatch, "10.0.0.7", X_Auth_Request_User=name)
    at = _app()
    assert _signed_in(at) == f"Signed in as {name} (proxy header X-Auth-Request-User from 10.0.0.7)"
    assert not any("evil.example" in str(m.value) for m in at.sidebar.markdown)
    assert not _can_record(at)  # and it is no user of the roles file


@pytest.mark.parametrize(
    "headers",
    [
        {"X_Forwarded_User": "analyst@casino.example"},  # not the header the proxy sets
        {"X_Remote_User": "analyst@casino.example"},
        {"X_Auth_Request_User": ["analyst@casino.example", "controller@casino.example"]},
        {"X_Auth_Request_User": "  "},
    ],
)
def test_other_repeated_or_empty_user_headers_sign_nobody_in(
    ledger: Path,
    site_roles: Path,
    monkeypatch: pytest.MonkeyPatch,
    headers: dict[str, str | list[str]],
) -> None:
    request_from(monkeypatch, "10.0.0.7", **headers)
    at = _app()
    assert _signed_in(at) == "" and not _can_record(at)


def test_a_forwarded_address_is_not_believed_while_the_server_rewrites_addresses(
    ledger: Path, site_roles: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # with FORWARDED_ALLOW_IPS at its default, the address Streamlit reports may itself come
    # from X-Forwarded-For, i.e. from the client
    headers = {"X_Auth_Request_User": "analyst@casino.example", "X_Forwarded_For": "10.0.0.7"}
    request_from(monkeypatch, "10.0.0.7", **headers)
    at = _app()
    assert _signed_in(at) == "" and not _can_record(at)
    assert any("python -m dashboards.server" in w.value for w in at.sidebar.warning)
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "")  # as dashboards.server starts it
    at = _app()
    assert "analyst@casino.example" in _signed_in(at) and _can_record(at)


def test_a_signed_in_user_without_the_analyst_role_gets_no_form(
    ledger: Path, site_roles: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    request_from(monkeypatch, "10.0.0.7", X_Auth_Request_User="controller@casino.example")
    at = _app()
    assert "controller@casino.example" in _signed_in(at)
    assert not _can_record(at)
    assert any(
        "controller@casino.example may not acknowledge or escalate: that needs the analyst or "
        f"admin role in {site_roles}" in i.value
        for i in at.info
    )


def test_exporting_a_bundle_needs_the_investigator_role(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trust_localhost()
    request_from(monkeypatch, "127.0.0.1", X_Forwarded_User="demo-analyst")
    at = _app("trail")
    with Ledger(ledger, read_only=True) as con:
        row = con.con.execute("SELECT min(round_id) FROM exceptions").fetchone()
    assert row is not None
    at.text_input(key="trail_value").input(str(row[0])).run()
    assert not any(b.key == "t_build" for b in at.button)
    assert any("investigator or admin role" in i.value for i in at.info)


# ---------------------------------------------------------------------- OIDC sign-in
def test_the_oidc_sign_in_names_the_user(
    ledger: Path, site_roles: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = {"is_logged_in": True, "email": "analyst@casino.example", "name": "A. Analyst"}
    at = _app(user=user)
    assert _signed_in(at) == "Signed in as analyst@casino.example (OIDC sign-in)"
    assert any(b.key == "sign_out" for b in at.sidebar.button)
    at.text_area(key="ack-note").input("explained by the pit")
    at.button(key="ack-submit").click().run()
    records = AckJournal.for_ledger(ledger).records()
    assert [(r.actor, r.actor_source) for r in records] == [
        ("analyst@casino.example", "OIDC sign-in")
    ]


def test_the_sign_in_is_offered_only_when_configured(ledger: Path) -> None:
    at = _app(user={"is_logged_in": False})
    assert not any(b.key == "sign_in" for b in at.sidebar.button)
    auth = {
        "redirect_uri": "http://localhost:8501/oauth2callback",
        "cookie_secret": "x" * 32,
        "client_id": "baccarat-audit",
        "client_secret": "s",
        "server_metadata_url": "https://idp.example/.well-known/openid-configuration",
    }
    at = _app(user={"is_logged_in": False}, secrets={"auth": auth})
    assert any(b.key == "sign_in" for b in at.sidebar.button)
    assert not _can_record(at)


# ---------------------------------------------------------------------- statuses
def test_the_last_action_stands_in_the_queue_and_the_close(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _critical(ledger)
    journal = AckJournal.for_ledger(ledger)
    for action in ("ACKNOWLEDGE", "ESCALATE"):
        journal.append(
            exception_id=target, action=action, note="n", actor="demo-analyst", actor_source="x"
        )
    at = _app()
    at.multiselect(key="f_status").set_value(["ESCALATED"]).run()
    assert _status(at, target) == "ESCALATED"
    at = _app("close")
    at.session_state["close_tab"] = "Exceptions that block the close"
    at.run()
    blocking = at.dataframe[0].value
    assert isinstance(blocking, pd.DataFrame)
    assert target in set(blocking["exception_id"])


def test_a_journal_that_does_not_verify_changes_no_status(ledger: Path) -> None:
    target = _critical(ledger)
    journal = AckJournal.for_ledger(ledger)
    journal.append(
        exception_id=target, action="ESCALATE", note="n", actor="demo-analyst", actor_source="x"
    )
    line = json.loads(journal.path.read_text())
    line["action"] = "ACKNOWLEDGE"
    journal.path.write_text(json.dumps(line) + "\n")
    at = _app()
    assert any(
        "does not verify" in e.value and "line 1: ACKNOWLEDGE of exception" in e.value
        for e in at.error
    )
    assert _status(at, target) == "OPEN"
    assert DAY.isoformat() in at.caption[0].value


# ---------------------------------------------------------------------- the server's address
def _address_seen(forwarded_allow_ips: str) -> str:
    """The client address Streamlit's server (uvicorn) hands the app for a request from the
    TCP peer 127.0.0.1 that carries ``X-Forwarded-For: 10.0.0.7``."""
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["client"][0])

    scope = {
        "type": "websocket",
        "client": ("127.0.0.1", 50000),
        "headers": [(b"x-forwarded-for", b"10.0.0.7")],
    }
    middleware = ProxyHeadersMiddleware(app, trusted_hosts=forwarded_allow_ips)
    asyncio.run(middleware(scope, None, None))  # type: ignore[arg-type]
    return seen[0]


def test_the_dashboards_server_reports_the_real_peer_address(tmp_path: Path) -> None:
    assert _address_seen("127.0.0.1,::1") == "10.0.0.7"  # uvicorn's default: rewritten
    env = dashboard_env(tmp_path / "ledger.duckdb")
    assert _address_seen(env["FORWARDED_ALLOW_IPS"]) == "127.0.0.1"
