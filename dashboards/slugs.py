"""The reads of the slug page (``views/slugs.py``): a day's false-shuffle exceptions, the
cards of the slug beside the cards of the shoe it repeats, and the wagers on the rounds dealt
from it. Plain functions of a read-only ledger, like :mod:`dashboards.queries`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import pandas as pd

from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger import round_play
from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger
from pipeline.rules.codes import code_for
from pipeline.rules.games import Game

SLUG_CODES: tuple[str, ...] = tuple(sorted({code_for(g, "false_shuffle") for g in Game}))
"""The false-shuffle codes (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a)), one per game."""


def slug_exceptions(ledger: Ledger, day: date) -> pd.DataFrame:
    """The day's false-shuffle exceptions, most money staked on the slug first."""
    return frame(ledger, *ledger_exceptions.with_codes_of_day(day, SLUG_CODES))


@dataclass(frozen=True)
class SlugCards:
    """The slug's cards and the earlier shoe's, position by position (one row per card of
    the run): ``slug`` and ``earlier`` have the same length and the same cards in order."""

    slug: pd.DataFrame
    earlier: pd.DataFrame
    earlier_shoe: str | None
    earlier_table: str | None
    earlier_day: date | None


def slug_cards(ledger: Ledger, shoe_id: str, event_ids: Sequence[str]) -> SlugCards:
    """The cards an exception cites, split into the shoe that dealt them again
    (``shoe_id``) and the earlier shoe it repeats."""
    cards = round_play.cards_of_events(ledger, event_ids, shoe_id)
    columns = ["position", "rank", "suit", "round_id", "hand"]
    slug = cards[cards["shoe_id"] == shoe_id]
    earlier = cards[cards["shoe_id"] != shoe_id]
    first = earlier.iloc[0] if len(earlier) else None
    return SlugCards(
        slug[columns].reset_index(drop=True),
        earlier[columns].reset_index(drop=True),
        None if first is None else str(first["shoe_id"]),
        None if first is None else str(first["table_id"]),
        None if first is None else pd.Timestamp(first["gaming_date"]).date(),
    )
