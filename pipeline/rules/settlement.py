"""Settling every wager of a seat in integer cents.

The rule deciding each wager is cited on the settlement it produces, so a recomputed
settlement can explain itself next to what the dealer paid.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from pipeline.rules.codes import code_for, rule
from pipeline.rules.config import Cents, Odds, Paytable, TableRules
from pipeline.rules.outcome import RoundOutcome, Winner
from pipeline.rules.symbol import Symbol
from pipeline.rules.variants import variant
from pipeline.rules.vigorish import tie_vigorish, vigorish_on_win


class Wager(Symbol):
    BANKER = "BANKER"
    PLAYER = "PLAYER"
    TIE = "TIE"
    CARDS_4 = "CARDS_4"
    CARDS_5 = "CARDS_5"
    CARDS_6 = "CARDS_6"
    BANKER_BONUS = "BANKER_BONUS"
    PLAYER_BONUS = "PLAYER_BONUS"
    DRAGON_7 = "DRAGON_7"
    OTHER = "OTHER"
    """A wager type this version of the event contract does not know: a device running a later
    schema version that adds a side bet is read with this symbol (the Avro enum default of
    WagerType). No table offers it, so the replay reports the wager under 3.2(b), 4.7(a) or
    7.2(b) instead of dropping the event or settling it as some other wager."""


class Result(Symbol):
    WIN = "WIN"
    LOSE = "LOSE"
    VOID = "VOID"
    """The regulation's "void": the stake is returned (a Banker or Player wager on a tie,
    3.2(a)1iii; a bonus wager on a natural tie, 3.2(a)5iii)."""
    PUSH = "PUSH"
    """A winning dragon 7 Banker's Hand in the no-vigorish variation, 3.3(h)."""


TOTAL_CARD_ODDS: Mapping[Wager, tuple[int, Odds]] = {
    Wager.CARDS_4: (4, Odds(3, 2)),
    Wager.CARDS_5: (5, Odds(2, 1)),
    Wager.CARDS_6: (6, Odds(2, 1)),
}
"""N.J.A.C. 19:47-3.3(f) (7.3(g)): four cards pay 3 to 2, five and six cards 2 to 1."""

NATURAL_WINNER = 0
"""Key of the "Natural winner" line in a paytable."""

PAYTABLES: Mapping[Paytable, Mapping[int, Odds]] = {
    Paytable.A: {
        9: Odds(30, 1),
        8: Odds(10, 1),
        7: Odds(6, 1),
        6: Odds(4, 1),
        5: Odds(2, 1),
        4: Odds(1, 1),
        NATURAL_WINNER: Odds(1, 1),
    },
    Paytable.B: {
        9: Odds(20, 1),
        8: Odds(8, 1),
        7: Odds(7, 1),
        6: Odds(4, 1),
        5: Odds(3, 1),
        4: Odds(1, 1),
        NATURAL_WINNER: Odds(1, 1),
    },
    Paytable.C: {
        9: Odds(30, 1),
        8: Odds(10, 1),
        7: Odds(4, 1),
        6: Odds(4, 1),
        5: Odds(2, 1),
        4: Odds(2, 1),
        NATURAL_WINNER: Odds(1, 1),
    },
}
"""N.J.A.C. 19:47-3.3(g) Paytables A, B and C for the optional bonus wager, keyed by the
winning margin of a hand that is not a natural (4 to 9), and ``NATURAL_WINNER``."""

EVEN_MONEY = Odds(1, 1)
BANKER_SIX_ODDS = Odds(1, 2)  # 3.3(e)1


@dataclass(frozen=True, slots=True)
class Settlement:
    """The expected settlement of one wager. ``paid_cents`` excludes the returned stake."""

    wager: Wager
    stake_cents: Cents
    result: Result
    paid_cents: Cents = 0
    vig_cents: Cents = 0
    rule_code: str = ""

    @property
    def moved_cents(self) -> Cents:
        """What settling the wager moves to the patron (:func:`moved_to_patron`)."""
        return moved_to_patron(self.result, self.stake_cents, self.paid_cents)

    @property
    def net_cents(self) -> Cents:
        """The patron's gain (negative: loss) once the wager and its vigorish are settled
        (a losing wager owes no vigorish)."""
        return self.moved_cents - self.vig_cents


def moved_to_patron(result: Result, stake_cents: Cents, paid_cents: Cents) -> Cents:
    """What settling a wager moves to the patron, in cents, vigorish aside: the payout, less
    the stake when the wager loses (collected for the house, 3.3, 4.10(b), 7.3(a)); a void
    or push returns the stake (3.2(a)1iii, 3.2(a)2iii, 3.3(h)), so it moves only what was
    paid besides. A recorded result is compared by this figure, so a losing stake returned
    is money (the stake) and not "$0.00 paid as $0.00"."""
    return paid_cents - (stake_cents if result is Result.LOSE else 0)


_WAGER_ORDER = tuple(Wager)


class WagerNotOfferedError(ValueError):
    """A wager the table's rule configuration does not offer."""


@functools.cache
def offered_wagers(rules: TableRules) -> frozenset[Wager]:
    """The wagers a table may accept, N.J.A.C. 19:47-3.2(a)-(b), 4.6-4.7, 7.2(a)-(b)."""
    if variant(rules.game).participant_bank:
        return frozenset({Wager.BANKER, Wager.PLAYER})
    offered = {Wager.BANKER, Wager.PLAYER, Wager.TIE}
    if rules.total_card_wagers:
        offered |= set(TOTAL_CARD_ODDS)
    if rules.bonus_paytable is not None:
        offered |= {Wager.BANKER_BONUS, Wager.PLAYER_BONUS}
    if rules.dragon_7:
        offered.add(Wager.DRAGON_7)
    return frozenset(offered)


def within_table_limits(rules: TableRules, stake_cents: Cents) -> bool:
    """Whether a wager of ``stake_cents`` is within the table's limits, N.J.A.C. 19:47-8.2
    (``NJ-8.2-TABLE-LIMITS``): at least the minimum and at most the maximum the casino filed for
    the table and posts at it. The given texts hold only the section's title, "Minimum and
    maximum wagers"; the bounds are inclusive, as a posted "$100 minimum" accepts $100."""
    return rules.min_wager_cents <= stake_cents <= rules.max_wager_cents


def bonus_result(outcome: RoundOutcome, side: Winner) -> tuple[Result, int]:
    """Result of an optional bonus wager on ``side`` and its paytable line, 3.2(a)5.

    The line is the winning margin (4-9) for a hand that is not a natural, or
    ``NATURAL_WINNER``.
    """
    other = Winner.BANKER if side is Winner.PLAYER else Winner.PLAYER
    margin = outcome.margin(side)
    if outcome.natural(side):
        if outcome.natural(other) and margin == 0:
            return Result.VOID, NATURAL_WINNER  # (a)5iii: naturals of equal count
        if margin > 0:
            return Result.WIN, NATURAL_WINNER  # (a)5i: natural beats a non-natural, 9 beats 8
        return Result.LOSE, NATURAL_WINNER  # (a)5ii: natural 8 against a natural 9
    if margin >= 4:
        return Result.WIN, margin  # (a)5i: wins by four or more points
    return Result.LOSE, margin  # (a)5ii


def _banker(
    rules: TableRules, outcome: RoundOutcome, stake: Cents, stakes: Mapping[Wager, Cents]
) -> Settlement:
    """A wager on the Banker's Hand (3.2(a)1, 3.3(c), (e), (h); 7.2(a)1, 7.3(c), (d), (f);
    4.6(a), 4.10(b)-(c))."""
    s = Settlement
    banker_code = code_for(rules.game, "banker_wager")
    if outcome.winner is Winner.TIE:
        if rules.tie_vig_quarter:
            return s(Wager.BANKER, stake, Result.VOID, 0, tie_vigorish(stake), "MB-7.3d-TIE-VIG")
        return s(Wager.BANKER, stake, Result.VOID, rule_code=banker_code)
    if outcome.winner is Winner.PLAYER:
        return s(Wager.BANKER, stake, Result.LOSE, rule_code=banker_code)
    if rules.dragon_7:
        if outcome.dragon_7:
            return s(Wager.BANKER, stake, Result.PUSH, rule_code="PB-3.3h-DRAGON-PUSH")
        return s(Wager.BANKER, stake, Result.WIN, stake, 0, "PB-3.3h-DRAGON-PUSH")
    if rules.no_vig_banker_six:
        no_vig_code = code_for(rules.game, "no_vig_banker_six")
        if outcome.banker_wins_with_6:
            paid = BANKER_SIX_ODDS.payout(stake)
            return s(Wager.BANKER, stake, Result.WIN, paid, 0, no_vig_code)
        return s(Wager.BANKER, stake, Result.WIN, stake, 0, no_vig_code)
    if rules.no_vig_total_card_cover:
        covered = sum(stakes.get(w, 0) for w in TOTAL_CARD_ODDS) >= stake
        if covered:
            cover_code = code_for(rules.game, "no_vig_cover")
            return s(Wager.BANKER, stake, Result.WIN, stake, 0, cover_code)
    if rules.tie_vig_quarter:
        return s(Wager.BANKER, stake, Result.WIN, stake, 0, "MB-7.3d-TIE-VIG")
    code = code_for(rules.game, "vig")
    return s(Wager.BANKER, stake, Result.WIN, stake, vigorish_on_win(rules, stake), code)


def settle(
    rules: TableRules,
    outcome: RoundOutcome,
    wager: Wager,
    stake: Cents,
    seat_stakes: Mapping[Wager, Cents] | None = None,
) -> Settlement:
    """The expected settlement of one wager. ``seat_stakes`` is every wager of the same seat
    this round, needed by the total-card cover option 3.3(e)2."""
    if wager not in offered_wagers(rules):
        raise WagerNotOfferedError(
            f"{wager.value} is not offered under rules {rules.rules_id!r} "
            f"({rule(code_for(rules.game, 'wager_offered')).citation}: no other wagers shall be "
            "accepted)"
        )
    if stake <= 0:
        raise ValueError(f"a {wager.value} stake must be a positive number of cents, got {stake}")
    winner = outcome.winner
    s = Settlement
    if wager is Wager.BANKER:
        return _banker(rules, outcome, stake, seat_stakes or {wager: stake})
    if wager is Wager.PLAYER:
        code = variant(rules.game).player_wager_code
        if winner is Winner.TIE:
            return s(wager, stake, Result.VOID, rule_code=code)
        if winner is Winner.PLAYER:
            return s(wager, stake, Result.WIN, EVEN_MONEY.payout(stake), rule_code=code)
        return s(wager, stake, Result.LOSE, rule_code=code)
    if wager is Wager.TIE:
        if winner is Winner.TIE:
            return s(
                wager, stake, Result.WIN, rules.tie_odds.payout(stake), rule_code="PB-3.3b-TIE"
            )
        return s(wager, stake, Result.LOSE, rule_code="PB-3.3b-TIE")
    if wager in TOTAL_CARD_ODDS:
        cards, odds = TOTAL_CARD_ODDS[wager]
        if outcome.total_cards == cards:
            return s(wager, stake, Result.WIN, odds.payout(stake), rule_code="PB-3.3f-TOTAL-CARDS")
        return s(wager, stake, Result.LOSE, rule_code="PB-3.3f-TOTAL-CARDS")
    if wager is Wager.DRAGON_7:
        if outcome.dragon_7:
            paid = rules.dragon_7_odds.payout(stake)
            return s(wager, stake, Result.WIN, paid, rule_code="PB-3.3i-DRAGON-7")
        return s(wager, stake, Result.LOSE, rule_code="PB-3.3i-DRAGON-7")
    side = Winner.BANKER if wager is Wager.BANKER_BONUS else Winner.PLAYER
    result, line = bonus_result(outcome, side)
    assert rules.bonus_paytable is not None  # guaranteed by offered_wagers
    paid = PAYTABLES[rules.bonus_paytable][line].payout(stake) if result is Result.WIN else 0
    return s(wager, stake, result, paid, rule_code="PB-3.3g-BONUS")


def settle_seat(
    rules: TableRules, outcome: RoundOutcome, stakes: Mapping[Wager, Cents]
) -> tuple[Settlement, ...]:
    """Every wager of one seat in one round, in :class:`Wager` order."""
    return tuple(settle(rules, outcome, w, stakes[w], stakes) for w in _WAGER_ORDER if w in stakes)
