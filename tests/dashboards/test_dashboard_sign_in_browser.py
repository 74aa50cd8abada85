"""The proxy header through the real server and a real browser: Streamlit's server as
``python -m dashboards.server`` starts it, headless Chromium, and a local proxy that adds the
headers a client makes up (:mod:`_header_proxy`). Its address is 127.0.0.1 whatever
X-Forwarded-For it claims, so the header counts only when the installation's roles file lists
localhost as a trusted proxy, which the packaged example does not.

Needs Debian's Chromium: ``apt-get install -y --no-install-recommends chromium``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _chromium import Browser, free_port
from _header_proxy import HeaderProxy, header_proxy
from browser_harness import browser_tests
from dashboard_data import installation_copy, ledger_copy

from dashboards.server import running_dashboard
from pipeline.config.installation import INSTALLATION_ENV
from pipeline.config.roles import DEFAULT_ROLES

pytestmark = browser_tests(__name__)

Served = tuple[str, Path, Browser, HeaderProxy]
"""The served dashboard's base URL (through the proxy), its roles file, the browser, and the
proxy that sends the headers a test makes up."""

USERS = '\n[users]\ndemo-analyst = ["analyst"]\n'
ONLY_THE_PROXY_HOST = '\ntrusted_proxies = ["10.0.0.0/24"]\n' + USERS
LOCALHOST = '\ntrusted_proxies = ["127.0.0.1", "::1"]\n' + USERS


@pytest.fixture(scope="module")
def served(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory = tmp_path_factory.mktemp("sign-in")
    db = ledger_copy(directory, tables=3, hours=2.0)
    root = installation_copy(directory)  # outlives the first test's own installation
    roles = root / "roles.toml"  # read at every page run: the tests rewrite it
    roles.write_text(ONLY_THE_PROXY_HOST)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(INSTALLATION_ENV, str(root))
        log = (directory / "streamlit.log").open("w")
        with (
            log,
            running_dashboard(db, free_port(), log=log) as served_at,
            header_proxy(served_at) as (base, proxy),
        ):
            yield base, roles, browser, proxy


def _sidebar_after(served: Served, roles_text: str, **headers: str) -> str:
    base, roles, browser, proxy = served
    roles.write_text(roles_text)
    proxy.headers = headers
    browser.navigate(f"{base}/")
    text: str = browser.wait_for("Exception queue", "Refresh data", timeout=90)
    return text


def test_a_header_a_local_client_makes_up_is_ignored(
    served: Served,
) -> None:
    text = _sidebar_after(served, ONLY_THE_PROXY_HOST, **{"X-Forwarded-User": "demo-analyst"})
    assert "Ignored the X-Forwarded-User header: the request came from localhost" in text
    assert "Not signed in: read-only." in text
    assert "Signed in as" not in text
    assert "Note (why; required)" not in text  # no acknowledge/escalate form


def test_a_header_from_this_machine_names_nobody_under_the_packaged_example(
    served: Served,
) -> None:
    text = _sidebar_after(served, DEFAULT_ROLES.read_text(), **{"X-Forwarded-User": "demo-admin"})
    assert "Ignored the X-Forwarded-User header: the request came from localhost" in text
    assert "Signed in as" not in text


def test_claiming_to_be_forwarded_by_the_trusted_proxy_does_not_help(
    served: Served,
) -> None:
    headers = {"X-Forwarded-User": "demo-analyst", "X-Forwarded-For": "10.0.0.7"}
    text = _sidebar_after(served, ONLY_THE_PROXY_HOST, **headers)
    assert "the request came from localhost" in text
    assert "Signed in as" not in text


def test_the_header_from_a_trusted_proxy_address_signs_in(
    served: Served,
) -> None:
    text = _sidebar_after(served, LOCALHOST, **{"X-Forwarded-User": "demo-analyst"})
    assert "Signed in as demo-analyst (proxy header X-Forwarded-User from localhost)" in text
    assert "Note (why; required)" in text  # the acknowledge/escalate form
