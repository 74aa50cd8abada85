"""An independent reading of the regulation, used as the expectation in the tests.

Nothing here calls the functions under test: the deal is replayed from the golden Tables 1-3,
card values come from ``golden/card_values.txt``, and wagers are settled straight from the
words of N.J.A.C. 19:47-3.2, 3.3, 4.7, 4.10, 7.2 and 7.3 with exact fractions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import strategies as st

from pipeline.rules.cards import Card, Rank, Suit
from pipeline.rules.config import Odds, Paytable, TableRules, problems
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome
from pipeline.rules.settlement import Result, Wager

from ._golden import NO_THIRD, banker_table, card_values, paytables, player_table

VALUES = {rank: value for rank, (value, _burn) in card_values().items()}
BURN = {rank: burn for rank, (_value, burn) in card_values().items()}
TABLE_1 = player_table("table1.txt")
CF_PLAYER = player_table("chemin_de_fer_player.txt")
TABLE_2 = banker_table("table2.txt")
TABLE_3 = banker_table("table3.txt")
PAYTABLES = paytables()

TOTAL_CARD_ODDS = {4: Fraction(3, 2), 5: Fraction(2, 1), 6: Fraction(2, 1)}  # 3.3(f), 7.3(g)
TOTAL_CARD_WAGERS = {Wager.CARDS_4: 4, Wager.CARDS_5: 5, Wager.CARDS_6: 6}


def value(card: Card) -> int:
    """3.1(b), from the golden transcription."""
    return VALUES[card.rank.value]


def points(hand: Sequence[Card]) -> int:
    """3.1(c): the right digit of the total."""
    return sum(value(c) for c in hand) % 10


@dataclass(frozen=True)
class Hands:
    """Final hands reduced to what wagers depend on."""

    player_points: int
    banker_points: int
    player_cards: int
    banker_cards: int

    def outcome(self) -> RoundOutcome:
        from pipeline.rules.cards import Point

        return RoundOutcome(
            Point(self.player_points),
            Point(self.banker_points),
            self.player_cards,
            self.banker_cards,
        )

    @property
    def natural_player(self) -> bool:
        return self.player_cards == 2 and self.player_points in (8, 9)

    @property
    def natural_banker(self) -> bool:
        return self.banker_cards == 2 and self.banker_points in (8, 9)

    @property
    def dragon_7(self) -> bool:
        """3.3(h): a three card Banker's Hand with a Point Count of seven that wins."""
        return (
            self.banker_cards == 3
            and self.banker_points == 7
            and self.banker_points > self.player_points
        )


# --- the deal, replayed from the golden tables -------------------------------------------


@dataclass(frozen=True)
class ExpectedDeal:
    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    options_taken: tuple[str, ...]


class ShoeTooShort(Exception):
    pass


def expected_deal(
    game: Game, shoe: Sequence[Card], player_draws_on_5: bool, banker_draws_on_option: bool
) -> ExpectedDeal:
    """3.7(c)/4.8(d): cards 1 and 3 to the Player, 2 and 4 to the Banker; 3.9/4.9: naturals,
    then Table 1 (4.9(a) in Chemin de Fer), then Table 2 (Table 3) by the value of the
    player's third card; 3.8(c): the player's third card is dealt before the banker's."""
    if len(shoe) < 4:
        raise ShoeTooShort
    player, banker = [shoe[0], shoe[2]], [shoe[1], shoe[3]]
    taken: list[str] = []
    nxt = 4
    p, b = points(player), points(banker)
    if p >= 8 or b >= 8:
        return ExpectedDeal(tuple(player), tuple(banker), ())
    cf = game is Game.CHEMIN_DE_FER
    cell = (CF_PLAYER if cf else TABLE_1)[p]
    if cell == "Op.":
        taken.append("PLAYER:DRAW" if player_draws_on_5 else "PLAYER:STAY")
        player_draws = player_draws_on_5
    else:
        player_draws = cell == "D"
    column: str | int = NO_THIRD
    if player_draws:
        if nxt >= len(shoe):
            raise ShoeTooShort
        third = shoe[nxt]
        nxt += 1
        player.append(third)
        column = value(third)
    cell = (TABLE_3 if cf else TABLE_2)[b][column]
    if cell == "Op.":
        taken.append("BANKER:DRAW" if banker_draws_on_option else "BANKER:STAY")
        banker_draws = banker_draws_on_option
    else:
        banker_draws = cell == "D"
    if banker_draws:
        if nxt >= len(shoe):
            raise ShoeTooShort
        banker.append(shoe[nxt])
    return ExpectedDeal(tuple(player), tuple(banker), tuple(taken))


@functools.cache
def realizable_hands(game: Game) -> frozenset[Hands]:
    """Every final (points, cards) combination the deal rules can produce."""
    cf = game is Game.CHEMIN_DE_FER
    ptable, btable = (CF_PLAYER, TABLE_3) if cf else (TABLE_1, TABLE_2)

    def choices(cell: str) -> tuple[bool, ...]:
        return {"D": (True,), "S": (False,), "Op.": (True, False)}[cell]

    out: set[Hands] = set()
    for p in range(10):
        for b in range(10):
            if p >= 8 or b >= 8:
                out.add(Hands(p, b, 2, 2))
                continue
            for player_draws in choices(ptable[p]):
                thirds: list[tuple[int, int, str | int]] = (
                    [((p + v) % 10, 3, v) for v in range(10)]
                    if player_draws
                    else [(p, 2, NO_THIRD)]
                )
                for final_p, p_cards, column in thirds:
                    for banker_draws in choices(btable[b][column]):
                        if banker_draws:
                            for w in range(10):
                                out.add(Hands(final_p, (b + w) % 10, p_cards, 3))
                        else:
                            out.add(Hands(final_p, b, p_cards, 2))
    return frozenset(out)


# --- vigorish and settlement, from the words of the regulation -----------------------------


def vig_increment(game: Game, percent: int) -> int:
    """3.3(c)1 and 4.10(c): 25c for 5 %, 20c for 4 %; 7.3(c)1: 5c."""
    if game is Game.MINIBACCARAT:
        return 5
    return {5: 25, 4: 20}[percent]


def expected_vig(game: Game, percent: int, rounding: bool, amount_won: int) -> int:
    """The vigorish on ``amount_won`` cents: the exact percentage, rounded up to the next
    multiple of the increment when the casino rounds, else the whole cents of it."""
    exact = Fraction(amount_won * percent, 100)
    if not rounding:
        return math.floor(exact)
    step = vig_increment(game, percent)
    return math.ceil(exact / step) * step


def _pays(stake: int, odds: Fraction) -> int:
    return math.floor(stake * odds)


def _fraction(odds: Odds) -> Fraction:
    return Fraction(odds.to_win, odds.stake)


def expected_settlement(
    rules: TableRules, h: Hands, wager: Wager, stake: int, seat: dict[Wager, int]
) -> tuple[Result, int, int]:
    """(result, amount paid excluding the stake, vigorish) for one wager."""
    banker_wins = h.banker_points > h.player_points
    player_wins = h.player_points > h.banker_points
    tie = not banker_wins and not player_wins
    if wager is Wager.BANKER:
        if tie:
            if rules.tie_vig_quarter:  # 7.2(a)1iii, 7.3(d): 25 percent of the wager
                return Result.VOID, 0, math.floor(Fraction(stake, 4))
            return Result.VOID, 0, 0  # 3.2(a)1iii, 4.6(a)3
        if player_wins:
            return Result.LOSE, 0, 0
        if rules.dragon_7:  # 3.2(a)6i, 3.3(h)
            if h.dragon_7:
                return Result.PUSH, 0, 0
            return Result.WIN, stake, 0
        if rules.no_vig_banker_six:  # 3.3(e)1, 7.3(f)1
            if h.banker_points == 6:
                return Result.WIN, _pays(stake, Fraction(1, 2)), 0
            return Result.WIN, stake, 0
        if rules.no_vig_total_card_cover:  # 3.3(e)2, 7.3(f)2
            covering = sum(amount for w, amount in seat.items() if w in TOTAL_CARD_WAGERS)
            if covering >= stake:
                return Result.WIN, stake, 0
        if rules.tie_vig_quarter:  # 7.3(d): the (c) vigorish is not collected
            return Result.WIN, stake, 0
        vig = expected_vig(rules.game, rules.vig_percent, rules.vig_rounding, stake)
        return Result.WIN, stake, vig  # 3.3(c), 4.10(c), 7.3(c)
    if wager is Wager.PLAYER:  # 3.2(a)2, 3.3(a); 4.7(g), 4.10(b)
        if tie:
            return Result.VOID, 0, 0
        return (Result.WIN, stake, 0) if player_wins else (Result.LOSE, 0, 0)
    if wager is Wager.TIE:  # 3.2(a)3, 3.3(b)
        if tie:
            return Result.WIN, _pays(stake, _fraction(rules.tie_odds)), 0
        return Result.LOSE, 0, 0
    if wager in TOTAL_CARD_WAGERS:  # 3.2(a)4, 3.3(f)
        n = TOTAL_CARD_WAGERS[wager]
        if h.player_cards + h.banker_cards == n:
            return Result.WIN, _pays(stake, TOTAL_CARD_ODDS[n]), 0
        return Result.LOSE, 0, 0
    if wager is Wager.DRAGON_7:  # 3.2(a)6ii, 3.3(i)
        if h.dragon_7:
            return Result.WIN, _pays(stake, _fraction(rules.dragon_7_odds)), 0
        return Result.LOSE, 0, 0
    # 3.2(a)5 optional bonus wager, 3.3(g) paytables; no vigorish on it.
    assert rules.bonus_paytable is not None
    table = PAYTABLES[rules.bonus_paytable.value]
    if wager is Wager.PLAYER_BONUS:
        sel_pts, oth_pts = h.player_points, h.banker_points
        sel_nat, oth_nat = h.natural_player, h.natural_banker
    else:
        sel_pts, oth_pts = h.banker_points, h.player_points
        sel_nat, oth_nat = h.natural_banker, h.natural_player
    if sel_nat and oth_nat and sel_pts == oth_pts:
        return Result.VOID, 0, 0  # (a)5iii
    if (sel_nat and not oth_nat) or (sel_nat and sel_pts == 9 and oth_nat and oth_pts == 8):
        return Result.WIN, _pays(stake, table["natural"]), 0  # (a)5i
    if not sel_nat and sel_pts - oth_pts >= 4:
        return Result.WIN, _pays(stake, table[sel_pts - oth_pts]), 0  # (a)5i
    return Result.LOSE, 0, 0  # (a)5ii


# --- rule configurations --------------------------------------------------------------------


@st.composite
def legal_rules(draw: st.DrawFn) -> TableRules:
    """Any configuration the regulation allows (by construction, then checked)."""
    game = draw(st.sampled_from(list(Game)))
    kwargs: dict[str, object] = {
        "rules_id": "hypothesis",
        "game": game,
        "vig_percent": draw(st.sampled_from([4, 5])),
        "vig_rounding": draw(st.booleans()),
    }
    if game is Game.CHEMIN_DE_FER:
        kwargs["vig_deferral"] = False  # 4.10(c): collected immediately
    else:
        variants = ["none", "e1", "e2"]
        variants += ["dragon"] if game is Game.PUNTO_BANCO else ["quarter"]
        variant = draw(st.sampled_from(variants))
        kwargs["total_card_wagers"] = draw(st.booleans())
        if game is Game.PUNTO_BANCO:
            kwargs["bonus_paytable"] = draw(st.sampled_from([None, *Paytable]))
        kwargs["tie_odds"] = draw(
            st.sampled_from([Odds(8, 1), Odds(9, 1), Odds(17, 2), Odds(25, 3), Odds(30, 1)])
        )
        if variant == "e1":
            kwargs["no_vig_banker_six"] = True
        elif variant == "e2":
            kwargs["no_vig_total_card_cover"] = True
            kwargs["total_card_wagers"] = True
        elif variant == "dragon":
            kwargs.update(total_card_wagers=False, bonus_paytable=None, dragon_7=True)
            kwargs["dragon_7_odds"] = Odds(draw(st.integers(40, 100)), 1)
        elif variant == "quarter":
            kwargs.update(tie_vig_quarter=True, vig_deferral=False)
    rules = TableRules(**kwargs)  # type: ignore[arg-type]
    assert problems(rules) == [], f"the test strategy built an illegal config: {problems(rules)}"
    return rules


def all_cards() -> Iterator[Card]:
    for rank in Rank:
        for suit in Suit:
            yield Card(rank, suit)


cards_strategy = st.builds(Card, st.sampled_from(list(Rank)), st.sampled_from(list(Suit)))
