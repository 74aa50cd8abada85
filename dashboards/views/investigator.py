"""Compliance: one patron's play and one dealer's record, across every gaming day the ledger
holds. A link can carry the choice (``?patron=...`` or ``?dealer=...``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import altair as alt
import pandas as pd
import streamlit as st

from dashboards import charts, links, profiles, ui
from dashboards import queries as q
from pipeline.ledger import history
from pipeline.safe_text import markdown_text, visible

ctx = ui.current()
st.title("Patrons and dealers")
st.caption(
    "Across every gaming day in the ledger. A patron's net result is what the recorded "
    "settlements gave the patron (winnings paid less losing stakes), before vigorish, which "
    "is shown apart. A dealer's rate is exceptions in the rounds the dealer dealt per 1,000 "
    "of those rounds. These figures say where to look; they accuse no one."
)

patron_ids, dealer_ids = ui.people(ctx.snapshot)


@dataclass(frozen=True)
class Record:
    """What a tab reads of the one person chosen, across every gaming day."""

    metrics: dict[str, str | int]
    chart: alt.LayerChart | None
    chart_title: str
    """Markdown above the chart."""
    grids: list[tuple[str | None, str, pd.DataFrame]]
    """Each grid's heading (Markdown; None: none), widget key and ledger rows."""


@dataclass(frozen=True)
class Person:
    """A tab of one kind of person: whom it offers, how it reads one, and what it adds."""

    kind: str
    """The id's kind (:data:`dashboards.links.KINDS`), also the URL's parameter."""
    label: str
    nobody: str
    """Said when the ledger names no one of the kind."""
    ids: list[str]
    per_row: int
    """Figures side by side."""
    read: Callable[[str], Record]
    more: Callable[[str], None] | None = None
    """What the tab shows after the record (the dealer's gaming day)."""

    @property
    def key(self) -> str:
        return f"inv_{self.kind}"


def patron_record(patron: str) -> Record:
    """A patron's play: handle, net result and vigorish by gaming day, Forms, exceptions."""
    with ctx.ledger() as ledger:
        days = history.patron_days(ledger, patron)
        forms = history.patron_forms(ledger, patron)
        findings = history.patron_exceptions(ledger, patron)
        played = history.patron_rounds(ledger, patron)
    return Record(
        {
            "Handle": ui.fmt_money(int(days["handle_cents"].sum())),
            "Net result": ui.fmt_money(int(days["net_cents"].sum())),
            "Vigorish": ui.fmt_money(int(days["vig_cents"].sum())),
            "Gaming days": len(days),
            "Forms": int(days["forms"].sum()),
            "Exceptions": int(days["exceptions"].sum()),
        },
        charts.patron_play(played, ui.casino_zone()),
        "**Stakes and running result, round by round** (times on the casino's clock, "
        f"{ui.casino_zone().key}, in each round's tooltip)",
        [
            (None, "inv_patron_days", days),
            ("**Complimentary Vigorish Forms**", "inv_patron_forms", forms),
            ("**Exceptions naming the patron**", "inv_patron_exceptions", findings),
        ],
    )


def dealer_record(dealer: str) -> Record:
    """A dealer's record: rounds dealt and exceptions in them by gaming day and rule code,
    against every other dealer."""
    with ctx.ledger() as ledger:
        dealt = profiles.dealer_days(ledger, dealer)
        codes = profiles.dealer_codes(ledger, dealer)
    rounds = int(dealt["rounds"].sum())
    found = int(dealt["exceptions"].sum())
    return Record(
        {
            "Gaming days": len(dealt),
            "Rounds dealt": f"{rounds:,}",
            "Exceptions": found,
            "Per 1,000 rounds": f"{1000 * found / rounds:.1f}" if rounds else "-",
        },
        charts.dealer_peers(ui.dealer_peers(ctx.snapshot), dealer),
        "**Exceptions per 1,000 rounds dealt, against every other dealer**",
        [
            (None, "inv_dealer_days", dealt),
            ("**Exceptions by rule code**", "inv_dealer_codes", codes),
        ],
    )


def dealer_day(dealer: str) -> None:
    """The rounds the dealer dealt on the sidebar's gaming day, and the exceptions in them."""
    if ctx.day is None:
        return
    with ctx.ledger() as ledger:
        that_day = history.dealer_day(ledger, dealer, ctx.day)
    st.subheader(f"Gaming day {ctx.day.isoformat()}")
    if that_day.rounds.empty:
        st.caption("The dealer dealt no round on this gaming day.")
        return
    tables = list(dict.fromkeys(that_day.rounds["table_id"]))
    st.caption(
        f"{len(that_day.rounds):,} rounds dealt at {len(tables)} table(s), "
        f"{len(that_day.exceptions)} exception(s) in them."
    )
    links.show_all(
        [
            *(links.link_to("table", table, ctx.day) for table in tables),
            links.link_to("dealer_exceptions", dealer, ctx.day),
        ]
    )
    rounds_dealt = that_day.rounds
    ui.ledger_table(
        rounds_dealt.assign(
            started=ui.local_times(q.micros_series(rounds_dealt["started_at"]))
        ).drop(columns=["started_at"]),
        "inv_dealer_rounds",
        ctx.day,
        started=st.column_config.DatetimeColumn(ui.local_label("started"), format="HH:mm:ss"),
    )
    st.markdown("**Exceptions in the rounds dealt**")
    ui.ledger_table(that_day.exceptions, "inv_dealer_exceptions", ctx.day)


PEOPLE = (
    Person("patron", "Patron", "No patron wagered or was named on a Form.", patron_ids, 3,
           patron_record),
    Person("dealer", "Dealer", "No dealer is named on a played round.", dealer_ids, 4,
           dealer_record, dealer_day),
)  # fmt: skip


def show(person: Person) -> None:
    """The tab of ``person``'s kind: choose one (kept in the URL), then their record."""
    if not person.ids:
        st.info(person.nobody)
        return
    links.take(
        person.key,
        links.KINDS[person.kind].param,
        person.ids,
        lambda wanted: (
            f"No {person.kind} {wanted} in the ledger: the link may be mistyped or from "
            f"another ledger. Showing {markdown_text(person.ids[0])}; choose another below."
        ),
    )
    chosen = st.selectbox(person.label, person.ids, key=person.key, format_func=visible)
    links.keep({person.kind: chosen}, {person.kind: person.ids[0]})
    record = person.read(chosen)
    figures = list(record.metrics.items())
    for row in range(0, len(figures), person.per_row):
        for column, (label, value) in zip(
            st.columns(person.per_row), figures[row : row + person.per_row], strict=False
        ):
            column.metric(label, value)
    if record.chart is not None:
        st.markdown(record.chart_title)
        st.altair_chart(record.chart, width="stretch", key=f"{person.key}_chart")
    for heading, key, rows in record.grids:
        if heading is not None:
            st.markdown(heading)
        ui.ledger_table(rows, key, ctx.day)
    if person.more is not None:
        person.more(chosen)


links.from_url([person.key for person in PEOPLE])
TABS = ("Patron profile", "Dealer report", "Unresolved across days")
TAB_KEY = "inv_tab"
for person in PEOPLE:  # a tab not run drops its widgets' state
    if person.key in st.session_state:
        st.session_state[person.key] = st.session_state[person.key]
# Only the open tab runs: the three together read the whole ledger, patrons, dealers and
# every day's exceptions, and drew seven grids on a first visit (the slowest first load).
patron_tab, dealer_tab, queue_tab = st.tabs(
    list(TABS),
    key=TAB_KEY,
    on_change="rerun",
    default=TABS[1] if "dealer" in st.query_params and "patron" not in st.query_params else None,
)
for person, tab in zip(PEOPLE, (patron_tab, dealer_tab), strict=True):
    if tab.open:
        with tab:
            show(person)

if queue_tab.open:
    with queue_tab:
        with ctx.ledger() as ledger:
            unresolved = profiles.unresolved_across_days(ledger, ctx.journal)
        st.caption(
            "Every exception not acknowledged, on every gaming day in the ledger, most severe and "
            "oldest first. Acknowledge or escalate them on the exception queue of their day."
        )
        if unresolved.empty:
            st.success("Nothing unresolved on any gaming day.")
        else:
            counts = unresolved.groupby(["gaming_date", "severity"]).size().unstack(fill_value=0)
            st.dataframe(counts, width="stretch", key="inv_unresolved_counts")
            ui.ledger_table(unresolved, "inv_unresolved")
