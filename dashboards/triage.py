"""Triage on the exception queue: filters (with who holds an exception) and the chosen
exception in the URL (a view can be shared, and a link that no longer fits says why), and
what each exception puts at stake and how long it has waited."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any, NamedTuple

import pandas as pd
import streamlit as st

from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.safe_text import markdown_text, visible

URL_FILTERS: dict[str, str] = {
    "f_table": "table",
    "f_pit": "pit",
    "f_severity": "severity",
    "f_code": "code",
    "f_dealer": "dealer",
    "f_status": "status",
}
"""Filter widget key -> URL parameter (repeated for several values: ``?code=A&code=B``)."""
EXCEPTION_PARAM = "exception"

HOLDER_KEY = "f_held"
HOLDER_PARAM = "held"
ANYONE, MINE, UNASSIGNED = "anyone", "mine", "unassigned"
HOLDER_CHOICES = (ANYONE, MINE, UNASSIGNED)
"""The queue's holder filter: every exception, those the signed-in user holds, those nobody
holds (``?held=mine``)."""


def from_url(key: str, options: Sequence[str]) -> None:
    """Before the filter widget ``key`` is made: on the page's first run, take its values
    from the URL (those among ``options``; a link must not smuggle in others)."""
    param = URL_FILTERS[key]
    if key not in st.session_state and param in st.query_params:
        st.session_state[key] = [v for v in st.query_params.get_all(param) if v in options]


def holder_from_url() -> None:
    """Before the holder filter is made: on the page's first run, take it from the URL."""
    wanted = st.query_params.get(HOLDER_PARAM)
    if HOLDER_KEY not in st.session_state and wanted in HOLDER_CHOICES:
        st.session_state[HOLDER_KEY] = wanted


def held_by(choice: str, actor: str | None) -> str | None:
    """The holder the queue keeps for ``choice`` (``""``: nobody; ``None``: no filter, also
    for "mine" without a signed-in user, who holds nothing)."""
    if choice == UNASSIGNED:
        return ""
    if choice == MINE and actor is not None:
        return actor
    return None


def default(key: str, values: list[str]) -> list[str] | None:
    """A filter's default, unless the URL or the user already set it (Streamlit warns when a
    widget gets both)."""
    return None if key in st.session_state else values


def to_url(defaults: dict[str, list[str]]) -> None:
    """Write the filters that differ from their defaults into the URL, drop the others."""
    for key, param in URL_FILTERS.items():
        chosen = list(st.session_state.get(key) or [])
        if chosen != defaults.get(key, []):
            st.query_params[param] = chosen
        else:
            st.query_params.pop(param, None)
    holder = st.session_state.get(HOLDER_KEY, ANYONE)
    if holder != ANYONE:
        st.query_params[HOLDER_PARAM] = holder
    else:
        st.query_params.pop(HOLDER_PARAM, None)


class Labels(NamedTuple):
    """Per exception id, its name in the queue's pick list (``picks``: code, table and id) and
    in the list that opens one (``titles``: severity, code, table, where, message)."""

    picks: dict[str, str]
    titles: dict[str, str]


LABEL_COLUMNS = ["exception_id", "severity", "code", "table_id", "round_id", "serial", "shoe_id",
                 "message"]  # fmt: skip


def labels(rows: pd.DataFrame) -> Labels:
    """The :class:`Labels` of the exceptions ``rows`` (:func:`dashboards.queries.exceptions`);
    option labels are plain text, so visible() shows what a bidi override would hide."""
    picks, titles = {}, {}
    # records, not iterrows(): a Series per row made these labels a third of the page's run
    for r in rows[LABEL_COLUMNS].to_dict("records"):
        exception_id = str(r["exception_id"])
        picks[exception_id] = f"{r['code']} at {visible(str(r['table_id']))} ({exception_id})"
        titles[exception_id] = visible(
            ledger_exceptions.exception_line(
                str(r["severity"]),
                str(r["code"]),
                f"· {r['table_id']} {_where(r)} ·",
                str(r["message"])[:70],
                sep=" ",
            )
        )
    return Labels(picks, titles)


def _where(r: Mapping[str, Any]) -> str:
    for column in ("round_id", "serial", "shoe_id"):
        value = r[column]
        if value is not None and not pd.isna(value):
            return str(value)
    return ""


def at_stake_cents(expected: Any, actual: Any) -> int | None:
    """How far the recorded amount is from the required one, in cents; ``None`` without
    both."""
    if expected is None or actual is None or pd.isna(expected) or pd.isna(actual):
        return None
    return abs(int(expected) - int(actual))


def age(since: Any, now: datetime | None = None) -> str:
    """How long ago ``since`` (a timestamp) was: ``45 s``, ``12 min``, ``3 h 05 min``,
    ``2 d 4 h``; an en dash without one."""
    if since is None or pd.isna(since):
        return "–"
    seconds = int(
        ((now or datetime.now(UTC)) - pd.Timestamp(since).to_pydatetime()).total_seconds()
    )
    seconds = max(seconds, 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes:02d} min"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h"


def stale_link(
    wanted: str, day: date, held_on: date | None, withdrawn: str | None, hidden_status: str | None
) -> str:
    """Why the exception a link names is not on the page, and what to do."""
    name = f"The linked exception `{markdown_text(wanted)}`"
    if hidden_status is not None:
        return (
            f"{name} is {hidden_status}, which the Status filter hides: add "
            f"{hidden_status} to the Status filter to see it."
        )
    if held_on is not None and held_on != day:
        return (
            f"{name} belongs to gaming day {held_on.isoformat()}: choose that day in the sidebar."
        )
    if withdrawn is not None:
        return (
            f"{name} was withdrawn at {withdrawn}: a later event explained it, so the "
            "replay no longer finds it."
        )
    if held_on is not None:
        return f"{name} is hidden by the filters: clear them to see it."
    return f"{name} is not in the ledger: the link may be mistyped or from another ledger."
