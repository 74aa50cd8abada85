"""Streamlit pieces every page shares: the sidebar (ledger snapshot, gaming day, who is
acting), money formatting, and the acknowledge/escalate form."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from dashboards import alarms
from dashboards import queries as q
from dashboards.source import (
    LedgerUnavailable,
    Snapshot,
    journal,
    read_copy,
    reader,
    snapshot,
)
from pipeline.bundle.acks import ACKNOWLEDGE, ESCALATE, AckJournal, JournalError
from pipeline.ledger.store import Ledger
from pipeline.replay.findings import money
from pipeline.safe_text import csv_cell, markdown_text

PROXY_USER_HEADERS = ("X-Forwarded-User", "X-Auth-Request-User", "X-Remote-User")
STATISTICS_DISCLAIMER = (
    "These statistics say where to look harder; they accuse no one. A small p-value or a "
    "hold outside its interval happens by chance too (about 1 test in 100 at the 1 % level), "
    "and a real cause may be a data problem as easily as a dealing one."
)


@dataclass(frozen=True)
class Context:
    snapshot: Snapshot
    day: date | None
    journal: AckJournal
    actor: str
    actor_source: str

    @contextmanager
    def ledger(self) -> Iterator[Ledger]:
        with reader(self.snapshot) as ledger:
            yield ledger


def _proxy_user() -> str | None:
    try:
        headers = st.context.headers
    except Exception:  # no request context (bare AppTest)
        return None
    for name in PROXY_USER_HEADERS:
        value = headers.get(name) if headers is not None else None
        if value:
            return str(value)
    return None


def sidebar() -> Context:
    """Render the sidebar and return the page context; stops the page when there is no
    ledger to show."""
    try:
        snap = snapshot()
    except LedgerUnavailable as err:
        st.error(str(err))
        st.stop()
        raise  # unreachable: st.stop() raises
    with st.sidebar:
        st.caption(f"Ledger `{snap.live}` (read-only snapshot of {snap.taken_at:%H:%M:%S} UTC)")
        if snap.busy:
            st.warning(f"Showing the last snapshot: {snap.busy}")
        with reader(snap) as ledger:
            days = q.gaming_dates(ledger)
        day: date | None = None
        if days:
            wanted = st.query_params.get("day")
            index = next((i for i, d in enumerate(days) if d.isoformat() == wanted), 0)
            day = st.selectbox(
                "Gaming day", days, index=index, key="gaming_day", format_func=date.isoformat
            )
        else:
            st.info("The ledger has no replayed table-days yet.")
        proxy = _proxy_user()
        if proxy:
            st.caption(f"Signed in as **{markdown_text(proxy)}** (from the authenticating proxy)")
            actor, source = proxy, "proxy"
        else:
            actor = st.text_input(
                "Your name or badge id",
                key="actor",
                help="Recorded with every acknowledgement and escalation.",
            )
            source = "self-declared"
        if st.button("Refresh data", key="refresh"):
            st.rerun()
    ctx = Context(snap, day, journal(), actor.strip(), source)
    st.session_state["_context"] = ctx
    return ctx


def current() -> Context:
    """The context the entry script built for this run."""
    ctx = st.session_state.get("_context")
    if not isinstance(ctx, Context):
        return sidebar()
    return ctx


def require_day(ctx: Context) -> date:
    if ctx.day is None:
        st.info("Nothing to show until a gaming day has been replayed into the ledger.")
        st.stop()
        raise RuntimeError("unreachable")
    return ctx.day


@st.cache_data(show_spinner="Verifying the close…", max_entries=8)
def _verified_close(snapshot_key: str, snapshot_path: str, day: date) -> list[str]:
    with read_copy(Path(snapshot_path)) as ledger:
        return q.close_problems(ledger, day)


def verified_close(ctx: Context, day: date) -> list[str]:
    """What no longer matches the close of ``day``; computed once per snapshot."""
    return _verified_close(ctx.snapshot.key, str(ctx.snapshot.path), day)


@st.cache_data(show_spinner="Computing against the exact odds…", max_entries=8)
def _statistics(
    snapshot_key: str, snapshot_path: str, day: date, per: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    catalog = alarms.rules_catalog()
    with read_copy(Path(snapshot_path)) as ledger:
        counts = q.outcome_counts(ledger, day)
        moments = alarms.round_moments(q.round_results(ledger, day), catalog)
    return alarms.outcome_alarms(counts, catalog, per), alarms.hold_alarms(moments, per)


def statistics(ctx: Context, day: date, per: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Outcome and hold alarms ``per`` shoe or table; computed once per snapshot."""
    outcomes, hold = _statistics(ctx.snapshot.key, str(ctx.snapshot.path), day, per)
    return outcomes.copy(), hold.copy()


def dollars(df: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Copy of ``df`` with ``*_cents`` columns (or ``columns``) as dollar floats, renamed
    without the suffix."""
    out = df.copy()
    for column in columns or [c for c in df.columns if str(c).endswith("_cents")]:
        if column in out:
            out[column] = pd.to_numeric(out[column], errors="coerce") / 100
            out = out.rename(columns={column: str(column).removesuffix("_cents")})
    return out


def money_config(df: pd.DataFrame) -> dict[str, Any]:
    """Column config showing every dollar column of a :func:`dollars` frame as money."""
    return {
        str(c): st.column_config.NumberColumn(str(c), format="dollar")
        for c in df.columns
        if df[c].dtype.kind == "f"
        and any(
            k in str(c)
            for k in ("handle", "win", "vig", "paid", "stake", "amount", "comp", "difference")
        )
    }


def csv_download(df: pd.DataFrame) -> str:
    """``df`` as a CSV file to download, every cell through
    :func:`~pipeline.safe_text.csv_cell`: device strings start no spreadsheet formula and
    hide no control or bidi character; numbers stay numbers."""
    return str(df.map(csv_cell).to_csv(index=False))


def text_cells(values: Iterable[Any]) -> list[str]:
    """Device strings as ``st.table`` cells, which Streamlit renders as Markdown."""
    return [fmt_text(v) for v in values]


def fmt_text(value: Any) -> str:
    """A device string as literal text inside Markdown; an en dash when there is none."""
    if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
        return "–"
    return markdown_text(value)


def fmt_money(cents: Any) -> str:
    if cents is None or pd.isna(cents):
        return "–"  # an en dash: a lone "-" renders as a list bullet in st.table
    return money(int(cents))


def ack_form(ctx: Context, exception_id: str, table_id: str, key: str = "ack") -> None:
    """Acknowledge or escalate one exception, with a note; stored in the journal."""
    with st.form(key=f"{key}-form", clear_on_submit=True):
        action = st.radio(
            "Action",
            [ACKNOWLEDGE, ESCALATE],
            horizontal=True,
            key=f"{key}-action",
            format_func=lambda a: {ACKNOWLEDGE: "Acknowledge", ESCALATE: "Escalate"}[a],
        )
        note = st.text_area("Note (why; required)", key=f"{key}-note")
        submitted = st.form_submit_button("Record", key=f"{key}-submit")
    if submitted:
        if not ctx.actor:
            st.error("Enter your name or badge id in the sidebar first: it is recorded.")
            return
        try:
            record = ctx.journal.append(
                exception_id=exception_id,
                action=action,
                note=note,
                actor=ctx.actor,
                actor_source=ctx.actor_source,
                table_id=table_id,
                gaming_date=ctx.day,
            )
        except JournalError as err:
            st.error(markdown_text(err))
            return
        st.session_state["_flash"] = (
            f"{record.action} of exception {exception_id} recorded by {record.actor} at "
            f"{record.acted_at} (journal {ctx.journal.path.name}, record {record.sha256[:12]})."
        )
        st.rerun()


def flash() -> None:
    """Show (once) the confirmation an action left before its rerun."""
    message = st.session_state.pop("_flash", None)
    if message:
        st.success(markdown_text(message))  # it names the actor and the exception
