"""The gaming-day close: the accountant's figures per pit and table, the Form register, the
exceptions that block the close, and a hash chain across closed days.

Figures (integer cents):
- handle: every stake wagered;
- win by wager type, as recorded (what the dealers actually paid and collected) and as
  recomputed from the cards; their difference is money an exception explains;
- vigorish collected, left uncollected without a Form, and documented on Forms, the last
  being a complimentary in table game win (N.J.A.C. 19:47-3.3(c)3, (c)3vii);
- win percentage of handle.

The report's SHA-256 is chained to the previous closed day's, so a changed figure in any
closed day breaks every later link (``verify_chain``).

Before anything is sealed, the day's data passes the quality gate (:mod:`pipeline.quality.gate`):
a failed BLOCK expectation refuses the close unless its failures are accepted with a reason
(audited); the verdict is part of the report.
"""

from __future__ import annotations

import csv
import hashlib
import html
import json
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from pipeline.bundle.acks import AckJournal
from pipeline.config.catalog import load_catalog
from pipeline.ledger.migrations import SEALED_TABLES
from pipeline.ledger.store import Ledger
from pipeline.quality.gate import ACCEPT_ACTION, admit, checked_for_close, close_section

if TYPE_CHECKING:  # Great Expectations loads only when a day is validated
    from pipeline.quality.run import QualityReport
from pipeline.replay.findings import money
from pipeline.rules.config import TableRules

BLOCKING_RANK = 4  # CRITICAL exceptions without an acknowledgement block the close


@dataclass
class CloseResult:
    gaming_date: date
    report: dict[str, Any]
    report_sha256: str
    chain_sha256: str
    previous_chain_sha256: str | None
    blocking: int
    files: list[Path]
    quality_docs: Path | None = None
    """The Data Docs page of the validation the close relied on."""

    @property
    def status(self) -> str:
        return "CLOSED" if self.blocking == 0 else "CLOSED_WITH_BLOCKING_EXCEPTIONS"


def _rows(ledger: Ledger, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = ledger.con.execute(sql, params)
    names = [d[0] for d in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def day_report(ledger: Ledger, gaming_date: date) -> dict[str, Any]:
    """Everything the close states, as plain data (the hashed content)."""
    day = [gaming_date]
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
        WHERE s.gaming_date = ? ORDER BY s.pit, s.table_id""",
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
        FROM table_day_win WHERE gaming_date = ? GROUP BY wager ORDER BY wager""",
        day,
    )
    forms = _rows(
        ledger,
        """
        SELECT table_id, status, count(*) AS forms, sum(amount_cents) AS amount_cents
        FROM comp_vig_forms WHERE gaming_date = ? GROUP BY ALL ORDER BY ALL""",
        day,
    )
    unmatched = _rows(
        ledger,
        """
        SELECT table_id, serial, kind, amount_cents FROM form_events
        WHERE gaming_date = ? AND NOT matched ORDER BY ALL""",
        day,
    )
    exceptions = _rows(
        ledger,
        """
        SELECT severity, code, count(*) AS count FROM exceptions WHERE gaming_date = ?
        GROUP BY ALL ORDER BY min(severity_rank) DESC, code""",
        day,
    )
    blocking = _rows(
        ledger,
        """
        SELECT e.exception_id, e.table_id, e.code, e.round_id, e.seat, e.serial, e.message
        FROM exceptions e
        WHERE e.gaming_date = ? AND e.severity_rank >= ? AND NOT EXISTS (
            SELECT 1 FROM acknowledgements a WHERE a.exception_id = e.exception_id
            AND a.action = 'ACKNOWLEDGE')
        ORDER BY e.table_id, e.round_id, e.code""",
        [gaming_date, BLOCKING_RANK],
    )
    dead = _rows(
        ledger, "SELECT reason, count(*) AS count FROM dead_letters GROUP BY 1 ORDER BY 1", []
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


def canonical(report: dict[str, Any]) -> bytes:
    return json.dumps(report, sort_keys=True, separators=(",", ":"), default=str).encode()


class DayClosedError(RuntimeError):
    """The day is closed; closing it again needs an explicit, audited reopen."""


def _row_digests(ledger: Ledger, gaming_date: date) -> dict[str, list[str]]:
    return {
        table: sorted(
            r[0]
            for r in ledger.con.execute(
                f"SELECT sha256(t::VARCHAR) FROM {table} t WHERE gaming_date = ?", [gaming_date]
            ).fetchall()
        )
        for table in SEALED_TABLES
    }


def _digest(parts: list[str]) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _inputs(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    return _rows(
        ledger,
        """
        SELECT f.source, f.sha256, f.bytes, f.events FROM input_files f
        WHERE f.source IN (SELECT DISTINCT source FROM deliveries WHERE gaming_date = ?)
        ORDER BY f.source""",
        [gaming_date],
    )


def close_gaming_day(
    ledger: Ledger,
    gaming_date: date,
    out_dir: Path,
    actor: str = "baccarat-audit",
    *,
    actor_source: str = "not recorded",
    quality: QualityReport | None = None,
    accept_quality_failures: str | None = None,
    catalog: Mapping[str, TableRules] | None = None,
) -> CloseResult:
    """Close one gaming day: pass the quality gate, seal its rows, chain its digest, and
    write its reports.

    Refused for a day already closed unless it was reopened (:func:`reopen_gaming_day`).
    ``quality`` is a validation of the day already run (the flows run it as its own step);
    without one, or when the ledger changed since, the day is validated here against
    ``catalog`` (default: the packaged rule catalog). Either way the result is stored with
    the day. A failed BLOCK expectation raises
    :class:`~pipeline.quality.gate.QualityBlockedError` unless ``accept_quality_failures``
    gives the reason to close anyway, which goes to ``gaming_day_audit``.
    """
    status = ledger.con.execute(
        "SELECT status, closed_at FROM gaming_days WHERE gaming_date = ?", [gaming_date]
    ).fetchone()
    if status is not None and status[0] != "REOPENED":
        raise DayClosedError(
            f"gaming day {gaming_date} was closed at {status[1]} ({status[0]}); to close it "
            f"again, reopen it with a reason: baccarat-audit reopen --gaming-day {gaming_date} "
            "--reason '...'"
        )
    checked = checked_for_close(
        ledger,
        gaming_date,
        out_dir,
        catalog if catalog is not None else load_catalog(),
        quality,
    )
    accepted = admit(checked, accept_quality_failures)
    # acknowledgements recorded in the dashboards' journal count at the close
    AckJournal.for_ledger(ledger.path).import_into(ledger.con, gaming_date)
    report = day_report(ledger, gaming_date)
    report["quality"] = close_section(checked, accepted)
    inputs = _inputs(ledger, gaming_date)
    report["inputs"] = inputs
    report_sha = hashlib.sha256(canonical(report)).hexdigest()
    digests = _row_digests(ledger, gaming_date)
    rows_sha = _digest([f"{t}:{_digest(h)}" for t, h in sorted(digests.items())])
    inputs_sha = _digest([f"{i['source']}:{i['sha256']}" for i in inputs])
    previous = ledger.con.execute(
        "SELECT chain_sha256 FROM gaming_days WHERE gaming_date < ? AND chain_sha256 IS NOT "
        "NULL ORDER BY gaming_date DESC LIMIT 1",
        [gaming_date],
    ).fetchone()
    previous_chain = previous[0] if previous else None
    chain = chain_link(previous_chain, report_sha, rows_sha, inputs_sha)
    blocking = len(report["blocking_exceptions"])
    result = CloseResult(
        gaming_date, report, report_sha, chain, previous_chain, blocking, [], checked.docs_file
    )
    with ledger.transaction():
        ledger.con.execute("DELETE FROM gaming_days WHERE gaming_date = ?", [gaming_date])
        ledger.con.execute("DELETE FROM close_digests WHERE gaming_date = ?", [gaming_date])
        ledger.con.execute(
            "INSERT INTO gaming_days (gaming_date, status, closed_at, report_sha256, "
            "previous_chain_sha256, chain_sha256, blocking_exceptions, rows_sha256, "
            "inputs_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                gaming_date,
                result.status,
                datetime.now(UTC),
                report_sha,
                previous_chain,
                chain,
                blocking,
                rows_sha,
                inputs_sha,
            ],
        )
        frame = pd.DataFrame(
            [(gaming_date, table, h) for table, hashes in digests.items() for h in hashes],
            columns=["gaming_date", "table_name", "row_sha256"],
        )
        ledger.con.register("sealed", frame)
        ledger.con.execute("INSERT INTO close_digests SELECT * FROM sealed")
        ledger.con.unregister("sealed")
        if accepted is not None:
            ledger.con.execute(
                "INSERT INTO gaming_day_audit VALUES (?, ?, ?, ?, ?)",
                [gaming_date, ACCEPT_ACTION, actor, accepted, datetime.now(UTC)],
            )
        ledger.con.execute(
            "INSERT INTO gaming_day_audit VALUES (?, 'CLOSE', ?, ?, ?)",
            [gaming_date, actor, result.status, datetime.now(UTC)],
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"close-{gaming_date.isoformat()}"
    json_path = stem.with_suffix(".json")
    json_path.write_text(
        json.dumps(
            {
                **report,
                "report_sha256": report_sha,
                "rows_sha256": rows_sha,
                "inputs_sha256": inputs_sha,
                "previous_chain_sha256": previous_chain,
                "chain_sha256": chain,
            },
            indent=2,
            default=str,
        )
    )
    csv_path = stem.with_suffix(".csv")
    with csv_path.open("w", newline="") as fo:
        # the day's quality verdict on every row, so a spreadsheet of tables carries it
        columns = [*(report["tables"][0] if report["tables"] else ["table_id"]), "quality"]
        writer = csv.DictWriter(fo, fieldnames=columns)
        writer.writeheader()
        verdict = report["quality"]["verdict"]
        writer.writerows({**t, "quality": verdict} for t in report["tables"])
    html_path = stem.with_suffix(".html")
    docs = os.path.relpath(checked.docs_file, out_dir) if checked.docs_file else None
    html_path.write_text(render_html(report, result, docs))
    result.files = [json_path, csv_path, html_path]
    return result


def chain_link(previous: str | None, report_sha: str, rows_sha: str, inputs_sha: str) -> str:
    return hashlib.sha256(
        f"{previous or ''}|{report_sha}|{rows_sha}|{inputs_sha}".encode()
    ).hexdigest()


def reopen_gaming_day(
    ledger: Ledger,
    gaming_date: date,
    reason: str,
    actor: str,
    *,
    actor_source: str = "not recorded",
) -> None:
    """Reopen a closed day for late data or corrections; the reopen is audited."""
    if not reason.strip():
        raise ValueError("a reopen needs a reason; it is kept in the audit trail")
    status = ledger.con.execute(
        "SELECT status FROM gaming_days WHERE gaming_date = ?", [gaming_date]
    ).fetchone()
    if status is None or status[0] == "REOPENED":
        raise ValueError(f"gaming day {gaming_date} is not closed; nothing to reopen")
    with ledger.transaction():
        ledger.con.execute(
            "UPDATE gaming_days SET status = 'REOPENED' WHERE gaming_date = ?", [gaming_date]
        )
        ledger.con.execute(
            "INSERT INTO gaming_day_audit VALUES (?, 'REOPEN', ?, ?, ?)",
            [gaming_date, actor, reason, datetime.now(UTC)],
        )


def verify(ledger: Ledger) -> list[str]:
    """Every way the closed days no longer match what was sealed, naming table and row."""
    problems: list[str] = []
    previous: str | None = None
    for day, status, report_sha, rows_sha, inputs_sha, chain in ledger.con.execute(
        "SELECT gaming_date, status, report_sha256, rows_sha256, inputs_sha256, "
        "chain_sha256 FROM gaming_days ORDER BY gaming_date"
    ).fetchall():
        if chain_link(previous, report_sha, rows_sha, inputs_sha) != chain:
            problems.append(
                f"{day}: the hash chain is broken at this day (its digests or the "
                "previous day's were altered)"
            )
        previous = chain
        if status == "REOPENED":
            continue
        sealed: dict[str, list[str]] = {}
        for table, h in ledger.con.execute(
            "SELECT table_name, row_sha256 FROM close_digests WHERE gaming_date = ?", [day]
        ).fetchall():
            sealed.setdefault(table, []).append(h)
        for table in SEALED_TABLES:
            now = Counter(
                r[0]
                for r in ledger.con.execute(
                    f"SELECT sha256(t::VARCHAR) FROM {table} t WHERE gaming_date = ?", [day]
                ).fetchall()
            )
            then = Counter(sealed.get(table, []))
            for h in now - then:
                row = ledger.con.execute(
                    f"SELECT t::VARCHAR FROM {table} t WHERE gaming_date = ? AND "
                    "sha256(t::VARCHAR) = ?",
                    [day, h],
                ).fetchone()
                problems.append(
                    f"{day}: {table}: row changed or added after the close: "
                    f"{(row[0] if row else '?')[:300]}"
                )
            missing = sum((then - now).values())
            if missing:
                problems.append(
                    f"{day}: {table}: {missing} row(s) sealed at the close are gone "
                    "(edited or deleted)"
                )
    return problems


def render_html(report: dict[str, Any], result: CloseResult, quality_docs: str | None) -> str:
    def table(rows: list[dict[str, Any]], money_cols: set[str]) -> str:
        if not rows:
            return "<p>None.</p>"
        head = "".join(f"<th>{html.escape(k)}</th>" for k in rows[0])
        body = "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(money(v) if k in money_cols and v is not None else str(v))}</td>"
                for k, v in r.items()
            )
            + "</tr>"
            for r in rows
        )
        return f"<table><tr>{head}</tr>{body}</table>"

    cents = {k for k in (report["tables"][0] if report["tables"] else {}) if k.endswith("_cents")}
    cents |= {"recorded_win_cents", "expected_win_cents", "amount_cents"}
    totals = report["totals"]
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>Gaming day close {report["gaming_date"]}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #999;padding:3px 8px;text-align:right}}th{{background:#eee}}</style>
</head><body>
<h1>Gaming day close {report["gaming_date"]}: {result.status}</h1>
<p>Handle {money(totals["handle_cents"])}; win {money(totals["win_cents"])} (hold
{totals["hold_pct"]} % of handle); vigorish collected {money(totals["vig_collected_cents"])},
uncollected without a Form {money(totals["vig_uncollected_cents"])}, documented on Forms as
complimentaries {money(totals["comp_vig_cents"])} (N.J.A.C. 19:47-3.3(c)3vii).</p>
<p>Report SHA-256 <code>{result.report_sha256}</code>, chain <code>{result.chain_sha256}</code>
(previous <code>{result.previous_chain_sha256 or "none"}</code>).</p>
{quality_html(report["quality"], quality_docs)}
<h2>Tables</h2>{table(report["tables"], cents)}
<h2>Win by wager type</h2>{table(report["win_by_wager"], cents)}
<h2>Complimentary Vigorish Forms</h2>{table(report["forms"], cents)}
<h2>Unmatched originals and duplicates</h2>{table(report["unmatched_form_copies"], cents)}
<h2>Exceptions by code</h2>{table(report["exceptions_by_code"], set())}
<h2>Blocking exceptions (critical, not acknowledged)</h2>
{table(report["blocking_exceptions"][:200], set())}
<h2>Dead letters</h2>{table(report["dead_letters"], set())}
</body></html>"""


def quality_html(quality: dict[str, Any], docs: str | None) -> str:
    """The close report's data-quality paragraph: verdict, failures by level, Data Docs link."""
    met = quality["evaluated"] - quality["failed"]
    text = (
        f"<h2>Data quality: {html.escape(quality['verdict'])}</h2><p>{met} of "
        f"{quality['evaluated']} expectations met; {len(quality['blocking'])} blocking, "
        f"{len(quality['warnings'])} warnings (reported by the replay as NJ-DATA-* exceptions)."
    )
    if quality["accepted"]:
        text += f" Blocking failures accepted: {html.escape(quality['accepted'])}."
    if docs is not None:
        text += f' Details: <a href="{html.escape(docs)}">{html.escape(docs)}</a>.'
    text += "</p>"
    failures = quality["blocking"] + quality["warnings"]
    if not failures:
        return text
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(f[k]))}</td>"
            for k in ("level", "frame", "expectation", "unexpected_count", "element_count")
        )
        + "</tr>"
        for f in failures
    )
    return (
        f"{text}<table><tr><th>level</th><th>frame</th><th>expectation</th>"
        f"<th>rows failing</th><th>rows</th></tr>{rows}</table>"
    )
