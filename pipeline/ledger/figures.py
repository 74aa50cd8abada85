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
