"""The casino's gaming day starts at a local hour in its time zone (the catalog's
``[gaming_day]``): twice a year it is not 24 hours long, and every instant still belongs to
exactly one day."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pipeline.cli import main
from pipeline.config.catalog import DEFAULT_CATALOG, CatalogError, gaming_day_of, load_catalog
from pipeline.rules.gaming_day import GamingDay, GamingDayError, gaming_day, instant_of, micros_of

NEW_YORK = gaming_day("06:00", "America/New_York")
HOUR = 3_600_000_000


def at(year: int, month: int, day: int, hour: int, minute: int = 0) -> int:
    """A UTC wall-clock time as epoch microseconds."""
    return micros_of(datetime(year, month, day, hour, minute, tzinfo=UTC))


def test_the_packaged_catalog_is_a_new_jersey_casino_s() -> None:
    day = gaming_day_of(load_catalog())
    assert (day.starts, day.zone.key) == (time(6, 0), "America/New_York")
    assert gaming_day_of() == day  # a hand-built mapping plays in the packaged day


@pytest.mark.parametrize(
    ("gaming_date", "hours"),
    [
        (date(2026, 3, 7), 23),  # 06:00 EST to 06:00 EDT: clocks go forward on 8 March
        (date(2026, 3, 8), 24),
        (date(2026, 10, 31), 25),  # 06:00 EDT to 06:00 EST: clocks go back on 1 November
        (date(2026, 11, 1), 24),
        (date(2026, 11, 24), 24),
    ],
)
def test_a_day_across_a_daylight_saving_change_is_23_or_25_hours(
    gaming_date: date, hours: int
) -> None:
    assert NEW_YORK.hours(gaming_date) == hours


def test_the_boundary_is_the_local_hour_in_winter_and_in_summer() -> None:
    assert NEW_YORK.date_of(at(2026, 11, 24, 10, 59)) == date(2026, 11, 23)  # 05:59 EST
    assert NEW_YORK.date_of(at(2026, 11, 24, 11, 0)) == date(2026, 11, 24)  # 06:00 EST
    assert NEW_YORK.date_of(at(2026, 7, 2, 9, 59)) == date(2026, 7, 1)  # 05:59 EDT
    assert NEW_YORK.date_of(at(2026, 7, 2, 10, 0)) == date(2026, 7, 2)  # 06:00 EDT


def test_the_extra_autumn_hour_belongs_to_the_day_it_is_played_in() -> None:
    """On 1 November 2026 the local clock shows 01:00-02:00 twice; both hours, and the
    hours up to 06:00 EST (11:00 UTC), are the 31 October gaming day's. A UTC boundary at
    10:00 (EDT's 06:00) would give the last hour to 1 November."""
    for utc in (at(2026, 11, 1, 5, 30), at(2026, 11, 1, 6, 30), at(2026, 11, 1, 10, 30)):
        assert NEW_YORK.date_of(utc) == date(2026, 10, 31)
    assert NEW_YORK.date_of(at(2026, 11, 1, 11, 0)) == date(2026, 11, 1)
    start, end = NEW_YORK.bounds_micros(date(2026, 10, 31))
    assert (end - start) == 25 * HOUR
    assert NEW_YORK.local(end - 1).endswith("05:59:59 EST")


def test_the_missing_spring_hour_takes_nothing_from_either_day() -> None:
    start, end = NEW_YORK.bounds_micros(date(2026, 3, 7))
    assert NEW_YORK.date_of(start) == NEW_YORK.date_of(end - 1) == date(2026, 3, 7)
    assert NEW_YORK.date_of(end) == date(2026, 3, 8)
    assert NEW_YORK.local(end) == "2026-03-08 06:00:00 EDT"


def test_boundaries_are_listed_across_the_changes() -> None:
    found = NEW_YORK.boundaries_micros(at(2026, 10, 30, 0, 0), at(2026, 11, 2, 23, 0))
    assert found == [at(2026, 10, 30, 10), at(2026, 10, 31, 10), at(2026, 11, 1, 11),
                     at(2026, 11, 2, 11)]  # fmt: skip


def test_an_instant_is_a_whole_number_of_microseconds() -> None:
    """``occurred_at`` and every day boundary are integer epoch microseconds (BIGINT in the
    ledger): a float that compares equal today would lose the last microsecond after 2255."""
    instant = datetime(2026, 11, 1, 10, 59, 59, 999_999, tzinfo=UTC)
    micros = micros_of(instant)
    assert type(micros) is int
    assert micros == 1_793_530_799_999_999
    assert instant_of(micros) == instant
    far = datetime(2300, 1, 1, 0, 0, 0, 1, tzinfo=UTC)  # beyond 2**53 microseconds
    assert instant_of(micros_of(far)) == far


def test_a_day_start_at_either_end_of_the_range_is_listed() -> None:
    """``boundaries_micros`` lists the starts in [first, last], both ends included: the
    ledger's realignment asks from its first to its last event, and an event at 06:00:00.000000
    sharp opens the new gaming day, whose date is the one the Complimentary Vigorish Form
    records (N.J.A.C. 19:47-3.3(c)3i). 1 November 2026 starts at 06:00 EST, 11:00 UTC."""
    start = at(2026, 11, 1, 11)
    assert NEW_YORK.boundaries_micros(start, start) == [start]
    assert NEW_YORK.boundaries_micros(start - 1, start) == [start]
    assert NEW_YORK.boundaries_micros(start, start + 1) == [start]
    assert NEW_YORK.boundaries_micros(start - 1, start - 1) == []
    assert NEW_YORK.boundaries_micros(start + 1, start + 1) == []
    next_start = at(2026, 11, 2, 11)
    assert NEW_YORK.boundaries_micros(start, next_start) == [start, next_start]
    assert NEW_YORK.boundaries_micros(start + 1, next_start - 1) == []
    spring = at(2026, 3, 8, 10)  # 06:00 EDT, 23 hours after 06:00 EST on 7 March
    assert NEW_YORK.boundaries_micros(at(2026, 3, 7, 11), spring) == [at(2026, 3, 7, 11), spring]


def test_every_instant_of_one_utc_minute_is_judged_once() -> None:
    """The replay asks the gaming day of every event; the instants of one UTC minute share
    one cached answer (a whole-minute start in a zone whose offsets are whole minutes cannot
    split a minute), so a busy minute costs one time-zone conversion, not one per event."""
    minute_start = at(2031, 5, 17, 3, 7)
    GamingDay._date_of_minute.cache_clear()  # a test run before in this process cached it
    days = {NEW_YORK.date_of(minute_start + micros) for micros in range(0, 60_000_000, 7_919)}
    assert days == {date(2031, 5, 16)}  # 23:07 EDT the evening before
    assert GamingDay._date_of_minute.cache_info().misses == 1


def test_the_day_describes_itself_as_the_catalog_states_it() -> None:
    assert NEW_YORK.describe() == "06:00 America/New_York"
    assert gaming_day("23:30", "Asia/Kolkata").describe() == "23:30 Asia/Kolkata"


def test_a_toml_local_time_is_taken_as_it_is_and_a_zoned_one_refused() -> None:
    """TOML's unquoted ``starts = 06:00:00`` arrives as a ``time``; one carrying a zone (only
    possible from code) is refused like a written offset, although ``str()`` of a time in a
    ``ZoneInfo`` zone shows no offset (the zone has none without a date)."""
    assert gaming_day(time(6, 0), "America/New_York") == NEW_YORK
    zoned = time(6, 0, tzinfo=ZoneInfo("America/New_York"))
    with pytest.raises(GamingDayError, match="give whole minutes, local time, no offset"):
        gaming_day(zoned, "America/New_York")


def test_a_bad_zone_and_a_bad_start_are_named_together_and_whole() -> None:
    """Every problem at once, each with its fix, so an operator corrects the catalog once."""
    with pytest.raises(GamingDayError) as refused:
        gaming_day("6 am", "Eastern")
    assert str(refused.value) == (
        "[gaming_day]: starts = '6 am' is not a time of day HH:MM (e.g. \"06:00\"); "
        "time_zone = 'Eastern' is not an IANA time zone name (e.g. \"America/New_York\"; "
        '`python -c "import zoneinfo; print(sorted(zoneinfo.available_timezones()))"` '
        "lists them)"
    )


@pytest.mark.parametrize("region", ["US", "America", "Etc"])
def test_a_region_without_its_city_is_not_a_zone(region: str) -> None:
    """A region without its city ("US", "America") is a directory of the zone database:
    ZoneInfo reports it as a file system error, which reached the operator as "the path is a
    directory: name a file", as if the catalog's own path were wrong."""
    with pytest.raises(GamingDayError, match=rf"^\[gaming_day\]: time_zone = '{region}' is not"):
        gaming_day("06:00", region)


@pytest.mark.parametrize(
    ("starts", "zone", "says"),
    [
        ("06:00", "America/Atlantic_City", "'America/Atlantic_City' is not an IANA time zone"),
        ("06:00", "EST5EDT/../../etc", "is not an IANA time zone"),
        ("6 am", "America/New_York", "starts = '6 am' is not a time of day HH:MM"),
        ("06:00:30", "America/New_York", "give whole minutes"),
        ("06:00-05:00", "America/New_York", "give whole minutes, local time, no offset"),
    ],
)
def test_a_bad_setting_is_named(starts: str, zone: str, says: str) -> None:
    with pytest.raises(GamingDayError, match=r"^\[gaming_day\]: ") as refused:
        gaming_day(starts, zone)
    assert says in str(refused.value)


def _catalog(tmp_path: Path, gaming_day_section: str) -> Path:
    body = DEFAULT_CATALOG.read_text(encoding="utf-8")
    start = body.index("[gaming_day]")
    end = body.index("[", start + 1)
    path = tmp_path / "catalog.toml"
    path.write_text(body[:start] + gaming_day_section + body[end:], encoding="utf-8")
    return path


def test_an_unknown_zone_in_the_catalog_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _catalog(tmp_path, '[gaming_day]\nstarts = "06:00"\ntime_zone = "Mars/Olympus"\n\n')
    assert main(["validate-rules", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{path}:" in err and "time_zone = 'Mars/Olympus' is not an IANA time zone" in err
    events = tmp_path / "events"
    events.mkdir()
    assert (
        main(["replay", str(events), "--db", str(tmp_path / "l.duckdb"), "--rules", str(path)]) == 2
    )
    assert not (tmp_path / "l.duckdb").exists()  # refused before a ledger is made


def test_the_catalog_must_state_the_gaming_day(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match=r"\[gaming_day\] is required"):
        load_catalog(_catalog(tmp_path, ""))


def test_a_table_cannot_have_its_own_gaming_day(tmp_path: Path) -> None:
    """One owner: the day is the casino's; a per-table start (the old format) is refused
    with the place to move it to."""
    path = _catalog(tmp_path, '[gaming_day]\nstarts = "06:00"\ntime_zone = "UTC"\n\n')
    text = path.read_text().replace(
        "[pb-5-classic]\n", '[pb-5-classic]\ngaming_day_starts = "06:00"\n'
    )
    path.write_text(text)
    with pytest.raises(CatalogError, match=r"state it once as \[gaming_day\] starts"):
        load_catalog(path)


def test_a_region_as_the_zone_in_the_catalog_names_the_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _catalog(tmp_path, '[gaming_day]\nstarts = "06:00"\ntime_zone = "US"\n\n')
    assert main(["validate-rules", str(path)]) == 2
    err = capsys.readouterr().err
    assert "time_zone = 'US' is not an IANA time zone" in err
    assert "directory" not in err
