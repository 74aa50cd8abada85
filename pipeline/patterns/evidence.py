"""Evidence that accumulates: a patron's wagers tested across every table and gaming day of
the window, by test martingales, for the cheat too patient for one day's test.

Wagers are made before "No More Bets" and before the cards (N.J.A.C. 19:47-3.2(d), 3.7(b);
the same for Minibaccarat, 7.2, 7.7, and Chemin de Fer, 4.6-4.8), so under fair play nothing
a patron chooses can depend on a card not yet dealt or on the outcome it brings. Two ways of
knowing one are looked for, per patron:

* **Card preview** (edge sorting): the side a patron bets depends on the value of the card
  the shoe deals next, the Player's first card (3.7(c)): what a patron who reads the backs of
  asymmetrically printed cards, turned by value, knows before the deal. The score of a card
  is its edge for the Player, ``P(Player wins | first card v) - P(Banker wins | first card
  v)``, exact from the odds oracle (:func:`card_edges`; 7, 8 and 9 favour the Player).
* **Informed betting, accumulated**: the patron's main wagers win more often than the exact
  odds allow, most on their larger stakes. The day's test (:mod:`.informed`) judges one
  session; this one pools every session of the window.

The test
--------
Each question is a *test martingale*: a product over the patron's rounds, in the order they
were dealt, of factors ``1 + lambda * w_i * x_i`` that average exactly 1 under fair play given
everything before the round, and never go below 0. ``w_i`` weighs the round by what the patron
chose before the cards (the share of the patron's *earlier* stakes in the window that the
stake equals or tops, to the power 0, 1, 4 or 16: size-blind, size-aware, larger stakes,
the largest only) and
``lambda`` is
one of a fixed grid; the process is the average over the grid (a mixture of martingales is
one). For card preview ``x_i = d_i (E(v_i) - mu_i) / B``: ``d_i`` is +1 for a Player wager and
-1 for a Banker wager, ``E(v_i)`` the edge of the card dealt, ``mu_i`` its mean over the
cards the shoe can still deal (exact: every card not yet seen in this shoe is equally likely
to come next, whatever the patron did) and ``B`` the spread of ``E``; ``lambda`` takes both
signs, so a preview of Banker cards is found too. For informed betting ``x_i = W_i - p_i``,
``W_i`` whether the wager won and ``p_i`` its exact full-shoe probability of winning a decided
round (:func:`~pipeline.patterns.informed.win_probability`; the shoe's removal effects are
left out, which the measured false-alarm rate covers).

Why a test martingale and not a pooled p-value
----------------------------------------------
* It is valid at every look: by Ville's inequality a process that starts at 1 ever reaches
  ``1/a`` with probability at most ``a``, so looking every day after every round costs
  nothing.
* It is valid under any betting progression: the weights use only stakes made and outcomes
  seen before the round, so a martingale bettor or a trend follower, however their stakes
  follow their past, cannot make it alarm (the day's rank test, which ranks a session's
  stakes after the fact, can: :mod:`.informed`).
* Evidence from different tables and days multiplies, and the evidence of the card-preview
  test is exact given the cards the shoe had dealt.

The false-alarm rate
--------------------
``rate`` is stated per patron per year. Each gaming day, for each patron who played it, the
stage runs both processes over the patron's rounds of the window (``window_days`` earlier
days and the day) and alarms when a running maximum reaches ``2 * 366 / rate`` times the
starting wealth: a patron is looked at on at most 366 gaming days a year, with two tests,
and Bonferroni over those looks (each a test martingale of its own, however they overlap)
bounds the chance that a fair patron alarms in a year by ``rate``.

Input
-----
One :class:`PatronRound` per decided Banker or Player wager of a patron who played the day,
from the window's settlements (the result by the cards, not the dealer), with the round's
first card and the cards its shoe had dealt before it (:mod:`pipeline.patterns.stage`). Like
the day's test, a round in which the patron bet both sides is left out, and so is a Chemin de
Fer Banker's wager, whose size 4.6(b) ties to the bank. A card-preview alarm also names the
patron's requests of the window to turn cards or to keep or change the shoe
(:mod:`pipeline.patterns.requests`), which change neither test nor bar.
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from pipeline.oracle.enumeration import outcome_counts, shoe_counts
from pipeline.patterns.requests import RecordedRequest, requests_text
from pipeline.replay.findings import Finding, Severity, money
from pipeline.rules.config import Cents
from pipeline.rules.games import Game
from pipeline.rules.settlement import Result, Wager

PREVIEW_CODE = "NJ-PATTERN-CARD-PREVIEW"
ACCUMULATED_CODE = "NJ-PATTERN-INFORMED-ACCUMULATED"
LOOKS_PER_YEAR = 366
"""The most gaming days a year a patron is looked at (one look per day played)."""
TESTS_PER_LOOK = 2
STAKE_POWERS = (0, 1, 4, 16)
"""``w_i = s_i ** k``: size-blind, size-aware, larger stakes, the largest only."""
PREVIEW_LAMBDAS = (-1.0, -0.5, -0.25, 0.25, 0.5, 1.0)
INFORMED_LAMBDAS = (0.25, 0.5, 1.0, 1.9)
"""One-sided (an informed patron wins more); the largest keeps ``1 - lambda * p`` above 0
for a wager that wins at most about half its decided rounds, and is cut to ``1 / p`` for one
that wins more."""
EVIDENCE_ROUNDS = 10
SEVERITY = Severity.HIGH
"""A statistical pattern for a person to review before the day closes, never proof."""
VALUES = range(10)


@dataclass(frozen=True, slots=True)
class PatronRound:
    """One decided Banker or Player wager of a patron, with what the test needs of its round.

    ``next_card`` is the value (0-9) of the round's first card and ``next_card_odds`` the
    probability of each value coming next given the cards its shoe had dealt before the round;
    both None when the shoe's cards cannot tell it (a card unread, a shoe of unknown make-up).
    """

    table_id: str
    gaming_date: date
    round_id: str
    patron_id: str
    seat: int
    game: Game
    decks: int
    wager: Wager
    stake_cents: Cents
    result: Result
    win_probability: float
    next_card: int | None
    next_card_odds: tuple[float, ...] | None
    event_ids: tuple[str, ...]


def next_card_odds(decks: int, seen: Sequence[int]) -> tuple[float, ...] | None:
    """The probability of each value 0-9 being the next card of a shoe of ``decks`` decks
    whose dealt cards so far include ``seen[v]`` of value ``v``: the cards not yet seen are
    equally likely in every order after a proper shuffle (3.5(a)), so the next one is any of
    them alike. None when more cards were seen than the shoe holds (a misread)."""
    left = [full - count for full, count in zip(shoe_counts(decks), seen, strict=True)]
    total = sum(left)
    if total <= 0 or min(left) < 0:
        return None
    return tuple(count / total for count in left)


@lru_cache(maxsize=8)
def card_edges(game: Game, decks: int) -> tuple[float, ...]:
    """Each value's edge for the Player as the round's first card: ``P(Player wins | v) -
    P(Banker wins | v)`` from a full shoe, every deal enumerated by the odds oracle under the
    game's draw rules (3.9, 4.9, 7.9)."""
    edges = []
    for value in VALUES:
        counts = outcome_counts(shoe_counts(decks), game, first=value)
        total = sum(counts.values())
        player = sum(c for o, c in counts.items() if o.player_points > o.banker_points)
        banker = sum(c for o, c in counts.items() if o.player_points < o.banker_points)
        edges.append((player - banker) / total)
    return tuple(edges)


def stake_weights(stakes: Sequence[int]) -> npt.NDArray[np.float64]:
    """Each stake's share of the stakes *before* it that it equals or tops (1: the patron's
    largest yet; 1/2 for the first): known before the round is dealt, so a weight never
    looks ahead."""
    earlier: list[int] = []
    weights = np.empty(len(stakes))
    for i, stake in enumerate(stakes):
        if not earlier:
            weights[i] = 0.5
        else:
            weights[i] = bisect.bisect_right(earlier, stake) / len(earlier)
        bisect.insort(earlier, stake)
    return weights


@dataclass(frozen=True, slots=True)
class Wealth:
    """A test martingale's path over a patron's rounds: the best log-wealth reached and where,
    and each round's log factor under the component of the mixture that carried it."""

    log_peak: float
    peak_at: int
    contributions: npt.NDArray[np.float64]


def mixture_wealth(
    steps: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
    lambdas: Sequence[float],
    limits: npt.NDArray[np.float64],
) -> Wealth:
    """The running log-wealth of the average, over every stake power and ``lambda``, of the
    products of ``1 + lambda * w * step``, each ``lambda * w`` cut to ``limits`` (the largest
    bet that keeps the factor non-negative, known before the round)."""
    logs = []
    for power in STAKE_POWERS:
        w = weights**power
        for lam in lambdas:
            bet = np.clip(lam * w, -limits, limits)
            with np.errstate(divide="ignore"):
                logs.append(np.cumsum(np.log(np.maximum(1.0 + bet * steps, 0.0))))
    paths = np.vstack(logs)
    mixture = np.logaddexp.reduce(paths, axis=0) - math.log(len(logs))
    peak_at = int(np.argmax(mixture))
    best = int(np.argmax(paths[:, peak_at]))
    contributions = np.diff(paths[best, : peak_at + 1], prepend=0.0)
    return Wealth(float(mixture[peak_at]), peak_at, contributions)


def alarm_log_wealth(rate: float) -> float:
    """The log-wealth at which a patron alarms for a false-alarm rate of ``rate`` per patron
    per year (see the module docstring)."""
    return math.log(TESTS_PER_LOOK * LOOKS_PER_YEAR / rate)


def tested_rounds(rounds: Iterable[PatronRound]) -> dict[str, list[PatronRound]]:
    """Each patron's rounds the tests score, in the order given (dealt): one main wager a
    round, a Chemin de Fer Banker's wager left out."""
    by_patron: dict[str, list[PatronRound]] = defaultdict(list)
    sides: dict[tuple[str, str, str], int] = defaultdict(int)
    kept = [
        r
        for r in rounds
        if r.wager in (Wager.BANKER, Wager.PLAYER)
        and r.result in (Result.WIN, Result.LOSE)
        and not (r.game is Game.CHEMIN_DE_FER and r.wager is Wager.BANKER)
    ]
    for r in kept:
        sides[r.patron_id, r.table_id, r.round_id] += 1
    for r in kept:
        if sides[r.patron_id, r.table_id, r.round_id] == 1:
            by_patron[r.patron_id].append(r)
    return by_patron


@dataclass(frozen=True, slots=True)
class PatronEvidence:
    """Both test martingales of one patron over the window's rounds."""

    patron_id: str
    informed_rounds: tuple[PatronRound, ...]
    informed: Wealth
    preview_rounds: tuple[PatronRound, ...]
    preview: Wealth | None
    """None: no round of the window has a next card the shoe's cards can tell."""


def patron_evidence(rounds: Iterable[PatronRound], day: date) -> list[PatronEvidence]:
    """The evidence of each patron who played ``day``, over their ``rounds`` of the window (in
    the order dealt)."""
    evidence = []
    for patron, played in sorted(tested_rounds(rounds).items()):
        if not any(r.gaming_date == day for r in played):
            continue
        weights = stake_weights([r.stake_cents for r in played])
        p_win = np.array([r.win_probability for r in played])
        won = np.array([1.0 if r.result is Result.WIN else 0.0 for r in played])
        seen = [i for i, r in enumerate(played) if r.next_card is not None]
        previewed = tuple(played[i] for i in seen)
        preview = None
        if seen:
            steps = np.array([_preview_step(r) for r in previewed])
            preview = mixture_wealth(steps, weights[seen], PREVIEW_LAMBDAS, np.ones(len(seen)))
        evidence.append(
            PatronEvidence(
                patron,
                tuple(played),
                mixture_wealth(won - p_win, weights, INFORMED_LAMBDAS, 1.0 / p_win),
                previewed,
                preview,
            )
        )
    return evidence


def accumulated_evidence(
    rounds: Iterable[PatronRound],
    day: date,
    rate: float,
    window_days: int,
    requests: Iterable[RecordedRequest] = (),
) -> list[Finding]:
    """The card-preview and accumulated informed-betting alarms of the patrons who played
    ``day``, over their ``rounds`` of the window (in the order dealt), at ``rate`` false
    alarms per patron per year. A card-preview alarm names the patron's ``requests`` of the
    window about the cards or the shoe (:mod:`.requests`); they change no test and no bar."""
    if not 0.0 < rate < 1.0:
        raise ValueError(
            f"the evidence false-alarm rate must be between 0 and 1 per patron per year, got "
            f"{rate}; set [patterns] evidence_false_alarm_rate in the rule catalog"
        )
    bar = alarm_log_wealth(rate)
    asked: dict[str | None, list[RecordedRequest]] = defaultdict(list)
    for request in requests:
        asked[request.patron_id].append(request)
    findings = []
    for e in patron_evidence(rounds, day):
        if e.informed.log_peak >= bar:
            findings.append(_accumulated_finding(e.informed_rounds, e.informed, rate, window_days))
        if e.preview is not None and e.preview.log_peak >= bar:
            findings.append(
                _preview_finding(
                    e.preview_rounds, e.preview, rate, window_days, asked.get(e.patron_id, [])
                )
            )
    return findings


def _preview_step(r: PatronRound) -> float:
    edges = card_edges(r.game, r.decks)
    assert r.next_card is not None and r.next_card_odds is not None
    mean = sum(q * e for q, e in zip(r.next_card_odds, edges, strict=True))
    side = 1.0 if r.wager is Wager.PLAYER else -1.0
    return side * (edges[r.next_card] - mean) / (max(edges) - min(edges))


def _carried(played: Sequence[PatronRound], wealth: Wealth) -> tuple[str, str, tuple[str, ...]]:
    """The days and the rounds that carry the evidence, as text, and the rounds' events."""
    by_day: dict[tuple[date, str], float] = defaultdict(float)
    for r, gain in zip(played, wealth.contributions, strict=False):
        by_day[r.gaming_date, r.table_id] += float(gain)
    days = "; ".join(
        f"{d} at {t} (x{math.exp(gain):.3g})" for (d, t), gain in sorted(by_day.items()) if gain > 0
    )
    best = np.argsort(-wealth.contributions, kind="stable")[:EVIDENCE_ROUNDS]
    chosen = [played[int(i)] for i in sorted(best.tolist()) if wealth.contributions[i] > 0]
    rounds = ", ".join(
        f"{r.round_id} at {r.table_id} ({r.wager.value.title()} {money(r.stake_cents)})"
        for r in chosen
    )
    return days, rounds, tuple(sorted({e for r in chosen for e in r.event_ids}))


def _money(played: Sequence[PatronRound]) -> tuple[int, int, int]:
    """Handle, the net the exact odds lead to expect (before vigorish) and the net won."""
    handle = sum(r.stake_cents for r in played)
    expected = round(sum(r.stake_cents * (2 * r.win_probability - 1) for r in played))
    won = sum(r.stake_cents if r.result is Result.WIN else -r.stake_cents for r in played)
    return handle, expected, won


def _closing(patron: str, wealth: Wealth, rate: float, window_days: int) -> str:
    return (
        f"Fair play reaches evidence this strong (x{math.exp(wealth.log_peak):.3g} against "
        f"it) for at most {rate:g} of patrons a year, whatever their betting progression "
        f"(a test martingale over the window of {window_days} earlier gaming day(s) and "
        f"this one). Review the patron's trail (dashboards, Trail, patron {patron}) and the "
        "video of the rounds named."
    )


def _preview_finding(
    played: Sequence[PatronRound],
    wealth: Wealth,
    rate: float,
    window_days: int,
    requests: Sequence[RecordedRequest],
) -> Finding:
    last = played[-1]
    edges = card_edges(last.game, last.decks)
    favour = [v for v in VALUES if edges[v] > 0]
    on_player = [r for r in played if r.next_card in favour]
    player_then = sum(1 for r in on_player if r.wager is Wager.PLAYER)
    others = [r for r in played if r.next_card not in favour]
    player_else = sum(1 for r in others if r.wager is Wager.PLAYER)
    days, rounds, events = _carried(played, wealth)
    handle, expected, won = _money(played)
    message = (
        f"Patron {last.patron_id} bet the side the next card out of the shoe favoured, a "
        f"card nobody may know before the wagers close: Player on {player_then} of the "
        f"{len(on_player)} rounds whose first card was a "
        f"{', '.join(str(v) for v in favour)} (which favour the Player) against "
        f"{player_else} of the {len(others)} others. {len(played)} decided wagers, "
        f"{money(handle)} staked: won {money(won)} before vigorish where the exact odds lead "
        f"to expect {money(expected)}. The evidence comes from {days}; rounds: {rounds}. "
        f"{requests_text(requests)} Look for cards turned or sorted by their backs (edge "
        "sorting) and the shoe's preparation. "
        + _closing(last.patron_id, wealth, rate, window_days)
    )
    cited = tuple(sorted({*events, *(r.event_id for r in requests)}))
    return _finding(PREVIEW_CODE, last, message, expected, won, cited)


def _accumulated_finding(
    played: Sequence[PatronRound], wealth: Wealth, rate: float, window_days: int
) -> Finding:
    last = played[-1]
    wins = sum(1 for r in played if r.result is Result.WIN)
    expected_wins = sum(r.win_probability for r in played)
    days, rounds, events = _carried(played, wealth)
    handle, expected, won = _money(played)
    message = (
        f"Patron {last.patron_id}'s Banker and Player wagers won beyond the exact odds across "
        f"the window, most on their larger stakes: {wins} of {len(played)} decided wagers "
        f"won where {expected_wins:.0f} were expected, {money(handle)} staked, won "
        f"{money(won)} before vigorish where the odds lead to expect {money(expected)}. The "
        f"evidence comes from {days}; rounds: {rounds}. "
        + _closing(last.patron_id, wealth, rate, window_days)
    )
    return _finding(ACCUMULATED_CODE, last, message, expected, won, events)


def _finding(
    code: str,
    last: PatronRound,
    message: str,
    expected: int,
    won: int,
    events: tuple[str, ...],
) -> Finding:
    """An alarm about the patron of ``last``, their latest round, at its table and seat."""
    return Finding(
        code,
        SEVERITY,
        last.table_id,
        message,
        seat=last.seat,
        patron_id=last.patron_id,
        expected_cents=expected,
        actual_cents=won,
        event_ids=events,
    )
