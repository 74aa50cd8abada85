"""Settling wagers in integer cents: N.J.A.C. 19:47-3.2, 3.3, 3.10(b)5; 4.7(g), 4.10; 7.2, 7.3."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from pipeline.rules.cards import Point
from pipeline.rules.config import Odds, Paytable, TableRules, problems
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome
from pipeline.rules.settlement import (
    Result,
    Settlement,
    Wager,
    WagerNotOfferedError,
    offered_wagers,
    settle,
    settle_seat,
    within_table_limits,
)

from ._golden import paytables
from ._reference import Hands, expected_settlement, realizable_hands

PB, CF, MB = Game.PUNTO_BANCO, Game.CHEMIN_DE_FER, Game.MINIBACCARAT
PAYTABLES = paytables()


def table(game: Game = PB, **kwargs: Any) -> TableRules:
    if game is CF:
        kwargs.setdefault("vig_deferral", False)
    rules = TableRules("t", game, **kwargs)
    assert problems(rules) == [], problems(rules)
    return rules


def oc(p: int, b: int, p_cards: int = 3, b_cards: int = 3) -> RoundOutcome:
    return RoundOutcome(Point(p), Point(b), p_cards, b_cards)


PLAYER_WINS, BANKER_WINS, TIE = oc(7, 2), oc(2, 7, 2, 2), oc(5, 5)


# --- Player, Banker and Tie ------------------------------------------------------------------


@pytest.mark.rule("PB-3.3a-PLAYER")
@pytest.mark.parametrize("game", [PB, MB], ids=lambda g: g.name)
def test_player_wager(game: Game) -> None:
    """N.J.A.C. 19:47-3.2(a)2, 3.3(a) (7.2(a)2, 7.3(a)): a Player wager wins 1 to 1, loses,
    and is void on a tie (PB-3.3a-PLAYER)."""
    rules = table(game)
    assert settle(rules, PLAYER_WINS, Wager.PLAYER, 2500) == Settlement(
        Wager.PLAYER, 2500, Result.WIN, 2500, 0, "PB-3.3a-PLAYER"
    )
    lost = settle(rules, BANKER_WINS, Wager.PLAYER, 2500)
    assert (lost.result, lost.paid_cents, lost.net_cents) == (Result.LOSE, 0, -2500)
    void = settle(rules, TIE, Wager.PLAYER, 2500)
    assert (void.result, void.paid_cents, void.vig_cents, void.net_cents) == (Result.VOID, 0, 0, 0)


@pytest.mark.rule("CF-4.7g-PLAYER")
def test_chemin_de_fer_wager_against_the_banker() -> None:
    """N.J.A.C. 19:47-4.7(g), 4.10(b): wagers against the Banker win 1 to 1, lose, and are
    void on a stand off; never any vigorish (CF-4.7g-PLAYER)."""
    rules = table(CF)
    win = settle(rules, PLAYER_WINS, Wager.PLAYER, 10_000)
    assert (win.result, win.paid_cents, win.vig_cents) == (Result.WIN, 10_000, 0)
    assert win.rule_code == "CF-4.7g-PLAYER"
    assert settle(rules, BANKER_WINS, Wager.PLAYER, 10_000).result is Result.LOSE
    assert settle(rules, TIE, Wager.PLAYER, 10_000).result is Result.VOID


@pytest.mark.rule("CF-4.6a-BANKER", "CF-4.10c-VIG")
def test_chemin_de_fer_banker_wager() -> None:
    """N.J.A.C. 19:47-4.6(a), 4.10(b)-(c): the Chemin de Fer Banker's wager wins 1 to 1 less
    vigorish, loses to a higher Player count and is void on a stand off, under its own section
    (CF-4.6a-BANKER, CF-4.10c-VIG), never Punto Banco's 3.2(a)1."""
    rules = table(CF)
    win = settle(rules, BANKER_WINS, Wager.BANKER, 10_000)
    assert (win.result, win.paid_cents, win.vig_cents, win.rule_code) == (
        Result.WIN,
        10_000,
        500,
        "CF-4.10c-VIG",
    )
    lost = settle(rules, PLAYER_WINS, Wager.BANKER, 10_000)
    assert (lost.result, lost.net_cents, lost.rule_code) == (Result.LOSE, -10_000, "CF-4.6a-BANKER")
    void = settle(rules, TIE, Wager.BANKER, 10_000)
    assert (void.result, void.net_cents, void.rule_code) == (Result.VOID, 0, "CF-4.6a-BANKER")


@pytest.mark.rule("PB-3.2a1-BANKER", "PB-3.3c-VIG")
@pytest.mark.parametrize("percent", [4, 5])
def test_banker_wager_with_vigorish(percent: int) -> None:
    """N.J.A.C. 19:47-3.2(a)1, 3.3(c): a winning Banker wager is paid 1 to 1 less 4 or 5
    percent vigorish; it loses to a higher Player count and is void on a tie
    (PB-3.2a1-BANKER, PB-3.3c-VIG)."""
    rules = table(PB, vig_percent=percent)
    win = settle(rules, BANKER_WINS, Wager.BANKER, 10_000)
    assert (win.result, win.paid_cents, win.vig_cents) == (Result.WIN, 10_000, percent * 100)
    assert win.net_cents == 10_000 - percent * 100
    assert win.rule_code == "PB-3.3c-VIG"
    lost = settle(rules, PLAYER_WINS, Wager.BANKER, 10_000)
    assert (lost.result, lost.net_cents, lost.rule_code) == (
        Result.LOSE,
        -10_000,
        "PB-3.2a1-BANKER",
    )
    void = settle(rules, TIE, Wager.BANKER, 10_000)
    assert (void.result, void.net_cents, void.vig_cents) == (Result.VOID, 0, 0)


@pytest.mark.rule("PB-3.3b-TIE")
@pytest.mark.parametrize(
    ("odds", "stake", "paid"),
    [(Odds(8, 1), 2500, 20_000), (Odds(9, 1), 2500, 22_500), (Odds(17, 2), 1000, 8500)],
)
def test_tie_bet_pays_the_configured_odds(odds: Odds, stake: int, paid: int) -> None:
    """N.J.A.C. 19:47-3.2(a)3, 3.3(b) (7.3(b)): a tie bet wins on equal counts at the table's
    odds (at least 8 to 1) and loses otherwise (PB-3.3b-TIE)."""
    rules = table(PB, tie_odds=odds)
    for tie in (oc(0, 0, 2, 2), oc(9, 9, 2, 2), oc(6, 6, 3, 2)):
        won = settle(rules, tie, Wager.TIE, stake)
        assert (won.result, won.paid_cents, won.vig_cents) == (Result.WIN, paid, 0)
        assert won.rule_code == "PB-3.3b-TIE"
    assert settle(rules, PLAYER_WINS, Wager.TIE, stake).net_cents == -stake
    assert settle(rules, BANKER_WINS, Wager.TIE, stake).result is Result.LOSE


# --- Total-card wagers 3.3(f) -----------------------------------------------------------------


@pytest.mark.rule("PB-3.3f-TOTAL-CARDS")
@pytest.mark.parametrize("game", [PB, MB], ids=lambda g: g.name)
def test_total_card_wagers(game: Game) -> None:
    """N.J.A.C. 19:47-3.2(a)4, 3.3(f) (7.2(a)4, 7.3(g)): four cards pay 3 to 2, five and six
    cards 2 to 1; the other two total-card wagers lose (PB-3.3f-TOTAL-CARDS)."""
    rules = table(game, total_card_wagers=True)
    odds = {Wager.CARDS_4: Fraction(3, 2), Wager.CARDS_5: Fraction(2), Wager.CARDS_6: Fraction(2)}
    shapes = {4: (2, 2), 5: (3, 2), 6: (3, 3)}
    for total, (pc, bc) in shapes.items():
        outcome = oc(1, 4, pc, bc)
        for wager, n in ((Wager.CARDS_4, 4), (Wager.CARDS_5, 5), (Wager.CARDS_6, 6)):
            s = settle(rules, outcome, wager, 1000)
            assert s.rule_code == "PB-3.3f-TOTAL-CARDS"
            if n == total:
                assert (s.result, s.paid_cents) == (Result.WIN, int(1000 * odds[wager]))
            else:
                assert (s.result, s.net_cents) == (Result.LOSE, -1000)
    # 3 to 2 on an odd number of cents: never more than the odds, never a fraction of a cent.
    odd = settle(rules, oc(1, 4, 2, 2), Wager.CARDS_4, 2501)
    assert odd.paid_cents == 3751 and odd.paid_cents <= Fraction(2501 * 3, 2)


# --- Optional bonus wager 3.2(a)5, 3.3(g) ----------------------------------------------------


@pytest.mark.rule("PB-3.3g-BONUS")
@pytest.mark.parametrize("paytable", list(Paytable), ids=lambda p: p.name)
@pytest.mark.parametrize("margin", range(4, 10))
@pytest.mark.parametrize("side", [Wager.PLAYER_BONUS, Wager.BANKER_BONUS], ids=str)
def test_bonus_paytable_margin_lines(paytable: Paytable, margin: int, side: Wager) -> None:
    """N.J.A.C. 19:47-3.3(g) Paytables A, B, C: a selected hand that is not a natural and wins
    by 4 to 9 points is paid its paytable line; no vigorish (PB-3.3g-BONUS)."""
    rules = table(PB, bonus_paytable=paytable)
    odds = PAYTABLES[paytable.value][margin]
    for cards_each in ((3, 3), (3, 2), (2, 3)):
        if side is Wager.PLAYER_BONUS:
            outcome = oc(margin, 0, *cards_each)
        else:
            outcome = oc(0, margin, *cards_each[::-1])
        if outcome.natural(outcome.winner):
            continue  # a two-card 8 or 9 is a natural, paid on the natural line
        s = settle(rules, outcome, side, 1000)
        assert (s.result, s.paid_cents, s.vig_cents) == (Result.WIN, int(1000 * odds), 0)
        assert s.rule_code == "PB-3.3g-BONUS"


@pytest.mark.rule("PB-3.3g-BONUS")
@pytest.mark.parametrize("paytable", list(Paytable), ids=lambda p: p.name)
def test_bonus_natural_winner_line(paytable: Paytable) -> None:
    """N.J.A.C. 19:47-3.2(a)5i, 3.3(g): a natural beating a non-natural, or a natural 9
    beating a natural 8, is paid the "Natural winner" line (1 to 1) whatever the margin -
    a natural 9 over a two-card 0 is not paid "win by 9" (PB-3.3g-BONUS)."""
    rules = table(PB, bonus_paytable=paytable)
    natural = int(1000 * PAYTABLES[paytable.value]["natural"])
    assert natural == 1000
    cases = [(9, 0), (8, 0), (9, 5), (8, 7), (9, 8)]
    for winner_points, loser_points in cases:
        player_side = settle(rules, oc(winner_points, loser_points, 2, 2), Wager.PLAYER_BONUS, 1000)
        banker_side = settle(rules, oc(loser_points, winner_points, 2, 2), Wager.BANKER_BONUS, 1000)
        for s in (player_side, banker_side):
            assert (s.result, s.paid_cents, s.vig_cents) == (Result.WIN, natural, 0)


@pytest.mark.rule("PB-3.3g-BONUS")
def test_bonus_natural_8_loses_to_natural_9_and_natural_ties_are_void() -> None:
    """N.J.A.C. 19:47-3.2(a)5ii-iii: a natural 8 against a natural 9 loses; a natural against
    a natural of equal count is void (PB-3.3g-BONUS)."""
    rules = table(PB, bonus_paytable=Paytable.A)
    assert settle(rules, oc(8, 9, 2, 2), Wager.PLAYER_BONUS, 1000).result is Result.LOSE
    assert settle(rules, oc(9, 8, 2, 2), Wager.BANKER_BONUS, 1000).result is Result.LOSE
    for n in (8, 9):
        for side in (Wager.PLAYER_BONUS, Wager.BANKER_BONUS):
            s = settle(rules, oc(n, n, 2, 2), side, 1000)
            assert (s.result, s.paid_cents, s.vig_cents, s.net_cents) == (Result.VOID, 0, 0, 0)


@pytest.mark.rule("PB-3.3g-BONUS")
def test_bonus_non_natural_by_three_or_fewer_loses() -> None:
    """N.J.A.C. 19:47-3.2(a)5ii: a selected hand that is not a natural loses when its count is
    less than or equal to the other's or exceeds it by three or fewer; a non-natural tie at 8
    or 9 (three cards) is not void (PB-3.3g-BONUS)."""
    rules = table(PB, bonus_paytable=Paytable.C)
    for sel in range(10):
        for other in range(10):
            if sel - other >= 4:
                continue
            s = settle(rules, oc(sel, other, 3, 3), Wager.PLAYER_BONUS, 1000)
            assert (s.result, s.net_cents) == (Result.LOSE, -1000), (sel, other)
            s = settle(rules, oc(other, sel, 3, 3), Wager.BANKER_BONUS, 1000)
            assert (s.result, s.net_cents) == (Result.LOSE, -1000), (sel, other)
    # the other hand's natural beats a selected non-natural
    assert settle(rules, oc(7, 8, 3, 2), Wager.PLAYER_BONUS, 1000).result is Result.LOSE


# --- Dragon 7 variation 3.3(h)-(i) -----------------------------------------------------------

DRAGON = oc(4, 7, 3, 3)


@pytest.mark.rule("PB-3.3i-DRAGON-7")
@pytest.mark.parametrize(("odds", "paid"), [(Odds(40, 1), 40_000), (Odds(50, 1), 50_000)])
def test_dragon_7_wager(odds: Odds, paid: int) -> None:
    """N.J.A.C. 19:47-3.2(a)6ii, 3.3(i): the dragon 7 wager wins on a dragon 7 hand at odds of
    at least 40 to 1 and loses on any other hand (PB-3.3i-DRAGON-7)."""
    rules = table(PB, dragon_7=True, dragon_7_odds=odds)
    s = settle(rules, DRAGON, Wager.DRAGON_7, 1000)
    assert s == Settlement(Wager.DRAGON_7, 1000, Result.WIN, paid, 0, "PB-3.3i-DRAGON-7")
    assert s.net_cents == paid
    for other in (oc(4, 7, 3, 2), oc(7, 7, 3, 3), oc(8, 7, 3, 3), oc(0, 6, 3, 3)):
        assert settle(rules, other, Wager.DRAGON_7, 1000).result is Result.LOSE


@pytest.mark.rule("PB-3.3h-DRAGON-PUSH", "PB-3.10b5-NO-VIG-MARKED")
def test_banker_wager_in_the_dragon_7_variation() -> None:
    """N.J.A.C. 19:47-3.2(a)6i, 3.3(h), 3.10(b)5: no vigorish; a winning Banker wager is paid
    1 to 1 except on a dragon 7 hand, which is a push: the whole Banker stake is returned
    (PB-3.3h-DRAGON-PUSH)."""
    rules = table(PB, dragon_7=True)
    push = settle(rules, DRAGON, Wager.BANKER, 1000)
    assert push == Settlement(Wager.BANKER, 1000, Result.PUSH, 0, 0, "PB-3.3h-DRAGON-PUSH")
    assert push.net_cents == 0
    for win in (oc(4, 7, 3, 2), oc(0, 6, 3, 3), oc(0, 8, 3, 3), BANKER_WINS):
        s = settle(rules, win, Wager.BANKER, 1000)
        assert (s.result, s.paid_cents, s.vig_cents) == (Result.WIN, 1000, 0)
    assert settle(rules, oc(7, 7, 3, 3), Wager.BANKER, 1000).result is Result.VOID
    assert settle(rules, oc(8, 7, 3, 3), Wager.BANKER, 1000).result is Result.LOSE
    assert settle(rules, DRAGON, Wager.PLAYER, 1000).result is Result.LOSE


# --- No-vigorish options 3.3(e), 7.3(f) -------------------------------------------------------


@pytest.mark.rule("PB-3.3e1-BANKER-SIX", "MB-7.3f-NO-VIG", "PB-3.10b5-NO-VIG-MARKED")
@pytest.mark.parametrize("game", [PB, MB], ids=lambda g: g.name)
def test_no_vig_banker_six_pays_1_to_2(game: Game) -> None:
    """N.J.A.C. 19:47-3.3(e)1 (7.3(f)1): no vigorish; a winning Banker's Hand with a Point
    Count of six pays 1 to 2, any other winning Banker wager 1 to 1 (PB-3.3e1-BANKER-SIX); a
    Minibaccarat settlement cites 7.3(f) (MB-7.3f-NO-VIG)."""
    rules = table(game, no_vig_banker_six=True)
    for six in (oc(5, 6, 2, 2), oc(0, 6, 3, 3), oc(2, 6, 3, 2)):
        s = settle(rules, six, Wager.BANKER, 1000)
        assert (s.result, s.paid_cents, s.vig_cents) == (Result.WIN, 500, 0)
        assert s.rule_code == ("PB-3.3e1-BANKER-SIX" if game is PB else "MB-7.3f-NO-VIG")
        odd = settle(rules, six, Wager.BANKER, 1001)
        assert odd.paid_cents == 500  # half a cent is not paid
    for other in (oc(5, 7, 2, 2), oc(0, 9, 2, 2), oc(0, 1, 3, 3)):
        s = settle(rules, other, Wager.BANKER, 1000)
        assert (s.result, s.paid_cents, s.vig_cents) == (Result.WIN, 1000, 0)
    assert settle(rules, oc(6, 6), Wager.BANKER, 1000).result is Result.VOID
    assert settle(rules, oc(7, 6), Wager.BANKER, 1000).result is Result.LOSE


@pytest.mark.rule("PB-3.3e2-TOTAL-CARD-COVER", "MB-7.3f-NO-VIG", "PB-3.10b5-NO-VIG-MARKED")
@pytest.mark.parametrize("game", [PB, MB], ids=lambda g: g.name)
@pytest.mark.parametrize("rounding", [False, True])
def test_no_vig_when_total_card_wagers_cover_the_banker_wager(game: Game, rounding: bool) -> None:
    """N.J.A.C. 19:47-3.3(e)2 (7.3(f)2): no vigorish when the seat's total-card wagers total at
    least its Banker wager; otherwise the normal vigorish of 3.3(c) (PB-3.3e2-...); a
    Minibaccarat settlement cites 7.3(f) (MB-7.3f-NO-VIG)."""
    rules = table(game, no_vig_total_card_cover=True, total_card_wagers=True, vig_rounding=rounding)
    covered_seats = [
        {Wager.BANKER: 1000, Wager.CARDS_4: 1000},
        {Wager.BANKER: 1000, Wager.CARDS_6: 5000},
        {Wager.BANKER: 1000, Wager.CARDS_4: 300, Wager.CARDS_5: 300, Wager.CARDS_6: 400},
    ]
    for seat in covered_seats:
        s = settle(rules, BANKER_WINS, Wager.BANKER, 1000, seat)
        assert (s.result, s.paid_cents, s.vig_cents) == (Result.WIN, 1000, 0)
        assert s.rule_code == ("PB-3.3e2-TOTAL-CARD-COVER" if game is PB else "MB-7.3f-NO-VIG")
    # 5 % of $10.10 is 50.5c: 50c unrounded, 75c rounded to 25c (3.3(c)1), 55c to 5c (7.3(c)1)
    normal = (75 if game is PB else 55) if rounding else 50
    uncovered_seats = [
        {Wager.BANKER: 1010},
        {Wager.BANKER: 1010, Wager.CARDS_4: 1009},
        {Wager.BANKER: 1010, Wager.CARDS_5: 500, Wager.PLAYER: 5000, Wager.TIE: 5000},
    ]
    for seat in uncovered_seats:
        s = settle(rules, BANKER_WINS, Wager.BANKER, 1010, seat)
        assert (s.result, s.paid_cents, s.vig_cents) == (Result.WIN, 1010, normal)
    # without the seat's other wagers nothing covers the Banker wager
    assert settle(rules, BANKER_WINS, Wager.BANKER, 1010).vig_cents == normal


# --- Minibaccarat 25 % tie vigorish 7.3(d) --------------------------------------------------


@pytest.mark.rule("MB-7.3d-TIE-VIG")
def test_minibaccarat_tie_vigorish_replaces_the_banker_vigorish() -> None:
    """N.J.A.C. 19:47-7.2(a)1iii, 7.3(d): on a tie each Banker wager is charged 25 percent of
    the wager, which itself neither wins nor loses: its whole stake is returned (7.2(a)1iii);
    "the vigorish otherwise required by (c) above shall not be collected" on a win
    (MB-7.3d-TIE-VIG)."""
    rules = table(MB, tie_vig_quarter=True, vig_deferral=False)
    tie = settle(rules, TIE, Wager.BANKER, 1000)
    assert tie == Settlement(Wager.BANKER, 1000, Result.VOID, 0, 250, "MB-7.3d-TIE-VIG")
    assert tie.net_cents == -250
    assert settle(rules, TIE, Wager.BANKER, 1001).vig_cents == 250
    win = settle(rules, BANKER_WINS, Wager.BANKER, 1000)
    assert (win.result, win.paid_cents, win.vig_cents) == (Result.WIN, 1000, 0)
    assert settle(rules, PLAYER_WINS, Wager.BANKER, 1000).net_cents == -1000
    # The Player wager and the tie bet are unaffected.
    assert settle(rules, TIE, Wager.PLAYER, 1000).net_cents == 0
    assert settle(rules, TIE, Wager.TIE, 1000).paid_cents == 8000


@pytest.mark.rule("MB-7.3c-VIG", "MB-7.3c1-VIG-ROUNDING")
@pytest.mark.parametrize(("percent", "stake", "vig"), [(5, 1000, 50), (5, 1010, 55), (4, 1010, 45)])
def test_minibaccarat_vigorish_rounds_to_5_cents(percent: int, stake: int, vig: int) -> None:
    """N.J.A.C. 19:47-7.3(c), (c)1: 4 or 5 percent, rounded up to five cents or the next
    highest multiple of five cents (MB-7.3c-VIG, MB-7.3c1-VIG-ROUNDING)."""
    rules = table(MB, vig_percent=percent, vig_rounding=True)
    s = settle(rules, BANKER_WINS, Wager.BANKER, stake)
    assert (s.result, s.paid_cents, s.vig_cents, s.rule_code) == (
        Result.WIN,
        stake,
        vig,
        "MB-7.3c-VIG",
    )


@pytest.mark.rule("CF-4.10c-VIG")
@pytest.mark.parametrize(
    ("percent", "rounding", "stake", "vig"),
    [(5, False, 10_000, 500), (4, False, 10_000, 400), (5, True, 1010, 75), (4, True, 1010, 60)],
)
def test_chemin_de_fer_banker_vigorish(percent: int, rounding: bool, stake: int, vig: int) -> None:
    """N.J.A.C. 19:47-4.10(b)-(c): the Banker's win is paid 1 to 1 and 4 or 5 percent of the
    amount won is extracted, optionally rounded to 25c / 20c (CF-4.10c-VIG)."""
    rules = table(CF, vig_percent=percent, vig_rounding=rounding)
    s = settle(rules, BANKER_WINS, Wager.BANKER, stake)
    assert (s.result, s.paid_cents, s.vig_cents, s.rule_code) == (
        Result.WIN,
        stake,
        vig,
        "CF-4.10c-VIG",
    )
    assert settle(rules, TIE, Wager.BANKER, stake).result is Result.VOID
    assert settle(rules, PLAYER_WINS, Wager.BANKER, stake).result is Result.LOSE


# --- Which wagers exist 3.2(b) --------------------------------------------------------------


@pytest.mark.rule("PB-3.2b-WAGER-OFFERED")
def test_only_offered_wagers_are_settled() -> None:
    """N.J.A.C. 19:47-3.2(b), 4.7, 7.2(b): no wager other than those the table offers - the
    optional wagers only when configured, Chemin de Fer only for and against the Banker
    (PB-3.2b-WAGER-OFFERED)."""
    base = {Wager.BANKER, Wager.PLAYER, Wager.TIE}
    assert offered_wagers(table(PB)) == base
    assert offered_wagers(table(MB)) == base
    assert offered_wagers(table(CF)) == {Wager.BANKER, Wager.PLAYER}
    cards = {Wager.CARDS_4, Wager.CARDS_5, Wager.CARDS_6}
    assert offered_wagers(table(PB, total_card_wagers=True)) == base | cards
    bonus = {Wager.BANKER_BONUS, Wager.PLAYER_BONUS}
    assert offered_wagers(table(PB, bonus_paytable=Paytable.B)) == base | bonus
    assert offered_wagers(table(PB, dragon_7=True)) == base | {Wager.DRAGON_7}
    for rules, wager, section in [
        (table(PB), Wager.CARDS_4, r"3\.2\(b\)"),
        (table(PB), Wager.PLAYER_BONUS, r"3\.2\(b\)"),
        (table(PB), Wager.DRAGON_7, r"3\.2\(b\)"),
        (table(MB), Wager.DRAGON_7, r"7\.2\(b\)"),
        (table(CF), Wager.TIE, r"4\.6\(a\), 4\.7\(a\)"),
        (table(CF), Wager.CARDS_5, r"4\.6\(a\), 4\.7\(a\)"),
    ]:
        with pytest.raises(WagerNotOfferedError, match=rf"N\.J\.A\.C\. 19:47-{section}"):
            settle(rules, TIE, wager, 1000)
    with pytest.raises(WagerNotOfferedError) as refused:
        settle(table(PB), TIE, Wager.DRAGON_7, 1000)
    assert str(refused.value) == (
        "DRAGON_7 is not offered under rules 't' "
        "(N.J.A.C. 19:47-3.2(b): no other wagers shall be accepted)"
    )


@pytest.mark.rule("PB-3.2b-WAGER-OFFERED")
@pytest.mark.parametrize("stake", [0, -1, -2500])
def test_stake_must_be_positive(stake: int) -> None:
    """N.J.A.C. 19:47-3.2(c): a wager is chips placed on the layout - a positive number of
    cents (PB-3.2b-WAGER-OFFERED)."""
    with pytest.raises(ValueError, match="positive"):
        settle(table(PB), TIE, Wager.PLAYER, stake)


@pytest.mark.rule("NJ-8.2-TABLE-LIMITS")
def test_table_limits_include_the_posted_minimum_and_maximum() -> None:
    """N.J.A.C. 19:47-8.2 "Minimum and maximum wagers" (NJ-8.2-TABLE-LIMITS): a wager of
    exactly the table's minimum or exactly its maximum is within the limits; one cent under
    the minimum or over the maximum is not."""
    rules = table(PB, min_wager_cents=10_000, max_wager_cents=500_000)
    assert within_table_limits(rules, 10_000)
    assert within_table_limits(rules, 500_000)
    assert not within_table_limits(rules, 9_999)
    assert not within_table_limits(rules, 500_001)


# --- The whole seat ---------------------------------------------------------------------------


@pytest.mark.rule("PB-3.3e2-TOTAL-CARD-COVER", "PB-3.3f-TOTAL-CARDS")
def test_settle_seat_settles_every_wager_in_order() -> None:
    """N.J.A.C. 19:47-3.3(e)2, 3.3(f): every wager of the seat is settled once, in Wager order,
    with the seat's total-card wagers considered for 3.3(e)2 (PB-3.3e2-TOTAL-CARD-COVER)."""
    rules = table(PB, total_card_wagers=True, no_vig_total_card_cover=True)
    stakes = {Wager.CARDS_6: 600, Wager.TIE: 100, Wager.BANKER: 1000, Wager.CARDS_4: 400}
    got = settle_seat(rules, oc(2, 7, 3, 3), stakes)
    assert [s.wager for s in got] == [Wager.BANKER, Wager.TIE, Wager.CARDS_4, Wager.CARDS_6]
    by_wager = {s.wager: s for s in got}
    assert by_wager[Wager.BANKER].vig_cents == 0  # 400 + 600 >= 1000
    assert by_wager[Wager.CARDS_6].paid_cents == 1200
    assert sum(s.net_cents for s in got) == 1000 - 100 - 400 + 1200


# --- Everything against the independent reading ----------------------------------------------

CONFIGS = [
    table(PB),
    table(PB, vig_percent=4, vig_rounding=True, tie_odds=Odds(9, 1), total_card_wagers=True),
    table(PB, vig_rounding=True, bonus_paytable=Paytable.A, total_card_wagers=True),
    table(PB, bonus_paytable=Paytable.B, no_vig_banker_six=True),
    table(PB, bonus_paytable=Paytable.C, no_vig_total_card_cover=True, total_card_wagers=True),
    table(PB, dragon_7=True, dragon_7_odds=Odds(45, 1), tie_odds=Odds(17, 2)),
    table(MB, vig_rounding=True, total_card_wagers=True),
    table(MB, vig_percent=4, no_vig_banker_six=True),
    table(MB, tie_vig_quarter=True, vig_deferral=False, total_card_wagers=True),
    table(MB, no_vig_total_card_cover=True, total_card_wagers=True, vig_rounding=True),
    table(CF),
    table(CF, vig_percent=4, vig_rounding=True),
]
SEATS = [
    {Wager.CARDS_4: 1, Wager.CARDS_5: 1},
    {Wager.CARDS_4: 700_000, Wager.CARDS_6: 300_000},
    {},
]


@pytest.mark.rule(
    "PB-3.2a1-BANKER",
    "PB-3.3a-PLAYER",
    "PB-3.3b-TIE",
    "PB-3.3c-VIG",
    "PB-3.3e1-BANKER-SIX",
    "PB-3.3e2-TOTAL-CARD-COVER",
    "PB-3.3f-TOTAL-CARDS",
    "PB-3.3g-BONUS",
    "PB-3.3h-DRAGON-PUSH",
    "PB-3.3i-DRAGON-7",
    "MB-7.3d-TIE-VIG",
    "CF-4.10c-VIG",
)
@pytest.mark.parametrize("rules", CONFIGS, ids=range(len(CONFIGS)))
def test_every_realizable_outcome_against_the_reference(rules: TableRules) -> None:
    """N.J.A.C. 19:47-3.2, 3.3, 4.7(g), 4.10, 7.2, 7.3: for every final hand the deal can
    produce, every offered wager and a spread of stakes, the settlement equals the
    independent reading in ``_reference.py`` (PB-3.3c-VIG ... MB-7.3d-TIE-VIG)."""
    checked = 0
    wagers = sorted(offered_wagers(rules), key=lambda w: w.value)
    for hands, wager, stake, seat in itertools.product(
        sorted(realizable_hands(rules.game), key=repr), wagers, (1, 2501, 1_000_000), SEATS
    ):
        stakes = {w: a for w, a in seat.items() if w in offered_wagers(rules)} | {wager: stake}
        got = settle(rules, hands.outcome(), wager, stake, stakes)
        want = expected_settlement(rules, hands, wager, stake, stakes)
        assert (got.result, got.paid_cents, got.vig_cents) == want, (hands, wager, stake, seat)
        checked += 1
    assert checked >= len(realizable_hands(rules.game)) * 2 * 3 * 3


@pytest.mark.rule("PB-3.10b5-NO-VIG-MARKED")
@pytest.mark.parametrize(
    "rules",
    [
        table(PB, dragon_7=True),
        table(PB, no_vig_banker_six=True),
        table(MB, no_vig_banker_six=True),
        table(MB, tie_vig_quarter=True, vig_deferral=False),
    ],
    ids=["dragon", "pb-e1", "mb-e1", "mb-tie-quarter"],
)
def test_no_vigorish_variations_never_charge_vig_on_a_win(rules: TableRules) -> None:
    """N.J.A.C. 19:47-3.10(b)5, 3.3(e)1, 3.3(h), 7.3(d): in a no-vigorish variation no
    vigorish is collected or marked on any winning Banker wager (PB-3.10b5-NO-VIG-MARKED)."""
    assert not rules.charges_banker_vig
    wins = [h for h in realizable_hands(rules.game) if h.banker_points > h.player_points]
    assert wins
    for hands in wins:
        assert settle(rules, hands.outcome(), Wager.BANKER, 100_000).vig_cents == 0
    assert Hands(0, 7, 3, 3) in wins
