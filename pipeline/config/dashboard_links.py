"""Links into the dashboards from outside them (the alerts): the dashboards' base URL, a
setting, and the address of one exception in the exception queue.

The base URL is where people open the dashboards (``https://audit.casino.example``, or a path
under a proxy, ``https://intranet.example/baccarat``). It is optional: without it an alert
carries no link and says so once. The queue opens the gaming day and the exception the URL's
query names (``/exceptions?day=2026-11-24&exception=<id>``); the dashboards read the same
parameter names from here, so a link and the page that follows it cannot drift apart.
Exception ids are the ledger's (hex digests), but every value is URL-encoded all the same.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from urllib.parse import urlencode, urlsplit

DASHBOARD_URL_ENV = "BACCARAT_DASHBOARD_URL"
DASHBOARD_URL_OPTION = "--dashboard-url"
QUEUE_PATH = "exceptions"
"""The exception queue's page (its ``url_path`` in ``dashboards/app.py``)."""
DAY_PARAM = "day"
"""The query parameter of the gaming day every page shows (ISO date)."""
EXCEPTION_PARAM = "exception"
"""The query parameter of the exception the queue opens."""

NO_LINK_NOTE = (
    f"No dashboard link: no dashboard URL is configured (give {DASHBOARD_URL_OPTION} URL or "
    f"set {DASHBOARD_URL_ENV})."
)
"""What an alert says, once, when it carries no link."""


class DashboardUrlError(ValueError):
    """A dashboard base URL that cannot make links; the message names the setting."""


@dataclass(frozen=True)
class DashboardLinks:
    """Builds links to the dashboards at ``base`` (``None``: no links)."""

    base: str | None = None

    @classmethod
    def from_setting(cls, value: str | None, where: str = DASHBOARD_URL_OPTION) -> DashboardLinks:
        """A validated base URL: http or https, with a host, without a query or a fragment
        (the links add their own). ``None`` or blank: no links. Raises
        :class:`DashboardUrlError` naming ``where`` (the option or variable it came from)."""
        if value is None or not value.strip():
            return cls(None)
        text = value.strip()
        try:
            parts = urlsplit(text)
            port_ok = parts.port is None or parts.port > 0
        except ValueError as err:
            raise DashboardUrlError(f"{where} {value!r} is not a URL ({err})") from err
        problems = []
        if parts.scheme not in ("http", "https"):
            problems.append("give an http:// or https:// URL")
        if not parts.hostname:
            problems.append("name the host the dashboards are served from")
        if not port_ok:
            problems.append("give a port from 1 to 65535")
        if parts.query or parts.fragment:
            problems.append("leave out the query and the fragment (each link adds its own)")
        if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in text):
            problems.append("leave out spaces and control characters")
        if problems:
            raise DashboardUrlError(
                f"{where} {value!r} cannot be the dashboards' base URL: "
                + "; ".join(problems)
                + " (e.g. https://audit.casino.example)"
            )
        return cls(text.rstrip("/"))

    @classmethod
    def from_environment(cls) -> DashboardLinks:
        """The base URL of :data:`DASHBOARD_URL_ENV`, if set."""
        return cls.from_setting(os.environ.get(DASHBOARD_URL_ENV), DASHBOARD_URL_ENV)

    def exception(self, gaming_date: date, exception_id: str) -> str | None:
        """The exception queue opened on ``gaming_date`` at ``exception_id``; ``None`` without
        a base URL."""
        if self.base is None:
            return None
        query = urlencode({DAY_PARAM: gaming_date.isoformat(), EXCEPTION_PARAM: exception_id})
        return f"{self.base}/{QUEUE_PATH}?{query}"
