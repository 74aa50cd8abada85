"""Live pages: follow the ledger while the stream writes it, and mark what is new.

- :func:`follow` puts a small fragment on the page that checks the ledger file every
  :data:`LIVE_SECONDS` (``$BACCARAT_LIVE_SECONDS``, default 1) and reruns the page as soon as
  a new snapshot is taken, so the queue and the board update without a click. The stream
  consumer lends the ledger between batches (``stream --lend-every``) so a snapshot can be
  taken while it runs.
- :class:`NewSince` remembers, per gaming day, the exceptions the user has seen: those on
  screen when the day was first shown, plus those the user marked as seen. Everything else
  is new: marked in the tables, announced, and for CRITICAL ones a red banner, a toast and,
  when the user turned it on in the sidebar, a short tone. On a streamed ledger only the
  exceptions the live feed announced can be new (not those of a round still in play,
  :func:`dashboards.queries.announced_exceptions`).
- With the live exceptions feed on (:mod:`dashboards.feed`), the exception queue does not
  wait for a snapshot: a fragment of the page reads the feed every :data:`FEED_SECONDS`
  (``$BACCARAT_FEED_SECONDS``, default 0.5) and shows the exceptions it announced that the
  snapshot does not hold yet, marked unconfirmed, until a snapshot confirms them
  (:func:`unconfirmed`); the server then takes a new snapshot every
  :data:`CONFIRM_SECONDS` on its own thread, and pages never wait for one.
"""

from __future__ import annotations

import functools
import io
import math
import os
import struct
import wave
from collections.abc import Iterable
from datetime import date

import pandas as pd
import streamlit as st

from dashboards import feed
from dashboards.source import LedgerUnavailable, latest, refresher, snapshot
from pipeline.safe_text import markdown_text
from pipeline.stream.settings import KafkaSettingsError

LIVE_SECONDS = float(os.environ.get("BACCARAT_LIVE_SECONDS") or 1.0)
"""How often a live page checks whether the ledger changed."""
FEED_SECONDS = float(os.environ.get("BACCARAT_FEED_SECONDS") or 0.5)
"""How often the exception queue reads the live exceptions feed (memory, not the ledger)."""
CONFIRM_SECONDS = float(os.environ.get("BACCARAT_CONFIRM_SECONDS") or 5.0)
"""With the feed on, how often the server takes a new snapshot (instead of each page run,
every :data:`LIVE_SECONDS`): the feed shows new exceptions at once, the snapshot confirms
them. Each new snapshot reruns the whole page, during which the feed's part waits."""
NO_SNAPSHOT = ""
"""The snapshot key a page that could take none shows: any snapshot differs from it."""
LIVE_KEY = "live_updates"
SOUND_KEY = "live_sound"
CRITICAL = "CRITICAL"


def follow(shown_key: str) -> None:
    """Rerun the whole page once the ledger differs from the snapshot ``shown_key`` (the
    page's :attr:`~dashboards.source.Snapshot.key`), unless live updates are off. With the
    live feed configured, the snapshots are taken by the server every
    :data:`CONFIRM_SECONDS` (:func:`dashboards.source.refresher`) and the page only looks at
    the last one."""
    if st.session_state.get(LIVE_KEY, True):
        _watch(shown_key)


@st.fragment(run_every=LIVE_SECONDS)
def _watch(shown_key: str) -> None:
    if feed.configured():
        # at every check, not once per page run: the refresher of a ledger that does not
        # exist yet ends, and a page waiting for its first snapshot has no run to start one
        refresher(CONFIRM_SECONDS)
    try:
        fresh = latest() if feed.configured() else snapshot()
    except LedgerUnavailable:
        return  # the sidebar says so on the next full run
    if fresh is not None and fresh.key != shown_key:
        st.rerun(scope="app")


def exceptions_feed() -> feed.ExceptionFeed | None:
    """The live exceptions feed, when it is configured and live updates are on; says why
    not when its settings cannot work."""
    if not st.session_state.get(LIVE_KEY, True):
        return None
    try:
        return feed.exceptions_feed()
    except KafkaSettingsError as err:
        st.error(f"The live exceptions feed is off: {markdown_text(err)}")
        return None


def unconfirmed(
    following: feed.ExceptionFeed | None,
    day: date,
    ledger_notices: pd.DataFrame,
    listed: Iterable[str],
) -> feed.Reconciled:
    """What the feed says of ``day`` against the snapshot's notices and the exceptions it
    lists (:func:`dashboards.feed.reconcile`); a contradiction or a feed that lost its broker
    is said on the page."""
    if following is None:
        return feed.Reconciled()
    if following.problem is not None:
        st.caption(f"Live exceptions feed: {markdown_text(following.problem)}; retrying.")
    found = feed.reconcile(following.notices(day), ledger_notices, {str(i) for i in listed})
    for notice in found.mismatched:
        st.error(
            f"The ledger contradicts the live feed on exception "
            f"`{markdown_text(notice.exception_id)}` (notice {notice.notice_seq}): the queue "
            "shows what the ledger holds.",
            icon=":material/sync_problem:",
        )
    return found


class NewSince:
    """The exceptions of ``day`` the user has not seen yet (see the module doc)."""

    def __init__(
        self, day: date, exception_ids: Iterable[str], announced: set[str] | None = None
    ) -> None:
        self.day = day
        self.ids = {str(i) for i in exception_ids}
        if announced is not None:
            self.ids &= announced
        seen: dict[date, set[str]] = st.session_state.setdefault("_seen_exceptions", {})
        self.seen = seen.setdefault(day, set(self.ids))
        self.new = self.ids - self.seen

    def mark(self, frame: pd.DataFrame, column: str = "exception_id") -> pd.DataFrame:
        """``frame`` with a boolean ``new`` column, new rows first (order kept otherwise)."""
        marked = frame.assign(new=frame[column].astype(str).isin(self.new))
        return marked.sort_values("new", ascending=False, kind="stable")

    def announce(self, frame: pd.DataFrame, key: str) -> None:
        """Say how many exceptions are new, with a button to mark them seen; for new
        CRITICAL ones a banner naming them, a toast and, if asked for, a tone."""
        if not self.new:
            return
        new = frame[frame["exception_id"].astype(str).isin(self.new)]
        critical = new[new["severity"] == CRITICAL]
        if len(critical):
            names = "; ".join(
                f"{row.code} at table {markdown_text(row.table_id)}"
                + (
                    f", round {markdown_text(row.round_id)}"
                    if isinstance(row.round_id, str)
                    else ""
                )
                for row in critical.head(5).itertuples()
            )
            more = f" and {len(critical) - 5} more" if len(critical) > 5 else ""
            st.error(
                f"**{len(critical)} new CRITICAL exception(s)** since you last looked: "
                f"{names}{more}.",
                icon=":material/notifications_active:",
            )
            self._toast_and_tone(set(critical["exception_id"].astype(str)))
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.info(f"{len(self.new)} new exception(s) since you last looked, marked *new* below.")
        if c2.button("Mark all as seen", key=f"{key}-seen"):
            self.seen |= self.new
            st.rerun()

    def _toast_and_tone(self, critical: set[str]) -> None:
        announced: set[str] = st.session_state.setdefault("_announced_critical", set())
        fresh = critical - announced
        if not fresh:
            return
        announced |= fresh
        st.toast(f"{len(fresh)} new CRITICAL exception(s)", icon=":material/warning:")
        if st.session_state.get(SOUND_KEY, False):
            st.audio(tone(), format="audio/wav", autoplay=True)


def sidebar_toggles() -> None:
    """The sidebar's switches for live updates and the CRITICAL tone."""
    st.toggle(
        "Live updates",
        value=True,
        key=LIVE_KEY,
        help=f"check the ledger every {LIVE_SECONDS:g} s and show changes without a click",
    )
    st.toggle("Sound for new CRITICAL exceptions", value=False, key=SOUND_KEY)


@functools.cache
def tone(hertz: int = 880, seconds: float = 0.4, rate: int = 8000) -> bytes:
    """A short sine tone as a WAV file (made here: nothing is fetched)."""
    frames = b"".join(
        struct.pack("<h", int(12000 * math.sin(2 * math.pi * hertz * i / rate)))
        for i in range(int(seconds * rate))
    )
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(frames)
    return out.getvalue()
