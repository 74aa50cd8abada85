"""The pattern stage's settings: the catalog's ``[patterns]`` section.

Surveillance choices, not the regulations': how many earlier gaming days the cross-day
searches read, and the false-alarm rate each analyser reports at: a slug
(:mod:`pipeline.patterns.slugs`, per shoe searched), informed betting
(:mod:`pipeline.patterns.informed`, per gaming day) and dealer-patron pairs
(:mod:`pipeline.patterns.pairs`, per window of days) and the evidence accumulated per patron
across the window (:mod:`pipeline.patterns.evidence`, per patron per year). The section may
be left out, which states the defaults below; a value stated is validated and every problem
is reported at once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from pipeline.patterns.chance import (
    EVIDENCE_FALSE_ALARM_RATE,
    INFORMED_FALSE_ALARM_RATE,
    MAX_FALSE_ALARM_RATE,
    PAIRS_FALSE_ALARM_RATE,
)

PATTERNS_SECTION = "patterns"

MAX_WINDOW_DAYS = 366
"""A year of earlier days at most: the search reads every card of the window."""


@dataclass(frozen=True, slots=True)
class PatternSettings:
    window_days: int = 7
    """Earlier gaming days whose shoes a new shoe is compared with (0: the same day only)."""
    slug_false_alarm_rate: float = 1e-6
    """The most a properly shuffled shoe is reported as a slug with, per shoe searched."""
    informed_false_alarm_rate: float = INFORMED_FALSE_ALARM_RATE
    """The most a gaming day of fair play raises any informed-betting alarm with."""
    pairs_false_alarm_rate: float = PAIRS_FALSE_ALARM_RATE
    """The most a window of honest dealing raises any dealer-patron alarm with."""
    evidence_false_alarm_rate: float = EVIDENCE_FALSE_ALARM_RATE
    """The most a fair patron raises a card-preview or accumulated informed-betting alarm
    with, per year."""


def pattern_settings(section: object, errors: list[str]) -> PatternSettings:
    """The ``[patterns]`` section as settings; problems go to ``errors`` (the defaults are
    returned with them, for the caller to refuse the catalog)."""
    where = f"[{PATTERNS_SECTION}]"
    if section is None:
        return PatternSettings()
    if not isinstance(section, Mapping):
        errors.append(f"{where} must be a table of settings")
        return PatternSettings()
    known = {
        "window_days",
        "slug_false_alarm_rate",
        "informed_false_alarm_rate",
        "pairs_false_alarm_rate",
        "evidence_false_alarm_rate",
    }
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
    slug_rate = _rate(
        section,
        "slug_false_alarm_rate",
        default.slug_false_alarm_rate,
        MAX_FALSE_ALARM_RATE,
        f"at most {MAX_FALSE_ALARM_RATE:g} per shoe (a higher rate would report runs shorter "
        "than the search indexes)",
        errors,
    )
    informed_rate, pairs_rate, evidence_rate = (
        _rate(section, name, fallback, 1.0, f"below 1 per {unit}", errors)
        for name, fallback, unit in (
            ("informed_false_alarm_rate", default.informed_false_alarm_rate, "gaming day"),
            ("pairs_false_alarm_rate", default.pairs_false_alarm_rate, "window of days"),
            ("evidence_false_alarm_rate", default.evidence_false_alarm_rate, "patron a year"),
        )
    )
    return PatternSettings(window, slug_rate, informed_rate, pairs_rate, evidence_rate)


def _rate(
    section: Mapping[str, object],
    name: str,
    default: float,
    most: float,
    bound: str,
    errors: list[str],
) -> float:
    """A stated false-alarm rate: a probability above 0 and at most ``most``, below it when
    ``most`` is 1 (an analyser that alarms on every day tells nothing); ``bound`` says so."""
    rate = section.get(name, default)
    if (
        isinstance(rate, bool)
        or not isinstance(rate, int | float)
        or not math.isfinite(rate)
        or not 0 < rate <= most
        or rate == 1.0
    ):
        errors.append(
            f"[{PATTERNS_SECTION}] {name} = {rate!r}: state a probability above 0 and {bound}"
        )
        return default
    return float(rate)
