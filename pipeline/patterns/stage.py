"""The pattern stage: run the cross-day analysers over a gaming day and its window of earlier
days, and replace the day's pattern exceptions in the ledger.

It runs after the day's replays and before its close (the nightly flows, ``demo --plain``
and ``baccarat-audit replay``), and in the close itself for a day whose rows changed since
it last ran (:func:`find_patterns_if_changed`: a streamed day). The stream searches the
shoes each batch ends for slugs alone (:func:`search_ended_shoes`).

It reads what the replays derived (cards in shoe order, the shoes' declarations,
settlements, vigorish) for ``window_days`` earlier gaming days and the day itself, each
analyser's records in one question to the ledger (:mod:`pipeline.ledger.pattern_inputs`);
the slug search, the accumulated evidence and the dealer-patron pairs read, for every
earlier day of the window, what that day carries (:func:`carry_window`: its shoes' cards as
numbers, its patrons' scored rounds, its pairs counted, each computed once from the day's
own rows and again when they change) rather than the window's rows:
false shuffles (:mod:`.slugs`) search the day's shoes against the window's; informed
betting (:mod:`.informed`) tests the day's settled wagers; dealer-patron pairs
(:mod:`.pairs`) test the window's seat-rounds, a pair reported on the day it crosses the bar
and on each day that adds one of its errors; the patrons' requests about the cards or
the shoe (:mod:`.requests`) are named by a card-preview alarm, and a granted request to turn
cards is an exception of its day. It writes only the day's exceptions with a
pattern code (:meth:`Ledger.replace_pattern_findings`) in one transaction, with their
notices for the ``audit-exceptions`` topic. Re-running it gives the same rows; re-deriving a
table-day keeps them (:mod:`pipeline.ledger.store`).
"""

from __future__ import annotations

import hashlib
import time
import weakref
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from pipeline.collector import batch_collection
from pipeline.config.catalog import Catalog
from pipeline.config.patterns import PatternSettings
from pipeline.ledger import pattern_inputs as ledger_patterns
from pipeline.ledger.columns import Delivery
from pipeline.ledger.notices import record_notices
from pipeline.ledger.store import Ledger
from pipeline.patterns import informed
from pipeline.patterns.chance import CARDS_PER_DECK
from pipeline.patterns.evidence import (
    ScoredRounds,
    WindowRounds,
    accumulated_evidence,
    next_card_odds_of,
    patrons_near_the_bar,
    scored_rounds,
)
from pipeline.patterns.informed import (
    SettledWager,
    TableDay,
    informed_betting_of_tables,
    win_probability,
)
from pipeline.patterns.pairs import (
    DealtSeatRound,
    PairCounts,
    reported_pair_findings,
    window_moved_back,
)
from pipeline.patterns.requests import RecordedRequest, turn_request_findings
from pipeline.patterns.slugs import (
    Bet,
    DealtCard,
    ShoeDeal,
    find_slugs,
    slug_finding,
)
from pipeline.replay.findings import Finding
from pipeline.rules.cards import RANKS, SUITS, card_value
from pipeline.rules.codes import PATTERN_CODES, code_for
from pipeline.rules.config import TableRules
from pipeline.rules.games import Game
from pipeline.rules.settlement import Result, Wager

ShoeKey = tuple[str, date, str]
"""``(table_id, gaming_date, shoe_id)``: a device may number its shoes afresh every day."""

SLUG_CODES = frozenset(code_for(game, "false_shuffle") for game in Game)
"""The codes of a slug, one per game (:func:`~pipeline.patterns.slugs.slug_finding`)."""


@dataclass(frozen=True)
class PatternRun:
    """What the stage did for one gaming day."""

    gaming_date: date
    window_days: int
    shoes_searched: int
    shoes_in_window: int
    wagers_tested: int
    seat_rounds_in_window: int
    findings: tuple[Finding, ...]
    seconds: float

    def summary(self) -> str:
        return (
            f"patterns of {self.gaming_date}: {self.shoes_searched} shoes searched against the "
            f"property's shoes dealt before them, {self.shoes_in_window} shoes in a window "
            f"of {self.window_days} earlier day(s); {self.wagers_tested} settled wagers tested "
            f"for informed betting; {self.seat_rounds_in_window} seat-rounds of the window "
            f"tested for dealer-patron pairs; {len(self.findings)} pattern exceptions "
            f"({self.seconds:.1f} s)"
        )


def settings_of(catalog: Mapping[str, TableRules]) -> PatternSettings:
    """The pattern settings of a catalog loaded with its ``[patterns]`` section; the
    defaults for a mapping built by hand."""
    return catalog.patterns if isinstance(catalog, Catalog) else PatternSettings()


def shoes_of(
    ledger: Ledger,
    first: date,
    day: date,
    tables: Iterable[str] | None = None,
    known: dict[ShoeKey, ShoeCards] | None = None,
) -> list[ShoeDeal]:
    """Every shoe dealt from ``first`` to ``day`` (of ``tables``; None: of every table), with
    its cards in shoe order. ``known``: the cards of shoes read before, as the ledger still
    holds them (:class:`KnownShoes`); only the other shoes' cards are read, and added to it."""
    declared = ledger_patterns.declared_shoes(ledger, first, day, tables)
    unread = [(t, d, s) for t, d, s, *_ in declared if (t, d, s) not in known] if known else None
    cards: Mapping[ShoeKey, ShoeCards] = {} if known is None else known
    if unread is None or unread:
        read = ledger_patterns.window_cards(ledger, first, day, tables, unread)
        fresh = {
            key: ShoeCards(read.positions[start:end], read.faces[start:end])
            for key, (start, end) in read.spans.items()
        }
        if known is None:
            cards = fresh
        else:
            # copies: a slice kept would keep every card read with it
            known.update(
                (key, ShoeCards(c.positions.copy(), c.faces.copy())) for key, c in fresh.items()
            )
    return [
        declared_shoe(declaration, dealt.positions, dealt.faces)
        for declaration in declared
        if (dealt := cards.get(declaration[:3])) is not None
    ]


ShoeDeclaration = tuple[str, date, str, int, int, str | None, str]
"""A shoe as its ``ShoeStarted`` and its table-day declare it: ``(table_id, gaming_date,
shoe_id, started_at, cards_in_shoe, pit, game)``."""


def declared_shoe(
    declaration: ShoeDeclaration,
    positions: npt.NDArray[np.int64],
    faces: npt.NDArray[np.int64],
) -> ShoeDeal:
    """A shoe as the slug search compares it: its declaration and its cards (positions and
    faces, in shoe order), read from its card rows or from what its day carries."""
    table_id, gaming_date, shoe_id, started_at, cards_in_shoe, pit, game = declaration
    return ShoeDeal(
        table_id=table_id,
        pit=pit,
        game=Game(game),
        shoe_id=shoe_id,
        gaming_date=gaming_date,
        started_at=started_at,
        cards_in_shoe=cards_in_shoe,
        positions=positions,
        faces=faces,
    )


class ShoeCards(NamedTuple):
    """A shoe's cards as :func:`~pipeline.ledger.pattern_inputs.window_cards` reads them."""

    positions: npt.NDArray[np.int64]
    faces: npt.NDArray[np.int64]


class KnownShoes:
    """The cards of the shoes a stream's searches of ended shoes read, kept across its batches
    for each ledger connection, so that each batch reads only the shoes whose cards it does
    not hold: the shoes that just ended and those still being dealt, not every shoe of their
    pits' window again. A shoe whose card rows the connection wrote since (a late card, a
    table-day replayed again: :meth:`~pipeline.ledger.store.Ledger.take_card_changes`) is
    read again, as is every shoe for a connection opened again; :meth:`forget` after a
    failed batch."""

    def __init__(self) -> None:
        self._by_ledger: weakref.WeakKeyDictionary[Ledger, dict[ShoeKey, ShoeCards]] = (
            weakref.WeakKeyDictionary()
        )

    def of(self, ledger: Ledger) -> dict[ShoeKey, ShoeCards]:
        """The cards held that ``ledger`` holds as they are (to be added to)."""
        changes = ledger.take_card_changes()
        cards = self._by_ledger.setdefault(ledger, {})
        for key in [k for k in cards if k in changes.shoes or (k[0], k[1]) in changes.table_days]:
            del cards[key]
        return cards

    def forget(self) -> None:
        """Hold nothing: every shoe is read again."""
        self._by_ledger.clear()


def dealt_cards(ledger: Ledger, shoe: ShoeDeal, positions: Sequence[int]) -> list[DealtCard]:
    """The cards of ``shoe`` at ``positions`` in full: rank, suit, round and event."""
    return [
        DealtCard(*row)
        for row in ledger_patterns.cards_at(
            ledger, shoe.table_id, shoe.gaming_date, shoe.shoe_id, positions
        )
    ]


def bets_on(
    ledger: Ledger, day: date, table_id: str, rounds: Sequence[str]
) -> dict[str, list[Bet]]:
    """The settled wagers of these rounds of ``table_id`` on ``day``, by round."""
    bets: dict[str, list[Bet]] = defaultdict(list)
    if rounds:
        for row in ledger_patterns.bets_of_rounds(ledger, day, table_id, rounds):
            bets[row[0]].append(Bet(*row))
    return bets


def settled_wagers(
    ledger: Ledger, day: date, catalog: Mapping[str, TableRules]
) -> Iterator[tuple[list[SettledWager], dict[TableDay, TableRules]]]:
    """The day's settled wagers the informed-betting test scores, a table at a time in table
    order, each with its table's rules. A table whose rules the catalog does not hold (its
    replay reported that) has no exact odds to test against and is left out."""
    tests = [w.value for w in informed.TESTS]
    for rows in ledger_patterns.scored_wagers_by_table(ledger, day, tests):
        table_id, rules_id = rows[0][0], rows[0][8]
        if rules_id not in catalog:
            continue
        wagers = [
            SettledWager(
                table_id,
                day,
                round_id,
                patron,
                seat,
                Wager(wager),
                stake,
                Result(result),
                events,
                started_at,
            )
            for _, round_id, patron, seat, wager, stake, result, events, _, started_at in rows
        ]
        yield wagers, {(table_id, day): catalog[rules_id]}


_FACE_VALUES = np.array([card_value(rank) for rank in RANKS for _ in SUITS] + [-1], np.int64)
"""A face number's card value (:func:`pipeline.patterns.slugs.face`); -1 (no face) last."""
_RANK_VALUES = {rank.name: card_value(rank) for rank in RANKS}


def seen_before(shoe: ShoeDeal, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """How many cards of each value 0-9 the ledger read from ``shoe`` before each of
    ``positions``: one row per position."""
    values = _FACE_VALUES[shoe.faces]
    counted = np.zeros((len(values) + 1, 10), np.int64)
    known = values >= 0
    counted[1:][np.flatnonzero(known), values[known]] = 1
    return np.cumsum(counted, axis=0)[np.searchsorted(shoe.positions, positions)]


def patron_rounds(
    ledger: Ledger,
    first: date,
    day: date,
    shoes: Sequence[ShoeDeal],
    catalog: Mapping[str, TableRules],
    patrons: Iterable[str] | None = None,
) -> WindowRounds:
    """The window's decided Banker and Player wagers of the patrons who played ``day`` (of
    ``patrons``; None: of every patron), in the order dealt, with each round's first card
    and the odds of each value coming next given the cards its shoe dealt before it
    (:mod:`pipeline.patterns.evidence`). A round whose first card, or whose shoe's make-up,
    the ledger cannot tell has no next card; a table whose rules the catalog does not hold
    is left out (its replay reported that)."""
    read = ledger_patterns.patron_window(
        ledger, first, day, [Wager.BANKER.value, Wager.PLAYER.value], patrons
    )
    kept = np.flatnonzero(np.isin(read.rules_id, list(catalog)))
    ids, by_rules = np.unique(read.rules_id[kept], return_inverse=True)
    rules = [catalog[str(i)] for i in ids]
    wagers = {w.value: w for w in Wager}
    results = {r.value: r for r in Result}
    wager = np.array([wagers[w] for w in read.wager[kept]], object)
    player = wager == Wager.PLAYER
    win = np.array(
        [[float(win_probability(r, w)) for w in (Wager.BANKER, Wager.PLAYER)] for r in rules]
    ).reshape(len(rules), 2)
    decks = np.array([r.decks for r in rules], np.int64)[by_rules]
    next_card = np.full(len(kept), -1, np.int64)
    odds = np.full((len(kept), 10), np.nan)
    by_key = {s.key: s for s in shoes}
    dealt_from = pd.DataFrame(
        {
            "table": read.table_id[kept],
            "day": read.gaming_date[kept],
            "shoe": read.shoe_id[kept],
        }
    ).groupby(["table", "day", "shoe"], sort=False)
    for (table_id, when, shoe_id), at in dealt_from.indices.items():
        shoe = by_key.get((table_id, pd.Timestamp(when).date(), shoe_id))
        # the odds are exact only for a shoe of whole decks, as its rules declare them
        if shoe is None or shoe.cards_in_shoe != decks[at[0]] * CARDS_PER_DECK:
            continue
        shoe_odds, told = next_card_odds_of(
            int(decks[at[0]]), seen_before(shoe, read.position[kept[at]])
        )
        value = np.array([_RANK_VALUES.get(r, -1) for r in read.rank[kept[at]]], np.int64)
        told &= value >= 0
        next_card[at[told]] = value[told]
        odds[at[told]] = shoe_odds[told]
    return WindowRounds(
        table_id=read.table_id[kept],
        gaming_date=read.gaming_date[kept],
        round_id=read.round_id[kept],
        patron_id=read.patron_id[kept],
        seat=read.seat[kept],
        game=np.array([r.game for r in rules], object)[by_rules],
        decks=decks,
        wager=wager,
        stake_cents=read.stake_cents[kept],
        result=np.array([results[r] for r in read.expected_result[kept]], object),
        win_probability=win[by_rules, player.astype(np.intp)],
        next_card=next_card,
        next_card_odds=odds,
        event_ids=read.event_ids,
        event_starts=read.event_offsets[:-1][kept],
        event_ends=read.event_offsets[1:][kept],
    )


def recorded_requests(ledger: Ledger, first: date, day: date) -> list[RecordedRequest]:
    """Every request about the cards or the shoe recorded from ``first`` to ``day``, in the
    order made."""
    return [RecordedRequest(*row) for row in ledger_patterns.patron_requests(ledger, first, day)]


def dealt_seat_rounds(
    ledger: Ledger, first: date, day: date, erred_only: bool = False
) -> list[DealtSeatRound]:
    """Every seat with a patron in a round dealt from ``first`` to ``day``, with its dealer
    (with ``erred_only``, those whose money differs from what the rules give)."""
    return [
        DealtSeatRound(*row)
        for row in ledger_patterns.seat_rounds(ledger, first, day, erred_only=erred_only)
    ]


def pairs_of_window_before(
    ledger: Ledger, first: date, day: date, pairs: Sequence[PairCounts]
) -> list[PairCounts]:
    """The pairs counted of the window ending the day before ``day``, from those of the
    window from ``first`` to ``day``: ``day``'s counts and the day before ``first`` read, not
    the window again."""
    before = shifted(first, -1)
    day_before: list[PairCounts] = []
    if before < first:  # at the calendar's first date there is no day before the window
        day_before = [
            PairCounts(*row) for row in ledger_patterns.pair_counts(ledger, before, before)
        ]
    last_day = [PairCounts(*row) for row in ledger_patterns.carried_pair_counts(ledger, day, day)]
    return window_moved_back(pairs, last_day, day_before)


def carry_window(
    ledger: Ledger,
    first: date,
    day: date,
    shoes: Sequence[ShoeDeal],
    catalog: Mapping[str, TableRules],
) -> int:
    """Carry each gaming day from ``first`` to ``day`` whose rows changed since it was last
    carried (or that has rows and never was): its patrons' scored rounds
    (:class:`~pipeline.patterns.evidence.ScoredRounds`, from its own rows and shoes), its
    shoes as the slug search compares them (:func:`carried_window_shoes`) and its
    dealer-patron pairs counted, which the windows holding it read instead of its rows. A
    day loaded or replayed again (its deliveries or its table-days' derivation changed) is
    carried again; the other days carry what they carried, since a day's contribution
    depends on its own rows alone. Days before ``first`` are forgotten. ``shoes``: the shoes
    already read (:func:`shoes_of`) of the days they are dealt on; another day carried has
    its shoes read. The number of days carried."""
    rules = hashlib.sha256(repr(sorted((k, repr(v)) for k, v in catalog.items())).encode())
    states = ledger_patterns.day_states(ledger, first, day)
    stored = ledger_patterns.carried_inputs(ledger, first, day)
    read = {s.gaming_date for s in shoes}
    carried = 0
    when = first
    while when <= day:
        inputs = hashlib.sha256(
            f"{when}|{states.get(when, (0, 0, 0))}|{rules.hexdigest()}".encode()
        ).hexdigest()
        # a day without rows that carries nothing has nothing to carry (a property's first
        # week, a ledger of one day): each empty carry was a transaction of seven statements
        if (when in states or when in stored) and stored.get(when) != inputs:
            of_day = (
                [s for s in shoes if s.gaming_date == when]
                if when in read
                else shoes_of(ledger, when, when)
            )
            scored = scored_rounds(patron_rounds(ledger, when, when, of_day, catalog))
            ledger_patterns.carry_day(
                ledger, when, inputs, _carried_table(scored), _carried_shoes_table(of_day)
            )
            carried += 1
        if when == date.max:
            break
        when += timedelta(days=1)
    ledger_patterns.forget_carried_before(ledger, first)
    return carried


def _carried_table(
    scored: Mapping[str, tuple[npt.NDArray[np.intp], ScoredRounds]],
) -> pa.Table:
    """A day's scored rounds as rows of ``patron_day_rounds`` without the date."""
    patrons = sorted(scored)
    return pa.table(
        {
            "patron_id": pa.array(patrons, pa.string()),
            "stakes_cents": [scored[p][1].stake_cents.tolist() for p in patrons],
            "won": [scored[p][1].won.tolist() for p in patrons],
            "win_probability": [scored[p][1].win_probability.tolist() for p in patrons],
            "preview_steps": [scored[p][1].preview_step.tolist() for p in patrons],
        }
    )


def _carried_shoes_table(shoes: Sequence[ShoeDeal]) -> pa.Table:
    """A day's shoes as rows of ``carried_shoes`` without the date."""
    return pa.table(
        {
            "table_id": pa.array([s.table_id for s in shoes], pa.string()),
            "shoe_id": pa.array([s.shoe_id for s in shoes], pa.string()),
            "started_at": pa.array([s.started_at for s in shoes], pa.int64()),
            "cards_in_shoe": pa.array([s.cards_in_shoe for s in shoes], pa.int32()),
            "pit": pa.array([s.pit for s in shoes], pa.string()),
            "game": pa.array([s.game.value for s in shoes], pa.string()),
            "positions": pa.array([s.positions for s in shoes], pa.list_(pa.int64())),
            "faces": pa.array([s.faces for s in shoes], pa.list_(pa.int64())),
        }
    )


def carried_window_shoes(ledger: Ledger, first: date, last: date) -> list[ShoeDeal]:
    """The shoes the days from ``first`` to ``last`` carry (:func:`carry_window`), as
    :func:`shoes_of` reads them from their cards: the slug search of a day reads its
    window's shoes as numbers, not the window's card rows again."""
    read = ledger_patterns.carried_shoes(ledger, first, last)
    bounds = read.offsets.tolist()
    declarations = zip(
        read.table_id,
        read.gaming_date,
        read.shoe_id,
        read.started_at,
        read.cards_in_shoe,
        read.pit,
        read.game,
        strict=True,
    )
    return [
        declared_shoe(declaration, read.positions[start:end], read.faces[start:end])
        for declaration, start, end in zip(declarations, bounds[:-1], bounds[1:], strict=True)
    ]


def carried_scores(ledger: Ledger, first: date, day: date) -> dict[str, ScoredRounds]:
    """The scored rounds the days from ``first`` to ``day`` carry (:func:`carry_window`) of
    each patron with one on ``day``, the patron's days end to end."""
    read = ledger_patterns.carried_rounds(ledger, first, day)
    return {
        patron: ScoredRounds(
            read.stakes_cents[start:end],
            read.won[start:end],
            read.win_probability[start:end],
            read.preview_steps[start:end],
        )
        for patron, start, end in zip(
            read.patron_id, read.offsets[:-1].tolist(), read.offsets[1:].tolist(), strict=True
        )
    }


def evidence_findings(
    ledger: Ledger,
    first: date,
    day: date,
    shoes: Sequence[ShoeDeal],
    catalog: Mapping[str, TableRules],
    settings: PatternSettings,
    requests: Sequence[RecordedRequest],
) -> list[Finding]:
    """The card-preview and accumulated informed-betting alarms of ``day``
    (:func:`~pipeline.patterns.evidence.accumulated_evidence`): each patron's evidence is
    scored over the rounds the window's days carry, and only a patron whose evidence reaches
    the bar has the window's rows read, to be scored and cited as they are."""
    rate = settings.evidence_false_alarm_rate
    near = patrons_near_the_bar(carried_scores(ledger, first, day), rate)
    if not near:
        return []
    return accumulated_evidence(
        patron_rounds(ledger, first, day, shoes, catalog, near),
        day,
        rate,
        settings.window_days,
        requests,
    )


def shifted(day: date, days: int) -> date:
    """``day`` moved by ``days``, stopping at the first or last date there is: a gaming day
    at the calendar's end (dated by an event time no device could have sent) has a window
    and days after it like any other, cut short, never an ``OverflowError``."""
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return date.max if days > 0 else date.min


def days_to_search(ledger: Ledger, changed: Iterable[date], window_days: int) -> list[date]:
    """The open gaming days whose pattern exceptions rows of ``changed`` days feed: each
    changed day and the days whose window reaches back to it (a closed day stays as sealed)."""
    changed = sorted(set(changed))
    if not changed:
        return []
    closed = ledger.closed_days()
    held = ledger_patterns.days_with_deliveries(
        ledger, changed[0], shifted(changed[-1], window_days)
    )
    return sorted(
        d for d in held - closed if any(c <= d <= shifted(c, window_days) for c in changed)
    )


def slug_findings(
    ledger: Ledger,
    new: Sequence[ShoeDeal],
    earlier: Sequence[ShoeDeal],
    settings: PatternSettings,
    across_pits: bool = True,
) -> list[Finding]:
    """The exceptions of the slugs the shoes of ``new`` dealt from a shoe started before them
    (of ``earlier``, or of ``new``; of their own pits only unless ``across_pits``), each
    citing its cards and the wagers on its rounds."""
    rate = settings.slug_false_alarm_rate
    findings = []
    for slug in find_slugs(new, earlier, rate, across_pits):
        dealt = dealt_cards(ledger, slug.shoe, slug.positions.tolist())
        rounds = [c.round_id for c in dealt if c.round_id]
        findings.append(
            slug_finding(
                slug,
                dealt,
                dealt_cards(ledger, slug.earlier, slug.earlier_positions.tolist()),
                bets_on(ledger, slug.shoe.gaming_date, slug.shoe.table_id, rounds),
                rate,
            )
        )
    return findings


def pattern_inputs(ledger: Ledger, day: date, settings: PatternSettings) -> str:
    """A digest of what the stage reads to search ``day`` with ``settings``: the deliveries
    of the day and its window, when each of their table-days was last derived, and the
    settings. Any load or replay of a day of the window changes it."""
    rows = ledger_patterns.window_state(ledger, shifted(day, -settings.window_days), day)
    return hashlib.sha256(f"{day}|{rows}|{settings!r}".encode()).hexdigest()


def patterns_current(ledger: Ledger, day: date, settings: PatternSettings) -> bool:
    """Whether the stage has searched ``day`` with ``settings`` since the rows of its window
    last changed (:func:`pattern_inputs`)."""
    return ledger.pattern_run_inputs(day) == pattern_inputs(ledger, day, settings)


def find_patterns_if_changed(
    ledger: Ledger, day: date, settings: PatternSettings, catalog: Mapping[str, TableRules]
) -> PatternRun | None:
    """:func:`find_patterns` for ``day`` unless it already ran since the rows of its window
    last changed (a day replayed from files ran it after its replay; a streamed day's loads
    did not): what the close runs first. None: it was current."""
    if patterns_current(ledger, day, settings):
        return None
    return find_patterns(ledger, day, settings, catalog)


def shoes_ended(ledger: Ledger, deliveries: Iterable[Delivery]) -> list[tuple[str, date, str]]:
    """The ``(table_id, gaming_date, shoe_id)`` of each shoe ``deliveries`` (stored) end."""
    marks = [d for d in deliveries if d.event.payload_type in ("ShoeStarted", "ShoeEnded")]
    if not marks:
        return []
    return ledger_patterns.shoes_ended_by(
        ledger, [d.source for d in marks], [d.position for d in marks]
    )


@dataclass(frozen=True)
class SlugSearch:
    """What the search of the shoes that ended did (:func:`search_ended_shoes`)."""

    shoes: tuple[tuple[str, date, str], ...]
    findings: tuple[Finding, ...]


def search_ended_shoes(
    ledger: Ledger,
    ended: Sequence[tuple[str, date, str]],
    settings: PatternSettings,
    known: KnownShoes | None = None,
) -> SlugSearch:
    """Search the shoes that just ended (``(table_id, gaming_date, shoe_id)``) for slugs
    against the shoes of their pits dealt before them in the window, and replace those shoes'
    slug exceptions (the day's other pattern exceptions stay), with their notices; call
    inside the transaction that stored the shoes' last cards (the stream's batch). It reads
    the window's shoes of those pits only, so a batch costs its ended shoes, not the day. The
    day's full search (:func:`find_patterns`, at the latest by the close) searches every
    shoe again, against every pit's shoes as they ended (a slug carried across pits), and
    replaces these. ``known``: the cards of shoes an earlier batch read, kept."""
    closed = ledger.closed_days()
    by_day: dict[date, set[tuple[str, str]]] = defaultdict(set)
    for table_id, day, shoe_id in ended:
        if day not in closed:
            by_day[day].add((table_id, shoe_id))
    findings: list[Finding] = []
    for day, keys in sorted(by_day.items()):
        first = shifted(day, -settings.window_days)
        tables = {t for t, _ in keys}
        scope = tables | ledger_patterns.tables_in_pits_of(ledger, first, day, sorted(tables))
        shoes = shoes_of(ledger, first, day, scope, None if known is None else known.of(ledger))
        searched = {(s.table_id, s.shoe_id) for s in shoes if s.gaming_date == day} & keys
        new = [s for s in shoes if s.gaming_date == day and (s.table_id, s.shoe_id) in searched]
        earlier = [s for s in shoes if s not in new]
        found = slug_findings(ledger, new, earlier, settings, across_pits=False)
        ledger.replace_shoe_findings(day, sorted(keys), SLUG_CODES, found)
        record_notices(ledger, [(t, day) for t in sorted(tables)], codes=PATTERN_CODES)
        findings += found
    return SlugSearch(tuple(sorted(ended)), tuple(findings))


PATTERN_MEMORY = "256MB"
"""DuckDB's memory while the stage searches a day (:meth:`~pipeline.ledger.store.Ledger.
memory_held_to`): its queries join the window's settlements, rounds and dealers, and
DuckDB's default kept what they read. A 96-table day's search peaked at 799-817 MB without
it, at 540-545 MB with it (128 MB: 419-427 MB, but 8 % slower), in 14.6-16.8 s and
15.2-15.9 s."""


@batch_collection()
def find_patterns(
    ledger: Ledger, day: date, settings: PatternSettings, catalog: Mapping[str, TableRules]
) -> PatternRun:
    """Search ``day`` against itself and its window of earlier days and replace its pattern
    exceptions, in one transaction; ``catalog`` gives each table's rules by the ``rules_id``
    its day was played under (the informed-betting test's exact odds). Like a table-day's
    replay, it writes what the day's rows give: the same rows again for a day already closed,
    so the seal still holds."""
    with ledger.memory_held_to(PATTERN_MEMORY):
        return _search_day(ledger, day, settings, catalog)


def _search_day(
    ledger: Ledger, day: date, settings: PatternSettings, catalog: Mapping[str, TableRules]
) -> PatternRun:
    started = time.perf_counter()
    inputs = pattern_inputs(ledger, day, settings)
    first = shifted(day, -settings.window_days)
    new = shoes_of(ledger, day, day)
    carry_window(ledger, first, day, new, catalog)
    earlier = carried_window_shoes(ledger, first, shifted(day, -1)) if first < day else []
    shoes = [*earlier, *new]
    findings = slug_findings(ledger, new, earlier, settings)
    wagers_tested = 0

    def tables_scored() -> Iterator[tuple[list[SettledWager], dict[TableDay, TableRules]]]:
        nonlocal wagers_tested
        for wagers, rules in settled_wagers(ledger, day, catalog):
            wagers_tested += len(wagers)
            yield wagers, rules

    findings += informed_betting_of_tables(tables_scored(), settings.informed_false_alarm_rate)
    requests = recorded_requests(ledger, first, day)
    findings += evidence_findings(ledger, first, day, shoes, catalog, settings, requests)
    findings += turn_request_findings(requests, day)
    pairs = [PairCounts(*row) for row in ledger_patterns.carried_pair_counts(ledger, first, day)]
    findings += reported_pair_findings(
        pairs,
        lambda: dealt_seat_rounds(ledger, first, day, erred_only=True),
        day,
        lambda: pairs_of_window_before(ledger, first, day, pairs),
        settings.pairs_false_alarm_rate,
    )
    tables = (
        {s.table_id for s in new}
        | {f.table_id for f in findings}
        | ledger_patterns.tables_with_pattern_findings(ledger, day)
    )
    with ledger.transaction():
        ledger.replace_pattern_findings(day, findings)
        record_notices(ledger, [(t, day) for t in tables], codes=PATTERN_CODES)
        ledger.record_pattern_run(day, inputs)
    return PatternRun(
        day,
        settings.window_days,
        len(new),
        len(shoes),
        wagers_tested,
        sum(p.seat_rounds for p in pairs),
        tuple(findings),
        time.perf_counter() - started,
    )
