"""The casino's gaming day: which day's figures an instant of play counts in.

A gaming day begins at the casino's chosen local hour (``starts``, e.g. 06:00) in its time
zone (an IANA name, e.g. ``America/New_York``) and ends when the local clock next shows that
hour. Because the hour is local, a day that crosses a daylight-saving change is not 24 hours
long: 23 hours in spring (America/New_York, second Sunday of March) and 25 in autumn (first
Sunday of November). A boundary computed in UTC would put an hour of play in the wrong day's
figures twice a year.

This module computes the boundaries; :func:`pipeline.config.catalog.gaming_day_of` is where
the casino's choice is read (the rule catalog's ``[gaming_day]`` section). Everything that
assigns events to days (ingest, the stream consumer, the ledger's boundary realignment, the
emulator, the quality gate, the reports, the nightly schedule) asks a :class:`GamingDay`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MINUTE_MICROS = 60_000_000


class GamingDayError(ValueError):
    """A gaming-day setting that cannot be used; the message names the setting and the fix."""


def micros_of(instant: datetime) -> int:
    """An aware instant as microseconds since the Unix epoch (the events' ``occurred_at``)."""
    return (instant - EPOCH) // timedelta(microseconds=1)


def instant_of(micros: int) -> datetime:
    """Microseconds since the Unix epoch as an aware UTC instant."""
    return EPOCH + timedelta(microseconds=micros)


@dataclass(frozen=True)
class GamingDay:
    """From ``starts`` (local, whole minutes) in ``zone`` to the same local time the next
    calendar day."""

    starts: time
    zone: ZoneInfo

    def start_of(self, gaming_date: date) -> datetime:
        """When ``gaming_date`` begins, as an aware instant in the casino's zone."""
        return datetime.combine(gaming_date, self.starts, tzinfo=self.zone)

    def bounds_micros(self, gaming_date: date) -> tuple[int, int]:
        """``gaming_date`` as a half-open range of epoch microseconds [start, end)."""
        return (
            micros_of(self.start_of(gaming_date)),
            micros_of(self.start_of(gaming_date + timedelta(days=1))),
        )

    def hours(self, gaming_date: date) -> float:
        """How long ``gaming_date`` is: 24, or 23 / 25 across a daylight-saving change."""
        start, end = self.bounds_micros(gaming_date)
        return (end - start) / 3_600_000_000

    def date_of(self, occurred_at_micros: int) -> date:
        """The gaming day an instant (epoch microseconds) belongs to; the first or last date
        there is for an instant before or after every calendar day (a broken device clock,
        which the ledger then dates by the device's other events)."""
        # The local clock changes by whole minutes, and ``starts`` is a whole minute, so
        # every instant of one UTC minute belongs to the same day: cache by the minute.
        return self._date_of_minute(occurred_at_micros // MINUTE_MICROS)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 (few GamingDay values, each lives long)
    def _date_of_minute(self, minute: int) -> date:
        try:
            local = instant_of(minute * MINUTE_MICROS).astimezone(self.zone)
            day = local.date()
            return day - timedelta(days=1) if local.time() < self.starts else day
        except OverflowError:  # beyond the calendar: a broken device clock
            return date.max if minute > 0 else date.min

    def boundaries_micros(self, first_micros: int, last_micros: int) -> list[int]:
        """Every day start in [first, last], in epoch microseconds."""
        day = self.date_of(first_micros)
        found = []
        while (start := micros_of(self.start_of(day))) <= last_micros:
            if start >= first_micros:
                found.append(start)
            day += timedelta(days=1)
        return found

    def local(self, micros: int) -> str:
        """An instant as the casino's wall clock shows it, with the zone's abbreviation
        (``2026-11-01 01:30:00 EST``): what an accountant reads in a report."""
        return instant_of(micros).astimezone(self.zone).strftime("%Y-%m-%d %H:%M:%S %Z")

    def describe(self) -> str:
        return f"{self.starts.strftime('%H:%M')} {self.zone.key}"


def gaming_day(starts: object, time_zone: object, where: str = "[gaming_day]") -> GamingDay:
    """A validated :class:`GamingDay` from the catalog's values; every problem at once."""
    problems = []
    start: time | None = None
    try:
        start = starts if isinstance(starts, time) else time.fromisoformat(str(starts))
    except ValueError:
        problems.append(f'starts = {starts!r} is not a time of day HH:MM (e.g. "06:00")')
    if start is not None and (start.second or start.microsecond or start.tzinfo):
        problems.append(f"starts = {starts!r}: give whole minutes, local time, no offset")
    zone: ZoneInfo | None = None
    try:
        zone = ZoneInfo(str(time_zone))
    except (ZoneInfoNotFoundError, ValueError, OSError):
        # OSError: a region without a city ("US", "America") is a directory of the zone
        # database, which ZoneInfo reports as IsADirectoryError, not as an unknown key.
        problems.append(
            f"time_zone = {time_zone!r} is not an IANA time zone name (e.g. "
            '"America/New_York"; `python -c "import zoneinfo; print(sorted('
            'zoneinfo.available_timezones()))"` lists them)'
        )
    if problems or start is None or zone is None:
        raise GamingDayError(f"{where}: " + "; ".join(problems))
    return GamingDay(start, zone)
