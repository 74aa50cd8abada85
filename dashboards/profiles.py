"""The investigator's reads across gaming days: one patron's play, one dealer's record.

Plain functions of a read-only ledger, like :mod:`dashboards.queries`. Money stays in integer
cents. A patron's net result is what the recorded settlements gave the patron (winnings paid
less losing stakes collected; a push is nothing) before vigorish, which is shown apart. A
round's dealer is the one its RoundStarted names, else the table-day's.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from dashboards import queries as q
from dashboards.source import frame
from pipeline.bundle.acks import AckJournal
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.store import Ledger

ROUND_DEALERS = """
    round_dealer AS (
        SELECT table_id, gaming_date, json_extract_string(fields_json, '$.round_id') AS round_id,
               max(json_extract_string(fields_json, '$.dealer_id')) AS dealer_id
        FROM deliveries WHERE payload_type = 'RoundStarted' GROUP BY ALL
    ),
    dealt AS (
        SELECT r.gaming_date, r.table_id, r.round_id,
               coalesce(rd.dealer_id, s.dealer_id) AS dealer_id
        FROM rounds r
        LEFT JOIN round_dealer rd USING (table_id, gaming_date, round_id)
        LEFT JOIN table_day_summary s USING (table_id, gaming_date)
        WHERE NOT r.simulated
    )"""
"""Who dealt each round that was played (simulated rounds are not dealt to patrons)."""


def patrons(ledger: Ledger) -> list[str]:
    """Every patron id that wagered or was named on a Form, most active first."""
    df = frame(
        ledger,
        """
        SELECT patron_id, sum(n) AS n FROM (
            SELECT patron_id, count(*) AS n FROM wagers WHERE patron_id IS NOT NULL GROUP BY ALL
            UNION ALL
            SELECT patron_id, count(*) FROM comp_vig_forms WHERE patron_id IS NOT NULL GROUP BY ALL
        ) GROUP BY patron_id ORDER BY n DESC, patron_id""",
    )
    return [str(p) for p in df["patron_id"]]


def patron_days(ledger: Ledger, patron_id: str) -> pd.DataFrame:
    """Per gaming day: tables, rounds, handle, net result, vigorish paid or marked, Forms
    and exceptions naming the patron."""
    return frame(
        ledger,
        f"""
        WITH play AS (
            SELECT gaming_date, count(DISTINCT table_id) AS tables,
                   count(DISTINCT table_id || '/' || round_id) AS rounds,
                   sum(amount_cents)::BIGINT AS handle_cents
            FROM wagers WHERE patron_id = ? GROUP BY ALL
        ), net AS (
            SELECT gaming_date, sum(CASE recorded_result
                       WHEN 'WIN' THEN recorded_paid_cents
                       WHEN 'LOSE' THEN -stake_cents ELSE 0 END)::BIGINT AS net_cents
            FROM settlements WHERE patron_id = ? GROUP BY ALL
        ), vig AS (
            SELECT gaming_date, sum(amount_cents)::BIGINT AS vig_cents
            FROM vig_ledger WHERE patron_id = ? AND kind IN ('COLLECTED', 'DEFERRED')
            GROUP BY ALL
        ), forms AS (
            SELECT gaming_date, count(*) AS forms,
                   sum(amount_cents) FILTER (WHERE status <> 'VOID')::BIGINT AS comp_cents
            FROM comp_vig_forms WHERE patron_id = ? GROUP BY ALL
        ), findings AS (
            {ledger_exceptions.PATRON_DAYS_SQL}
        ), days AS (
            SELECT gaming_date FROM play UNION SELECT gaming_date FROM forms
            UNION SELECT gaming_date FROM findings
        )
        SELECT d.gaming_date, coalesce(p.tables, 0) AS tables, coalesce(p.rounds, 0) AS rounds,
               coalesce(p.handle_cents, 0) AS handle_cents, coalesce(n.net_cents, 0) AS net_cents,
               coalesce(v.vig_cents, 0) AS vig_cents, coalesce(f.forms, 0) AS forms,
               coalesce(f.comp_cents, 0) AS comp_cents,
               coalesce(x.exceptions, 0) AS exceptions
        FROM days d LEFT JOIN play p USING (gaming_date) LEFT JOIN net n USING (gaming_date)
        LEFT JOIN vig v USING (gaming_date) LEFT JOIN forms f USING (gaming_date)
        LEFT JOIN findings x USING (gaming_date)
        ORDER BY d.gaming_date""",
        [patron_id] * 5,
    )


def patron_forms(ledger: Ledger, patron_id: str) -> pd.DataFrame:
    return frame(
        ledger,
        "SELECT gaming_date, table_id, serial, status, amount_cents, patron_name, pit, "
        "table_location FROM comp_vig_forms WHERE patron_id = ? ORDER BY gaming_date, serial",
        [patron_id],
    )


def patron_exceptions(ledger: Ledger, patron_id: str) -> pd.DataFrame:
    return frame(ledger, *ledger_exceptions.of_patron(patron_id))


def dealers(ledger: Ledger) -> list[str]:
    """Every dealer who dealt a played round, most rounds first."""
    df = frame(
        ledger,
        f"WITH {ROUND_DEALERS} SELECT dealer_id FROM dealt WHERE dealer_id IS NOT NULL "
        "GROUP BY dealer_id ORDER BY count(*) DESC, dealer_id",
    )
    return [str(d) for d in df["dealer_id"]]


def _dealer_frame(ledger: Ledger, dealer_id: str, select: str) -> pd.DataFrame:
    params: list[Any] = [dealer_id]
    return frame(
        ledger,
        f"WITH {ROUND_DEALERS}, mine AS (SELECT * FROM dealt WHERE dealer_id = ?) {select}",
        params,
    )


def dealer_days(ledger: Ledger, dealer_id: str) -> pd.DataFrame:
    """Per gaming day: tables and rounds dealt, exceptions in those rounds, and the rate per
    1,000 rounds."""
    df = _dealer_frame(
        ledger,
        dealer_id,
        """
        SELECT m.gaming_date, count(DISTINCT m.table_id) AS tables,
               count(DISTINCT m.table_id || '/' || m.round_id) AS rounds,
               count(e.exception_id) AS exceptions
        FROM mine m LEFT JOIN exceptions e
          ON e.table_id = m.table_id AND e.gaming_date = m.gaming_date AND e.round_id = m.round_id
        GROUP BY m.gaming_date ORDER BY m.gaming_date""",
    )
    df["per_1000_rounds"] = (1000 * df["exceptions"] / df["rounds"]).round(1)
    return df


def dealer_codes(ledger: Ledger, dealer_id: str) -> pd.DataFrame:
    """The dealer's exceptions by rule code across days, most frequent first, each with its
    rate per 1,000 rounds dealt."""
    df = _dealer_frame(
        ledger,
        dealer_id,
        """
        SELECT e.code, e.severity, count(*) AS exceptions,
               (SELECT count(*) FROM mine) AS rounds
        FROM mine m JOIN exceptions e
          ON e.table_id = m.table_id AND e.gaming_date = m.gaming_date AND e.round_id = m.round_id
        GROUP BY e.code, e.severity ORDER BY exceptions DESC, e.code""",
    )
    df["per_1000_rounds"] = (1000 * df["exceptions"] / df["rounds"]).round(1)
    return df.drop(columns=["rounds"])


def unresolved_across_days(ledger: Ledger, journal: AckJournal) -> pd.DataFrame:
    """Every exception not acknowledged (open or escalated) on any gaming day, most severe
    and oldest first: the investigator's queue across days."""
    days = [
        q.exceptions(ledger, day, journal).assign(gaming_date=day) for day in q.gaming_dates(ledger)
    ]
    frames = [d[d["status"] != "ACKNOWLEDGED"] for d in days if not d.empty]
    if not frames:
        return pd.DataFrame(
            columns=["gaming_date", "status", "severity", "code", "table_id", "round_id"]
        )
    columns = [
        "gaming_date",
        "status",
        "severity",
        "code",
        "table_id",
        "round_id",
        "seat",
        "patron_id",
        "expected_cents",
        "actual_cents",
        "message",
        "exception_id",
    ]
    both = pd.concat(frames, ignore_index=True)
    ranked = both.sort_values(
        ["severity_rank", "gaming_date", "occurred_at"],
        ascending=[False, True, True],
        kind="stable",
    )
    return ranked[[c for c in columns if c in ranked]].reset_index(drop=True)
