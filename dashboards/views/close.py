"""Accounting: the gaming-day close per pit and table, what blocks it, and its downloads.

The first screen is the close's status and the day's figures; the rest sits in tabs of which
only the open one runs (the hold chart, the wager types, the blocking exceptions, which read
the ledger and the journal again, and the downloads, which send the sealed files). The day,
the pits and tables chosen and the open tab are in the URL (``?pit=&table=&tab=``).
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from dashboards import charts, links, ui
from dashboards import queries as q
from pipeline.reports.close import CloseResult, render_html
from pipeline.reports.pits import pit_sections, pit_subtotals
from pipeline.reports.spreadsheet import workbook
from pipeline.safe_text import markdown_text, visible

# each tab's value in the URL's ``tab`` parameter, and its label
TABS = {
    "figures": "Per pit and table",
    "hold": "Hold against expectation",
    "wagers": "Win by wager type",
    "blocking": "Exceptions that block the close",
    "downloads": "Downloads",
}
TAB_KEY = "close_tab"

ctx = ui.current()
day = ui.require_day(ctx)
st.title("Gaming-day close")

# the day report a closed day offers is the file its close sealed, checked before serving
report, status, previous, by_wager, sealed = ui.close_figures(ctx.snapshot, day)
closed = status is not None and status["status"] != "REOPENED"
closed_at = (
    f"{ui.local_wall(status['closed_at']):%Y-%m-%d %H:%M} {ui.casino_zone().key}"
    if status is not None
    else ""
)
problems = ui.verified_close(ctx, day) if closed and st.session_state.get("verify_seal") else []
if status is None:
    st.info(
        f"Gaming day {day.isoformat()} is not closed yet: these figures are a draft "
        "(the close seals its rows and chains its report)."
    )
elif not closed:
    st.warning(f"Gaming day {day.isoformat()} was reopened: these figures are a draft again.")
elif not st.session_state.get("verify_seal"):
    st.info(
        f"Closed {closed_at} as {status['status']} (report "
        f"{str(status['report_sha256'])[:16]}…, chain {str(status['chain_sha256'])[:16]}…). "
        "Verifying that every sealed row is unchanged re-hashes the whole day (seconds on a "
        "full day): use the checkbox below."
    )
elif not problems:
    st.success(
        f"Closed {closed_at} as {status['status']}; the sealed "
        f"rows and the hash chain verify unchanged since (report "
        f"{str(status['report_sha256'])[:16]}…, chain {str(status['chain_sha256'])[:16]}…)."
    )
else:
    st.error(
        f"Closed {closed_at}, but {len(problems)} thing(s) no "
        "longer match what the close sealed: " + markdown_text("; ".join(problems[:5]))
    )

if closed:
    st.checkbox("Verify the sealed rows and the hash chain", key="verify_seal")

totals = report["totals"]
m = st.columns(3) + st.columns(3)
m[0].metric("Handle", ui.fmt_money(totals["handle_cents"]))
m[1].metric("Win", ui.fmt_money(totals["win_cents"]))
m[2].metric("Hold", f"{totals['hold_pct']} %" if totals["hold_pct"] is not None else "-")
m[3].metric("Vigorish collected", ui.fmt_money(totals["vig_collected_cents"]))
m[4].metric("Uncollected (no Form)", ui.fmt_money(totals["vig_uncollected_cents"]))
m[5].metric("Complimentary (Forms)", ui.fmt_money(totals["comp_vig_cents"]))

tables = pd.DataFrame(report["tables"])
pits = sorted(str(p) for p in tables["pit"].dropna().unique()) if not tables.empty else []
table_ids = [str(t) for t in tables["table_id"]] if not tables.empty else []
# Filter widget key -> its URL parameter and the values a link may choose among.
FILTERS = {"close_pit": ("pit", pits), "close_table": ("table", table_ids)}
links.restore_choices(FILTERS)
links.restore_tab(TAB_KEY, "tab", TABS)
f1, f2 = st.columns(2)
chosen = f1.multiselect("Pit", pits, key="close_pit", format_func=visible)
chosen_tables = f2.multiselect("Table", table_ids, key="close_table", format_func=visible)
if chosen:
    tables = tables[tables["pit"].isin(chosen)]
if chosen_tables:
    tables = tables[tables["table_id"].isin(chosen_tables)]
shown_tables = set(tables["table_id"]) if not tables.empty else set()
filtered = bool(chosen or chosen_tables)

opened = dict(
    zip(
        TABS,
        st.tabs(list(TABS.values()), key=TAB_KEY, on_change="rerun"),
        strict=True,
    )
)
tab = next((name for name, container in opened.items() if container.open), "figures")
links.keep(
    {"pit": chosen, "table": chosen_tables, "tab": tab},
    {"pit": [], "table": [], "tab": "figures"},
)

if opened["figures"].open:
    with opened["figures"]:
        st.subheader("Per pit")
        if not tables.empty:
            # the subtotals the day report prints, added up the same way
            chosen_rows = [t for t in report["tables"] if t["table_id"] in shown_tables]
            pit_view = ui.dollars(pd.DataFrame(pit_subtotals(pit_sections(chosen_rows))))
            st.dataframe(
                pit_view, hide_index=True, key="pits", column_config=ui.money_config(pit_view)
            )
        st.subheader("Per table")
        ui.ledger_table(tables, "tables", day)

if opened["hold"].open:
    with opened["hold"]:
        st.caption(
            "Win over handle of the rounds played (settlements plus vigorish; simulated and "
            "incomplete rounds left out) against the hold the odds oracle's exact house edge "
            "of each wager gives for the stakes placed, with its 95 % interval: the grey bar. "
            "A dot outside it says where to look harder, not that anything is wrong (see "
            "Statistical alarms)."
        )
        pit_of = {str(t): str(p) for t, p in zip(tables["table_id"], tables["pit"], strict=True)}
        by_table, by_pit = ui.holds_by_table_and_pit(ctx, day, pit_of)
        if filtered:
            by_table = by_table[by_table["table_id"].isin(list(shown_tables))]
            by_pit = by_pit[by_pit["pit"].isin(set(pit_of.values()))]
        h1, h2 = st.columns([1, 2])
        for column, per, hold in ((h1, "pit", by_pit), (h2, "table", by_table)):
            band = charts.hold_band(charts.alarms_first(hold), per)
            if band is None:
                column.caption(f"No {per} has exact odds for its rules.")
            else:
                column.altair_chart(band, width="stretch", key=f"close_hold_{per}")

if opened["wagers"].open:
    with opened["wagers"]:
        shown_wagers = by_wager[by_wager["table_id"].isin(list(shown_tables))]
        ui.ledger_table(shown_wagers, "by_wager", day)
        st.caption(
            "Recorded against expected from the cards: expected is what the rules pay on the "
            "dealt cards; a difference is money an exception explains (see the exception "
            "queue)."
        )

if opened["blocking"].open:
    with opened["blocking"]:
        with ctx.ledger() as ledger:
            exceptions = q.exceptions(ledger, day, ctx.journal)
        # the last action stands: a critical exception acknowledged, then escalated, blocks
        still_blocking = exceptions.loc[
            exceptions["blocking"],
            ["exception_id", "table_id", "code", "round_id", "seat", "serial", "message"],
        ]
        st.caption(
            "Critical exceptions without an acknowledgement. The close counts "
            f"acknowledgements in the ledger ({len(report['blocking_exceptions'])} block "
            f"there); acknowledgements recorded in the journal since leave "
            f"{len(still_blocking)} blocking once imported."
            + (" Shown: those of the pits and tables chosen." if filtered else "")
        )
        if filtered:
            still_blocking = still_blocking[still_blocking["table_id"].isin(list(shown_tables))]
        if not still_blocking.empty:
            st.dataframe(still_blocking, hide_index=True, width="stretch", key="blocking")
        else:
            st.success("Nothing blocks the close.")

if opened["downloads"].open:
    with opened["downloads"]:
        st.caption("The whole gaming day, whichever pits and tables are chosen above.")
        result = CloseResult(
            gaming_date=day,
            report=report,
            report_sha256=str(status["report_sha256"]) if closed and status else "(not closed)",
            chain_sha256=str(status["chain_sha256"]) if closed and status else "(not closed)",
            previous_chain_sha256=previous,
            blocking=len(report["blocking_exceptions"]),
            files=[],
        )
        draft: str | None = None
        for file in (f for f in sealed.values() if f is not None and f.problem is not None):
            st.error("The sealed day report is not served: " + markdown_text(file.problem))
        if not all(f is not None and f.content is not None for f in sealed.values()):
            why = (
                "is not closed" if not closed else "has no sealed report file that matches its seal"
            )
            draft = (
                f"this gaming day {why}; the figures are the ledger's as of this download, "
                "not a sealed close."
            )

        def draft_page() -> str:
            """The day report drawn from the ledger now, marked a draft when it is one."""
            page = render_html(report, result, None)
            if draft is None:
                return page
            marked = f'<body><p style="color:#b00;font-weight:bold">DRAFT: {draft}</p>'
            return page.replace("<body>", marked, 1)

        def served_report(
            suffix: str, drawn: Callable[[], bytes | str]
        ) -> tuple[bytes | str | Callable[[], bytes | str], str]:
            """A "Day report" download: the file the close sealed, when it matches its seal,
            under its own name; else the page drawn from the ledger, named a draft, drawn only
            when the button is clicked (an Excel workbook drawn on every run was most of the
            page's run)."""
            file = sealed[suffix]
            if file is not None and file.content is not None:
                return file.content, file.path.name
            return drawn, f"close-{day.isoformat()}-draft{suffix}"

        d1, d2, d3, d4 = st.columns(4)
        d1.download_button(
            "Tables (CSV)",
            ui.csv_download(pd.DataFrame(report["tables"])),
            file_name=f"close-{day.isoformat()}-tables.csv",
            mime="text/csv",
            key="dl_tables",
        )
        d2.download_button(
            "Win by wager (CSV)",
            ui.csv_download(by_wager),
            file_name=f"close-{day.isoformat()}-win-by-wager.csv",
            mime="text/csv",
            key="dl_wagers",
        )
        html_file, html_name = served_report(".html", draft_page)
        d3.download_button(
            "Day report (HTML)",
            html_file,
            file_name=html_name,
            mime="text/html",
            key="dl_html",
        )
        xlsx_file, xlsx_name = served_report(".xlsx", lambda: workbook(result, draft))
        d4.download_button(
            "Day report (Excel)",
            xlsx_file,
            file_name=xlsx_name,
            mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            key="dl_xlsx",
        )
