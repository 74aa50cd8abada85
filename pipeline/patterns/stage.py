"""The pattern stage: run the cross-day analysers over a gaming day and its window of earlier
days, and replace the day's pattern exceptions in the ledger.

It runs after the day's replays and before its close (the nightly flows, ``demo --plain``
and ``baccarat-audit replay``), and in the close itself for a day whose rows changed since
it last ran (:func:`find_patterns_if_changed`: a streamed day). The stream searches the
shoes each batch ends for slugs alone (:func:`search_ended_shoes`).

It reads what the replays derived (cards in shoe order, the shoes' declarations,
settlements, vigorish) for ``window_days`` earlier gaming days and the day itself, each
analyser's records in one query: false shuffles (:mod:`.slugs`) search the
day's shoes against the window's; informed betting (:mod:`.informed`) tests the day's
settled wagers; dealer-patron pairs (:mod:`.pairs`) test the window's seat-rounds. It writes
only the day's exceptions with a pattern code (:meth:`Ledger.replace_pattern_findings`)
in one transaction, with their notices for the ``audit-exceptions`` topic. Re-running it
gives the same rows; re-deriving a table-day keeps them (:mod:`pipeline.ledger.store`).
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np

from pipeline.config.catalog import Catalog
from pipeline.config.patterns import PatternSettings
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.columns import Delivery
from pipeline.ledger.notices import record_notices
from pipeline.ledger.store import Ledger
from pipeline.patterns import informed
from pipeline.patterns.informed import SettledWager, TableDay, informed_betting
from pipeline.patterns.pairs import DealtSeatRound, dealer_patron_pairs
from pipeline.patterns.slugs import (
    FACE_SQL,
    Bet,
    DealtCard,
    ShoeDeal,
    find_slugs,
    slug_finding,
)
from pipeline.replay.findings import Finding
from pipeline.rules.codes import PATTERN_CODES, code_for
from pipeline.rules.config import TableRules
from pipeline.rules.games import Game
from pipeline.rules.settlement import Result, Wager

_OF_TABLES = "($tables::VARCHAR[] IS NULL OR list_contains($tables::VARCHAR[], table_id))"
"""Only the rows of ``$tables`` (NULL: of every table)."""

SLUG_CODES = frozenset(code_for(game, "false_shuffle") for game in Game)
"""The codes of a slug, one per game (:func:`~pipeline.patterns.slugs.slug_finding`)."""

_SHOES = f"""
WITH started AS (
    SELECT table_id, gaming_date, json_extract_string(fields_json, '$.shoe_id') AS shoe_id,
           min(occurred_at) AS started_at,
           max(TRY_CAST(json_extract_string(fields_json, '$.cards_in_shoe') AS INTEGER))
               AS cards_in_shoe
    FROM deliveries
    WHERE payload_type = 'ShoeStarted' AND gaming_date BETWEEN $first AND $day AND {_OF_TABLES}
    GROUP BY ALL
)
SELECT s.table_id, s.gaming_date, s.shoe_id, s.started_at, s.cards_in_shoe, t.pit, t.game
FROM started s JOIN table_day_summary t USING (table_id, gaming_date)
WHERE s.shoe_id IS NOT NULL AND s.cards_in_shoe > 0
"""
"""Every shoe of the window that declared how many cards it held, with its table's pit and
game (a shoe whose ShoeStarted was lost cannot state its chance; its NJ-DATA-GAP says why)."""

_IN_WINDOW = (
    "gaming_date BETWEEN $first AND $day AND shoe_id IS NOT NULL AND position IS NOT NULL "
    f"AND {_OF_TABLES}"
)
_CARDS = f"""
SELECT dense_rank() OVER (ORDER BY table_id, gaming_date, shoe_id) - 1 AS shoe, position,
       -- a position recorded twice (a device that reported two cards at one position is an
       -- exception of its own) counts once
       min({FACE_SQL}) AS face
FROM cards WHERE {_IN_WINDOW}
GROUP BY table_id, gaming_date, shoe_id, position
ORDER BY shoe, position
"""
"""Every card of the window as numbers, shoe by shoe (numbered as :data:`_CARD_SHOES` lists
them) in shoe order."""
_CARD_SHOES = (
    f"SELECT DISTINCT table_id, gaming_date, shoe_id FROM cards WHERE {_IN_WINDOW} ORDER BY ALL"
)

_DEALT = """
SELECT position, arg_min(rank, source_event_id), arg_min(suit, source_event_id),
       arg_min(round_id, source_event_id), min(source_event_id)
FROM cards
WHERE table_id = ? AND gaming_date = ? AND shoe_id = ? AND list_contains(?, position)
GROUP BY position ORDER BY position
"""
"""A run's cards in full, to cite them."""

_BETS = """
SELECT round_id, seat, patron_id, wager, stake_cents, expected_result, expected_paid_cents
FROM settlements
WHERE gaming_date = $day AND table_id = $table AND list_contains($rounds::VARCHAR[], round_id)
ORDER BY round_id, seat, wager
"""

_SETTLED = """
SELECT s.table_id, s.round_id, s.patron_id, s.seat, s.wager, s.stake_cents, s.expected_result,
       s.source_event_ids, t.rules_id
FROM settlements s JOIN table_day_summary t USING (table_id, gaming_date)
WHERE s.gaming_date = $day AND s.patron_id IS NOT NULL AND s.expected_result IS NOT NULL
      AND list_contains($wagers::VARCHAR[], s.wager)
ORDER BY s.table_id, s.round_id, s.seat, s.wager
"""
"""The day's settled wagers with a patron, of the wagers the informed-betting test scores,
with the result the cards gave them and the rules their table played."""

_SEAT_ROUNDS = """
WITH seat_rounds AS (
    SELECT table_id, gaming_date, round_id, seat, min(patron_id) AS patron_id,
           sum(expected_paid_cents - expected_vig_cents) AS expected_cents,
           -- a wager never settled is a finding of its own, not money moved
           sum(coalesce(recorded_paid_cents, expected_paid_cents)) AS paid_cents,
           sum(expected_vig_cents) AS vig_due_cents,
           flatten(list(source_event_ids) FILTER (
               WHERE recorded_paid_cents <> expected_paid_cents)) AS wrong_paid
    FROM settlements
    WHERE gaming_date BETWEEN $first AND $day AND patron_id IS NOT NULL
    GROUP BY table_id, gaming_date, round_id, seat
), charged AS (
    SELECT table_id, gaming_date, round_id, seat, sum(amount_cents) AS vig_cents,
           list(source_event_id ORDER BY source_event_id) AS vig_events
    FROM vig_ledger
    WHERE gaming_date BETWEEN $first AND $day AND round_id IS NOT NULL
          AND kind IN ('COLLECTED', 'DEFERRED')
    GROUP BY ALL
), changes AS (
    -- RoundStarted names the dealer only when the dealer changed
    SELECT table_id, gaming_date, json_extract_string(fields_json, '$.round_id') AS round_id,
           max(json_extract_string(fields_json, '$.dealer_id')) AS dealer_id
    FROM deliveries
    WHERE payload_type = 'RoundStarted' AND gaming_date BETWEEN $first AND $day
    GROUP BY ALL
), dealers AS (
    SELECT r.table_id, r.gaming_date, r.round_id,
           coalesce(last_value(c.dealer_id IGNORE NULLS) OVER (
                        PARTITION BY r.table_id, r.gaming_date ORDER BY r.started_at, r.round_id
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
                    t.dealer_id) AS dealer_id
    FROM rounds r
    JOIN table_day_summary t USING (table_id, gaming_date)
    LEFT JOIN changes c USING (table_id, gaming_date, round_id)
    WHERE r.gaming_date BETWEEN $first AND $day
)
SELECT s.table_id, s.gaming_date, s.round_id, s.seat, d.dealer_id, s.patron_id,
       s.expected_cents, s.paid_cents - coalesce(v.vig_cents, 0) AS actual_cents,
       list_sort(list_distinct(list_concat(
           coalesce(s.wrong_paid, []),
           CASE WHEN coalesce(v.vig_cents, 0) <> s.vig_due_cents THEN v.vig_events END
       ))) AS event_ids
FROM seat_rounds s
JOIN dealers d USING (table_id, gaming_date, round_id)
LEFT JOIN charged v USING (table_id, gaming_date, round_id, seat)
WHERE d.dealer_id IS NOT NULL
ORDER BY s.gaming_date, s.table_id, s.round_id, s.seat
"""
"""One record per seat with a patron in a round of the window, with its dealer (carried
forward from the table's opening dealer) and the money the rules give against the money moved
(:mod:`pipeline.patterns.pairs` says which columns and why)."""


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
            f"shoes of their pits dealt before them, {self.shoes_in_window} shoes in a window "
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
    ledger: Ledger, first: date, day: date, tables: Iterable[str] | None = None
) -> list[ShoeDeal]:
    """Every shoe dealt from ``first`` to ``day`` (of ``tables``; None: of every table), with
    its cards in shoe order."""
    window = {"first": first, "day": day, "tables": None if tables is None else sorted(tables)}
    cards = ledger.con.execute(_CARDS, window).fetchnumpy()
    shoe = np.asarray(cards["shoe"], np.int64)
    positions = np.asarray(cards["position"], np.int64)
    faces = np.asarray(cards["face"], np.int64)
    ends = np.searchsorted(shoe, np.arange(shoe[-1] + 2 if len(shoe) else 1))
    # a device may number its shoes afresh every day: a shoe is its table, day and id
    spans = {
        (str(t), d, str(s)): (int(ends[n]), int(ends[n + 1]))
        for n, (t, d, s) in enumerate(ledger.con.execute(_CARD_SHOES, window).fetchall())
    }
    shoes = []
    for table_id, gaming_date, shoe_id, started_at, cards_in_shoe, pit, game in ledger.con.execute(
        _SHOES, window
    ).fetchall():
        span = spans.get((table_id, gaming_date, shoe_id))
        if span is None:
            continue
        shoes.append(
            ShoeDeal(
                table_id=table_id,
                pit=pit,
                game=Game(game),
                shoe_id=shoe_id,
                gaming_date=gaming_date,
                started_at=int(started_at),
                cards_in_shoe=int(cards_in_shoe),
                positions=positions[span[0] : span[1]],
                faces=faces[span[0] : span[1]],
            )
        )
    return shoes


def dealt_cards(ledger: Ledger, shoe: ShoeDeal, positions: Sequence[int]) -> list[DealtCard]:
    """The cards of ``shoe`` at ``positions`` in full: rank, suit, round and event."""
    rows = ledger.con.execute(
        _DEALT, [shoe.table_id, shoe.gaming_date, shoe.shoe_id, list(positions)]
    ).fetchall()
    return [
        DealtCard(int(p), rank, suit, round_id, event) for p, rank, suit, round_id, event in rows
    ]


def bets_on(
    ledger: Ledger, day: date, table_id: str, rounds: Sequence[str]
) -> dict[str, list[Bet]]:
    """The settled wagers of these rounds of ``table_id`` on ``day``, by round."""
    bets: dict[str, list[Bet]] = defaultdict(list)
    if rounds:
        for row in ledger.con.execute(
            _BETS, {"day": day, "table": table_id, "rounds": sorted(set(rounds))}
        ).fetchall():
            bets[row[0]].append(
                Bet(row[0], int(row[1]), row[2], row[3], int(row[4]), row[5], int(row[6]))
            )
    return bets


def settled_wagers(
    ledger: Ledger, day: date, catalog: Mapping[str, TableRules]
) -> tuple[list[SettledWager], dict[TableDay, TableRules]]:
    """The day's settled wagers the informed-betting test scores, and the rules of their
    tables. A table whose rules the catalog does not hold (its replay reported that) has no
    exact odds to test against and is left out."""
    wagers: list[SettledWager] = []
    rules: dict[TableDay, TableRules] = {}
    for (
        table_id,
        round_id,
        patron,
        seat,
        wager,
        stake,
        result,
        events,
        rules_id,
    ) in ledger.con.execute(
        _SETTLED, {"day": day, "wagers": sorted(w.value for w in informed.TESTS)}
    ).fetchall():
        if rules_id not in catalog:
            continue
        rules[table_id, day] = catalog[rules_id]
        wagers.append(
            SettledWager(
                table_id,
                day,
                round_id,
                patron,
                int(seat),
                Wager(wager),
                int(stake),
                Result(result),
                tuple(events or ()),
            )
        )
    return wagers, rules


def dealt_seat_rounds(ledger: Ledger, first: date, day: date) -> list[DealtSeatRound]:
    """Every seat with a patron in a round dealt from ``first`` to ``day``, with its dealer."""
    return [
        DealtSeatRound(
            table_id,
            gaming_date,
            round_id,
            int(seat),
            dealer,
            patron,
            int(expected),
            int(actual),
            tuple(events or ()),
        )
        for table_id, gaming_date, round_id, seat, dealer, patron, expected, actual, events in (
            ledger.con.execute(_SEAT_ROUNDS, {"first": first, "day": day}).fetchall()
        )
    ]


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
    held = {
        d
        for (d,) in ledger.con.execute(
            "SELECT DISTINCT gaming_date FROM deliveries WHERE gaming_date BETWEEN ? AND ?",
            [changed[0], shifted(changed[-1], window_days)],
        ).fetchall()
    }
    return sorted(
        d for d in held - closed if any(c <= d <= shifted(c, window_days) for c in changed)
    )


def slug_findings(
    ledger: Ledger, new: Sequence[ShoeDeal], earlier: Sequence[ShoeDeal], settings: PatternSettings
) -> list[Finding]:
    """The exceptions of the slugs the shoes of ``new`` dealt from a shoe started before them
    (of ``earlier``, or of ``new``), each citing its cards and the wagers on its rounds."""
    rate = settings.slug_false_alarm_rate
    findings = []
    for slug in find_slugs(new, earlier, rate):
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


_INPUTS = """
SELECT count(*), coalesce(sum(hash(table_id, gaming_date, replayed_at)), 0),
       (SELECT count(*) FROM deliveries WHERE gaming_date BETWEEN $first AND $day)
FROM table_day_summary WHERE gaming_date BETWEEN $first AND $day
"""
"""What the stage's reads of a window depend on: its deliveries, and when each of its
table-days was last derived from them (every load of a table-day derives it again)."""


def pattern_inputs(ledger: Ledger, day: date, settings: PatternSettings) -> str:
    """A digest of what the stage reads to search ``day`` with ``settings``: the deliveries
    of the day and its window, when each of their table-days was last derived, and the
    settings. Any load or replay of a day of the window changes it."""
    window = {"first": shifted(day, -settings.window_days), "day": day}
    rows = ledger.con.execute(_INPUTS, window).fetchone()
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


_ENDED = """
WITH batch AS (
    SELECT unnest($sources::VARCHAR[]) AS source, unnest($positions::BIGINT[]) AS position
), marks AS (
    SELECT d.table_id, d.gaming_date, d.payload_type, d.occurred_at,
           json_extract_string(d.fields_json, '$.shoe_id') AS shoe_id
    FROM deliveries d SEMI JOIN batch b ON d.source = b.source AND d.position = b.position
    WHERE d.payload_type IN ('ShoeStarted', 'ShoeEnded')
), started AS (
    SELECT table_id, gaming_date, json_extract_string(fields_json, '$.shoe_id') AS shoe_id,
           min(occurred_at) AS started_at
    FROM deliveries SEMI JOIN marks USING (table_id, gaming_date)
    WHERE payload_type = 'ShoeStarted'
    GROUP BY ALL
), ended AS (
    SELECT DISTINCT table_id, gaming_date, json_extract_string(fields_json, '$.shoe_id') AS shoe_id
    FROM deliveries SEMI JOIN marks USING (table_id, gaming_date)
    WHERE payload_type = 'ShoeEnded'
)
SELECT table_id, gaming_date, shoe_id FROM marks
WHERE payload_type = 'ShoeEnded' AND shoe_id IS NOT NULL
UNION
-- a new shoe without a ShoeEnded for the one before: that one ended all the same
SELECT p.table_id, p.gaming_date, p.shoe_id
FROM (
    SELECT m.table_id, m.gaming_date, arg_max(s.shoe_id, s.started_at) AS shoe_id
    FROM marks m JOIN started s
         ON s.table_id = m.table_id AND s.gaming_date = m.gaming_date
            AND s.started_at < m.occurred_at AND s.shoe_id IS DISTINCT FROM m.shoe_id
    WHERE m.payload_type = 'ShoeStarted'
    GROUP BY m.table_id, m.gaming_date, m.shoe_id
) p ANTI JOIN ended e USING (table_id, gaming_date, shoe_id)
WHERE p.shoe_id IS NOT NULL
ORDER BY ALL
"""
"""The shoes that ended with deliveries ``$sources`` / ``$positions``: the shoe of each
ShoeEnded, and the shoe before each ShoeStarted of its table-day that had no ShoeEnded."""


def shoes_ended(ledger: Ledger, deliveries: Iterable[Delivery]) -> list[tuple[str, date, str]]:
    """The ``(table_id, gaming_date, shoe_id)`` of each shoe ``deliveries`` (stored) end."""
    marks = [d for d in deliveries if d.event.payload_type in ("ShoeStarted", "ShoeEnded")]
    if not marks:
        return []
    rows = ledger.con.execute(
        _ENDED,
        {"sources": [d.source for d in marks], "positions": [d.position for d in marks]},
    ).fetchall()
    return [(str(t), d, str(s)) for t, d, s in rows]


_SCOPE = """
SELECT DISTINCT o.table_id
FROM table_day_summary t JOIN table_day_summary o
     ON o.pit = t.pit AND o.gaming_date BETWEEN $first AND $day
WHERE t.gaming_date = $day AND list_contains($tables::VARCHAR[], t.table_id)
"""
"""The tables of the window in the pits of ``$tables`` on ``$day``."""


@dataclass(frozen=True)
class SlugSearch:
    """What the search of the shoes that ended did (:func:`search_ended_shoes`)."""

    shoes: tuple[tuple[str, date, str], ...]
    findings: tuple[Finding, ...]


def search_ended_shoes(
    ledger: Ledger, ended: Sequence[tuple[str, date, str]], settings: PatternSettings
) -> SlugSearch:
    """Search the shoes that just ended (``(table_id, gaming_date, shoe_id)``) for slugs
    against the shoes of their pits dealt before them in the window, and replace those shoes'
    slug exceptions (the day's other pattern exceptions stay), with their notices; call
    inside the transaction that stored the shoes' last cards (the stream's batch). It reads
    the window's shoes of those pits only, so a batch costs its ended shoes, not the day. The
    day's full search (:func:`find_patterns`, at the latest by the close) searches every
    shoe again, against the other shoes as they ended, and replaces these."""
    closed = ledger.closed_days()
    by_day: dict[date, set[tuple[str, str]]] = defaultdict(set)
    for table_id, day, shoe_id in ended:
        if day not in closed:
            by_day[day].add((table_id, shoe_id))
    findings: list[Finding] = []
    for day, keys in sorted(by_day.items()):
        first = shifted(day, -settings.window_days)
        tables = {t for t, _ in keys}
        scope = tables | {
            str(t)
            for (t,) in ledger.con.execute(
                _SCOPE, {"first": first, "day": day, "tables": sorted(tables)}
            ).fetchall()
        }
        shoes = shoes_of(ledger, first, day, scope)
        searched = {(s.table_id, s.shoe_id) for s in shoes if s.gaming_date == day} & keys
        new = [s for s in shoes if s.gaming_date == day and (s.table_id, s.shoe_id) in searched]
        earlier = [s for s in shoes if s not in new]
        found = slug_findings(ledger, new, earlier, settings)
        ledger.replace_shoe_findings(day, sorted(keys), SLUG_CODES, found)
        record_notices(ledger, [(t, day) for t in sorted(tables)], codes=PATTERN_CODES)
        findings += found
    return SlugSearch(tuple(sorted(ended)), tuple(findings))


def find_patterns(
    ledger: Ledger, day: date, settings: PatternSettings, catalog: Mapping[str, TableRules]
) -> PatternRun:
    """Search ``day`` against itself and its window of earlier days and replace its pattern
    exceptions, in one transaction; ``catalog`` gives each table's rules by the ``rules_id``
    its day was played under (the informed-betting test's exact odds). Like a table-day's
    replay, it writes what the day's rows give: the same rows again for a day already closed,
    so the seal still holds."""
    started = time.perf_counter()
    inputs = pattern_inputs(ledger, day, settings)
    first = shifted(day, -settings.window_days)
    shoes = shoes_of(ledger, first, day)
    new = [s for s in shoes if s.gaming_date == day]
    findings = slug_findings(ledger, new, [s for s in shoes if s.gaming_date != day], settings)
    wagers, rules = settled_wagers(ledger, day, catalog)
    findings += informed_betting(wagers, rules, settings.informed_false_alarm_rate)
    seat_rounds = dealt_seat_rounds(ledger, first, day)
    # A pair is tested over the whole window but reported on the days its errors happen: a
    # window that only reaches back to them said so on their own day.
    erred_today = {i for r in seat_rounds if r.gaming_date == day and r.erred for i in r.event_ids}
    findings += [
        f
        for f in dealer_patron_pairs(seat_rounds, settings.pairs_false_alarm_rate)
        if erred_today.intersection(f.event_ids)
    ]
    tables = {s.table_id for s in new} | ledger_exceptions.tables_with_codes(
        ledger.con, day, sorted(PATTERN_CODES)
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
        len(wagers),
        len(seat_rounds),
        tuple(findings),
        time.perf_counter() - started,
    )
