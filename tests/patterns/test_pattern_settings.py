"""The catalog's ``[patterns]`` section: the window of earlier gaming days the cross-day
searches read and the false-alarm rates a slug (PB-3.5a1-SLUG, N.J.A.C. 19:47-3.5(a)1),
informed betting (NJ-PATTERN-INFORMED-BETTING) and a dealer-patron pair
(NJ-PATTERN-DEALER-PATRON) are reported at; validated with every problem named at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config.catalog import DEFAULT_CATALOG, CatalogError, load_catalog
from pipeline.config.patterns import PatternSettings

GAMING_DAY = '[gaming_day]\nstarts = "06:00"\ntime_zone = "America/New_York"\n'


def catalog_with(tmp_path: Path, patterns: str | None) -> Path:
    text = DEFAULT_CATALOG.read_text(encoding="utf-8")
    head, _, rest = text.partition("[patterns]")
    rest = rest[rest.index("\n[") :]  # drop the packaged section
    path = tmp_path / "catalog.toml"
    path.write_text(head + (patterns or "") + rest, encoding="utf-8")
    return path


def test_the_packaged_catalog_states_its_settings() -> None:
    assert load_catalog(DEFAULT_CATALOG).patterns == PatternSettings(7, 1e-6, 0.01, 0.01)


def test_a_catalog_without_the_section_gets_the_defaults(tmp_path: Path) -> None:
    assert load_catalog(catalog_with(tmp_path, None)).patterns == PatternSettings()


def test_stated_settings_are_used(tmp_path: Path) -> None:
    path = catalog_with(
        tmp_path,
        "[patterns]\nwindow_days = 30\nslug_false_alarm_rate = 1e-9\n"
        "informed_false_alarm_rate = 0.05\npairs_false_alarm_rate = 0.001\n",
    )
    assert load_catalog(path).patterns == PatternSettings(30, 1e-9, 0.05, 0.001)


@pytest.mark.parametrize(
    ("section", "named"),
    [
        ("window_days = -1", "window_days = -1"),
        ("window_days = 400", "window_days = 400"),
        ("window_days = 7.5", "window_days = 7.5"),
        ("window_days = true", "window_days = True"),
        ('window_days = "7"', "window_days = '7'"),
        ("slug_false_alarm_rate = 0.0", "slug_false_alarm_rate = 0.0"),
        ("slug_false_alarm_rate = 0.01", "slug_false_alarm_rate = 0.01"),
        ("slug_false_alarm_rate = nan", "slug_false_alarm_rate = nan"),
        ('slug_false_alarm_rate = "1e-6"', "slug_false_alarm_rate = '1e-6'"),
        ("informed_false_alarm_rate = 0", "informed_false_alarm_rate = 0"),
        ("informed_false_alarm_rate = 1.0", "informed_false_alarm_rate = 1.0"),
        ("informed_false_alarm_rate = -0.01", "informed_false_alarm_rate = -0.01"),
        ("informed_false_alarm_rate = inf", "informed_false_alarm_rate = inf"),
        ('pairs_false_alarm_rate = "1%"', "pairs_false_alarm_rate = '1%'"),
        ("pairs_false_alarm_rate = true", "pairs_false_alarm_rate = True"),
        ("pairs_false_alarm_rate = 5", "pairs_false_alarm_rate = 5"),
        ("window = 7", "unknown settings ['window']"),
    ],
)
def test_a_setting_out_of_range_is_refused_naming_it(
    tmp_path: Path, section: str, named: str
) -> None:
    with pytest.raises(CatalogError, match="patterns") as raised:
        load_catalog(catalog_with(tmp_path, f"[patterns]\n{section}\n"))
    assert named in str(raised.value)
    assert str(tmp_path / "catalog.toml") in str(raised.value)


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = catalog_with(
        tmp_path, "[patterns]\nwindow_days = -3\nslug_false_alarm_rate = 2.0\nextra = 1\n"
    )
    with pytest.raises(CatalogError) as raised:
        load_catalog(path)
    text = str(raised.value)
    assert "window_days = -3" in text and "slug_false_alarm_rate = 2.0" in text
    assert "extra" in text


def test_a_section_that_is_not_a_table_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "catalog.toml"
    path.write_text("patterns = 3\n" + GAMING_DAY, encoding="utf-8")
    with pytest.raises(CatalogError, match=r"\[patterns\] must be a table"):
        load_catalog(path)
