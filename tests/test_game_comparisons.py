"""Per-game differences live in one place, :mod:`pipeline.rules.variants`: the rules, the replay
and the emulator ask a game's Variant a named question (``variant(game).curator``) instead of
comparing ``Game`` members, so a new per-game rule is one attribute with its section, not a
hunt through every ``if game is Game.PUNTO_BANCO``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("pipeline/rules", "pipeline/replay", "pipeline/simulate")
COMPARISON = re.compile(r"(\bis(\s+not)?|[!=]=|\bin\s*[(\[{])\s*Game\.[A-Z_]+")
"""``x is Game.X``, ``x is not Game.X``, ``x == Game.X``, ``x in (Game.X, ...)``."""


def comparisons(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if COMPARISON.search(line)]


@pytest.mark.parametrize(
    "line",
    [
        "if game is Game.CHEMIN_DE_FER:",
        "if rules.game is not Game.PUNTO_BANCO:",
        "both = a.game == Game.MINIBACCARAT",
        "if game in (Game.PUNTO_BANCO, Game.MINIBACCARAT):",
    ],
)
def test_the_guard_sees_each_form_of_comparison(line: str) -> None:
    """The pattern catches every way the code used to branch on a game."""
    assert comparisons(line) == [line]


def test_no_game_comparisons_in_rules_replay_or_emulator() -> None:
    """No module of the rules, replay or emulator layers branches on a ``Game`` member."""
    found = [
        f"{path.relative_to(ROOT)}: {line}"
        for layer in LAYERS
        for path in sorted((ROOT / layer).rglob("*.py"))
        for line in comparisons(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "ask the game's Variant instead:\n" + "\n".join(found)
