"""Dealer-patron pairs: payout and vigorish errors that concentrate on one patron of a dealer.

One wrong payout is a replay finding under the payout or vigorish rule it breaks (N.J.A.C.
19:47-3.3, 3.10(b); 4.10; 7.3). Collusion shows only across rounds and days: small errors,
always at the same patron, or always in that patron's favour, while the dealer's other patrons
see the dealer's ordinary error rate.

The tests
---------
The unit is a *seat-round*: one patron's wagers at one seat in one round, dealt by one dealer
(a seat's vigorish is settled per round, so a seat-round is where one error can happen). For
each dealer ``d`` over the window: ``N`` seat-rounds dealt, ``E`` of them with an error, ``F``
with an error in the patron's favour (overpaid, or vigorish under-collected). For each patron
``p`` of that dealer: ``n`` seat-rounds, ``e`` errors, ``f`` errors in the patron's favour.

If the dealer's errors fall on seat-rounds without regard to who sits there, then given the
dealer's totals, the number landing on ``p`` is hypergeometric: ``e ~ Hypergeometric(N, E,
n)`` and ``f ~ Hypergeometric(N, F, n)``. The exact upper tails ``P(X >= e)`` ("errors
concentrate on this pair") and ``P(Y >= f)`` ("errors in this patron's favour concentrate on
this pair") are the two tests of a pair. Conditioning on the dealer's own totals is what makes
a careless dealer no suspect: a dealer who errs often errs often for everyone.

Multiple testing: Bonferroni over every test of the call (two per dealer-patron pair dealt,
whether or not it had an error, so the count does not depend on the errors), for the same
reason as :mod:`pipeline.patterns.informed`: the promise is about any alarm at all, and the
pairs of one dealer share the dealer's totals.

Input
-----
One :class:`DealtSeatRound` per seat with a patron in a round. The patterns stage fills them
from the ledger over the window of gaming days
(:func:`pipeline.ledger.pattern_inputs.seat_rounds`):

- the seat-rounds: ``settlements`` (``table_id``, ``gaming_date``, ``round_id``, ``seat``,
  ``patron_id``), one record per distinct (``table_id``, ``round_id``, ``seat``) with a
  ``patron_id``;
- the dealer: read from the deliveries, which every stored day has (``rounds.dealer_id``
  holds the same only for rows derived since migration 25). The round's ``RoundStarted``
  event carries ``dealer_id`` when the dealer changed, null when
  unchanged: the stored ``RoundStarted`` deliveries, their payload's ``dealer_id``, matched
  to the round on ``table_id`` and the payload's ``round_id``. Carry the last non-null value
  forward in ``rounds.started_at`` order, starting from the dealer who opened the table,
  ``table_day_summary.dealer_id`` (the ``TableOpened`` event's);
- the money: what settling a wager moves to the patron is its payout less its stake when it
  loses (:func:`pipeline.rules.settlement.moved_to_patron`), so a losing stake returned is
  money moved. ``expected_cents`` is what the rules give the patron at that seat in that
  round, the sum over its ``settlements`` rows of that figure for ``expected_result`` and
  ``expected_paid_cents``, less ``expected_vig_cents``; ``actual_cents`` is what the patron
  got, the same figure for ``recorded_result`` and ``recorded_paid_cents`` (a wager never
  settled counts the expected one: that is a finding of its own, not money moved) less the
  vigorish charged in the round, the ``vig_ledger`` rows of that (``table_id``,
  ``round_id``, ``seat``) with ``kind`` ``COLLECTED`` or ``DEFERRED``; ``event_ids`` are the
  ``source_event_ids`` of the settlements whose recorded figure differs and the
  ``source_event_id`` of those ``vig_ledger`` rows when the vigorish differs.

Money is compared, not finding codes: a winning Banker wager's payout and its vigorish are
judged under the same code, so a code cannot say which way an error went.

The tests need only the counts (``N``, ``E``, ``F`` of the dealer, ``n``, ``e``, ``f`` of the
pair: :class:`PairCounts`), and the counts of gaming days add up, since a seat-round belongs
to one day and its dealer is carried within its table-day. So each day carries its pairs
counted (:func:`pipeline.patterns.stage.carry_window`), a window's counts are its days'
summed, and the erred seat-rounds, which only an alarm cites, are read when a pair alarms.

Reporting across gaming days
----------------------------
The stage searches one gaming day at a time, each over its own window, and a pair's evidence
grows with the days: a weak pair (a few errors a day) can cross the bar on a day when it had
no error of its own. :func:`reported_pair_findings` reports a pair alarming over the day's
window on the day it first crosses the bar (it did not alarm over the window ending the day
before) and again on each day that adds one of its errors; an alarm carried on without a new
error is not repeated. The window ending the day before is read only when a pair alarms
without an error of the day, from the day's window less the day plus the day before it
(:func:`window_moved_back`): two days' counts, not another window's.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from pipeline.patterns.chance import PAIRS_FALSE_ALARM_RATE
from pipeline.replay.findings import Finding, Severity, money
from pipeline.rules.config import Cents

CODE = "NJ-PATTERN-DEALER-PATRON"
DEFAULT_FALSE_ALARM_RATE = PAIRS_FALSE_ALARM_RATE
EVIDENCE_ROUNDS = 12
"""Errors listed in an alarm's message (every error's events are in its evidence)."""
SEVERITY = Severity.HIGH
"""A person looks before the day is closed; not CRITICAL, because each error is already a
CRITICAL finding of its own and this is the pattern among them."""


@dataclass(frozen=True, slots=True)
class DealtSeatRound:
    """One patron's seat in one round and the dealer who dealt it (see the module docstring
    for the ledger columns that fill it)."""

    table_id: str
    gaming_date: date
    round_id: str
    seat: int
    dealer_id: str
    patron_id: str
    expected_cents: Cents
    """What the rules give the patron: payouts less losing stakes and vigorish due."""
    actual_cents: Cents
    """What the patron got: payouts less stakes collected and vigorish charged, as
    recorded."""
    event_ids: tuple[str, ...] = ()
    """The settlement and vigorish events where the two differ."""

    @property
    def patron_gain_cents(self) -> Cents:
        """Positive when the patron got more than the rules give (overpaid, or vigorish
        under-charged), negative when less."""
        return self.actual_cents - self.expected_cents

    @property
    def erred(self) -> bool:
        return self.actual_cents != self.expected_cents


@dataclass(frozen=True, slots=True)
class PairCounts:
    """A dealer-patron pair's seat-rounds of the window, counted: all, those whose money
    differs from what the rules give, and those in the patron's favour."""

    dealer_id: str
    patron_id: str
    seat_rounds: int
    erred: int
    in_patron_favour: int


@dataclass(frozen=True, slots=True)
class _Pair:
    dealer_id: str
    patron_id: str
    dealt: int  # N: the dealer's seat-rounds
    errors: int  # E
    favourable: int  # F
    seat_rounds: int  # n: the pair's seat-rounds
    erred: int  # e: the pair's erred seat-rounds
    in_favour: int  # f: those in the patron's favour

    def p_values(self) -> tuple[float, float]:
        """Upper tails of the pair's errors and favourable errors among the dealer's."""
        n = self.seat_rounds
        return (
            hypergeometric_tail(self.erred, self.dealt, self.errors, n),
            hypergeometric_tail(self.in_favour, self.dealt, self.favourable, n),
        )


def hypergeometric_tail(at_least: int, population: int, marked: int, drawn: int) -> float:
    """``P(X >= at_least)`` for ``X ~ Hypergeometric(population, marked, drawn)``: the chance
    that ``drawn`` of ``population`` seat-rounds, taken without regard to who sat there, hold
    ``at_least`` of the ``marked`` ones. Each term from log-gamma (relative error about
    1e-10, whatever the window's size; exact binomials of a month's seat-rounds have tens of
    thousands of digits)."""
    if not 0 <= marked <= population or not 0 <= drawn <= population:
        raise ValueError(
            f"{drawn} drawn and {marked} marked must each be within the population of {population}"
        )
    lowest = max(at_least, 0, drawn - (population - marked))
    total = _log_comb(population, drawn)
    tail = math.fsum(
        math.exp(_log_comb(marked, k) + _log_comb(population - marked, drawn - k) - total)
        for k in range(lowest, min(marked, drawn) + 1)
    )
    return min(1.0, tail)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def pair_counts(records: Iterable[DealtSeatRound]) -> list[PairCounts]:
    """Each dealer-patron pair of ``records``, counted."""
    counted: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in records:
        counts = counted[r.dealer_id, r.patron_id]
        counts[0] += 1
        counts[1] += r.erred
        counts[2] += r.patron_gain_cents > 0
    return [PairCounts(d, p, *counts) for (d, p), counts in sorted(counted.items())]


def _pairs(counts: Iterable[PairCounts]) -> list[_Pair]:
    by_dealer: dict[str, list[PairCounts]] = defaultdict(list)
    for c in counts:
        by_dealer[c.dealer_id].append(c)
    pairs = []
    for dealer, theirs in sorted(by_dealer.items()):
        errors = sum(c.erred for c in theirs)
        favourable = sum(c.in_patron_favour for c in theirs)
        dealt = sum(c.seat_rounds for c in theirs)
        for c in sorted(theirs, key=lambda c: c.patron_id):
            pairs.append(
                _Pair(
                    dealer,
                    c.patron_id,
                    dealt,
                    errors,
                    favourable,
                    c.seat_rounds,
                    c.erred,
                    c.in_patron_favour,
                )
            )
    return pairs


def dealer_patron_pairs(
    records: Iterable[DealtSeatRound], false_alarm_rate: float = DEFAULT_FALSE_ALARM_RATE
) -> list[Finding]:
    """One finding per dealer-patron pair whose errors, or errors in the patron's favour,
    concentrate beyond the dealer's own rate, at a family-wise false-alarm rate of
    ``false_alarm_rate`` over the call (one window of gaming days)."""
    records = list(records)
    return pair_findings(pair_counts(records), [r for r in records if r.erred], false_alarm_rate)


def pair_findings(
    counts: Iterable[PairCounts],
    erred: Iterable[DealtSeatRound],
    false_alarm_rate: float = DEFAULT_FALSE_ALARM_RATE,
) -> list[Finding]:
    """:func:`dealer_patron_pairs` from the window's pairs counted and its erred seat-rounds
    alone (the others only count)."""
    return list(_findings(_alarms(counts, false_alarm_rate), erred, false_alarm_rate).values())


@dataclass(frozen=True, slots=True)
class _Alarm:
    pair: _Pair
    concentrated: float
    favoured: float
    tests: int


def _alarms(counts: Iterable[PairCounts], false_alarm_rate: float) -> dict[tuple[str, str], _Alarm]:
    """Each alarming pair of the window, by ``(dealer_id, patron_id)``: the counts alone
    decide (the pair's errors are its erred seat-rounds counted)."""
    if not 0.0 < false_alarm_rate < 1.0:
        raise ValueError(
            f"the dealer-patron false-alarm rate must be between 0 and 1, got "
            f"{false_alarm_rate}; the default is {DEFAULT_FALSE_ALARM_RATE}"
        )
    pairs = _pairs(counts)
    tests = 2 * len(pairs)
    threshold = false_alarm_rate / max(1, tests)
    alarms = {}
    for pair in pairs:
        concentrated, favoured = pair.p_values()
        if min(concentrated, favoured) <= threshold:
            alarms[pair.dealer_id, pair.patron_id] = _Alarm(pair, concentrated, favoured, tests)
    return alarms


def _findings(
    alarms: Mapping[tuple[str, str], _Alarm], erred: Iterable[DealtSeatRound], rate: float
) -> dict[tuple[str, str], Finding]:
    """The finding of each alarm, citing its pair's erred seat-rounds of ``erred`` in the
    order dealt."""
    erred_by_pair: dict[tuple[str, str], list[DealtSeatRound]] = defaultdict(list)
    for r in erred:
        if (r.dealer_id, r.patron_id) in alarms:
            erred_by_pair[r.dealer_id, r.patron_id].append(r)
    return {
        key: _finding(
            alarm,
            sorted(erred_by_pair[key], key=lambda r: (r.gaming_date, r.table_id, r.round_id)),
            rate,
        )
        for key, alarm in alarms.items()
    }


EarlierWindow = Callable[[], Iterable[PairCounts]]
"""Reads the pairs counted of the window ending the day before."""
ErredSeatRounds = Callable[[], Iterable[DealtSeatRound]]
"""Reads the window's erred seat-rounds (those an alarm cites)."""


def reported_pair_findings(
    counts: Iterable[PairCounts],
    erred: ErredSeatRounds,
    day: date,
    window_before: EarlierWindow,
    false_alarm_rate: float = DEFAULT_FALSE_ALARM_RATE,
) -> list[Finding]:
    """The findings of ``day``: each pair alarming over the window ending ``day`` that had an
    error on ``day`` or did not alarm over the window ending the day before (it crossed the
    bar on ``day``). ``erred`` is called only when a pair alarms, ``window_before`` only
    when an alarming pair had no error on ``day``."""
    alarms = _alarms(counts, false_alarm_rate)
    if not alarms:
        return []
    cited = [r for r in erred() if (r.dealer_id, r.patron_id) in alarms]
    findings = _findings(alarms, cited, false_alarm_rate)
    erred_today = {(r.dealer_id, r.patron_id) for r in cited if r.gaming_date == day}
    carried = alarms.keys() - erred_today
    if carried:
        carried &= _alarms(window_before(), false_alarm_rate).keys()
    return [finding for pair, finding in findings.items() if pair not in carried]


def window_moved_back(
    counts: Iterable[PairCounts], last_day: Iterable[PairCounts], day_before: Iterable[PairCounts]
) -> list[PairCounts]:
    """The pairs of a window counted one day earlier: ``counts`` less those of the window's
    last day, plus those of the day before its first. A seat-round belongs to one gaming day
    and its dealer is carried within its table-day, so the counts of days add up."""
    totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for sign, counted in ((1, counts), (-1, last_day), (1, day_before)):
        for c in counted:
            total = totals[c.dealer_id, c.patron_id]
            total[0] += sign * c.seat_rounds
            total[1] += sign * c.erred
            total[2] += sign * c.in_patron_favour
    return [PairCounts(d, p, *t) for (d, p), t in sorted(totals.items()) if t[0] > 0]


def _finding(alarm: _Alarm, erred: Sequence[DealtSeatRound], rate: float) -> Finding:
    pair, concentrated, favoured = alarm.pair, alarm.concentrated, alarm.favoured
    in_favour = [r for r in erred if r.patron_gain_cents > 0]
    share = pair.seat_rounds / pair.dealt
    gain = sum(r.patron_gain_cents for r in erred)
    days = sorted({r.gaming_date for r in erred})
    table = Counter(r.table_id for r in erred).most_common(1)[0][0]
    listed = ", ".join(
        f"{r.table_id} {r.round_id} seat {r.seat} ({_signed(r.patron_gain_cents)})"
        for r in erred[:EVIDENCE_ROUNDS]
    )
    more = f" and {len(erred) - EVIDENCE_ROUNDS} more" if len(erred) > EVIDENCE_ROUNDS else ""
    message = (
        f"Dealer {pair.dealer_id}'s payout and vigorish errors gather on patron "
        f"{pair.patron_id}: {len(erred)} of the dealer's {pair.errors} errors "
        f"({len(in_favour)} of {pair.favourable} in the patron's favour) fell on the "
        f"{pair.seat_rounds} of {pair.dealt} seat-rounds ({share:.1%}) this patron played with "
        f"this dealer from {days[0]} to {days[-1]}, {_signed(gain)} to the patron in all; by "
        f"chance with probability {concentrated:.1e} (errors) and {favoured:.1e} (in the "
        f"patron's favour). Review these settlements: {listed}{more}. Honest dealing raises "
        f"this alert on at most {rate:.1%} of windows (Bonferroni over {alarm.tests} dealer-patron "
        "tests)."
    )
    return Finding(
        CODE,
        SEVERITY,
        table,
        message,
        patron_id=pair.patron_id,
        expected_cents=sum(r.expected_cents for r in erred),
        actual_cents=sum(r.actual_cents for r in erred),
        event_ids=tuple(sorted({i for r in erred for i in r.event_ids})),
    )


def _signed(cents: Cents) -> str:
    return f"+{money(cents)}" if cents > 0 else money(cents)


__all__: Sequence[str] = (
    "CODE",
    "DEFAULT_FALSE_ALARM_RATE",
    "DealtSeatRound",
    "PairCounts",
    "dealer_patron_pairs",
    "pair_counts",
    "pair_findings",
    "reported_pair_findings",
    "window_moved_back",
)
