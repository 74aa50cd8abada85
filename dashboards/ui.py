"""Streamlit pieces every page shares: the sidebar (ledger snapshot, gaming day, who is
signed in), money formatting, and the acknowledge/escalate form.

Who is signed in
----------------
The dashboards act (acknowledge, escalate, build evidence bundles) only for a user they can
name with some proof, checked against the roles file (:mod:`pipeline.config.roles`):

- **OIDC sign-in**: when ``.streamlit/secrets.toml`` has an ``[auth]`` section (Streamlit's
  ``st.login``; needs Authlib), the sidebar offers "Sign in" and the user is the identity
  provider's ``email`` claim;
- **an authenticating reverse proxy**: the user named by the installation roles file's
  ``proxy_user_header`` (default ``X-Forwarded-User``), believed only when the request comes
  from an address in its ``trusted_proxies`` (none in the packaged example: a header from
  localhost names nobody until the administrator lists the proxy). Streamlit's server
  rewrites the client address from ``X-Forwarded-For`` for ``FORWARDED_ALLOW_IPS``
  (localhost by default), so a request carrying ``X-Forwarded-For`` is believed only when
  that rewriting is off (``FORWARDED_ALLOW_IPS=""``, as ``python -m dashboards.server``
  starts it).

Without either, the dashboards are read-only: anyone who reaches them can read, nobody can
act, and no name typed into a box is recorded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, NamedTuple, NoReturn
from zoneinfo import ZoneInfo

import pandas as pd
import streamlit as st

from dashboards import alarms, links, live, profiles, triage
from dashboards import queries as q
from dashboards.source import (
    LedgerUnavailable,
    Snapshot,
    journal,
    latest,
    ledger_path,
    read_copy,
    reader,
    snapshot,
)
from pipeline.bundle.acks import ACKNOWLEDGE, ASSIGN, ESCALATE, AckJournal, JournalError
from pipeline.config.catalog import gaming_day_of
from pipeline.config.installation import InstallationError
from pipeline.config.roles import (
    Action,
    Actor,
    NotAuthorizedError,
    Roles,
    RolesError,
    authorize,
    load_roles,
)
from pipeline.ledger import day_board, history
from pipeline.ledger.store import Ledger
from pipeline.quality.gate import stored_section
from pipeline.replay.findings import money
from pipeline.reports.close import day_report
from pipeline.reports.revisions import SealedFile, newest_sealed_file
from pipeline.rules.gaming_day import GamingDay
from pipeline.safe_text import csv_cell, markdown_text, visible
from pipeline.witness.record import NotWitnessedError

OIDC_SOURCE = "OIDC sign-in"
LOOPBACK = "localhost"
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
    actor: Actor | None
    """The signed-in user; None: the dashboards are read-only."""
    roles: Roles | None
    """None when the roles file cannot be read (the sidebar says why): nobody may act."""

    @contextmanager
    def ledger(self) -> Iterator[Ledger]:
        with reader(self.snapshot) as ledger:
            yield ledger

    def may(self, action: Action) -> bool:
        return (
            self.actor is not None
            and self.roles is not None
            and action in self.roles.actions_of(self.actor.name)
        )


def proxy_actor(roles: Roles) -> tuple[Actor | None, str | None]:
    """The user the request's proxy header names, if the request came from a trusted proxy;
    else (None, why the header was ignored) when there was one, (None, None) when not."""
    headers = st.context.headers
    header = roles.proxy_user_header
    values = headers.get_all(header)
    if not values:
        return None, None
    # st.context.ip_address is None for a loopback peer (and without a client, but then
    # there are no headers either)
    peer = st.context.ip_address or LOOPBACK
    trusted = (
        roles.trusts_proxy("127.0.0.1") or roles.trusts_proxy("::1")
        if peer == LOOPBACK
        else roles.trusts_proxy(peer)
    )
    if not trusted:
        return None, (
            f"Ignored the {header} header: the request came from {peer}, which is not one "
            f"of the trusted_proxies in {roles.path} (none is trusted until the "
            "installation's administrator lists the proxy there)."
        )
    if headers.get_all("X-Forwarded-For") and os.environ.get("FORWARDED_ALLOW_IPS") != "":
        return None, (
            f"Ignored the {header} header: the server takes client addresses from "
            "X-Forwarded-For, so the proxy's own address is unknown. Start the dashboards "
            'with `python -m dashboards.server` (or FORWARDED_ALLOW_IPS="").'
        )
    if len(values) > 1 or not values[0].strip():
        return None, f"Ignored the {header} header: it was sent {len(values)} times or empty."
    return Actor(values[0].strip(), f"proxy header {header} from {peer}"), None


def signed_in_as(actor: Actor) -> None:
    # st.text, not markdown: the name is the proxy's or the identity provider's data
    st.text(f"Signed in as {actor.name} ({actor.source})")


def oidc_configured() -> bool:
    """Whether ``.streamlit/secrets.toml`` configures Streamlit's OIDC sign-in."""
    return st.secrets.load_if_toml_exists() and "auth" in st.secrets


def _signed_in(roles: Roles) -> Actor | None:
    """Render who is signed in (or how to sign in) and return them."""
    # st.user has is_logged_in only when an [auth] section is configured
    if st.user.get("is_logged_in") is True:
        name = str(st.user.get("email") or st.user.get("name") or "")
        if name:
            signed_in_as(Actor(name, OIDC_SOURCE))
            if st.button("Sign out", key="sign_out"):
                st.logout()
            return Actor(name, OIDC_SOURCE)
    actor, ignored = proxy_actor(roles)
    if ignored:
        st.warning(ignored)
    if actor is not None:
        signed_in_as(actor)
        return actor
    st.caption("Not signed in: read-only.")
    if oidc_configured() and st.button("Sign in", key="sign_in"):
        st.login()
    return None


def sidebar() -> Context:
    """Render the sidebar and return the page context; stops the page when there is no
    ledger to show."""
    try:
        snap = snapshot()
        days = gaming_dates(snap)
        shown_ledger = ledger_id(snap)
    except LedgerUnavailable as err:
        unavailable(err)
    with st.sidebar:
        taken = local_wall(snap.taken_at)
        st.caption(
            f"Ledger `{snap.live}` (read-only snapshot of {taken:%H:%M:%S}, {casino_zone().key})"
        )
        if snap.busy:
            st.warning(f"Showing the last snapshot: {snap.busy}")
        day: date | None = None
        if days:
            links.from_url(["gaming_day"])
            wanted = st.query_params.get(links.DAY_PARAM)
            index = next((i for i, d in enumerate(days) if d.isoformat() == wanted), None)
            if wanted and index is None:
                st.warning(
                    f"The link's gaming day {markdown_text(wanted)} is not in the ledger: "
                    f"showing {days[0].isoformat()}. Choose another day below."
                )
            day = st.selectbox(
                "Gaming day", days, index=index or 0, key="gaming_day", format_func=date.isoformat
            )
            links.keep({links.DAY_PARAM: day.isoformat()}, {links.DAY_PARAM: days[0].isoformat()})
        else:
            st.info("The ledger has no replayed table-days yet.")
        roles: Roles | None = None
        actor: Actor | None = None
        try:
            roles = load_roles()
        except RolesError as err:
            st.error(f"Nobody can act until the roles file is mended: {err}")
        if roles is not None:
            actor = _signed_in(roles)
        live.sidebar_toggles()
        if st.button("Refresh data", key="refresh"):
            st.rerun()
    ctx = Context(snap, day, journal(shown_ledger), actor, roles)
    problems = ctx.journal.verify()
    if problems:
        st.error(
            f"The acknowledgement journal {ctx.journal.path} does not verify, so its records "
            "are not shown or counted and the close will refuse it: " + "; ".join(problems[:5])
        )
    st.session_state["_context"] = ctx
    return ctx


def unavailable(err: LedgerUnavailable) -> NoReturn:
    """Say why there is nothing to show (no ledger yet, a writer holding it, a file that is
    not a ledger) and stop the page; it runs again once the ledger file changes (a page
    opened before the first data never went live)."""
    st.error(str(err))
    with st.sidebar:
        live.sidebar_toggles()
    shown = latest()
    live.follow(live.NO_SNAPSHOT if shown is None else shown.key)
    st.stop()
    raise AssertionError("unreachable: st.stop() raises")


@st.cache_data(show_spinner=False, max_entries=8)
def _ledger_id(snapshot_key: str, snapshot_path: str) -> str | None:
    with read_copy(Path(snapshot_path)) as ledger:
        return ledger.ledger_id


def ledger_id(snap: Snapshot) -> str | None:
    """The shown ledger's id (its journal's records name it), read once per snapshot."""
    return _ledger_id(snap.key, str(snap.path))


@st.cache_data(show_spinner=False, max_entries=8)
def _gaming_dates(snapshot_key: str, snapshot_path: str) -> list[date]:
    with read_copy(Path(snapshot_path)) as ledger:
        return q.gaming_dates(ledger)


def gaming_dates(snap: Snapshot) -> list[date]:
    """The snapshot's gaming days (:func:`dashboards.queries.gaming_dates`), read once per
    snapshot: the sidebar of every page run asks, and opening the copy for it took longer
    than the query."""
    return _gaming_dates(snap.key, str(snap.path))


def current() -> Context:
    """The context the entry script built for this run."""
    ctx = st.session_state.get("_context")
    if not isinstance(ctx, Context):
        return sidebar()
    return ctx


def require_day(ctx: Context) -> date:
    """The gaming day chosen; without one, the page says so, runs again once the ledger
    changed (:func:`dashboards.live.follow`: a page opened before the first data showed
    nothing until reloaded) and stops."""
    if ctx.day is None:
        st.info("Nothing to show until a gaming day has been replayed into the ledger.")
        live.follow(ctx.snapshot.key)
        st.stop()
        raise RuntimeError("unreachable")
    return ctx.day


@st.cache_data(show_spinner="Verifying the close…", max_entries=8)
def _verified_close(
    snapshot_key: str, snapshot_path: str, day: date, journal_path: str
) -> list[str]:
    with read_copy(Path(snapshot_path)) as ledger:
        journal = AckJournal(journal_path, ledger_id=ledger.ledger_id, ledger=ledger_path())
        return q.close_problems(ledger, day, journal, ledger_path())


def verified_close(ctx: Context, day: date) -> list[str]:
    """What no longer matches the close of ``day``; computed once per snapshot."""
    return _verified_close(ctx.snapshot.key, str(ctx.snapshot.path), day, str(ctx.journal.path))


STATISTICS_PER = ("shoe", "table")
"""What the statistical alarms are grouped by; the first is the page's default."""


@st.cache_data(show_spinner="Computing against the exact odds…", max_entries=8)
def _moments(snapshot_key: str, snapshot_path: str, day: date) -> pd.DataFrame:
    with read_copy(Path(snapshot_path)) as ledger:
        return alarms.round_moments(q.round_results(ledger, day), alarms.rules_catalog())


@st.cache_data(show_spinner="Computing against the exact odds…", max_entries=8)
def _statistics(
    snapshot_key: str, snapshot_path: str, day: date, per: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    catalog = alarms.rules_catalog()
    with read_copy(Path(snapshot_path)) as ledger:
        counts = q.outcome_counts(ledger, day)
    moments = _moments(snapshot_key, snapshot_path, day)
    return alarms.outcome_alarms(counts, catalog, per), alarms.hold_alarms(moments, per)


def statistics(ctx: Context, day: date, per: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Outcome and hold alarms ``per`` shoe or table; computed once per snapshot."""
    outcomes, hold = _statistics(ctx.snapshot.key, str(ctx.snapshot.path), day, per)
    return outcomes.copy(), hold.copy()


def holds_by_table_and_pit(
    ctx: Context, day: date, pit_of: dict[str, str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The day's hold per table and per pit (``pit_of``: each table's pit) against the exact
    expectation of the stakes placed and its 95 % interval (:func:`alarms.hold_alarms`),
    each with ``alarm`` set where it falls outside, from the rounds' moments computed once
    per snapshot (the statistics page's too)."""
    moments = _moments(ctx.snapshot.key, str(ctx.snapshot.path), day)
    per_pit = moments.assign(pit=moments["table_id"].map(pit_of).fillna("(no pit)"))
    tables, pits = alarms.hold_alarms(moments, "table"), alarms.hold_alarms(per_pit, "pit")
    for hold in (tables, pits):
        hold["alarm"] = (
            hold["outside_95"].astype("boolean").fillna(False).astype(bool)
            if "outside_95" in hold
            else False
        )
    return tables, pits


def precompute_statistics(snap: Snapshot, day: date) -> None:
    """Fill :func:`statistics`' cache for ``day`` by the page's default grouping, before any
    page asks (the warm start, :mod:`dashboards.warm`): its first run is the slowest page run
    of a fresh server."""
    _statistics(snap.key, str(snap.path), day, STATISTICS_PER[0])


class Queue(NamedTuple):
    """What the exception queue reads from a snapshot for a gaming day."""

    rows: pd.DataFrame
    """The day's exceptions without their status (:func:`dashboards.queries.exception_rows`),
    but for those of rounds still in play (:func:`dashboards.queries.in_play`)."""
    in_play: int
    """How many exceptions of rounds still in play are left out of :attr:`rows`."""
    announced: set[str] | None
    """Those the live feed announced (:func:`dashboards.queries.announced_exceptions`)."""
    notices: pd.DataFrame
    """The ledger's notices of the day (:func:`dashboards.queries.day_notices`)."""
    labels: triage.Labels
    """Each exception's names in the page's pick lists."""
    acks: pd.DataFrame
    """The ledger's own acknowledgements (:func:`dashboards.queries.stored_acks`), to which
    the page adds the journal's."""


class DayExceptions(NamedTuple):
    """What the queue and the table board both read of a gaming day's exceptions."""

    rows: pd.DataFrame
    """Every exception of the day, without status (:func:`dashboards.queries.exception_rows`)."""
    announced: set[str] | None
    """Those the live feed announced (:func:`dashboards.queries.announced_exceptions`)."""
    acks: pd.DataFrame
    """The ledger's own acknowledgements (:func:`dashboards.queries.stored_acks`)."""


@st.cache_data(show_spinner=False, max_entries=8)
def _day_exceptions(snapshot_key: str, snapshot_path: str, day: date) -> DayExceptions:
    with read_copy(Path(snapshot_path)) as ledger:
        rows, announced = q.exception_rows(ledger, day), q.announced_exceptions(ledger, day)
        return DayExceptions(rows, announced, q.stored_acks(ledger))


@st.cache_data(show_spinner=False, max_entries=8)
def _queue(snapshot_key: str, snapshot_path: str, day: date) -> Queue:
    every, announced, acks = _day_exceptions(snapshot_key, snapshot_path, day)
    with read_copy(Path(snapshot_path)) as ledger:
        held = q.in_play(every, announced, q.open_tables(ledger, day))
        notices = q.day_notices(ledger, day)
    rows = every[~held].reset_index(drop=True)
    return Queue(rows, int(held.sum()), announced, notices, triage.labels(rows), acks)


def exception_queue(snap: Snapshot, day: date) -> Queue:
    """What the exception queue reads from the snapshot (:class:`Queue`), once per snapshot
    (the exceptions' query was most of the page's run, and is asked once for this page and
    the table board) whatever is acknowledged since: the page adds each exception's status
    from the journal's acknowledgements. The warm start (:mod:`dashboards.warm`) asks first,
    for the page a fresh server's first visitor opens."""
    return _queue(snap.key, str(snap.path), day)


@st.cache_data(show_spinner=False, max_entries=8)
def _people(snapshot_key: str, snapshot_path: str) -> tuple[list[str], list[str]]:
    with read_copy(Path(snapshot_path)) as ledger:
        return history.patrons(ledger), history.dealers(ledger)


def people(snap: Snapshot) -> tuple[list[str], list[str]]:
    """Every patron and every dealer the snapshot names, most active first
    (:func:`pipeline.ledger.history.patrons`, :func:`~pipeline.ledger.history.dealers`),
    once per snapshot: naming the dealers reads every round's start event. The warm start
    (:mod:`dashboards.warm`) asks first."""
    return _people(snap.key, str(snap.path))


@st.cache_data(show_spinner=False, max_entries=8)
def _dealer_peers(snapshot_key: str, snapshot_path: str) -> pd.DataFrame:
    with read_copy(Path(snapshot_path)) as ledger:
        return profiles.dealer_peers(ledger)


def dealer_peers(snap: Snapshot) -> pd.DataFrame:
    """Every dealer's rate of exceptions per 1,000 rounds dealt
    (:func:`dashboards.profiles.dealer_peers`), once per snapshot, like :func:`people`."""
    return _dealer_peers(snap.key, str(snap.path))


class Board(NamedTuple):
    """What the table board reads from a snapshot for a gaming day."""

    tables: pd.DataFrame
    """Per table, what the ledger alone says of it (:func:`dashboards.queries.board_rows`)."""
    facts: pd.DataFrame
    """Per table, its last event and whether it is closed
    (:func:`pipeline.ledger.day_board.floor_facts`)."""
    exceptions: pd.DataFrame
    """The day's exceptions without their status (:func:`dashboards.queries.exception_rows`),
    those of rounds still in play included: the board counts every open one."""
    acks: pd.DataFrame
    """The ledger's own acknowledgements (:func:`dashboards.queries.stored_acks`), to which
    the page adds the journal's."""
    announced: set[str] | None
    """Those the live feed announced (:func:`dashboards.queries.announced_exceptions`)."""


@st.cache_data(show_spinner=False, max_entries=8)
def _board(snapshot_key: str, snapshot_path: str, day: date) -> Board:
    every, announced, acks = _day_exceptions(snapshot_key, snapshot_path, day)
    with read_copy(Path(snapshot_path)) as ledger:
        return Board(
            q.board_rows(ledger, day), day_board.floor_facts(ledger, day), every, acks, announced
        )


def table_board(snap: Snapshot, day: date) -> Board:
    """What the table board reads from the snapshot (:class:`Board`), once per snapshot
    whatever is acknowledged since (the page adds the journal's acknowledgements): its
    queries were 0.7-1.2 s of a first visit on a 24-table day. The warm start
    (:mod:`dashboards.warm`) asks first for the latest day."""
    return _board(snap.key, str(snap.path), day)


class CloseFigures(NamedTuple):
    """What the close page reads from a snapshot for a gaming day."""

    report: dict[str, Any]
    """The day's report (:func:`pipeline.reports.close.day_report`) with its quality
    section."""
    status: dict[str, Any] | None
    """The day's close status (:func:`dashboards.queries.gaming_day_status`); None: not
    closed."""
    previous_chain: str | None
    by_wager: pd.DataFrame
    """Win by wager type, recorded against expected (:func:`dashboards.queries.win_by_wager`)."""
    sealed: dict[str, SealedFile | None]
    """Per suffix (``.html``, ``.xlsx``), the newest revision's sealed report file, checked
    against its seal (:func:`pipeline.reports.revisions.newest_sealed_file`)."""


SEALED_SUFFIXES = (".html", ".xlsx")


@st.cache_data(show_spinner=False, max_entries=8)
def _close_figures(snapshot_key: str, snapshot_path: str, day: date, live: str) -> CloseFigures:
    with read_copy(Path(snapshot_path)) as ledger:
        report = day_report(ledger, day)
        report["quality"] = stored_section(ledger, day)
        return CloseFigures(
            report,
            q.gaming_day_status(ledger, day),
            q.previous_chain(ledger, day),
            q.win_by_wager(ledger, day),
            {s: newest_sealed_file(ledger, Path(live), day, s) for s in SEALED_SUFFIXES},
        )


def close_figures(snap: Snapshot, day: date) -> CloseFigures:
    """The close page's figures of ``day`` (:class:`CloseFigures`), once per snapshot: the
    day's report, and the sealed files rendered again from their seal and compared, were
    most of a first visit to the page. The warm start (:mod:`dashboards.warm`) asks first
    for the latest day."""
    return _close_figures(snap.key, str(snap.path), day, str(ledger_path()))


class RoundStart(NamedTuple):
    """What the round reconstruction offers on a gaming day before a round is chosen."""

    tables: list[str]
    """The day's tables (:func:`dashboards.queries.table_days`)."""
    first_exception: tuple[str, str, str] | None
    """(table, shoe, round) of the day's most severe exception that names a round
    (:func:`dashboards.queries.first_exception_round`): where the page opens."""


@st.cache_data(show_spinner=False, max_entries=8)
def _round_start(snapshot_key: str, snapshot_path: str, day: date) -> RoundStart:
    with read_copy(Path(snapshot_path)) as ledger:
        tables = [str(t) for t in q.table_days(ledger, day)["table_id"]]
        return RoundStart(tables, q.first_exception_round(ledger, day))


def round_start(snap: Snapshot, day: date) -> RoundStart:
    """The round reconstruction's tables and opening round of ``day`` (:class:`RoundStart`),
    once per snapshot. The warm start (:mod:`dashboards.warm`) asks first for the latest
    day, with the opening round's table and play (:func:`table_rounds`,
    :func:`round_play`)."""
    return _round_start(snap.key, str(snap.path), day)


@st.cache_data(show_spinner=False, max_entries=64)
def _table_rounds(
    snapshot_key: str, snapshot_path: str, day: date, table_id: str
) -> tuple[list[str], pd.DataFrame]:
    with read_copy(Path(snapshot_path)) as ledger:
        return q.shoes(ledger, day, table_id), q.rounds(ledger, day, table_id)


def table_rounds(snap: Snapshot, day: date, table_id: str) -> tuple[list[str], pd.DataFrame]:
    """A table-day's shoes in the order their first round started and its rounds in the
    order they started (:func:`dashboards.queries.shoes`, :func:`~dashboards.queries.rounds`),
    once per snapshot: choosing another shoe of the table reads nothing again."""
    return _table_rounds(snap.key, str(snap.path), day, table_id)


class RoundPlay(NamedTuple):
    """What the round reconstruction reads of one round."""

    info: dict[str, Any]
    """The round's row with its table-day's game, rules, pit and dealer
    (:func:`dashboards.queries.round_row`)."""
    cards: pd.DataFrame
    settlements: pd.DataFrame
    """Every wager, expected against recorded (:func:`dashboards.queries.round_settlements`)."""
    exceptions: pd.DataFrame


@st.cache_data(show_spinner=False, max_entries=64)
def _round_play(snapshot_key: str, snapshot_path: str, round_id: str) -> RoundPlay | None:
    with read_copy(Path(snapshot_path)) as ledger:
        info = q.round_row(ledger, round_id)
        if info is None:
            return None
        table_id, rid = str(info["table_id"]), str(info["round_id"])
        return RoundPlay(
            info,
            q.round_cards(ledger, table_id, rid),
            q.round_settlements(ledger, table_id, rid),
            q.round_exceptions(ledger, table_id, rid),
        )


def round_play(snap: Snapshot, round_id: str) -> RoundPlay | None:
    """The round ``round_id`` as the snapshot holds it (:class:`RoundPlay`; None: no such
    round), once per snapshot: its four questions were most of the page's first run."""
    return _round_play(snap.key, str(snap.path), round_id)


class Evidence(NamedTuple):
    """The events an exception rests on, as the queue shows them."""

    events: pd.DataFrame
    """Their stored deliveries (:func:`dashboards.queries.evidence`)."""
    lines: list[str]
    """Told as a person reads them, on the casino's clock
    (:func:`dashboards.queries.evidence_lines`)."""


@st.cache_data(show_spinner=False, max_entries=64)
def _evidence(
    snapshot_key: str, snapshot_path: str, table_id: str, event_ids: tuple[str, ...]
) -> Evidence:
    with read_copy(Path(snapshot_path)) as ledger:
        return Evidence(
            q.evidence(ledger, table_id, event_ids),
            q.evidence_lines(ledger, table_id, event_ids, casino_zone()),
        )


def evidence(snap: Snapshot, table_id: str, event_ids: Sequence[str]) -> Evidence:
    """The events of ``table_id`` an exception cites (:class:`Evidence`), once per snapshot
    and exception: every run of the queue (a row ticked, a filter, words typed) showed the
    open exception's again, two scans of the table's deliveries (0.13 s on a 24-table day).
    The warm start asks first for the queue's first exception (:func:`precompute_queue`)."""
    return _evidence(snap.key, str(snap.path), table_id, tuple(event_ids))


def precompute_queue(snap: Snapshot, day: date) -> None:
    """Fill the exception queue's caches for ``day`` before any page asks (the warm start,
    :mod:`dashboards.warm`): its rows (:func:`exception_queue`) and the evidence of the first
    one, which the page opens by itself (:func:`evidence`)."""
    rows = exception_queue(snap, day).rows
    if len(rows):
        cited = rows["source_event_ids"].iloc[0]
        evidence(snap, str(rows["table_id"].iloc[0]), [] if cited is None else list(cited))


def precompute_round_start(snap: Snapshot, day: date) -> None:
    """Fill the round reconstruction's caches for ``day``'s opening round before any page
    asks (the warm start, :mod:`dashboards.warm`)."""
    first = round_start(snap, day).first_exception
    if first is not None:
        table_rounds(snap, day, first[0])
        round_play(snap, first[2])


def gaming_day() -> GamingDay:
    """The casino's gaming day (start and time zone), from the rule catalog."""
    return gaming_day_of(alarms.rules_catalog())


def casino_zone() -> ZoneInfo:
    """The casino's time zone: every time a person reads on these pages is on the casino's
    clock (the devices stamp UTC)."""
    return gaming_day().zone


def local_times(values: pd.Series) -> pd.Series:
    """Aware timestamps (:func:`dashboards.queries.micros_series`) on the casino's clock."""
    return values.dt.tz_convert(casino_zone())


def local_label(what: str) -> str:
    """A column or control label saying which clock its times are on."""
    return f"{what} ({casino_zone().key})"


def local_wall(instant: datetime | pd.Timestamp) -> datetime:
    """An instant (aware, or naive UTC as DuckDB returns a TIMESTAMP) as the casino's
    wall-clock time, without a zone (for widgets and captions)."""
    stamp = pd.Timestamp(instant)
    if stamp.tzinfo is None:
        stamp = stamp.tz_localize("UTC")
    wall: datetime = stamp.tz_convert(casino_zone()).to_pydatetime()
    return wall.replace(tzinfo=None)


def from_local_wall(wall: datetime) -> datetime:
    """The casino's wall-clock time as an aware instant; an hour repeated when the clocks go
    back means its first occurrence (fold 0), an hour skipped in spring the instant after."""
    return wall.replace(tzinfo=casino_zone())


def dollars(df: pd.DataFrame, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Copy of ``df`` with ``*_cents`` columns (or ``columns``) as dollar floats, renamed
    without the suffix."""
    out = df.copy()
    wanted = columns or [c for c in df.columns if str(c).endswith("_cents")]
    chosen = [c for c in wanted if c in out]
    for column in chosen:
        out[column] = pd.to_numeric(out[column], errors="coerce") / 100
    # one rename for all: a rename per column copied the frame once per column
    return out.rename(columns={c: str(c).removesuffix("_cents") for c in chosen})


MONEY_WORDS = ("handle", "win", "vig", "paid", "stake", "amount", "comp", "difference", "net")
"""Words that mark a dollar column of a :func:`dollars` frame."""


EMPTY_CELL = "—"
"""What a grid (``st.dataframe``'s ``placeholder``) shows for a missing value: an em dash,
not Streamlit's default "None", which reads as a device string."""

DAY_COLUMN = st.column_config.DateColumn("gaming day", format="YYYY-MM-DD")


def ledger_table(df: pd.DataFrame, key: str, day: date | None = None, **column_config: Any) -> None:
    """Ledger rows as a table (:func:`grid`, its ids links on ``day`` or the row's own gaming
    day): cents as dollars (:func:`dollars`, :func:`money_config`), the gaming day as a date,
    and ``column_config`` for the frame's own columns."""
    view = dollars(df)
    grid(
        view,
        key,
        day,
        column_config={**money_config(view), "gaming_date": DAY_COLUMN, **column_config},
    )


def grid(
    df: pd.DataFrame,
    key: str,
    day: date | None,
    column_config: dict[str, Any] | None = None,
    linked: Collection[str] | None = None,
    **options: Any,
) -> Any:
    """``df`` as a grid (``st.dataframe`` with ``options``) whose id columns (those of
    :data:`dashboards.links.ID_COLUMNS`, or only ``linked``) are links to their pages on
    ``day`` (:func:`dashboards.links.in_grid`); returns what ``st.dataframe`` returns (the
    selection, for a grid that selects)."""
    shown, config = links.in_grid(df, day, column_config, linked)
    return st.dataframe(
        shown,
        **{"hide_index": True, "width": "stretch", "placeholder": EMPTY_CELL, **options},
        key=key,
        column_config=config,
    )


def money_config(df: pd.DataFrame) -> dict[str, Any]:
    """Column config showing every dollar column of a :func:`dollars` frame as money."""
    return {
        str(c): st.column_config.NumberColumn(str(c), format="dollar")
        for c in df.columns
        if df[c].dtype.kind == "f" and any(k in str(c) for k in MONEY_WORDS)
    }


def csv_download(df: pd.DataFrame) -> str:
    """``df`` as a CSV file to download, every cell through
    :func:`~pipeline.safe_text.csv_cell`: device strings start no spreadsheet formula and
    hide no control or bidi character; numbers stay numbers."""
    return str(df.map(csv_cell).to_csv(index=False))


def visible_cells(values: Iterable[Any]) -> list[str | None]:
    """Strings a person typed as ``st.dataframe`` cells (plain text): control and bidi
    characters shown (:func:`~pipeline.safe_text.visible`); a missing value stays empty."""
    return [visible(v) if isinstance(v, str) else None for v in values]


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


ACTION_LABELS = {ACKNOWLEDGE: "Acknowledge", ESCALATE: "Escalate", ASSIGN: "Assign"}
TRIAGE_ACTIONS = frozenset({Action.ACKNOWLEDGE, Action.ESCALATE, Action.ASSIGN})


def ack_form(
    ctx: Context,
    targets: Sequence[tuple[str, str]],
    key: str = "ack",
    on_recorded: Callable[[], None] | None = None,
) -> None:
    """Acknowledge, escalate or assign the ``targets`` ((exception id, table id) pairs: one,
    or the rows selected in the queue) with one note; one journal record each. An assignment
    names who holds them (the signed-in user when left blank). Shown only to a signed-in user
    whose roles allow it. ``on_recorded`` runs once every record is in the journal, before
    the page runs again (the queue forgets the rows chosen)."""
    actor, roles = ctx.actor, ctx.roles
    if actor is None or roles is None:
        st.info("Sign in to acknowledge or escalate: without a signed-in user this is read-only.")
        return
    if not TRIAGE_ACTIONS & roles.actions_of(actor.name):
        st.info(
            f"{actor.name} may not acknowledge or escalate: that needs the analyst or admin "
            f"role in {roles.path}."
        )
        return
    with st.form(key=f"{key}-form", clear_on_submit=True):
        action = st.radio(
            "Action",
            list(ACTION_LABELS),
            horizontal=True,
            key=f"{key}-action",
            format_func=ACTION_LABELS.__getitem__,
        )
        holder = st.text_input(
            "Assign to (for Assign; blank: yourself)",
            key=f"{key}-assignee",
            help="who holds the exception from now on: a name or badge id of the roles file",
        )
        note = st.text_area("Note (why; required)", key=f"{key}-note")
        label = "Record" if len(targets) == 1 else f"Record for all {len(targets)}"
        submitted = st.form_submit_button(label, key=f"{key}-submit")
    if submitted:
        assignee = (holder.strip() or actor.name) if action == ASSIGN else holder
        records = []
        try:
            authorize(actor, Action[action], roles)
            for exception_id, table_id in targets:
                records.append(
                    ctx.journal.append(
                        exception_id=exception_id,
                        action=action,
                        note=note,
                        actor=actor.name,
                        actor_source=actor.source,
                        table_id=table_id,
                        gaming_date=ctx.day,
                        assignee=assignee or None,
                    )
                )
        except (JournalError, NotAuthorizedError, InstallationError, NotWitnessedError) as err:
            done = f" ({len(records)} of {len(targets)} recorded before it)" if records else ""
            st.error(markdown_text(f"{err}{done}"))
            return
        first = records[0]
        what = (
            f"exception {first.exception_id}"
            if len(records) == 1
            else f"{len(records)} exceptions ({', '.join(r.exception_id for r in records)})"
        )
        # the holder is typed by a person: visible() shows a control character it carries
        to = f" to {visible(first.assignee)}" if first.assignee is not None else ""
        st.session_state["_flash"] = (
            f"{first.action}{to} of {what} recorded by {first.actor} at {first.acted_at} "
            f"(journal {ctx.journal.path.name}, record "
            f"{', '.join(r.link[:12] for r in records)})."
        )
        if on_recorded is not None:
            on_recorded()
        st.rerun()


def flash() -> None:
    """Show (once) the confirmation an action left before its rerun."""
    message = st.session_state.pop("_flash", None)
    if message:
        st.success(markdown_text(message))  # it names the actor and the exception
        st.toast(markdown_text(message), icon=":material/check_circle:")  # where one looks
