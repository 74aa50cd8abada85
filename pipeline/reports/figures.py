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

from pipeline.ledger import figures
from pipeline.ledger.close_state import audit_reason
from pipeline.ledger.store import Ledger
from pipeline.quality.gate import ACCEPT_ACTION, stored_section

BLOCKING_RANK = 4
"""CRITICAL exceptions block the close unless their latest action is an acknowledgement."""


def hold_pct(win_cents: int, handle_cents: int) -> float | None:
    """Win as a percentage of handle, to three decimals; ``None`` without handle."""
    return round(100 * win_cents / handle_cents, 3) if handle_cents else None


def day_report(
    ledger: Ledger, gaming_date: date, sealed_at: datetime | None = None
) -> dict[str, Any]:
    """Everything the close states about the day's rows, as plain data (the hashed content).

    ``sealed_at``: the seal's time, for a closed day (see the module docstring)."""
    tables = figures.table_figures(ledger, gaming_date)
    for t in tables:
        t["win_cents"] = t["recorded_win_cents"] + t["vig_collected_cents"]
        t["hold_pct"] = hold_pct(t["win_cents"], t["handle_cents"])
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
    totals["hold_pct"] = hold_pct(totals["win_cents"], totals["handle_cents"])
    return {
        "gaming_date": gaming_date.isoformat(),
        "totals": totals,
        "tables": tables,
        "win_by_wager": figures.win_by_wager(ledger, gaming_date),
        "forms": figures.form_counts(ledger, gaming_date),
        "unmatched_form_copies": figures.unmatched_form_copies(ledger, gaming_date),
        "exceptions_by_code": figures.exceptions_by_code(ledger, gaming_date),
        "blocking_exceptions": figures.blocking_exceptions(
            ledger, gaming_date, BLOCKING_RANK, sealed_at
        ),
        "dead_letters": figures.dead_letters_by_reason(ledger, gaming_date, sealed_at is not None),
    }


def sealed_content(ledger: Ledger, gaming_date: date, sealed_at: datetime) -> dict[str, Any]:
    """The close report's content as of the seal at ``sealed_at``: the day's figures, the
    validation the close relied on (the newest stored by then) with any accepted failures,
    and the input files with their SHA-256."""
    report = day_report(ledger, gaming_date, sealed_at)
    # a sealed day's validations are sealed rows: the newest is the one the close relied on
    report["quality"] = stored_section(ledger, gaming_date)
    report["quality"]["accepted"] = audit_reason(ledger, gaming_date, ACCEPT_ACTION, sealed_at)
    report["inputs"] = figures.input_files_of_day(ledger, gaming_date)
    return report


def quality_docs(ledger: Ledger, gaming_date: date) -> Path | None:
    """The Data Docs page of the day's newest validation (a sealed day's: the close's)."""
    files = figures.newest_validation_files(ledger, gaming_date)
    return next((Path(f) for f in files if f.endswith(".html")), None)


def canonical(report: dict[str, Any]) -> bytes:
    return json.dumps(report, sort_keys=True, separators=(",", ":"), default=str).encode()
