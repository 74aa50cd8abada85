"""What the gaming-day close states, as plain data computed from the ledger's rows.

Figures (integer cents):
- handle: every stake wagered;
- win by wager type, as recorded (what the dealers actually paid and collected) and as
  recomputed from the cards; their difference is money an exception explains;
- vigorish collected, left uncollected without a Form, and documented on Forms, the last
  being a complimentary in table game win (N.J.A.C. 19:47-3.3(c)3, (c)3vii);
- win percentage of handle;
- each figure recorded beside recomputed, per table and for the day (win, paid, vigorish
  charged, complimentary vigorish), with the difference and the codes and counts of the
  findings whose amounts explain it (:func:`reconciliation`).

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
        "reconciliation": reconciliation(ledger, gaming_date),
        "forms": figures.form_counts(ledger, gaming_date),
        "unmatched_form_copies": figures.unmatched_form_copies(ledger, gaming_date),
        "exceptions_by_code": figures.exceptions_by_code(ledger, gaming_date),
        "blocking_exceptions": figures.blocking_exceptions(
            ledger, gaming_date, BLOCKING_RANK, sealed_at
        ),
        "dead_letters": figures.dead_letters_by_reason(ledger, gaming_date, sealed_at is not None),
    }


RECONCILED = ("win", "paid", "vigorish", "complimentary")
"""The figures the close shows recorded beside recomputed, in the order it shows them."""
DAY_ROW = "all tables"
"""The ``table_id`` of a figure's row for the whole day."""


def reconciliation(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """Each figure of each table, and of the day, as recorded and as recomputed from the
    cards, their difference, and the money findings that explain it
    (:func:`pipeline.ledger.figures.money_findings`): their codes with counts and the sum of
    their amounts (``actual - expected``; for the win, the house's side of what settling
    moved to the patron; for the paid, what moved less a stake collected or given back
    against the cards, as a round settled as if the other side had won does). Findings that
    cancel (a Chemin de Fer Banker's wager and the wagers against it, flipped together) are
    named on a difference of zero. ``unexplained_cents`` is the difference no finding's
    amount covers: zero when every difference is a finding's, as it must be."""
    sides = figures.figure_sides(ledger, gaming_date)
    found = figures.money_findings(ledger, gaming_date)
    tables = sorted({row["table_id"] for row in sides})
    rows = []
    for table_id in (*tables, None):
        for figure in RECONCILED:
            mine = [r for r in sides if r["figure"] == figure and table_id in (None, r["table_id"])]
            why = [f for f in found if f["figure"] == figure and table_id in (None, f["table_id"])]
            recorded = sum(int(r["recorded_cents"] or 0) for r in mine)
            recomputed = sum(int(r["recomputed_cents"] or 0) for r in mine)
            counts: dict[str, int] = {}
            for f in why:
                counts[f["code"]] = counts.get(f["code"], 0) + int(f["findings"])
            explained = sum(int(f["cents"]) for f in why)
            rows.append(
                {
                    "table_id": table_id or DAY_ROW,
                    "figure": figure,
                    "recorded_cents": recorded,
                    "recomputed_cents": recomputed,
                    "difference_cents": recorded - recomputed,
                    "explained_cents": explained,
                    "unexplained_cents": recorded - recomputed - explained,
                    "findings": ", ".join(f"{code} x{n}" for code, n in sorted(counts.items())),
                }
            )
    return rows


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


ADDED_SINCE_SEALED: tuple[str, ...] = ("reconciliation",)
"""Keys the day's report gained after days were sealed without them (the recorded figures
beside the recomputed ones): a day sealed before holds the rest of its content, which
:func:`sealed_variants` lets verify recompute."""


def sealed_variants(report: dict[str, Any]) -> list[bytes]:
    """The bytes a seal's ``report_sha256`` may cover for ``report``: the whole content, as
    a close seals it now, and the content without :data:`ADDED_SINCE_SEALED`, as a close
    sealed it before those keys existed. An edit of any figure changes both."""
    earlier = {k: v for k, v in report.items() if k not in ADDED_SINCE_SEALED}
    return [canonical(report), canonical(earlier)]


def canonical(report: dict[str, Any]) -> bytes:
    return json.dumps(report, sort_keys=True, separators=(",", ":"), default=str).encode()
