"""Load the rule catalog: named, validated :class:`~pipeline.rules.config.TableRules`."""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pipeline.config.patterns import PATTERNS_SECTION, PatternSettings, pattern_settings
from pipeline.rules.config import InvalidRulesError, TableRules, rules_from_mapping
from pipeline.rules.games import Game
from pipeline.rules.gaming_day import GamingDay, GamingDayError, gaming_day

DEFAULT_CATALOG = Path(__file__).with_name("rules_catalog.toml")


CHOICES_TO_STATE: frozenset[str] = frozenset(
    {
        "game",
        "decks",
        "shuffle_method",
        "vig_percent",
        "vig_rounding",
        "vig_deferral",
        "disclosed_card_procedure",
        "disclosed_ten_value_discards",
        "settlement_procedure",
        "min_wager_cents",
        "max_wager_cents",
    }
)
"""Choices a filed rule configuration must state explicitly; the regulations leave them to the
casino (3.3(c), 3.3(c)1-2, 3.5(a), 3.10(b), 3.12(c)), so none is defaulted."""

CHOICES_OPENED_BY: Mapping[str, Callable[[Mapping[str, Any]], bool]] = {
    # 3.3(b), 7.3(b): a tie pays at least 8 to 1, more at the casino's choice; Chemin de Fer
    # has no tie bet (4.7(g)).
    "tie_odds": lambda entry: entry.get("game") != "CHEMIN_DE_FER",
    # 3.3(i): the dragon 7 wager pays at least 40 to 1, more at the casino's choice.
    "dragon_7_odds": lambda entry: bool(entry.get("dragon_7")),
    # 3.2(b): whether a bonus wager needs a Banker or Player wager is the casino's choice.
    "bonus_requires_base_wager": lambda entry: entry.get("bonus_paytable") is not None,
}
"""Choices a filed configuration must state when its other choices open them."""


# fmt: off
CHOICE_SECTIONS: Mapping[str, tuple[str, str, str]] = {
    # choice:                        (Punto Banco, Chemin de Fer, Minibaccarat)
    "game":                          ("3", "4", "7"),
    "decks":                         ("3.1(a)", "4.1(a)", "7.1(a)"),
    "shuffle_method":                ("3.5(a)", "4.4(a)", "7.5(b)"),
    "vig_percent":                   ("3.3(c)", "4.10(c)", "7.3(c)"),
    "vig_rounding":                  ("3.3(c)1", "4.10(c)", "7.3(c)1"),
    "vig_deferral":                  ("3.3(c)2", "4.10(c)", "7.3(c)2"),
    "disclosed_card_procedure":      ("3.12(c)", "4.12(h)", "7.11(c)"),
    "disclosed_ten_value_discards":  ("3.12(c)1", "4.12(h)1", "7.11(c)1"),
    "settlement_procedure":          ("3.10(b)", "4.10(b)", "3.10(b)"),
    "min_wager_cents":               ("8.2", "8.2", "8.2"),
    "max_wager_cents":               ("8.2", "8.2", "8.2"),
    "tie_odds":                      ("3.3(b)", "4.7(g)", "7.3(b)"),
    "dragon_7_odds":                 ("3.3(i)", "3.3(i)", "3.3(i)"),
    "bonus_requires_base_wager":     ("3.2(b)", "3.2(b)", "3.2(b)"),
}
# fmt: on
"""Where each choice a configuration must state is left to the casino, per game: a refusal
names the section beside the choice."""


def _where_regulated(choice: str, game: object) -> str:
    """The section of ``choice`` for the entry's ``game`` (every game's when it names none
    the catalog knows)."""
    games = (Game.PUNTO_BANCO.value, Game.CHEMIN_DE_FER.value, Game.MINIBACCARAT.value)
    by_game = dict(zip(games, CHOICE_SECTIONS[choice], strict=True))
    sections = [by_game[game]] if isinstance(game, str) and game in by_game else by_game.values()
    return f"{choice} (N.J.A.C. 19:47-{', '.join(dict.fromkeys(sections))})"


def choices_to_state(entry: Mapping[str, Any]) -> frozenset[str]:
    """Every choice ``entry`` must state: :data:`CHOICES_TO_STATE` and those it opens."""
    opened = {name for name, opens in CHOICES_OPENED_BY.items() if opens(entry)}
    return CHOICES_TO_STATE | opened


RECORDING_SETTINGS: Mapping[str, str] = {
    "records_no_more_bets": 'the pit terminal records "No More Bets" (BettingClosed) in every '
    "round it deals",
    "records_declined_offers": "the pit terminal records every offer of the cut or of the bank "
    "declined in turn (OfferDeclined)",
}
"""What a table's devices record beyond what every device sends, so that its absence is a
finding: each is written ``true`` or ``false``, and left out it is ``false``."""


GAMING_DAY_SECTION = "gaming_day"
"""The catalog's one section that is not a rule configuration: the casino's gaming day,
``starts`` (local HH:MM) and ``time_zone`` (IANA name), both required."""


class CatalogError(ValueError):
    """A rule catalog that cannot be used; the message names the file and the entry."""


class Catalog(dict[str, TableRules]):
    """The rule configurations by id, the casino's gaming day they are played in, and the
    pattern stage's settings."""

    def __init__(
        self,
        rules: Mapping[str, TableRules],
        day: GamingDay,
        patterns: PatternSettings | None = None,
    ) -> None:
        super().__init__(rules)
        self.gaming_day = day
        self.patterns = patterns or PatternSettings()


def load_catalog(path: Path = DEFAULT_CATALOG) -> Catalog:
    """Every rule configuration in ``path``, validated, and the casino's gaming day; all
    problems of all entries at once."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise CatalogError(f"{path}: cannot read the rule catalog: {err}") from err
    catalog: dict[str, TableRules] = {}
    errors: list[str] = []
    day = _gaming_day_section(data.pop(GAMING_DAY_SECTION, None), errors)
    patterns = pattern_settings(data.pop(PATTERNS_SECTION, None), errors)
    for rules_id, entry in data.items():
        if not isinstance(entry, dict):
            errors.append(f"[{rules_id}] must be a table of settings")
            continue
        if "gaming_day_starts" in entry:
            errors.append(
                f"[{rules_id}] gaming_day_starts: the gaming day is the casino's, not a "
                f"table's; state it once as [{GAMING_DAY_SECTION}] starts and time_zone"
            )
            continue
        missing = sorted(choices_to_state(entry) - set(entry))
        if missing:
            where = "; ".join(_where_regulated(choice, entry.get("game")) for choice in missing)
            errors.append(
                f"[{rules_id}] must state {missing}; these are the casino's choice: {where}"
            )
            continue
        unreadable = [
            f"[{rules_id}] {name} = {entry[name]!r}: write true when {recorded}, false (the "
            "default) when it may not"
            for name, recorded in RECORDING_SETTINGS.items()
            if name in entry and not isinstance(entry[name], bool)
        ]
        if unreadable:
            errors += unreadable
            continue
        try:
            catalog[rules_id] = rules_from_mapping({"rules_id": rules_id, **entry})
        except (InvalidRulesError, ValueError) as err:
            errors.append(f"[{rules_id}] {err}")
    if errors or day is None:
        raise CatalogError(f"{path}:\n" + "\n".join(errors))
    return Catalog(catalog, day, patterns)


def _gaming_day_section(section: object, errors: list[str]) -> GamingDay | None:
    where = f"[{GAMING_DAY_SECTION}]"
    if not isinstance(section, dict):
        errors.append(
            f'{where} is required: starts = "06:00" (local) and time_zone = '
            '"America/New_York" (the casino\'s IANA zone); the boundary follows its '
            "daylight-saving changes"
        )
        return None
    unknown = sorted(set(section) - {"starts", "time_zone"})
    missing = sorted({"starts", "time_zone"} - set(section))
    if unknown or missing:
        errors.append(
            f"{where} needs exactly starts and time_zone; missing {missing}, unknown {unknown}"
        )
        return None
    try:
        return gaming_day(section["starts"], section["time_zone"], where)
    except GamingDayError as err:
        errors.append(str(err))
        return None


def gaming_day_of(catalog: Mapping[str, TableRules] | None = None) -> GamingDay:
    """The casino's gaming day: the one owner of its start and time zone. A catalog loaded
    with :func:`load_catalog` carries its own; a mapping built by hand (tests, the odds
    oracle) is played in the packaged catalog's."""
    if isinstance(catalog, Catalog):
        return catalog.gaming_day
    return _packaged_gaming_day()


@functools.cache
def _packaged_gaming_day() -> GamingDay:
    return load_catalog(DEFAULT_CATALOG).gaming_day
