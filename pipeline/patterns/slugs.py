"""False shuffles: runs of cards a new shoe deals in the order an earlier shoe dealt them.

N.J.A.C. 19:47-3.5(a)1 (Punto Banco), 4.4(a)1 (Chemin de Fer) and 7.5(a) (Minibaccarat)
require the cards of every shoe to be shuffled "so that they are randomly intermixed". A
dealer who leaves a clump of the last shoe's discards unshuffled (a *slug*) lets whoever
watched those cards dealt know the outcomes of the rounds dealt from it again. No single
round shows this; comparing the card order of shoes does.

How: every shoe's cards, in shoe order, are indexed by their k-card runs (``GRAM`` cards
packed into one integer, exact, no hash collisions); the runs of the earlier shoes of the
property (every table of every pit: a slug can be carried from a Minibaccarat pit to a Punto
Banco one) that the new shoes also deal are picked out by a table of the new shoes' runs,
and every hit that starts a match is extended to the maximal run. The cost is one look-up
per card of the window and a sort of the day's runs, never a sort of the window's runs nor
a comparison of every pair of shoes.

When: under a proper shuffle of ``N`` cards holding at most ``D`` copies of each card, the
probability that ``L`` given positions of the new shoe hold a given sequence of cards is
``prod_{i<L} m_i / (N - i)``, ``m_i`` the copies of the i-th card left after the ones before
it (exact); it is at most ``prod_{i<L} D / (N - i)`` for any sequence. By the union bound,
the chance that *any* of the ``P`` pairs of starting positions compared repeats a run of
``L`` or more cards is at most ``P * prod_{i<L} D / (N - i)``. A run is reported when that
bound is at most half the configured false-alarm rate: the search against the shoe's own pit
and the search against every pit's shoes (:func:`find_slugs`) share it, so the configured
rate is the most a clean shoe is reported with, per shoe searched.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from pipeline.patterns.chance import (
    CARDS_PER_DECK,
    GRAM,
    MAX_FALSE_ALARM_RATE,
    any_run_probability,
    run_probability,
)
from pipeline.replay.findings import Finding, Severity, money
from pipeline.rules.cards import RANKS, SUITS
from pipeline.rules.codes import code_for, rule
from pipeline.rules.games import Game

_BITS = 6
"""Bits per card in a packed run: 52 faces fit, and a run of :data:`GRAM` cards fits an
int64 exactly (no hash, so no collision)."""

_GAP = -1
"""Separates shoes (and the two sides of a gap in a shoe's positions) in the index: a run
never crosses it. A new shoe's own gaps use :data:`_NEW_GAP`, which matches nothing."""
_NEW_GAP = -2

_RANK_NAMES = tuple(rank.name for rank in RANKS)
_SUIT_NAMES = tuple(suit.name for suit in SUITS)


def face(rank: str, suit: str) -> int:
    """A card's rank and suit as the ledger records them (``"ACE"``, ``"SPADES"``) as one
    number 0-51; -1 for a card nobody can name (a run never spans it)."""
    if rank not in _RANK_NAMES or suit not in _SUIT_NAMES:
        return -1
    return _RANK_NAMES.index(rank) * len(_SUIT_NAMES) + _SUIT_NAMES.index(suit)


@dataclass(frozen=True, slots=True)
class DealtCard:
    """One card as the shoe dealt it: its position in the shoe, rank and suit as the ledger
    records them, the round it went to (None: burned) and the event that recorded it. Read
    only for the cards of a slug, to cite them."""

    position: int
    rank: str
    suit: str
    round_id: str | None
    event_id: str


@dataclass(frozen=True, slots=True, eq=False)
class ShoeDeal:
    """A shoe's dealt cards in shoe order, as numbers (a window holds millions of cards),
    and where and when it was dealt."""

    table_id: str
    pit: str | None
    game: Game
    shoe_id: str
    gaming_date: date
    started_at: int
    """Microseconds since the Unix epoch: orders shoes, earlier ones are compared with later."""
    cards_in_shoe: int
    """``N``: the cards the shoe held after the shuffle, as the shoe declared them."""
    positions: npt.NDArray[np.int64]
    """The shoe positions of the cards the ledger holds, ascending (a gap: a card not seen)."""
    faces: npt.NDArray[np.int64]
    """Each card's :func:`face`, position by position."""

    @property
    def key(self) -> tuple[str, date, str]:
        """Which shoe this is: a device may number its shoes afresh every day."""
        return (self.table_id, self.gaming_date, self.shoe_id)

    @property
    def scope(self) -> str:
        """The shoes it is compared with: its pit's, or its table's when the pit is unknown."""
        return self.pit if self.pit is not None else f"table {self.table_id}"


@dataclass(frozen=True, slots=True)
class Bet:
    """A wager settled on a round: who placed it, how much, and how it ended."""

    round_id: str
    seat: int
    patron_id: str | None
    wager: str
    stake_cents: int
    result: str
    paid_cents: int


@dataclass(frozen=True, slots=True, eq=False)
class Slug:
    """A maximal run of ``length`` cards the new shoe dealt from ``start`` (an index into its
    cards) in the order the earlier shoe dealt them from ``earlier_start``."""

    shoe: ShoeDeal
    start: int
    earlier: ShoeDeal
    earlier_start: int
    length: int
    pairs: int
    """Pairs of starting positions compared for the new shoe (the union bound's ``P``)."""

    @property
    def positions(self) -> npt.NDArray[np.int64]:
        return self.shoe.positions[self.start : self.start + self.length]

    @property
    def earlier_positions(self) -> npt.NDArray[np.int64]:
        return self.earlier.positions[self.earlier_start : self.earlier_start + self.length]

    @property
    def faces(self) -> npt.NDArray[np.int64]:
        return self.shoe.faces[self.start : self.start + self.length]

    @property
    def decks(self) -> int:
        """``D``: the most copies of one card the shoe can hold."""
        return max(1, math.ceil(self.shoe.cards_in_shoe / CARDS_PER_DECK))

    @property
    def exact_probability(self) -> float:
        """The probability that these positions of a properly shuffled shoe hold exactly
        these cards in this order."""
        return run_probability(self.faces.tolist(), self.shoe.cards_in_shoe, self.decks)

    @property
    def chance_bound(self) -> float:
        """At most the probability that any pair of positions compared repeats a run this
        long by chance."""
        return min(1.0, self.pairs * any_run_probability(self.length, self.shoe.cards_in_shoe))


def _codes(shoe: ShoeDeal, gap: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The shoe's faces with ``gap`` where its positions skip (a card the ledger does not
    hold) or a card has no face: a run never spans a card nobody saw. Also, for each entry,
    the index of its card in the shoe (-1 at an inserted gap)."""
    jumps = np.flatnonzero(np.diff(shoe.positions) != 1) + 1
    codes = np.insert(np.where(shoe.faces >= 0, shoe.faces, gap), jumps, gap)
    cards = np.insert(np.arange(len(shoe.faces), dtype=np.int64), jumps, -1)
    return codes.astype(np.int64), cards


def _grams(codes: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]]:
    """Every run of GRAM cards without a gap, packed into one integer, and where it starts."""
    if len(codes) < GRAM:
        return np.empty(0, np.int64), np.empty(0, np.intp)
    runs = len(codes) - GRAM + 1
    # the i-th card of every run as one column: a window's millions of cards packed in a few
    # passes (a run holding a gap packs to nonsense, and is dropped)
    columns = [codes[i : i + runs] for i in range(GRAM)]
    starts = np.flatnonzero(functools.reduce(np.minimum, columns) >= 0)
    packed = functools.reduce(lambda run, card: (run << _BITS) | card, columns)
    return packed[starts], starts


def _joined(arrays: Sequence[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    return np.concatenate(arrays).astype(np.int64) if arrays else np.empty(0, np.int64)


class _PitIndex:
    """The cards of every shoe of one index (a pit's, or the property's), concatenated with
    gaps, and its runs in that order."""

    def __init__(self, shoes: Sequence[ShoeDeal]) -> None:
        self.shoes = list(shoes)
        # every shoe's :func:`_codes` end to end, each followed by a gap, built at once: a
        # window holds thousands of shoes
        sizes = np.array([len(s.faces) for s in self.shoes], np.int64)
        faces = _joined([s.faces for s in self.shoes])
        positions = _joined([s.positions for s in self.shoes])
        shoe = np.repeat(np.arange(len(self.shoes)), sizes)
        jumped = np.zeros(len(faces), np.bool_)
        jumped[1:] = (np.diff(positions) != 1) & (shoe[1:] == shoe[:-1])
        at = np.arange(len(faces)) + np.cumsum(jumped) + shoe
        gaps = np.bincount(shoe[jumped], minlength=len(self.shoes)).astype(np.int64)
        self.codes = np.full(len(faces) + int(jumped.sum()) + len(self.shoes), _GAP, np.int64)
        self.codes[at] = np.where(faces >= 0, faces, _GAP)
        self.card_at = np.full(len(self.codes), -1, np.int64)
        self.card_at[at] = np.arange(len(faces)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        self.owner = np.repeat(np.arange(len(self.shoes)), sizes + gaps + 1)
        self.grams, self.starts = _grams(self.codes)

    def hits(
        self, grams: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """For each run of ``grams`` (by index), every position of the index holding it: by
        run, then by position."""
        # the runs searched are a day's, the index's a window's: the window's runs are looked
        # up in a table of the day's (a run packs into GRAM * _BITS = 24 bits) rather than
        # sorted, and only the few the day also deals are matched to the day's, sorted
        held = np.flatnonzero(np.isin(self.grams, grams, kind="table"))
        order = np.argsort(grams, kind="stable")
        ranked = grams[order]
        low = np.searchsorted(ranked, self.grams[held], side="left")
        counts = np.searchsorted(ranked, self.grams[held], side="right") - low
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        which = order[np.repeat(low, counts) + within]
        there = np.repeat(self.starts[held], counts)
        by_run = np.lexsort((there, which))
        return which[by_run], there[by_run]


def find_slugs(
    new: Iterable[ShoeDeal],
    earlier: Iterable[ShoeDeal],
    false_alarm_rate: float,
    across_pits: bool = True,
) -> list[Slug]:
    """Every maximal run of cards a shoe of ``new`` dealt in the order a shoe started before
    it dealt them (a shoe of ``earlier``, or of ``new``), whose chance under a proper shuffle
    is at most ``false_alarm_rate`` per shoe (see the module doc).

    Two searches share the rate, half each: one against the shoes of the shoe's own pit, and
    (``across_pits``) one against every shoe of the property, which reports only the runs
    carried from another pit (a run within the pit is the first search's). The first costs
    only the pit's shoes, so a stream can run it alone as each shoe ends and its exceptions
    stay the same when the day's full search adds the second. Both look their runs up in one
    index of the shoes: a run of the pit is in the property's index too, at the same place
    in its shoe, so each search keeps the hits in the shoes it compares with and counts the
    pairs of positions of those shoes alone. The runs within the pits come first, pit by
    pit, then those carried across pits."""
    if not 0 < false_alarm_rate <= MAX_FALSE_ALARM_RATE:
        raise ValueError(
            f"false-alarm rate {false_alarm_rate!r} must be within (0, {MAX_FALSE_ALARM_RATE}]: "
            f"runs shorter than {GRAM} cards are not indexed"
        )
    everyone = {s.key: s for s in earlier}
    searched = {s.key: s for s in new}
    everyone.update(searched)
    scopes = {s.scope for s in searched.values()}
    compared = [s for s in everyone.values() if across_pits or s.scope in scopes]
    index = _PitIndex(sorted(compared, key=lambda s: (s.started_at, s.key)))
    scope_of = np.array([s.scope for s in index.shoes], object)
    sizes = np.array([len(s.faces) for s in index.shoes], np.int64)
    half = false_alarm_rate / 2
    within: dict[str, list[Slug]] = {}
    across: list[Slug] = []
    numbers = [n for n, s in enumerate(index.shoes) if s.key in searched]
    dealt = [_ShoeRuns.of(index.shoes[n]) for n in numbers]
    # every searched shoe's runs looked up at once: one pass over the index
    which, there = index.hits(_joined([d.grams for d in dealt]))
    firsts = np.cumsum([0] + [len(d.grams) for d in dealt])
    cuts = np.searchsorted(which, firsts).tolist()
    for at, (number, runs_of_shoe) in enumerate(zip(numbers, dealt, strict=True)):
        shoe = index.shoes[number]
        same = scope_of[:number] == shoe.scope
        pit_cards = int(sizes[:number][same].sum())
        hits = slice(cuts[at], cuts[at + 1])
        runs = _runs_of(index, number, same, runs_of_shoe, which[hits] - firsts[at], there[hits])
        within.setdefault(shoe.scope, []).extend(
            _reported(index, number, runs, same_pit=True, cards=pit_cards, rate=half)
        )
        if across_pits:
            across += _reported(
                index, number, runs, same_pit=False, cards=int(sizes[:number].sum()), rate=half
            )
    return [slug for scope in sorted(within) for slug in within[scope]] + across


class _Runs(NamedTuple):
    """The maximal runs a shoe of the index repeats from the shoes before it: where each
    starts in the shoe's :func:`_codes` and in the index, its length, and whether the
    earlier shoe is of the shoe's own pit."""

    starts: list[int]
    earlier_starts: list[int]
    lengths: list[int]
    same_pit: list[bool]
    card_at: npt.NDArray[np.int64]


class _ShoeRuns(NamedTuple):
    """A searched shoe's :func:`_codes` (with :data:`_NEW_GAP`, which matches nothing), the
    card of each, and its runs (:func:`_grams`) and where they start."""

    codes: npt.NDArray[np.int64]
    card_at: npt.NDArray[np.int64]
    grams: npt.NDArray[np.int64]
    starts: npt.NDArray[np.intp]

    @classmethod
    def of(cls, shoe: ShoeDeal) -> _ShoeRuns:
        codes, card_at = _codes(shoe, _NEW_GAP)
        return cls(codes, card_at, *_grams(codes))


def _runs_of(
    index: _PitIndex,
    number: int,
    same: npt.NDArray[np.bool_],
    searched: _ShoeRuns,
    which: npt.NDArray[np.intp],
    there: npt.NDArray[np.intp],
) -> _Runs:
    """Every maximal run shoe ``number`` of ``index`` (``searched``: its runs) repeats from a
    shoe before it (``same``: which of those are of its pit), from the positions of the index
    holding each of its runs (:meth:`_PitIndex.hits`: ``which`` of them, ``there``)."""
    codes = searched.codes
    here = searched.starts[which]
    before = index.owner[there] < number
    here, there = here[before], there[before]
    # a hit that continues a match of the cards before it lies inside a run found once
    inside = (here > 0) & (there > 0)
    inside[inside] = codes[here[inside] - 1] == index.codes[there[inside] - 1]
    starts, earlier_starts = here[~inside].tolist(), there[~inside].tolist()
    lengths = []
    for start, at in zip(starts, earlier_starts, strict=True):
        length = GRAM  # gaps of the two sides differ, so a run never crosses one
        while start + length < len(codes) and codes[start + length] == index.codes[at + length]:
            length += 1
        lengths.append(length)
    same_pit = same[index.owner[there[~inside]]].tolist()
    return _Runs(starts, earlier_starts, lengths, same_pit, searched.card_at)


def _reported(
    index: _PitIndex, number: int, runs: _Runs, same_pit: bool, cards: int, rate: float
) -> list[Slug]:
    """The runs of shoe ``number`` from earlier shoes of its pit (``same_pit``) or of the
    other pits whose chance over the pairs of positions compared with ``cards`` earlier
    cards is at most ``rate``."""
    shoe = index.shoes[number]
    pairs = len(shoe.faces) * cards
    if not pairs:
        return []
    return [
        Slug(
            shoe=shoe,
            start=int(runs.card_at[start]),
            earlier=index.shoes[int(index.owner[at])],
            earlier_start=int(index.card_at[at]),
            length=length,
            pairs=pairs,
        )
        for start, at, length, of_pit in zip(
            runs.starts, runs.earlier_starts, runs.lengths, runs.same_pit, strict=True
        )
        if of_pit == same_pit and pairs * any_run_probability(length, shoe.cards_in_shoe) <= rate
    ]


def _positions(positions: npt.NDArray[np.int64]) -> str:
    return f"positions {positions[0]}-{positions[-1]}"


def _bet_text(bet: Bet) -> str:
    who = bet.patron_id or "no patron id"
    outcome = (
        f"won {money(bet.paid_cents)}"
        if bet.result == "WIN"
        else {"LOSE": "lost", "PUSH": "pushed"}.get(bet.result, bet.result.lower())
    )
    return f"seat {bet.seat} ({who}) {bet.wager} {money(bet.stake_cents)}, {outcome}"


def slug_finding(
    slug: Slug,
    dealt: Sequence[DealtCard],
    earlier_dealt: Sequence[DealtCard],
    bets: Mapping[str, Sequence[Bet]],
    false_alarm_rate: float,
) -> Finding:
    """The exception for one slug: where it is, what it repeats, how unlikely that is, who
    bet on the rounds dealt from it (``dealt``: the slug's cards, ``earlier_dealt``: the
    earlier shoe's) and how. It names cards and wagers, and no culprit: a slug is evidence
    for surveillance to review on video, not a finding of who did it."""
    code = code_for(slug.shoe.game, "false_shuffle")
    earlier = slug.earlier
    where = (
        f"table {earlier.table_id}, " if earlier.table_id != slug.shoe.table_id else ""
    ) + f"gaming day {earlier.gaming_date}"
    rounds = tuple(dict.fromkeys(c.round_id for c in dealt if c.round_id is not None))
    wagered = [bet for round_id in rounds for bet in bets.get(round_id, ())]
    dealt_from = (
        "Rounds dealt from these cards: "
        + "; ".join(
            f"{round_id}: "
            + (", ".join(_bet_text(b) for b in bets.get(round_id, ())) or "no wagers")
            for round_id in rounds
        )
        + (f" (stakes {money(sum(b.stake_cents for b in wagered))} in all)." if wagered else ".")
        if rounds
        else "No round was dealt from these cards (burned)."
    )
    message = (
        f"Shoe {slug.shoe.shoe_id}, {_positions(slug.positions)}: {slug.length} cards were "
        f"dealt in the same order as shoe {earlier.shoe_id} ({where}), "
        f"{_positions(slug.earlier_positions)}. Under a proper shuffle of "
        f"{slug.shoe.cards_in_shoe} cards ({slug.decks} decks) these positions hold this run "
        f"with probability {slug.exact_probability:.1e}, and any run this long repeats by "
        f"chance with probability at most {slug.chance_bound:.1e} over the {slug.pairs:,} "
        f"pairs of positions compared (the false-alarm rate is set at {false_alarm_rate:.0e} "
        f"per shoe). {dealt_from} Review the shuffle of this shoe on video "
        f"({rule(code).citation}: the cards are shuffled so that they are randomly "
        "intermixed)."
    )
    return Finding(
        code=code,
        severity=Severity.HIGH,
        table_id=slug.shoe.table_id,
        message=message,
        shoe_id=slug.shoe.shoe_id,
        round_id=rounds[0] if rounds else None,
        actual_cents=sum(b.stake_cents for b in wagered) if wagered else None,
        event_ids=tuple(c.event_id for c in (*dealt, *earlier_dealt)),
    )
