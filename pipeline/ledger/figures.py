"""The front door to a gaming day's figures: the rows the close states, per table, per wager,
per Form, as plain data (one dict per row, named by its columns). What they add up to (win,
hold, totals) is computed by the caller (:mod:`pipeline.reports.figures`).

Figures are integer cents. A draft (``sealed_at`` None) reads the ledger as it is; a sealed
day's questions read only what the seal covers (the acknowledgements made up to the seal, the
dead letters the day claimed), so the close, ``verify`` and ``baccarat-audit report`` read the
same rows.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.close_state import DEAD_LETTERS_OF_DAY
from pipeline.ledger.migrations import SEALED_TABLES
from pipeline.ledger.store import Ledger
from pipeline.rules.codes import code_for
from pipeline.rules.games import Game

NOT_SEALED_YET = datetime.max
"""A draft sees every acknowledgement recorded so far."""


def _rows(ledger: Ledger, sql: str, params: Any) -> list[dict[str, Any]]:
    cursor = ledger.con.execute(sql, params)
    names = [d[0] for d in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def table_figures(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """A day's figures per table (pit and table order): its summary with its win as recorded
    and as recomputed from the cards, by pit."""
    return _rows(
        ledger,
        """
        SELECT s.table_id, s.pit, s.location, s.game, s.rules_id, s.rounds, s.shoes,
               s.handle_cents, s.vig_collected_cents, s.vig_uncollected_cents,
               s.comp_vig_cents, s.exceptions,
               coalesce(w.recorded, 0) AS recorded_win_cents,
               coalesce(w.expected, 0) AS expected_win_cents
        FROM table_day_summary s
        LEFT JOIN (SELECT table_id, gaming_date, sum(recorded_win_cents) AS recorded,
                          sum(expected_win_cents) AS expected
                   FROM table_day_win GROUP BY ALL) w USING (table_id, gaming_date)
        WHERE s.gaming_date = $day ORDER BY s.pit, s.table_id""",
        {"day": gaming_date},
    )


def win_by_wager(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """A day's win by wager type, as recorded and as recomputed from the cards."""
    return _rows(
        ledger,
        """
        SELECT wager, sum(recorded_win_cents) AS recorded_win_cents,
               sum(expected_win_cents) AS expected_win_cents
        FROM table_day_win WHERE gaming_date = $day GROUP BY wager ORDER BY wager""",
        {"day": gaming_date},
    )


FORM_DOCUMENTING_CODES = (
    "PB-3.3c3-COMP-FORM",
    *sorted({code_for(game, "form_deferred") for game in Game}),
)
"""The findings of a Form documenting more than its seat deferred (3.3(c)3i; a Form of no
deferral at all, 3.3(c)2-3, 4.10(c)): the complimentary counts only the deferral (3.3(c)3vii)."""

_SEAT_ROUNDS = """
WITH settled AS (
    SELECT table_id, round_id, seat, rule_code, source_event_ids,
        CASE recorded_result WHEN 'LOSE' THEN stake_cents
            WHEN 'WIN' THEN -recorded_paid_cents ELSE 0 END AS recorded_win,
        CASE expected_result WHEN 'LOSE' THEN stake_cents
            WHEN 'WIN' THEN -expected_paid_cents ELSE 0 END AS expected_win,
        coalesce(recorded_paid_cents, 0) AS recorded_paid,
        coalesce(expected_paid_cents, 0) AS expected_paid,
        CASE recorded_result WHEN 'LOSE' THEN stake_cents ELSE 0 END
            - CASE expected_result WHEN 'LOSE' THEN stake_cents ELSE 0 END AS stake_collected
    FROM settlements WHERE gaming_date = $day
),
charged AS (
    SELECT table_id, round_id, seat, sum(amount_cents) AS recorded
    FROM vig_ledger v WHERE gaming_date = $day AND kind IN ('COLLECTED', 'DEFERRED')
        AND NOT EXISTS (SELECT 1 FROM rounds r WHERE r.gaming_date = $day
            AND r.table_id = v.table_id AND r.round_id = v.round_id
            AND r.status = 'INCOMPLETE')
    GROUP BY ALL
),
due AS (
    SELECT table_id, round_id, seat, sum(expected_vig_cents) AS expected
    FROM settlements WHERE gaming_date = $day GROUP BY ALL
),
vigorish AS (
    SELECT table_id, round_id, seat, coalesce(c.recorded, 0) AS recorded,
        coalesce(d.expected, 0) AS expected
    FROM charged c FULL JOIN due d USING (table_id, round_id, seat)
),
findings AS (
    SELECT * FROM exceptions WHERE gaming_date = $day
        AND expected_cents IS NOT NULL AND actual_cents IS NOT NULL
)
"""


def figure_sides(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """Each table's recorded and recomputed figures of the day, one row per table and figure
    (``win``: the wagers' result for the house; ``paid``: payouts; ``vigorish``: charged,
    collected at once or marked; ``complimentary``: vigorish documented on Forms). A round
    the replay marked incomplete (a delivery lost, its checks withheld) has no recomputed
    figures: its settlements are not rows, and its vigorish is left out here too."""
    return _rows(
        ledger,
        _SEAT_ROUNDS
        + """
        SELECT table_id, 'win' AS figure, sum(recorded_win) AS recorded_cents,
            sum(expected_win) AS recomputed_cents FROM settled GROUP BY ALL
        UNION ALL
        SELECT table_id, 'paid', sum(recorded_paid), sum(expected_paid) FROM settled GROUP BY ALL
        UNION ALL
        SELECT table_id, 'vigorish', sum(recorded), sum(expected) FROM vigorish GROUP BY ALL
        UNION ALL
        SELECT s.table_id, 'complimentary',
            coalesce((SELECT sum(amount_cents) FROM comp_vig_forms f WHERE f.gaming_date = $day
                      AND f.table_id = s.table_id AND f.status = 'ISSUED'), 0),
            s.comp_vig_cents
        FROM table_day_summary s WHERE s.gaming_date = $day
        ORDER BY table_id, figure""",
        {"day": gaming_date},
    )


def money_findings(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """The findings that explain each table's figure differences, by figure and code: how many
    and the sum of their ``actual - expected`` cents. A settlement's finding (its own rule code,
    at its round and seat, citing the wager's settlement events) states what settling moved to
    the patron, due and recorded, so it explains the house's win (with the sign turned) and,
    where the payout differs, the paid: what moved less the stake, where the stake was
    collected though due back or given back though due to the house (a winning wager recorded
    lost, or a losing one recorded won and paid, 3.3, 4.10(b), 7.3); a vigorish finding is the
    one whose amounts are its seat's vigorish due and charged in the round; a Form's, one of
    :data:`FORM_DOCUMENTING_CODES` stating more documented than deferred."""
    return _rows(
        ledger,
        _SEAT_ROUNDS
        + """
        , on_settlements AS (
            SELECT e.exception_id, e.table_id, e.code,
                e.actual_cents - e.expected_cents AS moved, s.stake_collected,
                s.recorded_win <> s.expected_win AS win,
                s.recorded_paid <> s.expected_paid AS paid
            FROM findings e JOIN settled s ON e.table_id = s.table_id
                AND e.round_id = s.round_id AND e.seat = s.seat AND e.code = s.rule_code
                AND len(s.source_event_ids) > 0
                AND list_has_all(e.source_event_ids, s.source_event_ids)
                AND e.expected_cents = -s.expected_win AND e.actual_cents = -s.recorded_win
        )
        SELECT table_id, 'win' AS figure, code, count(*) AS findings, -sum(moved) AS cents
        FROM on_settlements WHERE win GROUP BY ALL
        UNION ALL
        SELECT table_id, 'paid', code, count(*), sum(moved + stake_collected)
        FROM on_settlements WHERE paid GROUP BY ALL
        UNION ALL
        SELECT e.table_id, 'vigorish', e.code, count(DISTINCT e.exception_id),
            sum(e.actual_cents - e.expected_cents)
        FROM findings e JOIN vigorish v ON e.table_id = v.table_id
            AND e.round_id = v.round_id AND e.seat = v.seat
        WHERE v.recorded <> v.expected AND e.expected_cents = v.expected
            AND e.actual_cents = v.recorded
            AND e.exception_id NOT IN (SELECT exception_id FROM on_settlements)
        GROUP BY ALL
        UNION ALL
        SELECT e.table_id, 'complimentary', e.code, count(*),
            sum(e.actual_cents - e.expected_cents)
        FROM findings e
        WHERE e.code IN $form_codes AND e.actual_cents > e.expected_cents
            AND EXISTS (SELECT 1 FROM comp_vig_forms f WHERE f.gaming_date = $day
                AND f.table_id = e.table_id AND f.serial = e.serial AND f.status = 'ISSUED')
        GROUP BY ALL
        ORDER BY table_id, figure, code""",
        {"day": gaming_date, "form_codes": list(FORM_DOCUMENTING_CODES)},
    )


def form_counts(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """A day's complimentary-vigorish Forms by table and status: how many, and their amount."""
    return _rows(
        ledger,
        """
        SELECT table_id, status, count(*) AS forms, sum(amount_cents) AS amount_cents
        FROM comp_vig_forms WHERE gaming_date = $day GROUP BY ALL ORDER BY ALL""",
        {"day": gaming_date},
    )


def unmatched_form_copies(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """A day's Form copies (an original or a duplicate) that the end of the day matched
    with no other copy (N.J.A.C. 19:47-3.3(c)3iii-iv)."""
    return _rows(
        ledger,
        """
        SELECT table_id, serial, kind, amount_cents FROM form_events
        WHERE gaming_date = $day AND NOT matched ORDER BY ALL""",
        {"day": gaming_date},
    )


def exceptions_by_code(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """A day's exceptions counted by severity and code, most severe first."""
    return _rows(ledger, ledger_exceptions.day_counts_by_severity().sql, {"day": gaming_date})


def blocking_exceptions(
    ledger: Ledger, gaming_date: date, rank: int, sealed_at: datetime | None
) -> list[dict[str, Any]]:
    """A day's exceptions of at least ``rank`` whose last action, among the acknowledgements
    made up to the seal at ``sealed_at`` (a draft: all of them), is not an acknowledgement
    (:func:`pipeline.ledger.exceptions.day_blocking`)."""
    return _rows(
        ledger,
        ledger_exceptions.day_blocking(SEALED_TABLES["acknowledgements"]).sql,
        {"day": gaming_date, "rank": rank, "sealed_at": sealed_at or NOT_SEALED_YET},
    )


def dead_letters_by_reason(ledger: Ledger, gaming_date: date, sealed: bool) -> list[dict[str, Any]]:
    """A day's dead letters by reason, how many and how many resolved: a sealed day's those
    it claimed, a draft's also those its close would claim (:data:`DEAD_LETTERS_OF_DAY`)."""
    return _rows(
        ledger,
        "SELECT reason, count(*) AS count, count(resolved_at) AS resolved FROM dead_letters WHERE "
        f"{SEALED_TABLES['dead_letters'] if sealed else DEAD_LETTERS_OF_DAY} "
        "GROUP BY 1 ORDER BY 1",
        {"day": gaming_date},
    )


def input_files_of_day(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """The input files of a day, with their SHA-256, size and events, by source."""
    return _rows(
        ledger,
        f"SELECT source, sha256, bytes, events FROM input_files "
        f"WHERE {SEALED_TABLES['input_files']} ORDER BY source",
        {"day": gaming_date},
    )


def newest_validation_files(ledger: Ledger, gaming_date: date) -> list[str]:
    """The files (Data Docs pages...) the day's newest stored validation wrote."""
    row = ledger.con.execute(
        "SELECT summary_json FROM quality_results WHERE gaming_date = ? "
        "ORDER BY validated_at DESC LIMIT 1",
        [gaming_date],
    ).fetchone()
    files: list[str] = json.loads(row[0]).get("files", []) if row else []
    return files
