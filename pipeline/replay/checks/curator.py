"""Punto Banco's curator: to whom the shoe is offered (3.6(b), (d), 3.11(b)) and when it must
pass (3.11(a)1).

The pit terminal reports every change of curator (``CuratorChanged``): at the commencement of
play and whenever the shoe is relinquished, with the seats that declined it. A table that has
not reported a curator yet is not checked: its devices predate the event, or the day's first
report was lost, and the holder of the shoe is unknown. Minibaccarat is dealt by the dealer
and Chemin de Fer passes a bank (4.11), so neither has these checks. A pass is read as part of
the round it follows when it is recorded before that round closes (before the next round, the
shoe's end or the table's close); the pit records it as the shoe moves, before anything else.

3.7(d), dealing the four initial cards face down and handing each hand to a player, keeps the
deal order of 3.7(c); who is handed the cards is :mod:`pipeline.replay.checks.handed`'s.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity
from pipeline.rules.roles import curator_must_pass, shoe_offer_order
from pipeline.rules.variants import games_where

CURATOR_GAMES = games_where(lambda v: v.curator)
"""The games where a player holds the shoe as curator (3.6(b), 3.11(a)1)."""

PASS = "PB-3.11a1-CURATOR-PASS"
OFFER = "PB-3.6b-CURATOR"


@round_check(when=Phase.SETTLED, games=CURATOR_GAMES)
def shoe_passes_when_the_banker_loses(view: RoundView) -> Iterator[Flag]:
    """3.11(a)1: "The curator shall pass the shoe whenever the banker's hand loses" (a tie is
    not a loss). The dealer acting as curator (3.6(d)) has no shoe to pass."""
    curator, outcome, rnd = view.curator, view.outcome, view.round
    if curator is None or outcome is None or not curator_must_pass(outcome):
        return
    passes = [c for c in curator.changes if c.after_round == rnd.round_id]
    if passes:
        return
    if not curator.known or curator.seat is None:
        return
    yield Flag(
        PASS,
        Severity.MEDIUM,
        f"The Banker's Hand lost round {rnd.round_id} ({outcome.banker_points} to "
        f"{outcome.player_points}), but no change of curator was recorded after it: the "
        f"curator in seat {curator.seat} kept the shoe ({view.citation(PASS)}). Check the "
        "surveillance record of the table and the pit terminal's entries.",
        event_ids=(rnd.announced.event_id,) if rnd.announced else (rnd.started_event,),
        seat=curator.seat,
    )


def shoe_offered_in_order(view: RoundView) -> Iterator[Flag]:
    """3.6(b), 3.11(b): the shoe is offered from seat 1 at the commencement of play, from the
    participant to the right of the previous curator after a relinquishment, then
    counterclockwise, to the first who accepts; the dealer acts as curator only when nobody
    does (3.6(d)2)."""
    if view.curator is None:
        return
    for change in view.curator.changes:
        if change.after_round is not None and not change.previous_known:
            continue  # the first report of the day came after play began: order unknown
        expected = shoe_offer_order(change.previous, change.seated)
        accepted = () if change.seat is None else (change.seat,)
        offered = [*change.declined, *accepted]
        if (offered == expected) if change.seat is None else (offered == expected[: len(offered)]):
            continue
        start = (
            "from seat 1"
            if change.previous is None
            else f"from the right of the previous curator in seat {change.previous}"
        )
        taken = "the dealer took it" if change.seat is None else f"seat {change.seat} took it"
        yield Flag(
            OFFER,
            Severity.MEDIUM,
            f"The shoe was offered to seats {_seats(change.declined)} in turn, who declined, and "
            f"{taken}; with seats {_seats(change.seated)} occupied it is offered {start} "
            f"counterclockwise: {_seats(expected)}, until one accepts ({view.citation(OFFER)}).",
            event_ids=(change.event_id,),
            seat=change.seat,
        )


def _seats(seats: tuple[int, ...] | list[int]) -> str:
    return ", ".join(map(str, seats)) or "none"


# A change after a voided round is offered like any other.
round_check(when=Phase.SETTLED, games=CURATOR_GAMES)(shoe_offered_in_order)
round_check(when=Phase.VOIDED, games=CURATOR_GAMES)(shoe_offered_in_order)
