"""Load the rule catalog: named, validated :class:`~pipeline.rules.config.TableRules`."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

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
        missing = sorted(CHOICES_TO_STATE - set(entry))
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
