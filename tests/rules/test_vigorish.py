"""Vigorish amounts for every stake from 1c to $10,000: N.J.A.C. 19:47-3.3(c)1, 4.10(c),
7.3(c)1 and 7.3(d)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from pipeline.rules.config import TableRules
from pipeline.rules.games import Game
from pipeline.rules.vigorish import round_up_to, tie_vigorish, vigorish_on_win

from ._reference import expected_vig

MAX_CENTS = 1_000_000  # $10,000
PB, CF, MB = Game.PUNTO_BANCO, Game.CHEMIN_DE_FER, Game.MINIBACCARAT

# (game, percent, rounding, increment in cents; 1 with no rounding)
ROUNDED_MODES = [
    pytest.param(PB, 5, 25, id="PB-5pct-to-25c"),
    pytest.param(PB, 4, 20, id="PB-4pct-to-20c"),
    pytest.param(MB, 5, 5, id="MB-5pct-to-5c"),
    pytest.param(MB, 4, 5, id="MB-4pct-to-5c"),
]


def _rules(game: Game, percent: int, rounding: bool) -> TableRules:
    return TableRules("vig", game, vig_percent=percent, vig_rounding=rounding, vig_deferral=False)


@pytest.mark.rule("PB-3.3c1-VIG-ROUNDING", "MB-7.3c1-VIG-ROUNDING", "CF-4.10c-VIG")
@pytest.mark.parametrize(("game", "percent", "increment"), ROUNDED_MODES)
def test_rounded_vigorish_for_every_amount(game: Game, percent: int, increment: int) -> None:
    """N.J.A.C. 19:47-3.3(c)1, 4.10(c), 7.3(c)1: rounded vigorish is "25 cents [20c; 5c] or
    the next highest multiple" - for every amount won from 1c to $10,000 it is a multiple of
    the increment, at least the exact percentage, and less than the exact percentage plus one
    increment; nothing is owed on nothing (PB-3.3c1-VIG-ROUNDING, MB-7.3c1-VIG-ROUNDING)."""
    rules = _rules(game, percent, True)
    assert rules.vig_increment_cents == increment
    assert vigorish_on_win(rules, 0) == 0
    step = increment * 100  # in hundredths of a cent, like ``exact`` below
    wrong = []
    for amount in range(1, MAX_CENTS + 1):
        vig = vigorish_on_win(rules, amount)
        exact = amount * percent  # the exact vigorish in hundredths of a cent
        if vig % increment or vig * 100 < exact or vig * 100 >= exact + step:
            wrong.append((amount, vig))
            if len(wrong) > 20:
                break
    assert wrong == []
    # the same, computed with exact fractions and math.ceil, on a sample of amounts
    for amount in [*range(1, 5001), *range(5001, MAX_CENTS + 1, 997), MAX_CENTS]:
        exact_cents = Fraction(amount * percent, 100)
        want = math.ceil(exact_cents / increment) * increment
        assert vigorish_on_win(rules, amount) == want == expected_vig(game, percent, True, amount)


@pytest.mark.rule("PB-3.3c-VIG", "MB-7.3c-VIG", "CF-4.10c-VIG")
@pytest.mark.parametrize("percent", [4, 5])
def test_unrounded_vigorish_for_every_amount(percent: int) -> None:
    """N.J.A.C. 19:47-3.3(c), 4.10(c), 7.3(c): without the rounding option the vigorish is the
    percentage of the amount won; a fraction of a cent cannot be collected and no more than
    the percentage may be, so it is the floor - for every amount from 1c to $10,000
    (PB-3.3c-VIG, MB-7.3c-VIG, CF-4.10c-VIG)."""
    rules = _rules(PB, percent, False)
    assert rules.vig_increment_cents == 1
    assert vigorish_on_win(rules, 0) == 0
    wrong = []
    for amount in range(1, MAX_CENTS + 1):
        vig = vigorish_on_win(rules, amount)
        exact = amount * percent  # hundredths of a cent
        if not vig * 100 <= exact < vig * 100 + 100:
            wrong.append((amount, vig))
            if len(wrong) > 20:
                break
    assert wrong == []
    for amount in [*range(1, 5001), *range(5001, MAX_CENTS + 1, 997)]:
        want = math.floor(Fraction(amount * percent, 100))
        assert vigorish_on_win(rules, amount) == want
        for game in (MB, CF):  # the same rule in 7.3(c) and 4.10(c)
            assert vigorish_on_win(_rules(game, percent, False), amount) == want


@pytest.mark.rule("CF-4.10c-VIG")
@pytest.mark.parametrize(("percent", "increment"), [(5, 25), (4, 20)])
def test_chemin_de_fer_rounding(percent: int, increment: int) -> None:
    """N.J.A.C. 19:47-4.10(c): Chemin de Fer may round a 5 % vigorish to 25c and a 4 % one to
    20c "or the next highest multiple", like Punto Banco (CF-4.10c-VIG)."""
    rules = _rules(CF, percent, True)
    assert rules.vig_increment_cents == increment
    for amount in [*range(1, 20_001), *range(20_001, MAX_CENTS + 1, 101)]:
        want = math.ceil(Fraction(amount * percent, 100) / increment) * increment
        assert vigorish_on_win(rules, amount) == want


@pytest.mark.rule("PB-3.3c1-VIG-ROUNDING", "MB-7.3c1-VIG-ROUNDING")
def test_rounding_examples() -> None:
    """N.J.A.C. 19:47-3.3(c)1, 7.3(c)1: 5 % of $1.00 is 5c -> 25c; 4 % of $1.00 is 4c -> 20c;
    5 % of $100 is exactly $5.00 and stays $5.00; 5 % of $100.01 -> $5.25; Minibaccarat
    5 % of $1.01 (5.05c) -> 10c (PB-3.3c1-VIG-ROUNDING)."""
    assert vigorish_on_win(_rules(PB, 5, True), 100) == 25
    assert vigorish_on_win(_rules(PB, 4, True), 100) == 20
    assert vigorish_on_win(_rules(PB, 5, True), 10_000) == 500
    assert vigorish_on_win(_rules(PB, 4, True), 10_000) == 400
    assert vigorish_on_win(_rules(PB, 5, True), 10_001) == 525
    assert vigorish_on_win(_rules(MB, 5, True), 101) == 10
    assert vigorish_on_win(_rules(MB, 4, True), 125) == 5
    assert vigorish_on_win(_rules(PB, 5, False), 101) == 5


@pytest.mark.rule("PB-3.3c1-VIG-ROUNDING")
def test_round_up_to() -> None:
    """N.J.A.C. 19:47-3.3(c)1: the helper rounds an exact amount (hundredths of a cent) up to
    the next multiple of the increment; 0 stays 0 (PB-3.3c1-VIG-ROUNDING)."""
    assert round_up_to(0, 25) == 0
    assert round_up_to(1, 25) == 25
    assert round_up_to(2500, 25) == 25
    assert round_up_to(2501, 25) == 50
    assert round_up_to(499, 5) == 5
    assert round_up_to(501, 1) == 6


@pytest.mark.rule("MB-7.3d-TIE-VIG")
def test_tie_vigorish_for_every_amount() -> None:
    """N.J.A.C. 19:47-7.3(d): 25 percent of the Banker wager, in whole cents (never more than
    the percentage), for every wager from 1c to $10,000 (MB-7.3d-TIE-VIG)."""
    assert tie_vigorish(0) == 0
    assert tie_vigorish(100) == 25
    wrong = [w for w in range(1, MAX_CENTS + 1) if not 0 <= w - 4 * tie_vigorish(w) < 4]
    assert wrong == []
