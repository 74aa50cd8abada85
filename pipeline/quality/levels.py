"""What a failing expectation does to the gaming-day close (no Great Expectations import, so
the close's command line and the dashboards start fast)."""

from __future__ import annotations

from enum import StrEnum


class Level(StrEnum):
    BLOCK = "BLOCK"
    """The day's figures cannot be trusted: the close is refused."""
    WARN = "WARN"
    """A stream imperfection the replay reports as an NJ-DATA-* exception: reported only."""
