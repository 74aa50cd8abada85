"""Informed betting: stakes that rise on the rounds a patron goes on to win, beyond chance.

A patron who knows the next outcome (a false shuffle's slug, a marked or glimpsed card) bets
more on the rounds that wager will win. Nobody else can: the wager is made before "No More
Bets" and the cards (N.J.A.C. 19:47-3.2(d), 3.7(b)), so under fair play the size of a stake
says nothing about the outcome that follows it.

The test
--------
For each patron and session there are two tests: the main wagers (Banker and Player together,
so a patron who bets whichever side is about to win is one test, not two halves) and the Tie
wager. Their decided wagers (a Banker or Player wager void on a tie, 3.2(a)1iii, 2iii, or a
dragon 7 push, 3.3(h), decides nothing and is left out; so does a round in which the patron
bet both Banker and Player, one of which is sure to win; and so does a Chemin de Fer Banker's
wager, whose size the rules tie to the bank's previous wagers, 4.6(b), so that it tells past
outcomes, not the next) are scored by the *rank of their
stake* among the distinct stakes of the test (1 for the smallest; ranks, not cents, so one
large bet cannot carry the test on its own), centred on the test's mean rank. The statistic
is the sum of the centred ranks over the wagers that won:

    T = sum over decided wagers i of (rank_i - mean rank) * won_i

Under fair play each decided wager wins independently of its stake with the exact probability
the odds oracle gives for its side under the table's rules and decks (:mod:`pipeline.oracle`,
every deal from a full shoe enumerated without replacement, settled by the rules layer), so
the exact null distribution of ``T`` is a convolution of two-point distributions, computed
exactly (up to floating point) by dynamic programming over its integer support. The p-value
is the upper tail ``P(T >= observed)``: stakes highest on wins. Centring makes ``T`` blind to
luck (a patron who wins at any rate, the same at every stake, has ``E[T] = rate * sum of the
centred ranks = 0``) and makes constant stakes score 0 whatever happens, so a patron who never
varies the stake can never alarm. Rounds of one shoe are not quite independent (cards leave
the shoe, and the oracle's probabilities are those of a full one), but under fair play stakes
are independent of outcomes whatever the shoe holds; only the spread of ``T`` moves, slightly,
and the measured false-alarm rate on emulated days (tests/patterns) stays within the stated
one. A betting progression (doubling after a loss, or after a win) predicts nothing either, but
makes a stake depend on the earlier outcomes of the same test, which the null takes as fixed;
the emulator's patrons do not bet progressions, so the measured rate does not cover them.

Multiple testing
----------------
Every (patron, session, test) with at least two distinct stakes on decided rounds is one test;
a test alarms when its p-value is at most ``false_alarm_rate / m`` (Bonferroni over the ``m``
tests of one call). Bonferroni, not Benjamini-Hochberg, because the promise to the analyst is
about *any* alarm on a clean gaming day (a family-wise rate, which BH does not bound when some
nulls are false and guarantees only under independence or positive dependence), and the tests
of one table share its outcomes, so they are dependent in ways BH's proof does not cover.
Bonferroni holds under any dependence. The pipeline calls :func:`informed_betting` once per
gaming day, so the stated rate is per gaming day.

Input
-----
One :class:`SettledWager` per settled wager. The patterns stage fills them from the ledger's
``settlements`` table: ``table_id``, ``gaming_date``, ``round_id``, ``seat``, ``patron_id``,
``wager``, ``stake_cents``, ``expected_result`` (the result by the cards, not what the dealer
recorded) and ``source_event_ids``; rows without a ``patron_id`` are skipped. A session is a
patron's rounds at one table on one gaming day: the statistic does not depend on the order of
the rounds, and a patron who leaves and comes back the same day only adds rounds on both sides
of the comparison.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from functools import lru_cache

import numpy as np

from pipeline.oracle import outcome_counts, shoe_counts
from pipeline.patterns.chance import INFORMED_FALSE_ALARM_RATE
from pipeline.replay.findings import Finding, Severity, money
from pipeline.rules.config import Cents, TableRules
from pipeline.rules.settlement import Result, Wager, offered_wagers, settle
from pipeline.rules.variants import variant

CODE = "NJ-PATTERN-INFORMED-BETTING"
DEFAULT_FALSE_ALARM_RATE = INFORMED_FALSE_ALARM_RATE
TESTS: Mapping[Wager, str] = {
    Wager.BANKER: "Banker and Player",
    Wager.PLAYER: "Banker and Player",
    Wager.TIE: "Tie",
}
"""The wagers tested, by the test they belong to: the ones every patron chooses between."""
EVIDENCE_ROUNDS = 10
"""Rounds named in an alarm: the winning rounds with the largest stakes."""
SEVERITY = Severity.HIGH
"""A person looks before the day is closed; not CRITICAL, because it is a statistical pattern,
not money proven wrong."""


@dataclass(frozen=True, slots=True)
class SettledWager:
    """One wager with the result the cards gave it (see the module docstring for the ledger
    columns that fill it)."""

    table_id: str
    gaming_date: date
    round_id: str
    patron_id: str
    seat: int
    wager: Wager
    stake_cents: Cents
    result: Result
    event_ids: tuple[str, ...]


TableDay = tuple[str, date]
"""``(table_id, gaming_date)``: the rules a table played are fixed for its gaming day."""


@lru_cache(maxsize=64)
def win_probability(rules: TableRules, wager: Wager) -> Fraction:
    """Exact probability that ``wager`` wins a round it does not void or push, from a full
    shoe of ``rules.decks`` decks: every deal enumerated by the odds oracle and settled by the
    rules layer under ``rules`` (so a dragon 7 push, 3.3(h), or Chemin de Fer's draw table,
    4.9, count as the table plays them)."""
    if wager not in offered_wagers(rules):
        raise ValueError(
            f"{wager.value} is not offered under rules {rules.rules_id!r}; a settled "
            f"{wager.value} wager at such a table is a replay finding, not a pattern input"
        )
    won = decided = 0
    for outcome, count in outcome_counts(shoe_counts(rules.decks), rules.game).items():
        result = settle(rules, outcome, wager, rules.min_wager_cents).result
        if result in (Result.WIN, Result.LOSE):
            decided += count
            won += count if result is Result.WIN else 0
    return Fraction(won, decided)


def stake_ranks(stakes: Sequence[Cents]) -> list[int]:
    """Each stake's rank among the distinct stakes, 1 for the smallest."""
    levels = {stake: rank for rank, stake in enumerate(sorted(set(stakes)), start=1)}
    return [levels[stake] for stake in stakes]


def upper_tail(scores: Sequence[int], wins: Sequence[bool], p_wins: Sequence[float]) -> float:
    """``P(sum of scores over wins >= observed)`` when wager ``i`` wins independently with
    probability ``p_wins[i]``: the exact distribution, by dynamic programming over the integer
    support of the sum."""
    if not len(scores) == len(wins) == len(p_wins):
        raise ValueError(
            f"{len(scores)} scores, {len(wins)} outcomes and {len(p_wins)} probabilities: one "
            "of each per wager"
        )
    step = math.gcd(*scores)
    if step == 0:
        return 1.0  # every score is 0: the sum is 0 whatever happens
    units = [s // step for s in scores]
    low = sum(u for u in units if u < 0)
    width = sum(abs(u) for u in units) + 1
    dist = np.zeros(width)
    dist[-low] = 1.0
    for u, p_win in zip(units, p_wins, strict=True):
        moved = np.zeros(width)
        if u >= 0:
            moved[u:] = dist[: width - u]
        else:
            moved[:u] = dist[-u:]
        dist = (1.0 - p_win) * dist + p_win * moved
    observed = sum(u for u, won in zip(units, wins, strict=True) if won)
    return min(1.0, float(dist[observed - low :].sum()))


@dataclass(frozen=True, slots=True)
class _Test:
    """One patron's decided wagers of one test in one session."""

    rules: TableRules
    name: str
    rounds: tuple[SettledWager, ...]

    @property
    def scores(self) -> list[int]:
        ranks = stake_ranks([r.stake_cents for r in self.rounds])
        # n * (rank - mean rank), an integer with the same sign and proportions
        return [len(ranks) * rank - sum(ranks) for rank in ranks]

    @property
    def testable(self) -> bool:
        return len({r.stake_cents for r in self.rounds}) >= 2

    def p_value(self) -> float:
        wins = [r.result is Result.WIN for r in self.rounds]
        return upper_tail(self.scores, wins, [float(p) for p in self.p_wins])

    @property
    def p_wins(self) -> list[Fraction]:
        return [win_probability(self.rules, r.wager) for r in self.rounds]


_Session = tuple[str, date, str, str]
"""Table, gaming day, patron and test name."""


def _tests(
    records: Iterable[SettledWager], rules_by_table_day: Mapping[TableDay, TableRules]
) -> list[_Test]:
    sessions: dict[_Session, list[SettledWager]] = defaultdict(list)
    for r in records:
        if r.wager in TESTS and r.result in (Result.WIN, Result.LOSE):
            sessions[r.table_id, r.gaming_date, r.patron_id, TESTS[r.wager]].append(r)
    tests = []
    for (table_id, day, _, name), wagers in sorted(sessions.items()):
        per_round = Counter(r.round_id for r in wagers)
        rounds = [r for r in wagers if per_round[r.round_id] == 1]
        try:
            rules = rules_by_table_day[table_id, day]
        except KeyError:
            raise KeyError(
                f"no rules for table {table_id} on gaming day {day}: the informed-betting "
                "test needs the table's rules for its exact odds; pass the rules from the "
                "table_day_summary row (rules_id) looked up in the rule catalog"
            ) from None
        if variant(rules.game).participant_bank:
            rounds = [r for r in rounds if r.wager is not Wager.BANKER]
        test = _Test(rules, name, tuple(sorted(rounds, key=lambda r: (r.round_id, r.wager.value))))
        if test.testable:
            tests.append(test)
    return tests


def session_p_values(
    records: Iterable[SettledWager], rules_by_table_day: Mapping[TableDay, TableRules]
) -> list[tuple[str, str, float]]:
    """Each testable session's patron, test name and p-value: what the false-alarm rate is
    measured on (tests/patterns/calibration.py)."""
    return [
        (t.rounds[0].patron_id, t.name, t.p_value()) for t in _tests(records, rules_by_table_day)
    ]


def informed_betting(
    records: Iterable[SettledWager],
    rules_by_table_day: Mapping[TableDay, TableRules],
    false_alarm_rate: float = DEFAULT_FALSE_ALARM_RATE,
) -> list[Finding]:
    """One finding per patron, session and side whose stakes predict wins beyond chance, at a
    family-wise false-alarm rate of ``false_alarm_rate`` over the call (one gaming day)."""
    if not 0.0 < false_alarm_rate < 1.0:
        raise ValueError(
            f"the informed-betting false-alarm rate must be between 0 and 1, got "
            f"{false_alarm_rate}; the default is {DEFAULT_FALSE_ALARM_RATE}"
        )
    tests = _tests(records, rules_by_table_day)
    threshold = false_alarm_rate / max(1, len(tests))
    findings = []
    for test in tests:
        p_value = test.p_value()
        if p_value <= threshold:
            findings.append(_finding(test, p_value, false_alarm_rate, len(tests)))
    return findings


def _finding(test: _Test, p_value: float, rate: float, tests: int) -> Finding:
    first = test.rounds[0]
    won = [r for r in test.rounds if r.result is Result.WIN]
    staked = sum(r.stake_cents for r in test.rounds)
    on_wins = sum(r.stake_cents for r in won)
    expected = round(sum(p * r.stake_cents for p, r in zip(test.p_wins, test.rounds, strict=True)))
    sides = sorted({r.wager for r in test.rounds}, key=lambda w: w.value)
    odds = ", ".join(
        f"{w.value.title()} {float(win_probability(test.rules, w)):.2%}" for w in sides
    )
    above_mean = [r for r, score in zip(test.rounds, test.scores, strict=True) if score > 0]
    evidence = sorted(
        (r for r in above_mean if r.result is Result.WIN),
        key=lambda r: (-r.stake_cents, r.round_id),
    )[:EVIDENCE_ROUNDS]
    rounds = ", ".join(
        f"{r.round_id} ({r.wager.value.title()} {money(r.stake_cents)})" for r in evidence
    )
    message = (
        f"Patron {first.patron_id}'s {test.name} stakes on gaming day {first.gaming_date} were "
        f"largest on the rounds they went on to win: {len(won)} of {len(test.rounds)} decided "
        f"wagers won, carrying {money(on_wins)} of the {money(staked)} staked where the exact "
        f"{test.rules.decks}-deck odds (decided wagers win: {odds}) lead to expect "
        f"{money(expected)} whatever the stake; stakes following "
        f"outcomes this closely happen by chance with probability {p_value:.1e}. Review the "
        f"play and the shoe of the winning rounds with the largest stakes: {rounds}. Fair "
        f"play raises this alert on at most {rate:.1%} of gaming days (Bonferroni over the "
        f"day's {tests} patron, session and wager tests)."
    )
    return Finding(
        CODE,
        SEVERITY,
        first.table_id,
        message,
        seat=first.seat,
        patron_id=first.patron_id,
        expected_cents=expected,
        actual_cents=on_wins,
        event_ids=tuple(sorted({i for r in evidence for i in r.event_ids})),
    )
