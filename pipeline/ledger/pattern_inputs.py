"""What the pattern stage reads from the ledger: the window's shoes and their cards as
numbers, a slug's cards and the wagers on its rounds, the day's settled wagers, the window's
seat-rounds with their dealers, and what tells the stage its last search is out of date.

Each analyser's records are one query over ``window_days`` earlier gaming days and the day
itself (:mod:`pipeline.patterns.stage` composes them into the analysers' records and judges
nothing here): false shuffles (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a)) read the shoes and
cards, informed betting the settled wagers, dealer-patron pairs (N.J.A.C. 19:47-3.3,
3.10(b); 4.10; 7.3) the seat-rounds, and card preview the patrons' requests to turn cards or
to keep or change the shoe (3.5(a), 3.6(a)). What each gaming day carries to the windows
holding it (its patrons' scored rounds, its dealer-patron pairs counted, and a digest of what
they were derived from: ``patron_day_rounds``, ``pair_day_counts``, ``carried_days``; and
its shoes as the slug search compares them, ``carried_shoes``) is
written and read here too. Rows come back as plain tuples in the order each question's
docstring gives.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, date, datetime
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.columns import arrow_schema
from pipeline.ledger.store import Ledger
from pipeline.rules.cards import RANKS, SUITS
from pipeline.rules.codes import PATTERN_CODES

_RANK_NAMES = [rank.name for rank in RANKS]
_SUIT_NAMES = [suit.name for suit in SUITS]

FACE_SQL = (
    f"CASE WHEN list_position({_RANK_NAMES}, rank) IS NULL "
    f"OR list_position({_SUIT_NAMES}, suit) IS NULL THEN -1 "
    f"ELSE (list_position({_RANK_NAMES}, rank) - 1) * {len(_SUIT_NAMES)} "
    f"+ list_position({_SUIT_NAMES}, suit) - 1 END"
)
""":func:`pipeline.patterns.slugs.face` over the ledger's ``cards`` columns, to read faces as
numbers (0-51, -1 for a card nobody can name)."""

_OF_TABLES = "($tables::VARCHAR[] IS NULL OR list_contains($tables::VARCHAR[], table_id))"
"""Only the rows of ``$tables`` (NULL: of every table)."""

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

_OF_SHOES = (
    "AND (table_id, gaming_date, shoe_id) IN (SELECT unnest($shoe_tables::VARCHAR[]), "
    "unnest($shoe_dates::DATE[]), unnest($shoe_ids::VARCHAR[]))"
)
"""Only the rows of the shoes ``($shoe_tables[i], $shoe_dates[i], $shoe_ids[i])``."""

_IN_WINDOW = (
    "gaming_date BETWEEN $first AND $day AND shoe_id IS NOT NULL AND position IS NOT NULL "
    f"AND {_OF_TABLES} {{of_shoes}}"
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
them) in shoe order; ``{of_shoes}``: nothing, or :data:`_OF_SHOES`."""
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

_BETS = """
SELECT round_id, seat, patron_id, wager, stake_cents, expected_result, expected_paid_cents
FROM settlements
WHERE gaming_date = $day AND table_id = $table AND list_contains($rounds::VARCHAR[], round_id)
ORDER BY round_id, seat, wager
"""

_SETTLED = """
SELECT s.table_id, s.round_id, s.patron_id, s.seat, s.wager, s.stake_cents, s.expected_result,
       s.source_event_ids, t.rules_id, coalesce(r.started_at, 0) AS started_at
FROM settlements s JOIN table_day_summary t USING (table_id, gaming_date)
LEFT JOIN rounds r USING (table_id, gaming_date, round_id)
WHERE s.gaming_date = $day AND s.patron_id IS NOT NULL AND s.expected_result IS NOT NULL
      AND list_contains($wagers::VARCHAR[], s.wager)
ORDER BY s.table_id, s.round_id, s.seat, s.wager
"""

_PATRON_WINDOW = """
WITH today AS (
    SELECT DISTINCT patron_id FROM settlements
    WHERE gaming_date = $day AND patron_id IS NOT NULL
          AND list_contains($wagers::VARCHAR[], wager) AND expected_result IN ('WIN', 'LOSE')
          AND ($patrons::VARCHAR[] IS NULL OR list_contains($patrons::VARCHAR[], patron_id))
), first_cards AS (
    -- the round's first card: the one the shoe dealt next when its wagers closed
    SELECT table_id, gaming_date, round_id, shoe_id, min(position) AS position,
           arg_min(rank, position) AS rank
    FROM cards
    WHERE gaming_date BETWEEN $first AND $day AND round_id IS NOT NULL AND position IS NOT NULL
    GROUP BY ALL
)
SELECT s.table_id, s.gaming_date, s.round_id, s.patron_id, s.seat, s.wager, s.stake_cents,
       s.expected_result, coalesce(s.source_event_ids, []) AS source_event_ids, t.rules_id,
       f.shoe_id, coalesce(f.position, -1) AS position, f.rank
FROM settlements s
JOIN today USING (patron_id)
JOIN table_day_summary t USING (table_id, gaming_date)
LEFT JOIN rounds r USING (table_id, gaming_date, round_id)
LEFT JOIN first_cards f USING (table_id, gaming_date, round_id)
WHERE s.gaming_date BETWEEN $first AND $day
      AND list_contains($wagers::VARCHAR[], s.wager) AND s.expected_result IN ('WIN', 'LOSE')
ORDER BY s.gaming_date, r.started_at, s.table_id, s.round_id, s.seat, s.wager
"""

_DEALT_SEAT_ROUNDS = """
WITH moved AS (
    -- what settling each wager moves to the patron, due and recorded, vigorish aside: the
    -- payout less the stake of a losing wager (pipeline.rules.settlement.moved_to_patron),
    -- so a losing stake returned counts as the money it is
    SELECT *,
           expected_paid_cents - CASE WHEN expected_result = 'LOSE' THEN stake_cents ELSE 0 END
               AS due_cents,
           recorded_paid_cents - CASE WHEN recorded_result = 'LOSE' THEN stake_cents ELSE 0 END
               AS recorded_cents
    FROM settlements
    WHERE gaming_date BETWEEN $first AND $day AND patron_id IS NOT NULL
), seat_rounds AS (
    SELECT table_id, gaming_date, round_id, seat, min(patron_id) AS patron_id,
           sum(due_cents - expected_vig_cents) AS expected_cents,
           -- a wager never settled is a finding of its own, not money moved
           sum(coalesce(recorded_cents, due_cents)) AS paid_cents,
           sum(expected_vig_cents) AS vig_due_cents,
           flatten(list(source_event_ids) FILTER (WHERE recorded_cents <> due_cents))
               AS wrong_paid
    FROM moved
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
), dealt AS (
    SELECT s.*, d.dealer_id, s.paid_cents - coalesce(v.vig_cents, 0) AS actual_cents,
           v.vig_cents, v.vig_events
    FROM seat_rounds s
    JOIN dealers d USING (table_id, gaming_date, round_id)
    LEFT JOIN charged v USING (table_id, gaming_date, round_id, seat)
    WHERE d.dealer_id IS NOT NULL
)
"""

_SEAT_ROUNDS = (
    _DEALT_SEAT_ROUNDS
    + """
SELECT table_id, gaming_date, round_id, seat, dealer_id, patron_id, expected_cents,
       actual_cents,
       list_sort(list_distinct(list_concat(
           coalesce(wrong_paid, []),
           CASE WHEN coalesce(vig_cents, 0) <> vig_due_cents THEN vig_events END
       ))) AS event_ids
FROM dealt
WHERE $erred_only = false OR actual_cents <> expected_cents
ORDER BY gaming_date, table_id, round_id, seat
"""
)

_PAIR_COUNTS = (
    _DEALT_SEAT_ROUNDS
    + """
SELECT dealer_id, patron_id, count(*) AS seat_rounds,
       count(*) FILTER (WHERE actual_cents <> expected_cents) AS erred,
       count(*) FILTER (WHERE actual_cents > expected_cents) AS in_patron_favour
FROM dealt
GROUP BY dealer_id, patron_id
ORDER BY dealer_id, patron_id
"""
)

_REQUESTS = """
WITH requests AS (
    SELECT event_id, table_id, gaming_date, min(occurred_at) AS occurred_at,
           -- copies of one event id that say different things are an NJ-DATA-CONFLICT of
           -- their own, applied nowhere: such a request is read from neither
           min(fields_json) AS fields_json, count(DISTINCT fields_json) AS versions
    FROM deliveries
    WHERE payload_type = 'PatronRequest' AND gaming_date BETWEEN $first AND $day
    GROUP BY event_id, table_id, gaming_date
)
SELECT table_id, gaming_date, event_id, occurred_at,
       TRY_CAST(json_extract_string(fields_json, '$.seat') AS INTEGER) AS seat,
       json_extract_string(fields_json, '$.patron_id') AS patron_id,
       json_extract_string(fields_json, '$.round_id') AS round_id,
       json_extract_string(fields_json, '$.request') AS request,
       json_extract_string(fields_json, '$.detail') AS detail,
       TRY_CAST(json_extract(fields_json, '$.granted') AS BOOLEAN) AS granted
FROM requests
WHERE versions = 1
ORDER BY gaming_date, table_id, occurred_at, event_id
"""

_INPUTS = """
SELECT count(*), coalesce(sum(hash(table_id, gaming_date, replayed_at)), 0),
       (SELECT count(*) FROM deliveries WHERE gaming_date BETWEEN $first AND $day)
FROM table_day_summary WHERE gaming_date BETWEEN $first AND $day
"""

_ENDED = """
WITH batch AS (
    SELECT unnest($sources::VARCHAR[]) AS source, unnest($positions::BIGINT[]) AS position
), marks AS (
    SELECT d.table_id, d.gaming_date, d.payload_type, d.occurred_at,
           json_extract_string(d.fields_json, '$.shoe_id') AS shoe_id
    FROM deliveries d SEMI JOIN batch b ON d.source = b.source AND d.position = b.position
    WHERE d.payload_type IN ('ShoeStarted', 'ShoeEnded')
      -- the batch's span of positions lets zone maps skip the day's other deliveries
      AND d.position BETWEEN list_min($positions::BIGINT[]) AND list_max($positions::BIGINT[])
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

_SCOPE = """
SELECT DISTINCT o.table_id
FROM table_day_summary t JOIN table_day_summary o
     ON o.pit = t.pit AND o.gaming_date BETWEEN $first AND $day
WHERE t.gaming_date = $day AND list_contains($tables::VARCHAR[], t.table_id)
"""


def _window(first: date, day: date, tables: Iterable[str] | None) -> dict[str, Any]:
    return {"first": first, "day": day, "tables": None if tables is None else sorted(tables)}


# ---------------------------------------------------------------------- false shuffles
class WindowCards(NamedTuple):
    """Every card of a window as numbers: positions and faces (:data:`FACE_SQL`) of all its
    shoes end to end in shoe order, and where each shoe's run of them starts and ends."""

    positions: npt.NDArray[np.int64]
    faces: npt.NDArray[np.int64]
    spans: dict[tuple[str, date, str], tuple[int, int]]
    """``(table_id, gaming_date, shoe_id)``: a device may number its shoes afresh every day,
    so a shoe is its table, day and id."""


def window_cards(
    ledger: Ledger,
    first: date,
    day: date,
    tables: Iterable[str] | None = None,
    shoes: Sequence[tuple[str, date, str]] | None = None,
) -> WindowCards:
    """The cards dealt from ``first`` to ``day`` (of ``tables``; None: of every table; and of
    ``shoes``, ``(table_id, gaming_date, shoe_id)``; None: of every shoe), as numbers, shoe
    by shoe in shoe order."""
    window = _window(first, day, tables)
    # the shoes as a condition of their own: an "all shoes" alternative in the same
    # condition would keep it from narrowing the scan
    of_shoes = ""
    if shoes is not None:
        of_shoes = _OF_SHOES
        window["shoe_tables"] = [t for t, _, _ in shoes]
        window["shoe_dates"] = [d for _, d, _ in shoes]
        window["shoe_ids"] = [s for _, _, s in shoes]
    cards = ledger.con.execute(_CARDS.format(of_shoes=of_shoes), window).fetchnumpy()
    shoe = np.asarray(cards["shoe"], np.int64)
    ends = np.searchsorted(shoe, np.arange(shoe[-1] + 2 if len(shoe) else 1))
    spans = {
        (str(t), d, str(s)): (int(ends[n]), int(ends[n + 1]))
        for n, (t, d, s) in enumerate(
            ledger.con.execute(_CARD_SHOES.format(of_shoes=of_shoes), window).fetchall()
        )
    }
    return WindowCards(
        np.asarray(cards["position"], np.int64), np.asarray(cards["face"], np.int64), spans
    )


def declared_shoes(
    ledger: Ledger, first: date, day: date, tables: Iterable[str] | None = None
) -> list[tuple[str, date, str, int, int, str, str]]:
    """Every shoe of the window that declared how many cards it held: ``(table_id,
    gaming_date, shoe_id, started_at, cards_in_shoe, pit, game)``. A shoe whose ShoeStarted
    was lost cannot state its chance; its NJ-DATA-GAP says why."""
    return [
        (str(t), d, str(s), int(started), int(held), str(pit), str(game))
        for t, d, s, started, held, pit, game in ledger.con.execute(
            _SHOES, _window(first, day, tables)
        ).fetchall()
    ]


def cards_at(
    ledger: Ledger, table_id: str, gaming_date: date, shoe_id: str, positions: Sequence[int]
) -> list[tuple[int, str, str, str | None, str]]:
    """A shoe's cards at ``positions`` in full, to cite them: ``(position, rank, suit,
    round_id, event_id)`` (round None: burned)."""
    return [
        (int(p), rank, suit, round_id, event)
        for p, rank, suit, round_id, event in ledger.con.execute(
            _DEALT, [table_id, gaming_date, shoe_id, list(positions)]
        ).fetchall()
    ]


def bets_of_rounds(
    ledger: Ledger, day: date, table_id: str, rounds: Sequence[str]
) -> list[tuple[str, int, str | None, str, int, str, int]]:
    """The settled wagers of these rounds of ``table_id`` on ``day``: ``(round_id, seat,
    patron_id, wager, stake_cents, expected_result, expected_paid_cents)``."""
    return [
        (r[0], int(r[1]), r[2], r[3], int(r[4]), r[5], int(r[6]))
        for r in ledger.con.execute(
            _BETS, {"day": day, "table": table_id, "rounds": sorted(set(rounds))}
        ).fetchall()
    ]


def shoes_ended_by(
    ledger: Ledger, sources: Sequence[str], positions: Sequence[int]
) -> list[tuple[str, date, str]]:
    """The ``(table_id, gaming_date, shoe_id)`` of the shoes the stored deliveries at
    ``sources`` / ``positions`` ended: the shoe of each ShoeEnded, and the shoe before each
    ShoeStarted of its table-day that had no ShoeEnded."""
    rows = ledger.con.execute(
        _ENDED, {"sources": list(sources), "positions": list(positions)}
    ).fetchall()
    return [(str(t), d, str(s)) for t, d, s in rows]


def tables_in_pits_of(ledger: Ledger, first: date, day: date, tables: Sequence[str]) -> set[str]:
    """The tables of the window from ``first`` to ``day`` in the pits of ``tables`` on
    ``day``."""
    return {
        str(t)
        for (t,) in ledger.con.execute(
            _SCOPE, {"first": first, "day": day, "tables": sorted(tables)}
        ).fetchall()
    }


# ---------------------------------------------------------------------- informed betting
ScoredWager = tuple[str, str, str, int, str, int, str, tuple[str, ...], str, int]
"""A row of :func:`scored_wagers_by_table`: ``(table_id, round_id, patron_id, seat, wager,
stake_cents, expected_result, source_event_ids, rules_id, started_at)``."""

SCORED_BATCH_ROWS = 8_192
"""Scored wagers read from the ledger at a time (:func:`scored_wagers_by_table`), each
batch's columns turned into Python objects at once: 65,536 rows at a time added 60 MB to a
24-table day's search."""


def scored_wagers_by_table(
    ledger: Ledger, day: date, wagers: Sequence[str]
) -> Iterator[list[ScoredWager]]:
    """The day's settled wagers with a patron, of ``wagers``, with the result the cards gave
    them, the rules their table played and when their round started (:data:`ScoredWager`),
    one table's at a time in table order: a day's are 300,000 at 24 tables, and held all at
    once as rows they raised the pattern stage's peak by 300 MB (by 1.2 GB at 96 tables).
    The ledger's connection runs nothing else until the last table's are read."""
    params = {"day": day, "wagers": sorted(wagers)}
    # read through Arrow as columns: a day's rows as DuckDB's tuples cost more than the query
    with ledger.con.sql(_SETTLED, params=params).to_arrow_reader(SCORED_BATCH_ROWS) as batches:
        table: list[ScoredWager] = []
        for batch in batches:
            for t, r, p, seat, w, stake, result, events, rules_id, at in zip(
                *(column.to_pylist() for column in batch.columns), strict=True
            ):
                if table and table[0][0] != t:
                    yield table
                    table = []
                table.append(
                    (
                        t,
                        r,
                        p,
                        int(seat),
                        w,
                        int(stake),
                        result,
                        tuple(events or ()),
                        rules_id,
                        int(at),
                    )
                )
        if table:
            yield table


class PatronWindow(NamedTuple):
    """The decided wagers of :func:`patron_window` as columns, row by row in the order dealt
    (a window holds hundreds of thousands): text columns are object arrays, ``gaming_date``
    is ``datetime64[D]``, ``position`` is -1 and ``shoe_id`` and ``rank`` None for a round
    whose cards the ledger lacks. Row ``i``'s source events are
    ``event_ids[event_offsets[i]:event_offsets[i + 1]]``."""

    table_id: npt.NDArray[np.object_]
    gaming_date: npt.NDArray[np.datetime64]
    round_id: npt.NDArray[np.object_]
    patron_id: npt.NDArray[np.object_]
    seat: npt.NDArray[np.int64]
    wager: npt.NDArray[np.object_]
    stake_cents: npt.NDArray[np.int64]
    expected_result: npt.NDArray[np.object_]
    rules_id: npt.NDArray[np.object_]
    shoe_id: npt.NDArray[np.object_]
    position: npt.NDArray[np.int64]
    rank: npt.NDArray[np.object_]
    event_ids: npt.NDArray[np.object_]
    event_offsets: npt.NDArray[np.int64]


def patron_window(
    ledger: Ledger,
    first: date,
    day: date,
    wagers: Sequence[str],
    patrons: Iterable[str] | None = None,
) -> PatronWindow:
    """Every decided wager of ``wagers`` from ``first`` to ``day`` of the patrons with one on
    ``day`` (of ``patrons``; None: of every patron), in the order dealt, with the round's
    first card (its shoe, position and rank), as columns: read through Arrow, since a
    window's rows as Python tuples cost ten times the query."""
    params = {
        "first": first,
        "day": day,
        "wagers": sorted(wagers),
        "patrons": None if patrons is None else sorted(patrons),
    }
    rows = ledger.con.sql(_PATRON_WINDOW, params=params).to_arrow_table()

    def column(name: str, dtype: Any = None) -> Any:
        return np.asarray(rows.column(name).to_numpy(), dtype)

    events = rows.column("source_event_ids").combine_chunks()
    offsets = np.asarray(events.offsets.to_numpy(), np.int64)
    return PatronWindow(
        table_id=column("table_id", object),
        gaming_date=column("gaming_date").astype("datetime64[D]"),
        round_id=column("round_id", object),
        patron_id=column("patron_id", object),
        seat=column("seat", np.int64),
        wager=column("wager", object),
        stake_cents=column("stake_cents", np.int64),
        expected_result=column("expected_result", object),
        rules_id=column("rules_id", object),
        shoe_id=column("shoe_id", object),
        position=column("position", np.int64),
        rank=column("rank", object),
        event_ids=np.asarray(events.flatten().to_numpy(zero_copy_only=False), object),
        event_offsets=offsets - offsets[0] if len(offsets) else np.zeros(1, np.int64),
    )


# ---------------------------------------------------------------------- dealer-patron pairs
def seat_rounds(
    ledger: Ledger, first: date, day: date, erred_only: bool = False
) -> list[tuple[str, date, str, int, str, str, int, int, tuple[str, ...]]]:
    """One record per seat with a patron in a round from ``first`` to ``day`` (with
    ``erred_only``, only those where the money moved differs from the money the rules
    give), with its dealer (carried forward from the table's opening dealer) and the money
    the rules give against the money moved (:mod:`pipeline.patterns.pairs` says which
    columns and why): ``(table_id, gaming_date, round_id, seat, dealer_id, patron_id,
    expected_cents, actual_cents, event_ids)``."""
    return [
        (t, d, r, int(seat), dealer, patron, int(expected), int(actual), tuple(events or ()))
        for t, d, r, seat, dealer, patron, expected, actual, events in ledger.con.execute(
            _SEAT_ROUNDS, {"first": first, "day": day, "erred_only": erred_only}
        ).fetchall()
    ]


def pair_counts(ledger: Ledger, first: date, day: date) -> list[tuple[str, str, int, int, int]]:
    """Each dealer-patron pair's seat-rounds from ``first`` to ``day`` as counts, the window's
    seat-rounds being too many to read one by one: ``(dealer_id, patron_id, seat_rounds,
    erred, in_patron_favour)``, by :func:`seat_rounds`' money."""
    return [
        (str(dealer), str(patron), int(dealt), int(erred), int(favour))
        for dealer, patron, dealt, erred, favour in ledger.con.execute(
            _PAIR_COUNTS, {"first": first, "day": day}
        ).fetchall()
    ]


# ---------------------------------------------------------------------- patrons' requests
def patron_requests(
    ledger: Ledger, first: date, day: date
) -> list[tuple[str, date, str, int, int, str | None, str | None, str, str | None, bool]]:
    """Every request about the cards or the shoe the pit terminals recorded from ``first`` to
    ``day`` (``PatronRequest``, schema id 6), each event once, in the order made: ``(table_id,
    gaming_date, event_id, occurred_at, seat, patron_id, round_id, request, detail,
    granted)``. An event id whose copies disagree (NJ-DATA-CONFLICT) is left out: neither copy
    says what was asked."""
    return [
        (t, d, e, int(at), int(seat), p, r, str(kind), detail, bool(granted))
        for t, d, e, at, seat, p, r, kind, detail, granted in ledger.con.execute(
            _REQUESTS, {"first": first, "day": day}
        ).fetchall()
    ]


# ---------------------------------------------------------------------- what a search read
def days_with_deliveries(ledger: Ledger, first: date, last: date) -> set[date]:
    """The gaming days from ``first`` to ``last`` with stored deliveries."""
    return {
        d
        for (d,) in ledger.con.execute(
            "SELECT DISTINCT gaming_date FROM deliveries WHERE gaming_date BETWEEN ? AND ?",
            [first, last],
        ).fetchall()
    }


def window_state(ledger: Ledger, first: date, day: date) -> tuple[Any, ...] | None:
    """What the stage's reads of a window depend on: how many table-days it has and when
    each was last derived (every load of a table-day derives it again), and how many
    deliveries it holds."""
    return ledger.con.execute(_INPUTS, {"first": first, "day": day}).fetchone()


def tables_with_pattern_findings(ledger: Ledger, day: date) -> set[str]:
    """The tables with a pattern exception (:data:`~pipeline.rules.codes.PATTERN_CODES`) on
    ``day``."""
    return ledger_exceptions.tables_with_codes(ledger.con, day, sorted(PATTERN_CODES))


# ---------------------------------------------------------------------- carried evidence
_DAY_STATES = """
WITH replays AS (
    SELECT gaming_date, count(*) AS table_days,
           sum(hash(table_id, gaming_date, replayed_at)) AS replayed
    FROM table_day_summary WHERE gaming_date BETWEEN $first AND $day
    GROUP BY gaming_date
), delivered AS (
    SELECT gaming_date, count(*) AS deliveries
    FROM deliveries WHERE gaming_date BETWEEN $first AND $day
    GROUP BY gaming_date
)
SELECT gaming_date, coalesce(table_days, 0), coalesce(replayed, 0), coalesce(deliveries, 0)
FROM replays FULL JOIN delivered USING (gaming_date)
ORDER BY gaming_date
"""

_DAY_PAIR_COUNTS = (
    _DEALT_SEAT_ROUNDS
    + """
SELECT gaming_date, dealer_id, patron_id, count(*) AS seat_rounds,
       count(*) FILTER (WHERE actual_cents <> expected_cents) AS erred,
       count(*) FILTER (WHERE actual_cents > expected_cents) AS in_patron_favour
FROM dealt
GROUP BY gaming_date, dealer_id, patron_id
"""
)

_CARRIED_PAIR_COUNTS = """
SELECT dealer_id, patron_id, sum(seat_rounds)::BIGINT, sum(erred)::BIGINT,
       sum(in_patron_favour)::BIGINT
FROM pair_day_counts WHERE gaming_date BETWEEN $first AND $day
GROUP BY dealer_id, patron_id
ORDER BY dealer_id, patron_id
"""

_CARRIED_ROUNDS = """
SELECT patron_id, stakes_cents, won, win_probability, preview_steps
FROM patron_day_rounds
WHERE gaming_date BETWEEN $first AND $day
      AND patron_id IN (SELECT patron_id FROM patron_day_rounds WHERE gaming_date = $day)
ORDER BY patron_id, gaming_date
"""


def day_states(ledger: Ledger, first: date, day: date) -> dict[date, tuple[int, int, int]]:
    """What each gaming day from ``first`` to ``day`` with rows was derived from: its
    table-days, when each was last derived (every load or replay of a table-day derives it
    again) and its deliveries, as ``(table_days, replayed, deliveries)``."""
    return {
        d: (int(table_days), int(replayed), int(delivered))
        for d, table_days, replayed, delivered in ledger.con.execute(
            _DAY_STATES, {"first": first, "day": day}
        ).fetchall()
    }


def carried_inputs(ledger: Ledger, first: date, day: date) -> dict[date, str]:
    """The digest of what each gaming day from ``first`` to ``day`` was carried from
    (:func:`carry_day`); a day never carried is missing."""
    return {
        d: str(inputs)
        for d, inputs in ledger.con.execute(
            "SELECT gaming_date, inputs_sha256 FROM carried_days WHERE gaming_date BETWEEN ? AND ?",
            [first, day],
        ).fetchall()
    }


_CARRIED = ("carried_days", "patron_day_rounds", "pair_day_counts", "carried_shoes")
"""Every table of what a gaming day carries to the windows holding it."""


def _dated(rows: pa.Table, day: date, table: str) -> pa.Table:
    """``rows`` of ``table`` without the date, dated ``day``, in its declared columns."""
    dated = rows.add_column(0, "gaming_date", pa.array([day] * rows.num_rows, pa.date32()))
    return dated.cast(arrow_schema(table))


def carry_day(
    ledger: Ledger, day: date, inputs_sha256: str, rounds: pa.Table, shoes: pa.Table
) -> None:
    """Replace what ``day`` carries to the windows that hold it, in one transaction: its
    patrons' scored rounds (``rounds``, rows of ``patron_day_rounds`` without the date), its
    shoes as the slug search compares them (``shoes``, rows of ``carried_shoes`` without the
    date), its dealer-patron pairs counted from its seat-rounds (:func:`pair_counts`' money),
    and the digest of what they were derived from."""
    with ledger.transaction() as con:
        for table in _CARRIED[1:]:
            con.execute(f"DELETE FROM {table} WHERE gaming_date = ?", [day])
        for table, rows in (("patron_day_rounds", rounds), ("carried_shoes", shoes)):
            con.register("carried_rows", _dated(rows, day, table))
            try:
                con.execute(f"INSERT INTO {table} SELECT * FROM carried_rows")
            finally:
                con.unregister("carried_rows")
        con.execute(f"INSERT INTO pair_day_counts {_DAY_PAIR_COUNTS}", {"first": day, "day": day})
        con.execute(
            "INSERT OR REPLACE INTO carried_days VALUES (?, ?, ?)",
            [day, inputs_sha256, datetime.now(UTC).replace(tzinfo=None)],
        )


def forget_carried(ledger: Ledger, day: date) -> None:
    """Drop what ``day`` carries, so that the next search of a window holding it carries it
    again from its rows (what a day's first search does)."""
    with ledger.transaction() as con:
        for table in _CARRIED:
            con.execute(f"DELETE FROM {table} WHERE gaming_date = ?", [day])


def forget_carried_before(ledger: Ledger, first: date) -> None:
    """Drop what the gaming days before ``first`` carry: no window searched from now on
    holds them (a search of an earlier day carries them again)."""
    with ledger.transaction() as con:
        for table in _CARRIED:
            con.execute(f"DELETE FROM {table} WHERE gaming_date < ?", [first])


class CarriedRounds(NamedTuple):
    """The scored rounds carried from ``first`` to ``day`` of the patrons with one on
    ``day``, each patron's days end to end in order: patron ``patron_id[i]``'s rounds are
    rows ``offsets[i]:offsets[i + 1]`` of the columns."""

    patron_id: list[str]
    offsets: npt.NDArray[np.int64]
    stakes_cents: npt.NDArray[np.int64]
    won: npt.NDArray[np.bool_]
    win_probability: npt.NDArray[np.float64]
    preview_steps: npt.NDArray[np.float64]


def carried_rounds(ledger: Ledger, first: date, day: date) -> CarriedRounds:
    """The rounds the days from ``first`` to ``day`` carry (:func:`carry_day`) of the
    patrons with a scored round on ``day``, read through Arrow as columns."""
    rows = ledger.con.sql(_CARRIED_ROUNDS, params={"first": first, "day": day}).to_arrow_table()
    patrons = rows.column("patron_id").to_pylist()
    # a patron's days are adjacent rows: the patron's rounds run from the first day's start
    # to the last day's end
    starts = np.flatnonzero([a != b for a, b in itertools.pairwise([None, *patrons])])

    def flat(name: str, dtype: Any) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64]]:
        lists = rows.column(name).combine_chunks()
        offsets = np.asarray(lists.offsets.to_numpy(), np.int64)
        values = np.asarray(lists.flatten().to_numpy(zero_copy_only=False), dtype)
        return values, offsets - (offsets[0] if len(offsets) else 0)

    stakes, offsets = flat("stakes_cents", np.int64)
    bounds = offsets[np.append(starts, len(patrons))] if patrons else np.zeros(1, np.int64)
    return CarriedRounds(
        patron_id=[patrons[i] for i in starts],
        offsets=bounds,
        stakes_cents=stakes,
        won=flat("won", np.bool_)[0],
        win_probability=flat("win_probability", np.float64)[0],
        preview_steps=flat("preview_steps", np.float64)[0],
    )


def carried_pair_counts(
    ledger: Ledger, first: date, day: date
) -> list[tuple[str, str, int, int, int]]:
    """:func:`pair_counts` of the window from ``first`` to ``day``, summed from what its days
    carry (a seat-round belongs to one gaming day, and its dealer is carried within its
    table-day, so the counts of days add up)."""
    return [
        (str(dealer), str(patron), int(dealt), int(erred), int(favour))
        for dealer, patron, dealt, erred, favour in ledger.con.execute(
            _CARRIED_PAIR_COUNTS, {"first": first, "day": day}
        ).fetchall()
    ]


class CarriedShoes(NamedTuple):
    """The shoes the days of a window carry (:func:`carry_day`), as columns: shoe ``i``'s
    cards are ``positions[offsets[i]:offsets[i + 1]]`` and ``faces[...]`` alike."""

    table_id: list[str]
    gaming_date: list[date]
    shoe_id: list[str]
    started_at: list[int]
    cards_in_shoe: list[int]
    pit: list[str]
    game: list[str]
    offsets: npt.NDArray[np.int64]
    positions: npt.NDArray[np.int64]
    faces: npt.NDArray[np.int64]


def carried_shoes(ledger: Ledger, first: date, last: date) -> CarriedShoes:
    """The shoes the days from ``first`` to ``last`` carry, read through Arrow as columns: a
    window holds thousands of shoes and millions of cards."""
    rows = ledger.con.sql(
        "SELECT * EXCLUDE (gaming_date), gaming_date FROM carried_shoes "
        "WHERE gaming_date BETWEEN $first AND $last ORDER BY gaming_date, table_id, shoe_id",
        params={"first": first, "last": last},
    ).to_arrow_table()

    def flat(name: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        lists = rows.column(name).combine_chunks()
        offsets = np.asarray(lists.offsets.to_numpy(), np.int64)
        values = np.asarray(lists.flatten().to_numpy(zero_copy_only=False), np.int64)
        return values, offsets - (offsets[0] if len(offsets) else 0)

    positions, offsets = flat("positions")
    return CarriedShoes(
        table_id=rows.column("table_id").to_pylist(),
        gaming_date=rows.column("gaming_date").to_pylist(),
        shoe_id=rows.column("shoe_id").to_pylist(),
        started_at=rows.column("started_at").to_pylist(),
        cards_in_shoe=rows.column("cards_in_shoe").to_pylist(),
        pit=rows.column("pit").to_pylist(),
        game=rows.column("game").to_pylist(),
        offsets=offsets if rows.num_rows else np.zeros(1, np.int64),
        positions=positions,
        faces=flat("faces")[0],
    )
