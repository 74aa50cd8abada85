"""Vigorish: the commission on a winning Banker wager.

- Punto Banco: 4 or 5 percent of the amount won (N.J.A.C. 19:47-3.3(c)), optionally rounded up
  to 20c or 25c multiples (3.3(c)1).
- Minibaccarat: the same percentages, optionally rounded up to 5c multiples (7.3(c)1); or,
  instead, 25 percent of the Banker wager on a tie (7.3(d)).
- Chemin de Fer: 4 or 5 percent of the Banker's winnings, collected immediately (4.10(c)).

How the minimum reads: "round off ... to 25 cents or the next highest multiple of 25 cents"
means any positive vigorish becomes the smallest multiple of the increment that is at least the
exact amount. So 25c is the minimum whenever anything is owed (5 % of $1.00 = 5c -> 25c), an
exact multiple stays as it is ($5.00 on $100 stays $5.00, it is not bumped to $5.25), and
nothing is owed on nothing. Without the rounding option, a fraction of a cent cannot be
collected and the casino may not collect more than the percentage, so the fraction is dropped.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline.rules.config import Cents, TableRules


def round_up_to(amount_hundredths_of_cent: int, increment_cents: Cents) -> Cents:
    """The smallest multiple of ``increment_cents`` that covers an exact amount given in
    hundredths of a cent (0 stays 0). N.J.A.C. 19:47-3.3(c)1, 4.10(c), 7.3(c)1."""
    step = increment_cents * 100
    return -(-amount_hundredths_of_cent // step) * increment_cents


def vigorish_on_win(rules: TableRules, amount_won_cents: Cents) -> Cents:
    """The vigorish owed on ``amount_won_cents`` won by a Banker wager (or by the Banker in
    Chemin de Fer), N.J.A.C. 19:47-3.3(c), 4.10(c), 7.3(c)."""
    exact = amount_won_cents * rules.vig_percent  # hundredths of a cent
    if rules.vig_rounding:
        return round_up_to(exact, rules.vig_increment_cents)
    return exact // 100


def tie_vigorish(banker_wager_cents: Cents) -> Cents:
    """Minibaccarat's optional vigorish of 25 percent of the Banker wager on a tie,
    N.J.A.C. 19:47-7.3(d); a fraction of a cent is dropped."""
    return banker_wager_cents // 4


def rounding_error(rules: TableRules, amount_won_cents: Cents, charged_cents: Cents) -> bool:
    """Whether a wrong vigorish of ``charged_cents`` on ``amount_won_cents`` got the
    percentage right and the rounding wrong: it is within one rounding increment of the exact
    percentage (3.3(c)1, 4.10(c), 7.3(c)1), whether or not this table rounds."""
    increment = replace(rules, vig_rounding=True).vig_increment_cents
    exact = amount_won_cents * rules.vig_percent  # hundredths of a cent
    return charged_cents > 0 and abs(charged_cents * 100 - exact) < increment * 100
