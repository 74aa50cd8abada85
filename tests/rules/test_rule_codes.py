"""The rule-code table, pipeline.rules.codes: every code the rules layer emits exists and
cites a section of N.J.A.C. 19:47-3, 4 or 7."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

import pipeline.rules
from pipeline.rules import codes
from pipeline.rules.codes import RULE_CODES, RuleCode, code_for, regulates, rule
from pipeline.rules.config import ShuffleMethod, TableRules
from pipeline.rules.games import Game
from pipeline.rules.settlement import offered_wagers, settle
from pipeline.rules.shoe import shoe_problems

from ._reference import realizable_hands
from .test_settlement import CONFIGS

RULES_DIR = Path(pipeline.rules.__file__).parent
CODE_LITERAL = re.compile(r"""["']((?:PB|CF|MB|NJ)-[0-9][0-9A-Za-z.\-]*|NJ-[A-Z\-]+)["']""")
SUBCHAPTER = {"PB": "3.", "CF": "4.", "MB": "7."}


@pytest.mark.rule("PB-3.3c-VIG", "PB-3.3g-BONUS", "MB-7.3d-TIE-VIG", "CF-4.10c-VIG")
def test_every_settlement_rule_code_exists() -> None:
    """N.J.A.C. 19:47-3.2-3.3, 4.7(g), 4.10, 7.2-7.3: every ``rule_code`` on a settlement -
    over many configurations, every realizable outcome and every offered wager - is a code of
    RULE_CODES (PB-3.3c-VIG, PB-3.3g-BONUS, MB-7.3d-TIE-VIG, CF-4.10c-VIG)."""
    seen: set[str] = set()
    for rules in CONFIGS:
        for hands, wager in itertools.product(realizable_hands(rules.game), offered_wagers(rules)):
            seen.add(settle(rules, hands.outcome(), wager, 2500).rule_code)
    unknown = sorted(seen - set(RULE_CODES))
    assert unknown == []
    assert {"PB-3.3c-VIG", "MB-7.3c-VIG", "CF-4.10c-VIG", "MB-7.3d-TIE-VIG"} <= seen


@pytest.mark.rule("PB-3.1a-DECKS", "MB-7.1d-TWO-BATCH", "PB-3.5d-CUT")
def test_every_shoe_problem_code_exists() -> None:
    """N.J.A.C. 19:47-3.1(a), 3.5(d)-(e), 4.1(a), 4.4, 7.1, 7.5: shoe problems cite codes of
    RULE_CODES (PB-3.1a-DECKS, MB-7.1d-TWO-BATCH, PB-3.5d-CUT)."""
    seen = set()
    for game in Game:
        for method in (ShuffleMethod.MANUAL_LACE, ShuffleMethod.AUTOMATED_BATCH):
            rules = TableRules("s", game, decks=12, shuffle_method=method)
            for problem in shoe_problems(rules, 5, 1, 0, 0):
                seen.add(problem.rule_code)
    assert seen and seen <= set(RULE_CODES)


@pytest.mark.rule("PB-3.3c-VIG")
def test_every_code_literal_in_the_rules_layer_exists() -> None:
    """N.J.A.C. 19:47-3, 4, 7: any code string written anywhere in pipeline/rules (settlement,
    shoe, code_for's table, ...) is defined in RULE_CODES - a typo fails here, not in a
    report (PB-3.3c-VIG)."""
    literals: dict[str, str] = {}
    for path in sorted(RULES_DIR.glob("*.py")):
        for match in CODE_LITERAL.finditer(path.read_text(encoding="utf-8")):
            literals.setdefault(match.group(1), path.name)
    assert len(literals) > 20
    missing = {code: where for code, where in literals.items() if code not in RULE_CODES}
    assert missing == {}


@pytest.mark.rule("PB-3.9c-TABLE2", "CF-4.9c-TABLE3", "MB-7.3c-VIG")
def test_codes_are_unique_and_cite_their_subchapter() -> None:
    """N.J.A.C. 19:47-3, 4, 7: codes are unique, read GAME-SECTION-SUBJECT, and a PB/CF/MB
    code's section is in subchapter 3/4/7 and contains the section number its name carries
    (PB-3.9c-TABLE2, CF-4.9c-TABLE3, MB-7.3c-VIG)."""
    table = codes._TABLE
    assert len({row[0] for row in table}) == len(table) == len(RULE_CODES)
    for code, entry in RULE_CODES.items():
        assert isinstance(entry, RuleCode) and entry.code == code
        assert entry.statement.strip()
        game, _, rest = code.partition("-")
        assert game in ("PB", "CF", "MB", "NJ"), code
        if game in SUBCHAPTER:
            assert entry.section.startswith(SUBCHAPTER[game]), code
            number = re.match(r"\d+\.\d+", rest)
            assert number and number.group(0) in entry.section, code
        assert entry.citation == f"N.J.A.C. 19:47-{entry.section}"


@pytest.mark.rule("PB-3.9c-TABLE2")
def test_rule_lookup() -> None:
    """N.J.A.C. 19:47-3.9(c): ``rule`` returns the entry, an unknown code is a KeyError naming
    it (PB-3.9c-TABLE2)."""
    assert rule("PB-3.9c-TABLE2").citation == "N.J.A.C. 19:47-3.9(c)-(g)"
    with pytest.raises(KeyError, match=r"PB-9\.9z-NOPE"):
        rule("PB-9.9z-NOPE")


@pytest.mark.rule("PB-3.8e-LAST-HAND")
def test_a_subject_the_game_does_not_regulate_is_refused_by_name() -> None:
    """N.J.A.C. 19:47-3.8(e), 4.12(g), (j), (k): Chemin de Fer has no "last hand" (its rules
    speak of the cutting card only); asking for its code names the game, the subject and the
    check to make first (PB-3.8e-LAST-HAND)."""
    assert not regulates(Game.CHEMIN_DE_FER, "last_hand")
    with pytest.raises(LookupError) as refused:
        code_for(Game.CHEMIN_DE_FER, "last_hand")
    assert str(refused.value) == (
        "CHEMIN_DE_FER has no rule for 'last_hand'; check regulates() first"
    )
