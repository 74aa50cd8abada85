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
outcomes, not the next) are scored in the order dealt (when each round started, then its round
id) by the test martingale of the accumulated evidence
(:func:`pipeline.patterns.evidence.mixture_wealth`): a product of factors
``1 + lambda * w_i * (W_i - p_i)``, ``W_i`` whether the wager won, ``p_i`` its exact
probability of winning a decided round from the odds oracle (:func:`win_probability`, every
deal from a full shoe enumerated and settled by the rules layer), ``w_i`` the share of the
session's *earlier* stakes the stake equals or tops, raised to a power (size-blind up to the
largest stakes only), averaged over a fixed grid of ``lambda`` and powers. The p-value is
``1 / (the highest wealth reached)``: by Ville's inequality a fair patron's wealth ever
reaches ``1/a`` with probability at most ``a``.

Why a martingale and not the ranks of the session's stakes
----------------------------------------------------------
Under fair play a wager's outcome is independent of everything the patron chose before the
cards, but not of the stakes the patron chooses *after* it: a betting progression (doubling
after a loss, or after a win) makes later stakes follow earlier outcomes. A statistic that
ranks a session's stakes after the fact and takes them as fixed (this test's earlier form,
the centred rank of each stake summed over the wins, with its exact convolution null) is
then wrong about its own null: clean floors of martingale bettors raised it on 2.5 % of
sessions at a nominal 1 % (tests/patterns/calibration.py). Each factor here uses only the
stakes made before the round and the round's own stake, so it averages exactly 1 given the
past whatever the progression, and the p-value holds for every way of betting. A patron
who never varies the stake is still tested, for winning more often than the odds allow; one
who wins at the odds' rate gains nothing at any stake. Rounds of one shoe are not quite
independent (cards leave the shoe, and the oracle's probabilities are those of a full one);
the measured false-alarm rates (tests/patterns) stay within the stated one.

Multiple testing
----------------
Every (patron, session, test) with at least two decided wagers is one test;
a test alarms when its p-value is at most ``false_alarm_rate / m`` (Bonferroni over the ``m``
tests of one call). Bonferroni, not Benjamini-Hochberg, because the promise to the analyst is
about *any* alarm on a clean gaming day (a family-wise rate, which BH does not bound when some
nulls are false and guarantees only under independence or positive dependence), and the tests
of one table share its outcomes, so they are dependent in ways BH's proof does not cover.
Bonferroni holds under any dependence. The pipeline calls :func:`informed_betting` once per
gaming day (:func:`informed_betting_of_tables`, a table at a time), so the stated rate is per
gaming day.

Input
-----
One :class:`SettledWager` per settled wager. The patterns stage fills them from the ledger's
``settlements`` table: ``table_id``, ``gaming_date``, ``round_id``, ``seat``, ``patron_id``,
``wager``, ``stake_cents``, ``expected_result`` (the result by the cards, not what the dealer
recorded), ``source_event_ids`` and when the round started (``rounds.started_at``, the
order dealt); rows without a ``patron_id`` are skipped. A session is a patron's rounds at one
table on one gaming day: a patron who leaves and comes back the same day continues it.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from functools import lru_cache

import numpy as np

from pipeline.oracle import outcome_counts, shoe_counts
from pipeline.patterns.chance import INFORMED_FALSE_ALARM_RATE
from pipeline.patterns.evidence import INFORMED_LAMBDAS, mixture_wealth, stake_weights
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
    started_at: int = 0
    """When the round started (microseconds since the Unix epoch): the order dealt, which a
    round id only suggests."""


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


@dataclass(frozen=True, slots=True)
class _Test:
    """One patron's decided wagers of one test in one session."""

    rules: TableRules
    name: str
    rounds: tuple[SettledWager, ...]

    @property
    def testable(self) -> bool:
        return len(self.rounds) >= 2

    def p_value(self) -> float:
        """``1 /`` the highest wealth the session's test martingale reaches (at most 1)."""
        p_win = np.array([float(p) for p in self.p_wins])
        won = np.array([1.0 if r.result is Result.WIN else 0.0 for r in self.rounds])
        weights = stake_weights([r.stake_cents for r in self.rounds])
        wealth = mixture_wealth(won - p_win, weights, INFORMED_LAMBDAS, 1.0 / p_win)
        return min(1.0, math.exp(-wealth.log_peak))

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
        dealt = sorted(rounds, key=lambda r: (r.started_at, r.round_id, r.wager.value))
        test = _Test(rules, name, tuple(dealt))
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
    return informed_betting_of_tables([(records, rules_by_table_day)], false_alarm_rate)


def informed_betting_of_tables(
    tables: Iterable[tuple[Iterable[SettledWager], Mapping[TableDay, TableRules]]],
    false_alarm_rate: float = DEFAULT_FALSE_ALARM_RATE,
) -> list[Finding]:
    """:func:`informed_betting` over a day given a table at a time (each table's wagers with
    its rules, no table twice), with the same findings in the same order when the tables come
    in order: it holds one table's wagers and the sessions that could alarm (a p-value at
    most ``false_alarm_rate``, the threshold of a day of one test), not the day's wagers."""
    if not 0.0 < false_alarm_rate < 1.0:
        raise ValueError(
            f"the informed-betting false-alarm rate must be between 0 and 1, got "
            f"{false_alarm_rate}; the default is {DEFAULT_FALSE_ALARM_RATE}"
        )
    tested = 0
    candidates: list[tuple[_Test, float]] = []
    for records, rules_by_table_day in tables:
        for test in _tests(records, rules_by_table_day):
            tested += 1
            p_value = test.p_value()
            if p_value <= false_alarm_rate:
                candidates.append((test, p_value))
    threshold = false_alarm_rate / max(1, tested)
    return [
        _finding(test, p_value, false_alarm_rate, tested)
        for test, p_value in candidates
        if p_value <= threshold
    ]


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
    evidence = sorted(
        won,
        key=lambda r: (-r.stake_cents, r.round_id),
    )[:EVIDENCE_ROUNDS]
    rounds = ", ".join(
        f"{r.round_id} ({r.wager.value.title()} {money(r.stake_cents)})" for r in evidence
    )
    message = (
        f"Patron {first.patron_id}'s {test.name} wagers on gaming day {first.gaming_date} won "
        f"beyond the odds, most on their larger stakes: {len(won)} of {len(test.rounds)} decided "
        f"wagers won, carrying {money(on_wins)} of the {money(staked)} staked where the exact "
        f"{test.rules.decks}-deck odds (decided wagers win: {odds}) lead to expect "
        f"{money(expected)} whatever the stake; wins beyond the odds on stakes this large "
        f"happen by chance with probability at most {p_value:.1e}, however the patron's "
        f"stakes follow their earlier outcomes. Review the "
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
