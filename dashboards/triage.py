"""Triage on the exception queue: filters (with who holds an exception), the order, the page
of rows and the chosen exception in the URL (a view can be shared, and a link that no longer
fits says why), and what each exception puts at stake and how long it has waited."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any, NamedTuple

import pandas as pd
import streamlit as st

from dashboards import links
from pipeline.config import dashboard_links
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
EXCEPTION_PARAM = dashboard_links.EXCEPTION_PARAM

HOLDER_KEY = "f_held"
HOLDER_PARAM = "held"
ANYONE, MINE, UNASSIGNED = "anyone", "mine", "unassigned"
HOLDER_CHOICES = (ANYONE, MINE, UNASSIGNED)
"""The queue's holder filter: every exception, those the signed-in user holds, those nobody
holds (``?held=mine``)."""


def from_url(key: str, options: Sequence[str]) -> list[str]:
    """Before the filter widget ``key`` is made: on the page's first run, take its values
    from the URL (those among ``options``; a link must not smuggle in others). Returns the
    values the link carried that are not among ``options``, for the page to name."""
    param = URL_FILTERS[key]
    if key not in st.session_state and param in st.query_params:
        wanted = st.query_params.get_all(param)
        st.session_state[key] = [v for v in wanted if v in options]
        return [v for v in wanted if v not in options]
    return []


PAGE_KEY, PAGE_PARAM = "q_page", "page"
_VIEW_KEY = "_queue_view"
"""The order and the filters the page of rows was chosen in (:func:`keep_page`)."""
ORDER_KEY, ORDER_PARAM = "q_order", "order"
SEVERITY_FIRST = "severity"
ORDERS: dict[str, str] = {
    SEVERITY_FIRST: "most severe first",
    "stake": "most at stake first",
    "oldest": "oldest first",
    "newest": "newest first",
}
"""How the queue's rows can be ordered (its URL's ``order``), before they are cut into pages
(:func:`ordered`); the default, most severe first, is the ledger's own order."""

PAGE_ROWS = 100
"""How many exceptions the queue's grid holds at once. A 24-table day's 1,453 rows were
0.9 MB to send and draw, and took a fresh Chromium's first load of the queue from about
1.6 s to 2.0-2.8 s; the other rows are a page away (:func:`page_starts`), and the filters,
the order and the pick list reach all of them."""

URL_KEYS = (*URL_FILTERS, HOLDER_KEY, "f_time", "inspect", "_stale_link", PAGE_KEY, ORDER_KEY,
            _VIEW_KEY)  # fmt: skip
"""The queue's state that a link, Back or Forward sets (:func:`dashboards.links.from_url`)."""


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
    """Write the filters that differ from their defaults into the URL, drop the others;
    the URL is written only where it changes (each write is an entry in the browser's
    history, and one written as a link is followed lands on the page being left)."""
    for key, param in URL_FILTERS.items():
        chosen = list(st.session_state.get(key) or [])
        if chosen != defaults.get(key, []):
            if st.query_params.get_all(param) != chosen:
                st.query_params[param] = chosen
        elif param in st.query_params:
            del st.query_params[param]
    holder = st.session_state.get(HOLDER_KEY, ANYONE)
    if holder != ANYONE:
        if st.query_params.get(HOLDER_PARAM) != holder:
            st.query_params[HOLDER_PARAM] = holder
    elif HOLDER_PARAM in st.query_params:
        del st.query_params[HOLDER_PARAM]


def ordered(rows: pd.DataFrame, order: str) -> pd.DataFrame:
    """The queue's ``rows`` (most severe first, as the ledger gives them) in the ``order``
    chosen (:data:`ORDERS`): ties keep the ledger's order, and a row without an amount at
    stake or a time goes last. The amount at stake is ordered by its cents
    (``at_stake_cents``, :func:`at_stake_cents` of each row), not by the dollars shown."""
    if order == "stake":
        return rows.sort_values(
            "at_stake_cents", ascending=False, kind="stable", na_position="last"
        )
    if order in ("oldest", "newest"):
        return rows.sort_values(
            "occurred", ascending=order == "oldest", kind="stable", na_position="last"
        )
    return rows


def page_starts(count: int) -> list[int]:
    """Where each page of :data:`PAGE_ROWS` rows starts among ``count`` rows (one page, at
    0, when there are none)."""
    return list(range(0, max(count, 1), PAGE_ROWS))


def page_label(start: int, count: int) -> str:
    """A page as a person reads it: ``rows 101-200 of 1,453``."""
    if count == 0:
        return "no rows"
    return f"rows {start + 1:,}-{min(start + PAGE_ROWS, count):,} of {count:,}"


_PAGE_NUMBER = re.compile(r"[0-9]{1,9}")
"""A page number as a link may carry it: ASCII digits, few enough to read as a number."""


def keep_page(starts: Sequence[int], view: object) -> None:
    """Before the page list is made, for the rows of ``view`` (the order and the filters
    that chose them): another view starts at its first page; on the page's first run the
    page comes from the URL (``?page=3``); a page past the last (the link is older than an
    acknowledgement or a filter that left fewer rows) becomes the last one, and so does a
    page chosen before."""
    if st.session_state.get(_VIEW_KEY, view) != view:
        st.session_state[PAGE_KEY] = 0
    st.session_state[_VIEW_KEY] = view
    wanted = st.query_params.get(PAGE_PARAM) or ""
    past_the_end = _PAGE_NUMBER.fullmatch(wanted) is not None and int(wanted) > len(starts)
    if PAGE_KEY not in st.session_state and past_the_end:
        st.session_state[PAGE_KEY] = starts[-1]
        st.caption(
            f"The link's page {int(wanted):,} is past the last of these rows, page "
            f"{len(starts):,}: that one is shown."
        )
    links.take(
        PAGE_KEY,
        PAGE_PARAM,
        {str(n): start for n, start in enumerate(starts, 1)},
        lambda text: f"The link's page {text} is not a page number: the first page is shown.",
    )
    if st.session_state.get(PAGE_KEY, 0) not in starts:
        st.session_state[PAGE_KEY] = starts[-1]


GRID_KEY = "queue"
PICKS_KEY = "act_on"
FIND_KEY = "find_picks"
OPENED_BY_CLICK_KEY = "_clicked"
_SHOWN_KEY = "_queue_shown"
_RECORDED_KEY = "_queue_recorded"


def forget_choice() -> None:
    """An action was recorded on the rows chosen: the next run starts with none ticked in
    the grid or picked in the list (:func:`clear_recorded_choice`). An action applies to
    exactly the rows chosen for it, once; ticks left in place slid onto the rows that moved
    up when the recorded ones left the grid."""
    st.session_state[_RECORDED_KEY] = True


def clear_recorded_choice() -> None:
    """Before the queue's widgets are made: after :func:`forget_choice`, untick every row
    and empty the pick list (set through the widgets' state, so the browser shows it)."""
    if st.session_state.pop(_RECORDED_KEY, False):
        st.session_state[GRID_KEY] = {"selection": {"rows": [], "columns": []}}
        st.session_state[PICKS_KEY] = []
        st.session_state.pop(_SHOWN_KEY, None)
        st.session_state.pop(OPENED_BY_CLICK_KEY, None)


def _ticked_positions() -> list[int]:
    state = st.session_state.get(GRID_KEY) or {}
    return [int(i) for i in (state.get("selection") or {}).get("rows", [])]


def choosing() -> bool:
    """Whether rows of the queue are ticked or picked (live updates pause meanwhile)."""
    return bool(_ticked_positions() or st.session_state.get(PICKS_KEY))


def ticked(shown: Sequence[str]) -> list[str]:
    """Before the grid is drawn with the exceptions ``shown`` (ids, in row order): those
    ticked in it, by id.

    The grid reports its ticks by row position in the rows it showed last, and keeps them at
    those positions whatever rows it is given next; so the ticks are read against the rows
    shown last, and put back at the rows of the same exceptions (a ticked exception no longer
    shown, acknowledged or filtered out, is no longer ticked)."""
    before = st.session_state.get(_SHOWN_KEY)
    positions = _ticked_positions()
    known = list(shown) if before is None else before
    ids = [known[i] for i in positions if 0 <= i < len(known)]
    at = {exception_id: row for row, exception_id in enumerate(shown)}
    kept = [i for i in ids if i in at]
    if [at[i] for i in kept] != positions:
        st.session_state[GRID_KEY] = {"selection": {"rows": [at[i] for i in kept], "columns": []}}
    st.session_state[_SHOWN_KEY] = list(shown)
    return kept


def keep_picks(offered: Collection[str]) -> None:
    """Before the pick list is made: drop the picks it no longer offers (acknowledged away
    or filtered out)."""
    if PICKS_KEY in st.session_state:
        st.session_state[PICKS_KEY] = [i for i in st.session_state[PICKS_KEY] if i in offered]


class Labels(NamedTuple):
    """Per exception id, its name in the queue's pick list (``picks``: code, table and id), in
    the list that opens one (``titles``: severity, code, table, where, message) and what a
    search of them reads (``search``: both, with the whole message, in lower case)."""

    picks: dict[str, str]
    titles: dict[str, str]
    search: dict[str, str]


LABEL_COLUMNS = ["exception_id", "severity", "code", "table_id", "round_id", "serial", "shoe_id",
                 "message"]  # fmt: skip


def labels(rows: pd.DataFrame) -> Labels:
    """The :class:`Labels` of the exceptions ``rows`` (:func:`dashboards.queries.exceptions`);
    option labels are plain text, so visible() shows what a bidi override would hide."""
    picks, titles, search = {}, {}, {}
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
        search[exception_id] = " ".join(
            (picks[exception_id], titles[exception_id], visible(str(r["message"])))
        ).casefold()
    return Labels(picks, titles, search)


def _where(r: Mapping[str, Any]) -> str:
    for column in ("round_id", "serial", "shoe_id"):
        value = r[column]
        if value is not None and not pd.isna(value):
            return str(value)
    return ""


PICK_LIMIT = 100
"""At most how many exceptions the queue's two lists (the bulk pick list and the one that
opens an exception) offer besides those already chosen: a list of a 24-table day's 1,453
exceptions held up the page's first screen in the browser, where a person reads the first
rows; :func:`offered` reaches any other by the words typed to find it."""


class Offer(NamedTuple):
    """What the queue's two lists offer (:func:`offered`)."""

    ids: list[str]
    """The exceptions offered, in the queue's order."""
    matching: int
    """How many of the rows shown hold the words typed to find (all of them, without)."""


def offered(
    ids: Sequence[str], labels: Labels, find: str, kept: Iterable[str | None], page: Sequence[str]
) -> Offer:
    """The exceptions the queue's lists offer, in the order of ``ids`` (the rows the filters
    keep, on every page): the first :data:`PICK_LIMIT` whose labels (:class:`Labels`) hold
    every word of ``find``, whatever the case; with no words, or when no row holds them, the
    rows of the grid's ``page``; and those of ``kept`` among ``ids`` (picked, ticked, opened
    or linked) wherever they are."""
    words = find.casefold().split()
    found = [i for i in ids if all(w in labels.search[i] for w in words)]
    wanted = set(found[:PICK_LIMIT] if words and found else page) | set(kept)
    return Offer([i for i in ids if i in wanted], len(found))


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
