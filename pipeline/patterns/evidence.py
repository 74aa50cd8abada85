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
  follow their past, cannot make it alarm (the day's test, :mod:`.informed`, scores one
  session with the same martingale for the same reason).
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

Carried from day to day
-----------------------
What a test reads of a round is its stake, whether it won, its exact probability of winning
and its card-preview step (:class:`ScoredRounds`), and each of these depends on the round's
own table-day alone. So each gaming day carries those numbers of its patrons' rounds to the
days whose window holds it (:func:`pipeline.patterns.stage.carry_window`), and the stage
scores a patron's window from them instead of reading the window's rows again. They are
per round, not a few numbers per day: a weight is the stake's share of the *window's*
earlier stakes, so when the window drops its first day every later round's weight, and so
its factor, changes; a martingale's state at the end of a day is not the next window's. A
mixture never tops its highest component (:meth:`ScoredRounds.highest_component`), so a
patron whose components all stay below the bar is clear; a patron near it has the window's
rows read and scored as above, so an alarm, its figures and the days and rounds it cites
are those of the window's rows.

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

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import pandas as pd

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


Objects = npt.NDArray[np.object_]


@dataclass(frozen=True, eq=False)
class WindowRounds:
    """The window's :class:`PatronRound` rows as columns, in the order dealt: a window holds
    hundreds of thousands, and the tests score them as arrays. ``rounds[i]`` is row ``i`` as
    a :class:`PatronRound` (an alarm's rounds are read that way). ``next_card`` is -1 and the
    row of ``next_card_odds`` NaN where the shoe's cards cannot tell the next card. Row
    ``i``'s events are ``event_ids[event_starts[i]:event_ends[i]]``."""

    table_id: Objects
    gaming_date: npt.NDArray[np.datetime64]
    round_id: Objects
    patron_id: Objects
    seat: npt.NDArray[np.int64]
    game: Objects
    decks: npt.NDArray[np.int64]
    wager: Objects
    stake_cents: npt.NDArray[np.int64]
    result: Objects
    win_probability: npt.NDArray[np.float64]
    next_card: npt.NDArray[np.int64]
    next_card_odds: npt.NDArray[np.float64]
    event_ids: Objects
    event_starts: npt.NDArray[np.int64]
    event_ends: npt.NDArray[np.int64]

    @classmethod
    def of(cls, rounds: Iterable[PatronRound]) -> WindowRounds:
        rows = list(rounds)
        events = [r.event_ids for r in rows]
        ends = np.cumsum([len(ids) for ids in events], dtype=np.int64)

        def objects(values: Iterable[object]) -> Objects:
            column = np.empty(len(rows), object)
            column[:] = list(values)
            return column

        return cls(
            table_id=objects(r.table_id for r in rows),
            gaming_date=np.array([r.gaming_date for r in rows], "datetime64[D]"),
            round_id=objects(r.round_id for r in rows),
            patron_id=objects(r.patron_id for r in rows),
            seat=np.array([r.seat for r in rows], np.int64),
            game=objects(r.game for r in rows),
            decks=np.array([r.decks for r in rows], np.int64),
            wager=objects(r.wager for r in rows),
            stake_cents=np.array([r.stake_cents for r in rows], np.int64),
            result=objects(r.result for r in rows),
            win_probability=np.array([r.win_probability for r in rows], np.float64),
            next_card=np.array(
                [-1 if r.next_card is None else r.next_card for r in rows], np.int64
            ),
            next_card_odds=np.array(
                [r.next_card_odds or (math.nan,) * len(VALUES) for r in rows], np.float64
            ).reshape(len(rows), len(VALUES)),
            event_ids=np.array([e for ids in events for e in ids], object),
            event_starts=ends - np.array([len(ids) for ids in events], np.int64),
            event_ends=ends,
        )

    def __len__(self) -> int:
        return len(self.stake_cents)

    def __getitem__(self, i: int) -> PatronRound:
        seen = int(self.next_card[i]) >= 0
        return PatronRound(
            table_id=str(self.table_id[i]),
            gaming_date=self.gaming_date[i].astype(date),
            round_id=str(self.round_id[i]),
            patron_id=str(self.patron_id[i]),
            seat=int(self.seat[i]),
            game=self.game[i],
            decks=int(self.decks[i]),
            wager=self.wager[i],
            stake_cents=int(self.stake_cents[i]),
            result=self.result[i],
            win_probability=float(self.win_probability[i]),
            next_card=int(self.next_card[i]) if seen else None,
            next_card_odds=tuple(self.next_card_odds[i].tolist()) if seen else None,
            event_ids=tuple(
                str(e) for e in self.event_ids[self.event_starts[i] : self.event_ends[i]]
            ),
        )

    def __iter__(self) -> Iterator[PatronRound]:
        return (self[i] for i in range(len(self)))

    def rows(self, at: npt.NDArray[np.intp]) -> tuple[PatronRound, ...]:
        return tuple(self[int(i)] for i in at)


def next_card_odds_of(
    decks: int, seen: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """For each row of ``seen`` (how many cards of each value 0-9 a shoe of ``decks`` decks
    had dealt), the probability of each value being the next card, and whether the row has
    odds at all: the cards not yet seen are equally likely in every order after a proper
    shuffle (3.5(a)), so the next one is any of them alike. A row that saw more cards than
    the shoe holds (a misread) has none: its odds are NaN."""
    left = np.array(shoe_counts(decks), np.int64) - seen
    total = left.sum(axis=1)
    told = (total > 0) & (left.min(axis=1) >= 0)
    odds = np.full(left.shape, np.nan)
    odds[told] = left[told] / total[told, None]
    return odds, told


def next_card_odds(decks: int, seen: Sequence[int]) -> tuple[float, ...] | None:
    """:func:`next_card_odds_of` for one shoe: None when more cards were seen than the shoe
    holds (a misread)."""
    odds, told = next_card_odds_of(decks, np.array([seen], np.int64).reshape(1, len(VALUES)))
    return tuple(odds[0].tolist()) if told[0] else None


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


_WEIGHT_BLOCK = 512
"""Stakes compared pairwise at a time when weighing (a block's square of comparisons); a
patron with at most this many distinct stakes (nearly every one: stakes are multiples of a
unit) is counted by value instead."""


def stake_weights(stakes: Sequence[int] | npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Each stake's share of the stakes *before* it that it equals or tops (1: the patron's
    largest yet; 1/2 for the first): known before the round is dealt, so a weight never
    looks ahead. With few distinct stakes, counted by value (how many of each value came
    before each stake, summed up to its own); otherwise a block at a time: the earlier
    blocks' stakes sorted and searched, the block's own compared pairwise."""
    stakes = np.asarray(stakes, np.int64)
    values, codes = np.unique(stakes, return_inverse=True)
    if len(values) <= _WEIGHT_BLOCK:
        below = _at_most_before_by_value(codes.reshape(-1), len(values))
    else:
        below = _at_most_before_by_block(stakes)
    before = np.arange(len(stakes))
    return np.where(before == 0, 0.5, below / np.maximum(before, 1))


def _at_most_before_by_value(codes: npt.NDArray[np.intp], values: int) -> npt.NDArray[np.int64]:
    """How many stakes before each were at most it, from the stakes' ranks among ``values``
    distinct ones."""
    rows = np.arange(len(codes))
    each = np.zeros((len(codes), values), np.int64)
    each[rows, codes] = 1
    seen = np.cumsum(each, axis=0) - each
    return np.cumsum(seen, axis=1)[rows, codes]


def _at_most_before_by_block(stakes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """How many stakes before each were at most it, a block of stakes at a time."""
    below = np.empty(len(stakes), np.int64)
    earlier = np.empty(0, np.int64)
    for start in range(0, len(stakes), _WEIGHT_BLOCK):
        block = stakes[start : start + _WEIGHT_BLOCK]
        counted = np.searchsorted(earlier, block, side="right")
        counted += np.tril(block[None, :] <= block[:, None], k=-1).sum(axis=1)
        below[start : start + len(block)] = counted
        earlier = np.sort(np.concatenate([earlier, block]), kind="stable")
    return below


@dataclass(frozen=True, slots=True)
class Wealth:
    """A test martingale's path over a patron's rounds: the best log-wealth reached and where,
    and each round's log factor under the component of the mixture that carried it."""

    log_peak: float
    peak_at: int
    contributions: npt.NDArray[np.float64]


def component_paths(
    steps: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
    lambdas: Sequence[float],
    limits: npt.NDArray[np.float64] | float,
) -> npt.NDArray[np.float64]:
    """The running log-wealth of each component of the mixture (every stake power and
    ``lambda``, a row each): the products of ``1 + lambda * w * step``, each ``lambda * w``
    cut to ``limits`` (the largest bet that keeps the factor non-negative, known before the
    round)."""
    powers = np.array(STAKE_POWERS, np.float64)[:, None, None]
    bets = np.array(lambdas, np.float64)[None, :, None] * weights[None, None, :] ** powers
    bets = np.clip(bets, -limits, limits)
    with np.errstate(divide="ignore"):
        paths = np.cumsum(np.log(np.maximum(1.0 + bets * steps, 0.0)), axis=2)
    return paths.reshape(len(STAKE_POWERS) * len(lambdas), len(steps))


def mixture_wealth(
    steps: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
    lambdas: Sequence[float],
    limits: npt.NDArray[np.float64] | float,
) -> Wealth:
    """The running log-wealth of the average, over every stake power and ``lambda``, of the
    products of ``1 + lambda * w * step`` (:func:`component_paths`)."""
    paths = component_paths(steps, weights, lambdas, limits)
    mixture = np.logaddexp.reduce(paths, axis=0) - math.log(len(paths))
    peak_at = int(np.argmax(mixture))
    best = int(np.argmax(paths[:, peak_at]))
    contributions = np.diff(paths[best, : peak_at + 1], prepend=0.0)
    return Wealth(float(mixture[peak_at]), peak_at, contributions)


def alarm_log_wealth(rate: float) -> float:
    """The log-wealth at which a patron alarms for a false-alarm rate of ``rate`` per patron
    per year (see the module docstring)."""
    if not 0.0 < rate < 1.0:
        raise ValueError(
            f"the evidence false-alarm rate must be between 0 and 1 per patron per year, got "
            f"{rate}; set [patterns] evidence_false_alarm_rate in the rule catalog"
        )
    return math.log(TESTS_PER_LOOK * LOOKS_PER_YEAR / rate)


def tested_rounds(rounds: WindowRounds) -> dict[str, npt.NDArray[np.intp]]:
    """Each patron's rows the tests score, in the order given (dealt): one main wager a
    round, a Chemin de Fer Banker's wager left out."""
    banker = rounds.wager == Wager.BANKER
    main = (banker | (rounds.wager == Wager.PLAYER)) & (
        (rounds.result == Result.WIN) | (rounds.result == Result.LOSE)
    )
    main &= ~(banker & (rounds.game == Game.CHEMIN_DE_FER))
    kept = np.flatnonzero(main)
    both_sides = pd.DataFrame(
        {
            "patron": rounds.patron_id[kept],
            "table": rounds.table_id[kept],
            "round": rounds.round_id[kept],
        }
    ).duplicated(keep=False)
    kept = kept[~both_sides.to_numpy()]
    by_patron = pd.Series(kept).groupby(rounds.patron_id[kept], sort=True).indices
    return {str(patron): kept[at] for patron, at in by_patron.items()}


@dataclass(frozen=True, eq=False)
class ScoredRounds:
    """A patron's tested rounds (:func:`tested_rounds`) as the two martingales score them, in
    the order dealt: the stake, whether the wager won, its exact probability of winning a
    decided round and its card-preview step (:func:`preview_steps`; NaN where the next card
    is unknown). What a gaming day carries to the days whose window holds it: these numbers
    and the order are all the tests read of a round, so a patron's rounds of the window are
    the days' :class:`ScoredRounds` end to end."""

    stake_cents: npt.NDArray[np.int64]
    won: npt.NDArray[np.bool_]
    win_probability: npt.NDArray[np.float64]
    preview_step: npt.NDArray[np.float64]

    @classmethod
    def joined(cls, parts: Sequence[ScoredRounds]) -> ScoredRounds:
        """``parts`` end to end (a patron's days in order)."""
        return cls(
            np.concatenate([p.stake_cents for p in parts]).astype(np.int64),
            np.concatenate([p.won for p in parts]).astype(np.bool_),
            np.concatenate([p.win_probability for p in parts]).astype(np.float64),
            np.concatenate([p.preview_step for p in parts]).astype(np.float64),
        )

    def __len__(self) -> int:
        return len(self.stake_cents)

    def wealths(self) -> tuple[Wealth, Wealth | None]:
        """The informed-betting martingale's path over every round and the card-preview one's
        over the rounds whose next card is known (None: no such round): each round weighed
        by the stakes before it among all the rounds (:func:`stake_weights`)."""
        informed, preview = self._tests()
        return mixture_wealth(*informed), None if preview is None else mixture_wealth(*preview)

    def highest_component(self) -> float:
        """The highest log-wealth any one component of either mixture reaches: a mixture is
        their average, so neither test's peak (:meth:`wealths`) is ever above it."""
        return max(
            float(component_paths(*test).max(initial=0.0))
            for test in self._tests()
            if test is not None
        )

    def _tests(self) -> tuple[_Test, _Test | None]:
        """Each test's steps, weights, grid of ``lambda`` and limits."""
        weights = stake_weights(self.stake_cents)
        p_win = self.win_probability
        informed = (self.won.astype(np.float64) - p_win, weights, INFORMED_LAMBDAS, 1.0 / p_win)
        seen = ~np.isnan(self.preview_step)
        if not seen.any():
            return informed, None
        preview = (
            self.preview_step[seen],
            weights[seen],
            PREVIEW_LAMBDAS,
            np.ones(int(seen.sum())),
        )
        return informed, preview


_Test = tuple[
    npt.NDArray[np.float64], npt.NDArray[np.float64], Sequence[float], npt.NDArray[np.float64]
]


def scored_rounds(rounds: WindowRounds) -> dict[str, tuple[npt.NDArray[np.intp], ScoredRounds]]:
    """Each patron's tested rows of ``rounds`` (:func:`tested_rounds`) and their scores."""
    steps = preview_steps(rounds)
    won = rounds.result == Result.WIN
    return {
        patron: (
            played,
            ScoredRounds(
                rounds.stake_cents[played],
                won[played].astype(np.bool_),
                rounds.win_probability[played],
                steps[played],
            ),
        )
        for patron, played in tested_rounds(rounds).items()
    }


@dataclass(frozen=True, eq=False)
class PatronEvidence:
    """Both test martingales of one patron over the window's rounds: ``informed_at`` and
    ``preview_at`` are the rows of ``rounds`` each scored, in order."""

    patron_id: str
    rounds: WindowRounds
    informed_at: npt.NDArray[np.intp]
    informed: Wealth
    preview_at: npt.NDArray[np.intp]
    preview: Wealth | None
    """None: no round of the window has a next card the shoe's cards can tell."""

    @property
    def informed_rounds(self) -> tuple[PatronRound, ...]:
        return self.rounds.rows(self.informed_at)

    @property
    def preview_rounds(self) -> tuple[PatronRound, ...]:
        return self.rounds.rows(self.preview_at)


def patron_evidence(
    rounds: WindowRounds | Iterable[PatronRound], day: date
) -> list[PatronEvidence]:
    """The evidence of each patron who played ``day``, over their ``rounds`` of the window (in
    the order dealt)."""
    if not isinstance(rounds, WindowRounds):
        rounds = WindowRounds.of(rounds)
    today = np.datetime64(day, "D")
    evidence = []
    for patron, (played, scored) in scored_rounds(rounds).items():
        if not (rounds.gaming_date[played] == today).any():
            continue
        informed, preview = scored.wealths()
        evidence.append(
            PatronEvidence(
                patron,
                rounds,
                played,
                informed,
                played[~np.isnan(scored.preview_step)],
                preview,
            )
        )
    return evidence


CARRIED_MARGIN = 1e-6
"""How far below the bar a patron's evidence from carried days is still searched again over
the window's rows: the carried steps may differ from the window's in the last bits (a dot
product summed in another order), never by this much."""


def patrons_near_the_bar(carried: Mapping[str, ScoredRounds], rate: float) -> list[str]:
    """The patrons one of whose martingales' components reaches the bar of ``rate`` over
    their carried rounds of the window (each patron's days' :class:`ScoredRounds` joined),
    or comes within :data:`CARRIED_MARGIN` of it: the only ones an alarm can name (a
    mixture never tops its highest component), whose rounds the stage reads in full
    (:func:`accumulated_evidence`); every other patron is clear."""
    bar = alarm_log_wealth(rate) - CARRIED_MARGIN
    return [p for p, scored in sorted(carried.items()) if scored.highest_component() >= bar]


def accumulated_evidence(
    rounds: WindowRounds | Iterable[PatronRound],
    day: date,
    rate: float,
    window_days: int,
    requests: Iterable[RecordedRequest] = (),
) -> list[Finding]:
    """The card-preview and accumulated informed-betting alarms of the patrons who played
    ``day``, over their ``rounds`` of the window (in the order dealt), at ``rate`` false
    alarms per patron per year. A card-preview alarm names the patron's ``requests`` of the
    window about the cards or the shoe (:mod:`.requests`); they change no test and no bar."""
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


def preview_steps(rounds: WindowRounds) -> npt.NDArray[np.float64]:
    """Each row's card-preview step ``d (E(v) - mu) / B`` (the module docstring): NaN where
    the next card is unknown."""
    steps = np.full(len(rounds), np.nan)
    seen = rounds.next_card >= 0
    for game, decks in {
        (g, int(d)) for g, d in zip(rounds.game[seen], rounds.decks[seen], strict=True)
    }:
        at = np.flatnonzero(seen & (rounds.game == game) & (rounds.decks == decks))
        edges = np.array(card_edges(game, decks))
        mean = rounds.next_card_odds[at] @ edges
        side = np.where(rounds.wager[at] == Wager.PLAYER, 1.0, -1.0)
        steps[at] = side * (edges[rounds.next_card[at]] - mean) / (edges.max() - edges.min())
    return steps


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
