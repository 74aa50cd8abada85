"""Statistical alarms: where the numbers say to look harder. They accuse no one.

Two checks, each against the *exact* distribution of one round from the odds oracle
(:func:`pipeline.oracle.odds`, every deal of a full shoe enumerated under the table's rules):

1. Outcome frequencies. Banker/Player/Tie counts of a shoe or a table-day against the exact
   probabilities: Pearson's chi-square goodness of fit, 2 degrees of freedom; naturals (either
   hand, 3.9(a)) against theirs, 1 degree of freedom. Rounds later in a shoe are dealt from a
   depleted shoe, so the full-shoe probabilities are the (very close) average, not exact for
   each round.

2. Win over handle ("hold"). Each round's house result is a linear function of its stakes
   per wager type: ``sum_w A_w * n_w(outcome)``, with ``n_w`` the house's net per unit staked
   on wager ``w`` settled by the rules layer (vigorish an exact percentage). The oracle gives
   the exact mean and covariance of the ``n_w`` over outcomes, so each round has an exact
   expected result and variance given the stakes actually placed; summed over the rounds of a
   shoe or table (independent rounds), the expected hold and a 95 % interval (normal
   approximation, +-1.96 sd) follow. The observed result is the recorded settlement (losing
   stakes collected, winners paid) plus vigorish collected or marked in the round.

The p-values come from :func:`chi2_sf`, SciPy's chi-square survival function
(``scipy.special.chdtrc``, the Cephes regularized upper incomplete gamma); the tests check it
against the closed forms for 1, 2 and 4 degrees of freedom.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from scipy.special import chdtrc

from pipeline.oracle import odds
from pipeline.rules.config import TableRules
from pipeline.rules.settlement import Wager, offered_wagers, settle

Z95 = 1.959963984540054
WINNERS = ("BANKER", "PLAYER", "TIE")


# ---------------------------------------------------------------------- chi-square
def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square distributed with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    return 1.0 if x <= 0 else float(chdtrc(df, x))


@dataclass(frozen=True, slots=True)
class GoodnessOfFit:
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    statistic: float
    df: int
    p_value: float

    @property
    def smallest_expected(self) -> float:
        return min(self.expected) if self.expected else 0.0


def goodness_of_fit(observed: Sequence[int], probabilities: Sequence[float]) -> GoodnessOfFit:
    """Pearson's chi-square test of ``observed`` counts against ``probabilities``."""
    if len(observed) != len(probabilities) or len(observed) < 2:
        raise ValueError("need two or more categories, as many counts as probabilities")
    n = sum(observed)
    expected = tuple(n * p for p in probabilities)
    if n == 0:
        return GoodnessOfFit(tuple(observed), expected, 0.0, len(observed) - 1, 1.0)
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True) if e > 0)
    df = len(observed) - 1
    return GoodnessOfFit(tuple(observed), expected, statistic, df, chi2_sf(statistic, df))


# ---------------------------------------------------------------------- oracle moments
@dataclass(frozen=True, slots=True)
class RoundModel:
    """Exact per-round probabilities and per-unit-stake house nets of one rule set."""

    rules_id: str
    decks: int
    p_banker: float
    p_player: float
    p_tie: float
    p_natural: float
    mean: Mapping[str, float]  # house net per unit staked, per wager type
    cov: Mapping[tuple[str, str], float]

    @property
    def winner_probabilities(self) -> tuple[float, float, float]:
        return (self.p_banker, self.p_player, self.p_tie)

    def round_moments(self, stakes: Mapping[str, float]) -> tuple[float, float]:
        """Expected house result and its variance for one round with these stakes (cents)
        per wager type; wager types the rules do not offer are left out."""
        known = {w: a for w, a in stakes.items() if w in self.mean and a}
        mean = sum(a * self.mean[w] for w, a in known.items())
        var = sum(a * b * self.cov[(w, v)] for w, a in known.items() for v, b in known.items())
        return mean, max(var, 0.0)


def round_model(rules: TableRules, decks: int | None = None) -> RoundModel:
    """The :class:`RoundModel` of ``rules`` for a shoe of ``decks`` (default the rules')."""
    # the deck count is resolved before the cache, so that a caller that leaves it out and one
    # that names the rules' own count share one model (the warm start computes them by count)
    return cached_round_model(rules, decks or rules.decks)


@lru_cache(maxsize=64)
def cached_round_model(rules: TableRules, n_decks: int) -> RoundModel:
    """:func:`round_model` for an explicit deck count, computed once per process."""
    report = odds(n_decks, rules)
    ideal = replace(rules, vig_rounding=False)
    unit = 10_000  # $100: 4 %, 5 % and every paytable's odds are whole cents
    total = report.total
    wagers = [w for w in Wager if w in offered_wagers(rules)]
    probs = [(o, n / total) for o, n in report.outcomes.items()]
    nets: dict[Wager, list[float]] = {
        w: [-settle(ideal, o, w, unit).net_cents / unit for o, _ in probs] for w in wagers
    }
    mean = {w.value: sum(p * x for (_, p), x in zip(probs, nets[w], strict=True)) for w in wagers}
    cov = {
        (w.value, v.value): sum(
            p * x * y for (_, p), x, y in zip(probs, nets[w], nets[v], strict=True)
        )
        - mean[w.value] * mean[v.value]
        for w in wagers
        for v in wagers
    }
    return RoundModel(
        rules_id=rules.rules_id,
        decks=n_decks,
        p_banker=float(report.probability("banker_win")),
        p_player=float(report.probability("player_win")),
        p_tie=float(report.probability("tie")),
        p_natural=float(report.probability("natural")),
        mean=mean,
        cov=cov,
    )


# ---------------------------------------------------------------------- hold
@dataclass(frozen=True, slots=True)
class HoldCheck:
    rounds: int
    handle_cents: int
    win_cents: int
    expected_win_cents: float
    sd_cents: float

    @property
    def hold_pct(self) -> float | None:
        return 100 * self.win_cents / self.handle_cents if self.handle_cents else None

    @property
    def expected_hold_pct(self) -> float | None:
        return 100 * self.expected_win_cents / self.handle_cents if self.handle_cents else None

    @property
    def interval_pct(self) -> tuple[float, float] | None:
        if not self.handle_cents:
            return None
        low = self.expected_win_cents - Z95 * self.sd_cents
        high = self.expected_win_cents + Z95 * self.sd_cents
        return 100 * low / self.handle_cents, 100 * high / self.handle_cents

    @property
    def z(self) -> float | None:
        if self.sd_cents <= 0:
            return None
        return (self.win_cents - self.expected_win_cents) / self.sd_cents

    @property
    def outside(self) -> bool:
        z = self.z
        return z is not None and abs(z) > Z95


def hold_check(rounds: Sequence[tuple[Mapping[str, float], int]], model: RoundModel) -> HoldCheck:
    """Observed against expected win of ``rounds``, each ``(stakes per wager type, house
    result in cents)``."""
    handle = 0
    win = 0
    mean = 0.0
    var = 0.0
    for stakes, result in rounds:
        m, v = model.round_moments(stakes)
        handle += int(sum(stakes.values()))
        win += int(result)
        mean += m
        var += v
    return HoldCheck(len(rounds), handle, win, mean, math.sqrt(var))
