"""Chemin de Fer: the Banker deals the initial four cards himself (4.8(d)), and 4.12(a) says
what follows when he takes them in the wrong order and cannot rectify it: the hand is
annulled. (4.12(b)-(d), the hands counted by the regulation, are judged where every
announcement is, :mod:`pipeline.replay.checks.announcement`.)"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity
from pipeline.rules.variants import games_where

BANK_GAMES = games_where(lambda v: v.participant_bank)
"""The games where the participant holding the bank deals (4.8(d), 4.12(a)-(d))."""


@round_check(when=Phase.SETTLED, games=BANK_GAMES)
def annulled_hand_not_played(view: RoundView) -> Iterator[Flag]:
    """4.12(a): "the hand shall be annulled": a hand reported dealt in the wrong order by the
    Banker is void, so announcing and settling it moves money on a hand that does not count."""
    rnd = view.round
    report = rnd.annulled
    if report is None:
        return
    dealt = "-".join(c.hand[0] for c in rnd.cards)
    yield Flag(
        "banker_wrong_order",
        Severity.HIGH,
        f"The Banker took cards in the wrong order in the initial deal of round "
        f"{rnd.round_id} ({dealt}, reported by event {report.event_id}), an error that cannot "
        f"be rectified: the hand is annulled ({view.citation('banker_wrong_order')}); it was "
        f"played and {len(rnd.settled)} wager(s) settled instead. Void the round, return its "
        "wagers and recover what was paid or collected.",
        event_ids=(report.event_id, *(e.event_id for e in rnd.settled)),
    )
