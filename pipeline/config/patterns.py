"""The pattern stage's settings: the catalog's ``[patterns]`` section.

Surveillance choices, not the regulations': how many earlier gaming days the cross-day
searches read, and the false-alarm rate a slug (:mod:`pipeline.patterns.slugs`) is reported
at. The section may be left out, which states the defaults below; a value stated is
validated and every problem is reported at once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from pipeline.patterns.chance import MAX_FALSE_ALARM_RATE

PATTERNS_SECTION = "patterns"

MAX_WINDOW_DAYS = 366
"""A year of earlier days at most: the search reads every card of the window."""


@dataclass(frozen=True, slots=True)
class PatternSettings:
    window_days: int = 7
    """Earlier gaming days whose shoes a new shoe is compared with (0: the same day only)."""
    slug_false_alarm_rate: float = 1e-6
    """The most a properly shuffled shoe is reported as a slug with, per shoe searched."""


def pattern_settings(section: object, errors: list[str]) -> PatternSettings:
    """The ``[patterns]`` section as settings; problems go to ``errors`` (the defaults are
    returned with them, for the caller to refuse the catalog)."""
    where = f"[{PATTERNS_SECTION}]"
    if section is None:
        return PatternSettings()
    if not isinstance(section, Mapping):
        errors.append(f"{where} must be a table of settings")
        return PatternSettings()
    known = {"window_days", "slug_false_alarm_rate"}
    unknown = sorted(set(section) - known)
    if unknown:
        errors.append(f"{where} unknown settings {unknown}; the settings are {sorted(known)}")
    default = PatternSettings()
    window = section.get("window_days", default.window_days)
    if (
        isinstance(window, bool)
        or not isinstance(window, int)
        or not 0 <= window <= MAX_WINDOW_DAYS
    ):
        errors.append(
            f"{where} window_days = {window!r}: state whole earlier gaming days from 0 (the "
            f"same day only) to {MAX_WINDOW_DAYS}"
        )
        window = default.window_days
    rate = section.get("slug_false_alarm_rate", default.slug_false_alarm_rate)
    if (
        isinstance(rate, bool)
        or not isinstance(rate, int | float)
        or not math.isfinite(rate)
        or not 0 < rate <= MAX_FALSE_ALARM_RATE
    ):
        errors.append(
            f"{where} slug_false_alarm_rate = {rate!r}: state a probability above 0 and at "
            f"most {MAX_FALSE_ALARM_RATE:g} per shoe (a higher rate would report runs shorter "
            "than the search indexes)"
        )
        rate = default.slug_false_alarm_rate
    return PatternSettings(window, float(rate))
