"""Rule configurations the regulation allows and forbids: N.J.A.C. 19:47-3.1(a), 3.2(a)5-6,
3.3(b)-(i), 3.5, 3.10(c)1, 3.12(c)1; 4.1(a), 4.7, 4.10(c)-(d); 7.1(a), 7.1(d), 7.3(c)-(f),
7.11(c)1."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pipeline.rules.config import (
    ConfigProblem,
    DisclosedCardProcedure,
    InvalidRulesError,
    Odds,
    Paytable,
    SettlementProcedure,
    ShuffleMethod,
    TableAssignment,
    TableRules,
    floor_problems,
    problems,
    rules_from_mapping,
    rules_to_mapping,
    validated,
)
from pipeline.rules.games import Game

PB, CF, MB = Game.PUNTO_BANCO, Game.CHEMIN_DE_FER, Game.MINIBACCARAT
SECTION = re.compile(r"^N\.J\.A\.C\. 19:47-\d+\.\d+")


def rules(game: Game = PB, **kwargs: Any) -> TableRules:
    if game is CF:
        kwargs.setdefault("vig_deferral", False)
    return TableRules("cfg", game, **kwargs)


def found(r: TableRules) -> set[tuple[str, str]]:
    """(field, section) of every problem; each section must read "N.J.A.C. 19:47-..."."""
    out = problems(r)
    for p in out:
        assert isinstance(p, ConfigProblem)
        assert SECTION.match(p.section), p
        assert p.message and p.section in str(p) and p.field in str(p)
    return {(p.field, p.section) for p in out}


LEGAL = [
    pytest.param(rules(PB), id="pb-default"),
    pytest.param(rules(PB, vig_percent=4, vig_rounding=True), id="pb-4pct-rounded"),
    pytest.param(rules(PB, tie_odds=Odds(17, 2)), id="pb-tie-8.5-to-1"),
    pytest.param(rules(PB, no_vig_banker_six=True, bonus_paytable=Paytable.A), id="pb-e1"),
    pytest.param(rules(PB, no_vig_total_card_cover=True, total_card_wagers=True), id="pb-e2"),
    pytest.param(rules(PB, dragon_7=True, dragon_7_odds=Odds(50, 1)), id="pb-dragon"),
    pytest.param(rules(PB, decks=6, disclosed_ten_value_discards=1), id="pb-6-decks"),
    pytest.param(rules(MB, tie_vig_quarter=True, vig_deferral=False), id="mb-tie-quarter"),
    pytest.param(
        rules(MB, shuffle_method=ShuffleMethod.AUTOMATED_BATCH, decks=12), id="mb-two-batch"
    ),
    pytest.param(
        rules(MB, shuffle_method=ShuffleMethod.AUTOMATED_BATCH, decks=14), id="mb-two-batch-14"
    ),
    pytest.param(rules(MB, shuffle_method=ShuffleMethod.FEATHERED), id="mb-feathered"),
    pytest.param(rules(MB, shuffle_method=ShuffleMethod.CONTINUOUS), id="mb-continuous-7.12"),
    pytest.param(rules(CF, shuffle_method=ShuffleMethod.MANUAL_WASH), id="cf-wash-4.4(a)2"),
    pytest.param(
        rules(PB, bonus_paytable=Paytable.C, bonus_requires_base_wager=True), id="pb-bonus-base"
    ),
    pytest.param(rules(MB, disclosed_ten_value_discards=0), id="mb-ten-discards-0"),
    pytest.param(rules(MB, no_vig_banker_six=True, total_card_wagers=True), id="mb-e1"),
    pytest.param(rules(CF, vig_percent=4, vig_rounding=True), id="cf"),
]


@pytest.mark.rule("PB-3.1a-DECKS", "PB-3.3c-VIG", "PB-3.3e-ONE-OPTION")
@pytest.mark.parametrize("legal", LEGAL)
def test_legal_configurations_have_no_problem(legal: TableRules) -> None:
    """N.J.A.C. 19:47-3.3, 4.10, 7.1, 7.3: every choice the regulation leaves to the casino,
    made legally, passes validation (PB-3.3c-VIG, PB-3.3e-ONE-OPTION)."""
    assert problems(legal) == []
    assert validated(legal) is legal


# (field, section) expected for one fault each.
ILLEGAL = [
    pytest.param(
        rules(PB, no_vig_banker_six=True, no_vig_total_card_cover=True, total_card_wagers=True),
        {("no_vig_banker_six", "N.J.A.C. 19:47-3.3(e)")},
        id="e1-and-e2",
    ),
    pytest.param(
        rules(PB, no_vig_total_card_cover=True),
        {("no_vig_total_card_cover", "N.J.A.C. 19:47-3.3(e)2")},
        id="e2-without-total-card-wagers",
    ),
    pytest.param(
        rules(PB, dragon_7=True, total_card_wagers=True),
        {("dragon_7", "N.J.A.C. 19:47-3.2(a)6iii")},
        id="dragon-with-total-card",
    ),
    pytest.param(
        rules(PB, dragon_7=True, bonus_paytable=Paytable.C),
        {("dragon_7", "N.J.A.C. 19:47-3.2(a)6iii")},
        id="dragon-with-bonus",
    ),
    pytest.param(
        rules(PB, dragon_7=True, no_vig_banker_six=True),
        {("dragon_7", "N.J.A.C. 19:47-3.3(e), (h)")},
        id="dragon-with-e1",
    ),
    pytest.param(
        rules(MB, dragon_7=True), {("dragon_7", "N.J.A.C. 19:47-3.3(h)")}, id="dragon-on-mb"
    ),
    pytest.param(
        rules(PB, tie_odds=Odds(7, 1)), {("tie_odds", "N.J.A.C. 19:47-3.3(b)")}, id="tie-7-to-1"
    ),
    pytest.param(
        rules(MB, tie_odds=Odds(15, 2)),
        {("tie_odds", "N.J.A.C. 19:47-7.3(b)")},
        id="tie-7.5-to-1",
    ),
    pytest.param(
        rules(PB, dragon_7=True, dragon_7_odds=Odds(39, 1)),
        {("dragon_7_odds", "N.J.A.C. 19:47-3.3(i)")},
        id="dragon-39-to-1",
    ),
    pytest.param(
        rules(PB, vig_percent=3), {("vig_percent", "N.J.A.C. 19:47-3.3(c)")}, id="pb-vig-3"
    ),
    pytest.param(
        rules(MB, vig_percent=6), {("vig_percent", "N.J.A.C. 19:47-7.3(c)")}, id="mb-vig-6"
    ),
    pytest.param(
        rules(CF, vig_percent=10), {("vig_percent", "N.J.A.C. 19:47-4.10(c)")}, id="cf-vig-10"
    ),
    pytest.param(rules(PB, decks=5), {("decks", "N.J.A.C. 19:47-3.1(a)")}, id="pb-5-decks"),
    pytest.param(rules(CF, decks=4), {("decks", "N.J.A.C. 19:47-4.1(a)")}, id="cf-4-decks"),
    pytest.param(rules(MB, decks=1), {("decks", "N.J.A.C. 19:47-7.1(a)")}, id="mb-1-deck"),
    pytest.param(
        rules(MB, shuffle_method=ShuffleMethod.AUTOMATED_BATCH, decks=10),
        {("decks", "N.J.A.C. 19:47-7.1(d)")},
        id="two-batch-10-decks",
    ),
    pytest.param(
        rules(MB, shuffle_method=ShuffleMethod.AUTOMATED_BATCH, decks=13),
        {("decks", "N.J.A.C. 19:47-7.1(d)")},
        id="two-batch-odd-decks",
    ),
    pytest.param(
        rules(MB, shuffle_method=ShuffleMethod.AUTOMATED_BATCH, decks=15),
        {("decks", "N.J.A.C. 19:47-7.1(d)")},
        id="two-batch-15-decks",
    ),
    pytest.param(
        rules(PB, shuffle_method=ShuffleMethod.AUTOMATED_BATCH, decks=12),
        {("shuffle_method", "N.J.A.C. 19:47-3.5(a)")},
        id="two-batch-on-pb",
    ),
    pytest.param(
        rules(PB, shuffle_method=ShuffleMethod.CONTINUOUS),
        {("shuffle_method", "N.J.A.C. 19:47-3.5(a)")},
        id="continuous-on-pb",
    ),
    pytest.param(
        rules(CF, shuffle_method=ShuffleMethod.CONTINUOUS),
        {("shuffle_method", "N.J.A.C. 19:47-4.4(a)")},
        id="continuous-on-cf",
    ),
    pytest.param(
        rules(CF, shuffle_method=ShuffleMethod.FEATHERED),
        {("shuffle_method", "N.J.A.C. 19:47-4.4(a)")},
        id="feathered-on-cf",
    ),
    pytest.param(
        rules(MB, shuffle_method=ShuffleMethod.MANUAL_WASH),
        {("shuffle_method", "N.J.A.C. 19:47-7.5(b)")},
        id="wash-on-mb",
    ),
    pytest.param(
        rules(CF, tie_odds=Odds(9, 1)), {("tie_odds", "N.J.A.C. 19:47-4.7(g)")}, id="tie-odds-on-cf"
    ),
    pytest.param(
        rules(PB, dragon_7_odds=Odds(50, 1)),
        {("dragon_7_odds", "N.J.A.C. 19:47-3.3(i)")},
        id="dragon-odds-without-dragon",
    ),
    pytest.param(
        rules(PB, bonus_requires_base_wager=True),
        {("bonus_requires_base_wager", "N.J.A.C. 19:47-3.2(b)")},
        id="base-wager-without-bonus",
    ),
    pytest.param(
        rules(PB, shuffle_method=ShuffleMethod.FEATHERED),
        {("shuffle_method", "N.J.A.C. 19:47-3.5(a)")},
        id="feathered-on-pb",
    ),
    pytest.param(
        rules(CF, vig_deferral=True),
        {("vig_deferral", "N.J.A.C. 19:47-4.10(c)")},
        id="cf-deferral",
    ),
    pytest.param(
        rules(PB, tie_vig_quarter=True, vig_deferral=False),
        {("tie_vig_quarter", "N.J.A.C. 19:47-7.3(d)")},
        id="tie-quarter-on-pb",
    ),
    pytest.param(
        rules(MB, tie_vig_quarter=True, vig_deferral=False, no_vig_banker_six=True),
        {("tie_vig_quarter", "N.J.A.C. 19:47-7.3(d), (f)")},
        id="tie-quarter-with-e1",
    ),
    pytest.param(
        rules(MB, tie_vig_quarter=True, vig_deferral=True),
        {("vig_deferral", "N.J.A.C. 19:47-7.3(d)")},
        id="tie-quarter-deferred",
    ),
    pytest.param(
        rules(MB, bonus_paytable=Paytable.A),
        {("bonus_paytable", "N.J.A.C. 19:47-3.2(a)5")},
        id="bonus-on-mb",
    ),
    pytest.param(
        rules(CF, total_card_wagers=True),
        {("total_card_wagers", "N.J.A.C. 19:47-4.7")},
        id="cf-total-card",
    ),
    pytest.param(
        rules(CF, no_vig_banker_six=True),
        {("total_card_wagers", "N.J.A.C. 19:47-4.7")},
        id="cf-no-vig-six",
    ),
    pytest.param(
        rules(PB, disclosed_ten_value_discards=0),
        {("disclosed_ten_value_discards", "N.J.A.C. 19:47-3.12(c)1")},
        id="pb-ten-discards-0",
    ),
    pytest.param(
        rules(CF, disclosed_ten_value_discards=5),
        {("disclosed_ten_value_discards", "N.J.A.C. 19:47-4.12(h)1")},
        id="cf-ten-discards-5",
    ),
    pytest.param(
        rules(MB, disclosed_ten_value_discards=2),
        {("disclosed_ten_value_discards", "N.J.A.C. 19:47-7.11(c)1")},
        id="mb-ten-discards-2",
    ),
    pytest.param(
        rules(PB, min_wager_cents=0), {("min_wager_cents", "N.J.A.C. 19:47-8.2")}, id="min-0"
    ),
    pytest.param(
        rules(PB, min_wager_cents=5000, max_wager_cents=2500),
        {("min_wager_cents", "N.J.A.C. 19:47-8.2")},
        id="max-below-min",
    ),
]


@pytest.mark.rule(
    "PB-3.1a-DECKS",
    "CF-4.1a-DECKS",
    "MB-7.1a-DECKS",
    "MB-7.1d-TWO-BATCH",
    "PB-3.3b-TIE",
    "PB-3.3c-VIG",
    "PB-3.3e-ONE-OPTION",
    "PB-3.3e2-TOTAL-CARD-COVER",
    "PB-3.2a6iii-DRAGON-EXCLUSIVE",
    "PB-3.3i-DRAGON-7",
    "MB-7.3d-TIE-VIG",
    "CF-4.10c-VIG",
    "PB-3.12c-DISCLOSED",
)
@pytest.mark.parametrize(("bad", "expected"), ILLEGAL)
def test_each_illegal_configuration(bad: TableRules, expected: set[tuple[str, str]]) -> None:
    """N.J.A.C. 19:47-3.1(a), 3.2(a)5-6, 3.3(b)-(i), 3.5(a), 3.12(c)1, 4.1(a), 4.7, 4.10(c),
    7.1(a), 7.1(d), 7.3(c)-(f), 7.11(c)1: each forbidden choice is reported once, naming the
    field and its section "N.J.A.C. 19:47-..."; validation raises InvalidRulesError listing it
    (PB-3.3e-ONE-OPTION, PB-3.2a6iii-DRAGON-EXCLUSIVE, MB-7.1d-TWO-BATCH, ...)."""
    assert found(bad) == expected
    assert len(problems(bad)) == len(expected)
    with pytest.raises(InvalidRulesError) as err:
        validated(bad)
    for _field, section in expected:
        assert section in str(err.value)
    assert err.value.rules_id == "cfg"


# The whole refusal for one fault each: what the operator reads is the fix.
WORDED = [
    pytest.param(
        rules(MB, shuffle_method=ShuffleMethod.MANUAL_WASH),
        "shuffle_method: MANUAL_WASH is not a shuffling option of MINIBACCARAT; it offers "
        "FEATHERED (7.5(b)1), MANUAL_LACE (7.5(b)2), AUTOMATED_BATCH (7.1(d)), CONTINUOUS (7.12) "
        "(N.J.A.C. 19:47-7.5(b))",
        id="wash-on-mb",
    ),
    pytest.param(
        rules(CF, vig_deferral=True),
        "vig_deferral: Chemin de Fer vigorish is collected immediately after each round the "
        "Banker wins (N.J.A.C. 19:47-4.10(c))",
        id="cf-deferral",
    ),
    pytest.param(
        rules(PB, no_vig_banker_six=True, no_vig_total_card_cover=True, total_card_wagers=True),
        "no_vig_banker_six: offer one, but not both, of the no-vigorish options (e)1 and (e)2 "
        "(N.J.A.C. 19:47-3.3(e))",
        id="e1-and-e2",
    ),
    pytest.param(
        rules(PB, no_vig_total_card_cover=True),
        "no_vig_total_card_cover: the (e)2 option needs the total-card wagers of 3.2(a)4 to be "
        "offered (N.J.A.C. 19:47-3.3(e)2)",
        id="e2-without-total-card-wagers",
    ),
    pytest.param(
        rules(MB, dragon_7=True),
        "dragon_7: the dragon 7 variation is a Punto Banco rule (N.J.A.C. 19:47-3.3(h))",
        id="dragon-on-mb",
    ),
    pytest.param(
        rules(PB, dragon_7=True, total_card_wagers=True),
        "dragon_7: the dragon 7 wager shall not be offered with the total-card or bonus wagers "
        "(N.J.A.C. 19:47-3.2(a)6iii)",
        id="dragon-with-total-card",
    ),
    pytest.param(
        rules(PB, dragon_7=True, no_vig_banker_six=True),
        "dragon_7: the dragon 7 variation already waives vigorish; it cannot be combined with a "
        "3.3(e) option (N.J.A.C. 19:47-3.3(e), (h))",
        id="dragon-with-e1",
    ),
    pytest.param(
        rules(PB, dragon_7_odds=Odds(50, 1)),
        "dragon_7_odds: dragon 7 odds of 50 to 1 are set but the table does not offer the "
        "dragon 7 variation of 3.3(h) (N.J.A.C. 19:47-3.3(i))",
        id="dragon-odds-without-dragon",
    ),
    pytest.param(
        rules(MB, bonus_paytable=Paytable.A),
        "bonus_paytable: the optional bonus wager is a Punto Banco rule (N.J.A.C. 19:47-3.2(a)5)",
        id="bonus-on-mb",
    ),
    pytest.param(
        rules(PB, bonus_requires_base_wager=True),
        "bonus_requires_base_wager: the base-wager requirement applies to the optional bonus "
        "wager of 3.2(a)5, which this table does not offer (N.J.A.C. 19:47-3.2(b))",
        id="base-wager-without-bonus",
    ),
    pytest.param(
        rules(PB, tie_vig_quarter=True, vig_deferral=False),
        "tie_vig_quarter: the 25 percent tie vigorish is a Minibaccarat rule "
        "(N.J.A.C. 19:47-7.3(d))",
        id="tie-quarter-on-pb",
    ),
    pytest.param(
        rules(MB, tie_vig_quarter=True, vig_deferral=False, no_vig_banker_six=True),
        "tie_vig_quarter: choose either the 25 percent tie vigorish or a no-vigorish option of "
        "7.3(f) (N.J.A.C. 19:47-7.3(d), (f))",
        id="tie-quarter-with-e1",
    ),
    pytest.param(
        rules(MB, tie_vig_quarter=True, vig_deferral=True),
        "vig_deferral: the 25 percent tie vigorish is collected before the next round's first "
        "card (N.J.A.C. 19:47-7.3(d))",
        id="tie-quarter-deferred",
    ),
    pytest.param(
        rules(CF, total_card_wagers=True),
        "total_card_wagers: Chemin de Fer has only wagers for and against the Banker "
        "(N.J.A.C. 19:47-4.7)",
        id="cf-total-card",
    ),
]


@pytest.mark.rule(
    "MB-7.5b-SHUFFLE-FILED",
    "CF-4.10c-VIG",
    "PB-3.3e-ONE-OPTION",
    "PB-3.3e2-TOTAL-CARD-COVER",
    "PB-3.2a6iii-DRAGON-EXCLUSIVE",
    "PB-3.3i-DRAGON-7",
    "MB-7.3d-TIE-VIG",
)
@pytest.mark.parametrize(("bad", "says"), WORDED)
def test_each_refusal_is_worded_in_full(bad: TableRules, says: str) -> None:
    """N.J.A.C. 19:47-3.2(a)5, 3.2(a)6iii, 3.2(b), 3.3(e), 3.3(h)-(i), 4.7, 4.10(c), 7.3(d),
    7.5(b): each refusal names the field, says what the regulation requires (for a shuffle, the
    options the game does offer) and cites the section, word for word (PB-3.3e-ONE-OPTION,
    PB-3.2a6iii-DRAGON-EXCLUSIVE, MB-7.3d-TIE-VIG, ...)."""
    assert [str(p) for p in problems(bad)] == [says]


@pytest.mark.rule("PB-3.3b-TIE", "PB-3.3i-DRAGON-7")
def test_odds_exactly_at_the_minimum_are_legal() -> None:
    """N.J.A.C. 19:47-3.3(b), 3.3(i): "at least 8 to 1" and "not less than 40 to 1" include
    the minimum itself; 80 to 10 equals 8 to 1 (PB-3.3b-TIE, PB-3.3i-DRAGON-7)."""
    assert problems(rules(PB, tie_odds=Odds(8, 1))) == []
    assert problems(rules(PB, tie_odds=Odds(80, 10))) == []
    assert problems(rules(PB, tie_odds=Odds(79, 10))) != []
    assert problems(rules(PB, dragon_7=True, dragon_7_odds=Odds(40, 1))) == []
    assert problems(rules(PB, dragon_7=True, dragon_7_odds=Odds(399, 10))) != []


@pytest.mark.rule("PB-3.3b-TIE", "PB-3.3i-DRAGON-7")
@pytest.mark.parametrize("odds", [Odds(8, 0), Odds(0, 0)], ids=str)
def test_odds_need_a_positive_stake_and_win(odds: Odds) -> None:
    """N.J.A.C. 19:47-3.3(b), (i): odds "to 1" pay a positive multiple of a positive stake;
    "8 to 0" or "0 to 0" cannot be paid at all (a division by zero when settled) and must be
    rejected by validation like any other illegal odds (PB-3.3b-TIE)."""
    assert problems(rules(PB, tie_odds=odds)) != []
    assert problems(rules(PB, dragon_7=True, dragon_7_odds=odds)) != []


@pytest.mark.rule("PB-3.3b-TIE", "PB-3.3i-DRAGON-7")
def test_odds_comparison_at_its_edges() -> None:
    """N.J.A.C. 19:47-3.3(b), (i): Odds.at_least compares any two odds: 1 to 1 is at least 1 to
    1, 3 to 2 at least 3 to 2 and 6 to 4, 4 to 3 not, and odds with a zero side never qualify,
    even against themselves (PB-3.3b-TIE)."""
    assert Odds(1, 1).at_least(Odds(1, 1))
    assert Odds(3, 2).at_least(Odds(3, 2)) and Odds(3, 2).at_least(Odds(6, 4))
    assert not Odds(4, 3).at_least(Odds(3, 2))
    assert Odds(2, 1).at_least(Odds(1, 1)) and not Odds(1, 2).at_least(Odds(1, 1))
    assert not Odds(0, 1).at_least(Odds(0, 1))
    assert not Odds(1, 0).at_least(Odds(0, 1))


@pytest.mark.rule("PB-3.3b-TIE")
@pytest.mark.parametrize(
    ("written", "readable"),
    [
        ("1 to 1", True),
        ([1, 1], True),
        ("0 to 1", False),
        ("8 to 0", False),
        ([0, 1], False),
        ([8, 0], False),
    ],
    ids=str,
)
def test_odds_are_read_with_both_sides_at_least_one(written: object, readable: bool) -> None:
    """N.J.A.C. 19:47-3.3(b): odds are read from a rules file when both sides are positive,
    the smallest being 1 ("1 to 1" is read, then refused by 3.3(b) itself); a zero side is
    refused where it is read (PB-3.3b-TIE)."""
    entry = {"rules_id": "x", "game": "PUNTO_BANCO", "tie_odds": written}
    if readable:
        with pytest.raises(InvalidRulesError, match=r"tie_odds: a tie pays at least 8 to 1"):
            rules_from_mapping(entry)
    else:
        with pytest.raises(ValueError, match="both sides positive"):
            rules_from_mapping(entry)


@pytest.mark.rule("PB-3.2b-WAGER-OFFERED", "NJ-8.2-TABLE-LIMITS")
def test_table_limits_at_their_edges() -> None:
    """N.J.A.C. 19:47-8.2 (NJ-8.2-TABLE-LIMITS): a one-cent minimum and a table whose minimum
    equals its maximum are allowed; a zero minimum and a maximum under the minimum are not."""
    assert problems(rules(PB, min_wager_cents=1)) == []
    assert problems(rules(PB, min_wager_cents=10_000, max_wager_cents=10_000)) == []
    assert found(rules(PB, min_wager_cents=10_000, max_wager_cents=9_999)) == {
        ("min_wager_cents", "N.J.A.C. 19:47-8.2")
    }


@pytest.mark.rule("PB-3.3e-ONE-OPTION", "PB-3.2a6iii-DRAGON-EXCLUSIVE", "PB-3.3b-TIE")
def test_every_problem_is_reported_at_once() -> None:
    """N.J.A.C. 19:47-3.3(b), 3.3(e), 3.2(a)6iii, 3.1(a): a configuration with three faults
    lists all three, not just the first (PB-3.3e-ONE-OPTION)."""
    bad = rules(PB, decks=4, tie_odds=Odds(6, 1), dragon_7=True, total_card_wagers=True)
    assert found(bad) == {
        ("decks", "N.J.A.C. 19:47-3.1(a)"),
        ("tie_odds", "N.J.A.C. 19:47-3.3(b)"),
        ("dragon_7", "N.J.A.C. 19:47-3.2(a)6iii"),
    }
    with pytest.raises(InvalidRulesError) as err:
        validated(bad)
    assert len(err.value.problems) == 3
    assert str(err.value) == (
        "rule configuration 'cfg' is not allowed by N.J.A.C. 19:47:\n"
        "  - decks: at least 6 decks are required, got 4 (N.J.A.C. 19:47-3.1(a))\n"
        "  - tie_odds: a tie pays at least 8 to 1, got 6 to 1 (N.J.A.C. 19:47-3.3(b))\n"
        "  - dragon_7: the dragon 7 wager shall not be offered with the total-card or bonus "
        "wagers (N.J.A.C. 19:47-3.2(a)6iii)\n"
        "Fix these fields in the rules file and run again."
    )


@pytest.mark.rule("PB-3.3c-VIG")
def test_vig_increment_and_charges_banker_vig() -> None:
    """N.J.A.C. 19:47-3.3(c)1, 7.3(c)1, 3.3(e)-(h), 7.3(d): rounding increments per game and
    which variations waive the Banker vigorish (PB-3.3c-VIG)."""
    assert rules(PB, vig_rounding=True).vig_increment_cents == 25
    assert rules(PB, vig_rounding=True, vig_percent=4).vig_increment_cents == 20
    assert rules(MB, vig_rounding=True, vig_percent=4).vig_increment_cents == 5
    assert rules(CF, vig_rounding=True, vig_percent=4).vig_increment_cents == 20
    assert rules(PB).vig_increment_cents == 1
    assert rules(PB).charges_banker_vig
    assert not rules(PB, dragon_7=True).charges_banker_vig
    assert not rules(PB, no_vig_banker_six=True).charges_banker_vig
    assert not rules(MB, tie_vig_quarter=True, vig_deferral=False).charges_banker_vig
    # (e)2 waives it only for covered seats, so the table still charges vigorish
    assert rules(PB, no_vig_total_card_cover=True, total_card_wagers=True).charges_banker_vig


@pytest.mark.rule("PB-3.2b-WAGER-OFFERED")
def test_configurations_hash_apart_by_their_id() -> None:
    """N.J.A.C. 19:47-3.2(b): settlement asks for every wager whether the table's rules offer
    it, through a cache keyed by the rules; distinct configurations hash apart so that lookup
    stays one probe, and a configuration read twice hashes alike (PB-3.2b-WAGER-OFFERED)."""
    floor = [TableRules(f"cfg-{n}", PB) for n in range(64)]
    assert len({hash(r) for r in floor}) == len(floor)
    assert hash(rules(PB)) == hash(rules(PB))


# --- floor rules ----------------------------------------------------------------------------


@pytest.mark.rule("PB-3.3d-VIG-ONE-RATE")
def test_one_vigorish_percentage_per_table() -> None:
    """N.J.A.C. 19:47-3.3(d), 4.10(d): "The percentage of vigorish charged at a baccarat table
    shall apply to all players at that table" (PB-3.3d-VIG-ONE-RATE)."""
    five, four = rules(PB, vig_percent=5), rules(PB, vig_percent=4)
    mixed = floor_problems([TableAssignment("T1", "P1", five), TableAssignment("T1", "P1", four)])
    assert [(p.field, p.section) for p in mixed] == [("vig_percent", "N.J.A.C. 19:47-3.3(d)")]
    assert "T1" in mixed[0].message
    fine = [TableAssignment("T1", "P1", five), TableAssignment("T2", "P1", four)]
    assert floor_problems(fine) == []


@pytest.mark.rule("PB-3.10c1-PIT-PROCEDURE")
def test_one_settlement_procedure_per_pit() -> None:
    """N.J.A.C. 19:47-3.10(c)1: "The same procedure shall be used for all punto banco tables
    located within the same gaming pit" (PB-3.10c1-PIT-PROCEDURE)."""
    one = rules(PB, settlement_procedure=SettlementProcedure.PAY_ALL_THEN_VIG)
    three = rules(PB, settlement_procedure=SettlementProcedure.PAY_THEN_VIG_PER_SEAT)
    mixed = floor_problems([TableAssignment("T1", "P1", one), TableAssignment("T2", "P1", three)])
    assert [(p.field, p.section) for p in mixed] == [
        ("settlement_procedure", "N.J.A.C. 19:47-3.10(c)1")
    ]
    assert "P1" in mixed[0].message and "T2" in mixed[0].message
    assert (
        floor_problems([TableAssignment("T1", "P1", one), TableAssignment("T2", "P2", three)]) == []
    )
    assert (
        floor_problems([TableAssignment("T1", "P1", one), TableAssignment("T2", "P1", one)]) == []
    )


@pytest.mark.rule("PB-3.5b-SHUFFLE-PIT")
def test_one_shuffling_option_per_pit() -> None:
    """N.J.A.C. 19:47-3.5(b): "Any shuffling or lacing option ... shall be implemented at all
    tables within a pit" (PB-3.5b-SHUFFLE-PIT)."""
    lace = rules(PB, shuffle_method=ShuffleMethod.MANUAL_LACE)
    wash = rules(PB, shuffle_method=ShuffleMethod.MANUAL_WASH)
    mixed = floor_problems([TableAssignment("T1", "P1", lace), TableAssignment("T2", "P1", wash)])
    assert [str(p) for p in mixed] == [
        "shuffle_method: pit P1: table T2 uses MANUAL_WASH but table T1 uses MANUAL_LACE "
        "(N.J.A.C. 19:47-3.5(b))"
    ]
    assert (
        floor_problems([TableAssignment("T1", "P1", lace), TableAssignment("T2", "P2", wash)]) == []
    )


@pytest.mark.rule("CF-4.4b-SHUFFLE-PIT", "MB-7.5c-SHUFFLE-PIT")
def test_one_shuffling_option_per_pit_cites_the_game_of_the_table_that_differs() -> None:
    """CF-4.4b-SHUFFLE-PIT, MB-7.5c-SHUFFLE-PIT, N.J.A.C. 19:47-4.4(b), 7.5(c): each
    subchapter binds "all tables within a pit"; a Chemin de Fer or Minibaccarat table that
    differs from its pit's first table is refused under its own section."""
    lace = TableAssignment("T1", "P1", rules(PB, shuffle_method=ShuffleMethod.MANUAL_LACE))
    wash = rules(CF, shuffle_method=ShuffleMethod.MANUAL_WASH)
    feathered = rules(MB, shuffle_method=ShuffleMethod.FEATHERED)
    found = floor_problems(
        [lace, TableAssignment("T2", "P1", wash), TableAssignment("T3", "P1", feathered)]
    )
    assert [p.section for p in found] == ["N.J.A.C. 19:47-4.4(b)", "N.J.A.C. 19:47-7.5(c)"]


@pytest.mark.rule("PB-3.3d-VIG-ONE-RATE", "PB-3.10c1-PIT-PROCEDURE", "PB-3.5b-SHUFFLE-PIT")
def test_floor_problems_are_all_reported() -> None:
    """N.J.A.C. 19:47-3.3(d), 3.5(b), 3.10(c)1: every floor fault is listed at once
    (PB-3.3d-VIG-ONE-RATE, PB-3.10c1-PIT-PROCEDURE, PB-3.5b-SHUFFLE-PIT)."""
    a = rules(PB)
    b = rules(
        PB,
        vig_percent=4,
        settlement_procedure=SettlementProcedure.VIG_ALL_THEN_PAY,
        shuffle_method=ShuffleMethod.MANUAL_WASH,
    )
    got = floor_problems([TableAssignment("T1", "P1", a), TableAssignment("T1", "P1", b)])
    assert {p.section for p in got} == {
        "N.J.A.C. 19:47-3.3(d)",
        "N.J.A.C. 19:47-3.10(c)1",
        "N.J.A.C. 19:47-3.5(b)",
    }


# --- reading configurations -----------------------------------------------------------------


@pytest.mark.rule("PB-3.3b-TIE", "PB-3.3c-VIG")
def test_rules_from_mapping_parses_odds_and_enums() -> None:
    """N.J.A.C. 19:47-3.3(b)-(c), 3.3(g), 3.12(c), 3.10(b): a rules file names odds as "8 to 1"
    (or [8, 1]), and enums by name (or value) (PB-3.3b-TIE)."""
    parsed = rules_from_mapping(
        {
            "rules_id": "floor-a",
            "game": "PUNTO_BANCO",
            "tie_odds": "9 to 1",
            "bonus_paytable": "B",
            "disclosed_card_procedure": "DISCARD_ONE_FACE_DOWN",
            "settlement_procedure": 3,
            "vig_percent": 4,
        }
    )
    assert parsed.game is PB
    assert parsed.tie_odds == Odds(9, 1)
    assert parsed.bonus_paytable is Paytable.B
    assert parsed.disclosed_card_procedure is DisclosedCardProcedure.DISCARD_ONE_FACE_DOWN
    assert parsed.settlement_procedure is SettlementProcedure.PAY_THEN_VIG_PER_SEAT
    listed = rules_from_mapping(
        {
            "rules_id": "x",
            "game": "MINIBACCARAT",
            "tie_odds": [17, 2],
            "disclosed_card_procedure": 3,
        }
    )
    assert listed.tie_odds == Odds(17, 2)
    assert listed.disclosed_card_procedure is DisclosedCardProcedure.SIMULATED_ROUND


@pytest.mark.rule("PB-3.3b-TIE", "PB-3.3e-ONE-OPTION")
def test_rules_from_mapping_rejects_bad_input() -> None:
    """N.J.A.C. 19:47-3.3: unknown settings, malformed odds, unknown enum names and missing
    identity are errors, never ignored; an illegal combination raises InvalidRulesError
    (PB-3.3e-ONE-OPTION)."""
    with pytest.raises(ValueError, match=r"unknown rule setting\(s\) \['tie_pays'\]"):
        rules_from_mapping({"rules_id": "x", "game": "PUNTO_BANCO", "tie_pays": "8 to 1"})
    for odds in ("8:1", "eight to one", "8 to", [8], "8 to 1.5"):
        with pytest.raises(ValueError, match="tie_odds"):
            rules_from_mapping({"rules_id": "x", "game": "PUNTO_BANCO", "tie_odds": odds})
    with pytest.raises(ValueError) as unknown_game:
        rules_from_mapping({"rules_id": "x", "game": "BLACKJACK"})
    assert str(unknown_game.value) == (
        "game: 'BLACKJACK' is not one of PUNTO_BANCO, CHEMIN_DE_FER, MINIBACCARAT"
    )
    with pytest.raises(ValueError, match="bonus_paytable"):
        rules_from_mapping({"rules_id": "x", "game": "PUNTO_BANCO", "bonus_paytable": "D"})
    with pytest.raises(ValueError) as nameless:
        rules_from_mapping({"game": "PUNTO_BANCO"})
    assert str(nameless.value) == "a rule configuration needs at least 'rules_id' and 'game'"
    with pytest.raises(InvalidRulesError, match=r"19:47-3\.3\(e\)"):
        rules_from_mapping(
            {
                "rules_id": "x",
                "game": "PUNTO_BANCO",
                "no_vig_banker_six": True,
                "no_vig_total_card_cover": True,
                "total_card_wagers": True,
            }
        )


@pytest.mark.rule("PB-3.3b-TIE", "PB-3.3i-DRAGON-7")
def test_rules_from_mapping_rejects_zero_stake_odds() -> None:
    """N.J.A.C. 19:47-3.3(b): "8 to 0" is not odds of at least 8 to 1 (PB-3.3b-TIE)."""
    with pytest.raises(ValueError, match="tie_odds"):
        rules_from_mapping({"rules_id": "x", "game": "PUNTO_BANCO", "tie_odds": "8 to 0"})


@pytest.mark.rule("PB-3.3c-VIG", "PB-3.3g-BONUS")
@pytest.mark.parametrize("legal", LEGAL)
def test_rules_mapping_round_trip(legal: TableRules) -> None:
    """N.J.A.C. 19:47-3.3: the stored form of a configuration reads back to the same rules
    (PB-3.3c-VIG)."""
    stored = rules_to_mapping(legal)
    assert stored["game"] == legal.game.name
    assert stored["tie_odds"] == f"{legal.tie_odds.to_win} to {legal.tie_odds.stake}"
    assert rules_from_mapping(stored) == legal


@pytest.mark.rule("MB-7.3f-NO-VIG", "PB-3.3b-TIE")
@pytest.mark.parametrize(
    ("bad", "field", "section"),
    [
        pytest.param(
            rules(MB, tie_odds=Odds(7, 1)), "tie_odds", "N.J.A.C. 19:47-7.3(b)", id="mb-tie-odds"
        ),
        pytest.param(
            rules(MB, no_vig_banker_six=True, no_vig_total_card_cover=True, total_card_wagers=True),
            "no_vig_banker_six",
            "N.J.A.C. 19:47-7.3(f)",
            id="mb-e1-and-e2",
        ),
        pytest.param(
            rules(MB, no_vig_total_card_cover=True),
            "no_vig_total_card_cover",
            "N.J.A.C. 19:47-7.3(f)2",
            id="mb-e2-without-total-card",
        ),
    ],
)
def test_minibaccarat_problems_cite_subchapter_7(bad: TableRules, field: str, section: str) -> None:
    """N.J.A.C. 19:47-7.3(b), 7.3(f): a Minibaccarat table's tie odds and no-vigorish options
    are regulated by 7.3(b) and 7.3(f), not 3.3(b) and 3.3(e); like its decks (7.1(a)),
    vigorish (7.3(c)) and disclosed-card (7.11(c)1) problems, these must cite subchapter 7
    (MB-7.3f-NO-VIG)."""
    assert (field, section) in found(bad)


@pytest.mark.rule("PB-3.7d-PROCEDURE")
@pytest.mark.parametrize("game", [Game.PUNTO_BANCO, Game.MINIBACCARAT, Game.CHEMIN_DE_FER])
def test_only_punto_banco_and_minibaccarat_hand_the_cards_to_the_players(game: Game) -> None:
    """N.J.A.C. 19:47-3.7(d) and 7.7(c)3 offer the procedure that hands the cards to the
    players; at Chemin de Fer the Banker deals them (4.8(d))."""
    found = [(p.field, p.section) for p in problems(rules(game, cards_handed_to_players=True))]
    if game is Game.CHEMIN_DE_FER:
        assert ("cards_handed_to_players", "N.J.A.C. 19:47-4.8(d)") in found
    else:
        assert found == []
