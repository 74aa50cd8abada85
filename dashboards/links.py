"""Links between the pages: every id a page shows (table, round, patron, dealer, shoe, Form
serial, exception) opens the page that shows it, with the gaming day carried along; and every
page keeps what it shows in the URL, so Back, Forward and a copied link give the same view.

Ids come from the devices, so a link never builds a URL or markup from one by hand: the id
goes into the query string through Streamlit's own encoding (``st.page_link``'s
``query_params``, every character percent-encoded), and into the label through
:func:`~pipeline.safe_text.markdown_text`. A page takes an id from its URL only among those
the ledger holds, and says so when it does not hold it.

The URL is the truth of a view whenever it changes from outside the page (a link followed, Back
or Forward, a link pasted): :func:`note_arrival` sees that at the start of a run, and
:func:`from_url` then drops the widget values the URL carries, so that the page reads them from
it again instead of keeping the ones of the view left. A page writes its state with
:func:`keep`, which leaves the URL alone when nothing changed: every change of the query string
is an entry in the browser's history, and an entry too many makes Back seem to do nothing.

In a grid (``st.dataframe``) an id is a cell of a link column (:func:`in_grid`): the cell holds
the URL of the id's page (:func:`url_of`, built from the same :class:`Link`, every character
of the id percent-encoded) and shows the id decoded from it, as text drawn on the grid's
canvas, never as markup.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import quote, urlencode

import pandas as pd
import streamlit as st

from pipeline.config.dashboard_links import DAY_PARAM as DAY_PARAM
from pipeline.config.dashboard_links import EXCEPTION_PARAM, QUEUE_PATH
from pipeline.safe_text import markdown_text

_SEEN_KEY = "_url_seen"
"""The query string as the last run left it."""
_NEWS_KEY = "_url_news"
"""Whether this run's URL came from outside the page (a link, Back or Forward)."""


@dataclass(frozen=True)
class Kind:
    """A kind of id and the page that shows one."""

    noun: str
    """How a person names it, the label's first word."""
    page: str
    """The page's script, as ``st.page_link`` takes it."""
    param: str
    """The query parameter that carries the id to that page."""


KINDS: dict[str, Kind] = {
    "table": Kind("Table", "views/exception_queue.py", "table"),
    "round": Kind("Round", "views/round_reconstruction.py", "round"),
    "patron": Kind("Patron", "views/investigator.py", "patron"),
    "dealer": Kind("Dealer", "views/investigator.py", "dealer"),
    "shoe": Kind("Shoe", "views/roads.py", "shoe"),
    "serial": Kind("Form", "views/forms.py", "serial"),
    "exception": Kind("Exception", "views/exception_queue.py", EXCEPTION_PARAM),
    "dealer_exceptions": Kind("Exception queue of dealer", "views/exception_queue.py", "dealer"),
    "trail": Kind("Trail of round", "views/trail.py", "round"),
    "form_trail": Kind("Trail of Form", "views/trail.py", "serial"),
}
"""What each id opens: a table its exceptions on the queue, a round its reconstruction, a
patron or a dealer their record, a shoe its roads, a Form serial the Form in the register,
an exception itself on the queue, a round's trail its raw events and evidence bundle, a
dealer's exceptions the queue filtered to the dealer."""


PAGE_PATHS: dict[str, str] = {
    "views/exception_queue.py": QUEUE_PATH,
    "views/table_board.py": "tables",
    "views/round_reconstruction.py": "round",
    "views/roads.py": "roads",
    "views/statistics.py": "statistics",
    "views/slugs.py": "slugs",
    "views/close.py": "close",
    "views/forms.py": "forms",
    "views/search.py": "search",
    "views/investigator.py": "people",
    "views/trail.py": "trail",
}
"""Each page's script and the path it is served at (its ``url_path`` in ``dashboards/app.py``,
which takes it from here)."""

ID_COLUMNS: dict[str, str] = {
    "table_id": "table",
    "round_id": "round",
    "patron_id": "patron",
    "dealer_id": "dealer",
    "shoe_id": "shoe",
    "serial": "serial",
    "exception_id": "exception",
}
"""A grid's id columns, by the ledger's column names, and the kind of id each holds."""


@dataclass(frozen=True)
class Link:
    """Where one id leads: the page, the query string's parameters (the id as it is, encoded
    only by Streamlit) and the label (Markdown, the id escaped)."""

    page: str
    query: dict[str, str]
    label: str


def link_to(kind: str, value: object, day: date | None, **context: object) -> Link:
    """The link that opens ``value`` (an id of ``kind``, a key of :data:`KINDS`) on its page,
    on gaming day ``day``; ``context`` adds what the page needs beside the id (a shoe's
    ``table``)."""
    target = KINDS[kind]
    query = {target.param: str(value)}
    query.update({name: str(v) for name, v in context.items() if v is not None})
    if day is not None:
        query[DAY_PARAM] = day.isoformat()
    return Link(target.page, query, f"{target.noun} {markdown_text(value)}")


def show(link: Link) -> None:
    """Render ``link`` as a page link (the page opens in this tab; Back returns here)."""
    st.page_link(link.page, label=link.label, query_params=link.query)


def show_all(links: Iterable[Link]) -> None:
    """Several links side by side, wrapping when the line is full."""
    with st.container(horizontal=True, gap="small"):
        for link in links:
            show(link)


def of_row(ids: Mapping[str, object], day: date | None, table: object = None) -> list[Link]:
    """The links of the ids one row names (kind -> id; those it lacks left out); a shoe's
    link carries its ``table``, which its page needs beside the shoe."""
    return [
        link_to(kind, value, day, **({"table": table} if kind == "shoe" else {}))
        for kind, value in ids.items()
        if has_id(value)
    ]


def url_of(link: Link) -> str:
    """``link`` as a URL relative to the page showing it (every page is served beside the
    others, under the dashboards' base path): the page's path and the query, each character
    of an id that is not a letter, a digit or ``_.-~`` percent-encoded (a space too, as
    ``%20``), so that an id can become neither another parameter nor another address."""
    return f"{PAGE_PATHS[link.page]}?{urlencode(link.query, quote_via=quote)}"


def id_pattern(kind: str) -> str:
    """The regular expression by which a link column shows, of a URL of :func:`url_of` for
    an id of ``kind``, the id itself: its parameter's value, which the grid decodes."""
    return f"[?&]{KINDS[kind].param}=([^&#]*)"


def in_grid(
    frame: pd.DataFrame,
    day: date | None,
    column_config: Mapping[str, Any] | None = None,
    columns: Collection[str] | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``frame`` with each id column (:data:`ID_COLUMNS`; only those among ``columns`` when
    given) holding the URL of each id's page, and ``column_config`` with a link column for
    each, showing the id and keeping the label, width and help ``column_config`` gave it.

    Each link carries the row's own gaming day (its ``gaming_date``) where the frame has
    one, else ``day``; a shoe's link carries the row's table."""
    config = dict(column_config or {})
    linked = [c for c in frame.columns if c in ID_COLUMNS and (columns is None or c in columns)]
    if not linked:
        return frame, config
    days = (
        [_day_of(d, day) for d in frame["gaming_date"]]
        if "gaming_date" in frame
        else [day] * len(frame)
    )
    tables = list(frame["table_id"]) if "table_id" in frame else [None] * len(frame)
    out = frame.copy()
    for column in linked:
        kind = ID_COLUMNS[column]
        out[column] = [
            url_of(link_to(kind, _id_text(v), d, **({"table": t} if kind == "shoe" else {})))
            if has_id(v)
            else None
            for v, d, t in zip(frame[column], days, tables, strict=True)
        ]
        given = config.get(column) or {}
        config[column] = st.column_config.LinkColumn(
            given.get("label") or column,
            width=given.get("width"),
            help=given.get("help") or f"opens the {KINDS[kind].noun.lower()}'s page",
            display_text=id_pattern(kind),
            alignment="left",
        )
    return out, config


def _day_of(value: object, fallback: date | None) -> date | None:
    """A row's gaming day (a date, or a timestamp as pandas reads a DATE), else ``fallback``."""
    stamp = pd.Timestamp(str(value)) if has_id(value) else pd.NaT
    return fallback if pd.isna(stamp) else stamp.date()


def _id_text(value: object) -> object:
    """An id as its page names it: a Form serial a pandas float (a column with a missing
    serial) names as the whole number it is."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def has_id(value: object) -> bool:
    """Whether a cell holds an id to link (not missing, not NaN)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return False
    return str(value) != ""


def note_arrival() -> None:
    """At the start of every run (the entry script): whether the URL changed since the last
    run ended, that is whether a link, Back or Forward brought it (:func:`from_url`)."""
    now = _query_string()
    st.session_state[_NEWS_KEY] = st.session_state.get(_SEEN_KEY) != now


def note_departure() -> None:
    """At the end of every run, however it ends: the query string as the page left it."""
    st.session_state[_SEEN_KEY] = _query_string()


def from_url(keys: Iterable[str]) -> bool:
    """Before a page's widgets: when the URL came from outside the page, forget the values of
    the widgets ``keys`` so that they are read from it again. Returns whether it did."""
    news = bool(st.session_state.get(_NEWS_KEY, True))
    if news:
        for key in keys:
            st.session_state.pop(key, None)
    return news


def take(
    key: str,
    param: str,
    options: Collection[str] | Mapping[str, object],
    unknown: Callable[[str], str] | None = None,
) -> None:
    """Before the widget ``key`` is made, unless it already holds a value: take it from the
    URL's ``param`` when the URL's text is one of ``options`` (ids, or text in the URL ->
    the widget's value; a link must not smuggle in another). Text that is none of them is named
    in a warning, ``unknown`` given it escaped (:func:`~pipeline.safe_text.markdown_text`)
    and saying what was looked for where, and what to do; without ``unknown`` such a
    parameter is ignored quietly. The widget then shows its default."""
    wanted = st.query_params.get(param)
    if key in st.session_state or not wanted:
        return
    if wanted in options:
        st.session_state[key] = options[wanted] if isinstance(options, Mapping) else wanted
    elif unknown is not None:
        st.warning(unknown(markdown_text(wanted)), icon=":material/link_off:")


def restore_choices(filters: Mapping[str, tuple[str, Sequence[str]]]) -> None:
    """Before a page's multiselect filters (widget key -> its URL parameter and the values
    offered): when the URL came from outside the page (:func:`from_url`) or a filter has no
    value yet, take its values from the URL, only among those offered (a link never chooses
    a value the ledger does not hold)."""
    from_url(filters)
    for key, (param, offered) in filters.items():
        if key not in st.session_state:
            st.session_state[key] = [v for v in st.query_params.get_all(param) if v in offered]


def restore_tab(key: str, param: str, tabs: Mapping[str, str]) -> None:
    """Before a page's ``st.tabs`` (``key``; ``tabs``: each tab's value in the URL's
    ``param`` -> its label): when the URL came from outside the page or no tab is open yet,
    open the one the URL names (none named: the first). Set through the widget's state, not
    ``st.tabs(default=...)``: a default that follows the URL would make the tabs another
    widget whenever the URL changes, and drop the tab just chosen."""
    from_url([key])
    label = tabs.get(st.query_params.get(param) or "")
    if key not in st.session_state and label is not None:
        st.session_state[key] = label


def keep(
    values: Mapping[str, str | list[str] | None], defaults: Mapping[str, object] | None = None
) -> None:
    """Write a page's state into the URL: each parameter of ``values`` set, or removed when
    ``None``; a value equal to its entry in ``defaults`` is not added to a URL without it (a
    page opened bare stays bare). The query string is written only when it changes."""
    for param, value in values.items():
        if value is None:
            if param in st.query_params:
                del st.query_params[param]
        elif param not in st.query_params and (defaults or {}).get(param, ...) == value:
            continue
        elif isinstance(value, list):
            if st.query_params.get_all(param) != value:
                st.query_params[param] = value
        elif st.query_params.get(param) != value or len(st.query_params.get_all(param)) > 1:
            st.query_params[param] = value


def _query_string() -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((name, tuple(st.query_params.get_all(name))) for name in st.query_params)
