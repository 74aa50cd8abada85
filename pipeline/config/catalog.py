"""Load the rule catalog: named, validated :class:`~pipeline.rules.config.TableRules`."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pipeline.rules.config import InvalidRulesError, TableRules, rules_from_mapping

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
        "gaming_day_starts",
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


def choices_to_state(entry: Mapping[str, Any]) -> frozenset[str]:
    """Every choice ``entry`` must state: :data:`CHOICES_TO_STATE` and those it opens."""
    opened = {name for name, opens in CHOICES_OPENED_BY.items() if opens(entry)}
    return CHOICES_TO_STATE | opened


class CatalogError(ValueError):
    """A rule catalog that cannot be used; the message names the file and the entry."""


def load_catalog(path: Path = DEFAULT_CATALOG) -> Mapping[str, TableRules]:
    """Every rule configuration in ``path``, validated; all problems of all entries at once."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise CatalogError(f"{path}: cannot read the rule catalog: {err}") from err
    catalog: dict[str, TableRules] = {}
    errors: list[str] = []
    for rules_id, entry in data.items():
        if not isinstance(entry, dict):
            errors.append(f"[{rules_id}] must be a table of settings")
            continue
        missing = sorted(choices_to_state(entry) - set(entry))
        if missing:
            errors.append(f"[{rules_id}] must state {missing}; these are the casino's choice")
            continue
        try:
            catalog[rules_id] = rules_from_mapping({"rules_id": rules_id, **entry})
        except (InvalidRulesError, ValueError) as err:
            errors.append(f"[{rules_id}] {err}")
    if errors:
        raise CatalogError(f"{path}:\n" + "\n".join(errors))
    return catalog
