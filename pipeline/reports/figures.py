"""What the gaming-day close states, as plain data computed from the ledger's rows.

Figures (integer cents):
- handle: every stake wagered;
- win by wager type, as recorded (what the dealers actually paid and collected) and as
  recomputed from the cards; their difference is money an exception explains;
- vigorish collected, left uncollected without a Form, and documented on Forms, the last
  being a complimentary in table game win (N.J.A.C. 19:47-3.3(c)3, (c)3vii);
- win percentage of handle.

A draft (``sealed_at`` None: the dashboards before the close) reads the ledger as it is. A
sealed day's content (:func:`sealed_content`) reads only what the seal covers (the
acknowledgements made up to the seal, the dead letters the day claimed, the validation the
close relied on), so the close, ``verify`` and ``baccarat-audit report`` compute the same
bytes from the same rows.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import Any

from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.migrations import SEALED_TABLES
from pipeline.ledger.store import Ledger
from pipeline.quality.gate import ACCEPT_ACTION, stored_section

BLOCKING_RANK = 4
"""CRITICAL exceptions block the close unless their latest action is an acknowledgement."""

DEAD_LETTERS_OF_DAY = (
    "received_on = $day OR (received_on IS NULL AND source IN "
    "(SELECT source FROM deliveries WHERE gaming_date = $day))"
)
"""A dead letter belongs to the gaming day that claimed it. A loader that knows the day stamps
``received_on``; one that does not (a damaged stretch of a file has no readable date) leaves it
NULL, and the first close of a day the same source (file, or Kafka partition) delivered events
for claims it by stamping that day. So a letter belongs to exactly one day, and one that
arrives after a close goes to the next day its source feeds, never into a sealed day."""

NOT_SEALED_YET = datetime.max
"""A draft sees every acknowledgement recorded so far."""


def _rows(ledger: Ledger, sql: str, params: Any) -> list[dict[str, Any]]:
    cursor = ledger.con.execute(sql, params)
    names = [d[0] for d in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def day_report(
    ledger: Ledger, gaming_date: date, sealed_at: datetime | None = None
) -> dict[str, Any]:
    """Everything the close states about the day's rows, as plain data (the hashed content).

    ``sealed_at``: the seal's time, for a closed day (see the module docstring)."""
    day = {"day": gaming_date}
    tables = _rows(
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
        day,
    )
    for t in tables:
        t["win_cents"] = t["recorded_win_cents"] + t["vig_collected_cents"]
        t["hold_pct"] = (
            round(100 * t["win_cents"] / t["handle_cents"], 3) if t["handle_cents"] else None
        )
    by_wager = _rows(
        ledger,
        """
        SELECT wager, sum(recorded_win_cents) AS recorded_win_cents,
               sum(expected_win_cents) AS expected_win_cents
        FROM table_day_win WHERE gaming_date = $day GROUP BY wager ORDER BY wager""",
        day,
    )
    forms = _rows(
        ledger,
        """
        SELECT table_id, status, count(*) AS forms, sum(amount_cents) AS amount_cents
        FROM comp_vig_forms WHERE gaming_date = $day GROUP BY ALL ORDER BY ALL""",
        day,
    )
    unmatched = _rows(
        ledger,
        """
        SELECT table_id, serial, kind, amount_cents FROM form_events
        WHERE gaming_date = $day AND NOT matched ORDER BY ALL""",
        day,
    )
    exceptions = _rows(ledger, ledger_exceptions.day_counts_by_severity().sql, day)
    # The last action stands: ACKNOWLEDGE then ESCALATE leaves the exception blocking. Two
    # actions in the same microsecond count as an escalation, the cautious reading.
    blocking = _rows(
        ledger,
        ledger_exceptions.day_blocking(SEALED_TABLES["acknowledgements"]).sql,
        {**day, "rank": BLOCKING_RANK, "sealed_at": sealed_at or NOT_SEALED_YET},
    )
    dead = _rows(
        ledger,
        "SELECT reason, count(*) AS count, count(resolved_at) AS resolved FROM dead_letters WHERE "
        f"{SEALED_TABLES['dead_letters'] if sealed_at else DEAD_LETTERS_OF_DAY} "
        "GROUP BY 1 ORDER BY 1",
        day,
    )
    totals = {
        key: sum(t[key] for t in tables)
        for key in (
            "rounds",
            "handle_cents",
            "recorded_win_cents",
            "expected_win_cents",
            "vig_collected_cents",
            "vig_uncollected_cents",
            "comp_vig_cents",
            "win_cents",
        )
    }
    totals["hold_pct"] = (
        round(100 * totals["win_cents"] / totals["handle_cents"], 3)
        if totals["handle_cents"]
        else None
    )
    return {
        "gaming_date": gaming_date.isoformat(),
        "totals": totals,
        "tables": tables,
        "win_by_wager": by_wager,
        "forms": forms,
        "unmatched_form_copies": unmatched,
        "exceptions_by_code": exceptions,
        "blocking_exceptions": blocking,
        "dead_letters": dead,
    }


def sealed_content(ledger: Ledger, gaming_date: date, sealed_at: datetime) -> dict[str, Any]:
    """The close report's content as of the seal at ``sealed_at``: the day's figures, the
    validation the close relied on (the newest stored by then) with any accepted failures,
    and the input files with their SHA-256."""
    report = day_report(ledger, gaming_date, sealed_at)
    # a sealed day's validations are sealed rows: the newest is the one the close relied on
    report["quality"] = stored_section(ledger, gaming_date)
    accepted = ledger.con.execute(
        "SELECT reason FROM gaming_day_audit WHERE gaming_date = ? AND action = ? AND acted_at = ?",
        [gaming_date, ACCEPT_ACTION, sealed_at],
    ).fetchone()
    report["quality"]["accepted"] = accepted[0] if accepted else None
    report["inputs"] = _rows(
        ledger,
        f"SELECT source, sha256, bytes, events FROM input_files "
        f"WHERE {SEALED_TABLES['input_files']} ORDER BY source",
        {"day": gaming_date},
    )
    return report


def quality_docs(ledger: Ledger, gaming_date: date) -> Path | None:
    """The Data Docs page of the day's newest validation (a sealed day's: the close's)."""
    row = ledger.con.execute(
        "SELECT summary_json FROM quality_results WHERE gaming_date = ? "
        "ORDER BY validated_at DESC LIMIT 1",
        [gaming_date],
    ).fetchone()
    files = json.loads(row[0]).get("files", []) if row else []
    return next((Path(f) for f in files if f.endswith(".html")), None)


def canonical(report: dict[str, Any]) -> bytes:
    return json.dumps(report, sort_keys=True, separators=(",", ":"), default=str).encode()
