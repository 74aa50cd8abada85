"""Betting closes with the first card (3.2(d) with 3.7(b), 4.7(e) with 4.8(d), 7.2(d) with
7.7(b)): "No More Bets" is announced before "Cards", so a wager made, increased or withdrawn
after the round's first card is late whether or not the pit terminal recorded the
announcement, and whenever it recorded it."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity, money


@round_check(when=Phase.SETTLED)
def no_wager_after_the_first_card(view: RoundView) -> Iterator[Flag]:
    """3.2(d)/3.7(b), 4.7(e)/4.8(d), 7.2(d)/7.7(b): the first card closes betting. A wager
    event the replay applied after the round's first card (in the devices' own sequence,
    merged by time) and not after a recorded "No More Bets" (those the "No More Bets" check
    reports)."""
    rnd = view.round
    if rnd.first_card is None:
        return
    closed = (
        'no "No More Bets" was recorded'
        if rnd.betting_closed is None
        else f'"No More Bets" was recorded only after it (event {rnd.betting_closed})'
    )
    for e in rnd.after_first_card:
        seat = int(e.get("seat"))
        verb = "withdrew" if e.payload_type == "WagerWithdrawn" else "wagered"
        yield Flag(
            "bets_after_cards",
            Severity.HIGH,
            f"Seat {seat} {verb} {money(int(e.get('amount_cents')))} on {e.get('wager')} in "
            f"round {rnd.round_id} after the round's first card was dealt (event "
            f"{rnd.first_card}); {closed}. Betting closes before the cards "
            f"({view.citation('bets_after_cards')}): the late amount is not honoured, and the "
            'pit terminal records "No More Bets" before the deal.',
            seat=seat,
            actual=int(e.get("amount_cents")),
            event_ids=(rnd.first_card, e.event_id),
        )


@round_check(when=Phase.SETTLED)
def no_more_bets_before_the_cards(view: RoundView) -> Iterator[Flag]:
    """3.2(d)/3.7(b), 4.7(e)/4.8(d), 7.2(d)/7.7(b): "No More Bets" is announced before
    "Cards". One recorded after the round's first card is the procedure not kept, whether or
    not a wager moved in between (one that did is :func:`no_wager_after_the_first_card`'s
    finding, which names the late record)."""
    rnd = view.round
    if rnd.closed_after_cards is None or rnd.after_first_card or rnd.first_card is None:
        return
    yield Flag(
        "bets_after_cards",
        Severity.MEDIUM,
        f'"No More Bets" was recorded in round {rnd.round_id} only after its first card was '
        f"dealt (event {rnd.first_card}); it is announced before the cards "
        f"({view.citation('bets_after_cards')}). No wager moved in between; review the "
        "dealer's procedure and the pit terminal's record.",
        event_ids=(rnd.first_card, rnd.closed_after_cards),
    )
